package tests

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
)

// The demo data applies to a freshly migrated database the way `make run`
// applies it (each file once, in name order, in its own transaction, simple
// protocol), and the ledger invariants hold afterwards.
func TestSeedsApply(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := filepath.Join(pgtest.RepoRoot(), "sql", "seed")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, en := range entries {
		if strings.HasSuffix(en.Name(), ".sql") {
			files = append(files, en.Name())
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no seed files")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, name := range files {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, string(body), pgx.QueryExecModeSimpleProtocol); err != nil {
			_ = tx.Rollback(ctx)
			t.Fatalf("seed %s: %v", name, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatalf("commit %s: %v", name, err)
		}
	}
	e.checkLedger(t)

	counts := []struct {
		what string
		sql  string
		min  int64
	}{
		{"listings", `select (select count(*) from public.properties) + (select count(*) from public.lands)
			+ (select count(*) from public.products) + (select count(*) from public.service_providers)`, 300},
		{"active properties in every landing location", `select count(*) from unnest(array['Nairobi','Mombasa','Kisumu','Nakuru','Eldoret',
			'Westlands','Kilimani','Karen']) l where exists (select 1 from public.properties p where p.is_active and p.location ilike '%' || l || '%')`, 8},
		{"property types", `select count(distinct type) from public.properties`, 10},
		{"product categories", `select count(distinct category) from public.products`, 10},
		{"land types", `select count(distinct type) from public.lands`, 5},
		{"drone providers", `select count(*) from public.service_providers where category = 'Drone' and is_active`, 5},
		{"moving providers", `select count(*) from public.service_providers where category = 'Moving' and is_active`, 5},
		{"active offers", `select count(*) from public.p2p_offers where status = 'active'`, 20},
		{"trades", `select count(*) from public.p2p_trades`, 3},
		{"pending approvals", `select count(*) from public.properties where payment_status = 'pending'`, 1},
		{"pending KYC", `select count(*) from public.kyc_verifications where verification_status = 'pending'`, 1},
		{"users with coins", `select count(distinct user_id) from public.wallets where balance > 0`, 5},
		{"email identities", `select count(*) from auth.identities where provider = 'email'`, 3},
	}
	for _, c := range counts {
		if n := e.int64(t, c.sql); n < c.min {
			t.Errorf("%s: %d, want at least %d", c.what, n, c.min)
		}
	}

	// The printed logins work: the password matches and the roles are right.
	logins, err := os.ReadFile(filepath.Join(dir, "logins.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(logins)), "\n")
	if len(lines) < 3 {
		t.Fatalf("logins.txt has %d lines", len(lines))
	}
	for _, line := range lines {
		email, rest, found := strings.Cut(line, " / ")
		password, label, _ := strings.Cut(rest, "  ")
		if !found || password == "" {
			t.Fatalf("bad logins line %q", line)
		}
		var okPassword, confirmed bool
		var role string
		err := e.super.QueryRow(ctx, `select u.encrypted_password = extensions.crypt($2, u.encrypted_password), u.email_confirmed_at is not null, r.role
			from auth.users u join public.user_roles r on r.user_id = u.id where u.email = $1`, email, password).Scan(&okPassword, &confirmed, &role)
		if err != nil || !okPassword || !confirmed {
			t.Errorf("%s: password ok %v, confirmed %v, %v", email, okPassword, confirmed, err)
		}
		if wantAdmin := strings.Contains(label, "(admin)"); wantAdmin != (role == "admin") {
			t.Errorf("%s has role %s, label %q", email, role, label)
		}
	}
}
