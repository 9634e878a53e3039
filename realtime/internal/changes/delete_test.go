package changes

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/realtime/internal/auth"
)

// A DELETE reaches only the subscribers who could have read the deleted
// row: on a table under row security for their role, its SELECT policies
// must pass on the old record under their role and claims.
func TestDeleteVisibility(t *testing.T) {
	t.Parallel()
	const (
		alice = "11111111-1111-1111-1111-111111111111" // owns the rows
		bob   = "22222222-2222-2222-2222-222222222222" // another signed-in user
		carol = "33333333-3333-3333-3333-333333333333" // an admin
		// carolSession is carol's sign-in session, which passed the access code.
		carolSession = "33333333-5e55-4000-8000-333333333333"
	)
	users := `insert into auth.users (id, aud, role, email) values
	  ('` + alice + `', 'authenticated', 'authenticated', 'alice@example.com'),
	  ('` + bob + `', 'authenticated', 'authenticated', 'bob@example.com'),
	  ('` + carol + `', 'authenticated', 'authenticated', 'carol@example.com');
	update public.user_roles set role = 'admin' where user_id = '` + carol + `';
	-- Admin reads ask for a session that passed the access code (0043).
	insert into auth.sessions (id, user_id, created_at, updated_at, aal) values ('` + carolSession + `', '` + carol + `', now(), now(), 'aal1');
	insert into app_private.admin_sessions (session_id, user_id) values ('` + carolSession + `', '` + carol + `')`
	everyone := []string{"owner", "other", "admin", "anon", "service_role", "table_owner"}
	tests := []struct {
		name   string
		table  string
		setup  string
		delete string
		want   []string // the subscribers that get the DELETE
	}{
		{
			// The migrations give kyc_verifications REPLICA IDENTITY FULL.
			name:   "kyc row: its owner and an admin, not another user nor anon",
			table:  "kyc_verifications",
			setup:  `insert into public.kyc_verifications (user_id, id_type, id_number) values ('` + alice + `', 'national_id', '12345678')`,
			delete: `delete from public.kyc_verifications`,
			want:   []string{"owner", "admin", "service_role"},
		},
		{
			name:  "kyc row without replica identity full: the owner policy sees no user_id",
			table: "kyc_verifications",
			setup: `alter table public.kyc_verifications replica identity default;
			  insert into public.kyc_verifications (user_id, id_type, id_number) values ('` + alice + `', 'national_id', '12345678')`,
			delete: `delete from public.kyc_verifications`,
			want:   []string{"admin", "service_role"},
		},
		{
			name:   "table without RLS: everyone",
			table:  "tags",
			setup:  `insert into public.tags values (1, 'x')`,
			delete: `delete from public.tags where id = 1`,
			want:   everyone,
		},
		{
			name:   "public doc: column privileges still trim anon's old record",
			table:  "docs",
			setup:  `insert into public.docs (id, is_public, secret) values (1, true, 's')`,
			delete: `delete from public.docs`,
			want:   []string{"owner", "other", "admin", "anon", "service_role"},
		},
		{
			name:   "own doc",
			table:  "docs",
			setup:  `insert into public.docs (id, owner, secret) values (1, '` + alice + `', 's')`,
			delete: `delete from public.docs`,
			want:   []string{"owner", "service_role"},
		},
		{
			name:   "restrictive policy for authenticated: an archived doc is hidden from users, not from anon",
			table:  "docs",
			setup:  `insert into public.docs (id, owner, is_public, archived) values (1, '` + alice + `', true, true)`,
			delete: `delete from public.docs`,
			want:   []string{"anon", "service_role"},
		},
		{
			name:   "restrictive policies are ANDed with the permissive ones",
			table:  "docs",
			setup:  `insert into public.docs (id, owner, is_public, region) values (1, '` + alice + `', true, 'hidden')`,
			delete: `delete from public.docs`,
			want:   []string{"service_role"},
		},
		{
			name:  "policy with a correlated subquery",
			table: "docs",
			setup: `insert into public.docs (id, owner) values (1, '` + alice + `'), (2, '` + alice + `');
			  insert into public.doc_shares values (1, '` + bob + `')`,
			delete: `delete from public.docs where id = 1`,
			want:   []string{"owner", "other", "service_role"},
		},
		{
			name:   "an UPDATE policy grants no read",
			table:  "docs",
			setup:  `insert into public.docs (id) values (1)`,
			delete: `delete from public.docs`,
			want:   []string{"service_role"},
		},
		{
			name:   "the table owner bypasses RLS",
			table:  "owned",
			setup:  `insert into public.owned values (1)`,
			delete: `delete from public.owned`,
			want:   []string{"service_role", "table_owner"},
		},
		{
			name:   "forced RLS binds the table owner too",
			table:  "forced",
			setup:  `insert into public.forced values (1)`,
			delete: `delete from public.forced`,
			want:   []string{"service_role"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			subs := map[string]*fakeSub{
				"owner":        {claims: userClaims(alice)},
				"other":        {claims: userClaims(bob)},
				"admin":        {claims: sessionClaims(carol, carolSession)},
				"anon":         {claims: anonClaims},
				"service_role": {claims: roleClaims("service_role")},
				"table_owner":  {claims: roleClaims("rt_test_owner")},
			}
			var all []Subscriber
			for _, name := range everyone {
				s := subs[name]
				s.subs = []Subscription{
					{ID: 1, Event: Delete, Schema: "public", Table: tt.table},
					{ID: 2, Event: Insert, Schema: "public", Table: "tags"},
				}
				all = append(all, s)
			}
			h := newHarness(t, all...)
			h.exec(t, users)
			h.exec(t, tt.setup)
			h.exec(t, tt.delete)
			// Changes are dispatched in commit order: once this insert has
			// reached everyone, so has the DELETE or it never will.
			h.exec(t, `insert into public.tags values (99, 'barrier')`)
			for _, name := range everyone {
				s := subs[name]
				waitFor(t, s, "INSERT tags 99")
				deletes := s.deletes(t)
				if got, want := len(deletes) > 0, slices.Contains(tt.want, name); got != want {
					t.Errorf("%s got the DELETE: %v, want %v (deliveries %q)", name, got, want, s.summary(t))
					continue
				}
				for _, d := range deletes {
					if len(d.Data.OldRecord) == 0 {
						t.Errorf("%s: empty old_record", name)
					}
					// Only anon may not select docs.secret.
					if _, got := d.Data.OldRecord["secret"]; tt.table == "docs" && got != (name != "anon") {
						t.Errorf("%s: old_record %s", name, d.Data.OldRecord)
					}
				}
			}
		})
	}
}

func roleClaims(role string) *auth.Claims {
	raw, _ := json.Marshal(map[string]any{"role": role, "exp": 4102444800})
	return &auth.Claims{Role: role, Raw: raw}
}

// deletes returns f's DELETE deliveries.
func (f *fakeSub) deletes(t *testing.T) []delivered {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []delivered
	for _, raw := range f.got {
		var d delivered
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("delivery %s: %v", raw, err)
		}
		if d.Data.Type == Delete {
			out = append(out, d)
		}
	}
	return out
}

// waitFor waits until f has been handed a delivery summarized as want.
func waitFor(t *testing.T, f *fakeSub, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if slices.Contains(f.summary(t), want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s among %s", want, strings.Join(f.summary(t), ", "))
}
