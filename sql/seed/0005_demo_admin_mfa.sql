-- The demo admin's second factor (issue 15: admin functions require aal2
-- when the admin has a verified factor; the demo admin shows how).
--
-- A verified TOTP factor with a fixed, published secret, stored the way
-- authsvc stores an enrolled factor (auth.mfa_factors.secret is the base32
-- secret it validates codes against: SHA-1, 6 digits, 30 s). Add it to an
-- authenticator app from logins.txt (the secret or the otpauth:// URI);
-- after the password, /admin/login asks for the 6-digit code.
--
--   secret  KEJANESTADMINDEMOTOTPSECRET23456
--   URI     otpauth://totp/KejaNest:admin%40kejanest.test?secret=KEJANESTADMINDEMOTOTPSECRET23456&issuer=KejaNest
--
-- Demo only: anyone who reads this file can compute the codes.
insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
values ('0e5a0000-0000-4000-8000-0000000000f1', '0e5a0000-0000-4000-8000-000000000001', 'Demo authenticator',
        'totp', 'verified', now() - interval '200 days', now() - interval '200 days',
        'KEJANESTADMINDEMOTOTPSECRET23456');
