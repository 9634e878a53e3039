-- Replay sent the broadcasts of one transaction in no defined order, and
-- with a limit it could keep any of them: they share inserted_at (now() is
-- the transaction's start), and nothing else ordered them. Live delivery
-- gives them in the order they were sent (NOTIFY keeps a transaction's
-- order), so a client that joins with replay could see the same messages
-- in another order than the clients that were there.
--
-- seq numbers messages as they are inserted; replay orders by inserted_at,
-- then seq. Across transactions inserted_at still decides, as upstream's
-- replay orders them.

alter table realtime.messages add column seq bigint generated always as identity;
comment on column realtime.messages.seq is 'Insertion order: breaks the tie between messages of one transaction, which share inserted_at (realtime.replay_messages).';

drop index realtime.messages_replay_idx;
create index messages_replay_idx on realtime.messages (topic, inserted_at desc, seq desc)
  where extension = 'broadcast' and private;

create or replace function realtime.replay_messages(p_topic text, p_since timestamptz, p_limit int)
  returns table (id uuid, event text, payload jsonb, binary_payload bytea)
  language sql stable security definer
  set search_path = ''
as $$
  select r.id, r.event, r.payload, r.binary_payload from (
    select m.id, m.event, m.payload, m.binary_payload, m.inserted_at, m.seq
    from realtime.messages m
    where m.topic = p_topic and m.private and m.extension = 'broadcast'
      and m.inserted_at >= p_since and m.inserted_at <= now()
    order by m.inserted_at desc, m.seq desc
    limit p_limit
  ) r order by r.inserted_at, r.seq
$$;
comment on function realtime.replay_messages(text, timestamptz, int) is 'Replay on join: a private topic''s broadcasts inserted since p_since, the newest p_limit, oldest first (in the order they were sent within a transaction).';
