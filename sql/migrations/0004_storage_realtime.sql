-- Schemas whose tables later migrations add: storage (buckets, objects) and
-- realtime (messages), plus the publication that marks tables for streaming.
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;
alter schema storage owner to supabase_storage_admin;
comment on schema storage is 'Supabase Storage: buckets and object metadata; access decided by RLS.';

create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;
comment on schema realtime is 'Supabase Realtime: broadcast authorization and change capture.';

-- Publications are per database; tables are added by the migrations that
-- create them ("alter publication supabase_realtime add table ...").
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;
