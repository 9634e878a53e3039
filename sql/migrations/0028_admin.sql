-- The admin panel (issue 15; marketplace-spec §2 admin routes, §4 admin
-- access sequence, §5 admin guard, §6 roles, §8 messages):
--   * the access code of /admin/login is checked here, stored as a bcrypt
--     hash in app_private.admin_settings, rate limited per admin (5 misses in
--     15 minutes), every refusal audited; a correct code marks the caller's
--     auth session (JWT session_id) as admin-verified, so the admin flag is a
--     property of the session and ends with it (sign-out deletes the session);
--   * app_private.require_admin also demands aal2 when the admin has a
--     verified MFA factor;
--   * public.admin_audit, append-only: every admin action (suspend,
--     unsuspend, KYC decision, listing approval/rejection/deactivation,
--     provider verification, dispute resolution, access code) in one place
--     per action: a trigger on the row the action changes, or the function
--     itself for the actions without one (access code, deactivation);
--   * admin-only readers: admin_list_users (search, pagination, total; the
--     e-mail lives in auth.users), admin_analytics (30/90-day aggregates).
--
-- The demo access code is 'KEJA-ADMIN-2024' (seeded hashed below; change it
-- with public.set_admin_access_code as service_role).

-- ---------------------------------------------------------------------------
-- Configuration and the private bookkeeping of the access step.
create table app_private.admin_settings (
  key text primary key,
  value text not null,
  updated_at timestamptz not null default now()
);
comment on table app_private.admin_settings is 'Admin configuration (key/value): access_code_hash is the bcrypt hash of the /admin/login access code.';

insert into app_private.admin_settings (key, value)
values ('access_code_hash', extensions.crypt('KEJA-ADMIN-2024', extensions.gen_salt('bf', 8)));

create table app_private.admin_access_attempts (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  session_id uuid,
  succeeded boolean not null,
  attempted_at timestamptz not null default now()
);
create index admin_access_attempts_user_idx on app_private.admin_access_attempts (user_id, attempted_at desc);
comment on table app_private.admin_access_attempts is 'Every access-code attempt of an admin; the misses of the last 15 minutes rate-limit verify_admin_access.';

create table app_private.admin_sessions (
  session_id uuid primary key references auth.sessions (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  verified_at timestamptz not null default now()
);
create index admin_sessions_user_idx on app_private.admin_sessions (user_id);
comment on table app_private.admin_sessions is 'Auth sessions in which the admin entered the right access code. Deleted with the session (sign-out, expiry).';

-- ---------------------------------------------------------------------------
-- The audit trail.
create table public.admin_audit (
  id bigint generated always as identity primary key,
  actor_id uuid references auth.users (id) on delete set null,
  action text not null constraint admin_audit_action_check check (action in (
    'access.granted', 'access.refused', 'user.suspend', 'user.unsuspend', 'kyc.approve', 'kyc.reject',
    'listing.approve', 'listing.reject', 'listing.deactivate', 'provider.verify', 'provider.unverify',
    'dispute.resolve')),
  target_kind text constraint admin_audit_target_kind_check check (target_kind in (
    'user', 'kyc', 'property', 'land', 'product', 'service', 'trade', 'session')),
  target_id uuid,
  subject_user_id uuid references auth.users (id) on delete set null,
  reason text,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index admin_audit_created_idx on public.admin_audit (created_at desc);
create index admin_audit_target_idx on public.admin_audit (target_id, created_at desc);
create index admin_audit_subject_idx on public.admin_audit (subject_user_id, created_at desc);
create index admin_audit_actor_idx on public.admin_audit (actor_id);
comment on table public.admin_audit is 'Append-only record of every admin action: who (actor_id), what (action, target_kind, target_id), about whom (subject_user_id: the user or the listing owner), why (reason) and when. Written only by the admin functions and their triggers; readable by admins.';
comment on column public.admin_audit.action is 'access.granted/refused (access code), user.suspend/unsuspend, kyc.approve/reject, listing.approve/reject/deactivate, provider.verify/unverify, dispute.resolve.';

alter table public.admin_audit enable row level security;
revoke all on public.admin_audit from anon;
revoke insert, update, delete, truncate, references, trigger on public.admin_audit from authenticated, service_role;
create policy admin_audit_select_admin on public.admin_audit for select to authenticated
  using ((select public.is_admin()));

create function app_private.admin_audit_append_only() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  raise exception 'The admin audit is append-only' using errcode = '42501';
end
$$;
comment on function app_private.admin_audit_append_only() is 'Trigger: refuses every update and delete of public.admin_audit, whoever asks.';
create trigger admin_audit_append_only before update or delete on public.admin_audit
  for each row execute function app_private.admin_audit_append_only();

create function app_private.audit(p_actor uuid, p_action text, p_target_kind text, p_target_id uuid,
                                  p_subject uuid, p_reason text, p_details jsonb default '{}')
  returns void
  language sql
  security definer
  set search_path = ''
as $$
  insert into public.admin_audit (actor_id, action, target_kind, target_id, subject_user_id, reason, details)
  values (coalesce(auth.uid(), p_actor), p_action, p_target_kind, p_target_id, p_subject,
          nullif(btrim(p_reason), ''), coalesce(p_details, '{}'))
$$;
comment on function app_private.audit(uuid, text, text, uuid, uuid, text, jsonb) is 'Appends one admin_audit row; the actor is the caller (auth.uid()), else p_actor (service_role calls).';

-- ---------------------------------------------------------------------------
-- MFA: an admin with a verified factor must have passed it (aal2).
create or replace function app_private.require_admin() returns uuid
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  if app_private.is_service() then
    return null;
  end if;
  if v_uid is null then
    raise exception 'Not authenticated' using errcode = '42501', hint = 'Sign in first.';
  end if;
  if not exists (select 1 from public.user_roles r where r.user_id = v_uid and r.role = 'admin') then
    raise exception 'Admin privileges required' using errcode = '42501',
      hint = 'Sign in with the administrator account.';
  end if;
  if coalesce(auth.jwt() ->> 'aal', 'aal1') <> 'aal2'
     and exists (select 1 from auth.mfa_factors f where f.user_id = v_uid and f.status = 'verified') then
    raise exception 'Two-factor verification required' using errcode = '42501',
      hint = 'Verify your second factor (aal2) before using admin functions.';
  end if;
  return v_uid;
end
$$;
comment on function app_private.require_admin() is 'Raises 42501 unless the caller (auth.uid()) is an admin (''Admin privileges required'') who, having a verified MFA factor, signed in at aal2 (''Two-factor verification required''), or the request is service_role; returns the admin''s id (NULL for service_role).';

-- ---------------------------------------------------------------------------
-- The access code.
create function public.verify_admin_access(p_code text) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_admin();
  v_session uuid := nullif(auth.jwt() ->> 'session_id', '')::uuid;
  v_hash text;
  v_misses integer;
  v_retry timestamptz;
begin
  if v_uid is null then
    raise exception 'The access code is entered by a signed-in administrator' using errcode = 'P0001';
  end if;
  if v_session is null or not exists (select 1 from auth.sessions s where s.id = v_session and s.user_id = v_uid) then
    raise exception 'Sign in again to enter the access code' using errcode = '42501',
      detail = 'The access token carries no live session.';
  end if;
  -- One attempt at a time per admin, so parallel guesses cannot slip past the limit.
  perform pg_advisory_xact_lock(hashtextextended('kejanest.admin-access:' || v_uid::text, 0));
  select count(*), min(a.attempted_at) + interval '15 minutes' into v_misses, v_retry
    from (select x.attempted_at from app_private.admin_access_attempts x
           where x.user_id = v_uid and not x.succeeded and x.attempted_at > now() - interval '15 minutes'
           order by x.attempted_at desc limit 5) a;
  -- Refusals return (rather than raise) so that their audit row is kept.
  if v_misses >= 5 then
    perform app_private.audit(null, 'access.refused', 'session', v_session, v_uid, 'Too many attempts');
    return jsonb_build_object('verified', false, 'error', 'too_many_attempts',
      'retry_after', v_retry, 'attempts_left', 0);
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
comment on function public.verify_admin_access(text) is 'The /admin/login access code, checked against its bcrypt hash: {verified:true} marks the caller''s auth session (JWT session_id) admin-verified; {verified:false, error:''invalid_code'', attempts_left} or, after 5 misses in 15 minutes, {verified:false, error:''too_many_attempts'', retry_after}. Every attempt is audited. Admins only (42501 otherwise; aal2 when they have a verified factor).';
revoke execute on function public.verify_admin_access(text) from public, anon;
grant execute on function public.verify_admin_access(text) to authenticated;

create function public.admin_session_verified() returns boolean
  language sql stable
  security definer
  set search_path = ''
as $$
  select exists (
    select 1 from app_private.admin_sessions a
     join public.user_roles r on r.user_id = a.user_id and r.role = 'admin'
    where a.session_id = nullif(auth.jwt() ->> 'session_id', '')::uuid
      and a.user_id = (select auth.uid()))
$$;
comment on function public.admin_session_verified() is 'True when the caller is an admin whose current auth session passed the access code (verify_admin_access). The admin guard of the app asks this; false for everyone else.';
revoke execute on function public.admin_session_verified() from public, anon;
grant execute on function public.admin_session_verified() to authenticated;

create function public.set_admin_access_code(p_code text) returns void
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if not app_private.is_service() then
    raise exception 'Only the service role may change the access code' using errcode = '42501';
  end if;
  if p_code is null or char_length(btrim(p_code)) < 8 then
    raise exception 'The access code must have at least 8 characters' using errcode = 'P0001';
  end if;
  update app_private.admin_settings
     set value = extensions.crypt(btrim(p_code), extensions.gen_salt('bf', 8)), updated_at = now()
   where key = 'access_code_hash';
end
$$;
comment on function public.set_admin_access_code(text) is 'Replaces the admin access code (stored as a bcrypt hash). service_role only.';
revoke execute on function public.set_admin_access_code(text) from public, anon, authenticated;
grant execute on function public.set_admin_access_code(text) to service_role;

-- ---------------------------------------------------------------------------
-- Audit triggers: one per action, on the row the admin function changes.
create function app_private.audit_suspension() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.audit(new.suspended_by, 'user.suspend', 'user', new.user_id, new.user_id, new.reason,
      jsonb_build_object('suspension_type', new.suspension_type, 'suspended_until', new.suspended_until));
  elsif old.lifted_at is null and new.lifted_at is not null then
    perform app_private.audit(new.lifted_by, 'user.unsuspend', 'user', new.user_id, new.user_id, null,
      jsonb_build_object('suspension_id', new.id, 'suspension_type', new.suspension_type));
  end if;
  return null;
end
$$;
comment on function app_private.audit_suspension() is 'Trigger: audits suspend_user (insert) and unsuspend_user (lifted_at set).';
create trigger user_suspensions_audit after insert or update of lifted_at on public.user_suspensions
  for each row execute function app_private.audit_suspension();

create function app_private.audit_kyc_decision() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if old.verification_status = 'pending' and new.verification_status in ('approved', 'rejected') then
    perform app_private.audit(new.reviewed_by,
      case new.verification_status when 'approved' then 'kyc.approve' else 'kyc.reject' end,
      'kyc', new.id, new.user_id, new.admin_notes, jsonb_build_object('id_type', new.id_type));
  end if;
  return null;
end
$$;
comment on function app_private.audit_kyc_decision() is 'Trigger: audits process_kyc_verification (pending -> approved | rejected, with the notes).';
create trigger kyc_verifications_audit after update of verification_status on public.kyc_verifications
  for each row execute function app_private.audit_kyc_decision();

create function app_private.audit_listing_moderation() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_kind text := case tg_table_name when 'properties' then 'property' when 'lands' then 'land'
                                    when 'products' then 'product' else 'service' end;
  v_new jsonb := to_jsonb(new);
begin
  if old.payment_status = 'pending' and new.payment_status in ('paid', 'rejected') then
    perform app_private.audit(null,
      case new.payment_status when 'paid' then 'listing.approve' else 'listing.reject' end,
      v_kind, new.id, coalesce(v_new ->> 'user_id', v_new ->> 'userid')::uuid, new.moderation_notes,
      jsonb_build_object('title', coalesce(v_new ->> 'title', v_new ->> 'name')));
  end if;
  return null;
end
$$;
comment on function app_private.audit_listing_moderation() is 'Trigger: audits moderate_listing (payment_status pending -> paid | rejected, with the reason).';
create trigger properties_audit_moderation after update of payment_status on public.properties
  for each row execute function app_private.audit_listing_moderation();
create trigger products_audit_moderation after update of payment_status on public.products
  for each row execute function app_private.audit_listing_moderation();
create trigger lands_audit_moderation after update of payment_status on public.lands
  for each row execute function app_private.audit_listing_moderation();
create trigger service_providers_audit_moderation after update of payment_status on public.service_providers
  for each row execute function app_private.audit_listing_moderation();

create function app_private.audit_provider_verification() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if old.verified is distinct from new.verified then
    perform app_private.audit(null, case when new.verified then 'provider.verify' else 'provider.unverify' end,
      'service', new.id, new.userid, null, jsonb_build_object('title', new.name));
  end if;
  return null;
end
$$;
comment on function app_private.audit_provider_verification() is 'Trigger: audits verify_service_provider (verified changed).';
create trigger service_providers_audit_verification after update of verified on public.service_providers
  for each row execute function app_private.audit_provider_verification();

create function app_private.audit_dispute_resolution() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if old.status = 'disputed' and new.status = 'resolved' then
    perform app_private.audit(new.resolved_by, 'dispute.resolve', 'trade', new.id,
      case new.resolution when 'buyer' then new.buyer_id else new.seller_id end, new.resolution_notes,
      jsonb_build_object('resolution', new.resolution, 'buyer_id', new.buyer_id, 'seller_id', new.seller_id,
                         'currency', new.currency, 'amount', new.amount));
  end if;
  return null;
end
$$;
comment on function app_private.audit_dispute_resolution() is 'Trigger: audits resolve_trade_dispute (disputed -> resolved; subject is the party who received the escrow).';
create trigger p2p_trades_audit_resolution after update of status on public.p2p_trades
  for each row execute function app_private.audit_dispute_resolution();

-- ---------------------------------------------------------------------------
-- Deactivation by an admin (the owner's own toggle is a plain update).
create function public.admin_deactivate_listing(p_kind text, p_listing_id uuid, p_reason text default null)
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
  execute format('update public.%I set is_active = false, moderation_notes = coalesce($2, moderation_notes) where id = $1', v_table)
    using p_listing_id, nullif(btrim(p_reason), '');
  perform app_private.audit(v_admin, 'listing.deactivate', p_kind, p_listing_id, (v_row ->> v_owner_col)::uuid, p_reason,
    jsonb_build_object('title', coalesce(v_row ->> 'title', v_row ->> 'name')));
  return app_private.listing_row(p_kind, p_listing_id, false);
end
$$;
comment on function public.admin_deactivate_listing(text, uuid, text) is 'Admin: takes an active listing (p_kind property|land|product|service) off the site, with an optional reason, audited. Admins only.';
revoke execute on function public.admin_deactivate_listing(text, uuid, text) from public, anon;
grant execute on function public.admin_deactivate_listing(text, uuid, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------
-- The users table of /admin/users.
create function public.admin_list_users(p_search text default null, p_limit integer default 20, p_offset integer default 0)
  returns table (id uuid, email text, full_name text, phone_number text, role text, created_at timestamptz,
                 last_sign_in_at timestamptz, kyc_status text, is_suspended boolean, suspension_type text,
                 suspension_reason text, suspended_until timestamptz, total_count bigint)
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_search text := nullif(btrim(p_search), '');
  v_like text;
begin
  perform app_private.require_admin();
  if p_limit is null or p_limit < 1 or p_limit > 100 then
    raise exception 'Page size must be between 1 and 100' using errcode = 'P0001';
  end if;
  if p_offset is null or p_offset < 0 then
    raise exception 'Offset must not be negative' using errcode = 'P0001';
  end if;
  v_like := '%' || replace(replace(replace(coalesce(v_search, ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  return query
    select u.id, u.email::text, p.full_name, p.phone_number, coalesce(r.role, 'user'), u.created_at,
           u.last_sign_in_at, k.verification_status, s.id is not null, s.suspension_type, s.reason,
           s.suspended_until, count(*) over ()
      from auth.users u
      left join public.profiles p on p.id = u.id
      left join public.user_roles r on r.user_id = u.id
      left join public.kyc_verifications k on k.user_id = u.id
      left join lateral (
        select x.id, x.suspension_type, x.reason, x.suspended_until from public.user_suspensions x
         where x.user_id = u.id and x.lifted_at is null and (x.suspended_until is null or x.suspended_until > now())
         order by x.suspended_at desc limit 1) s on true
     where u.deleted_at is null
       and (v_search is null or u.email ilike v_like or p.full_name ilike v_like or p.phone_number ilike v_like)
     order by u.created_at desc, u.id
     limit p_limit offset p_offset;
end
$$;
comment on function public.admin_list_users(text, integer, integer) is 'Admin users table: one page (p_limit 1-100 from p_offset, newest first) of users matching p_search (e-mail, name or phone, case-insensitive), with role, KYC state, active suspension and total_count (all matches). Admins only.';
revoke execute on function public.admin_list_users(text, integer, integer) from public, anon;
grant execute on function public.admin_list_users(text, integer, integer) to authenticated, service_role;

-- ---------------------------------------------------------------------------
-- /admin/analytics.
create function public.admin_analytics(p_days integer default 30) returns jsonb
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_since timestamptz;
  v_fees bigint;
  v_fee_wallet bigint;
begin
  perform app_private.require_admin();
  if p_days is null or p_days not in (30, 90) then
    raise exception 'The period must be 30 or 90 days' using errcode = 'P0001';
  end if;
  v_since := date_trunc('day', now()) - make_interval(days => p_days - 1);
  select w.id into v_fee_wallet from public.wallets w where w.kind = 'fees' and w.currency = 'nestcoins';
  return jsonb_build_object(
    'days', p_days,
    'since', v_since,
    'signups', (
      select coalesce(jsonb_agg(jsonb_build_object('day', d.day::date, 'count', coalesce(c.n, 0)) order by d.day), '[]')
        from generate_series(v_since, date_trunc('day', now()), interval '1 day') d(day)
        left join (select date_trunc('day', u.created_at) as day, count(*) as n from auth.users u
                    where u.created_at >= v_since and u.deleted_at is null group by 1) c on c.day = d.day),
    'listings', (
      select jsonb_agg(jsonb_build_object('kind', k.kind, 'total', k.total, 'active', k.active, 'pending', k.pending, 'new', k.fresh)
                       order by k.ord)
        from (
          select 1 as ord, 'property' as kind, count(*) as total, count(*) filter (where x.is_active) as active,
                 count(*) filter (where x.payment_status = 'pending') as pending, count(*) filter (where x.created_at >= v_since) as fresh
            from public.properties x
          union all
          select 2, 'land', count(*), count(*) filter (where x.is_active), count(*) filter (where x.payment_status = 'pending'),
                 count(*) filter (where x."createdAt" >= v_since) from public.lands x
          union all
          select 3, 'product', count(*), count(*) filter (where x.is_active), count(*) filter (where x.payment_status = 'pending'),
                 count(*) filter (where x.created_at >= v_since) from public.products x
          union all
          select 4, 'service', count(*), count(*) filter (where x.is_active), count(*) filter (where x.payment_status = 'pending'),
                 count(*) filter (where x.created_at >= v_since) from public.service_providers x) k),
    'fees', (
      -- Net Nestcoins kept by the fees account per day: fees in, refunds out.
      select coalesce(jsonb_agg(jsonb_build_object('day', d.day::date, 'amount', coalesce(f.net, 0)) order by d.day), '[]')
        from generate_series(v_since, date_trunc('day', now()), interval '1 day') d(day)
        left join (select date_trunc('day', t.created_at) as day,
                          sum(case when t.credit_wallet_id = v_fee_wallet then t.amount else -t.amount end) as net
                     from public.wallet_transfers t
                    where t.created_at >= v_since and v_fee_wallet in (t.credit_wallet_id, t.debit_wallet_id)
                    group by 1) f on f.day = d.day),
    'feesTotal', (
      select coalesce(sum(case when t.credit_wallet_id = v_fee_wallet then t.amount else -t.amount end), 0)
        from public.wallet_transfers t
       where t.created_at >= v_since and v_fee_wallet in (t.credit_wallet_id, t.debit_wallet_id)),
    'trades', (
      select jsonb_agg(jsonb_build_object('currency', c.currency, 'trades', coalesce(t.n, 0), 'completed', coalesce(t.done, 0),
                                          'volume', coalesce(t.volume, 0), 'volumeKes', coalesce(t.kes, 0)) order by c.ord)
        from (values (1, 'nestcoins'), (2, 'crystals'), (3, 'keys')) c(ord, currency)
        left join (select x.currency, count(*) as n,
                          count(*) filter (where x.status = 'completed' or (x.status = 'resolved' and x.resolution = 'buyer')) as done,
                          coalesce(sum(x.amount) filter (where x.status = 'completed' or (x.status = 'resolved' and x.resolution = 'buyer')), 0) as volume,
                          coalesce(sum(x.total_kes) filter (where x.status = 'completed' or (x.status = 'resolved' and x.resolution = 'buyer')), 0) as kes
                     from public.p2p_trades x where x.created_at >= v_since group by x.currency) t on t.currency = c.currency));
end
$$;
comment on function public.admin_analytics(integer) is 'Admin analytics over the last p_days (30 or 90) days: signups per day, listings by kind (total, active, pending, new), Nestcoin fees collected per day (net of refunds) and in total, and P2P trades per currency (trades opened, completed, volume in coins and KES). Admins only.';
revoke execute on function public.admin_analytics(integer) from public, anon;
grant execute on function public.admin_analytics(integer) to authenticated, service_role;

-- The dashboard's live feed: the KYC queue and new users already stream
-- (0012); the admin's audit trail streams too.
alter publication supabase_realtime add table public.admin_audit;

revoke execute on all functions in schema app_private from public;
