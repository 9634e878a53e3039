package tests

import (
	"context"
	"testing"
)

// auth.oauth_clients (0031) has Supabase Auth's columns and types, so that a
// row as GoTrue writes it (comma-separated lists, its enums) loads as is,
// and it is authsvc's alone: no API role may read it.
func TestAuthOAuthClientsTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	// The column list and values of a data-only dump's COPY block.
	if _, err := e.super.Exec(ctx, `insert into auth.oauth_clients (id, client_secret_hash, registration_type, redirect_uris, grant_types,
		client_name, client_uri, logo_uri, created_at, updated_at, deleted_at, client_type, token_endpoint_auth_method)
		values ('3f1e2d4c-5b6a-4798-8a9b-0c1d2e3f4a5b', null, 'dynamic', 'https://a.example/cb,http://localhost:3000/cb',
		'authorization_code,refresh_token', 'CLI', null, null, '2025-10-01 00:00:00+00', '2025-10-01 00:00:00+00', null, 'public', 'none')`); err != nil {
		t.Fatalf("load a GoTrue row: %v", err)
	}
	var uris []string
	if err := e.super.QueryRow(ctx, `select string_to_array(redirect_uris, ',') from auth.oauth_clients where client_type = 'public' and registration_type = 'dynamic'`).Scan(&uris); err != nil || len(uris) != 2 {
		t.Fatalf("redirect uris %v (%v)", uris, err)
	}
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		var can bool
		if err := e.super.QueryRow(ctx, `select has_table_privilege($1, 'auth.oauth_clients', 'select')`, role).Scan(&can); err != nil || can {
			t.Errorf("%s may select auth.oauth_clients (%v)", role, err)
		}
	}
	var owner string
	var rls bool
	if err := e.super.QueryRow(ctx, `select pg_get_userbyid(relowner), relrowsecurity from pg_class where oid = 'auth.oauth_clients'::regclass`).Scan(&owner, &rls); err != nil ||
		owner != "supabase_auth_admin" || !rls {
		t.Errorf("owner %q, rls %v (%v)", owner, rls, err)
	}
}
