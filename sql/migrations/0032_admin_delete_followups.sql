-- Loose ends of the admin "Delete profile" action (issue 15, 0029):
--   * admin_delete_user now anonymises the auth user the way Supabase Auth's
--     soft delete (auth.admin.deleteUser(id, true)) does: e-mail, phone and
--     pending e-mail/phone changes are replaced by a hash of the user id and
--     the old value, the password, tokens and metadata are cleared, the
--     identities lose their data and have their provider_id hashed, and MFA
--     factors and sessions are removed. The address can sign up again, and
--     the ledger (wallets, transfers, trades, audit) keeps the user id.
--     Users deleted before this migration are anonymised the same way;
--   * get_dashboard_stats().totalUsers leaves deleted users out, as
--     admin_list_users and admin_analytics already do;
--   * suspend_user and unsuspend_user refuse a deleted user, whose ban is
--     permanent: lifting or replacing it would reopen the closed account.

-- ---------------------------------------------------------------------------
-- GoTrue's obfuscation: base64url (no padding) of sha256(user id || value),
-- so the stored value is unique per user and reveals nothing.
create function app_private.obfuscate_auth_value(p_uid uuid, p_value text) returns text
  language sql immutable
  set search_path = ''
as $$
  select rtrim(translate(encode(pg_catalog.sha256(convert_to(p_uid::text || coalesce(p_value, ''), 'UTF8')), 'base64'),
                         '+/', '-_'), '=')
$$;
comment on function app_private.obfuscate_auth_value(uuid, text) is 'What Supabase Auth''s soft delete stores instead of an e-mail, phone or provider id: base64url (unpadded) sha256 of the user id followed by the value (NULL counts as '''').';

create function app_private.anonymise_auth_user(p_uid uuid) returns void
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  -- The phone column was VARCHAR(15) in GoTrue; its soft delete keeps 15 characters.
  update auth.users u
     set email = app_private.obfuscate_auth_value(u.id, u.email),
         phone = left(app_private.obfuscate_auth_value(u.id, u.phone), 15),
         email_change = app_private.obfuscate_auth_value(u.id, u.email_change),
         phone_change = left(app_private.obfuscate_auth_value(u.id, u.phone_change), 15),
         encrypted_password = null,
         confirmation_token = '', recovery_token = '', email_change_token_current = '',
         email_change_token_new = '', phone_change_token = '', reauthentication_token = '',
         raw_user_meta_data = '{}'::jsonb, raw_app_meta_data = '{}'::jsonb,
         deleted_at = coalesce(u.deleted_at, now()), updated_at = now()
   where u.id = p_uid;
  delete from auth.one_time_tokens t where t.user_id = p_uid;
  -- identity_data is emptied first: identities.email is generated from it.
  update auth.identities i
     set identity_data = '{}'::jsonb,
         provider_id = app_private.obfuscate_auth_value(i.user_id, i.provider || ':' || i.provider_id),
         updated_at = now()
   where i.user_id = p_uid;
  delete from auth.mfa_factors f where f.user_id = p_uid;
  delete from auth.sessions s where s.user_id = p_uid;
end
$$;
comment on function app_private.anonymise_auth_user(uuid) is 'Supabase Auth''s soft delete of one auth user: obfuscates e-mail, phone and pending changes, clears password, tokens and metadata, empties identities (hashed provider_id), removes one-time tokens, MFA factors and sessions, sets deleted_at. The row and its id stay for the ledger.';

-- ---------------------------------------------------------------------------
-- "Delete profile" (/admin/users): as in 0029, plus the anonymisation.
create or replace function public.admin_delete_user(p_user_id uuid, p_reason text default null) returns jsonb
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
  -- The ban is ours, not GoTrue's: it makes refuse_suspended_writer turn away
  -- any access token still in flight, and keeps the account closed.
  update auth.users set banned_until = now() + interval '100 years' where id = p_user_id;
  perform app_private.anonymise_auth_user(p_user_id);

  perform app_private.audit(v_admin, 'user.delete', 'user', p_user_id, p_user_id, p_reason,
    jsonb_build_object('full_name', v_name, 'listings_deactivated', v_listings));
  return jsonb_build_object('deleted', true, 'listings_deactivated', v_listings);
end
$$;
comment on function public.admin_delete_user(uuid, text) is 'Admin "Delete profile": closes a user''s account without touching the ledger: refuses admins and users with open P2P trades or active offers (escrow), deactivates their listings, clears the profile''s name and phone, soft-deletes the auth user as Supabase Auth does (e-mail, phone and identities obfuscated so the address can sign up again; password, metadata, factors and sessions removed; deleted_at set; banned 100 years) and audits user.delete with the reason. Admins only.';

-- Users deleted by 0029's admin_delete_user still hold their address.
select app_private.anonymise_auth_user(u.id) from auth.users u
 where u.deleted_at is not null
   and exists (select 1 from public.admin_audit a where a.action = 'user.delete' and a.subject_user_id = u.id);

-- ---------------------------------------------------------------------------
-- Dashboard: deleted users are not users any more.
create or replace function public.get_dashboard_stats() returns jsonb
  language plpgsql stable
  security definer
  set search_path = ''
as $$
begin
  perform app_private.require_admin();
  return jsonb_build_object(
    'totalUsers', (select count(*) from public.profiles p join auth.users u on u.id = p.id where u.deleted_at is null),
    'totalProperties', (select count(*) from public.properties),
    'totalProducts', (select count(*) from public.products),
    'totalDroneServices', (select count(*) from public.service_providers s where s.category = 'Drone'),
    'totalMovingServices', (select count(*) from public.service_providers s where s.category = 'Moving'),
    'activeProperties', (select count(*) from public.properties p where p.is_active),
    'activeProducts', (select count(*) from public.products p where p.is_active),
    'pendingProperties', (select count(*) from public.properties p where p.payment_status = 'pending'),
    'pendingProducts', (select count(*) from public.products p where p.payment_status = 'pending'),
    'pendingKYC', (select count(*) from public.kyc_verifications k where k.verification_status = 'pending'));
end
$$;
comment on function public.get_dashboard_stats() is 'Admin dashboard figures with the spec''s field names: totalUsers (profiles of users not deleted), totalProperties, totalProducts, totalDroneServices, totalMovingServices, activeProperties, activeProducts, pendingProperties, pendingProducts (awaiting approval), pendingKYC. Admins only.';

-- ---------------------------------------------------------------------------
-- Suspensions leave a deleted user's permanent ban alone.
create function app_private.refuse_deleted_user(p_user_id uuid) returns void
  language plpgsql stable
  security definer
  set search_path = ''
as $$
begin
  if exists (select 1 from auth.users u where u.id = p_user_id and u.deleted_at is not null) then
    raise exception 'This user has been deleted' using errcode = 'P0001',
      detail = 'A deleted account stays closed; its ban cannot be changed.';
  end if;
end
$$;
comment on function app_private.refuse_deleted_user(uuid) is 'Raises P0001 ''This user has been deleted'' when p_user_id is a soft-deleted auth user (suspend_user / unsuspend_user).';

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
  -- A shorter suspension would overwrite the deleted account's permanent ban.
  perform app_private.refuse_deleted_user(p_user_id);
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
comment on function public.suspend_user(uuid, uuid, text, text) is 'Suspends a user for 10/30/60 days or permanently (admins only, whatever p_admin_id says); sets auth.users.banned_until, pauses the user''s active P2P offers and flags their open trades for an admin; refuses self, admins, deleted users and an already-suspended user.';

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
  -- Lifting would clear the ban that keeps the deleted account closed.
  perform app_private.refuse_deleted_user(p_user_id);
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
comment on function public.unsuspend_user(uuid, uuid) is 'Lifts the active suspension of a user, clears auth.users.banned_until and resumes their paused offers (expired when their time has passed); flagged trades stay flagged for the admin; refuses a deleted user (admins only).';

revoke execute on all functions in schema app_private from public;
