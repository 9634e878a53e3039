package sqlgen_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// With plan.Options.Seen, a value-sensitive filter's value is bound until
// it has been asked for plan.InlineAt times, and written into the
// statement from then on; either way the statement answers the same rows.
func TestRepeatedValuesAreWritten(t *testing.T) {
	f := setup(t)
	seen := plan.NewSightings()
	books := f.cache.Table(schemacache.QI{Schema: "library", Name: "books"})
	steps := []struct {
		name      string
		target    string
		sensitive bool // the filter's value decides the plan
		written   bool
		rows      int
		// times is how often the request is asked for in a row (once
		// when 0); the last is checked.
		times int
	}{
		{"a pattern, first asked", "/books?select=id&title=ilike.*of*&order=id", true, false, 2, 0},
		{"the same pattern a second time", "/books?select=id&title=ilike.*of*&order=id", true, false, 2, 0},
		{"the same pattern, asked often", "/books?select=id&title=ilike.*of*&order=id", true, true, 2, plan.InlineAt - 2},
		{"another pattern", "/books?select=id&title=ilike.*the*&order=id", true, false, 1, 0},
		{"the first value with another operator", "/books?select=id&title=like.*of*&order=id", true, false, 2, 0},
		{"a list, first asked", "/books?select=id&author_id=in.(1,3)", true, false, 3, 0},
		{"the same list in another request, often", "/books?select=id,title&author_id=in.(1,3)&order=id", true, true, 3, plan.InlineAt - 1},
		{"the same value on another column", "/books?select=id&summary=ilike.*of*", true, false, 3, 0},
		{"full-text search, first asked", "/books?select=id&search=fts(english).kenya", true, false, 0, 0},
		{"full-text search, asked often", "/books?select=id&search=fts(english).kenya", true, true, 0, plan.InlineAt - 1},
		{"equality is bound, whether seen or not", "/books?select=id&id=eq.1", false, false, 1, 0},
		{"equality, asked often", "/books?select=id&id=eq.1", false, false, 1, plan.InlineAt},
	}
	for _, s := range steps {
		path, query, _ := strings.Cut(s.target, "?")
		hd := http.Header{}
		req, err := parse.Parse(parse.Input{Method: "GET", Path: path, RawQuery: query, Header: hd.Get, HeaderValues: hd.Values}, parse.Options{Schemas: schemas})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var rp *plan.ReadPlan
		for range max(s.times, 1) {
			if rp, err = plan.Read(f.cache, books, req, plan.RootTable, plan.Options{MaxRows: 1000, Seen: seen}); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
		q, err := sqlgen.Read(rp, false, sqlgen.Output{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := strings.Contains(q.SQL, "E'"); got != s.written {
			t.Errorf("%s: value written into the statement = %v, want %v\n%s", s.name, got, s.written, q.SQL)
		}
		if want := s.sensitive && !s.written; rp.CustomPlan() != want || rp.Unseen != want {
			t.Errorf("%s: CustomPlan() = %v, Unseen = %v, want both %v", s.name, rp.CustomPlan(), rp.Unseen, want)
		}
		if n := pageTotal(t, f, q); n != s.rows {
			t.Errorf("%s: %d rows, want %d", s.name, n, s.rows)
		}
	}
}

// pageTotal runs a read as service_role and returns its page total.
func pageTotal(t *testing.T, f *fixture, q sqlgen.Query) int {
	t.Helper()
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "set local role service_role"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(ctx, "select page_total from ("+q.SQL+") r", q.Args...).Scan(&n); err != nil {
		t.Fatalf("%v\n%s", err, q.SQL)
	}
	return n
}

// With plan.Options.BindAll (how a shape's template is learnt), a value
// asked for often is still bound, and the plan says it must be planned
// for its values; planning it so leaves the sightings as they were.
func TestBindAllBindsOftenValues(t *testing.T) {
	f := setup(t)
	seen := plan.NewSightings()
	books := f.cache.Table(schemacache.QI{Schema: "library", Name: "books"})
	hd := http.Header{}
	req, err := parse.Parse(parse.Input{Method: "GET", Path: "/books", RawQuery: "select=id&title=ilike.*of*&order=id", Header: hd.Get, HeaderValues: hd.Values}, parse.Options{Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	written := func(opt plan.Options) (bool, *plan.ReadPlan) {
		t.Helper()
		rp, err := plan.Read(f.cache, books, req, plan.RootTable, opt)
		if err != nil {
			t.Fatal(err)
		}
		q, err := sqlgen.Read(rp, false, sqlgen.Output{})
		if err != nil {
			t.Fatal(err)
		}
		if n := pageTotal(t, f, q); n != 2 {
			t.Errorf("%d rows, want 2", n)
		}
		return strings.Contains(q.SQL, "E'"), rp
	}
	for range plan.InlineAt {
		written(plan.Options{MaxRows: 1000, Seen: seen})
	}
	if w, rp := written(plan.Options{MaxRows: 1000, Seen: seen, BindAll: true}); w || !rp.CustomPlan() || !rp.Unseen {
		t.Errorf("with BindAll: written %v, CustomPlan %v, Unseen %v; want bound and planned for its value", w, rp.CustomPlan(), rp.Unseen)
	}
	if w, _ := written(plan.Options{MaxRows: 1000, Seen: seen}); !w {
		t.Error("without BindAll, the value asked for often is no longer written")
	}
	if w, _ := written(plan.Options{MaxRows: 1000, BindAll: true}); w {
		t.Error("BindAll without sightings wrote the value")
	}
}
