package api

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A user loaded from a Supabase dump (NULLs where GoTrue's ORM leaves them,
// a pgcrypto bcrypt hash) signs in, and the admin API sees it.
func TestImportedUserSignsIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// crypt('password123', gen_salt('bf', 4)) from pgcrypto.
	_, err = conn.Exec(ctx, `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
		raw_app_meta_data, raw_user_meta_data, created_at, updated_at, confirmation_token, recovery_token, email_change_token_new, email_change)
		values ('00000000-0000-0000-0000-000000000000', 'a1b2c3d4-0000-4000-8000-000000000001', 'authenticated', 'authenticated',
		'Imported@Example.com', '$2a$04$yv41gx7.KK2YFIHWZnR.6./qauMez2Rvarb4OpsRki8aohi7mju8C', now(),
		'{"provider":"email","providers":["email"]}', '{"full_name":"Imported"}', now(), now(), NULL, NULL, NULL, NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	s := wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "imported@example.com", "password": "password123"}))
	if str(s, "user", "id") != "a1b2c3d4-0000-4000-8000-000000000001" || str(s, "user", "user_metadata", "full_name") != "Imported" {
		t.Fatalf("imported session %v", s["user"])
	}
	wantOK(t, e.do("GET", "/admin/users/a1b2c3d4-0000-4000-8000-000000000001", e.serviceKey(), nil))
	wantOK(t, e.do("PUT", "/user", str(s, "access_token"), map[string]any{"data": map[string]any{"x": 1}}))

	// Invite: a mail with an invite link; the link confirms the user.
	u := wantOK(t, e.do("POST", "/invite", e.serviceKey(), map[string]any{"email": "invitee@example.com"}))
	if u["invited_at"] == nil {
		t.Fatalf("invite %v", u)
	}
	code, link := e.lastMail("invitee@example.com")
	if code == "" || link == "" {
		t.Fatal("no invite code/link")
	}
	wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "invite", "email": "invitee@example.com", "token": code}))
	wantErr(t, e.do("POST", "/invite", e.serviceKey(), map[string]any{"email": "invitee@example.com"}), 422, "email_exists")

	// The audit trail has GoTrue's payloads.
	var n int
	if err := conn.QueryRow(ctx, `select count(*) from auth.audit_log_entries
		where payload->>'action' in ('login', 'user_modified', 'user_invited') and payload->>'actor_id' <> ''`).Scan(&n); err != nil || n < 3 {
		t.Errorf("audit entries = %d, %v", n, err)
	}
}
