-- The wallet ledger: a wallet per user per currency (nestcoins, crystals,
-- keys) plus system accounts, an append-only ledger of transfers, and the
-- Nestcoin packages and purchase orders (marketplace-spec §1, §9).
--
-- Invariants, enforced by constraints and by the one posting function:
--   * balances are whole units (bigint); no user, fees or escrow wallet goes
--     below zero (check constraint);
--   * every transfer moves `amount` from its debit wallet (balance goes down)
--     to its credit wallet (balance goes up) of the same currency, so each
--     currency sums to zero across all wallets; the issuance account is the
--     only one that runs negative (it is the source of all coins);
--   * every wallet's balance equals its credits minus its debits;
--   * a transfer's idempotency key is unique: replaying it posts nothing;
--   * transfers are never updated or deleted; balances change only inside
--     app_private.post_transfer, called by SECURITY DEFINER functions.

create table public.wallets (
  id bigint generated always as identity primary key,
  user_id uuid references auth.users (id) on delete cascade,
  kind text not null default 'user'
    constraint wallets_kind_check check (kind in ('user', 'issuance', 'fees', 'escrow')),
  currency text not null
    constraint wallets_currency_check check (currency in ('nestcoins', 'crystals', 'keys')),
  balance bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint wallets_owner_matches_kind check ((kind = 'user') = (user_id is not null)),
  constraint wallets_balance_check check (balance >= 0 or kind = 'issuance'),
  constraint wallets_id_currency_key unique (id, currency)
);
-- Not partial, so it also serves the foreign key to auth.users (system
-- wallets have a NULL user_id, and NULLs never collide).
create unique index wallets_user_currency_key on public.wallets (user_id, currency);
create unique index wallets_system_currency_key on public.wallets (kind, currency) where kind <> 'user';
comment on table public.wallets is 'Balances: one wallet per user per currency (nestcoins, crystals, keys) and one issuance, fees and escrow account per currency. Changed only by ledger postings.';
comment on column public.wallets.balance is 'Whole units. >= 0 except for the issuance account, which is minus the coins in circulation.';
comment on column public.wallets.kind is 'user (user_id set), or a system account: issuance (source of new coins), fees (listing fees), escrow (coins locked in open P2P trades).';

insert into public.wallets (kind, currency)
select k, c from unnest(array['issuance', 'fees', 'escrow']) k cross join unnest(array['nestcoins', 'crystals', 'keys']) c
order by 1, 2;

create table public.wallet_transfers (
  id bigint generated always as identity primary key,
  debit_wallet_id bigint not null,
  credit_wallet_id bigint not null,
  currency text not null,
  amount bigint not null constraint wallet_transfers_amount_check check (amount > 0),
  kind text not null constraint wallet_transfers_kind_check check (kind in (
    'issuance', 'purchase', 'listing_fee', 'listing_refund', 'escrow_lock', 'escrow_release', 'escrow_refund')),
  idempotency_key text not null constraint wallet_transfers_idempotency_key_key unique,
  trade_id uuid,
  reference text,
  memo text,
  created_by uuid,
  created_at timestamptz not null default now(),
  constraint wallet_transfers_debit_fkey foreign key (debit_wallet_id, currency) references public.wallets (id, currency),
  constraint wallet_transfers_credit_fkey foreign key (credit_wallet_id, currency) references public.wallets (id, currency),
  constraint wallet_transfers_distinct_wallets check (debit_wallet_id <> credit_wallet_id)
);
create index wallet_transfers_debit_idx on public.wallet_transfers (debit_wallet_id, created_at desc);
create index wallet_transfers_credit_idx on public.wallet_transfers (credit_wallet_id, created_at desc);
create index wallet_transfers_trade_idx on public.wallet_transfers (trade_id) where trade_id is not null;
-- One escrow lock and at most one settlement (release or refund) per trade.
create unique index wallet_transfers_one_lock_per_trade on public.wallet_transfers (trade_id) where kind = 'escrow_lock';
create unique index wallet_transfers_one_settlement_per_trade on public.wallet_transfers (trade_id)
  where kind in ('escrow_release', 'escrow_refund');
comment on table public.wallet_transfers is 'Append-only ledger: each row moves amount of currency from the debit wallet (balance decreases) to the credit wallet (balance increases). idempotency_key is unique, so a replayed posting changes nothing.';
comment on column public.wallet_transfers.kind is 'issuance (admin/service grant), purchase (paid Nestcoin order), listing_fee / listing_refund, escrow_lock / escrow_release (to buyer) / escrow_refund (to seller).';

create function app_private.wallet_transfers_append_only() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  raise exception 'wallet_transfers is append-only' using errcode = '55000',
    hint = 'Post a compensating transfer instead.';
end
$$;
comment on function app_private.wallet_transfers_append_only() is 'Trigger: refuses UPDATE, DELETE and TRUNCATE of the ledger.';
create trigger wallet_transfers_no_update before update or delete on public.wallet_transfers
  for each row execute function app_private.wallet_transfers_append_only();
create trigger wallet_transfers_no_truncate before truncate on public.wallet_transfers
  for each statement execute function app_private.wallet_transfers_append_only();

-- Nobody writes wallets or transfers directly, not even service_role.
alter table public.wallets enable row level security;
alter table public.wallet_transfers enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.wallets from anon, authenticated, service_role;
revoke insert, update, delete, truncate, references, trigger on public.wallet_transfers from anon, authenticated, service_role;

create policy wallets_select_owner on public.wallets for select to authenticated
  using (user_id = (select auth.uid()));
create policy wallets_select_admin on public.wallets for select to authenticated
  using ((select public.is_admin()));
create policy wallet_transfers_select_owner on public.wallet_transfers for select to authenticated
  using (exists (select 1 from public.wallets w
                  where w.id in (wallet_transfers.debit_wallet_id, wallet_transfers.credit_wallet_id)
                    and w.user_id = (select auth.uid())));
create policy wallet_transfers_select_admin on public.wallet_transfers for select to authenticated
  using ((select public.is_admin()));

-- Every user has their three wallets from the start.
create function app_private.handle_new_auth_user_wallets() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  insert into public.wallets (user_id, kind, currency)
  select new.id, 'user', c from unnest(array['nestcoins', 'crystals', 'keys']) c
  on conflict do nothing;
  return new;
end
$$;
comment on function app_private.handle_new_auth_user_wallets() is 'Trigger on auth.users insert: creates the user''s nestcoins, crystals and keys wallets (balance 0).';
create trigger on_auth_user_created_wallets after insert on auth.users
  for each row execute function app_private.handle_new_auth_user_wallets();

insert into public.wallets (user_id, kind, currency)
select u.id, 'user', c.c from auth.users u cross join unnest(array['nestcoins', 'crystals', 'keys']) c(c)
on conflict do nothing;

-- ---------------------------------------------------------------------------
-- Ledger primitives (private).
create function app_private.user_wallet(p_user_id uuid, p_currency text) returns bigint
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_id bigint;
begin
  select w.id into v_id from public.wallets w where w.user_id = p_user_id and w.currency = p_currency and w.kind = 'user';
  if v_id is null then
    insert into public.wallets (user_id, kind, currency) values (p_user_id, 'user', p_currency)
    on conflict do nothing;
    select w.id into v_id from public.wallets w where w.user_id = p_user_id and w.currency = p_currency and w.kind = 'user';
  end if;
  if v_id is null then
    raise exception 'Unknown currency %', p_currency using errcode = 'P0001';
  end if;
  return v_id;
end
$$;
comment on function app_private.user_wallet(uuid, text) is 'The id of a user''s wallet in a currency, created if missing.';

create function app_private.system_wallet(p_kind text, p_currency text) returns bigint
  language sql stable
  security definer
  set search_path = ''
as $$
  select w.id from public.wallets w where w.kind = p_kind and w.currency = p_currency
$$;
comment on function app_private.system_wallet(text, text) is 'The id of a system account (issuance, fees, escrow) for a currency.';

-- The only code that changes balances. Locks both wallets in id order (so
-- concurrent postings cannot deadlock), records the transfer under its
-- idempotency key and moves the amount. A replayed key returns the original
-- transfer with replayed = true and changes nothing; a key reused for a
-- different transfer is refused.
create function app_private.post_transfer(
  p_debit bigint, p_credit bigint, p_amount bigint, p_kind text, p_key text,
  p_trade_id uuid default null, p_reference text default null, p_memo text default null,
  p_insufficient_message text default null,
  out transfer_id bigint, out replayed boolean)
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_currency text;
  v_existing public.wallet_transfers;
begin
  if p_amount is null or p_amount <= 0 then
    raise exception 'Amount must be greater than 0' using errcode = 'P0001';
  end if;
  if p_key is null or btrim(p_key) = '' then
    raise exception 'An idempotency key is required' using errcode = 'P0001';
  end if;
  select w.currency into v_currency from public.wallets w where w.id = p_debit;
  perform 1 from public.wallets w where w.id in (p_debit, p_credit) order by w.id for update;
  insert into public.wallet_transfers (debit_wallet_id, credit_wallet_id, currency, amount, kind, idempotency_key,
                                       trade_id, reference, memo, created_by)
  values (p_debit, p_credit, v_currency, p_amount, p_kind, p_key, p_trade_id, p_reference, p_memo, auth.uid())
  on conflict (idempotency_key) do nothing
  returning id into transfer_id;
  if transfer_id is null then
    select * into v_existing from public.wallet_transfers t where t.idempotency_key = p_key;
    if v_existing.debit_wallet_id <> p_debit or v_existing.credit_wallet_id <> p_credit
       or v_existing.amount <> p_amount or v_existing.kind <> p_kind then
      raise exception 'Idempotency key % was already used for a different transfer', p_key using errcode = 'P0001';
    end if;
    transfer_id := v_existing.id;
    replayed := true;
    return;
  end if;
  update public.wallets w
     set balance = w.balance - p_amount, updated_at = now()
   where w.id = p_debit and (w.kind = 'issuance' or w.balance >= p_amount);
  if not found then
    raise exception '%', coalesce(p_insufficient_message, 'Insufficient ' || v_currency || ' balance')
      using errcode = 'P0001', hint = 'insufficient_funds';
  end if;
  update public.wallets w set balance = w.balance + p_amount, updated_at = now() where w.id = p_credit;
  replayed := false;
end
$$;
comment on function app_private.post_transfer(bigint, bigint, bigint, text, text, uuid, text, text, text) is 'Posts one ledger transfer (debit -> credit) under a unique idempotency key and updates both balances; replays are no-ops; insufficient funds raise P0001.';

-- Admin/service grant of coins (e.g. demo balances, goodwill credits).
create function public.issue_currency(p_user_id uuid, p_currency text, p_amount bigint, p_reason text default null,
                                      p_idempotency_key text default null)
  returns bigint
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_transfer bigint;
begin
  if p_currency is null or p_currency not in ('nestcoins', 'crystals', 'keys') then
    raise exception 'Currency must be nestcoins, crystals or keys' using errcode = 'P0001';
  end if;
  if not exists (select 1 from auth.users u where u.id = p_user_id) then
    raise exception 'User not found' using errcode = 'P0001';
  end if;
  select t.transfer_id into v_transfer
    from app_private.post_transfer(app_private.system_wallet('issuance', p_currency),
                                   app_private.user_wallet(p_user_id, p_currency), p_amount, 'issuance',
                                   coalesce(p_idempotency_key, 'issue:' || gen_random_uuid()::text),
                                   null, 'user:' || p_user_id::text, p_reason) t;
  return v_transfer;
end
$$;
comment on function public.issue_currency(uuid, text, bigint, text, text) is 'Credits a user with newly issued coins from the issuance account (admins and service_role only); returns the transfer id. A repeated p_idempotency_key credits once.';
revoke execute on function public.issue_currency(uuid, text, bigint, text, text) from public, anon;
grant execute on function public.issue_currency(uuid, text, bigint, text, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------
-- Nestcoin packages (spec §9) and purchase orders.
create table public.nestcoin_packages (
  id uuid primary key default gen_random_uuid(),
  name text not null constraint nestcoin_packages_name_key unique,
  coins bigint not null constraint nestcoin_packages_coins_check check (coins > 0),
  price bigint not null constraint nestcoin_packages_price_check check (price > 0),
  is_active boolean not null default true,
  sort_order integer not null default 0,
  created_at timestamptz not null default now()
);
create index nestcoin_packages_sort_idx on public.nestcoin_packages (sort_order) where is_active;
comment on table public.nestcoin_packages is 'Nestcoin packages sold on /pricing (spec §9): name, coins and price in KES.';
comment on column public.nestcoin_packages.price is 'Price in KES (whole shillings).';

insert into public.nestcoin_packages (name, coins, price, sort_order) values
  ('Starter Pack', 10, 20, 1),
  ('Budget Lister', 50, 100, 2),
  ('Hustle Boost', 105, 200, 3),
  ('Side Hustle', 275, 500, 4),
  ('Market Hustler', 560, 1000, 5),
  ('Land Baron', 1150, 2000, 6),
  ('Bizclass Bundle', 2900, 5000, 7),
  ('Real Estate Pro', 6000, 10000, 8),
  ('Tycoon Bundle', 15500, 25000, 9),
  ('Investor Elite', 32000, 50000, 10);

alter table public.nestcoin_packages enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.nestcoin_packages from anon;
revoke truncate, references, trigger on public.nestcoin_packages from authenticated;
create policy nestcoin_packages_select_public on public.nestcoin_packages for select to anon, authenticated
  using (is_active);
create policy nestcoin_packages_select_admin on public.nestcoin_packages for select to authenticated
  using ((select public.is_admin()));
create policy nestcoin_packages_insert_admin on public.nestcoin_packages for insert to authenticated
  with check ((select public.is_admin()));
create policy nestcoin_packages_update_admin on public.nestcoin_packages for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy nestcoin_packages_delete_admin on public.nestcoin_packages for delete to authenticated
  using ((select public.is_admin()));

create table public.nestcoin_purchases (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  package_id uuid not null references public.nestcoin_packages (id),
  coins bigint not null constraint nestcoin_purchases_coins_check check (coins > 0),
  amount_kes bigint not null constraint nestcoin_purchases_amount_check check (amount_kes > 0),
  phone text,
  status text not null default 'pending'
    constraint nestcoin_purchases_status_check check (status in ('pending', 'paid', 'failed')),
  checkout_request_id text constraint nestcoin_purchases_checkout_request_id_key unique,
  payment_reference text constraint nestcoin_purchases_payment_reference_key unique,
  transfer_id bigint references public.wallet_transfers (id),
  failure_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  paid_at timestamptz,
  failed_at timestamptz,
  constraint nestcoin_purchases_paid_complete check (
    (status = 'paid') = (payment_reference is not null and transfer_id is not null and paid_at is not null)),
  constraint nestcoin_purchases_failed_complete check ((status = 'failed') = (failed_at is not null))
);
create index nestcoin_purchases_user_idx on public.nestcoin_purchases (user_id, created_at desc);
create index nestcoin_purchases_package_idx on public.nestcoin_purchases (package_id);
create index nestcoin_purchases_pending_idx on public.nestcoin_purchases (created_at) where status = 'pending';
comment on table public.nestcoin_purchases is 'Nestcoin purchase orders: pending -> paid (credited exactly once, unique payment_reference such as the M-Pesa receipt) or failed. Shaped for an M-Pesa STK push: AccountReference = id, CheckoutRequestID = checkout_request_id.';

create trigger nestcoin_purchases_set_updated_at before update on public.nestcoin_purchases
  for each row execute function app_private.set_updated_at();

alter table public.nestcoin_purchases enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.nestcoin_purchases from anon, authenticated;
revoke insert, delete, truncate, references, trigger on public.nestcoin_purchases from service_role;
revoke update on public.nestcoin_purchases from service_role;
-- The payment adapter records the provider's request id after the STK push.
grant update (checkout_request_id) on public.nestcoin_purchases to service_role;

create policy nestcoin_purchases_select_owner on public.nestcoin_purchases for select to authenticated
  using (user_id = (select auth.uid()));
create policy nestcoin_purchases_select_admin on public.nestcoin_purchases for select to authenticated
  using ((select public.is_admin()));

create function public.create_nestcoin_purchase(p_package_id uuid, p_phone text default null)
  returns public.nestcoin_purchases
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_pkg public.nestcoin_packages;
  v_phone text;
  v_row public.nestcoin_purchases;
begin
  select * into v_pkg from public.nestcoin_packages p where p.id = p_package_id and p.is_active;
  if not found then
    raise exception 'Package not found' using errcode = 'P0001';
  end if;
  v_phone := regexp_replace(coalesce(nullif(btrim(p_phone), ''),
                                     (select pr.phone_number from public.profiles pr where pr.id = v_uid), ''), '[\s\-()]', '', 'g');
  -- M-Pesa wants 2547XXXXXXXX / 2541XXXXXXXX; accept 07.., 01.., +254.. and 254..
  v_phone := case
    when v_phone ~ '^0[17][0-9]{8}$' then '254' || substr(v_phone, 2)
    when v_phone ~ '^\+254[17][0-9]{8}$' then substr(v_phone, 2)
    when v_phone ~ '^254[17][0-9]{8}$' then v_phone
    else null end;
  if v_phone is null then
    raise exception 'Enter a valid M-Pesa phone number' using errcode = 'P0001',
      hint = 'Use a Safaricom number such as 0712345678.';
  end if;
  insert into public.nestcoin_purchases (user_id, package_id, coins, amount_kes, phone)
  values (v_uid, v_pkg.id, v_pkg.coins, v_pkg.price, v_phone)
  returning * into v_row;
  return v_row;
end
$$;
comment on function public.create_nestcoin_purchase(uuid, text) is 'Creates a pending purchase order for a package (price and coins copied from it) for the caller, with the M-Pesa phone normalised to 2547XXXXXXXX.';
revoke execute on function public.create_nestcoin_purchase(uuid, text) from public, anon;
grant execute on function public.create_nestcoin_purchase(uuid, text) to authenticated, service_role;

create function public.confirm_nestcoin_purchase(p_purchase_id uuid, p_payment_reference text, p_amount_kes bigint)
  returns public.nestcoin_purchases
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_row public.nestcoin_purchases;
  v_transfer bigint;
  v_ref text := nullif(btrim(p_payment_reference), '');
begin
  if not app_private.is_service() then
    raise exception 'Only the payment service can confirm purchases' using errcode = '42501';
  end if;
  if v_ref is null then
    raise exception 'Payment reference is required' using errcode = 'P0001';
  end if;
  select * into v_row from public.nestcoin_purchases p where p.id = p_purchase_id for update;
  if not found then
    raise exception 'Purchase not found' using errcode = 'P0001';
  end if;
  if v_row.status = 'paid' then
    if v_row.payment_reference = v_ref then
      return v_row;  -- the provider repeated its callback: nothing more to do
    end if;
    raise exception 'Purchase is already paid' using errcode = 'P0001',
      detail = 'It was paid with another payment reference.';
  end if;
  if v_row.status = 'failed' then
    raise exception 'Purchase has already failed' using errcode = 'P0001';
  end if;
  if p_amount_kes is distinct from v_row.amount_kes then
    raise exception 'Paid amount does not match the package price' using errcode = 'P0001',
      detail = format('Expected KES %s, received KES %s.', v_row.amount_kes, p_amount_kes);
  end if;
  if exists (select 1 from public.nestcoin_purchases p where p.payment_reference = v_ref) then
    raise exception 'Payment reference was already used' using errcode = 'P0001';
  end if;
  select t.transfer_id into v_transfer
    from app_private.post_transfer(app_private.system_wallet('issuance', 'nestcoins'),
                                   app_private.user_wallet(v_row.user_id, 'nestcoins'), v_row.coins, 'purchase',
                                   'purchase:' || v_row.id::text, null, v_ref, 'Nestcoin purchase') t;
  update public.nestcoin_purchases p
     set status = 'paid', payment_reference = v_ref, transfer_id = v_transfer, paid_at = now()
   where p.id = v_row.id
  returning * into v_row;
  return v_row;
end
$$;
comment on function public.confirm_nestcoin_purchase(uuid, text, bigint) is 'Payment confirmation (service_role, e.g. the M-Pesa callback): marks a pending order paid and credits its coins exactly once; a repeated confirmation with the same reference is a no-op.';
revoke execute on function public.confirm_nestcoin_purchase(uuid, text, bigint) from public, anon, authenticated;
grant execute on function public.confirm_nestcoin_purchase(uuid, text, bigint) to service_role;

create function public.fail_nestcoin_purchase(p_purchase_id uuid, p_reason text default null)
  returns public.nestcoin_purchases
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_row public.nestcoin_purchases;
begin
  if not app_private.is_service() then
    raise exception 'Only the payment service can fail purchases' using errcode = '42501';
  end if;
  select * into v_row from public.nestcoin_purchases p where p.id = p_purchase_id for update;
  if not found then
    raise exception 'Purchase not found' using errcode = 'P0001';
  end if;
  if v_row.status = 'failed' then
    return v_row;
  end if;
  if v_row.status = 'paid' then
    raise exception 'Purchase is already paid' using errcode = 'P0001';
  end if;
  update public.nestcoin_purchases p
     set status = 'failed', failure_reason = nullif(btrim(p_reason), ''), failed_at = now()
   where p.id = v_row.id
  returning * into v_row;
  return v_row;
end
$$;
comment on function public.fail_nestcoin_purchase(uuid, text) is 'Payment failure (service_role): marks a pending order failed with the provider''s reason; repeating it is a no-op, a paid order is refused.';
revoke execute on function public.fail_nestcoin_purchase(uuid, text) from public, anon, authenticated;
grant execute on function public.fail_nestcoin_purchase(uuid, text) to service_role;
