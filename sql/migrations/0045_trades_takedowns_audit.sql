-- Three holes found auditing the SECURITY DEFINER functions:
--   * open_p2p_trade rewrote a trade's payment method and instructions on
--     an idempotent replay, whatever the trade's state: the seller of a
--     paid trade could replace the "where to pay" text an admin reads when
--     resolving the dispute, and either taker could set a method the
--     offer does not accept (by naming another offer). A replay now
--     returns the trade as it is; the key must belong to the same offer;
--   * admin_deactivate_listing only cleared is_active, and the owner's
--     PATCH {is_active: true} (or publish_listing on a paid listing) put
--     the listing straight back. A takedown now sets taken_down_at, and no
--     one activates a taken-down listing while it is set;
--   * verify_admin_access audited every call, so any signed-in user could
--     fill the append-only admin_audit (streamed to the admin dashboard)
--     by calling it in a loop. Beyond the five-miss limit, a non-admin's
--     calls are refused without a new audit row.

-- ---------------------------------------------------------------------------
-- Trades: a replay does not write.
create or replace function public.open_p2p_trade(p_offer_id uuid, p_amount numeric, p_expected_rate numeric, p_payment_method text,
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
  if v_trade.offer_id is distinct from p_offer_id then
    raise exception 'This request key was used for another trade' using errcode = 'P0001',
      hint = 'Send a new idempotency key for a new trade.';
  end if;
  -- A trade made earlier (a replay of the same key) is returned as it is:
  -- its payment details change only through set_trade_payment_instructions.
  if v_trade.created_at <> now() then
    return v_trade;
  end if;
  update public.p2p_trades t
     set payment_method = p_payment_method,
         payment_instructions = case when t.seller_id = v_uid then coalesce(v_instructions, t.payment_instructions)
                                     else t.payment_instructions end
   where t.id = v_trade.id
  returning * into v_trade;
  return v_trade;
end
$$;
comment on function public.open_p2p_trade(uuid, numeric, numeric, text, text, text) is 'The trade dialog: lock_currency_in_escrow for the caller (same checks and messages, including the price the caller saw) with the chosen payment method, which must be one of the offer''s (''Choose one of this offer''''s payment methods''); a taker who sells (a buy offer) may give payment instructions at once. A repeated idempotency key returns its trade unchanged (and must name the same offer).';

-- ---------------------------------------------------------------------------
-- Listings: an admin's takedown holds.
create function app_private.refuse_taken_down() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  raise exception 'An administrator took this listing down' using errcode = 'P0001',
    detail = coalesce('Reason: ' || nullif(btrim(new.moderation_notes), ''), 'No reason was given.'),
    hint = 'Contact support to have it reviewed.';
end
$$;
comment on function app_private.refuse_taken_down() is 'Trigger on listing tables (when a taken-down listing is being activated): refuses it, for owners, admins and definer functions alike.';
revoke execute on function app_private.refuse_taken_down() from public;

do $$
declare
  t text;
begin
  foreach t in array array['properties', 'lands', 'products', 'service_providers'] loop
    execute format('alter table public.%I add column taken_down_at timestamptz', t);
    execute format('comment on column public.%I.taken_down_at is %L', t,
      'When an admin took the listing down (admin_deactivate_listing); while set, nobody activates it.');
    execute format('create trigger %I before update of is_active on public.%I for each row
                      when (new.is_active and not old.is_active and new.taken_down_at is not null)
                      execute function app_private.refuse_taken_down()', t || '_taken_down', t);
  end loop;
end
$$;

create or replace function public.admin_deactivate_listing(p_kind text, p_listing_id uuid, p_reason text default null)
  returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_table text;
  v_owner_col text;
  v_row jsonb;
begin
  select l.table_name, l.owner_column into v_table, v_owner_col from app_private.listing_table(p_kind) l;
  v_row := app_private.listing_row(p_kind, p_listing_id, true);
  if not (v_row ->> 'is_active')::boolean then
    raise exception 'This listing is not active' using errcode = 'P0001';
  end if;
  execute format('update public.%I set is_active = false, taken_down_at = now(), moderation_notes = coalesce($2, moderation_notes)
                   where id = $1', v_table)
    using p_listing_id, nullif(btrim(p_reason), '');
  perform app_private.audit(v_admin, 'listing.deactivate', p_kind, p_listing_id, (v_row ->> v_owner_col)::uuid, p_reason,
    jsonb_build_object('title', coalesce(v_row ->> 'title', v_row ->> 'name')));
  return app_private.listing_row(p_kind, p_listing_id, false);
end
$$;
comment on function public.admin_deactivate_listing(text, uuid, text) is 'Admin: takes an active listing (p_kind property|land|product|service) off the site, with an optional reason, audited; taken_down_at keeps it off (no one activates it while set). Admins only.';

-- ---------------------------------------------------------------------------
-- The access code: a non-admin's calls beyond the limit are not audited.
create or replace function public.verify_admin_access(p_code text) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_session uuid := nullif(auth.jwt() ->> 'session_id', '')::uuid;
  v_hash text;
  v_misses integer;
  v_retry timestamptz;
begin
  if app_private.is_service() then
    raise exception 'The access code is entered by a signed-in administrator' using errcode = 'P0001';
  end if;
  if v_uid is null then
    raise exception 'Not authenticated' using errcode = '42501', hint = 'Sign in first.';
  end if;
  -- One attempt at a time per account, so parallel guesses cannot slip past the limit.
  perform pg_advisory_xact_lock(hashtextextended('kejanest.admin-access:' || v_uid::text, 0));
  select count(*), min(a.attempted_at) + interval '15 minutes' into v_misses, v_retry
    from (select x.attempted_at from app_private.admin_access_attempts x
           where x.user_id = v_uid and not x.succeeded and x.attempted_at > now() - interval '15 minutes'
           order by x.attempted_at desc limit 5) a;
  if v_misses >= 5 then
    -- A non-admin over the limit is not audited again: the five misses that
    -- tripped it are, and further calls would only fill the append-only log.
    if exists (select 1 from public.user_roles r where r.user_id = v_uid and r.role = 'admin') then
      perform app_private.audit(null, 'access.refused', 'session', v_session, v_uid, 'Too many attempts');
    end if;
    return jsonb_build_object('verified', false, 'error', 'too_many_attempts',
      'retry_after', v_retry, 'attempts_left', 0);
  end if;
  if not exists (select 1 from public.user_roles r where r.user_id = v_uid and r.role = 'admin') then
    insert into app_private.admin_access_attempts (user_id, session_id, succeeded) values (v_uid, v_session, false);
    perform app_private.audit(null, 'access.refused', 'session', v_session, v_uid, 'Not an administrator');
    return jsonb_build_object('verified', false, 'error', 'not_admin');
  end if;
  -- Not a guess at the code: the admin is sent to the MFA step first.
  if not app_private.mfa_satisfied(v_uid) then
    perform app_private.audit(null, 'access.refused', 'session', v_session, v_uid, 'Two-factor verification required');
    return jsonb_build_object('verified', false, 'error', 'mfa_required');
  end if;
  if v_session is null or not exists (select 1 from auth.sessions s where s.id = v_session and s.user_id = v_uid) then
    raise exception 'Sign in again to enter the access code' using errcode = '42501',
      detail = 'The access token carries no live session.';
  end if;
  select s.value into v_hash from app_private.admin_settings s where s.key = 'access_code_hash';
  if v_hash is null or p_code is null or extensions.crypt(btrim(p_code), v_hash) <> v_hash then
    insert into app_private.admin_access_attempts (user_id, session_id, succeeded) values (v_uid, v_session, false);
    perform app_private.audit(null, 'access.refused', 'session', v_session, v_uid, 'Invalid access code');
    return jsonb_build_object('verified', false, 'error', 'invalid_code', 'attempts_left', 4 - v_misses);
  end if;
  insert into app_private.admin_access_attempts (user_id, session_id, succeeded) values (v_uid, v_session, true);
  insert into app_private.admin_sessions (session_id, user_id) values (v_session, v_uid)
  on conflict (session_id) do update set verified_at = now();
  perform app_private.audit(null, 'access.granted', 'session', v_session, v_uid, null);
  return jsonb_build_object('verified', true);
end
$$;
comment on function public.verify_admin_access(text) is 'The /admin/login access code, checked against its bcrypt hash: {verified:true} marks the caller''s auth session (JWT session_id) admin-verified. Refusals return {verified:false, error}: ''invalid_code'' (with attempts_left), ''too_many_attempts'' (5 misses in 15 minutes, with retry_after), ''not_admin'' (the caller has no admin role; counts as a miss) or ''mfa_required'' (an admin with a verified factor at aal1). Every attempt is audited, except a non-admin''s beyond the limit.';
