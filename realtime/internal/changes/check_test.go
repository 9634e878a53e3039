package changes

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
)

// Bindings are checked against the table at join as Supabase's
// subscription_check_filters trigger checks them: columns the role may
// select, values PostgreSQL's input functions accept, operators that apply
// to the column's type.
func TestCheckSubscriptions(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{"testdata/check.sql"}})
	pool, err := pgxpool.New(context.Background(), db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	r := NewReader(pool)
	tests := []struct {
		name   string
		role   string
		table  string
		filter string
		sel    []string
		want   string // "" accepted
	}{
		{"no filter", "anon", "kinds", "", nil, ""},
		{"int eq", "anon", "kinds", "n=eq.5", nil, ""},
		{"int in", "anon", "kinds", "n=in.(1,2,3)", nil, ""},
		{"text in with quotes and commas", "anon", "kinds", `label=in.("a,b","c\"d",e\\f)`, nil, ""},
		{"int lt negative", "anon", "kinds", "n=not.lt.-4", nil, ""},
		{"numeric beyond its typmod", "anon", "kinds", "amount=gt.12345.678", nil, ""},
		{"text like", "anon", "kinds", "label=like.a%", nil, ""},
		{"varchar ilike", "anon", "kinds", "code=ilike.%b", nil, ""},
		{"text match", "anon", "kinds", "label=imatch.^ab+$", nil, ""},
		{"boolean is true", "anon", "kinds", "flag=is.true", nil, ""},
		{"any type is null", "anon", "kinds", "n=is.null", nil, ""},
		{"timestamptz", "anon", "kinds", "at=gte.2026-11-20T10:00:00+03:00", nil, ""},
		{"uuid any case", "anon", "kinds", "ref=eq.A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", nil, ""},
		{"jsonb eq", "anon", "kinds", `docb=eq.{"a":1}`, nil, ""},
		{"enum", "anon", "kinds", "feeling=neq.sad", nil, ""},
		{"array column", "anon", "kinds", `nums=eq."{1,2}"`, nil, ""},
		{"isdistinct", "anon", "kinds", "n=isdistinct.3", nil, ""},
		{"several conditions", "anon", "kinds", "n=gte.2,n=lte.8,label=eq.x", []string{"id", "label"}, ""},
		{"hidden column for authenticated", "authenticated", "kinds", "secret=eq.x", []string{"secret"}, ""},
		{"table that does not exist", "anon", "nope", "x=eq.1", []string{"y"}, ""},

		{"unknown column", "anon", "kinds", "nope=eq.1", nil, "ERROR P0001 (raise_exception) invalid column for filter nope"},
		{"column the role may not select", "anon", "kinds", "secret=eq.x", nil, "ERROR P0001 (raise_exception) invalid column for filter secret"},
		{"unknown select column", "anon", "kinds", "", []string{"id", "nope"}, "ERROR P0001 (raise_exception) invalid column for select nope"},
		{"select column the role may not see", "anon", "kinds", "n=eq.1", []string{"secret"}, "ERROR P0001 (raise_exception) invalid column for select secret"},
		{"text for an integer", "anon", "kinds", "n=eq.abc", nil, `ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "abc"`},
		{"out of range", "anon", "kinds", "n=gt.99999999999", nil, `ERROR 22003 (numeric_value_out_of_range) value "99999999999" is out of range for type integer`},
		{"bad in value", "anon", "kinds", "n=in.(1,x)", nil, `ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "x"`},
		{"bad timestamp", "anon", "kinds", "at=lt.yesterday-ish", nil, `ERROR 22007 (invalid_datetime_format) invalid input syntax for type timestamp with time zone: "yesterday-ish"`},
		{"bad uuid", "anon", "kinds", "ref=eq.123", nil, `ERROR 22P02 (invalid_text_representation) invalid input syntax for type uuid: "123"`},
		{"bad enum", "anon", "kinds", "feeling=eq.meh", nil, `ERROR 22P02 (invalid_text_representation) invalid input value for enum mood: "meh"`},
		{"bad boolean", "anon", "kinds", "flag=eq.maybe", nil, `ERROR 22P02 (invalid_text_representation) invalid input syntax for type boolean: "maybe"`},
		{"like on an integer", "anon", "kinds", "n=like.1", nil, "ERROR P0001 (raise_exception) operator like is not supported on column n of type integer: operator does not exist: integer ~~ integer"},
		{"ilike on an integer with a pattern", "anon", "kinds", "n=ilike.1%", nil, `ERROR P0001 (raise_exception) operator ilike is not supported on column n of type integer: invalid input syntax for type integer: "1%"`},
		{"match on a boolean", "anon", "kinds", "flag=match.true", nil, "ERROR P0001 (raise_exception) operator match is not supported on column flag of type boolean: operator does not exist: boolean ~ boolean"},
		{"eq on json", "anon", "kinds", `doc=eq.{"a":1}`, nil, "ERROR P0001 (raise_exception) operator eq is not supported on column doc of type json: operator does not exist: json = json"},
		{"is true on an integer", "anon", "kinds", "n=is.true", nil, "ERROR P0001 (raise_exception) is true filter requires a boolean column, got integer"},
		{"first refusal wins", "anon", "kinds", "n=eq.x,nope=eq.1", nil, `ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "x"`},
		{"filter before select", "anon", "kinds", "nope=eq.1", []string{"nada"}, "ERROR P0001 (raise_exception) invalid column for filter nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			subs := []Subscription{
				{ID: 1, Event: "*", Schema: "public", Table: "*"},
				{ID: 2, Event: "*", Schema: "public", Table: tt.table, Filter: mustFilter(t, tt.filter), Select: tt.sel},
			}
			err := r.CheckSubscriptions(context.Background(), tt.role, subs)
			var ce *CheckError
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "":
			case !errors.As(err, &ce):
				t.Fatalf("got %v, want refusal %q", err, tt.want)
			case ce.Message != tt.want || ce.Index != 1:
				t.Fatalf("got refusal %d %q\nwant        1 %q", ce.Index, ce.Message, tt.want)
			}
		})
	}

	// After every subtest: the probes leave the pooled connections usable
	// and as authenticator.
	t.Cleanup(func() {
		var role string
		if err := pool.QueryRow(context.Background(), "select current_user").Scan(&role); err != nil || role != "authenticator" {
			t.Errorf("connection after checks: role %q: %v", role, err)
		}
	})
}

// A column added after the table's metadata was cached is not refused: a
// refusal re-reads the catalog first.
func TestCheckSubscriptionsSeesNewColumns(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{"testdata/check.sql"}})
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	admin, err := pgxpool.New(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	r := NewReader(pool)
	sub := []Subscription{{ID: 1, Event: "*", Schema: "public", Table: "kinds", Filter: mustFilter(t, "later=eq.1")}}
	var ce *CheckError
	if err := r.CheckSubscriptions(ctx, "anon", sub); !errors.As(err, &ce) {
		t.Fatalf("unknown column accepted: %v", err)
	}
	if _, err := admin.Exec(ctx, `alter table public.kinds add column later int; grant select (later) on public.kinds to anon`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // past the grace in which a fresh list is trusted
	if err := r.CheckSubscriptions(ctx, "anon", sub); err != nil {
		t.Fatalf("new column refused: %v", err)
	}
}
