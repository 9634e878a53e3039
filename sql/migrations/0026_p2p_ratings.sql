-- The P2P exchange screens (issue 14): what the offer board, the trade
-- dialog and the trade page need beyond 0011/0020.
--
--   * Ratings: after a completed trade each party may rate the other once,
--     1-5 stars with an optional comment; every signed-in user reads them.
--   * Trader stats: each user's completed trades, completion rate and
--     average rating, kept as counters (app_private.p2p_trader_stats) by
--     triggers, so the board reads them by primary key whatever the number
--     of trades.
--   * get_p2p_board: the board's read model, one page of active offers with
--     each owner's name, KYC badge and stats, searchable over the owner's
--     name, the currency and the payment methods. No private column.
--   * The trade's payment method (chosen in the trade dialog from the
--     offer's) and the seller's payment instructions (where to send the KES),
--     through open_p2p_trade and set_trade_payment_instructions.
--   * cancel_p2p_offer: the owner withdraws the unfilled rest of an offer;
--     open trades on it carry on.
--   * Realtime: a filled, cancelled or expired offer stays readable by every
--     signed-in user, so the UPDATE that takes it off the board reaches every
--     board (realtime delivers a change only to subscribers who may read the
--     new row). Paused offers stay hidden (a suspension is not announced).
--     p2p_trade_events is published, so the trade page's timeline is live.

-- ---------------------------------------------------------------------------
-- Closed offers are public knowledge: they were on the board until now.
create policy p2p_offers_select_closed on public.p2p_offers for select to authenticated
  using (status in ('filled', 'cancelled', 'expired'));

-- The board sorts by rate as well as by date; both within the active offers.
create index p2p_offers_active_rate_idx on public.p2p_offers (rate_per_unit, created_at desc) where status = 'active';
create index p2p_offers_active_action_currency_idx on public.p2p_offers (action, currency, created_at desc) where status = 'active';
comment on index public.p2p_offers_active_rate_idx is 'The P2P board sorted by rate (issue 14).';
comment on index public.p2p_offers_active_action_currency_idx is 'The P2P board filtered by action and currency, newest first (issue 14).';

-- ---------------------------------------------------------------------------
-- The trade's payment method and the seller's payment instructions.
alter table public.p2p_trades
  add column payment_method text
    constraint p2p_trades_payment_method_check check (
      payment_method in ('M-Pesa', 'Bank Transfer', 'Airtel Money', 'T-Kash', 'PayPal', 'Skrill')),
  add column payment_instructions text
    constraint p2p_trades_payment_instructions_check check (char_length(payment_instructions) between 1 and 500);
comment on column public.p2p_trades.payment_method is 'How the buyer pays the KES: one of the offer''s payment methods, chosen by the taker (open_p2p_trade). NULL for trades opened through lock_currency_in_escrow directly.';
comment on column public.p2p_trades.payment_instructions is 'Where the buyer should send the KES (e.g. an M-Pesa number or till), written by the seller (open_p2p_trade when the taker sells, set_trade_payment_instructions otherwise). Only the parties and admins read trades.';

create function public.open_p2p_trade(p_offer_id uuid, p_amount numeric, p_expected_rate numeric, p_payment_method text,
                                      p_payment_instructions text default null, p_idempotency_key text default null)
  returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_methods text[];
  v_instructions text := nullif(btrim(p_payment_instructions), '');
  v_trade public.p2p_trades;
begin
  select o.payment_methods into v_methods from public.p2p_offers o where o.id = p_offer_id;
  if not found then
    raise exception 'Offer not found' using errcode = 'P0001';
  end if;
  if p_payment_method is null or not (p_payment_method = any (v_methods)) then
    raise exception 'Choose one of this offer''s payment methods' using errcode = 'P0001',
      hint = format('This offer accepts %s.', array_to_string(v_methods, ', '));
  end if;
  if char_length(v_instructions) > 500 then
    raise exception 'Payment instructions are too long (at most 500 characters)' using errcode = 'P0001';
  end if;
  v_trade := public.lock_currency_in_escrow(p_offer_id, v_uid, p_amount, p_expected_rate, p_idempotency_key);
  update public.p2p_trades t
     set payment_method = p_payment_method,
         payment_instructions = case when t.seller_id = v_uid then coalesce(v_instructions, t.payment_instructions)
                                     else t.payment_instructions end
   where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.open_p2p_trade(uuid, numeric, numeric, text, text, text) is 'The trade dialog: lock_currency_in_escrow for the caller (same checks and messages, including the price the caller saw) with the chosen payment method, which must be one of the offer''s (''Choose one of this offer''''s payment methods''); a taker who sells (a buy offer) may give payment instructions at once.';
revoke execute on function public.open_p2p_trade(uuid, numeric, numeric, text, text, text) from public, anon;
grant execute on function public.open_p2p_trade(uuid, numeric, numeric, text, text, text) to authenticated;

create function public.set_trade_payment_instructions(p_trade_id uuid, p_instructions text) returns public.p2p_trades
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_trade public.p2p_trades := app_private.lock_trade(p_trade_id);
  v_uid uuid := app_private.require_trade_party(v_trade);
  v_text text := nullif(btrim(p_instructions), '');
begin
  if v_uid <> v_trade.seller_id then
    raise exception 'Only the seller gives payment instructions' using errcode = '42501';
  end if;
  if v_trade.status <> 'escrow_locked' then
    raise exception 'Payment instructions can change only while the trade awaits payment (this trade is %)', v_trade.status
      using errcode = 'P0001';
  end if;
  if v_text is null then
    raise exception 'Payment instructions are required' using errcode = 'P0001',
      hint = 'Say where the buyer should send the KES, e.g. an M-Pesa number and name.';
  end if;
  if char_length(v_text) > 500 then
    raise exception 'Payment instructions are too long (at most 500 characters)' using errcode = 'P0001';
  end if;
  update public.p2p_trades t set payment_instructions = v_text where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.set_trade_payment_instructions(uuid, text) is 'Seller: says where the buyer should send the KES (at most 500 characters), while the trade awaits payment.';
revoke execute on function public.set_trade_payment_instructions(uuid, text) from public, anon;
grant execute on function public.set_trade_payment_instructions(uuid, text) to authenticated;

-- ---------------------------------------------------------------------------
-- Withdrawing an offer: the unfilled rest leaves the board; trades carry on
-- (a refunded trade does not bring a cancelled offer back, see settle_trade).
create function public.cancel_p2p_offer(p_offer_id uuid) returns public.p2p_offers
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_offer public.p2p_offers;
begin
  select * into v_offer from public.p2p_offers o where o.id = p_offer_id for update;
  if not found or (v_offer.user_id <> v_uid and not public.is_admin()) then
    raise exception 'Offer not found' using errcode = 'P0001';
  end if;
  if v_offer.status not in ('active', 'paused') then
    raise exception 'Only an active offer can be cancelled (this offer is %)', v_offer.status using errcode = 'P0001';
  end if;
  update public.p2p_offers o set status = 'cancelled' where o.id = v_offer.id
  returning * into v_offer;
  return v_offer;
end
$$;
comment on function public.cancel_p2p_offer(uuid) is 'Owner (or an admin): an active or paused offer becomes cancelled, so its unfilled rest (remaining_amount) can no longer be traded; its open trades carry on. ''Offer not found'' for anyone else''s offer.';
revoke execute on function public.cancel_p2p_offer(uuid) from public, anon;
grant execute on function public.cancel_p2p_offer(uuid) to authenticated;

-- ---------------------------------------------------------------------------
-- Ratings.
create table public.p2p_trade_ratings (
  id uuid primary key default gen_random_uuid(),
  trade_id uuid not null references public.p2p_trades (id) on delete cascade,
  rater_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  ratee_id uuid not null references auth.users (id) on delete cascade,
  stars smallint not null constraint p2p_trade_ratings_stars_check check (stars between 1 and 5),
  comment text constraint p2p_trade_ratings_comment_check check (char_length(comment) between 1 and 500),
  created_at timestamptz not null default now(),
  constraint p2p_trade_ratings_trade_rater_key unique (trade_id, rater_id),
  constraint p2p_trade_ratings_not_self check (rater_id <> ratee_id)
);
create index p2p_trade_ratings_ratee_idx on public.p2p_trade_ratings (ratee_id, created_at desc);
create index p2p_trade_ratings_rater_idx on public.p2p_trade_ratings (rater_id);
comment on table public.p2p_trade_ratings is 'A party''s rating of the other party of a completed P2P trade: 1-5 stars and an optional comment (at most 500 characters), one per party per trade, never edited. Every signed-in user reads them (offer cards show the average).';
comment on column public.p2p_trade_ratings.ratee_id is 'The other party of the trade; set by the server from the trade (a client-sent value is ignored).';

create function app_private.p2p_trade_ratings_validate() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_trade public.p2p_trades;
  v_uid uuid := auth.uid();
begin
  if v_uid is not null and new.rater_id is distinct from v_uid then
    raise exception 'You can only rate as yourself' using errcode = '42501';
  end if;
  select * into v_trade from public.p2p_trades t where t.id = new.trade_id;
  if not found or new.rater_id is null or new.rater_id not in (v_trade.buyer_id, v_trade.seller_id) then
    raise exception 'You are not a party to this trade' using errcode = '42501';
  end if;
  if v_trade.status <> 'completed' then
    raise exception 'You can rate a trade only after it is completed' using errcode = 'P0001';
  end if;
  if exists (select 1 from public.p2p_trade_ratings r where r.trade_id = new.trade_id and r.rater_id = new.rater_id) then
    raise exception 'You have already rated this trade' using errcode = 'P0001';
  end if;
  new.comment := nullif(btrim(new.comment), '');
  new.ratee_id := case when new.rater_id = v_trade.buyer_id then v_trade.seller_id else v_trade.buyer_id end;
  new.created_at := now();
  return new;
end
$$;
comment on function app_private.p2p_trade_ratings_validate() is 'Trigger: a rating comes from a party of a completed trade (''You can rate a trade only after it is completed'', ''You have already rated this trade''), rates the other party (ratee_id set here) and trims the comment.';
create trigger p2p_trade_ratings_validate before insert on public.p2p_trade_ratings
  for each row execute function app_private.p2p_trade_ratings_validate();

alter table public.p2p_trade_ratings enable row level security;
revoke all on public.p2p_trade_ratings from anon;
revoke insert, update, delete, truncate, references, trigger on public.p2p_trade_ratings from authenticated;
grant insert (trade_id, rater_id, ratee_id, stars, comment) on public.p2p_trade_ratings to authenticated;

create policy p2p_trade_ratings_select_signed_in on public.p2p_trade_ratings for select to authenticated
  using (true);
create policy p2p_trade_ratings_insert_party on public.p2p_trade_ratings for insert to authenticated
  with check (rater_id = (select auth.uid())
              and exists (select 1 from public.p2p_trades t
                           where t.id = p2p_trade_ratings.trade_id and t.status = 'completed'
                             and (select auth.uid()) in (t.buyer_id, t.seller_id)));

-- ---------------------------------------------------------------------------
-- Trader stats: counters per user, kept by triggers.
create table app_private.p2p_trader_stats (
  user_id uuid primary key references auth.users (id) on delete cascade,
  completed_trades integer not null default 0 check (completed_trades >= 0),
  failed_trades integer not null default 0 check (failed_trades >= 0),
  rating_count integer not null default 0 check (rating_count >= 0),
  rating_sum integer not null default 0 check (rating_sum >= 0),
  updated_at timestamptz not null default now()
);
comment on table app_private.p2p_trader_stats is 'Per user: completed P2P trades (either side), failed ones counted against them (as buyer: cancelled, expired, resolved to the seller; as seller: resolved to the buyer), and the sum and count of the ratings received. Kept by triggers on p2p_trades and p2p_trade_ratings; read through get_p2p_board and the p2p_trader_stats view.';

create function app_private.bump_trader_stats(p_user_id uuid, p_completed integer, p_failed integer,
                                              p_ratings integer, p_stars integer) returns void
  language sql
  security definer
  set search_path = ''
as $$
  insert into app_private.p2p_trader_stats as s (user_id, completed_trades, failed_trades, rating_count, rating_sum)
  values (p_user_id, p_completed, p_failed, p_ratings, p_stars)
  on conflict (user_id) do update
     set completed_trades = s.completed_trades + excluded.completed_trades,
         failed_trades = s.failed_trades + excluded.failed_trades,
         rating_count = s.rating_count + excluded.rating_count,
         rating_sum = s.rating_sum + excluded.rating_sum,
         updated_at = now()
$$;
comment on function app_private.bump_trader_stats(uuid, integer, integer, integer, integer) is 'Adds to a user''s P2P counters (creating the row).';

create function app_private.p2p_trades_stats() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if new.status = 'completed' then
    perform app_private.bump_trader_stats(new.buyer_id, 1, 0, 0, 0);
    perform app_private.bump_trader_stats(new.seller_id, 1, 0, 0, 0);
  elsif new.status in ('cancelled', 'expired') or (new.status = 'resolved' and new.resolution = 'seller') then
    perform app_private.bump_trader_stats(new.buyer_id, 0, 1, 0, 0);
  elsif new.status = 'resolved' and new.resolution = 'buyer' then
    perform app_private.bump_trader_stats(new.seller_id, 0, 1, 0, 0);
  end if;
  return null;
end
$$;
comment on function app_private.p2p_trades_stats() is 'Trigger: counts a trade that closes into its parties'' stats (completed for both; a failure against the buyer or the seller).';
create trigger p2p_trades_stats after update of status on public.p2p_trades
  for each row when (old.status is distinct from new.status)
  execute function app_private.p2p_trades_stats();

create function app_private.p2p_trade_ratings_stats() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  perform app_private.bump_trader_stats(new.ratee_id, 0, 0, 1, new.stars);
  return null;
end
$$;
comment on function app_private.p2p_trade_ratings_stats() is 'Trigger: adds a new rating to its ratee''s stats.';
create trigger p2p_trade_ratings_stats after insert on public.p2p_trade_ratings
  for each row execute function app_private.p2p_trade_ratings_stats();

-- Trades closed before this migration.
insert into app_private.p2p_trader_stats (user_id, completed_trades, failed_trades)
select u, sum(c)::integer, sum(f)::integer
  from (select t.buyer_id as u, (t.status = 'completed')::int as c,
               (t.status in ('cancelled', 'expired') or (t.status = 'resolved' and t.resolution = 'seller'))::int as f
          from public.p2p_trades t
        union all
        select t.seller_id, (t.status = 'completed')::int, (t.status = 'resolved' and t.resolution = 'buyer')::int
          from public.p2p_trades t) x
 group by u;

-- What signed-in users may know of a trader's record.
create view public.p2p_trader_stats with (security_barrier) as
  select s.user_id, s.completed_trades,
         case when s.completed_trades + s.failed_trades > 0
              then round(s.completed_trades::numeric / (s.completed_trades + s.failed_trades), 4) end as completion_rate,
         case when s.rating_count > 0 then round(s.rating_sum::numeric / s.rating_count, 2) end as rating_avg,
         s.rating_count
    from app_private.p2p_trader_stats s
   where (select auth.uid()) is not null or (select auth.role()) = 'service_role';
comment on view public.p2p_trader_stats is 'A trader''s P2P record for signed-in users: completed_trades, completion_rate (0-1, completed over completed plus failed; NULL before any closed trade), rating_avg (1-5, NULL before any rating) and rating_count. A user without a row has no closed trade.';
revoke all on public.p2p_trader_stats from public, anon, authenticated, service_role;
grant select on public.p2p_trader_stats to authenticated, service_role;

-- ---------------------------------------------------------------------------
-- The offer board. A function rather than a view: a security-barrier view
-- joining offers to profiles is planned as a whole (it is never flattened),
-- so every page would build and sort all active offers. Here the offers are
-- filtered, ordered and limited first, walking the partial indexes above,
-- and only the page is joined to names, KYC and stats. Dynamic SQL carries
-- only the predicates in use, so each call is planned for its filters.
create function public.get_p2p_board(p_action text default null, p_currency text default null, p_search text default null,
                                     p_sort text default 'newest', p_limit integer default 60, p_offset integer default 0)
  returns table (
    id uuid, user_id uuid, action text, currency text, amount bigint, filled_amount bigint, remaining_amount bigint,
    rate_per_unit numeric, min_limit bigint, max_limit bigint, payment_methods text[], auto_cancel_duration text,
    expires_at timestamptz, created_at timestamptz, owner_name text, owner_kyc_verified boolean,
    owner_completed_trades integer, owner_completion_rate numeric, owner_rating_avg numeric, owner_rating_count integer)
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_where text := 'o.status = ''active'' and o.expires_at > now()';
  v_order text;
  v_search text := nullif(btrim(p_search), '');
begin
  perform app_private.require_user();
  if p_action is not null and p_action not in ('buy', 'sell') then
    raise exception 'Action must be buy or sell' using errcode = 'P0001';
  end if;
  if p_currency is not null and p_currency not in ('nestcoins', 'crystals', 'keys') then
    raise exception 'Currency must be nestcoins, crystals or keys' using errcode = 'P0001';
  end if;
  v_order := case coalesce(p_sort, 'newest')
    when 'newest' then 'o.created_at desc, o.id'
    when 'rate_asc' then 'o.rate_per_unit asc, o.created_at desc, o.id'
    when 'rate_desc' then 'o.rate_per_unit desc, o.created_at desc, o.id'
  end;
  if v_order is null then
    raise exception 'Sort must be newest, rate_asc or rate_desc' using errcode = 'P0001';
  end if;
  if p_action is not null then
    v_where := v_where || ' and o.action = $1';
  end if;
  if p_currency is not null then
    v_where := v_where || ' and o.currency = $2';
  end if;
  if v_search is not null then
    -- The caller's text is a literal: LIKE's wildcards in it are escaped.
    v_search := '%' || replace(replace(replace(v_search, '\', '\\'), '%', '\%'), '_', '\_') || '%';
    v_where := v_where || ' and (o.currency ilike $3 or array_to_string(o.payment_methods, '', '') ilike $3'
                       || ' or exists (select 1 from public.profiles p where p.id = o.user_id and p.full_name ilike $3))';
  end if;
  return query execute format(
    'select o.id, o.user_id, o.action, o.currency, o.amount, o.filled_amount, o.remaining_amount, o.rate_per_unit,
            o.min_limit, o.max_limit, o.payment_methods, o.auto_cancel_duration, o.expires_at, o.created_at,
            coalesce(nullif(btrim(p.full_name), ''''), ''User''),
            exists (select 1 from public.kyc_verifications k where k.user_id = o.user_id and k.verification_status = ''approved''),
            coalesce(s.completed_trades, 0),
            case when s.completed_trades + s.failed_trades > 0
                 then round(s.completed_trades::numeric / (s.completed_trades + s.failed_trades), 4) end,
            case when s.rating_count > 0 then round(s.rating_sum::numeric / s.rating_count, 2) end,
            coalesce(s.rating_count, 0)
       from (select o.* from public.p2p_offers o where %s order by %s limit $4 offset $5) o
       left join public.profiles p on p.id = o.user_id
       left join app_private.p2p_trader_stats s on s.user_id = o.user_id
      order by %s', v_where, v_order, v_order)
  using p_action, p_currency, v_search, least(greatest(coalesce(p_limit, 60), 1), 200), greatest(coalesce(p_offset, 0), 0);
end
$$;
comment on function public.get_p2p_board(text, text, text, text, integer, integer) is 'The /p2p board for signed-in users: active, unexpired offers, optionally of one action (buy|sell) and currency, matching p_search (case-insensitive, in the owner''s name, the currency or the payment methods), ordered newest first or by rate (p_sort newest|rate_asc|rate_desc), p_limit (1-200, default 60) from p_offset; each with remaining_amount and the owner''s name (''User'' when unset), KYC badge, completed trades, completion rate (0-1), average rating and rating count. No private column.';
revoke execute on function public.get_p2p_board(text, text, text, text, integer, integer) from public, anon;
grant execute on function public.get_p2p_board(text, text, text, text, integer, integer) to authenticated;

-- ---------------------------------------------------------------------------
-- The trade page's timeline is live.
alter table public.p2p_trade_events replica identity full;
alter publication supabase_realtime add table public.p2p_trade_events;
select realtime.sync_publication_triggers();

select app_private.attach_suspension_guards();
revoke execute on all functions in schema app_private from public;
