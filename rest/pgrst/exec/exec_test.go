package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// mainOf wraps a one-column text query in the seven columns Run decodes,
// the column being the body.
func mainOf(sql string, args ...any) sqlgen.Query {
	return sqlgen.Query{SQL: "select null::bigint, 1::bigint, (" + sql + ")::text, null::text, null::text, null::bigint, null::text", Args: args}
}

// TestPlanCacheMode runs one parameterised statement through Run more often
// than PostgreSQL's switch to a generic plan (five executions) and reads,
// on the same connection, how the kept statement was planned: left to
// PostgreSQL (auto) it settles on the generic plan; with Tx.CustomPlan
// every execution is planned for its value, and only inside the request's
// transaction; a mode the operator set (here the connection string) wins.
func TestPlanCacheMode(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	tests := []struct {
		name        string
		param       string // plan_cache_mode in the connection string
		custom      bool   // Tx.CustomPlan
		wantMode    string // the session's mode after the requests
		wantGeneric bool
	}{
		{"default: PostgreSQL's choice", "", false, "auto", true},
		{"custom plan asked for", "", true, "auto", false},
		{"connection string wins over custom", "force_generic_plan", true, "force_generic_plan", true},
		{"connection string forcing custom", "force_custom_plan", false, "force_custom_plan", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := pgxpool.ParseConfig(db.URL)
			if err != nil {
				t.Fatal(err)
			}
			if tt.param != "" {
				cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = tt.param
			}
			cfg.MaxConns = 1 // every Run and the check share one session
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			// A statement whose generic plan costs the same as its custom
			// ones: auto mode switches it to the generic plan.
			q := mainOf("select count(*) from pg_catalog.pg_class where relname = $1", "pg_class")
			for range 8 {
				res, err := Run(ctx, pool, Tx{ReadOnly: true, Preamble: sqlgen.Query{SQL: "select 1"}, Main: q, CustomPlan: tt.custom})
				if err != nil {
					t.Fatal(err)
				}
				if string(res.Body) != "1" {
					t.Fatalf("body = %q", res.Body)
				}
			}
			var mode string
			var generic, custom int64
			err = pool.QueryRow(ctx, `select current_setting('plan_cache_mode'), generic_plans, custom_plans
				from pg_prepared_statements where statement like '%pg_class where relname%'`).Scan(&mode, &generic, &custom)
			if err != nil {
				t.Fatal(err)
			}
			if mode != tt.wantMode || (generic > 0) != tt.wantGeneric || generic+custom != 8 {
				t.Errorf("mode %s, %d generic and %d custom plans; want mode %s, generic plans: %v", mode, generic, custom, tt.wantMode, tt.wantGeneric)
			}
		})
	}
}

// newPool opens a pool on a fresh test database, closed when t ends.
func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	pool, err := pgxpool.New(context.Background(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestCustomPlanKeepsPreamble checks that asking for custom plans adds
// plan_cache_mode to the request's settings without losing any of them, in
// the read's own transaction (TestEstimateKeepsPreamble checks the
// estimate's second one).
func TestCustomPlanKeepsPreamble(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	pre := sqlgen.Preamble([][2]string{{"request.method", "GET"}, {"request.path", "/things"}})
	tests := []struct {
		name   string
		custom bool
		want   string
	}{
		{"custom plans", true, "GET /things force_custom_plan"},
		{"PostgreSQL's choice", false, "GET /things auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mainOf("select current_setting('request.method') || ' ' || current_setting('request.path') || ' ' || current_setting('plan_cache_mode')")
			res, err := Run(ctx, pool, Tx{ReadOnly: true, Preamble: pre, Main: q, CustomPlan: tt.custom})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Body) != tt.want {
				t.Errorf("body = %q, want %q", res.Body, tt.want)
			}
		})
	}
}

// TestEstimateKeepsPreamble checks that count=estimated's second
// transaction runs under the read's settings, plan_cache_mode included: its
// EXPLAIN folds an immutable function that reads them, and the row
// estimate PostgreSQL gives generate_series is the function's answer.
func TestEstimateKeepsPreamble(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	// Marked immutable only so that the planner calls it while planning.
	if _, err := pool.Exec(ctx, `create function settings_seen() returns int language sql immutable as $$
		select case when current_setting('request.method', true) is distinct from 'GET' then 7
			when current_setting('plan_cache_mode') = 'force_custom_plan' then 1000 else 500 end $$`); err != nil {
		t.Fatal(err)
	}
	pre := sqlgen.Preamble([][2]string{{"request.method", "GET"}})
	main := sqlgen.Query{SQL: "select 100::bigint, 1::bigint, 'x'::text, null::text, null::text, null::bigint, null::text"}
	estimate := sqlgen.Query{SQL: "explain (format json) select * from generate_series(1, settings_seen())"}
	tests := []struct {
		name   string
		custom bool
		want   int64
	}{
		{"custom plans", true, 1000},
		{"PostgreSQL's choice", false, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(ctx, pool, Tx{ReadOnly: true, Preamble: pre, Main: main, CustomPlan: tt.custom,
				Estimate: &estimate, EstimateAbove: 10})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total == nil {
				t.Fatalf("no total, want %d", tt.want)
			}
			if *res.Total != tt.want {
				t.Errorf("total = %d, want %d", *res.Total, tt.want)
			}
		})
	}
}

// TestEstimateAlong checks count=estimated with the estimate sent in the
// read's own pipeline (Tx.EstimateAlong) and without: the main statement
// marks its transaction, and the estimate's EXPLAIN folds an immutable
// function that reads the mark, so the total tells which transaction
// planned it. Sent along, it is the read's; otherwise a second one. A
// count that does not pass the threshold stays exact either way.
func TestEstimateAlong(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	// Marked immutable only so that the planner calls it while planning.
	if _, err := pool.Exec(ctx, `create function read_mark_seen() returns int language sql immutable as $$
		select case when current_setting('test.read_mark', true) = 'set' then 1000 else 500 end $$`); err != nil {
		t.Fatal(err)
	}
	mainCounting := func(n int) sqlgen.Query {
		return sqlgen.Query{SQL: "select $1::bigint, 1::bigint, pg_catalog.set_config('test.read_mark', 'set', true), null::text, null::text, null::bigint, null::text",
			Args: []any{n}}
	}
	estimate := sqlgen.Query{SQL: "explain (format json) select * from generate_series(1, read_mark_seen())"}
	tests := []struct {
		name          string
		count         int
		along         bool
		wantTotal     int64
		wantEstimated bool
	}{
		{"above, sent along", 100, true, 1000, true},
		{"above, second round trip", 100, false, 500, true},
		{"not above, sent along", 10, true, 10, false},
		{"not above, not sent", 10, false, 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(ctx, pool, Tx{ReadOnly: true, Preamble: sqlgen.Query{SQL: "select 1"}, Main: mainCounting(tt.count).Encoded(),
				Estimate: &estimate, EstimateAbove: 10, EstimateAlong: tt.along})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total == nil || *res.Total != tt.wantTotal || res.Estimated != tt.wantEstimated {
				t.Errorf("total %v, estimated %v; want %d, %v", res.Total, res.Estimated, tt.wantTotal, tt.wantEstimated)
			}
			if res.PlannedRows != nil {
				t.Errorf("planned rows %d left over", *res.PlannedRows)
			}
		})
	}
}

// TestEstimateAlongFails checks that an estimate sent along on speculation
// cannot fail the read: when it fails in the read's transaction, the read
// stands, and a count above the threshold asks for the estimate again on
// its own, as when it is not sent along. An estimate that fails there too
// fails the read only when the count needs it. The function the EXPLAIN
// folds raises in the read's transaction (which the main statement
// marks), or everywhere.
func TestEstimateAlongFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	// Marked immutable only so that the planner calls it while planning.
	if _, err := pool.Exec(ctx, `create function estimate_fails(everywhere bool) returns int language plpgsql immutable as $$
		begin
			if everywhere or current_setting('test.read_mark', true) = 'set' then
				raise exception 'estimate refused';
			end if;
			return 500;
		end $$`); err != nil {
		t.Fatal(err)
	}
	mainCounting := func(n int) sqlgen.Query {
		return sqlgen.Query{SQL: "select $1::bigint, 1::bigint, pg_catalog.set_config('test.read_mark', 'set', true), null::text, null::text, null::bigint, null::text",
			Args: []any{n}}.Encoded()
	}
	inRead := sqlgen.Query{SQL: "explain (format json) select * from generate_series(1, estimate_fails(false))"}
	everywhere := sqlgen.Query{SQL: "explain (format json) select * from generate_series(1, estimate_fails(true))"}
	tests := []struct {
		name          string
		count         int
		estimate      sqlgen.Query
		along         bool
		wantErr       bool
		wantTotal     int64
		wantEstimated bool
	}{
		{"above, fails along, asked again", 100, inRead, true, false, 500, true},
		{"not above, fails along", 10, inRead, true, false, 10, false},
		{"above, not along", 100, inRead, false, false, 500, true},
		{"above, fails everywhere", 100, everywhere, true, true, 0, false},
		{"not above, fails everywhere", 10, everywhere, true, false, 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: the first failure must leave the connection and its
			// statements fit for the next request.
			for range 2 {
				res, err := Run(ctx, pool, Tx{ReadOnly: true, Preamble: sqlgen.Query{SQL: "select 1"}, Main: mainCounting(tt.count),
					Estimate: &tt.estimate, EstimateAbove: 10, EstimateAlong: tt.along})
				if tt.wantErr {
					if err == nil || !strings.Contains(err.Error(), "estimate refused") {
						t.Fatalf("err = %v, want the estimate's", err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Total == nil || *res.Total != tt.wantTotal || res.Estimated != tt.wantEstimated {
					t.Errorf("total %v, estimated %v; want %d, %v", res.Total, res.Estimated, tt.wantTotal, tt.wantEstimated)
				}
				if string(res.Body) != "set" {
					t.Errorf("body %q, want the main statement's", res.Body)
				}
				if res.PlannedRows != nil {
					t.Errorf("planned rows %d left over", *res.PlannedRows)
				}
			}
		})
	}
	// A failure in the main statement is the read's, along or not.
	_, err := Run(ctx, pool, Tx{ReadOnly: true, Preamble: sqlgen.Query{SQL: "select 1"},
		Main:     sqlgen.Query{SQL: "select 1/0, 1::bigint, ''::text, null::text, null::text, null::bigint, null::text"},
		Estimate: &inRead, EstimateAbove: 10, EstimateAlong: true})
	if err == nil {
		t.Fatal("a failing main statement answered")
	}
}

// WarmUp is the first statement of every pooled connection, run as the
// login role before any request has set one: it must need no privilege,
// and its block must be allocated whole.
func TestWarmUp(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := WarmUp(ctx, conn.PgConn()); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRow(ctx, warmUpSQL).Scan(&n); err != nil {
		t.Fatalf("%s: %v", warmUpSQL, err)
	}
	if n != 1<<20 {
		t.Errorf("%s = %d, want a block of %d bytes", warmUpSQL, n, 1<<20)
	}
	// A failure is reported as the warm-up's. An aborted transaction
	// refuses every statement until it ends.
	_, _ = conn.Exec(ctx, "begin; select 1/0")
	if err := WarmUp(ctx, conn.PgConn()); err == nil || !strings.Contains(err.Error(), "warm up the connection") {
		t.Errorf("WarmUp in an aborted transaction: %v, want the warm-up's error", err)
	}
}
