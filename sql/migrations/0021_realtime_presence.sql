-- Realtime: presence shared by every realtime replica through PostgreSQL,
-- the only thing the replicas share (as broadcasts are relayed with NOTIFY
-- realtime_broadcast).
--
-- Each realtime process registers a row in realtime.presence_replicas and
-- refreshes its heartbeat_at every third of its timeout
-- (PRESENCE_REPLICA_TIMEOUT_IN_MS); the presences its sockets track are
-- rows of realtime.presences. Every change is written in one transaction
-- that sends a small NOTIFY on channel realtime_presence
-- ({"r":replica,"op":"diff","j":[refs joined],"l":[refs left]}); the other
-- replicas re-read the joined rows, so metas of any size travel through the
-- table and the NOTIFY stays far below its 8000-byte limit. A replica whose
-- heartbeat is older than the timeout is deleted by any live one, which
-- removes its presences by cascade and sends op "down"; a clean shutdown
-- does the same for itself at once. A replica that starts, or reconnects
-- its LISTEN connection, reads the table.

create table realtime.presence_replicas (
  id text primary key,
  heartbeat_at timestamptz not null default now()
);
comment on table realtime.presence_replicas is 'Live realtime replicas (one row per process, random id) and their last heartbeat; a row older than the replicas'' timeout is deleted, and its presences with it.';
alter table realtime.presence_replicas enable row level security;
create policy presence_replicas_all_authenticator on realtime.presence_replicas for all to authenticator
  using (true) with check (true);
grant select, insert, update, delete on realtime.presence_replicas to authenticator;

create table realtime.presences (
  id bigint generated always as identity primary key,
  ref text not null unique,
  replica_id text not null references realtime.presence_replicas (id) on delete cascade,
  private boolean not null,
  topic text not null,
  key text not null,
  -- json, not jsonb: kept byte for byte, so every replica sends the same
  -- presence_diff text.
  meta json not null constraint presences_meta_check check (json_typeof(meta) = 'object'),
  tracked_at timestamptz not null default now()
);
create index presences_replica_id_idx on realtime.presences (replica_id);
comment on table realtime.presences is 'Presences tracked on each realtime replica (topic without "realtime:", private flag, presence key, meta including phx_ref), read by the other replicas to build presence_state and presence_diff.';
alter table realtime.presences enable row level security;
create policy presences_all_authenticator on realtime.presences for all to authenticator
  using (true) with check (true);
grant select, insert, delete on realtime.presences to authenticator;
