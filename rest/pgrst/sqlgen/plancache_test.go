package sqlgen_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/exec"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// TestPagesKeepGenericPlans runs paged reads with equality filters more
// often than PostgreSQL's switch to a generic plan (five executions) on
// one session and reads how their kept statements were planned. What the
// server writes into the text (the page's LIMIT and OFFSET, the
// count=estimated limit, a boolean's true or false) must leave a generic plan that PostgreSQL keeps:
// with LIMIT $n the generic plan assumes a tenth of the table, looks
// dearer than the custom plans, and every execution is planned again.
func TestPagesKeepGenericPlans(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", "rest.sql")}})
	ctx := context.Background()
	// Enough rows that a tenth of the matches (the generic plan's guess at
	// LIMIT $n) is more than the count=estimated limit.
	admin, err := pgxpool.New(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	_, err = admin.Exec(ctx, `create table library.plan_rows (id int primary key, grp int not null, title text not null, active boolean not null);
		insert into library.plan_rows select g, g % 2, 'row ' || g, g % 4 <> 0 from generate_series(1, 50000) g;
		create index on library.plan_rows (grp, id);
		create index on library.plan_rows (id) where active;
		analyze library.plan_rows;
		grant select on library.plan_rows to service_role`)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1 // every Run and the check share one session
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	h := schemacache.NewHolder(pool, schemas, nil)
	if err := h.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	cache := h.Get()
	pre := sqlgen.Preamble([][2]string{{"search_path", `"library", "public"`}, {"role", "service_role"}, {"request.jwt.claims", `{"role":"service_role"}`}})
	tests := []golden{
		{name: "page", target: "/plan_rows?select=id,title&grp=eq.1&order=id&offset=12&limit=12"},
		{name: "page, estimated count", target: "/plan_rows?select=id,title&grp=eq.1&order=id&offset=0&limit=12", headers: hdr("Prefer", "count=estimated")},
		{name: "page, exact count", target: "/plan_rows?select=id,title&grp=eq.1&order=id&limit=12", headers: hdr("Prefer", "count=exact")},
		// A boolean filter matching a partial index's predicate.
		{name: "partial index, estimated count", target: "/plan_rows?select=id,title&active=eq.true&order=id&limit=12", headers: hdr("Prefer", "count=estimated")},
	}
	for _, g := range tests {
		t.Run(g.name, func(t *testing.T) {
			main, _, _, err := build(cache, g)
			if err != nil {
				t.Fatal(err)
			}
			for range 8 {
				if _, err := exec.Run(ctx, pool, exec.Tx{ReadOnly: true, Preamble: pre, Main: main}); err != nil {
					t.Fatal(err)
				}
			}
			var generic, custom int64
			err = pool.QueryRow(ctx, `select generic_plans, custom_plans from pg_prepared_statements where statement = $1`, main.SQL).Scan(&generic, &custom)
			if err != nil {
				t.Fatalf("find the kept statement: %v\n%s", err, main.SQL)
			}
			if generic == 0 || generic+custom != 8 {
				t.Errorf("%d generic and %d custom plans in 8 executions; want the generic plan kept\n%s", generic, custom, main.SQL)
			}
		})
	}
}
