package sweeps

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// A listing whose paid period has lapsed is deactivated by the sweep, run
// through the same login and role the stack uses; a current one is kept.
func TestOnceDeactivatesLapsedListings(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const owner = "0b5e7a52-0000-4000-8000-0000000000a1"
	if _, err := admin.Exec(ctx, `insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
		values ($1, 'authenticated', 'authenticated', 'sweep@kejanest.test', '{}', now(), now())`, owner); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `insert into public.properties (user_id, title, price, is_active, payment_status, paid_until) values
		($1, 'lapsed', 10000, true, 'paid', now() - interval '1 minute'),
		($1, 'current', 10000, true, 'paid', now() + interval '1 day')`, owner); err != nil {
		t.Fatal(err)
	}
	counts, err := Once(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]int
	if err := json.Unmarshal([]byte(counts), &got); err != nil {
		t.Fatalf("counts %q: %v", counts, err)
	}
	if got["listings"] != 1 {
		t.Errorf("listings swept = %d, want 1 (counts %s)", got["listings"], counts)
	}
	rows, err := admin.Query(ctx, "select title, is_active from public.properties order by title")
	if err != nil {
		t.Fatal(err)
	}
	active := map[string]bool{}
	for rows.Next() {
		var title string
		var on bool
		if err := rows.Scan(&title, &on); err != nil {
			t.Fatal(err)
		}
		active[title] = on
	}
	if active["lapsed"] || !active["current"] {
		t.Errorf("after the sweep: %v, want lapsed off and current on", active)
	}
}

// Two sweepers on one database (replicas): while one holds the sweep, the
// other skips its tick instead of sweeping the same rows a second time.
func TestOnceSkipsWhileAnotherSweeps(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, lockKey); err != nil {
		t.Fatal(err)
	}
	counts, err := Once(ctx, db.URLAs("authenticator"))
	if err != nil || counts != Skipped {
		t.Fatalf("while another sweeps: %q, %v; want %q", counts, err, Skipped)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	counts, err = Once(ctx, db.URLAs("authenticator"))
	if err != nil || counts == Skipped {
		t.Fatalf("alone: %q, %v; want the counts", counts, err)
	}
}
