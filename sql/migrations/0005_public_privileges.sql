-- The privileges Supabase grants on the public schema: every API role may use
-- it, and tables, functions and sequences created later by the migrating role
-- are granted to them by default. Row Level Security, not GRANT, is what
-- restricts rows; every public table enables it in the migration creating it.
grant usage on schema public to anon, authenticated, service_role;

grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all functions in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;

alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;

-- PostgREST reloads its schema cache on this notification; DDL run by later
-- migrations announces itself so running services pick it up without restart.
create or replace function extensions.pgrst_ddl_watch() returns event_trigger
  language plpgsql
  set search_path = ''
as $$
begin
  perform pg_notify('pgrst', 'reload schema');
end
$$;

do $$
begin
  if not exists (select 1 from pg_event_trigger where evtname = 'pgrst_ddl_watch') then
    create event trigger pgrst_ddl_watch on ddl_command_end execute function extensions.pgrst_ddl_watch();
  end if;
end
$$;

comment on function extensions.pgrst_ddl_watch() is 'Announces DDL on channel pgrst so rest and rpc reload their schema cache.';
