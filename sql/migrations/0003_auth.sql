-- The auth schema and the helpers that RLS policies use to read the caller.
-- rest, rpc, storage and realtime set request.jwt.claims (and the legacy
-- request.jwt.claim.sub / .role) with set_config(..., true) at the start of
-- every transaction. A custom setting once set on a pooled connection reads
-- back as '' afterwards, never NULL, hence the nullif calls.
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;
alter schema auth owner to supabase_auth_admin;

create or replace function auth.jwt() returns jsonb
  language sql stable
  set search_path = ''
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

create or replace function auth.uid() returns uuid
  language sql stable
  set search_path = ''
as $$
  select nullif(coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
  ), '')::uuid
$$;

create or replace function auth.role() returns text
  language sql stable
  set search_path = ''
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'
  )::text
$$;

create or replace function auth.email() returns text
  language sql stable
  set search_path = ''
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email'
  )::text
$$;

grant execute on function auth.jwt(), auth.uid(), auth.role(), auth.email() to anon, authenticated, service_role;
alter function auth.jwt() owner to supabase_auth_admin;
alter function auth.uid() owner to supabase_auth_admin;
alter function auth.role() owner to supabase_auth_admin;
alter function auth.email() owner to supabase_auth_admin;

comment on schema auth is 'Supabase Auth: users, sessions and the request helpers used by RLS policies.';
comment on function auth.jwt() is 'The verified JWT claims of the current request, or NULL.';
comment on function auth.uid() is 'The current user''s id (JWT sub), or NULL for anonymous requests.';
comment on function auth.role() is 'The JWT role of the current request (anon, authenticated, service_role).';
comment on function auth.email() is 'The JWT email claim of the current request, or NULL.';
