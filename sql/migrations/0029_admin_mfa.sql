-- The admin panel's remaining guards (issue 15; marketplace-spec §2 user
-- management, §5 admin guard, §8 messages):
--   * MFA everywhere: public.is_admin(), which the admin RLS read policies
--     ask, now also demands aal2 when the admin has a verified factor, as
--     app_private.require_admin already did; an aal1 session of such an admin
--     reads like a plain user;
--   * the access code inside every admin function: require_admin also
--     demands admin_session_verified() of a user caller, so a token that
--     skipped /admin/login cannot call the admin functions directly.
--     service_role callers carry no session and keep passing;
--   * verify_admin_access refuses a non-admin (and an admin still at aal1)
--     by returning {verified:false, error:...} instead of raising, so the
--     refusal's audit row is committed; the attempt counts against the same
--     rate limit (5 misses in 15 minutes per account);
--   * public.admin_delete_user: the "Delete profile" action of /admin/users.

-- ---------------------------------------------------------------------------
-- MFA.
create function app_private.mfa_satisfied(p_uid uuid) returns boolean
  language sql stable
  security definer
  set search_path = ''
as $$
  select coalesce(auth.jwt() ->> 'aal', 'aal1') = 'aal2'
      or not exists (select 1 from auth.mfa_factors f where f.user_id = p_uid and f.status = 'verified')
$$;
comment on function app_private.mfa_satisfied(uuid) is 'True when p_uid has no verified MFA factor, or the caller''s JWT is aal2 (the factor was passed in this session).';

create or replace function public.is_admin() returns boolean
  language sql stable
  security definer
  set search_path = ''
as $$
  select exists (
    select 1 from public.user_roles r
    where r.user_id = (select auth.uid()) and r.role = 'admin'
  ) and app_private.mfa_satisfied((select auth.uid()))
$$;
comment on function public.is_admin() is 'True when the signed-in caller (auth.uid()) has the admin role in user_roles and, having a verified MFA factor, is at aal2. Used by admin RLS policies (service_role bypasses them).';

-- The identity half of the admin guard: the role and MFA, not the access
-- code (verify_admin_access itself runs before the code is entered).
create function app_private.require_admin_identity() returns uuid
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
  if not app_private.mfa_satisfied(v_uid) then
    raise exception 'Two-factor verification required' using errcode = '42501',
      hint = 'Verify your second factor (aal2) before using admin functions.';
  end if;
  return v_uid;
end
$$;
comment on function app_private.require_admin_identity() is 'Raises 42501 unless the caller is an admin who, having a verified MFA factor, is at aal2, or the request is service_role; returns the admin''s id (NULL for service_role). Does not ask for the access code.';

create or replace function app_private.require_admin() returns uuid
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_admin_identity();
begin
  if v_uid is not null and not public.admin_session_verified() then
    raise exception 'Admin access code required' using errcode = '42501',
      hint = 'Enter the access code at /admin/login in this session.';
  end if;
  return v_uid;
end
$$;
comment on function app_private.require_admin() is 'The guard of every admin function: raises 42501 unless the caller is an admin (''Admin privileges required'') at aal2 when they have a verified factor (''Two-factor verification required'') whose auth session passed the access code (''Admin access code required''), or the request is service_role; returns the admin''s id (NULL for service_role).';

-- ---------------------------------------------------------------------------
-- The access code: refusals return, so their audit row is kept.
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
    perform app_private.audit(null, 'access.refused', 'session', v_session, v_uid, 'Too many attempts');
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
comment on function public.verify_admin_access(text) is 'The /admin/login access code, checked against its bcrypt hash: {verified:true} marks the caller''s auth session (JWT session_id) admin-verified. Refusals return {verified:false, error}: ''invalid_code'' (with attempts_left), ''too_many_attempts'' (5 misses in 15 minutes, with retry_after), ''not_admin'' (the caller has no admin role; counts as a miss) or ''mfa_required'' (an admin with a verified factor at aal1). Every attempt is audited.';

-- ---------------------------------------------------------------------------
-- "Delete profile" (/admin/users).
alter table public.admin_audit drop constraint admin_audit_action_check;
alter table public.admin_audit add constraint admin_audit_action_check check (action in (
  'access.granted', 'access.refused', 'user.suspend', 'user.unsuspend', 'user.delete', 'kyc.approve', 'kyc.reject',
  'listing.approve', 'listing.reject', 'listing.deactivate', 'provider.verify', 'provider.unverify',
  'dispute.resolve'));
comment on column public.admin_audit.action is 'access.granted/refused (access code), user.suspend/unsuspend/delete, kyc.approve/reject, listing.approve/reject/deactivate, provider.verify/unverify, dispute.resolve.';

-- Deleting keeps every row the ledger, the trades and the audit point at
-- (auth.users, wallets, transfers, trades): the account is closed the way
-- Supabase Auth soft-deletes (deleted_at, no sign-in), the profile is
-- anonymised and the listings leave the site. Refused while the user has
-- coins in escrow (an open trade or an active offer).
create function public.admin_delete_user(p_user_id uuid, p_reason text default null) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_name text;
  v_listings bigint := 0;
  v_n bigint;
begin
  perform 1 from auth.users u where u.id = p_user_id and u.deleted_at is null for update;
  if not found then
    raise exception 'This user does not exist' using errcode = 'P0002';
  end if;
  if p_user_id = v_admin or exists (select 1 from public.user_roles r where r.user_id = p_user_id and r.role = 'admin') then
    raise exception 'An administrator profile cannot be deleted' using errcode = 'P0001';
  end if;
  if exists (select 1 from public.p2p_trades t where p_user_id in (t.buyer_id, t.seller_id)
                and t.status in ('escrow_locked', 'paid', 'disputed')) then
    raise exception 'This user has open P2P trades; resolve or wait for them first' using errcode = 'P0001';
  end if;
  if exists (select 1 from public.p2p_offers o where o.user_id = p_user_id and o.status = 'active') then
    raise exception 'This user has active P2P offers holding escrow; they must be closed first' using errcode = 'P0001';
  end if;
  select p.full_name into v_name from public.profiles p where p.id = p_user_id;

  update public.properties set is_active = false where user_id = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;
  update public.lands set is_active = false where userid = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;
  update public.products set is_active = false where user_id = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;
  update public.service_providers set is_active = false where userid = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;

  update public.profiles set full_name = null, phone_number = null where id = p_user_id;
  -- Sign-in is refused (banned) and every session ends; the far-future ban
  -- (not 'infinity') is what suspend_user uses, and authsvc can read it.
  update auth.users
     set deleted_at = now(), banned_until = now() + interval '100 years',
         raw_user_meta_data = '{}'::jsonb, phone = null, updated_at = now()
   where id = p_user_id;
  delete from auth.sessions where user_id = p_user_id;

  perform app_private.audit(v_admin, 'user.delete', 'user', p_user_id, p_user_id, p_reason,
    jsonb_build_object('full_name', v_name, 'listings_deactivated', v_listings));
  return jsonb_build_object('deleted', true, 'listings_deactivated', v_listings);
end
$$;
comment on function public.admin_delete_user(uuid, text) is 'Admin "Delete profile": closes a user''s account without touching the ledger: refuses admins and users with open P2P trades or active offers (escrow), deactivates their listings, clears the profile''s name and phone, soft-deletes the auth user (deleted_at, banned 100 years, sessions ended) and audits user.delete with the reason. Admins only.';
revoke execute on function public.admin_delete_user(uuid, text) from public, anon;
grant execute on function public.admin_delete_user(uuid, text) to authenticated, service_role;

revoke execute on all functions in schema app_private from public;
