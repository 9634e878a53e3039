package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/migrate"
	"github.com/kejanest/kejanest/platform/pgtest"
)

// newEnvBefore is newEnv on a database migrated only up to the migration
// before version, so a test can build the state an older release left and
// then run the newer migrations over it (applyAll).
func newEnvBefore(t *testing.T, version int) *env {
	t.Helper()
	all, err := migrate.Load(os.DirFS(migrationsDir()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, m := range all {
		if m.Version < version {
			if err := os.WriteFile(filepath.Join(dir, m.Name), []byte(m.SQL), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return newEnvWith(t, pgtest.Options{MigrationsDir: dir})
}

func migrationsDir() string { return filepath.Join(pgtest.RepoRoot(), "sql", "migrations") }

// applyAll runs every migration the database lacks, as `make run` does on
// an upgrade, and returns the names applied.
func (e *env) applyAll(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	migs, err := migrate.Load(os.DirFS(migrationsDir()))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, e.db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	res, err := migrate.Apply(ctx, conn, migs)
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	return res.Applied
}

// TestDeletedUserLeftoversBackfill deletes users with the admin function
// of 0032 (which left a pending KYC submission in the review queue and
// the passkeys in place), then upgrades. 0034 rejects the submissions of
// users deleted earlier and removes their passkeys; other users' are
// untouched, a deleted user's reviewed submission keeps its verdict, and
// the listing a deleted user had awaiting review stays in the queue (the
// migration leaves it to the admins).
func TestDeletedUserLeftoversBackfill(t *testing.T) {
	t.Parallel()
	e := newEnvBefore(t, 34)
	admin := e.newAdmin(t, "Upgrade Admin")
	pending := e.newUser(t, "Pending Leaver")
	reviewed := e.newUser(t, "Reviewed Leaver")
	staying := e.newUser(t, "Staying User")

	kyc := map[user]string{}
	for i, u := range []user{pending, reviewed, staying} {
		var id string
		e.value(t, u.caller(), &id, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', $2) returning id::text`,
			u.ID, strings.Repeat(string(rune('1'+i)), 8))
		kyc[u] = id
		e.mustSuper(t, `insert into auth.webauthn_credentials (id, user_id, credential_id, credential) values (gen_random_uuid(), $1, $2, '{}')`,
			u.ID, []byte{byte(i + 1)})
	}
	ok(t, e.run(admin.caller(), `select public.process_kyc_verification($1, $2, 'approved', null)`, kyc[reviewed], admin.ID))
	e.issue(t, pending, "nestcoins", 5000)
	var listing string
	e.value(t, pending.caller(), &listing, `insert into public.properties (user_id, title, type, purpose, price, location)
		values ($1, 'Bedsitter', 'Bedsitter', 'Rent', 9000, 'Roysambu') returning id::text`, pending.ID)
	ok(t, e.run(pending.caller(), `select public.publish_listing('property', $1, 3)`, listing))
	listingState := func() string {
		var s string
		e.scalar(t, &s, `select payment_status || ' ' || pending_fee || ' ' || is_active from public.properties where id = $1`, listing)
		return s
	}
	for _, u := range []user{pending, reviewed} {
		ok(t, e.run(admin.caller(), `select public.admin_delete_user($1, null)`, u.ID))
	}
	status := func(id string) (status, notes string) {
		e.scalar(t, &status, `select verification_status from public.kyc_verifications where id = $1`, id)
		e.scalar(t, &notes, `select coalesce(admin_notes, '') from public.kyc_verifications where id = $1`, id)
		return status, notes
	}
	if s, _ := status(kyc[pending]); s != "pending" {
		t.Fatalf("before the upgrade the deleted user's submission is %s; this test no longer starts from 0032's leftovers", s)
	}
	listingBefore := listingState()

	if applied := e.applyAll(t); !slices.ContainsFunc(applied, func(n string) bool { return strings.HasPrefix(n, "0034_") }) {
		t.Fatalf("the upgrade applied %v, not 0034", applied)
	}

	for u, want := range map[user][2]string{
		pending:  {"rejected", "Account deleted"},
		reviewed: {"approved", ""},
		staying:  {"pending", ""},
	} {
		if s, n := status(kyc[u]); s != want[0] || n != want[1] {
			t.Errorf("%s's submission after the upgrade: %s %q, want %s %q", u.Email, s, n, want[0], want[1])
		}
	}
	for u, want := range map[user]int64{pending: 0, reviewed: 0, staying: 1} {
		if n := e.int64(t, `select count(*) from auth.webauthn_credentials where user_id = $1`, u.ID); n != want {
			t.Errorf("%s has %d passkeys after the upgrade, want %d", u.Email, n, want)
		}
	}
	if after := listingState(); after != listingBefore || !strings.HasPrefix(after, "pending ") {
		t.Errorf("the deleted user's listing awaiting review went from %q to %q in the upgrade, want it left pending for the admins", listingBefore, after)
	}
}
