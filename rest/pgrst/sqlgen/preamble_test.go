package sqlgen_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// TestWithSetting checks that a setting added to a preamble gives the
// statement a preamble of all the settings would be, and leaves the
// original (kept by the caller for other connections) as it was.
func TestWithSetting(t *testing.T) {
	tests := []struct {
		name     string
		settings [][2]string
	}{
		{"empty", nil},
		{"one", [][2]string{{"role", "anon"}}},
		{"several", [][2]string{{"search_path", `"public"`}, {"role", "anon"}, {"request.headers", `{"a":"b"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sqlgen.Preamble(tt.settings)
			before := slices.Clone(p.Params)
			got := sqlgen.WithSetting(p, "plan_cache_mode", "force_custom_plan")
			want := sqlgen.Preamble(append(slices.Clone(tt.settings), [2]string{"plan_cache_mode", "force_custom_plan"}))
			if got.SQL != want.SQL {
				t.Errorf("SQL = %q, want %q", got.SQL, want.SQL)
			}
			if len(got.Params) != len(want.Params) {
				t.Fatalf("%d params, want %d", len(got.Params), len(want.Params))
			}
			for i := range want.Params {
				if string(got.Params[i]) != string(want.Params[i]) {
					t.Errorf("param %d = %q, want %q", i+1, got.Params[i], want.Params[i])
				}
			}
			if len(p.Params) != len(before) {
				t.Errorf("the original preamble changed: %d params, had %d", len(p.Params), len(before))
			}
		})
	}
}

// TestPreambleInPostgres runs preambles of several sizes, each side of
// the 100 arguments one num_nulls can take, and reads every setting back
// in the same transaction. The last setting repeats the first name, so
// the settings must be applied in order for it to win. After the commit
// none is left: they are local to the transaction.
func TestPreambleInPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connectEmpty(t)
	for _, n := range []int{1, 2, 12, 99, 100, 101, 140} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			settings := make([][2]string, n)
			for i := range settings {
				settings[i] = [2]string{fmt.Sprintf("kejanest.s%d", i), fmt.Sprintf("value %d, it's {\"n\":%d}", i, i)}
			}
			if n > 1 {
				settings[n-1] = [2]string{settings[0][0], "last"}
			}
			want := map[string]string{}
			for _, kv := range settings {
				want[kv[0]] = kv[1]
			}
			q := sqlgen.Preamble(settings).Encoded()
			args := make([]any, len(q.Params))
			for i, p := range q.Params {
				args[i] = string(p)
			}
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if _, err := tx.Exec(ctx, q.SQL, args...); err != nil {
				t.Fatalf("preamble of %d settings: %v\n%s", n, err, q.SQL)
			}
			read := func(in pgx.Tx, name string) string {
				var v string
				if err := in.QueryRow(ctx, "select coalesce(current_setting($1, true), '')", name).Scan(&v); err != nil {
					t.Fatal(err)
				}
				return v
			}
			for name, v := range want {
				if got := read(tx, name); got != v {
					t.Errorf("%s = %q, want %q", name, got, v)
				}
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			after, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = after.Rollback(ctx) }()
			if got := read(after, settings[0][0]); got != "" {
				t.Errorf("after the commit %s = %q, want it unset", settings[0][0], got)
			}
		})
	}
}
