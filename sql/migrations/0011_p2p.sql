-- Peer-to-peer exchange of nestcoins, crystals and keys for KES
-- (marketplace-spec §2 /p2p, §3 p2p_offers, §5 offer and trade-dialog rules,
-- §7 calls, §9 limits): offers, trades with escrow on the ledger, the trade
-- lifecycle with its transitions log, and per-trade messages.
--
-- Trade lifecycle (status):
--   escrow_locked -> paid        buyer marks paid with a payment reference
--   paid          -> completed   seller releases: escrow -> buyer
--   escrow_locked -> cancelled   buyer cancels: escrow -> seller
--   escrow_locked -> expired     payment window lapsed (sweep): escrow -> seller
--   paid          -> disputed    either party
--   disputed      -> resolved    an admin, to the buyer or to the seller
-- The seller never cancels once the coins are in escrow. Every change of
-- status is logged in p2p_trade_events by trigger.
--
-- Who sells: on a 'sell' offer the owner sells and the taker (the caller of
-- lock_currency_in_escrow, its p_buyer_id) buys; on a 'buy' offer the owner
-- buys and the taker sells, so the taker's coins go to escrow.
--
-- Lock order, to keep concurrent calls deadlock-free: offer, then trade,
-- then wallets (in id order, inside post_transfer).

create table public.p2p_offers (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid(),
  action text not null constraint p2p_offers_action_check check (action in ('buy', 'sell')),
  currency text not null constraint p2p_offers_currency_check check (currency in ('nestcoins', 'crystals', 'keys')),
  amount bigint not null constraint p2p_offers_amount_check check (amount between 10 and 10000),
  rate_per_unit numeric(12, 2) not null constraint p2p_offers_rate_per_unit_check check (rate_per_unit >= 0.01),
  min_limit bigint not null constraint p2p_offers_min_limit_check check (min_limit >= 1),
  max_limit bigint not null constraint p2p_offers_max_limit_check check (max_limit >= 1),
  payment_methods text[] not null default '{}'
    constraint p2p_offers_payment_methods_check check (
      cardinality(payment_methods) >= 1
      and payment_methods <@ array['M-Pesa', 'Bank Transfer', 'Airtel Money', 'T-Kash', 'PayPal', 'Skrill']::text[]),
  auto_cancel_duration text not null default '1 day'
    constraint p2p_offers_auto_cancel_duration_check check (
      auto_cancel_duration in ('1 hour', '6 hours', '12 hours', '1 day', '3 days', '7 days')),
  expires_at timestamptz not null,
  status text not null default 'active'
    constraint p2p_offers_status_check check (status in ('active', 'filled', 'cancelled', 'expired')),
  filled_amount bigint not null default 0,
  remaining_amount bigint generated always as (amount - filled_amount) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- The only foreign key from p2p_offers to profiles: the app embeds
  -- profiles(full_name) through it (to-one).
  constraint p2p_offers_user_id_fkey foreign key (user_id) references public.profiles (id) on delete cascade,
  constraint p2p_offers_limits_order check (min_limit <= max_limit),
  constraint p2p_offers_filled_amount_check check (filled_amount between 0 and amount)
);
create index p2p_offers_active_created_idx on public.p2p_offers (created_at desc) where status = 'active';
create index p2p_offers_active_user_idx on public.p2p_offers (user_id) where status = 'active';
create index p2p_offers_user_created_idx on public.p2p_offers (user_id, created_at desc);
create index p2p_offers_active_expires_idx on public.p2p_offers (expires_at) where status = 'active';
comment on table public.p2p_offers is 'P2P offers to buy or sell nestcoins, crystals or keys for KES (spec §3, §5, §9). amount 10-10,000 whole units, rate_per_unit >= 0.01 KES, limits >= 1 and min <= max (per trade, in units), one or more payment methods, expires_at = created_at + auto_cancel_duration.';
comment on column public.p2p_offers.user_id is 'Owner; references profiles(id) (p2p_offers_user_id_fkey) so the app can embed profiles(full_name).';
comment on column public.p2p_offers.auto_cancel_duration is 'One of 1 hour, 6 hours, 12 hours, 1 day (the app''s ''24 hours'' is stored as 1 day), 3 days, 7 days.';
comment on column public.p2p_offers.expires_at is 'Computed by the server from created_at and auto_cancel_duration (a client-sent value is ignored).';
comment on column public.p2p_offers.status is 'active, filled (no amount left), cancelled, expired (expire_p2p_offers).';
comment on column public.p2p_offers.filled_amount is 'Units held by open or completed trades; returned when a trade is cancelled, expires or is resolved to the seller.';

create trigger p2p_offers_set_updated_at before update on public.p2p_offers
  for each row execute function app_private.set_updated_at();

-- Spec §5 offer rules with the app's own messages (P0001 -> HTTP 400 with
-- the message). The check constraints above are the backstop.
create function app_private.p2p_offers_validate() returns trigger
  language plpgsql
  set search_path = ''
as $$
declare
  v_methods constant text[] := array['M-Pesa', 'Bank Transfer', 'Airtel Money', 'T-Kash', 'PayPal', 'Skrill'];
  v_bad text;
begin
  if new.action is null or new.action not in ('buy', 'sell') then
    raise exception 'Action must be buy or sell' using errcode = 'P0001';
  end if;
  if new.currency is null or new.currency not in ('nestcoins', 'crystals', 'keys') then
    raise exception 'Currency must be nestcoins, crystals or keys' using errcode = 'P0001';
  end if;
  if new.amount is null or new.amount < 10 then
    raise exception 'Minimum amount is 10' using errcode = 'P0001';
  end if;
  if new.amount > 10000 then
    raise exception 'Maximum amount is 10,000' using errcode = 'P0001';
  end if;
  if new.rate_per_unit is null or new.rate_per_unit < 0.01 then
    raise exception 'Rate must be greater than 0' using errcode = 'P0001';
  end if;
  if new.min_limit is null or new.min_limit < 1 then
    raise exception 'Minimum limit must be at least 1' using errcode = 'P0001';
  end if;
  if new.max_limit is null or new.max_limit < 1 then
    raise exception 'Maximum limit must be at least 1' using errcode = 'P0001';
  end if;
  if new.payment_methods is null or cardinality(new.payment_methods) = 0 then
    raise exception 'Select at least one payment method' using errcode = 'P0001';
  end if;
  select m into v_bad from unnest(new.payment_methods) m where m is null or m <> all (v_methods) limit 1;
  if found then
    raise exception 'Unknown payment method: %', coalesce(v_bad, 'null') using errcode = 'P0001',
      hint = 'Choose from M-Pesa, Bank Transfer, Airtel Money, T-Kash, PayPal, Skrill.';
  end if;
  if new.auto_cancel_duration = '24 hours' then
    new.auto_cancel_duration := '1 day';
  end if;
  if new.auto_cancel_duration is null
     or new.auto_cancel_duration not in ('1 hour', '6 hours', '12 hours', '1 day', '3 days', '7 days') then
    raise exception 'Auto-cancel duration must be 1 hour, 6 hours, 12 hours, 24 hours, 3 days or 7 days' using errcode = 'P0001';
  end if;
  if new.min_limit > new.max_limit then
    raise exception 'Minimum limit cannot be greater than maximum limit' using errcode = 'P0001';
  end if;
  if tg_op = 'INSERT' then
    new.created_at := coalesce(new.created_at, now());
  end if;
  if tg_op = 'INSERT' or new.auto_cancel_duration is distinct from old.auto_cancel_duration then
    new.expires_at := new.created_at + new.auto_cancel_duration::interval;
  end if;
  return new;
end
$$;
comment on function app_private.p2p_offers_validate() is 'Trigger: spec §5 offer validation with the app''s messages (''Minimum amount is 10'', ''Maximum amount is 10,000'', ''Rate must be greater than 0'', ''Select at least one payment method'', ''Minimum limit cannot be greater than maximum limit'', ...); computes expires_at.';
create trigger p2p_offers_validate before insert or update on public.p2p_offers
  for each row execute function app_private.p2p_offers_validate();

alter table public.p2p_offers enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.p2p_offers from anon;
revoke insert, update, truncate, references, trigger on public.p2p_offers from authenticated;
grant insert (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit, payment_methods,
              auto_cancel_duration, expires_at) on public.p2p_offers to authenticated;
grant update (rate_per_unit, min_limit, max_limit, payment_methods) on public.p2p_offers to authenticated;

-- P2P needs sign-in (spec §2), so anon sees no offers.
create policy p2p_offers_select_active on public.p2p_offers for select to authenticated
  using (status = 'active');
create policy p2p_offers_select_owner on public.p2p_offers for select to authenticated
  using (user_id = (select auth.uid()));
create policy p2p_offers_select_admin on public.p2p_offers for select to authenticated
  using ((select public.is_admin()));
create policy p2p_offers_insert_owner on public.p2p_offers for insert to authenticated
  with check (user_id = (select auth.uid()));
create policy p2p_offers_update_owner on public.p2p_offers for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy p2p_offers_delete_owner on public.p2p_offers for delete to authenticated
  using (user_id = (select auth.uid()));
create policy p2p_offers_delete_admin on public.p2p_offers for delete to authenticated
  using ((select public.is_admin()));

-- ---------------------------------------------------------------------------
create table public.p2p_trades (
  id uuid primary key default gen_random_uuid(),
  offer_id uuid references public.p2p_offers (id) on delete set null,
  offer_action text not null constraint p2p_trades_offer_action_check check (offer_action in ('buy', 'sell')),
  taker_id uuid not null references auth.users (id),
  seller_id uuid not null references auth.users (id),
  buyer_id uuid not null references auth.users (id),
  currency text not null constraint p2p_trades_currency_check check (currency in ('nestcoins', 'crystals', 'keys')),
  amount bigint not null constraint p2p_trades_amount_check check (amount > 0),
  rate_per_unit numeric(12, 2) not null,
  total_kes numeric(14, 2) not null,
  status text not null default 'escrow_locked'
    constraint p2p_trades_status_check check (status in ('escrow_locked', 'paid', 'completed', 'cancelled', 'expired', 'disputed', 'resolved')),
  payment_deadline timestamptz not null,
  payment_reference text,
  dispute_reason text,
  disputed_by uuid references auth.users (id),
  resolution text constraint p2p_trades_resolution_check check (resolution in ('buyer', 'seller')),
  resolution_notes text,
  resolved_by uuid references auth.users (id),
  client_key text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  paid_at timestamptz,
  closed_at timestamptz,
  constraint p2p_trades_distinct_parties check (buyer_id <> seller_id),
  constraint p2p_trades_taker_is_party check (taker_id in (buyer_id, seller_id)),
  constraint p2p_trades_resolved_has_resolution check ((status = 'resolved') = (resolution is not null)),
  constraint p2p_trades_paid_has_reference check (status in ('escrow_locked', 'cancelled', 'expired') or payment_reference is not null)
);
create unique index p2p_trades_taker_client_key on public.p2p_trades (taker_id, client_key) where client_key is not null;
create index p2p_trades_buyer_idx on public.p2p_trades (buyer_id, created_at desc);
create index p2p_trades_seller_idx on public.p2p_trades (seller_id, created_at desc);
create index p2p_trades_taker_idx on public.p2p_trades (taker_id);
create index p2p_trades_offer_idx on public.p2p_trades (offer_id);
create index p2p_trades_due_idx on public.p2p_trades (payment_deadline) where status = 'escrow_locked';
create index p2p_trades_disputed_by_idx on public.p2p_trades (disputed_by);
create index p2p_trades_resolved_by_idx on public.p2p_trades (resolved_by);
comment on table public.p2p_trades is 'P2P trades: amount of currency moved from the seller into escrow at creation (lock_currency_in_escrow) and settled to the buyer (completed, resolved to buyer) or back to the seller (cancelled, expired, resolved to seller). Terms are copied from the offer. Changed only by the trade functions.';
comment on column public.p2p_trades.payment_deadline is 'The buyer must mark the trade paid before this (30 minutes after the lock); expire_overdue_trades refunds the seller afterwards.';
comment on column public.p2p_trades.client_key is 'The caller''s idempotency key of the lock request: repeating it returns the same trade.';

alter table public.wallet_transfers
  add constraint wallet_transfers_trade_id_fkey foreign key (trade_id) references public.p2p_trades (id);

create trigger p2p_trades_set_updated_at before update on public.p2p_trades
  for each row execute function app_private.set_updated_at();

create table public.p2p_trade_events (
  id bigint generated always as identity primary key,
  trade_id uuid not null references public.p2p_trades (id) on delete cascade,
  from_status text,
  to_status text not null,
  actor_id uuid,
  actor_role text,
  created_at timestamptz not null default now()
);
create index p2p_trade_events_trade_idx on public.p2p_trade_events (trade_id, id);
comment on table public.p2p_trade_events is 'Transitions log of P2P trades: one row per status change (from NULL at creation), with the acting user and JWT role; written by trigger.';

create function app_private.p2p_trades_transition() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if tg_op = 'UPDATE' and new.status is distinct from old.status then
    if (old.status, new.status) not in (('escrow_locked', 'paid'), ('escrow_locked', 'cancelled'), ('escrow_locked', 'expired'),
                                         ('paid', 'completed'), ('paid', 'disputed'), ('disputed', 'resolved')) then
      raise exception 'Invalid trade transition from % to %', old.status, new.status using errcode = 'P0001';
    end if;
  end if;
  return new;
end
$$;
comment on function app_private.p2p_trades_transition() is 'Trigger: refuses any status change outside the trade lifecycle.';
create trigger p2p_trades_transition before update of status on public.p2p_trades
  for each row execute function app_private.p2p_trades_transition();

create function app_private.p2p_trades_log() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    insert into public.p2p_trade_events (trade_id, from_status, to_status, actor_id, actor_role)
    values (new.id, case when tg_op = 'UPDATE' then old.status end, new.status, auth.uid(), coalesce(auth.role(), 'system'));
  end if;
  return null;
end
$$;
comment on function app_private.p2p_trades_log() is 'Trigger: logs every trade creation and status change into p2p_trade_events.';
create trigger p2p_trades_log after insert or update of status on public.p2p_trades
  for each row execute function app_private.p2p_trades_log();

create table public.p2p_trade_messages (
  id uuid primary key default gen_random_uuid(),
  trade_id uuid not null references public.p2p_trades (id) on delete cascade,
  sender_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  body text not null constraint p2p_trade_messages_body_check check (char_length(btrim(body)) between 1 and 2000),
  created_at timestamptz not null default now()
);
create index p2p_trade_messages_trade_idx on public.p2p_trade_messages (trade_id, created_at);
create index p2p_trade_messages_sender_idx on public.p2p_trade_messages (sender_id);
comment on table public.p2p_trade_messages is 'Chat of a P2P trade: readable and writable by its two parties (and admins, e.g. in a dispute); never edited.';

-- Trades and their log change only through the functions below.
alter table public.p2p_trades enable row level security;
alter table public.p2p_trade_events enable row level security;
alter table public.p2p_trade_messages enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.p2p_trades from anon, authenticated, service_role;
revoke insert, update, delete, truncate, references, trigger on public.p2p_trade_events from anon, authenticated, service_role;
revoke insert, update, delete, truncate, references, trigger on public.p2p_trade_messages from anon;
revoke insert, update, delete, truncate, references, trigger on public.p2p_trade_messages from authenticated;
grant insert (trade_id, sender_id, body) on public.p2p_trade_messages to authenticated;

create policy p2p_trades_select_party on public.p2p_trades for select to authenticated
  using ((select auth.uid()) in (buyer_id, seller_id));
create policy p2p_trades_select_admin on public.p2p_trades for select to authenticated
  using ((select public.is_admin()));
create policy p2p_trade_events_select_party on public.p2p_trade_events for select to authenticated
  using (exists (select 1 from public.p2p_trades t where t.id = p2p_trade_events.trade_id
                   and (select auth.uid()) in (t.buyer_id, t.seller_id)));
create policy p2p_trade_events_select_admin on public.p2p_trade_events for select to authenticated
  using ((select public.is_admin()));
create policy p2p_trade_messages_select_party on public.p2p_trade_messages for select to authenticated
  using (exists (select 1 from public.p2p_trades t where t.id = p2p_trade_messages.trade_id
                   and (select auth.uid()) in (t.buyer_id, t.seller_id)));
create policy p2p_trade_messages_select_admin on public.p2p_trade_messages for select to authenticated
  using ((select public.is_admin()));
create policy p2p_trade_messages_insert_party on public.p2p_trade_messages for insert to authenticated
  with check (sender_id = (select auth.uid())
              and exists (select 1 from public.p2p_trades t where t.id = p2p_trade_messages.trade_id
                            and (select auth.uid()) in (t.buyer_id, t.seller_id)));
create policy p2p_trade_messages_insert_admin on public.p2p_trade_messages for insert to authenticated
  with check (sender_id = (select auth.uid()) and (select public.is_admin()));

-- Counterparties' names: the offers page embeds profiles(full_name) of
-- every active offer's owner, and a trade shows the other party.
create policy profiles_select_trader on public.profiles for select to authenticated
  using (exists (select 1 from public.p2p_offers o where o.user_id = profiles.id and o.status = 'active')
         or exists (select 1 from public.p2p_trades t
                     where (t.buyer_id = (select auth.uid()) and t.seller_id = profiles.id)
                        or (t.seller_id = (select auth.uid()) and t.buyer_id = profiles.id)));

-- ---------------------------------------------------------------------------
-- Trade functions.
create function app_private.trade_payment_window() returns interval
  language sql immutable
  set search_path = ''
as $$ select interval '30 minutes' $$;
comment on function app_private.trade_payment_window() is 'How long the buyer has to pay after the lock: 30 minutes.';

create function public.lock_currency_in_escrow(p_offer_id uuid, p_buyer_id uuid, p_amount numeric,
                                               p_idempotency_key text default null)
  returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_taker uuid := app_private.require_user(p_buyer_id);
  v_key text := nullif(btrim(p_idempotency_key), '');
  v_offer public.p2p_offers;
  v_trade public.p2p_trades;
  v_amount bigint;
  v_seller uuid;
  v_buyer uuid;
begin
  if p_amount is null or p_amount <= 0 or p_amount <> trunc(p_amount) then
    raise exception 'Amount must be a whole number greater than 0' using errcode = 'P0001';
  end if;
  select * into v_offer from public.p2p_offers o where o.id = p_offer_id for update;
  if not found then
    raise exception 'Offer not found' using errcode = 'P0001';
  end if;
  -- A repeated request (same key, same caller) returns the trade it created.
  if v_key is not null then
    select * into v_trade from public.p2p_trades t where t.taker_id = v_taker and t.client_key = v_key;
    if found then
      return v_trade;
    end if;
  end if;
  if v_offer.user_id = v_taker then
    raise exception 'You cannot trade on your own offer' using errcode = 'P0001';
  end if;
  if v_offer.status <> 'active' or v_offer.expires_at <= now() then
    raise exception 'This offer is no longer available' using errcode = 'P0001';
  end if;
  if p_amount < v_offer.min_limit or p_amount > v_offer.max_limit then
    raise exception 'Amount must be between % and %', v_offer.min_limit, v_offer.max_limit using errcode = 'P0001';
  end if;
  v_amount := p_amount::bigint;
  if v_amount > v_offer.remaining_amount then
    raise exception 'Only % % left on this offer', v_offer.remaining_amount, v_offer.currency using errcode = 'P0001';
  end if;
  if v_offer.action = 'sell' then
    v_seller := v_offer.user_id; v_buyer := v_taker;
  else
    v_seller := v_taker; v_buyer := v_offer.user_id;
  end if;
  insert into public.p2p_trades (offer_id, offer_action, taker_id, seller_id, buyer_id, currency, amount, rate_per_unit,
                                 total_kes, payment_deadline, client_key)
  values (v_offer.id, v_offer.action, v_taker, v_seller, v_buyer, v_offer.currency, v_amount, v_offer.rate_per_unit,
          round(v_amount * v_offer.rate_per_unit, 2), now() + app_private.trade_payment_window(), v_key)
  returning * into v_trade;
  perform app_private.post_transfer(
    app_private.user_wallet(v_seller, v_offer.currency), app_private.system_wallet('escrow', v_offer.currency),
    v_amount, 'escrow_lock', 'trade:' || v_trade.id::text || ':lock', v_trade.id, 'trade:' || v_trade.id::text, null,
    case when v_offer.action = 'sell' then format('The seller does not have enough %s for this trade', v_offer.currency)
         else format('Insufficient %s balance', v_offer.currency) end);
  update public.p2p_offers o
     set filled_amount = o.filled_amount + v_amount,
         status = case when o.filled_amount + v_amount = o.amount then 'filled' else o.status end
   where o.id = v_offer.id;
  return v_trade;
end
$$;
comment on function public.lock_currency_in_escrow(uuid, uuid, numeric, text) is 'Starts a trade on an offer: checks the caller (= p_buyer_id, the taker), not their own offer, offer active, amount within min_limit..max_limit (''Amount must be between MIN and MAX'') and the remaining amount, then moves the seller''s coins to escrow and creates the trade atomically. A repeated p_idempotency_key returns the same trade.';
revoke execute on function public.lock_currency_in_escrow(uuid, uuid, numeric, text) from public, anon;
grant execute on function public.lock_currency_in_escrow(uuid, uuid, numeric, text) to authenticated, service_role;

-- Locks a trade (after its offer, see the lock order) for a transition.
create function app_private.lock_trade(p_trade_id uuid) returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_offer_id uuid;
  v_trade public.p2p_trades;
begin
  select t.offer_id into v_offer_id from public.p2p_trades t where t.id = p_trade_id;
  if not found then
    raise exception 'Trade not found' using errcode = 'P0001';
  end if;
  if v_offer_id is not null then
    perform 1 from public.p2p_offers o where o.id = v_offer_id for update;
  end if;
  select * into v_trade from public.p2p_trades t where t.id = p_trade_id for update;
  return v_trade;
end
$$;
comment on function app_private.lock_trade(uuid) is 'Locks a trade for a transition, its offer first (lock order offer -> trade -> wallets); raises ''Trade not found''.';

-- Moves a trade's escrow to the buyer ('buyer') or back to the seller
-- ('seller'); a refund returns the amount to the offer.
create function app_private.settle_trade(p_trade public.p2p_trades, p_to text) returns void
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  perform app_private.post_transfer(
    app_private.system_wallet('escrow', p_trade.currency),
    app_private.user_wallet(case when p_to = 'buyer' then p_trade.buyer_id else p_trade.seller_id end, p_trade.currency),
    p_trade.amount,
    case when p_to = 'buyer' then 'escrow_release' else 'escrow_refund' end,
    'trade:' || p_trade.id::text || ':settle', p_trade.id, 'trade:' || p_trade.id::text);
  if p_to = 'seller' and p_trade.offer_id is not null then
    update public.p2p_offers o
       set filled_amount = o.filled_amount - p_trade.amount,
           status = case when o.status = 'filled' then case when o.expires_at > now() then 'active' else 'expired' end
                         else o.status end
     where o.id = p_trade.offer_id;
  end if;
end
$$;
comment on function app_private.settle_trade(public.p2p_trades, text) is 'Posts a trade''s escrow to the buyer (escrow_release) or back to the seller (escrow_refund, also returning the amount to its offer).';

create function app_private.require_trade_party(p_trade public.p2p_trades) returns uuid
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
begin
  if v_uid not in (p_trade.buyer_id, p_trade.seller_id) then
    raise exception 'You are not a party to this trade' using errcode = '42501';
  end if;
  return v_uid;
end
$$;
comment on function app_private.require_trade_party(public.p2p_trades) is 'The caller, who must be the trade''s buyer or seller (42501 otherwise).';

create function public.mark_trade_paid(p_trade_id uuid, p_payment_reference text) returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_trade public.p2p_trades := app_private.lock_trade(p_trade_id);
  v_uid uuid := app_private.require_trade_party(v_trade);
begin
  if v_uid <> v_trade.buyer_id then
    raise exception 'Only the buyer can mark this trade as paid' using errcode = '42501';
  end if;
  if v_trade.status <> 'escrow_locked' then
    raise exception 'Only a trade awaiting payment can be marked as paid (this trade is %)', v_trade.status using errcode = 'P0001';
  end if;
  if v_trade.payment_deadline <= now() then
    raise exception 'The payment window for this trade has expired' using errcode = 'P0001';
  end if;
  if nullif(btrim(p_payment_reference), '') is null then
    raise exception 'Payment reference is required' using errcode = 'P0001',
      hint = 'Enter the M-Pesa (or bank) transaction code.';
  end if;
  update public.p2p_trades t
     set status = 'paid', payment_reference = btrim(p_payment_reference), paid_at = now()
   where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.mark_trade_paid(uuid, text) is 'Buyer: escrow_locked -> paid, with the KES payment reference, before the payment deadline.';
revoke execute on function public.mark_trade_paid(uuid, text) from public, anon;
grant execute on function public.mark_trade_paid(uuid, text) to authenticated, service_role;

create function public.release_trade(p_trade_id uuid) returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_trade public.p2p_trades := app_private.lock_trade(p_trade_id);
  v_uid uuid := app_private.require_trade_party(v_trade);
begin
  if v_uid <> v_trade.seller_id then
    raise exception 'Only the seller can release this trade' using errcode = '42501';
  end if;
  if v_trade.status <> 'paid' then
    raise exception 'Only a paid trade can be released (this trade is %)', v_trade.status using errcode = 'P0001';
  end if;
  perform app_private.settle_trade(v_trade, 'buyer');
  update public.p2p_trades t set status = 'completed', closed_at = now() where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.release_trade(uuid) is 'Seller: paid -> completed; the escrowed coins go to the buyer.';
revoke execute on function public.release_trade(uuid) from public, anon;
grant execute on function public.release_trade(uuid) to authenticated, service_role;

create function public.cancel_trade(p_trade_id uuid) returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_trade public.p2p_trades := app_private.lock_trade(p_trade_id);
  v_uid uuid := app_private.require_trade_party(v_trade);
begin
  if v_uid = v_trade.seller_id then
    raise exception 'The seller cannot cancel a trade once the coins are in escrow' using errcode = '42501',
      hint = 'Wait for the buyer to pay or for the payment window to lapse; open a dispute after payment.';
  end if;
  if v_trade.status <> 'escrow_locked' then
    raise exception 'Only a trade awaiting payment can be cancelled (this trade is %)', v_trade.status using errcode = 'P0001';
  end if;
  perform app_private.settle_trade(v_trade, 'seller');
  update public.p2p_trades t set status = 'cancelled', closed_at = now() where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.cancel_trade(uuid) is 'Buyer: escrow_locked -> cancelled; the coins go back to the seller and the amount back to the offer. The seller can never cancel.';
revoke execute on function public.cancel_trade(uuid) from public, anon;
grant execute on function public.cancel_trade(uuid) to authenticated, service_role;

create function public.dispute_trade(p_trade_id uuid, p_reason text default null) returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_trade public.p2p_trades := app_private.lock_trade(p_trade_id);
  v_uid uuid := app_private.require_trade_party(v_trade);
begin
  if v_trade.status <> 'paid' then
    raise exception 'Only a paid trade can be disputed (this trade is %)', v_trade.status using errcode = 'P0001';
  end if;
  update public.p2p_trades t
     set status = 'disputed', dispute_reason = nullif(btrim(p_reason), ''), disputed_by = v_uid
   where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.dispute_trade(uuid, text) is 'Buyer or seller: paid -> disputed, with an optional reason; an admin resolves it.';
revoke execute on function public.dispute_trade(uuid, text) from public, anon;
grant execute on function public.dispute_trade(uuid, text) to authenticated, service_role;

create function public.resolve_trade_dispute(p_trade_id uuid, p_resolution text, p_notes text default null)
  returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_trade public.p2p_trades;
begin
  if p_resolution is null or p_resolution not in ('buyer', 'seller') then
    raise exception 'Resolution must be buyer or seller' using errcode = 'P0001';
  end if;
  v_trade := app_private.lock_trade(p_trade_id);
  if v_trade.status <> 'disputed' then
    raise exception 'Only a disputed trade can be resolved (this trade is %)', v_trade.status using errcode = 'P0001';
  end if;
  perform app_private.settle_trade(v_trade, p_resolution);
  update public.p2p_trades t
     set status = 'resolved', resolution = p_resolution, resolution_notes = nullif(btrim(p_notes), ''),
         resolved_by = v_admin, closed_at = now()
   where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.resolve_trade_dispute(uuid, text, text) is 'Admin: disputed -> resolved, sending the escrow to the buyer or back to the seller (p_resolution ''buyer''|''seller'').';
revoke execute on function public.resolve_trade_dispute(uuid, text, text) from public, anon;
grant execute on function public.resolve_trade_dispute(uuid, text, text) to authenticated, service_role;

create function public.expire_overdue_trades(p_now timestamptz default now()) returns integer
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_trade public.p2p_trades;
  v_n integer := 0;
begin
  -- Offers first, in id order, then the trades (see the lock order).
  perform 1 from public.p2p_offers o
   where o.id in (select t.offer_id from public.p2p_trades t where t.status = 'escrow_locked' and t.payment_deadline <= p_now)
   order by o.id for update;
  for v_trade in
    select * from public.p2p_trades t
     where t.status = 'escrow_locked' and t.payment_deadline <= p_now
     order by t.id for update
  loop
    perform app_private.settle_trade(v_trade, 'seller');
    update public.p2p_trades t set status = 'expired', closed_at = p_now where t.id = v_trade.id;
    v_n := v_n + 1;
  end loop;
  return v_n;
end
$$;
comment on function public.expire_overdue_trades(timestamptz) is 'Sweep: trades still awaiting payment at p_now (default now()) past their payment_deadline expire and the seller gets the coins back; returns how many. Admins and service_role only.';
revoke execute on function public.expire_overdue_trades(timestamptz) from public, anon;
grant execute on function public.expire_overdue_trades(timestamptz) to authenticated, service_role;

create function public.expire_p2p_offers(p_now timestamptz default now()) returns integer
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_n integer;
begin
  update public.p2p_offers o set status = 'expired' where o.status = 'active' and o.expires_at <= p_now;
  get diagnostics v_n = row_count;
  return v_n;
end
$$;
comment on function public.expire_p2p_offers(timestamptz) is 'Sweep: active offers whose expires_at is at or before p_now become expired (open trades carry on); returns how many. Admins and service_role only.';
revoke execute on function public.expire_p2p_offers(timestamptz) from public, anon;
grant execute on function public.expire_p2p_offers(timestamptz) to authenticated, service_role;
