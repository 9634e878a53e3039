package tests

import (
	"context"
	"testing"
)

// auth.webauthn_credentials and auth.webauthn_challenges (0033) hold
// passkeys and their ceremonies: their constraints refuse what authsvc
// must never write, a user's deletion takes their passkeys along, and they
// are authsvc's alone: no API role may read them.
func TestAuthPasskeyTables(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	u := e.newUser(t, "Passkey Owner")
	insert := func(credID string, count int64) error {
		_, err := e.super.Exec(ctx, `insert into auth.webauthn_credentials (id, user_id, credential_id, credential, sign_count)
			values (gen_random_uuid(), $1, decode($2, 'hex'), '{}', $3)`, u.ID, credID, count)
		return err
	}
	if err := insert("0a0b0c", 0); err != nil {
		t.Fatalf("insert a passkey: %v", err)
	}
	for _, tc := range []struct {
		name, sql string
		args      []any
	}{
		{"duplicate credential id", `insert into auth.webauthn_credentials (id, user_id, credential_id, credential)
			values (gen_random_uuid(), $1, decode('0a0b0c', 'hex'), '{}')`, []any{u.ID}},
		{"negative sign count", `insert into auth.webauthn_credentials (id, user_id, credential_id, credential, sign_count)
			values (gen_random_uuid(), $1, decode('01', 'hex'), '{}', -1)`, []any{u.ID}},
		{"registration without a user", `insert into auth.webauthn_challenges (id, challenge_type, session_data, expires_at)
			values (gen_random_uuid(), 'registration', '{}', now())`, nil},
		{"authentication bound to a user", `insert into auth.webauthn_challenges (id, user_id, challenge_type, session_data, expires_at)
			values (gen_random_uuid(), $1, 'authentication', '{}', now())`, []any{u.ID}},
		{"unknown ceremony", `insert into auth.webauthn_challenges (id, challenge_type, session_data, expires_at)
			values (gen_random_uuid(), 'signup', '{}', now())`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := e.super.Exec(ctx, tc.sql, tc.args...); err == nil {
				t.Errorf("accepted")
			}
		})
	}
	e.mustSuper(t, `insert into auth.webauthn_challenges (id, user_id, challenge_type, session_data, expires_at)
		values (gen_random_uuid(), $1, 'registration', '{}', now())`, u.ID)
	e.mustSuper(t, `delete from auth.users where id = $1`, u.ID)
	var left int
	e.scalar(t, &left, `select (select count(*) from auth.webauthn_credentials) + (select count(*) from auth.webauthn_challenges)`)
	if left != 0 {
		t.Errorf("%d rows outlive their user", left)
	}
	for _, table := range []string{"auth.webauthn_credentials", "auth.webauthn_challenges"} {
		for _, role := range []string{"anon", "authenticated", "service_role"} {
			var can bool
			if err := e.super.QueryRow(ctx, `select has_table_privilege($1, $2, 'select')`, role, table).Scan(&can); err != nil || can {
				t.Errorf("%s may select %s (%v)", role, table, err)
			}
		}
		var owner string
		var rls bool
		if err := e.super.QueryRow(ctx, `select pg_get_userbyid(relowner), relrowsecurity from pg_class where oid = $1::regclass`, table).Scan(&owner, &rls); err != nil ||
			owner != "supabase_auth_admin" || !rls {
			t.Errorf("%s: owner %q, rls %v (%v)", table, owner, rls, err)
		}
	}
}
