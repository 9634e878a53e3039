-- Passkeys: discoverable WebAuthn credentials a user signs in with, no
-- password and no email (auth-js signInWithPasskey, registerPasskey,
-- auth.passkey.*, auth.admin.passkey.*; authsvc /passkeys/*). Apart from
-- the WebAuthn MFA factors of auth.mfa_factors: a passkey is a first
-- factor (aal1, amr "passkey"), not a second one.
--
-- auth.webauthn_credentials keeps one row per credential: the raw
-- credential id (unique: the authenticator names it, and a discoverable
-- login looks the user up by it), and the go-webauthn credential GoTrue
-- serialises (public key, attestation, flags, sign count) as jsonb, with the
-- sign count also in a column so a regression is refused in SQL too.
create table auth.webauthn_credentials (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  credential_id bytea not null constraint webauthn_credentials_credential_id_key unique,
  credential jsonb not null,
  sign_count bigint not null default 0 constraint webauthn_credentials_sign_count_check check (sign_count >= 0),
  aaguid uuid,
  friendly_name text constraint webauthn_credentials_friendly_name_length check (char_length(friendly_name) <= 120),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index webauthn_credentials_user_id_idx on auth.webauthn_credentials (user_id, created_at);
comment on table auth.webauthn_credentials is 'Auth: passkeys (discoverable WebAuthn credentials) users sign in with; authsvc''s alone.';
alter table auth.webauthn_credentials owner to supabase_auth_admin;
alter table auth.webauthn_credentials enable row level security;

-- auth.webauthn_challenges keeps the state of a begun ceremony until its
-- verify or its expiry: registration challenges belong to the signed-in
-- user, authentication challenges to nobody yet (the credential the
-- browser returns names the user). A challenge is consumed by its verify.
create table auth.webauthn_challenges (
  id uuid primary key,
  user_id uuid references auth.users (id) on delete cascade,
  challenge_type text not null constraint webauthn_challenges_challenge_type_check check (challenge_type in ('registration', 'authentication')),
  session_data jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  constraint webauthn_challenges_registration_user check ((challenge_type = 'registration') = (user_id is not null))
);
create index webauthn_challenges_expires_at_idx on auth.webauthn_challenges (expires_at);
comment on table auth.webauthn_challenges is 'Auth: passkey registration and authentication ceremonies in progress, consumed by their verify.';
alter table auth.webauthn_challenges owner to supabase_auth_admin;
alter table auth.webauthn_challenges enable row level security;
