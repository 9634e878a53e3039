-- Demo accounts (applied by `make run` only, never by migrations).
--
-- Three accounts you can sign in with (printed from logins.txt):
--   admin@kejanest.test  the administrator (role admin)
--   amina@kejanest.test  a landlord and seller in Nairobi
--   brian@kejanest.test  a buyer and P2P trader in Kisumu
-- plus demo owners whose listings fill the site; their passwords are random,
-- so nobody signs in as them.
--
-- Users are created the way Supabase Auth stores them (bcrypt passwords,
-- confirmed e-mail, an 'email' identity); the on_auth_user_created triggers
-- add each one's profile, 'user' role and wallets.

create function pg_temp.seed_user(p_id uuid, p_email text, p_password text, p_full_name text, p_phone text,
                                  p_created_at timestamptz)
  returns void
  language sql
as $$
  insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                          raw_app_meta_data, raw_user_meta_data, created_at, updated_at, last_sign_in_at)
  values ('00000000-0000-0000-0000-000000000000', p_id, 'authenticated', 'authenticated', p_email,
          extensions.crypt(p_password, extensions.gen_salt('bf', 10)), p_created_at,
          '{"provider":"email","providers":["email"]}'::jsonb,
          jsonb_strip_nulls(jsonb_build_object('full_name', p_full_name, 'phone_number', p_phone, 'email_verified', true)),
          p_created_at, p_created_at, null);
  insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
  values (p_id::text, p_id,
          jsonb_build_object('sub', p_id::text, 'email', p_email, 'email_verified', true, 'phone_verified', false),
          'email', null, p_created_at, p_created_at);
$$;

select pg_temp.seed_user(id::uuid, email, password, full_name, phone, now() - make_interval(days => age_days))
from (values
  ('0e5a0000-0000-4000-8000-000000000001', 'admin@kejanest.test', 'KejaNest-Admin-2024', 'KejaNest Admin', '0700000001', 240),
  ('0e5a0000-0000-4000-8000-000000000002', 'amina@kejanest.test', 'Amina-Demo-2024', 'Amina Wanjiru', '0712345678', 180),
  ('0e5a0000-0000-4000-8000-000000000003', 'brian@kejanest.test', 'Brian-Demo-2024', 'Brian Otieno', '0723456789', 150),
  ('0e5a0000-0000-4000-8000-000000000004', 'grace.achieng@kejanest.test', gen_random_uuid()::text, 'Grace Achieng', '0734567890', 140),
  ('0e5a0000-0000-4000-8000-000000000005', 'kevin.mutua@kejanest.test', gen_random_uuid()::text, 'Kevin Mutua', '0745678901', 120),
  ('0e5a0000-0000-4000-8000-000000000006', 'fatuma.hassan@kejanest.test', gen_random_uuid()::text, 'Fatuma Hassan', '0756789012', 110),
  ('0e5a0000-0000-4000-8000-000000000007', 'peter.kiprop@kejanest.test', gen_random_uuid()::text, 'Peter Kiprop', '0767890123', 95),
  ('0e5a0000-0000-4000-8000-000000000008', 'janet.njeri@kejanest.test', gen_random_uuid()::text, 'Janet Njeri', '0778901234', 80),
  ('0e5a0000-0000-4000-8000-000000000009', 'omar.abdalla@kejanest.test', gen_random_uuid()::text, 'Omar Abdalla', '0789012345', 60),
  ('0e5a0000-0000-4000-8000-00000000000a', 'mercy.chebet@kejanest.test', gen_random_uuid()::text, 'Mercy Chebet', '0790123456', 45)
) as u(id, email, password, full_name, phone, age_days);

update public.user_roles set role = 'admin' where user_id = '0e5a0000-0000-4000-8000-000000000001';

-- Contact verification state.
insert into public.user_verifications (user_id, email_verified, phone_verified)
values ('0e5a0000-0000-4000-8000-000000000001', true, true),
       ('0e5a0000-0000-4000-8000-000000000002', true, true),
       ('0e5a0000-0000-4000-8000-000000000003', true, false),
       ('0e5a0000-0000-4000-8000-000000000004', true, false);

-- KYC submissions: one approved, several waiting for the admin, one rejected.
insert into public.kyc_verifications (user_id, id_type, id_number, physical_address, photo_url,
                                      id_document_front_url, id_document_back_url, verification_status,
                                      admin_notes, reviewed_by, reviewed_at, created_at)
values
  ('0e5a0000-0000-4000-8000-000000000002', 'National ID', '28765431', 'Argwings Kodhek Rd, Kilimani, Nairobi',
   '', '', '', 'approved', 'Documents match the profile.', '0e5a0000-0000-4000-8000-000000000001', now() - interval '170 days',
   now() - interval '175 days'),
  ('0e5a0000-0000-4000-8000-000000000003', 'National ID', '31298744', 'Oginga Odinga St, Milimani, Kisumu',
   '', '', '', 'pending', null, null, null, now() - interval '2 days'),
  ('0e5a0000-0000-4000-8000-000000000004', 'Passport', 'AK0458812', 'Nyali Rd, Mombasa',
   '', '', '', 'pending', null, null, null, now() - interval '1 day'),
  ('0e5a0000-0000-4000-8000-000000000005', 'National ID', '25011987', 'Thika Rd, Roysambu, Nairobi',
   '', '', '', 'pending', null, null, null, now() - interval '5 hours'),
  ('0e5a0000-0000-4000-8000-000000000007', 'Driving Licence', 'DL-4471209', 'Uganda Rd, Eldoret',
   '', '', '', 'rejected', 'The ID photo is blurred; please upload a clearer copy.', '0e5a0000-0000-4000-8000-000000000001',
   now() - interval '20 days', now() - interval '25 days');

-- One suspended account for the admin's user list.
select set_config('request.jwt.claims', '{"role":"service_role"}', true);
select public.suspend_user('0e5a0000-0000-4000-8000-00000000000a', '0e5a0000-0000-4000-8000-000000000001', '30_days',
                           'Repeated duplicate listings');
