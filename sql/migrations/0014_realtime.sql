-- Realtime: broadcast/presence authorization (realtime.messages with
-- realtime.topic(), as Supabase Realtime does) and change capture for the
-- tables in the supabase_realtime publication.
--
-- Change capture: every publication member gets an AFTER ROW trigger that
-- sends a small NOTIFY on channel realtime_changes carrying schema, table,
-- operation, primary key values and the transaction timestamp; the realtime
-- service re-reads the row under each subscriber's role. An event trigger
-- re-syncs the triggers whenever a publication or table changes, so a table
-- added with "alter publication supabase_realtime add table …" streams
-- without a restart.

-- The service connects as authenticator (NOINHERIT) and calls the probe
-- below before switching role.
grant usage on schema realtime to authenticator;

create table realtime.messages (
  id bigint generated always as identity primary key,
  topic text not null,
  extension text not null check (extension in ('broadcast', 'presence')),
  event text,
  payload jsonb,
  private boolean not null default true,
  inserted_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table realtime.messages is 'Realtime channel messages. RLS policies on this table (using realtime.topic() and extension) decide who may join private channels (SELECT) and send on them (INSERT).';
alter table realtime.messages enable row level security;
grant select, insert on realtime.messages to anon, authenticated;
grant select, insert, update, delete on realtime.messages to service_role;

create function realtime.topic() returns text
  language sql stable
  set search_path = ''
as $$ select nullif(current_setting('realtime.topic', true), '') $$;
comment on function realtime.topic() is 'The channel topic (without the "realtime:" prefix) being authorized; set by the realtime service for the policy check.';
grant execute on function realtime.topic() to anon, authenticated, service_role, authenticator;

-- The row a private-channel read check evaluates SELECT policies against. It
-- inserts as the owner (bypassing RLS) inside the service's authorization
-- transaction, which is always rolled back.
create function realtime.authorization_probe(p_topic text, p_extension text) returns bigint
  language plpgsql volatile security definer
  set search_path = ''
as $$
declare
  probe_id bigint;
begin
  -- Only the service's login (which rolls back) may insert probes, and only
  -- before it switched to a client role.
  if session_user <> 'authenticator' or current_setting('role') not in ('none', 'authenticator') then
    raise exception 'realtime.authorization_probe is for the realtime service'
      using errcode = '42501', hint = 'Call it as authenticator before switching role.';
  end if;
  insert into realtime.messages (topic, extension, private) values (p_topic, p_extension, true)
    returning id into probe_id;
  return probe_id;
end
$$;
comment on function realtime.authorization_probe(text, text) is 'Inserts a probe message for a private-channel read check; only the realtime service (authenticator) calls it, inside a transaction it rolls back.';
revoke execute on function realtime.authorization_probe(text, text) from public;
grant execute on function realtime.authorization_probe(text, text) to authenticator;

-- Trigger arguments: TG_ARGV[0] is the replica identity ('f' full, else
-- default), the rest are the primary key columns.
create function realtime.capture_change() returns trigger
  language plpgsql
  set search_path = ''
as $$
declare
  pk jsonb := '{}';
  old_pk jsonb := null;
  src jsonb;
  old_src jsonb;
  i int;
  body text;
begin
  if tg_op = 'DELETE' then
    src := to_jsonb(old);
  else
    src := to_jsonb(new);
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    old_src := to_jsonb(old);
  end if;
  for i in 1 .. tg_nargs - 1 loop
    pk := pk || jsonb_build_object(tg_argv[i], src -> tg_argv[i]);
    if old_src is not null then
      old_pk := coalesce(old_pk, '{}') || jsonb_build_object(tg_argv[i], old_src -> tg_argv[i]);
    end if;
  end loop;
  if old_src is not null and tg_argv[0] = 'f' and length(old_src::text) < 6000 then
    old_pk := old_src;
  end if;
  body := jsonb_build_object(
    's', tg_table_schema, 't', tg_table_name, 'op', tg_op, 'pk', pk, 'old', old_pk,
    'ts', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text;
  if length(body) > 7900 then
    -- Oversized keys: the service reports "Error 413: Payload Too Large".
    body := jsonb_build_object('s', tg_table_schema, 't', tg_table_name, 'op', tg_op, 'big', true,
      'ts', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text;
  end if;
  perform pg_notify('realtime_changes', body);
  return null;
end
$$;
comment on function realtime.capture_change() is 'AFTER ROW trigger on supabase_realtime publication members: NOTIFY realtime_changes with {s, t, op, pk, old, ts}; the realtime service re-reads the row under each subscriber''s role.';

create function realtime.sync_publication_triggers() returns void
  language plpgsql
  set search_path = ''
as $$
declare
  r record;
  args text[];
  want text;
  have text;
begin
  -- Install or refresh the trigger on every member of the publication.
  for r in
    select c.oid, n.nspname, c.relname, c.relreplident
    from pg_catalog.pg_publication_tables pt
    join pg_catalog.pg_namespace n on n.nspname = pt.schemaname
    join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relname = pt.tablename
    where pt.pubname = 'supabase_realtime' and c.relkind = 'r'
      and not (n.nspname = 'realtime' and c.relname = 'messages')
  loop
    select array[case when r.relreplident = 'f' then 'f' else 'd' end] ||
           coalesce(array_agg(a.attname::text order by k.ord), '{}')
      into args
    from pg_catalog.pg_index i
    cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
    join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
    where i.indrelid = r.oid and i.indisprimary;
    if args is null then
      args := array[case when r.relreplident = 'f' then 'f' else 'd' end];
    end if;
    want := array_to_string(args, ',') || ',';
    select replace(encode(t.tgargs, 'escape'), '\000', ',')
      into have
    from pg_catalog.pg_trigger t
    where t.tgrelid = r.oid and t.tgname = 'realtime_capture_change';
    if have is distinct from want then
      if have is not null then
        execute format('drop trigger realtime_capture_change on %I.%I', r.nspname, r.relname);
      end if;
      execute format('create trigger realtime_capture_change after insert or update or delete on %I.%I '
                     'for each row execute function realtime.capture_change(%s)',
                     r.nspname, r.relname,
                     (select string_agg(quote_literal(x), ', ') from unnest(args) as x));
    end if;
  end loop;
  -- Remove it from tables that left the publication.
  for r in
    select n.nspname, c.relname
    from pg_catalog.pg_trigger t
    join pg_catalog.pg_class c on c.oid = t.tgrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where t.tgname = 'realtime_capture_change'
      and not exists (select 1 from pg_catalog.pg_publication_tables pt
                      where pt.pubname = 'supabase_realtime' and pt.schemaname = n.nspname and pt.tablename = c.relname)
  loop
    execute format('drop trigger realtime_capture_change on %I.%I', r.nspname, r.relname);
  end loop;
end
$$;
comment on function realtime.sync_publication_triggers() is 'Installs realtime.capture_change on every supabase_realtime publication member (arguments: replica identity and primary key columns) and removes it from tables that left.';
revoke execute on function realtime.sync_publication_triggers() from public;

-- Security definer (owned by the migration's superuser) so DDL run by any
-- role can re-sync triggers on tables that role does not own; a failure is
-- reported as a warning and never aborts the caller's DDL.
create function realtime.on_ddl_sync_publication() returns event_trigger
  language plpgsql security definer
  set search_path = ''
as $$
begin
  perform realtime.sync_publication_triggers();
exception when others then
  raise warning 'realtime: could not sync change-capture triggers: %', sqlerrm;
end
$$;
comment on function realtime.on_ddl_sync_publication() is 'Event trigger: re-syncs change-capture triggers after publication or table DDL; failures become warnings.';
revoke execute on function realtime.on_ddl_sync_publication() from public;

create event trigger realtime_sync_publication on ddl_command_end
  when tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'ALTER TABLE', 'CREATE TABLE')
  execute function realtime.on_ddl_sync_publication();

select realtime.sync_publication_triggers();
