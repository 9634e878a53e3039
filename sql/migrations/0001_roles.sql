-- Roles the Supabase Postgres image provides. Roles are cluster-wide and every
-- test database lives in the same cluster, so each statement is idempotent.
--
--   anon           requests without a user (NOLOGIN)
--   authenticated  requests carrying a user's JWT (NOLOGIN)
--   service_role   trusted server-side callers; bypasses RLS because Postgres says so
--   authenticator  the login role rest/rpc/storage/realtime connect as; NOINHERIT,
--                  so it holds no privilege until it switches to one of the three
--   supabase_admin administrative login used by tooling
--   supabase_auth_admin, supabase_storage_admin  owners of the auth and storage schemas
do $$
begin
  begin create role anon nologin noinherit; exception when duplicate_object then null; end;
  begin create role authenticated nologin noinherit; exception when duplicate_object then null; end;
  begin create role service_role nologin noinherit bypassrls; exception when duplicate_object then null; end;
  begin create role authenticator login noinherit; exception when duplicate_object then null; end;
  begin create role supabase_admin login createrole createdb bypassrls; exception when duplicate_object then null; end;
  begin create role supabase_auth_admin login noinherit createrole; exception when duplicate_object then null; end;
  begin create role supabase_storage_admin login noinherit createrole; exception when duplicate_object then null; end;
end
$$;

-- Re-assert the attributes that matter for security even when the role
-- already existed (an older cluster may have been created differently).
alter role anon nologin;
alter role authenticated nologin;
alter role service_role nologin bypassrls;
alter role authenticator login noinherit;

grant anon, authenticated, service_role to authenticator;
grant anon, authenticated, service_role to supabase_storage_admin;
grant anon, authenticated, service_role to supabase_admin;

-- Supabase's statement timeouts per role: a runaway anonymous query cannot
-- hold a connection for long.
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
alter role authenticator set statement_timeout = '8s';
