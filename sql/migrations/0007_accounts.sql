-- Marketplace accounts: who the caller is (is_admin and the private caller
-- checks), profiles and roles created with every auth user, and e-mail/phone
-- verification (marketplace-spec §3, §5, §7).
--
-- Conventions of migrations 0007 onward (documented once, here):
--   * Every table enables RLS in the migration that creates it; policies are
--     named <table>_<action>_<who>; (select auth.uid()) is evaluated once.
--   * Columns a user must never set (roles, verification flags, KYC status,
--     balances, payment_status, ...) are protected by COLUMN PRIVILEGES: the
--     table-level INSERT/UPDATE granted by 0005's default privileges is revoked
--     from anon and authenticated and granted back column by column. They
--     change only inside SECURITY DEFINER functions, which check the caller.
--     Triggers add the few rules privileges cannot express.
--   * Business errors are raised with errcode P0001 (HTTP 400 through the REST
--     layer) and a message the app shows as-is; refusals of permission use
--     42501 (HTTP 403/401).
--   * SECURITY DEFINER functions set search_path = '' and qualify every name;
--     execute is revoked from public (and anon where it has no business).
--   * Private helpers live in schema app_private, which the API roles cannot
--     use: they are reachable only from SECURITY DEFINER functions. Trigger
--     functions that run as the caller therefore call only public helpers.

create extension if not exists pg_trgm with schema extensions;

create schema if not exists app_private;
revoke all on schema app_private from public;
comment on schema app_private is 'Internal helpers of the marketplace (caller checks, ledger postings, trigger functions); not exposed through the API.';

-- ---------------------------------------------------------------------------
-- Generic trigger: keep updated_at current.
create function app_private.set_updated_at() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
comment on function app_private.set_updated_at() is 'Trigger: sets updated_at to now() on every update.';

-- ---------------------------------------------------------------------------
-- Profiles: one per auth user (created by the trigger below).
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  full_name text,
  phone_number text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index profiles_created_at_idx on public.profiles (created_at desc);
comment on table public.profiles is 'Public profile of each user (spec §3 profiles): created with the auth user; the app lists them (admin) and embeds full_name into P2P offers.';
comment on column public.profiles.full_name is 'Display name; the app shows ''Unknown'' (admin) or ''User'' when null. At least 2 characters when set through the API.';
comment on column public.profiles.phone_number is 'Phone number; at least 10 digits when set through the API. Needed for phone verification.';

create trigger profiles_set_updated_at before update on public.profiles
  for each row execute function app_private.set_updated_at();

-- Spec §5 profile form rules, for writes that come through the API. Rows the
-- auth trigger copies from sign-up metadata are stored as given.
create function app_private.profiles_validate() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  -- Only writes made directly by an API role; trigger functions running as
  -- the caller cannot use app_private, so the test is inline.
  if current_user not in ('anon', 'authenticated') then
    return new;
  end if;
  new.full_name := nullif(btrim(new.full_name), '');
  new.phone_number := nullif(btrim(new.phone_number), '');
  if new.full_name is not null and char_length(new.full_name) < 2 then
    raise exception 'Name must be at least 2 characters' using errcode = 'P0001';
  end if;
  if new.phone_number is not null and char_length(regexp_replace(new.phone_number, '\D', '', 'g')) < 10 then
    raise exception 'Phone number must be at least 10 digits' using errcode = 'P0001';
  end if;
  return new;
end
$$;
comment on function app_private.profiles_validate() is 'Trigger: spec §5 profile rules (name >= 2 characters, phone >= 10 digits) for API writes.';
create trigger profiles_validate before insert or update on public.profiles
  for each row execute function app_private.profiles_validate();

-- ---------------------------------------------------------------------------
-- Roles: exactly one row per user; 'user' by default, 'admin' for the
-- administrator. The app reads it with .single().
create table public.user_roles (
  user_id uuid primary key references auth.users (id) on delete cascade,
  role text not null default 'user' constraint user_roles_role_check check (role in ('user', 'admin')),
  created_at timestamptz not null default now()
);
create index user_roles_admin_idx on public.user_roles (user_id) where role = 'admin';
comment on table public.user_roles is 'The role of each user (spec §3 user_roles): user (default) or admin. Users cannot grant themselves admin.';

-- The app inserts {user_id, role:'user'} right after sign-up although the
-- auth trigger already created that row; an identical row is skipped instead
-- of failing with a duplicate key, so sign-up does not report an error.
create function app_private.user_roles_skip_duplicate() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  if exists (select 1 from public.user_roles r where r.user_id = new.user_id and r.role = new.role) then
    return null;
  end if;
  return new;
end
$$;
comment on function app_private.user_roles_skip_duplicate() is 'Trigger: an insert identical to the existing role row is skipped (the app re-inserts the default role after sign-up).';
create trigger user_roles_skip_duplicate before insert on public.user_roles
  for each row execute function app_private.user_roles_skip_duplicate();

-- ---------------------------------------------------------------------------
-- Who is calling.
create function public.is_admin() returns boolean
  language sql stable
  security definer
  set search_path = ''
as $$
  select exists (
    select 1 from public.user_roles r
    where r.user_id = (select auth.uid()) and r.role = 'admin'
  )
$$;
comment on function public.is_admin() is 'True when the signed-in caller (auth.uid()) has the admin role in user_roles. Used by admin RLS policies.';
revoke execute on function public.is_admin() from public;
grant execute on function public.is_admin() to anon, authenticated, service_role;

create function app_private.is_service() returns boolean
  language sql stable
  set search_path = ''
as $$
  select coalesce(auth.role() = 'service_role', false)
$$;
comment on function app_private.is_service() is 'True when the request carries the service_role JWT (trusted server-side callers such as the payment adapter or seeds).';

-- The signed-in caller, refusing anonymous and suspended callers and anyone
-- claiming to act as somebody else. A service_role caller acts as p_claimed.
create function app_private.require_user(p_claimed uuid default null) returns uuid
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  if app_private.is_service() then
    if p_claimed is null then
      raise exception 'A user id is required' using errcode = 'P0001';
    end if;
    return p_claimed;
  end if;
  if v_uid is null then
    raise exception 'Not authenticated' using errcode = '42501', hint = 'Sign in first.';
  end if;
  if p_claimed is not null and p_claimed <> v_uid then
    raise exception 'You can only act on your own behalf' using errcode = '42501',
      detail = 'The user id in the request is not the signed-in user.';
  end if;
  if exists (select 1 from auth.users u where u.id = v_uid and u.banned_until > now()) then
    raise exception 'Your account is suspended' using errcode = '42501';
  end if;
  return v_uid;
end
$$;
comment on function app_private.require_user(uuid) is 'Returns the acting user: auth.uid() (which must equal p_claimed when given, and must not be suspended), or p_claimed for service_role callers.';

-- The admin calling, whatever any p_admin_id argument says. service_role is
-- trusted too (returns NULL then).
create function app_private.require_admin() returns uuid
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
  return v_uid;
end
$$;
comment on function app_private.require_admin() is 'Raises 42501 ''Admin privileges required'' unless the caller (auth.uid()) is an admin or the request is service_role; returns the admin''s id (NULL for service_role).';

-- ---------------------------------------------------------------------------
-- Every new auth user gets a profile (full name and phone from the sign-up
-- metadata) and the 'user' role. The role in the metadata is never trusted.
create function app_private.handle_new_auth_user() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  insert into public.profiles (id, full_name, phone_number, created_at)
  values (new.id,
          nullif(btrim(new.raw_user_meta_data ->> 'full_name'), ''),
          nullif(btrim(new.raw_user_meta_data ->> 'phone_number'), ''),
          coalesce(new.created_at, now()))
  on conflict (id) do nothing;
  insert into public.user_roles (user_id, role) values (new.id, 'user')
  on conflict (user_id) do nothing;
  return new;
end
$$;
comment on function app_private.handle_new_auth_user() is 'Trigger on auth.users insert: creates the profile (full_name, phone_number from raw_user_meta_data) and the user role row.';
create trigger on_auth_user_created after insert on auth.users
  for each row execute function app_private.handle_new_auth_user();

-- Metadata updates (PUT /auth/v1/user {data:{full_name, phone_number}}) are
-- mirrored into the profile, which is what the admin screens read.
create function app_private.handle_auth_user_metadata() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_name text := nullif(btrim(new.raw_user_meta_data ->> 'full_name'), '');
  v_phone text := nullif(btrim(new.raw_user_meta_data ->> 'phone_number'), '');
begin
  update public.profiles p
     set full_name = coalesce(v_name, p.full_name),
         phone_number = coalesce(v_phone, p.phone_number)
   where p.id = new.id
     and (p.full_name is distinct from coalesce(v_name, p.full_name)
          or p.phone_number is distinct from coalesce(v_phone, p.phone_number));
  return new;
end
$$;
comment on function app_private.handle_auth_user_metadata() is 'Trigger on auth.users metadata update: copies full_name and phone_number into the profile.';
create trigger on_auth_user_metadata_updated after update of raw_user_meta_data on auth.users
  for each row when (old.raw_user_meta_data is distinct from new.raw_user_meta_data)
  execute function app_private.handle_auth_user_metadata();

-- ---------------------------------------------------------------------------
-- Profiles: privileges and policies.
alter table public.profiles enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.profiles from anon;
revoke insert, update, truncate, references, trigger on public.profiles from authenticated;
grant insert (id, full_name, phone_number) on public.profiles to authenticated;
grant update (full_name, phone_number) on public.profiles to authenticated;

create policy profiles_select_owner on public.profiles for select to authenticated
  using (id = (select auth.uid()));
create policy profiles_select_admin on public.profiles for select to authenticated
  using ((select public.is_admin()));
create policy profiles_insert_owner on public.profiles for insert to authenticated
  with check (id = (select auth.uid()));
create policy profiles_update_owner on public.profiles for update to authenticated
  using (id = (select auth.uid())) with check (id = (select auth.uid()));
create policy profiles_update_admin on public.profiles for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy profiles_delete_admin on public.profiles for delete to authenticated
  using ((select public.is_admin()));
-- profiles_select_trader (names of P2P counterparties) is added with the P2P tables.

-- Roles.
alter table public.user_roles enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.user_roles from anon;
revoke truncate, references, trigger on public.user_roles from authenticated;

create policy user_roles_select_owner on public.user_roles for select to authenticated
  using (user_id = (select auth.uid()));
create policy user_roles_select_admin on public.user_roles for select to authenticated
  using ((select public.is_admin()));
create policy user_roles_insert_owner on public.user_roles for insert to authenticated
  with check (user_id = (select auth.uid()) and role = 'user');
create policy user_roles_insert_admin on public.user_roles for insert to authenticated
  with check ((select public.is_admin()));
create policy user_roles_update_admin on public.user_roles for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy user_roles_delete_admin on public.user_roles for delete to authenticated
  using ((select public.is_admin()));

-- ---------------------------------------------------------------------------
-- Contact verification (spec §3 user_verifications, §5, §8). Codes are made
-- and checked by the server: the columns are readable by their owner but
-- written only by request_verification_code / verify_contact_code, and the
-- code is stored as a bcrypt hash.
create table public.user_verifications (
  user_id uuid primary key references auth.users (id) on delete cascade,
  email_verified boolean not null default false,
  phone_verified boolean not null default false,
  email_verification_code text,
  email_verification_expires_at timestamptz,
  email_verification_attempts integer not null default 0,
  phone_verification_code text,
  phone_verification_expires_at timestamptz,
  phone_verification_attempts integer not null default 0,
  updated_at timestamptz not null default now()
);
comment on table public.user_verifications is 'E-mail and phone verification state per user (spec §3). Written only by request_verification_code and verify_contact_code.';
comment on column public.user_verifications.email_verification_code is 'bcrypt hash of the pending six-digit e-mail code (never the code itself).';
comment on column public.user_verifications.phone_verification_code is 'bcrypt hash of the pending six-digit phone code (never the code itself).';

alter table public.user_verifications enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.user_verifications from anon, authenticated;

create policy user_verifications_select_owner on public.user_verifications for select to authenticated
  using (user_id = (select auth.uid()));
create policy user_verifications_select_admin on public.user_verifications for select to authenticated
  using ((select public.is_admin()));

create function public.request_verification_code(p_channel text) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_dest text;
  v_code text;
  v_expires timestamptz := now() + interval '10 minutes';
begin
  if p_channel = 'email' then
    select u.email into v_dest from auth.users u where u.id = v_uid;
  elsif p_channel = 'phone' then
    select p.phone_number into v_dest from public.profiles p where p.id = v_uid;
    if v_dest is null then
      raise exception 'Please update your phone number in profile first' using errcode = 'P0001';
    end if;
  else
    raise exception 'Channel must be email or phone' using errcode = 'P0001';
  end if;
  if v_dest is null then
    raise exception 'Failed to send verification code' using errcode = 'P0001', detail = 'The account has no e-mail address.';
  end if;
  v_code := lpad(((('x' || encode(extensions.gen_random_bytes(4), 'hex'))::bit(32)::bigint % 1000000))::text, 6, '0');
  insert into public.user_verifications as v (user_id) values (v_uid) on conflict (user_id) do nothing;
  if p_channel = 'email' then
    update public.user_verifications
       set email_verification_code = extensions.crypt(v_code, extensions.gen_salt('bf', 8)),
           email_verification_expires_at = v_expires, email_verification_attempts = 0, updated_at = now()
     where user_id = v_uid;
  else
    update public.user_verifications
       set phone_verification_code = extensions.crypt(v_code, extensions.gen_salt('bf', 8)),
           phone_verification_expires_at = v_expires, phone_verification_attempts = 0, updated_at = now()
     where user_id = v_uid;
  end if;
  -- Until a mailer/SMS sender delivers it, the code goes back to the app,
  -- which shows 'Verification code sent to {email}: {token}' (spec §8).
  return jsonb_build_object('channel', p_channel, 'destination', v_dest, 'code', v_code, 'expires_at', v_expires);
end
$$;
comment on function public.request_verification_code(text) is 'Creates a six-digit code valid 10 minutes for the caller''s e-mail or phone (p_channel ''email''|''phone''); returns {channel, destination, code, expires_at}.';
revoke execute on function public.request_verification_code(text) from public, anon;
grant execute on function public.request_verification_code(text) to authenticated, service_role;

create function public.verify_contact_code(p_channel text, p_code text) returns boolean
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_row public.user_verifications;
  v_hash text;
  v_expires timestamptz;
  v_attempts integer;
begin
  if p_channel not in ('email', 'phone') or p_channel is null then
    raise exception 'Channel must be email or phone' using errcode = 'P0001';
  end if;
  select * into v_row from public.user_verifications where user_id = v_uid for update;
  if p_channel = 'email' then
    v_hash := v_row.email_verification_code; v_expires := v_row.email_verification_expires_at; v_attempts := v_row.email_verification_attempts;
  else
    v_hash := v_row.phone_verification_code; v_expires := v_row.phone_verification_expires_at; v_attempts := v_row.phone_verification_attempts;
  end if;
  if v_hash is null then
    raise exception 'No verification code found. Please request a new one.' using errcode = 'P0001';
  end if;
  if v_expires <= now() then
    raise exception 'Verification code has expired. Please request a new one.' using errcode = 'P0001';
  end if;
  if p_code is null or extensions.crypt(btrim(p_code), v_hash) <> v_hash then
    -- Five wrong guesses burn the code.
    if p_channel = 'email' then
      update public.user_verifications
         set email_verification_attempts = email_verification_attempts + 1,
             email_verification_code = case when email_verification_attempts + 1 >= 5 then null else email_verification_code end,
             updated_at = now()
       where user_id = v_uid;
    else
      update public.user_verifications
         set phone_verification_attempts = phone_verification_attempts + 1,
             phone_verification_code = case when phone_verification_attempts + 1 >= 5 then null else phone_verification_code end,
             updated_at = now()
       where user_id = v_uid;
    end if;
    return false;  -- the row update must persist, so no exception here
  end if;
  if p_channel = 'email' then
    update public.user_verifications
       set email_verified = true, email_verification_code = null, email_verification_expires_at = null,
           email_verification_attempts = 0, updated_at = now()
     where user_id = v_uid;
  else
    update public.user_verifications
       set phone_verified = true, phone_verification_code = null, phone_verification_expires_at = null,
           phone_verification_attempts = 0, updated_at = now()
     where user_id = v_uid;
  end if;
  return true;
end
$$;
comment on function public.verify_contact_code(text, text) is 'Checks the caller''s code for p_channel; true marks the e-mail/phone verified, false means ''Invalid verification code'' (five misses burn the code). Missing/expired codes raise the spec §8 messages.';
revoke execute on function public.verify_contact_code(text, text) from public, anon;
grant execute on function public.verify_contact_code(text, text) to authenticated, service_role;
