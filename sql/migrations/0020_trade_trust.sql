-- Money and trust (issue 12).
--
--   * A trade locks at the price its taker saw: lock_currency_in_escrow takes
--     p_expected_rate and refuses any difference, and an offer with open
--     trades cannot change its price.
--   * A paid trade the seller never releases is disputed automatically after
--     the release window, and flagged for the admin queue.
--   * Suspension bites at once: the user's active offers are paused, their
--     open trades flagged for an admin, and every write their existing access
--     token attempts is refused by the database itself (a statement trigger
--     on every table the API may write), not only by the functions.

-- ---------------------------------------------------------------------------
-- Offers: 'paused' while the owner is suspended (not on the board, no trades).
alter table public.p2p_offers drop constraint p2p_offers_status_check;
alter table public.p2p_offers add constraint p2p_offers_status_check
  check (status in ('active', 'paused', 'filled', 'cancelled', 'expired'));
comment on column public.p2p_offers.status is 'active, paused (owner suspended: hidden, no new trades), filled (no amount left), cancelled, expired (expire_p2p_offers).';

-- Trades: the release deadline and the admin's attention.
alter table public.p2p_trades
  add column release_deadline timestamptz,
  add column admin_flag text constraint p2p_trades_admin_flag_check check (admin_flag in ('auto_dispute', 'party_suspended')),
  add column flagged_at timestamptz;
update public.p2p_trades set release_deadline = paid_at + interval '1 hour' where status = 'paid';
create index p2p_trades_release_due_idx on public.p2p_trades (release_deadline) where status = 'paid';
create index p2p_trades_admin_queue_idx on public.p2p_trades (flagged_at desc) where admin_flag is not null or status = 'disputed';
comment on column public.p2p_trades.release_deadline is 'The seller must release (or dispute) before this: one hour after the buyer marked the trade paid. escalate_unreleased_trades disputes the trade afterwards.';
comment on column public.p2p_trades.admin_flag is 'Why the trade needs an admin: auto_dispute (the seller did not release in time) or party_suspended (a party was suspended while it was open). NULL otherwise.';

create function app_private.trade_release_window() returns interval
  language sql immutable
  set search_path = ''
as $$ select interval '1 hour' $$;
comment on function app_private.trade_release_window() is 'How long the seller has to release after the buyer marks a trade paid: 1 hour; then the trade is disputed automatically.';

-- ---------------------------------------------------------------------------
-- Price changes: never under an open trade.
create function app_private.p2p_offers_price_guard() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if exists (select 1 from public.p2p_trades t
              where t.offer_id = new.id and t.status in ('escrow_locked', 'paid', 'disputed')) then
    raise exception 'This offer has open trades; its price cannot change until they close' using errcode = 'P0001',
      hint = 'Cancel the offer and post a new one at the new price.';
  end if;
  return new;
end
$$;
comment on function app_private.p2p_offers_price_guard() is 'Trigger: refuses a change of rate_per_unit while the offer has open trades (escrow_locked, paid, disputed).';
create trigger p2p_offers_price_guard before update of rate_per_unit on public.p2p_offers
  for each row when (old.rate_per_unit is distinct from new.rate_per_unit)
  execute function app_private.p2p_offers_price_guard();

-- ---------------------------------------------------------------------------
-- The lock takes the price the taker saw.
drop function public.lock_currency_in_escrow(uuid, uuid, numeric, text);
create function public.lock_currency_in_escrow(p_offer_id uuid, p_buyer_id uuid, p_amount numeric,
                                               p_expected_rate numeric, p_idempotency_key text default null)
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
  if v_offer.status <> 'active' or v_offer.expires_at <= now()
     or exists (select 1 from auth.users u where u.id = v_offer.user_id and u.banned_until > now()) then
    raise exception 'This offer is no longer available' using errcode = 'P0001';
  end if;
  if p_expected_rate is null then
    raise exception 'The offer''s rate is required' using errcode = 'P0001',
      hint = 'Send the rate per unit shown to the user (p_expected_rate).';
  end if;
  if v_offer.rate_per_unit <> p_expected_rate then
    raise exception 'The price of this offer has changed' using errcode = 'P0001',
      detail = format('You saw %s KES per unit; the offer now asks %s KES per unit.', p_expected_rate, v_offer.rate_per_unit),
      hint = 'Review the new price and try again.';
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
comment on function public.lock_currency_in_escrow(uuid, uuid, numeric, numeric, text) is 'Starts a trade on an offer at the price the taker saw: checks the caller (= p_buyer_id, the taker), not their own offer, offer active and its owner not suspended, p_expected_rate equal to the offer''s rate_per_unit (''The price of this offer has changed'' otherwise), amount within min_limit..max_limit (''Amount must be between MIN and MAX'') and the remaining amount, then moves the seller''s coins to escrow and creates the trade atomically. A repeated p_idempotency_key returns the same trade.';
revoke execute on function public.lock_currency_in_escrow(uuid, uuid, numeric, numeric, text) from public, anon;
grant execute on function public.lock_currency_in_escrow(uuid, uuid, numeric, numeric, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------
-- Paid trades carry their release deadline.
create or replace function public.mark_trade_paid(p_trade_id uuid, p_payment_reference text) returns public.p2p_trades
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
     set status = 'paid', payment_reference = btrim(p_payment_reference), paid_at = now(),
         release_deadline = now() + app_private.trade_release_window()
   where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.mark_trade_paid(uuid, text) is 'Buyer: escrow_locked -> paid, with the KES payment reference, before the payment deadline; the seller then has the release window (1 hour) before the trade is disputed automatically.';

-- The sweep: paid trades past their release deadline go to the admin queue
-- as disputes. The coins stay in escrow until an admin resolves them.
create function public.escalate_unreleased_trades(p_now timestamptz default now()) returns integer
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_trade public.p2p_trades;
  v_n integer := 0;
begin
  perform 1 from public.p2p_offers o
   where o.id in (select t.offer_id from public.p2p_trades t where t.status = 'paid' and t.release_deadline <= p_now)
   order by o.id for update;
  for v_trade in
    select * from public.p2p_trades t
     where t.status = 'paid' and t.release_deadline <= p_now
     order by t.id for update
  loop
    update public.p2p_trades t
       set status = 'disputed',
           dispute_reason = coalesce(t.dispute_reason, 'The seller did not release the coins within the release window'),
           admin_flag = 'auto_dispute', flagged_at = p_now
     where t.id = v_trade.id;
    v_n := v_n + 1;
  end loop;
  return v_n;
end
$$;
comment on function public.escalate_unreleased_trades(timestamptz) is 'Sweep: paid trades whose seller has not released by release_deadline become disputed (admin_flag auto_dispute) for an admin to resolve; returns how many. Admins and service_role only.';
revoke execute on function public.escalate_unreleased_trades(timestamptz) from public, anon;
grant execute on function public.escalate_unreleased_trades(timestamptz) to authenticated, service_role;

-- Paused offers lapse like active ones.
create or replace function public.expire_p2p_offers(p_now timestamptz default now()) returns integer
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_n integer;
begin
  update public.p2p_offers o set status = 'expired' where o.status in ('active', 'paused') and o.expires_at <= p_now;
  get diagnostics v_n = row_count;
  return v_n;
end
$$;
comment on function public.expire_p2p_offers(timestamptz) is 'Sweep: active or paused offers whose expires_at is at or before p_now become expired (open trades carry on); returns how many. Admins and service_role only.';

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
    'listings', public.expire_listings(p_now));
end
$$;
comment on function public.run_expiry_sweeps(timestamptz) is 'Runs every expiry sweep at p_now (overdue trades, unreleased paid trades, lapsed offers, lapsed listings) and returns the counts {trades, disputes, offers, listings}. For a scheduler calling as service_role, or an admin.';

-- ---------------------------------------------------------------------------
-- Suspension.
create or replace function public.suspend_user(p_user_id uuid, p_admin_id uuid, p_suspension_type text, p_reason text default null)
  returns public.user_suspensions
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_until timestamptz;
  v_row public.user_suspensions;
begin
  -- The acting admin is the caller; p_admin_id is only trusted from service_role.
  if v_admin is null then
    v_admin := p_admin_id;
  end if;
  if p_suspension_type is null or btrim(p_suspension_type) = '' then
    raise exception 'Suspension duration is required' using errcode = 'P0001';
  end if;
  v_until := case p_suspension_type
    when '10_days' then now() + interval '10 days'
    when '30_days' then now() + interval '30 days'
    when '60_days' then now() + interval '60 days'
    when 'permanent' then null
    else 'epoch'::timestamptz end;
  if v_until = 'epoch'::timestamptz then
    raise exception 'Suspension type must be one of 10_days, 30_days, 60_days, permanent' using errcode = 'P0001';
  end if;
  if p_user_id is null or not exists (select 1 from auth.users u where u.id = p_user_id) then
    raise exception 'User not found' using errcode = 'P0001';
  end if;
  if p_user_id = v_admin then
    raise exception 'You cannot suspend your own account' using errcode = 'P0001';
  end if;
  if exists (select 1 from public.user_roles r where r.user_id = p_user_id and r.role = 'admin') then
    raise exception 'Administrators cannot be suspended' using errcode = 'P0001';
  end if;
  -- Serialize suspensions of one user so two admins cannot both succeed.
  perform pg_advisory_xact_lock(hashtextextended('kejanest.suspend:' || p_user_id::text, 0));
  if exists (select 1 from public.user_suspensions s
              where s.user_id = p_user_id and s.lifted_at is null
                and (s.suspended_until is null or s.suspended_until > now())) then
    raise exception 'User is already suspended' using errcode = 'P0001',
      hint = 'Lift the current suspension first.';
  end if;
  insert into public.user_suspensions (user_id, suspension_type, reason, suspended_by, suspended_until)
  values (p_user_id, p_suspension_type, nullif(btrim(p_reason), ''), v_admin, v_until)
  returning * into v_row;
  -- authsvc refuses banned users. Permanent = 100 years (GoTrue's own
  -- convention), which every client library can represent, unlike 'infinity'.
  update auth.users
     set banned_until = coalesce(v_until, now() + interval '100 years'), updated_at = now()
   where id = p_user_id;
  -- Offers first, then trades (the lock order).
  update public.p2p_offers o set status = 'paused' where o.user_id = p_user_id and o.status = 'active';
  update public.p2p_trades t set admin_flag = coalesce(t.admin_flag, 'party_suspended'), flagged_at = coalesce(t.flagged_at, now())
   where p_user_id in (t.buyer_id, t.seller_id) and t.status in ('escrow_locked', 'paid', 'disputed');
  return v_row;
end
$$;
comment on function public.suspend_user(uuid, uuid, text, text) is 'Suspends a user for 10/30/60 days or permanently (admins only, whatever p_admin_id says); sets auth.users.banned_until, pauses the user''s active P2P offers and flags their open trades for an admin; refuses self, admins and an already-suspended user.';

create or replace function public.unsuspend_user(p_user_id uuid, p_admin_id uuid default null)
  returns public.user_suspensions
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := coalesce(app_private.require_admin(), p_admin_id);
  v_row public.user_suspensions;
begin
  perform pg_advisory_xact_lock(hashtextextended('kejanest.suspend:' || coalesce(p_user_id::text, ''), 0));
  update public.user_suspensions s
     set lifted_at = now(), lifted_by = v_admin
   where s.user_id = p_user_id and s.lifted_at is null
     and (s.suspended_until is null or s.suspended_until > now())
  returning * into v_row;
  if not found then
    raise exception 'User is not suspended' using errcode = 'P0001';
  end if;
  update auth.users set banned_until = null, updated_at = now() where id = p_user_id;
  update public.p2p_offers o
     set status = case when o.expires_at > now() then 'active' else 'expired' end
   where o.user_id = p_user_id and o.status = 'paused';
  return v_row;
end
$$;
comment on function public.unsuspend_user(uuid, uuid) is 'Lifts the active suspension of a user, clears auth.users.banned_until and resumes their paused offers (expired when their time has passed); flagged trades stay flagged for the admin (admins only).';

-- Every write of a suspended user's token is refused where it lands: one
-- statement trigger per table the API roles may write. SECURITY DEFINER so
-- it may read auth.users; the caller comes from the request's JWT claims.
create function app_private.refuse_suspended_writer() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  -- The raw subject, not auth.uid(): a token of another issuer may carry a
  -- subject that is no uuid (storage serves such users), and casting it
  -- would fail their every write. Only our own users, uuids, can be banned.
  v_sub text := coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''),
                         nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub');
begin
  if v_sub ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
     and exists (select 1 from auth.users u where u.id = v_sub::uuid and u.banned_until > now()) then
    raise exception 'Your account is suspended' using errcode = '42501';
  end if;
  return null;
end
$$;
comment on function app_private.refuse_suspended_writer() is 'Statement trigger: refuses any write made with the JWT of a user whose auth.users.banned_until is in the future (suspended), on every table the API may write.';

create function app_private.attach_suspension_guards() returns integer
  language plpgsql
  set search_path = ''
as $$
declare
  r record;
  v_n integer := 0;
begin
  for r in
    select n.nspname, c.relname
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ('public', 'storage') and c.relkind in ('r', 'p')
       and (has_table_privilege('authenticated', c.oid, 'INSERT, UPDATE, DELETE')
            or has_any_column_privilege('authenticated', c.oid, 'INSERT, UPDATE'))
       and not exists (select 1 from pg_catalog.pg_trigger t
                        where t.tgrelid = c.oid and t.tgname = c.relname || '_refuse_suspended')
  loop
    execute format('create trigger %I before insert or update or delete on %I.%I for each statement execute function app_private.refuse_suspended_writer()',
                   r.relname || '_refuse_suspended', r.nspname, r.relname);
    v_n := v_n + 1;
  end loop;
  return v_n;
end
$$;
comment on function app_private.attach_suspension_guards() is 'Adds the refuse_suspended_writer statement trigger to every table in public and storage that authenticated may write and lacks it; returns how many. Later migrations that add such tables call it again.';
select app_private.attach_suspension_guards();

revoke execute on all functions in schema app_private from public;
