package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// round2Schemas are the exposed schemas of compat/fixtures/rest-round2.sql.
var round2Schemas = []string{"round2", "round2_extra"}

// newRound2Stack is an app over its own database holding the round-2
// fixture. mutate adjusts the pipeline's configuration (the environment's
// part); setup runs SQL as the superuser before the app starts (role
// settings of this database, functions).
func newRound2Stack(t testing.TB, mutate func(*pgrst.Config), setup ...string) (*stack, *pgrst.Handler) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", "rest-round2.sql")}})
	ctx := context.Background()
	if len(setup) > 0 {
		admin, err := pgxpool.New(ctx, db.URL)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range setup {
			if _, err := admin.Exec(ctx, q); err != nil {
				admin.Close()
				t.Fatalf("setup %q: %v", q, err)
			}
		}
		admin.Close()
	}
	cfg, err := pgxpool.ParseConfig(db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	pc := pgrst.Config{Schemas: round2Schemas, ExtraSearchPath: []string{"public", "extensions"}, AnonRole: "anon", MaxRows: 1000,
		TxEnd: pgrst.TxCommit, SafeUpdate: true, OpenAPIMode: pgrst.OpenAPIFollowPrivileges}
	if mutate != nil {
		mutate(&pc)
	}
	cache := schemacache.NewHolder(pool, pc.Schemas, nil)
	if err := cache.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := jwtverify.New(jwtverify.Options{Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	h := pgrst.New(pc, pool, cache, v, log)
	app := New(Deps{Log: log, Pipeline: h})
	return &stack{app: app, db: db, pool: pool, cache: cache}, h
}

// TestRound2CallCounts covers Prefer: count on calls: exact and estimated
// count the function's rows (after filters), planned gives no total, and
// every call (scalar, void, HEAD, GET, POST) answers a Content-Range.
func TestRound2CallCounts(t *testing.T) {
	t.Parallel()
	s, _ := newRound2Stack(t, nil)
	exact, planned, estimated := "Prefer: count=exact", "Prefer: count=planned", "Prefer: count=estimated"
	s.run(t, []expect{
		{name: "get exact", target: "/rpc/projects_over?min=600&select=id&limit=1", headers: []string{exact}, status: 206,
			want: map[string]string{"Content-Range": "0-0/3", "Preference-Applied": "count=exact"}, body: `[{"id":1}]`},
		{name: "get exact filtered", target: "/rpc/projects_over?min=600&select=id&status=eq.active", headers: []string{exact}, status: 200,
			want: map[string]string{"Content-Range": "0-1/2"}, body: `[{"id":1},{"id":4}]`},
		{name: "head exact", method: "HEAD", target: "/rpc/projects_over?min=0", headers: []string{exact}, status: 200,
			want: map[string]string{"Content-Range": "0-3/4"}, body: ""},
		{name: "head exact limited", method: "HEAD", target: "/rpc/projects_over?min=0&limit=2", headers: []string{exact}, status: 206,
			want: map[string]string{"Content-Range": "0-1/4"}, body: ""},
		{name: "post exact", method: "POST", target: "/rpc/projects_over?select=id&offset=2", payload: `{"min":0}`, headers: []string{exact}, status: 206,
			want: map[string]string{"Content-Range": "2-3/4"}, body: `[{"id":3},{"id":4}]`},
		{name: "post estimated counts exactly", method: "POST", target: "/rpc/projects_over?select=id&limit=1", payload: `{"min":0}`, headers: []string{estimated}, status: 206,
			want: map[string]string{"Content-Range": "0-0/4", "Preference-Applied": "count=estimated"}, body: `[{"id":1}]`},
		{name: "get planned has no total", target: "/rpc/projects_over?min=0&select=id&limit=1", headers: []string{planned}, status: 200,
			want: map[string]string{"Content-Range": "0-0/*", "Preference-Applied": "count=planned"}, body: `[{"id":1}]`},
		{name: "offset past the count", target: "/rpc/projects_over?min=0&offset=9", headers: []string{exact}, status: 416,
			body: `~"code":"PGRST103"`},
		{name: "no count", target: "/rpc/projects_over?min=0&select=id&limit=1", status: 200,
			want: map[string]string{"Content-Range": "0-0/*", "Preference-Applied": ""}, body: `[{"id":1}]`},
		{name: "scalar", target: "/rpc/project_total", status: 200, want: map[string]string{"Content-Range": "0-0/*"}, body: `8000.00`},
		{name: "scalar exact", target: "/rpc/project_total", headers: []string{exact}, status: 200, want: map[string]string{"Content-Range": "0-0/1"}, body: `8000.00`},
		{name: "scalar head exact", method: "HEAD", target: "/rpc/project_total", headers: []string{exact}, status: 200, want: map[string]string{"Content-Range": "0-0/1"}, body: ""},
		{name: "void exact", method: "POST", target: "/rpc/touch", headers: []string{exact}, status: 204,
			want: map[string]string{"Content-Range": "0-0/1", "Preference-Applied": "count=exact"}, body: ""},
	})
}

// TestRound2MissingDefault covers Prefer: missing=default on bulk inserts:
// keys a row lacks take the column default (evaluated for every row, as
// PostgREST's jsonb_build_object of defaults is, so a sequence advances
// even for a row that gives its own id),
// keys given as null stay null, and without the preference they are null.
func TestRound2MissingDefault(t *testing.T) {
	t.Parallel()
	s, _ := newRound2Stack(t, nil)
	rep := "Prefer: return=representation, missing=default"
	s.seq(t, []expect{
		{name: "bulk with columns", method: "POST", target: "/projects?columns=name,budget,status&select=id,name,budget,status,started_on",
			payload: `[{"name":"A"},{"name":"B","budget":5},{"name":"C","status":"done"}]`, headers: []string{rep}, status: 201,
			want: map[string]string{"Preference-Applied": "missing=default, return=representation"},
			body: `[{"id":5,"name":"A","budget":100.00,"status":"active","started_on":"2024-01-01"},{"id":6,"name":"B","budget":5,"status":"active","started_on":"2024-01-01"},{"id":7,"name":"C","budget":100.00,"status":"done","started_on":"2024-01-01"}]`},
		{name: "serial default per row", method: "POST", target: "/tasks?columns=id,project_id,title&select=id,title,hours,done",
			payload: `[{"project_id":1,"title":"x"},{"id":60,"project_id":1,"title":"y"},{"project_id":1,"title":"z"}]`, headers: []string{rep}, status: 201,
			body: `[{"id":6,"title":"x","hours":1,"done":false},{"id":60,"title":"y","hours":1,"done":false},{"id":8,"title":"z","hours":1,"done":false}]`},
		{name: "explicit null stays null", method: "POST", target: "/projects?columns=name,client_id&select=name,client_id",
			payload: `[{"name":"D","client_id":null}]`, headers: []string{rep}, status: 201, body: `[{"name":"D","client_id":null}]`},
		{name: "not null column without default", method: "POST", target: "/projects?columns=name,budget",
			payload: `[{"budget":1}]`, headers: []string{"Prefer: missing=default"}, status: 400, body: `~"code":"23502"`},
		{name: "missing=null leaves nulls", method: "POST", target: "/projects?columns=name,budget",
			payload: `[{"name":"E"}]`, headers: []string{"Prefer: missing=null"}, status: 400, body: `~"code":"23502"`},
		{name: "single object", method: "POST", target: "/projects?columns=name,status&select=name,status",
			payload: `{"name":"F"}`, headers: []string{rep}, status: 201, body: `[{"name":"F","status":"active"}]`},
	})
}

// roleSetting is the superuser statement giving the authenticator role a
// setting in the test's own database only (roles are cluster-wide; a
// database-specific setting is not, and goes with the database).
func roleSetting(name, value string) string {
	return fmt.Sprintf(`do $$ begin execute format('alter role authenticator in database %%I set %%s = %%L', current_database(), %s, %s); end $$`,
		sqlLiteral(name), sqlLiteral(value))
}

func sqlLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestRound2InDatabaseConfig covers PostgREST's in-database configuration:
// pgrst.* settings of the login role (database-specific ones first) and of
// the pre-config function, read by ReloadConfig, winning over the
// environment's values.
func TestRound2InDatabaseConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	count := "/projects?select=count()"

	t.Run("role settings win over the environment", func(t *testing.T) {
		t.Parallel()
		s, h := newRound2Stack(t, func(c *pgrst.Config) { c.DBConfig = true },
			roleSetting("pgrst.db_aggregates_enabled", "true"), roleSetting("pgrst.db_max_rows", "2"),
			roleSetting("pgrst.db_tx_end", "rollback-allow-override"))
		// Before the configuration is read, the environment's is in force.
		s.seq(t, []expect{{name: "aggregates off", target: count, status: 400, body: `~"code":"PGRST123"`}})
		if err := h.ReloadConfig(ctx); err != nil {
			t.Fatal(err)
		}
		if got := h.Config(); !got.Aggregates || got.MaxRows != 2 || got.TxEnd != pgrst.TxRollbackAllowOverride {
			t.Fatalf("config = %+v", got)
		}
		s.seq(t, []expect{
			{name: "aggregates on", target: count, status: 200, body: `[{"count":4}]`},
			{name: "max rows", target: "/projects?select=id&order=id", headers: []string{"Prefer: count=exact"}, status: 206,
				want: map[string]string{"Content-Range": "0-1/4"}, body: `[{"id":1},{"id":2}]`},
			{name: "tx end rollback", method: "POST", target: "/clients", payload: `{"id":9,"name":"Gone"}`, status: 201},
			{name: "rolled back", target: "/clients?id=eq.9", status: 200, body: `[]`},
			{name: "tx=commit overrides", method: "POST", target: "/clients", payload: `{"id":9,"name":"Kept"}`, headers: []string{"Prefer: tx=commit"}, status: 201,
				want: map[string]string{"Preference-Applied": "tx=commit"}},
			{name: "committed", target: "/clients?id=eq.9&select=name", status: 200, body: `[{"name":"Kept"}]`},
		})
	})

	t.Run("pre-config function, below role settings", func(t *testing.T) {
		t.Parallel()
		// round2_config.pre_config sets db_max_rows 2 and db_aggregates_enabled
		// false; the role's aggregates setting wins over the latter.
		s, h := newRound2Stack(t, func(c *pgrst.Config) { c.DBConfig, c.PreConfig = true, "round2_config.pre_config" },
			roleSetting("pgrst.db_aggregates_enabled", "on 1"))
		if err := h.ReloadConfig(ctx); err != nil {
			t.Fatal(err)
		}
		s.run(t, []expect{
			{name: "max rows from the function", target: "/projects?select=id&order=id", status: 200, body: `[{"id":1},{"id":2}]`},
			{name: "aggregates: unparsable role value counts as false", target: count, status: 400, body: `~"code":"PGRST123"`},
		})
	})

	t.Run("disabled", func(t *testing.T) {
		t.Parallel()
		s, h := newRound2Stack(t, nil, roleSetting("pgrst.db_aggregates_enabled", "true"))
		if err := h.ReloadConfig(ctx); err != nil {
			t.Fatal(err)
		}
		s.run(t, []expect{{name: "aggregates stay off", target: count, status: 400, body: `~"code":"PGRST123"`}})
	})

	t.Run("invalid value keeps the configuration", func(t *testing.T) {
		t.Parallel()
		_, h := newRound2Stack(t, func(c *pgrst.Config) { c.DBConfig, c.MaxRows = true, 7 },
			roleSetting("pgrst.db_tx_end", "sometimes"), roleSetting("pgrst.db_max_rows", "3"))
		err := h.ReloadConfig(ctx)
		if err == nil || !strings.Contains(err.Error(), "pgrst.db_tx_end") {
			t.Fatalf("err = %v", err)
		}
		if got := h.Config().MaxRows; got != 7 {
			t.Fatalf("max rows = %d, want the environment's 7", got)
		}
	})

	t.Run("db_schemas: a schema it exposes is served once it is in force", func(t *testing.T) {
		t.Parallel()
		s, h := newRound2Stack(t, func(c *pgrst.Config) { c.DBConfig, c.Schemas = true, []string{"round2"} },
			roleSetting("pgrst.db_schemas", "round2, round2_extra"))
		extra := []string{"Accept-Profile: round2_extra"}
		s.seq(t, []expect{{name: "not exposed yet", target: "/notes", headers: extra, status: 406, body: `~"code":"PGRST106"`}})
		// No listener here: the configuration reload must load the new
		// schema itself before exposing it.
		if err := h.ReloadConfig(ctx); err != nil {
			t.Fatal(err)
		}
		if got := h.Config().Schemas; !slices.Equal(got, round2Schemas) {
			t.Fatalf("schemas = %v", got)
		}
		s.seq(t, []expect{{name: "exposed and loaded", target: "/notes?select=body&order=id", headers: extra, status: 200,
			body: `[{"body":"first"},{"body":"second"}]`}})
	})

	t.Run("NOTIFY reload config", func(t *testing.T) {
		t.Parallel()
		s, h := newRound2Stack(t, func(c *pgrst.Config) { c.DBConfig = true })
		s.cache.OnConfigReload(h.ReloadConfig)
		lctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); _ = s.cache.Listen(lctx, s.pool.Config().ConnConfig, 50*time.Millisecond) }()
		t.Cleanup(func() { cancel(); <-done })
		<-s.cache.Reloaded() // the listener is up
		admin, err := pgx.Connect(ctx, s.db.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, roleSetting("pgrst.db_aggregates_enabled", "true")); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec(ctx, "notify pgrst, 'reload config'"); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !h.Config().Aggregates {
			if time.Now().After(deadline) {
				t.Fatal("aggregates still disabled after NOTIFY pgrst, 'reload config'")
			}
			time.Sleep(20 * time.Millisecond)
		}
		s.run(t, []expect{{name: "aggregates on", target: count, status: 200, body: `[{"count":4}]`}})
	})
}

// TestRound2Aggregates covers aggregates when enabled: count(), sum, avg,
// min and max of a column, aliases, casts of the column and of the result,
// grouping by the other selected columns (and embeds), inside embeddings
// and spreads, and PostgREST's answers when disabled or misused.
func TestRound2Aggregates(t *testing.T) {
	t.Parallel()
	s, _ := newRound2Stack(t, func(c *pgrst.Config) { c.Aggregates = true })
	off, _ := newRound2Stack(t, nil)
	s.run(t, []expect{
		{name: "count()", target: "/projects?select=count()", status: 200, body: `[{"count":4}]`},
		{name: "sum avg min max", target: "/projects?select=budget.sum(),budget.avg(),budget.min(),budget.max()", status: 200,
			body: `[{"sum":8000.00,"avg":2000.0000000000000000,"min":500.00,"max":4000.00}]`},
		{name: "aliases", target: "/projects?select=total:budget.sum(),n:count()", status: 200, body: `[{"total":8000.00,"n":4}]`},
		{name: "cast of the result", target: "/projects?select=budget.avg()::int", status: 200, body: `[{"avg":2000}]`},
		{name: "cast of the column", target: "/projects?select=budget::int.sum()", status: 200, body: `[{"sum":8000}]`},
		{name: "column count", target: "/projects?select=client_id.count()", status: 200, body: `[{"count":3}]`},
		{name: "grouped", target: "/projects?select=status,count(),budget.sum()&order=status", status: 200,
			body: `[{"status":"active","count":3,"sum":5500.00},{"status":"done","count":1,"sum":2500.00}]`},
		{name: "grouped with filter", target: "/projects?select=status,count()&client_id=eq.1&order=status", status: 200,
			body: `[{"status":"active","count":1},{"status":"done","count":1}]`},
		{name: "grouped by an alias", target: "/projects?select=state:status,count()&order=status", status: 200,
			body: `[{"state":"active","count":3},{"state":"done","count":1}]`},
		{name: "in an embedding", target: "/clients?select=name,projects(budget.sum(),count())&order=id", status: 200,
			body: `[{"name":"Acme","projects":[{"sum":3500.00,"count":2}]},{"name":"Umbrella","projects":[{"sum":500.00,"count":1}]},{"name":"Idle","projects":[{"sum":null,"count":0}]}]`},
		{name: "grouped in an embedding", target: "/clients?select=name,projects(status,count())&id=eq.1&projects.order=status", status: 200,
			body: `[{"name":"Acme","projects":[{"status":"active","count":1},{"status":"done","count":1}]}]`},
		{name: "rel(count)", target: "/clients?select=name,projects(count)&order=id", status: 200,
			body: `[{"name":"Acme","projects":[{"count":2}]},{"name":"Umbrella","projects":[{"count":1}]},{"name":"Idle","projects":[{"count":0}]}]`},
		{name: "grouped by a to-one embed", target: "/projects?select=count(),clients(name)&client_id=eq.1", status: 200,
			body: `[{"count":2,"clients":{"name":"Acme"}}]`},
		{name: "grouped by a spread", target: "/projects?select=budget.sum(),...clients(client:name)&client_id=eq.1", status: 200,
			body: `[{"sum":3500.00,"client":"Acme"}]`},
		{name: "ungrouped null embed", target: "/projects?select=count(),clients(name)&client_id=is.null", status: 200,
			body: `[{"count":1,"clients":null}]`},
		{name: "json path grouped", target: "/tasks?select=done,hours.sum()&order=done", status: 200,
			body: `[{"done":false,"sum":8},{"done":true,"sum":11}]`},
	})
	off.run(t, []expect{
		{name: "disabled", target: "/projects?select=budget.sum()", status: 400,
			body: `{"code":"PGRST123","message":"Use of aggregate functions is not allowed","details":null,"hint":null}`},
		{name: "disabled count()", target: "/projects?select=count()", status: 400, body: `~"code":"PGRST123"`},
		{name: "disabled in an embedding", target: "/clients?select=projects(count())", status: 400, body: `~"code":"PGRST123"`},
		{name: "rel(count) needs no aggregates", target: "/clients?select=id,projects(count)&order=id", status: 200,
			body: `[{"id":1,"projects":[{"count":2}]},{"id":2,"projects":[{"count":1}]},{"id":3,"projects":[{"count":0}]}]`},
	})
}

// TestRound2TxEnd covers Prefer: tx under each db_tx_end: honoured (and
// echoed) only by the *-allow-override modes, with deferred constraints
// still checked when the transaction is rolled back.
func TestRound2TxEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode        string
		pref        string
		kept        bool
		applied     string
		deferredErr bool
	}{
		{mode: pgrst.TxCommit, pref: "tx=rollback", kept: true},
		{mode: pgrst.TxCommitAllowOverride, pref: "tx=rollback", kept: false, applied: "tx=rollback"},
		{mode: pgrst.TxCommitAllowOverride, pref: "tx=commit", kept: true, applied: "tx=commit"},
		{mode: pgrst.TxRollback, pref: "tx=commit", kept: false},
		{mode: pgrst.TxRollbackAllowOverride, pref: "", kept: false},
		{mode: pgrst.TxRollbackAllowOverride, pref: "tx=commit", kept: true, applied: "tx=commit"},
	} {
		t.Run(tc.mode+" "+tc.pref, func(t *testing.T) {
			t.Parallel()
			s, _ := newRound2Stack(t, func(c *pgrst.Config) { c.TxEnd = tc.mode })
			hdrs := []string{"Prefer: " + tc.pref}
			if tc.pref == "" {
				hdrs = nil
			}
			kept := `[]`
			if tc.kept {
				kept = `[{"id":9}]`
			}
			s.seq(t, []expect{
				{name: "insert", method: "POST", target: "/clients", payload: `{"id":9,"name":"N"}`, headers: hdrs, status: 201,
					want: map[string]string{"Preference-Applied": tc.applied}},
				{name: "kept?", target: "/clients?id=eq.9&select=id", status: 200, body: kept},
				{name: "deferred unique violated", method: "POST", target: "/slots", payload: `[{"id":2,"code":"a"}]`, headers: hdrs, status: 409,
					body: `~"code":"23505"`},
				{name: "rpc", method: "POST", target: "/rpc/touch", headers: hdrs, status: 204, want: map[string]string{"Preference-Applied": tc.applied}},
			})
		})
	}
}

// TestRound2Overloads covers overloaded functions: resolution by argument
// names (defaults count as optional), the single unnamed parameter chosen
// by the body's content type, and PGRST203 listing the candidates in
// PostgREST's order (fewer parameters first, then by description).
func TestRound2Overloads(t *testing.T) {
	t.Parallel()
	s, _ := newRound2Stack(t, nil)
	hint := `"hint":"Try renaming the parameters or the function itself in the database so function overloading can be resolved"`
	s.run(t, []expect{
		{name: "by names", method: "POST", target: "/rpc/pick", payload: `{"a":1,"b":2}`, status: 200, body: `"two integers"`},
		{name: "by another name", target: "/rpc/pick?b=true", status: 200, body: `"boolean"`},
		{name: "ambiguous post", method: "POST", target: "/rpc/pick", payload: `{"a":1}`, status: 300,
			body: `{"code":"PGRST203","details":null,` + hint + `,"message":"Could not choose the best candidate function between: round2.pick(a => text), round2.pick(a => integer), round2.pick(a => integer, b => integer)"}`},
		{name: "ambiguous get", target: "/rpc/pick?a=1", status: 300, body: `~round2.pick(a => text), round2.pick(a => integer), round2.pick(a => integer, b => integer)`},
		{name: "json body", method: "POST", target: "/rpc/raw", payload: `{"x":[1,2]}`, status: 200, body: `{"x":[1,2]}`},
		{name: "json scalar body", method: "POST", target: "/rpc/raw", payload: `1`, status: 200, body: `1`},
		{name: "json boolean body", method: "POST", target: "/rpc/raw", payload: `true`, status: 200, body: `true`},
		{name: "text body", method: "POST", target: "/rpc/raw", payload: `hello`, headers: []string{"Content-Type: text/plain"}, status: 200, body: `"text: hello"`},
		{name: "bytea body", method: "POST", target: "/rpc/raw", payload: `abcd`, headers: []string{"Content-Type: application/octet-stream"}, status: 200, body: `4`},
		{name: "unnamed not callable by GET", target: "/rpc/raw", status: 404, body: `~"code":"PGRST202"`},
		{name: "two unnamed json overloads", method: "POST", target: "/rpc/twin", payload: `{}`, status: 300,
			body: `~"message":"Could not choose the best candidate function between: round2.twin( => json), round2.twin( => jsonb)"`},
	})
}

// TestRound2ComputedFields covers computed fields: a function of one table
// row returning a scalar is selected, filtered, ordered, cast, aliased,
// followed by a JSON path and aggregated like a column, also inside an
// embedding; * leaves it out, and it is not a column for writes.
func TestRound2ComputedFields(t *testing.T) {
	t.Parallel()
	s, _ := newRound2Stack(t, func(c *pgrst.Config) { c.Aggregates = true })
	s.run(t, []expect{
		{name: "select", target: "/projects?select=id,label&order=id&limit=2", status: 200,
			body: `[{"id":1,"label":"Bridge (active)"},{"id":2,"label":"Tunnel (done)"}]`},
		{name: "alias and cast", target: "/projects?select=l:label,h:open_hours::text&id=eq.1", status: 200, body: `[{"l":"Bridge (active)","h":"5"}]`},
		{name: "filter", target: "/projects?select=id&label=like.*(done)", status: 200, body: `[{"id":2}]`},
		{name: "filter in logic", target: "/projects?select=id&or=(open_hours.gt.2,label.eq.%22Dam%20(active)%22)&order=id", status: 200, body: `[{"id":1},{"id":3},{"id":4}]`},
		{name: "order", target: "/projects?select=id&order=open_hours.desc,id&limit=2", status: 200, body: `[{"id":1},{"id":3}]`},
		{name: "json path", target: "/clients?select=id,info->>name,n:info->len&id=eq.2", status: 200, body: `[{"id":2,"name":"Umbrella","n":8}]`},
		{name: "star leaves it out", target: "/clients?select=*&id=eq.3", status: 200, body: `[{"id":3,"name":"Idle"}]`},
		{name: "in an embedding", target: "/clients?select=name,projects(label)&id=eq.2", status: 200, body: `[{"name":"Umbrella","projects":[{"label":"Road (active)"}]}]`},
		{name: "embedding filtered on it", target: "/clients?select=id,projects!inner(id)&projects.open_hours=gt.4&order=id", status: 200, body: `[{"id":1,"projects":[{"id":1}]}]`},
		{name: "aggregated", target: "/projects?select=status,open_hours.sum()&order=status", status: 200,
			body: `[{"status":"active","sum":8},{"status":"done","sum":0}]`},
		{name: "related order by a selected one", target: "/tasks?select=id,projects(label)&order=projects(label).desc,id&limit=2", status: 200,
			body: `[{"id":3,"projects":{"label":"Tunnel (done)"}},{"id":4,"projects":{"label":"Road (active)"}}]`},
		{name: "related order by an unselected one", target: "/tasks?select=id,projects(id)&order=projects(label)", status: 400, body: `~"code":"42703"`},
		{name: "not a column for writes", method: "POST", target: "/projects", payload: `{"name":"X","label":"y"}`, status: 400, body: `~"code":"PGRST204"`},
		{name: "unknown stays unknown", target: "/projects?select=labels", status: 400, body: `~"code":"42703"`},
	})
}
