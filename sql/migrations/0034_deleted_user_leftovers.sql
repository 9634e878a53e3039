-- Deleting a user (admin_delete_user, 0032) left two things behind:
--   * a pending KYC submission stayed in the admins' review queue and in
--     get_dashboard_stats().pendingKYC, though no one would ever answer it:
--     it is now rejected with the note "Account deleted" (audited as
--     kyc.reject by the deleting admin);
--   * listings awaiting review stayed in the moderation queue and in
--     pendingProperties/pendingProducts, their fee held: they are now
--     rejected as moderate_listing rejects them ("Account deleted"), which
--     refunds the fee to the user's wallet (audited as listing.reject);
--   * passkeys (auth.webauthn_credentials, 0033, newer than the soft delete)
--     survived it: anonymise_auth_user now removes them with the MFA factors.
-- authsvc's soft delete (auth.admin.deleteUser(id, true)) now calls
-- anonymise_auth_user as well.
-- Users deleted before this migration get the KYC and passkey changes; their
-- pending listings, if any, are left to the moderation queue, where an admin
-- rejecting them refunds the fee as before.

create or replace function app_private.anonymise_auth_user(p_uid uuid) returns void
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
  delete from auth.webauthn_credentials c where c.user_id = p_uid;
  delete from auth.sessions s where s.user_id = p_uid;
end
$$;
-- authsvc's DELETE /admin/users/{id} with should_soft_delete runs it too.
grant execute on function app_private.anonymise_auth_user(uuid) to supabase_auth_admin;
comment on function app_private.anonymise_auth_user(uuid) is 'Supabase Auth''s soft delete of one auth user: obfuscates e-mail, phone and pending changes, clears password, tokens and metadata, empties identities (hashed provider_id), removes one-time tokens, MFA factors, passkeys and sessions, sets deleted_at. The row and its id stay for the ledger.';

-- ---------------------------------------------------------------------------
-- "Delete profile" (/admin/users): as in 0032, plus the pending KYC and
-- listings.
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
  v_pending record;
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

  -- Listings awaiting review will never be followed up: rejected as the
  -- moderation queue rejects them, which refunds their pending fee.
  for v_pending in
    select 'property' as kind, p.id from public.properties p where p.user_id = p_user_id and p.payment_status = 'pending'
    union all select 'land', l.id from public.lands l where l.userid = p_user_id and l.payment_status = 'pending'
    union all select 'product', d.id from public.products d where d.user_id = p_user_id and d.payment_status = 'pending'
    union all select 'service', s.id from public.service_providers s where s.userid = p_user_id and s.payment_status = 'pending'
  loop
    perform public.moderate_listing(v_pending.kind, v_pending.id, 'rejected', 'Account deleted');
  end loop;

  update public.properties set is_active = false where user_id = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;
  update public.lands set is_active = false where userid = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;
  update public.products set is_active = false where user_id = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;
  update public.service_providers set is_active = false where userid = p_user_id and is_active;
  get diagnostics v_n = row_count; v_listings := v_listings + v_n;

  update public.profiles set full_name = null, phone_number = null where id = p_user_id;
  -- A submission no one will follow up leaves the review queue; the audit
  -- trigger records it as a rejection by this admin.
  update public.kyc_verifications
     set verification_status = 'rejected', admin_notes = 'Account deleted', reviewed_by = v_admin, reviewed_at = now()
   where user_id = p_user_id and verification_status = 'pending';
  -- The ban is ours, not GoTrue's: it makes refuse_suspended_writer turn away
  -- any access token still in flight, and keeps the account closed.
  update auth.users set banned_until = now() + interval '100 years' where id = p_user_id;
  perform app_private.anonymise_auth_user(p_user_id);

  perform app_private.audit(v_admin, 'user.delete', 'user', p_user_id, p_user_id, p_reason,
    jsonb_build_object('full_name', v_name, 'listings_deactivated', v_listings));
  return jsonb_build_object('deleted', true, 'listings_deactivated', v_listings);
end
$$;
comment on function public.admin_delete_user(uuid, text) is 'Admin "Delete profile": closes a user''s account without touching the ledger: refuses admins and users with open P2P trades or active offers (escrow), rejects their listings awaiting review (fee refunded) and deactivates the others, clears the profile''s name and phone, rejects a pending KYC submission ("Account deleted"), soft-deletes the auth user as Supabase Auth does (e-mail, phone and identities obfuscated so the address can sign up again; password, metadata, factors, passkeys and sessions removed; deleted_at set; banned 100 years) and audits user.delete with the reason. Admins only.';

-- Users deleted earlier.
delete from auth.webauthn_credentials c
 using auth.users u
 where u.id = c.user_id and u.deleted_at is not null;
update public.kyc_verifications k
   set verification_status = 'rejected', admin_notes = 'Account deleted', reviewed_at = now()
  from auth.users u
 where u.id = k.user_id and u.deleted_at is not null and k.verification_status = 'pending';
