-- Three reads and writes the API allowed that the product's rules do not
-- (found auditing the spec's §3, §4 and §6 against the policies):
--   * user_verifications: the owner could read the bcrypt hashes of their
--     pending codes. A six-digit code has 10^6 values, so a hash cracks
--     offline well inside the code's ten minutes, and a user could mark a
--     phone number they do not hold as verified without the five-miss
--     limit. The hashes are now readable by nobody through the API; the
--     owner (and an admin) read the other columns, which are all the app
--     asks for;
--   * kyc documents: the owner could replace (x-upsert, move) or delete a
--     file of a submission under review or already approved, so the file
--     an admin approved was not the file kept. Uploads are inserts under a
--     fresh name (the app never upserts), so owners lose update; they may
--     still delete a file that no pending or approved submission of theirs
--     names (an abandoned upload, a file of a rejected submission);
--   * admin reads: public.is_admin(), which every admin read policy asks
--     (profiles' phone numbers, KYC rows and documents, wallets, contact
--     verification), counted the admin role and MFA but not the access
--     code that every admin function demands (0029). A token that never
--     passed /admin/login read all of it directly. is_admin() now asks
--     admin_session_verified() too, so an admin reads like a user until
--     the code is entered in that session.

-- ---------------------------------------------------------------------------
-- Contact verification: column privileges instead of the whole row.
revoke select on public.user_verifications from anon, authenticated;
grant select (user_id, email_verified, phone_verified,
              email_verification_expires_at, phone_verification_expires_at,
              email_verification_attempts, phone_verification_attempts, updated_at)
  on public.user_verifications to authenticated;
comment on column public.user_verifications.email_verification_code is 'bcrypt hash of the pending six-digit e-mail code (never the code itself); not readable through the API (0043).';
comment on column public.user_verifications.phone_verification_code is 'bcrypt hash of the pending six-digit phone code (never the code itself); not readable through the API (0043).';

-- ---------------------------------------------------------------------------
-- KYC documents: no replacing, and no deleting what is under review or
-- approved. The submission is the owner's own row, which they can read.
drop policy objects_update_kyc_owner on storage.objects;
drop policy objects_delete_kyc_owner on storage.objects;
create policy objects_delete_kyc_owner on storage.objects for delete to authenticated
  using (bucket_id = 'kyc'
         and (storage.foldername(name))[1] = (select auth.uid())::text
         and not exists (
           select 1 from public.kyc_verifications k
            where k.user_id = (select auth.uid())
              and k.verification_status in ('pending', 'approved')
              and name in (k.photo_url, k.id_document_front_url, k.id_document_back_url)));

-- ---------------------------------------------------------------------------
-- Admin reads need the access code, as admin functions do.
create or replace function public.is_admin() returns boolean
  language sql stable
  security definer
  set search_path = ''
as $$
  select exists (
    select 1 from public.user_roles r
    where r.user_id = (select auth.uid()) and r.role = 'admin'
  ) and app_private.mfa_satisfied((select auth.uid()))
    and public.admin_session_verified()
$$;
comment on function public.is_admin() is 'True when the signed-in caller (auth.uid()) has the admin role in user_roles, is at aal2 if they have a verified MFA factor, and their auth session passed the access code (admin_session_verified). Used by admin RLS policies (service_role bypasses them).';
