-- The tables of Supabase Auth, column for column as a Supabase project has
-- them, so that a dump of a real project's `auth` schema loads here and its
-- users sign in (bcrypt hashes in encrypted_password are verified as-is).
-- authsvc is the only writer; the API roles get no privileges on them, and
-- the app reads what it needs through its own tables and functions.

do $$
begin
  begin create type auth.aal_level as enum ('aal1', 'aal2', 'aal3'); exception when duplicate_object then null; end;
  begin create type auth.factor_type as enum ('totp', 'webauthn', 'phone'); exception when duplicate_object then null; end;
  begin create type auth.factor_status as enum ('unverified', 'verified'); exception when duplicate_object then null; end;
  begin create type auth.code_challenge_method as enum ('s256', 'plain'); exception when duplicate_object then null; end;
  begin create type auth.one_time_token_type as enum (
    'confirmation_token', 'reauthentication_token', 'recovery_token',
    'email_change_token_new', 'email_change_token_current', 'phone_change_token');
  exception when duplicate_object then null; end;
end
$$;

create table auth.instances (
  id uuid primary key,
  uuid uuid,
  raw_base_config text,
  created_at timestamptz,
  updated_at timestamptz
);

create table auth.users (
  instance_id uuid,
  id uuid primary key,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255) default '',
  confirmation_sent_at timestamptz,
  recovery_token varchar(255) default '',
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255) default '',
  email_change varchar(255) default '',
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0 check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false
);
-- Emails are unique among real (non-SSO) accounts, case-insensitively.
create unique index users_email_partial_key on auth.users (email) where is_sso_user = false;
create index users_instance_id_email_idx on auth.users (instance_id, lower(email::text));
create index users_is_anonymous_idx on auth.users (is_anonymous);
comment on table auth.users is 'Auth: one row per user account (Supabase Auth layout).';
comment on column auth.users.banned_until is 'While in the future the user cannot sign in or refresh (suspensions set it).';

create table auth.identities (
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  id uuid primary key default gen_random_uuid(),
  constraint identities_provider_id_provider_unique unique (provider_id, provider)
);
create index identities_user_id_idx on auth.identities (user_id);
create index identities_email_idx on auth.identities (email text_pattern_ops);
comment on table auth.identities is 'Auth: identities (email, phone, google, ...) linked to a user.';

create table auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz,
  updated_at timestamptz,
  factor_id uuid,
  aal auth.aal_level,
  not_after timestamptz,
  refreshed_at timestamp,
  user_agent text,
  ip inet,
  tag text
);
create index sessions_user_id_idx on auth.sessions (user_id);
create index sessions_not_after_idx on auth.sessions (not_after desc);
comment on table auth.sessions is 'Auth: one row per signed-in session.';

create table auth.refresh_tokens (
  instance_id uuid,
  id bigserial primary key,
  token varchar(255) unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz,
  updated_at timestamptz,
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);
create index refresh_tokens_instance_id_user_id_idx on auth.refresh_tokens (instance_id, user_id);
create index refresh_tokens_parent_idx on auth.refresh_tokens (parent);
create index refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);
create index refresh_tokens_updated_at_idx on auth.refresh_tokens (updated_at desc);
comment on table auth.refresh_tokens is 'Auth: refresh tokens, rotated on use; parent links each to its predecessor.';

create table auth.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type auth.factor_type not null,
  status auth.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  secret text,
  phone text,
  last_challenged_at timestamptz unique,
  web_authn_credential jsonb,
  web_authn_aaguid uuid
);
create unique index mfa_factors_user_friendly_name_unique on auth.mfa_factors (friendly_name, user_id) where trim(friendly_name) <> '';
create unique index unique_phone_factor_per_user on auth.mfa_factors (user_id, phone);
create index factor_id_created_at_idx on auth.mfa_factors (user_id, created_at);
comment on table auth.mfa_factors is 'Auth: second factors (TOTP, phone) enrolled by users.';

create table auth.mfa_challenges (
  id uuid primary key,
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null,
  verified_at timestamptz,
  ip_address inet not null,
  otp_code text,
  web_authn_session_data jsonb
);
create index mfa_challenge_created_at_idx on auth.mfa_challenges (created_at desc);
comment on table auth.mfa_challenges is 'Auth: challenges issued against a factor, verified once.';

create table auth.mfa_amr_claims (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid primary key,
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);
comment on table auth.mfa_amr_claims is 'Auth: the authentication methods (amr) of each session.';

create table auth.one_time_tokens (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type auth.one_time_token_type not null,
  token_hash text not null check (char_length(token_hash) > 0),
  relates_to text not null,
  created_at timestamp not null default now(),
  updated_at timestamp not null default now(),
  unique (user_id, token_type)
);
create index one_time_tokens_token_hash_hash_idx on auth.one_time_tokens using hash (token_hash);
create index one_time_tokens_relates_to_hash_idx on auth.one_time_tokens using hash (relates_to);
comment on table auth.one_time_tokens is 'Auth: hashed one-time tokens (confirmation, recovery, email/phone change).';

create table auth.flow_state (
  id uuid primary key,
  user_id uuid,
  auth_code text not null,
  code_challenge_method auth.code_challenge_method not null,
  code_challenge text not null,
  provider_type text not null,
  provider_access_token text,
  provider_refresh_token text,
  created_at timestamptz,
  updated_at timestamptz,
  authentication_method text not null,
  auth_code_issued_at timestamptz
);
create index idx_auth_code on auth.flow_state (auth_code);
create index idx_user_id_auth_method on auth.flow_state (user_id, authentication_method);
comment on table auth.flow_state is 'Auth: PKCE and OAuth flow state.';

create table auth.audit_log_entries (
  instance_id uuid,
  id uuid primary key,
  payload json,
  created_at timestamptz,
  ip_address varchar(64) not null default ''
);
create index audit_logs_instance_id_idx on auth.audit_log_entries (instance_id);
comment on table auth.audit_log_entries is 'Auth: audit trail of account actions.';

-- authsvc connects as supabase_auth_admin and owns what it writes.
do $$
declare t text;
begin
  foreach t in array array['instances','users','identities','sessions','refresh_tokens','mfa_factors',
                           'mfa_challenges','mfa_amr_claims','one_time_tokens','flow_state','audit_log_entries']
  loop
    execute format('alter table auth.%I owner to supabase_auth_admin', t);
  end loop;
end
$$;
alter sequence auth.refresh_tokens_id_seq owner to supabase_auth_admin;
alter type auth.aal_level owner to supabase_auth_admin;
alter type auth.factor_type owner to supabase_auth_admin;
alter type auth.factor_status owner to supabase_auth_admin;
alter type auth.code_challenge_method owner to supabase_auth_admin;
alter type auth.one_time_token_type owner to supabase_auth_admin;
