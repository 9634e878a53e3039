-- Buying Nestcoins with M-Pesa (issue 16): what the payments service
-- (payments/, /functions/v1/mpesa-*) records about each STK push, and the
-- functions it calls as service_role to settle a purchase exactly once.
--
-- The flow, with who runs each step:
--   1. the buyer (authenticated, through the payments service):
--      create_nestcoin_purchase(package, phone) -> a pending purchase;
--   2. the service, in the same transaction as service_role:
--      begin_mpesa_checkout(purchase, sha256(callback secret)); the secret
--      itself travels only in the CallBackURL given to Daraja;
--   3. after Daraja accepted the push: record_mpesa_stk_push(purchase,
--      CheckoutRequestID, MerchantRequestID); a push Daraja refused ends in
--      resolve_mpesa_purchase(..., 'push_failed', via 'push');
--   4. Safaricom's callback: settle_mpesa_callback(purchase, sha256(secret),
--      CheckoutRequestID, ..., ResultCode, receipt, amount) checks the
--      secret and the checkout id under the purchase's row lock, then
--      credits (confirm_nestcoin_purchase) or fails it;
--   5. the lost-callback sweep: resolve_mpesa_purchase with Daraja's STK
--      query answer (via 'query'), or 'expired' when no answer ever comes
--      (via 'expiry').
--
-- Exactly once: every path takes the purchase's row lock first, and the
-- credit is the ledger transfer keyed 'purchase:<id>' (unique), recorded
-- with the unique payment_reference. A success callback carrying a receipt
-- is money that moved: it credits even a purchase the service had given up
-- on (push timeout, expiry), and replaces the CheckoutRequestID a query
-- confirmation stood in with as the reference (the STK query API returns no
-- receipt).

alter table public.nestcoin_purchases
  add column merchant_request_id text,
  add column stk_sent_at timestamptz,
  add column result_code integer,
  add column result_desc text,
  add column failure_code text
    constraint nestcoin_purchases_failure_code_check check (failure_code in (
      'cancelled', 'timeout', 'insufficient_funds', 'wrong_pin', 'busy', 'declined',
      'push_failed', 'expired', 'amount_mismatch')),
  add column resolved_via text
    constraint nestcoin_purchases_resolved_via_check check (resolved_via in ('callback', 'query', 'push', 'expiry')),
  add constraint nestcoin_purchases_failure_code_when_failed check (failure_code is null or status = 'failed');
comment on column public.nestcoin_purchases.checkout_request_id is 'Daraja''s CheckoutRequestID of the STK push (unique); every callback and STK query must name it.';
comment on column public.nestcoin_purchases.merchant_request_id is 'Daraja''s MerchantRequestID of the STK push.';
comment on column public.nestcoin_purchases.stk_sent_at is 'When Daraja accepted the STK push (the prompt is on its way to the phone); NULL until then.';
comment on column public.nestcoin_purchases.result_code is 'Daraja''s ResultCode once known: 0 paid, 1 insufficient funds, 1032 cancelled, 1037 phone unreachable, 2001 wrong PIN, ...';
comment on column public.nestcoin_purchases.result_desc is 'Daraja''s ResultDesc, as sent.';
comment on column public.nestcoin_purchases.failure_code is 'Why a failed purchase failed, for the app''s message: cancelled, timeout, insufficient_funds, wrong_pin, busy, declined, push_failed, expired, amount_mismatch.';
comment on column public.nestcoin_purchases.resolved_via is 'What settled the purchase: callback (Safaricom), query (the lost-callback sweep''s STK query), push (Daraja refused the push) or expiry (no answer at all).';
comment on column public.nestcoin_purchases.payment_reference is 'The M-Pesa receipt (MpesaReceiptNumber), unique; the CheckoutRequestID while only an STK query has confirmed the payment.';

-- The per-purchase callback secret. Only its SHA-256 is kept, out of the
-- API's reach (app_private is not exposed, and the purchase row is
-- streamed to its owner by Realtime).
create table app_private.mpesa_checkouts (
  purchase_id uuid primary key references public.nestcoin_purchases (id) on delete cascade,
  callback_secret_hash bytea not null
    constraint mpesa_checkouts_callback_secret_hash_check check (octet_length(callback_secret_hash) = 32),
  created_at timestamptz not null default now()
);
comment on table app_private.mpesa_checkouts is 'One row per M-Pesa STK push: the SHA-256 of the secret carried in its CallBackURL, which a callback must present.';

-- Daraja answers each purchase in real time to its owner.
alter publication supabase_realtime add table public.nestcoin_purchases;

create function public.begin_mpesa_checkout(p_purchase_id uuid, p_callback_secret_hash bytea) returns void
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_status text;
begin
  if not app_private.is_service() then
    raise exception 'Only the payment service can start M-Pesa checkouts' using errcode = '42501';
  end if;
  if p_callback_secret_hash is null or octet_length(p_callback_secret_hash) <> 32 then
    raise exception 'The callback secret hash must be 32 bytes (SHA-256)' using errcode = 'P0001';
  end if;
  select p.status into v_status from public.nestcoin_purchases p where p.id = p_purchase_id for update;
  if not found then
    raise exception 'Purchase not found' using errcode = 'P0001';
  end if;
  if v_status <> 'pending' then
    raise exception 'Purchase is no longer pending' using errcode = 'P0001';
  end if;
  insert into app_private.mpesa_checkouts (purchase_id, callback_secret_hash)
  values (p_purchase_id, p_callback_secret_hash);
exception when unique_violation then
  raise exception 'An M-Pesa checkout was already started for this purchase' using errcode = 'P0001';
end
$$;
comment on function public.begin_mpesa_checkout(uuid, bytea) is 'Payment service (service_role): registers the SHA-256 of a pending purchase''s callback secret before its STK push; once per purchase.';
revoke execute on function public.begin_mpesa_checkout(uuid, bytea) from public, anon, authenticated;
grant execute on function public.begin_mpesa_checkout(uuid, bytea) to service_role;

create function public.record_mpesa_stk_push(p_purchase_id uuid, p_checkout_request_id text, p_merchant_request_id text)
  returns public.nestcoin_purchases
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_row public.nestcoin_purchases;
  v_cid text := nullif(btrim(p_checkout_request_id), '');
begin
  if not app_private.is_service() then
    raise exception 'Only the payment service can record STK pushes' using errcode = '42501';
  end if;
  if v_cid is null then
    raise exception 'CheckoutRequestID is required' using errcode = 'P0001';
  end if;
  select * into v_row from public.nestcoin_purchases p where p.id = p_purchase_id for update;
  if not found then
    raise exception 'Purchase not found' using errcode = 'P0001';
  end if;
  -- A fast callback may have recorded the same id already; another id is a
  -- second push for one purchase, which never happens.
  if v_row.checkout_request_id is not null and v_row.checkout_request_id <> v_cid then
    raise exception 'Purchase already has another CheckoutRequestID' using errcode = 'P0001';
  end if;
  update public.nestcoin_purchases p
     set checkout_request_id = v_cid,
         merchant_request_id = coalesce(p.merchant_request_id, nullif(btrim(p_merchant_request_id), '')),
         stk_sent_at = coalesce(p.stk_sent_at, now())
   where p.id = v_row.id
  returning * into v_row;
  return v_row;
end
$$;
comment on function public.record_mpesa_stk_push(uuid, text, text) is 'Payment service (service_role): records the CheckoutRequestID and MerchantRequestID Daraja gave an accepted STK push; repeating it with the same id is a no-op.';
revoke execute on function public.record_mpesa_stk_push(uuid, text, text) from public, anon, authenticated;
grant execute on function public.record_mpesa_stk_push(uuid, text, text) to service_role;

-- The one state machine behind callbacks and the sweep. The caller holds
-- the purchase's row lock. Returns what happened: credited, failed,
-- duplicate (this outcome was already recorded) or conflict (the purchase
-- is already settled the other way; nothing changes).
create function app_private.apply_mpesa_result(
  p_row public.nestcoin_purchases, p_result_code integer, p_result_desc text, p_failure_code text,
  p_reference text, p_amount_kes bigint, p_via text) returns text
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_ref text := nullif(btrim(p_reference), '');
begin
  if p_result_code = 0 then
    if v_ref is null then
      raise exception 'A paid result needs a payment reference' using errcode = 'P0001';
    end if;
    if p_row.status = 'paid' then
      if p_row.payment_reference = v_ref then
        return 'duplicate';
      end if;
      -- Confirmed by an STK query (reference = CheckoutRequestID): the
      -- receipt now arrives and replaces it. Nothing is credited again.
      if p_row.payment_reference = p_row.checkout_request_id and p_via = 'callback' then
        update public.nestcoin_purchases p set payment_reference = v_ref, resolved_via = 'callback'
         where p.id = p_row.id;
        return 'duplicate';
      end if;
      return 'conflict';
    end if;
    if p_amount_kes is distinct from p_row.amount_kes then
      if p_row.status = 'failed' then
        return 'conflict';
      end if;
      perform public.fail_nestcoin_purchase(p_row.id,
        format('Paid amount does not match the package price: expected KES %s, received %s.',
               p_row.amount_kes, coalesce(p_amount_kes::text, 'no whole amount')));
      update public.nestcoin_purchases p
         set failure_code = 'amount_mismatch', result_code = p_result_code, result_desc = p_result_desc, resolved_via = p_via
       where p.id = p_row.id;
      return 'failed';
    end if;
    if p_row.status = 'failed' then
      if p_row.failure_code = 'amount_mismatch' then
        return 'conflict';
      end if;
      -- Money moved after all (a push we thought failed, a purchase we
      -- expired): the success wins.
      update public.nestcoin_purchases p
         set status = 'pending', failed_at = null, failure_reason = null, failure_code = null
       where p.id = p_row.id;
    end if;
    perform public.confirm_nestcoin_purchase(p_row.id, v_ref, p_amount_kes);
    update public.nestcoin_purchases p
       set result_code = p_result_code, result_desc = p_result_desc, resolved_via = p_via
     where p.id = p_row.id;
    return 'credited';
  end if;

  if p_row.status = 'failed' then
    -- We had given up (expiry) and M-Pesa now says why: keep its reason.
    if p_row.resolved_via = 'expiry' and p_via in ('callback', 'query') then
      update public.nestcoin_purchases p
         set failure_code = coalesce(p_failure_code, 'declined'), result_code = p_result_code,
             result_desc = p_result_desc, resolved_via = p_via,
             failure_reason = coalesce(nullif(btrim(p_result_desc), ''), p.failure_reason)
       where p.id = p_row.id;
    end if;
    return 'duplicate';
  end if;
  if p_row.status = 'paid' then
    return 'conflict';
  end if;
  perform public.fail_nestcoin_purchase(p_row.id, coalesce(nullif(btrim(p_result_desc), ''), 'M-Pesa payment failed'));
  update public.nestcoin_purchases p
     set failure_code = coalesce(p_failure_code, 'declined'), result_code = p_result_code,
         result_desc = p_result_desc, resolved_via = p_via
   where p.id = p_row.id;
  return 'failed';
end
$$;
comment on function app_private.apply_mpesa_result(public.nestcoin_purchases, integer, text, text, text, bigint, text) is 'Settles a locked purchase with an M-Pesa result: 0 credits once (confirm_nestcoin_purchase), anything else fails it; returns credited, failed, duplicate or conflict.';

create function public.settle_mpesa_callback(
  p_purchase_id uuid, p_callback_secret_hash bytea, p_checkout_request_id text, p_merchant_request_id text,
  p_result_code integer, p_result_desc text, p_failure_code text, p_receipt text, p_amount_kes bigint)
  returns text
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_row public.nestcoin_purchases;
  v_hash bytea;
  v_cid text := nullif(btrim(p_checkout_request_id), '');
begin
  if not app_private.is_service() then
    raise exception 'Only the payment service can settle M-Pesa callbacks' using errcode = '42501';
  end if;
  select * into v_row from public.nestcoin_purchases p where p.id = p_purchase_id for update;
  select c.callback_secret_hash into v_hash from app_private.mpesa_checkouts c where c.purchase_id = p_purchase_id;
  -- One answer for every forgery, so a caller learns nothing about which
  -- purchases exist.
  if v_row.id is null or v_hash is null or p_callback_secret_hash is null or v_hash <> p_callback_secret_hash
     or v_cid is null or v_cid <> coalesce(v_row.checkout_request_id, v_cid) then
    raise exception 'Unknown M-Pesa callback' using errcode = '42501';
  end if;
  if p_result_code is null then
    raise exception 'ResultCode is required' using errcode = 'P0001';
  end if;
  if v_row.checkout_request_id is null then
    -- The callback beat record_mpesa_stk_push; the secret vouches for it.
    update public.nestcoin_purchases p
       set checkout_request_id = v_cid,
           merchant_request_id = coalesce(p.merchant_request_id, nullif(btrim(p_merchant_request_id), '')),
           stk_sent_at = coalesce(p.stk_sent_at, now())
     where p.id = v_row.id
    returning * into v_row;
  end if;
  return app_private.apply_mpesa_result(v_row, p_result_code, p_result_desc, p_failure_code, p_receipt, p_amount_kes, 'callback');
end
$$;
comment on function public.settle_mpesa_callback(uuid, bytea, text, text, integer, text, text, text, bigint) is 'Payment service (service_role): settles a purchase from Safaricom''s STK callback after checking the callback secret''s hash and the CheckoutRequestID (42501 ''Unknown M-Pesa callback'' otherwise). Returns credited, failed, duplicate or conflict; replays credit nothing.';
revoke execute on function public.settle_mpesa_callback(uuid, bytea, text, text, integer, text, text, text, bigint) from public, anon, authenticated;
grant execute on function public.settle_mpesa_callback(uuid, bytea, text, text, integer, text, text, text, bigint) to service_role;

create function public.resolve_mpesa_purchase(
  p_purchase_id uuid, p_result_code integer, p_result_desc text, p_failure_code text, p_via text)
  returns text
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_row public.nestcoin_purchases;
begin
  if not app_private.is_service() then
    raise exception 'Only the payment service can resolve M-Pesa purchases' using errcode = '42501';
  end if;
  if p_via is null or p_via not in ('query', 'push', 'expiry') then
    raise exception 'Resolution must come from query, push or expiry' using errcode = 'P0001';
  end if;
  select * into v_row from public.nestcoin_purchases p where p.id = p_purchase_id for update;
  if not found then
    raise exception 'Purchase not found' using errcode = 'P0001';
  end if;
  if p_result_code = 0 then
    if p_via <> 'query' or v_row.checkout_request_id is null then
      raise exception 'Only an STK query of a pushed purchase can confirm it' using errcode = 'P0001';
    end if;
    -- Daraja's query has no receipt: the CheckoutRequestID stands in until
    -- a late callback brings one. The query is for our own checkout, so
    -- the amount is the purchase's.
    return app_private.apply_mpesa_result(v_row, 0, p_result_desc, null, v_row.checkout_request_id, v_row.amount_kes, p_via);
  end if;
  return app_private.apply_mpesa_result(v_row, p_result_code, p_result_desc, coalesce(p_failure_code, 'declined'), null, null, p_via);
end
$$;
comment on function public.resolve_mpesa_purchase(uuid, integer, text, text, text) is 'Payment service (service_role): settles a purchase without a callback: an STK query result (via query; 0 credits once), a refused push (via push) or no answer at all (via expiry, failure_code expired). Returns credited, failed, duplicate or conflict.';
revoke execute on function public.resolve_mpesa_purchase(uuid, integer, text, text, text) from public, anon, authenticated;
grant execute on function public.resolve_mpesa_purchase(uuid, integer, text, text, text) to service_role;

-- The sweep's scan: pending purchases by age.
create index nestcoin_purchases_pending_sent_idx on public.nestcoin_purchases (coalesce(stk_sent_at, created_at))
  where status = 'pending';

revoke execute on all functions in schema app_private from public;
