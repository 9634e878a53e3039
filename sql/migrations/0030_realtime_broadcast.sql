-- Realtime: Broadcast from Database, as Supabase Realtime offers it.
--
-- realtime.send, realtime.send_binary and realtime.broadcast_changes insert
-- a row into realtime.messages, with the signatures, defaults and warnings of
-- Supabase's functions, so triggers written for Supabase work unchanged. They
-- run as the caller: the insert is subject to the realtime.messages INSERT
-- policies (realtime.topic() is set to the topic first), which is why
-- Supabase's guide writes the trigger functions "security definer".
--
-- Delivery: an AFTER INSERT trigger on realtime.messages sends
-- NOTIFY realtime_messages with the new id. Notifications are sent at commit
-- and discarded on rollback, so the service's own authorization probes
-- (always rolled back) and rolled-back sends never reach anyone. Every
-- realtime replica LISTENs, reads the row by id through
-- realtime.broadcast_message (granted to authenticator only) and delivers it
-- to its own channels of the topic: no replica relays for another.
--
-- Supabase partitions realtime.messages by day and drops partitions older
-- than three days; here one table is pruned by the service
-- (realtime.prune_messages) for the same retention.

-- Supabase's message ids are uuids (the replay meta and realtime.send's
-- payload carry them). The table only ever held rolled-back probes, so the
-- key is replaced rather than converted.
alter table realtime.messages drop column id;
alter table realtime.messages add column id uuid not null default gen_random_uuid() primary key;
alter table realtime.messages add column binary_payload bytea;
comment on column realtime.messages.binary_payload is 'The payload of a binary broadcast (realtime.send_binary); payload is null then.';

-- Replay reads a private topic's recent broadcasts, newest first.
create index messages_replay_idx on realtime.messages (topic, inserted_at desc)
  where extension = 'broadcast' and private;
create index messages_inserted_at_idx on realtime.messages (inserted_at);

-- The probe now returns the uuid key (realtime/internal/broadcast reads it).
drop function realtime.authorization_probe(text, text);
create function realtime.authorization_probe(p_topic text, p_extension text) returns uuid
  language plpgsql volatile security definer
  set search_path = ''
as $$
declare
  probe_id uuid;
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

-- Supabase's realtime.send: adds the generated id to an object payload that
-- has none, and turns any failure into a WARNING so a trigger calling it
-- never aborts the caller's transaction.
create function realtime.send(payload jsonb, event text, topic text, private boolean default true) returns void
  language plpgsql
  set search_path = ''
as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;
comment on function realtime.send(jsonb, text, text, boolean) is 'Broadcasts payload as event to the channels of topic (private ones by default); Supabase Realtime''s Broadcast from Database.';

create function realtime.send_binary(payload bytea, event text, topic text, private boolean default true) returns void
  language plpgsql
  set search_path = ''
as $$
declare
  generated_id uuid;
begin
  begin
    generated_id := gen_random_uuid();
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, binary_payload, event, topic, private, extension)
    values (generated_id, payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;
comment on function realtime.send_binary(bytea, text, text, boolean) is 'Broadcasts a binary payload as event to the channels of topic; clients on protocol 2.0.0 receive the bytes, 1.0.0 clients receive nothing (as in Supabase).';

-- Supabase's realtime.broadcast_changes, for row triggers.
create function realtime.broadcast_changes(topic_name text, event_name text, operation text, table_name text,
    table_schema text, new record, old record, level text default 'ROW') returns void
  language plpgsql
  set search_path = ''
as $$
declare
  row_data jsonb := '{}'::jsonb;
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
      'table', table_name, 'schema', table_schema);
    perform realtime.send(row_data, event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception
  when others then
    raise exception 'Failed to process the row: %', sqlerrm;
end
$$;
comment on function realtime.broadcast_changes(text, text, text, text, text, record, record, text) is 'Broadcasts a row change (record, old_record, operation, table, schema) to the private channels of topic_name; call it from an AFTER ROW trigger.';

grant execute on function realtime.send(jsonb, text, text, boolean) to anon, authenticated, service_role;
grant execute on function realtime.send_binary(bytea, text, text, boolean) to anon, authenticated, service_role;
grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text) to anon, authenticated, service_role;

-- Tell the replicas. Only the id travels: a payload of any size is read
-- from the table.
create function realtime.notify_message() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  perform pg_notify('realtime_messages', new.id::text);
  return null;
end
$$;
revoke execute on function realtime.notify_message() from public;
create trigger messages_notify after insert on realtime.messages
  for each row when (new.extension = 'broadcast') execute function realtime.notify_message();

-- The service reads a message, and a private topic's recent ones for
-- replay, through these (authenticator has no table privileges, and the
-- channel was authorized when it joined).
create function realtime.broadcast_message(p_id uuid)
  returns table (id uuid, topic text, event text, private boolean, payload jsonb, binary_payload bytea)
  language sql stable security definer
  set search_path = ''
as $$
  select m.id, m.topic, m.event, m.private, m.payload, m.binary_payload
  from realtime.messages m where m.id = p_id and m.extension = 'broadcast'
$$;
revoke execute on function realtime.broadcast_message(uuid) from public;
grant execute on function realtime.broadcast_message(uuid) to authenticator;

-- Supabase's replay: a private topic's broadcasts since a time, at most
-- p_limit of the newest, returned oldest first.
create function realtime.replay_messages(p_topic text, p_since timestamptz, p_limit int)
  returns table (id uuid, event text, payload jsonb, binary_payload bytea)
  language sql stable security definer
  set search_path = ''
as $$
  select r.id, r.event, r.payload, r.binary_payload from (
    select m.id, m.event, m.payload, m.binary_payload, m.inserted_at
    from realtime.messages m
    where m.topic = p_topic and m.private and m.extension = 'broadcast'
      and m.inserted_at >= p_since and m.inserted_at <= now()
    order by m.inserted_at desc
    limit p_limit
  ) r order by r.inserted_at
$$;
revoke execute on function realtime.replay_messages(text, timestamptz, int) from public;
grant execute on function realtime.replay_messages(text, timestamptz, int) to authenticator;

-- Retention: Supabase keeps about three days of messages.
create function realtime.prune_messages(p_keep interval default interval '3 days') returns bigint
  language sql volatile security definer
  set search_path = ''
as $$
  with gone as (delete from realtime.messages where inserted_at < now() - p_keep returning 1)
  select count(*) from gone
$$;
revoke execute on function realtime.prune_messages(interval) from public;
grant execute on function realtime.prune_messages(interval) to authenticator;
