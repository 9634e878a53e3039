-- The signed-in user's inbox (issue 13): conversations about a listing
-- between its owner and an interested user, notifications, saved listings,
-- reports to the admins, and the public contact form.
--
--   * A conversation is started by start_conversation() from a listing's
--     detail page; afterwards both parties insert messages directly. Only
--     the two parties (and admins) read them. conversation_list is what the
--     /messages screen reads: one row per conversation of the caller, with
--     the other party's name, the last message and the unread count.
--   * Notifications are written in one place, app_private.notify(), called
--     by the triggers and sweeps of the events that cause them (listing
--     approved/rejected/expiring, KYC decided, P2P trade events, a new
--     message). They carry a kind and data, not text: the app words them in
--     the reader's language. Owners read and mark them read through RLS.
--   * conversations, messages and notifications are published for Realtime
--     with their whole old row, so the app's badges move live.

-- ---------------------------------------------------------------------------
-- Notifications.
create table public.notifications (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null constraint notifications_kind_check check (kind in (
    'listing_approved', 'listing_rejected', 'listing_expiring', 'kyc_approved', 'kyc_rejected', 'trade', 'message')),
  data jsonb not null default '{}' constraint notifications_data_check check (jsonb_typeof(data) = 'object'),
  link text,
  dedupe_key text,
  read_at timestamptz,
  created_at timestamptz not null default now()
);
create index notifications_user_created_idx on public.notifications (user_id, created_at desc);
create index notifications_user_unread_idx on public.notifications (user_id) where read_at is null;
create unique index notifications_user_dedupe_key on public.notifications (user_id, dedupe_key);
comment on table public.notifications is 'What happened that concerns a user: kind (listing_approved, listing_rejected, listing_expiring, kyc_approved, kyc_rejected, trade, message), data for the app to word it, and link (an app path). Written only by app_private.notify(); the owner reads, marks read (read_at) and deletes.';
comment on column public.notifications.dedupe_key is 'One notification per key and user: a sweep repeating itself adds nothing, and a conversation''s new message resurfaces its one notification instead of piling up.';

alter table public.notifications enable row level security;
revoke all on public.notifications from anon;
revoke insert, update, delete, truncate, references, trigger on public.notifications from authenticated;
grant update (read_at) on public.notifications to authenticated;
grant delete on public.notifications to authenticated;
create policy notifications_select_owner on public.notifications for select to authenticated
  using (user_id = (select auth.uid()));
create policy notifications_update_owner on public.notifications for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy notifications_delete_owner on public.notifications for delete to authenticated
  using (user_id = (select auth.uid()));

create function app_private.notify(p_user_id uuid, p_kind text, p_data jsonb, p_link text, p_dedupe_key text default null)
  returns boolean
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if p_user_id is null then
    return false;
  end if;
  if p_kind = 'message' then
    -- A conversation keeps one notification: a new message brings it back
    -- to the top, unread, with the latest sender and preview.
    insert into public.notifications (user_id, kind, data, link, dedupe_key)
    values (p_user_id, p_kind, coalesce(p_data, '{}'), p_link, p_dedupe_key)
    on conflict (user_id, dedupe_key) do update
      set data = excluded.data, link = excluded.link, read_at = null, created_at = now();
  else
    insert into public.notifications (user_id, kind, data, link, dedupe_key)
    values (p_user_id, p_kind, coalesce(p_data, '{}'), p_link, p_dedupe_key)
    on conflict (user_id, dedupe_key) do nothing;
  end if;
  return found;
end
$$;
comment on function app_private.notify(uuid, text, jsonb, text, text) is 'The one writer of notifications: adds (or for kind message, resurfaces) a notification for p_user_id and returns whether it wrote one; with a p_dedupe_key already used, other kinds add nothing.';
revoke execute on function app_private.notify(uuid, text, jsonb, text, text) from public;

-- The app's My page of each listing kind, for notification links.
create function app_private.my_listings_path(p_kind text) returns text
  language sql immutable
  set search_path = ''
as $$
  select case p_kind when 'property' then '/my-properties' when 'product' then '/my-products'
                     when 'land' then '/my-lands' when 'service' then '/my-services' end
$$;
comment on function app_private.my_listings_path(text) is 'The app path listing a user''s listings of kind p_kind (property, product, land, service).';
revoke execute on function app_private.my_listings_path(text) from public;

-- Listing decided by an admin: pending -> paid (approved) or rejected.
-- TG_ARGV[0] is the listing kind, TG_ARGV[1] its owner column.
create function app_private.notify_listing_moderated() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_row jsonb := to_jsonb(new);
begin
  if old.payment_status = 'pending' and new.payment_status in ('paid', 'rejected') then
    perform app_private.notify(
      (v_row ->> tg_argv[1])::uuid,
      case new.payment_status when 'paid' then 'listing_approved' else 'listing_rejected' end,
      jsonb_build_object('listing_kind', tg_argv[0], 'listing_id', new.id,
                         'title', coalesce(v_row ->> 'title', v_row ->> 'name'),
                         'notes', new.moderation_notes, 'paid_until', new.paid_until),
      app_private.my_listings_path(tg_argv[0]));
  end if;
  return null;
end
$$;
comment on function app_private.notify_listing_moderated() is 'Trigger: tells a listing''s owner that an admin approved or rejected it (TG_ARGV: listing kind, owner column).';
revoke execute on function app_private.notify_listing_moderated() from public;

-- A deleted listing leaves no saved rows pointing at nothing.
create function app_private.forget_deleted_listing() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  delete from public.saved_listings s where s.listing_kind = tg_argv[0] and s.listing_id = old.id;
  return null;
end
$$;
comment on function app_private.forget_deleted_listing() is 'Trigger: removes every user''s saved_listings row of a deleted listing (TG_ARGV[0]: listing kind).';
revoke execute on function app_private.forget_deleted_listing() from public;

create function app_private.notify_kyc_decided() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if old.verification_status = 'pending' and new.verification_status in ('approved', 'rejected') then
    perform app_private.notify(new.user_id, 'kyc_' || new.verification_status,
                               jsonb_build_object('notes', new.admin_notes, 'reviewed_at', new.reviewed_at),
                               '/kyc-verification');
  end if;
  return null;
end
$$;
comment on function app_private.notify_kyc_decided() is 'Trigger: tells a user their KYC submission was approved or rejected (with the admin''s notes).';
revoke execute on function app_private.notify_kyc_decided() from public;
create trigger kyc_verifications_notify after update of verification_status on public.kyc_verifications
  for each row execute function app_private.notify_kyc_decided();

-- P2P trade events: the party who did not act hears of it; a change made by
-- nobody (a sweep, an admin) is told to both.
create function app_private.notify_trade_event() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_trade public.p2p_trades;
  v_party uuid;
begin
  select * into v_trade from public.p2p_trades t where t.id = new.trade_id;
  foreach v_party in array array[v_trade.buyer_id, v_trade.seller_id] loop
    if new.actor_id is distinct from v_party then
      perform app_private.notify(v_party, 'trade',
        jsonb_build_object('trade_id', v_trade.id, 'status', new.to_status, 'amount', v_trade.amount,
                           'currency', v_trade.currency, 'total_kes', v_trade.total_kes),
        '/p2p/trades/' || v_trade.id::text,
        'trade:' || v_trade.id::text || ':' || new.to_status);
    end if;
  end loop;
  return null;
end
$$;
comment on function app_private.notify_trade_event() is 'Trigger on p2p_trade_events: notifies the trade''s parties other than the actor of a new trade or status change.';
revoke execute on function app_private.notify_trade_event() from public;
create trigger p2p_trade_events_notify after insert on public.p2p_trade_events
  for each row execute function app_private.notify_trade_event();

-- Listings whose paid period ends within 3 days: one notice per period.
create function public.notify_expiring_listings(p_now timestamptz default now()) returns integer
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_n integer := 0;
  r record;
begin
  for r in
    select 'property' as kind, t.id, t.user_id as owner, t.title, t.paid_until from public.properties t
     where t.is_active and t.paid_until > p_now and t.paid_until <= p_now + interval '3 days'
    union all
    select 'product', t.id, t.user_id, t.name, t.paid_until from public.products t
     where t.is_active and t.paid_until > p_now and t.paid_until <= p_now + interval '3 days'
    union all
    select 'land', t.id, t.userid, t.title, t.paid_until from public.lands t
     where t.is_active and t.paid_until > p_now and t.paid_until <= p_now + interval '3 days'
    union all
    select 'service', t.id, t.userid, t.name, t.paid_until from public.service_providers t
     where t.is_active and t.paid_until > p_now and t.paid_until <= p_now + interval '3 days'
  loop
    if app_private.notify(r.owner, 'listing_expiring',
         jsonb_build_object('listing_kind', r.kind, 'listing_id', r.id, 'title', r.title, 'paid_until', r.paid_until),
         app_private.my_listings_path(r.kind),
         'expiring:' || r.kind || ':' || r.id::text || ':' || r.paid_until::text) then
      v_n := v_n + 1;
    end if;
  end loop;
  return v_n;
end
$$;
comment on function public.notify_expiring_listings(timestamptz) is 'Sweep: tells the owners of active listings whose paid period ends within 3 days of p_now, once per paid period; returns how many notices it added. Admins and service_role only.';
revoke execute on function public.notify_expiring_listings(timestamptz) from public, anon;
grant execute on function public.notify_expiring_listings(timestamptz) to authenticated, service_role;

create or replace function public.run_expiry_sweeps(p_now timestamptz default now()) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  perform app_private.require_admin();
  return jsonb_build_object(
    'trades', public.expire_overdue_trades(p_now),
    'disputes', public.escalate_unreleased_trades(p_now),
    'offers', public.expire_p2p_offers(p_now),
    'listings', public.expire_listings(p_now),
    'expiring', public.notify_expiring_listings(p_now));
end
$$;
comment on function public.run_expiry_sweeps(timestamptz) is 'Runs every expiry sweep at p_now (overdue trades, unreleased paid trades, lapsed offers, lapsed listings, notices of listings ending within 3 days) and returns the counts {trades, disputes, offers, listings, expiring}. For a scheduler calling as service_role, or an admin.';

-- ---------------------------------------------------------------------------
-- Conversations and their messages.
create table public.conversations (
  id uuid primary key default gen_random_uuid(),
  listing_kind text not null constraint conversations_listing_kind_check check (listing_kind in ('property', 'product', 'land', 'service')),
  listing_id uuid not null,
  listing_title text,
  owner_id uuid not null references auth.users (id) on delete cascade,
  buyer_id uuid not null references auth.users (id) on delete cascade,
  owner_read_at timestamptz,
  buyer_read_at timestamptz,
  last_message_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  constraint conversations_listing_buyer_key unique (listing_kind, listing_id, buyer_id),
  constraint conversations_distinct_parties check (owner_id <> buyer_id)
);
create index conversations_owner_idx on public.conversations (owner_id, last_message_at desc);
create index conversations_buyer_idx on public.conversations (buyer_id, last_message_at desc);
comment on table public.conversations is 'A conversation about one listing between its owner and one interested user (buyer), started by start_conversation(). listing_title is kept from the start, so the thread still reads after the listing is deleted. *_read_at: when each party last read it.';

create table public.messages (
  id uuid primary key default gen_random_uuid(),
  conversation_id uuid not null references public.conversations (id) on delete cascade,
  sender_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  body text not null constraint messages_body_check check (char_length(btrim(body)) between 1 and 2000),
  created_at timestamptz not null default now()
);
create index messages_conversation_created_idx on public.messages (conversation_id, created_at);
create index messages_sender_created_idx on public.messages (sender_id, created_at);
comment on table public.messages is 'Messages of a conversation: written by its two parties, read by them and admins; never edited.';

alter table public.conversations enable row level security;
alter table public.messages enable row level security;
revoke all on public.conversations from anon;
revoke all on public.messages from anon;
revoke insert, update, delete, truncate, references, trigger on public.conversations from authenticated;
revoke insert, update, delete, truncate, references, trigger on public.messages from authenticated;
grant insert (conversation_id, sender_id, body) on public.messages to authenticated;

create policy conversations_select_party on public.conversations for select to authenticated
  using ((select auth.uid()) in (owner_id, buyer_id));
create policy conversations_select_admin on public.conversations for select to authenticated
  using ((select public.is_admin()));
create policy messages_select_party on public.messages for select to authenticated
  using (exists (select 1 from public.conversations c where c.id = messages.conversation_id
                   and (select auth.uid()) in (c.owner_id, c.buyer_id)));
create policy messages_select_admin on public.messages for select to authenticated
  using ((select public.is_admin()));
create policy messages_insert_party on public.messages for insert to authenticated
  with check (sender_id = (select auth.uid())
              and exists (select 1 from public.conversations c where c.id = messages.conversation_id
                            and (select auth.uid()) in (c.owner_id, c.buyer_id)));

-- Flood guard and bookkeeping of a new message.
create function app_private.messages_before_insert() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if (select count(*) from public.messages m
       where m.sender_id = new.sender_id and m.created_at > now() - interval '1 minute') >= 20 then
    raise exception 'You are sending messages too fast' using errcode = 'P0001',
      hint = 'Wait a minute and try again.';
  end if;
  new.body := btrim(new.body);
  return new;
end
$$;
comment on function app_private.messages_before_insert() is 'Trigger: at most 20 messages per sender per minute; trims the body.';
revoke execute on function app_private.messages_before_insert() from public;
create trigger messages_before_insert before insert on public.messages
  for each row execute function app_private.messages_before_insert();

create function app_private.messages_after_insert() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_conv public.conversations;
  v_to uuid;
begin
  update public.conversations c
     set last_message_at = new.created_at,
         owner_read_at = case when new.sender_id = c.owner_id then new.created_at else c.owner_read_at end,
         buyer_read_at = case when new.sender_id = c.buyer_id then new.created_at else c.buyer_read_at end
   where c.id = new.conversation_id
  returning * into v_conv;
  v_to := case when new.sender_id = v_conv.owner_id then v_conv.buyer_id
               when new.sender_id = v_conv.buyer_id then v_conv.owner_id end;
  perform app_private.notify(v_to, 'message',
    jsonb_build_object('conversation_id', v_conv.id, 'listing_kind', v_conv.listing_kind,
                       'listing_title', v_conv.listing_title,
                       'sender_name', (select p.full_name from public.profiles p where p.id = new.sender_id),
                       'preview', left(new.body, 140)),
    '/messages/' || v_conv.id::text,
    'message:' || v_conv.id::text);
  return null;
end
$$;
comment on function app_private.messages_after_insert() is 'Trigger: moves the conversation''s last_message_at (the sender has read up to their own message) and notifies the other party.';
revoke execute on function app_private.messages_after_insert() from public;
create trigger messages_after_insert after insert on public.messages
  for each row execute function app_private.messages_after_insert();

create function public.start_conversation(p_kind text, p_listing_id uuid, p_body text) returns uuid
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_owner_col text;
  v_row jsonb;
  v_owner uuid;
  v_id uuid;
begin
  select l.owner_column into v_owner_col from app_private.listing_table(p_kind) l;
  if v_owner_col is null then
    raise exception 'Listing kind must be property, land, product or service' using errcode = 'P0001';
  end if;
  if p_body is null or char_length(btrim(p_body)) = 0 then
    raise exception 'Message cannot be empty' using errcode = 'P0001';
  end if;
  if char_length(btrim(p_body)) > 2000 then
    raise exception 'Message is too long' using errcode = 'P0001', detail = 'At most 2000 characters.';
  end if;
  v_row := app_private.listing_row(p_kind, p_listing_id, false);
  v_owner := (v_row ->> v_owner_col)::uuid;
  if v_owner = v_uid then
    raise exception 'This is your own listing' using errcode = 'P0001';
  end if;
  if not coalesce((v_row ->> 'is_active')::boolean, false) and not public.is_admin() then
    raise exception 'Listing not found' using errcode = 'P0001';
  end if;
  insert into public.conversations (listing_kind, listing_id, listing_title, owner_id, buyer_id)
  values (p_kind, p_listing_id, coalesce(v_row ->> 'title', v_row ->> 'name'), v_owner, v_uid)
  on conflict (listing_kind, listing_id, buyer_id) do update set listing_title = excluded.listing_title
  returning id into v_id;
  insert into public.messages (conversation_id, sender_id, body) values (v_id, v_uid, p_body);
  return v_id;
end
$$;
comment on function public.start_conversation(text, uuid, text) is 'Sends the caller''s first (or next) message about a visible listing to its owner: finds or opens the conversation (one per listing and interested user) and returns its id.';
revoke execute on function public.start_conversation(text, uuid, text) from public, anon;
grant execute on function public.start_conversation(text, uuid, text) to authenticated, service_role;

create function public.mark_conversation_read(p_conversation_id uuid) returns void
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
begin
  update public.conversations c
     set owner_read_at = case when c.owner_id = v_uid then now() else c.owner_read_at end,
         buyer_read_at = case when c.buyer_id = v_uid then now() else c.buyer_read_at end
   where c.id = p_conversation_id and v_uid in (c.owner_id, c.buyer_id);
  if not found then
    raise exception 'Conversation not found' using errcode = 'P0001';
  end if;
  update public.notifications n set read_at = now()
   where n.user_id = v_uid and n.dedupe_key = 'message:' || p_conversation_id::text and n.read_at is null;
end
$$;
comment on function public.mark_conversation_read(uuid) is 'Marks a conversation of the caller read up to now (and its message notification).';
revoke execute on function public.mark_conversation_read(uuid) from public, anon;
grant execute on function public.mark_conversation_read(uuid) to authenticated, service_role;

-- What /messages lists: the caller's conversations, newest first in the app.
-- Runs with its owner's rights to show the other party's name only; the
-- WHERE clause keeps every row to the caller's own conversations.
create view public.conversation_list with (security_barrier) as
  select c.id, c.listing_kind, c.listing_id, c.listing_title,
         case when c.owner_id = me.uid then 'owner' else 'buyer' end as my_role,
         other.id as other_party_id,
         coalesce(nullif(btrim(other.full_name), ''), 'User') as other_party_name,
         last.body as last_message, last.sender_id as last_sender_id,
         c.last_message_at, c.created_at,
         (select count(*) from public.messages m
           where m.conversation_id = c.id and m.sender_id <> me.uid
             and m.created_at > coalesce(case when c.owner_id = me.uid then c.owner_read_at else c.buyer_read_at end,
                                         '-infinity'::timestamptz))::integer as unread_count
    from public.conversations c
   cross join lateral (select auth.uid() as uid) me
    left join public.profiles other on other.id = case when c.owner_id = me.uid then c.buyer_id else c.owner_id end
    left join lateral (select m.body, m.sender_id from public.messages m
                        where m.conversation_id = c.id order by m.created_at desc limit 1) last on true
   where me.uid in (c.owner_id, c.buyer_id);
comment on view public.conversation_list is 'The caller''s conversations: listing, my_role (owner or buyer), the other party''s id and name, the last message, and unread_count (messages of the other party after the caller last read).';
revoke all on public.conversation_list from public, anon, authenticated, service_role;
grant select on public.conversation_list to authenticated;

-- Conversation partners know each other's public profile.
create or replace view public.public_profiles with (security_barrier) as
  select p.id, p.full_name,
         exists (select 1 from public.kyc_verifications k
                  where k.user_id = p.id and k.verification_status = 'approved') as kyc_verified,
         p.created_at
    from public.profiles p
   where p.id = (select auth.uid())
      or (select public.is_admin())
      or (select auth.role()) = 'service_role'
      or exists (select 1 from public.p2p_offers o where o.user_id = p.id and o.status = 'active')
      or exists (select 1 from public.p2p_trades t
                  where (t.buyer_id = (select auth.uid()) and t.seller_id = p.id)
                     or (t.seller_id = (select auth.uid()) and t.buyer_id = p.id))
      or exists (select 1 from public.conversations c
                  where (c.owner_id = (select auth.uid()) and c.buyer_id = p.id)
                     or (c.buyer_id = (select auth.uid()) and c.owner_id = p.id));
comment on view public.public_profiles is 'What other signed-in users may know of a person (id, full_name, kyc_verified, created_at): visible for owners of active P2P offers, the caller''s trade counterparties and conversation partners, the caller, admins and service_role. Never a phone number or e-mail.';

-- ---------------------------------------------------------------------------
-- The wallet screen's history: each ledger posting as seen from one user's
-- wallet, signed (+ credited to it, - debited from it). SECURITY INVOKER, so
-- the wallets and wallet_transfers policies decide: users see their own,
-- admins everyone's (filter on user_id).
create view public.wallet_history with (security_invoker = true) as
  select t.id, w.user_id, t.currency, t.kind,
         case when t.credit_wallet_id = w.id then t.amount else -t.amount end as amount,
         t.reference, t.memo, t.trade_id, t.created_at
    from public.wallet_transfers t
    join public.wallets w on w.id in (t.debit_wallet_id, t.credit_wallet_id) and w.kind = 'user';
comment on view public.wallet_history is 'Ledger postings per user wallet: user_id, currency, kind (purchase, listing_fee, listing_refund, escrow_lock, escrow_release, escrow_refund, issuance), signed amount (+ in, - out), reference (e.g. property:<id> for listing fees), memo, trade_id. Rows follow the wallets and wallet_transfers policies.';
revoke all on public.wallet_history from public, anon, authenticated, service_role;
grant select on public.wallet_history to authenticated, service_role;

-- ---------------------------------------------------------------------------
-- Saved listings (the heart on cards and detail pages).
create table public.saved_listings (
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  listing_kind text not null constraint saved_listings_listing_kind_check check (listing_kind in ('property', 'product', 'land', 'service')),
  listing_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (user_id, listing_kind, listing_id)
);
create index saved_listings_listing_idx on public.saved_listings (listing_kind, listing_id);
comment on table public.saved_listings is 'A user''s saved (hearted) listings; /saved lists them. Only listings the user can see may be saved; rows go when the listing is deleted.';
alter table public.saved_listings enable row level security;
revoke all on public.saved_listings from anon;
revoke update, truncate, references, trigger on public.saved_listings from authenticated;
create policy saved_listings_select_owner on public.saved_listings for select to authenticated
  using (user_id = (select auth.uid()));
create policy saved_listings_insert_owner on public.saved_listings for insert to authenticated
  with check (user_id = (select auth.uid())
              -- Only a listing the caller can see (its own select policies apply here).
              and case listing_kind when 'property' then exists (select 1 from public.properties t where t.id = saved_listings.listing_id)
                   when 'product' then exists (select 1 from public.products t where t.id = saved_listings.listing_id)
                   when 'land' then exists (select 1 from public.lands t where t.id = saved_listings.listing_id)
                   when 'service' then exists (select 1 from public.service_providers t where t.id = saved_listings.listing_id)
                   else false end);
create policy saved_listings_delete_owner on public.saved_listings for delete to authenticated
  using (user_id = (select auth.uid()));

-- ---------------------------------------------------------------------------
-- Reports to the admins (a conversation or a listing).
create table public.reports (
  id bigint generated always as identity primary key,
  reporter_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  target_kind text not null constraint reports_target_kind_check check (target_kind in ('conversation', 'property', 'product', 'land', 'service')),
  target_id uuid not null,
  reason text not null constraint reports_reason_check check (char_length(btrim(reason)) between 3 and 1000),
  status text not null default 'open' constraint reports_status_check check (status in ('open', 'resolved', 'dismissed')),
  admin_notes text,
  resolved_by uuid references auth.users (id) on delete set null,
  resolved_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index reports_one_open_per_target on public.reports (reporter_id, target_kind, target_id) where status = 'open';
create index reports_open_created_idx on public.reports (created_at) where status = 'open';
comment on table public.reports is 'A user''s report of a conversation or listing to the admins (one open report per reporter and target); admins resolve or dismiss it.';
alter table public.reports enable row level security;
revoke all on public.reports from anon;
revoke insert, update, delete, truncate, references, trigger on public.reports from authenticated;
grant insert (reporter_id, target_kind, target_id, reason) on public.reports to authenticated;
grant update (status, admin_notes, resolved_by, resolved_at) on public.reports to authenticated;
grant delete on public.reports to authenticated;
create policy reports_select_owner on public.reports for select to authenticated
  using (reporter_id = (select auth.uid()));
create policy reports_select_admin on public.reports for select to authenticated
  using ((select public.is_admin()));
create policy reports_insert_owner on public.reports for insert to authenticated
  with check (reporter_id = (select auth.uid())
              and case target_kind when 'conversation' then exists (select 1 from public.conversations c where c.id = reports.target_id)
                   when 'property' then exists (select 1 from public.properties t where t.id = reports.target_id)
                   when 'product' then exists (select 1 from public.products t where t.id = reports.target_id)
                   when 'land' then exists (select 1 from public.lands t where t.id = reports.target_id)
                   when 'service' then exists (select 1 from public.service_providers t where t.id = reports.target_id)
                   else false end);
create policy reports_update_admin on public.reports for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy reports_delete_admin on public.reports for delete to authenticated
  using ((select public.is_admin()));

-- ---------------------------------------------------------------------------
-- The public contact form (/contact, /about): visitors may write, only
-- admins read. A trigger limits how often one address or one client sends.
create table public.contact_messages (
  id bigint generated always as identity primary key,
  user_id uuid default auth.uid() references auth.users (id) on delete set null,
  name text not null constraint contact_messages_name_check check (char_length(btrim(name)) between 2 and 120),
  email text not null constraint contact_messages_email_check
    check (char_length(email) <= 254 and email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  message text not null constraint contact_messages_message_check check (char_length(btrim(message)) between 10 and 5000),
  client_ip text,
  status text not null default 'new' constraint contact_messages_status_check check (status in ('new', 'handled')),
  created_at timestamptz not null default now()
);
create index contact_messages_email_created_idx on public.contact_messages (lower(email), created_at);
create index contact_messages_ip_created_idx on public.contact_messages (client_ip, created_at);
create index contact_messages_new_idx on public.contact_messages (created_at) where status = 'new';
comment on table public.contact_messages is 'Messages sent through the site''s contact form; anyone may send (rate limited per address and per client), admins read and mark them handled.';
alter table public.contact_messages enable row level security;
revoke all on public.contact_messages from anon, authenticated;
grant insert (name, email, message) on public.contact_messages to anon, authenticated;
grant select, delete on public.contact_messages to authenticated;
grant update (status) on public.contact_messages to authenticated;
create policy contact_messages_insert_public on public.contact_messages for insert to anon, authenticated
  with check (true);
create policy contact_messages_select_admin on public.contact_messages for select to authenticated
  using ((select public.is_admin()));
create policy contact_messages_update_admin on public.contact_messages for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy contact_messages_delete_admin on public.contact_messages for delete to authenticated
  using ((select public.is_admin()));

create function app_private.contact_messages_throttle() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_headers jsonb := nullif(current_setting('request.headers', true), '')::jsonb;
begin
  -- The first X-Forwarded-For hop is the client the gateway saw.
  new.client_ip := nullif(btrim(split_part(coalesce(v_headers ->> 'x-forwarded-for', v_headers ->> 'x-real-ip', ''), ',', 1)), '');
  new.email := lower(btrim(new.email));
  new.name := btrim(new.name);
  if (select count(*) from public.contact_messages c
       where lower(c.email) = new.email and c.created_at > now() - interval '1 hour') >= 3
     or (new.client_ip is not null
         and (select count(*) from public.contact_messages c
               where c.client_ip = new.client_ip and c.created_at > now() - interval '10 minutes') >= 5) then
    raise exception 'Too many messages' using errcode = 'P0001',
      hint = 'Please wait a while before sending another message.';
  end if;
  return new;
end
$$;
comment on function app_private.contact_messages_throttle() is 'Trigger: records the client address and refuses more than 3 messages per e-mail address an hour or 5 per client in 10 minutes.';
revoke execute on function app_private.contact_messages_throttle() from public;
create trigger contact_messages_throttle before insert on public.contact_messages
  for each row execute function app_private.contact_messages_throttle();

-- ---------------------------------------------------------------------------
-- Triggers on the listing tables.
create trigger properties_notify_moderated after update of payment_status on public.properties
  for each row execute function app_private.notify_listing_moderated('property', 'user_id');
create trigger products_notify_moderated after update of payment_status on public.products
  for each row execute function app_private.notify_listing_moderated('product', 'user_id');
create trigger lands_notify_moderated after update of payment_status on public.lands
  for each row execute function app_private.notify_listing_moderated('land', 'userid');
create trigger service_providers_notify_moderated after update of payment_status on public.service_providers
  for each row execute function app_private.notify_listing_moderated('service', 'userid');
create trigger properties_forget_saved after delete on public.properties
  for each row execute function app_private.forget_deleted_listing('property');
create trigger products_forget_saved after delete on public.products
  for each row execute function app_private.forget_deleted_listing('product');
create trigger lands_forget_saved after delete on public.lands
  for each row execute function app_private.forget_deleted_listing('land');
create trigger service_providers_forget_saved after delete on public.service_providers
  for each row execute function app_private.forget_deleted_listing('service');

-- ---------------------------------------------------------------------------
-- Realtime: the inbox moves live; RLS decides who hears what, on the whole
-- old row for deletes.
alter table public.conversations replica identity full;
alter table public.messages replica identity full;
alter table public.notifications replica identity full;
alter publication supabase_realtime add table public.conversations, public.messages, public.notifications;

-- Suspended users write nothing here either.
select app_private.attach_suspension_guards();
