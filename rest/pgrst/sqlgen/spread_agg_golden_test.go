package sqlgen_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// spreadAggGolden is a request with aggregates in to-one spreads, hoisted
// into the node their columns land in (PostgREST's
// hoistSpreadAggFunctions), with the body PostgREST 14 answers.
type spreadAggGolden struct {
	golden
	body string
}

var spreadAggGoldens = []spreadAggGolden{
	// count() of a spread counts the rows it matched: book 6 has no author.
	{golden{name: "read_spread_agg_hoisted", target: "/books?select=in_print,...authors!books_author_id_fkey(country,count())&order=in_print,authors(country).nullsfirst", rows: 4},
		`[{"in_print":false,"country":"Nigeria","count":1},{"in_print":true,"country":null,"count":0},{"in_print":true,"country":"Kenya","count":3},{"in_print":true,"country":"Nigeria","count":1}]`},
	{golden{name: "read_spread_agg_alias_cast", target: "/books?select=...authors!books_author_id_fkey(country,born_max:born.max()::text)&order=authors(country)", rows: 3},
		`[{"country":"Kenya","born_max":"1958-06-12"},{"country":"Nigeria","born_max":"1930-11-16"},{"country":null,"born_max":null}]`},
	// Through two to-one spreads: the publishers level hands the count up.
	{golden{name: "read_spread_agg_nested", target: "/books?select=in_print,...publishers(...publisher_details(details:count()))&order=in_print", rows: 2},
		`[{"in_print":false,"details":0},{"in_print":true,"details":2}]`},
	// * in the node applying a hoisted aggregate is every column, grouped.
	{golden{name: "read_spread_agg_star", target: "/publishers?select=*,...publisher_details(details:count())&order=id", rows: 2},
		`[{"id":1,"name":"East African Educational","details":1},{"id":2,"name":"Heinemann","details":0}]`},
	// A to-many embed applies the aggregates of its own to-one spreads.
	{golden{name: "read_spread_agg_in_embed", target: "/authors?select=id,books!books_author_id_fkey(...publishers(publisher:name,n:count()))&order=id", rows: 4},
		`[{"id":1,"books":[{"publisher":"East African Educational","n":2}]},{"id":2,"books":[{"publisher":"Heinemann","n":2}]},{"id":3,"books":[{"publisher":null,"n":0}]},{"id":4,"books":[]}]`},
}

// TestSpreadAggGolden pins and runs the SQL of hoisted spread aggregates
// and checks the bodies.
func TestSpreadAggGolden(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, g := range spreadAggGoldens {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			body := runGolden(t, f, g.golden, schemas)
			if !jsonEqual(t, body, g.body) {
				t.Errorf("body = %s, want %s", body, g.body)
			}
		})
	}
}

// TestSpreadAggErrors checks the plan errors of aggregates in spreads:
// PGRST127 in to-many spreads (their own or hoisted from a to-one spread
// inside), and PGRST123 first when aggregates are disabled.
func TestSpreadAggErrors(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const notImplemented = `{"code":"PGRST127","details":"Aggregates are not implemented for one-to-many or many-to-many spreads.","hint":null,"message":"Feature not implemented"}`
	const notAllowed = `{"code":"PGRST123","details":null,"hint":null,"message":"Use of aggregate functions is not allowed"}`
	cases := []struct {
		name, target string
		aggregates   bool
		want         string
	}{
		{"to-many spread", "/authors?select=name,...books!books_author_id_fkey(in_print,price.sum())", true, notImplemented},
		{"to-many spread count", "/authors?select=name,...books!books_author_id_fkey(count())", true, notImplemented},
		{"to-many spread rel count", "/authors?select=name,...books!books_author_id_fkey(count)", true, notImplemented},
		{"hoisted into a to-many spread", "/authors?select=name,...books!books_author_id_fkey(...publishers(count()))", true, notImplemented},
		{"disabled, to-one spread", "/books?select=...authors!books_author_id_fkey(id.count())", false, notAllowed},
		{"disabled, to-many spread", "/authors?select=...books!books_author_id_fkey(id.count())", false, notAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path, query, _ := strings.Cut(c.target, "?")
			h := http.Header{}
			req, err := parse.Parse(parse.Input{Method: "GET", Path: path, RawQuery: query, Header: h.Get, HeaderValues: h.Values}, parse.Options{Schemas: schemas})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			table := f.cache.Table(schemacache.QI{Schema: req.Schema, Name: req.Resource})
			_, err = plan.Read(f.cache, table, req, plan.RootTable, plan.Options{MaxRows: 1000, Aggregates: c.aggregates})
			pe, ok := err.(*pgrsterr.Error)
			if !ok {
				t.Fatalf("error %v is not a PostgREST error", err)
			}
			if pe.Status != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", pe.Status)
			}
			if got, _ := json.Marshal(pe); string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
