package pgrst

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/internal/schematest"
	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// shapeFixture is the compat fixtures' library schema, loaded once per
// test, and a Handler's caches around it.
type shapeFixture struct {
	snap *schemacache.Cache
	h    *Handler
	cfg  *liveConfig
}

func newShapeFixture(t testing.TB) *shapeFixture {
	t.Helper()
	_, snap := schematest.Load(t, "rest.sql", []string{"library"})
	cfg := Config{Schemas: []string{"library"}, MaxRows: 1000, PlanEnabled: true}
	return &shapeFixture{snap: snap, h: &Handler{seen: plan.NewSightings()}, cfg: newLiveConfig(cfg)}
}

// statements runs target (with value in place of every {v}) through
// parse and plan as a request does, then builds its statements both ways:
// through the shape cache, and in full. It reports whether the shape
// cache answered from a learnt template.
// A request that parse or plan refuse returns their error.
func (f *shapeFixture) statements(t testing.TB, method, target, value string, h http.Header) (viaShapes, full readStmts, templated bool, err error) {
	t.Helper()
	path, query, _ := strings.Cut(strings.ReplaceAll(target, "{v}", url.QueryEscape(value)), "?")
	req, err := parse.Parse(parse.Input{Method: method, Path: path, RawQuery: query, Header: h.Get, HeaderValues: h.Values},
		parse.Options{Schemas: f.cfg.Schemas})
	if err != nil {
		return viaShapes, full, false, err
	}
	x := &call{ctx: context.Background(), h: f.h, cfg: f.cfg, c: f.snap, req: req}
	tbl, err := x.table()
	if err != nil {
		t.Fatal(err)
	}
	mt, err := x.negotiate()
	if err != nil {
		t.Fatal(err)
	}
	root, err := plan.Read(x.c, tbl, x.req, plan.RootTable, x.planOptions())
	if err != nil {
		return viaShapes, full, false, err
	}
	vals := slotValues(req)
	if vals != nil && !anyInline(root) {
		if key := shapeKey(req); key != nil {
			tmpl, known := f.h.shapes.get(key, f.snap, f.cfg)
			templated = known && tmpl != nil
		}
	}
	viaShapes, err1 := x.readStatements(tbl, root, mt)
	full, err2 := x.buildRead(root, mt)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("%s %q: via shapes: %v; built in full: %v", target, value, err1, err2)
	}
	return viaShapes, full, templated, err1
}

func sameStmts(a, b readStmts) bool {
	return sameQuery(&a.main.SQL, a.main.Params, &b.main.SQL, b.main.Params) &&
		(a.planned == nil) == (b.planned == nil) && (a.planned == nil || sameQuery(&a.planned.SQL, a.planned.Params, &b.planned.SQL, b.planned.Params)) &&
		(a.estimate == nil) == (b.estimate == nil) && (a.estimate == nil || sameQuery(&a.estimate.SQL, a.estimate.Params, &b.estimate.SQL, b.estimate.Params))
}

func sameQuery(sa *string, pa [][]byte, sb *string, pb [][]byte) bool {
	if *sa != *sb || len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if (pa[i] == nil) != (pb[i] == nil) || !bytes.Equal(pa[i], pb[i]) {
			return false
		}
	}
	return true
}

var shapeTargets = []struct {
	name, method, target string
	headers              http.Header
	// templated: some value after the first is answered from the shape's
	// templates (false: the shape is built in full every time).
	templated bool
}{
	{"detail by id", "GET", "/books?select=id,title,price&id=eq.{v}", nil, true},
	{"full-text search, estimated count", "GET", "/books?select=id&search=fts(english).{v}&order=id&limit=3", http.Header{"Prefer": {"count=estimated"}}, true},
	{"search without a configuration", "GET", "/books?select=id&search=wfts.{v}", nil, true},
	{"a slotted value beside another filter", "GET", "/books?select=id&price=gte.{v}&editor_id=is.null", nil, true},
	// A pattern asked for again is written into the statement (sightings),
	// and such a read is built in full.
	{"a slotted value beside a repeated pattern", "GET", "/books?select=id&price=gte.{v}&title=ilike.*o*", nil, false},
	{"two slotted values", "GET", "/books?select=id&title=match.{v}&published_on=lt.{v}", http.Header{"Prefer": {"count=planned"}}, true},
	{"negated, with an exact count", "GET", "/books?select=id&author_id=not.eq.{v}&order=id", http.Header{"Prefer": {"count=exact"}}, true},
	{"an embedded filter", "GET", "/authors?select=id,books!books_author_id_fkey(id)&books.title=neq.{v}&id=gt.{v}", nil, true},
	{"a JSON path", "GET", "/books?select=id&metadata->>isbn=eq.{v}", nil, true},
	{"csv", "GET", "/authors?select=id,name&name=eq.{v}", http.Header{"Accept": {"text/csv"}}, true},
	{"HEAD", "HEAD", "/authors?select=id&name=eq.{v}", nil, true},
	{"a boolean column", "GET", "/books?select=id&in_print=eq.{v}", nil, true},
	// Values in lists, patterns and logic trees stay in the shape.
	{"a list", "GET", "/books?select=id&id=in.({v})", nil, false},
	{"a pattern", "GET", "/books?select=id&title=like.{v}", nil, false},
	{"a logic tree", "GET", "/books?select=id&or=(title.eq.{v},id.eq.1)", nil, false},
	{"a quantified operator", "GET", "/books?select=id&title=eq(any).{{v}}", nil, false},
}

// shapeValues are the values every shape is asked for, in turn: ordinary
// ones, ones sqlgen or the planner treat otherwise (true and false on a
// boolean column, a value asked for twice, which a value-sensitive filter
// then writes into its statement), quoting and parameter syntax, and the
// learning sentinel itself.
var shapeValues = []string{
	"1", "2", "Arrow", "", "true", "false", "x y", "it's", `"q"`, `back\slash`, "$1", "?", "%", "*",
	"a,b", "(x)", "{1,2}", "null", "∑ünï", "k1234:*", "2", "Arrow", "pgrst\x1fslot\x1f0", "x\x00y",
}

// TestShapeTemplatesMatchFullBuild: for every shape and value, the
// statements the shape cache answers are byte for byte those built in
// full, and a templated shape is answered from its template.
func TestShapeTemplatesMatchFullBuild(t *testing.T) {
	f := newShapeFixture(t)
	for _, st := range shapeTargets {
		t.Run(st.name, func(t *testing.T) {
			h := st.headers
			if h == nil {
				h = http.Header{}
			}
			templated, built := 0, 0
			for _, v := range shapeValues {
				got, want, tmpl, err := f.statements(t, st.method, st.target, v, h)
				if err != nil {
					continue // refused by parse or plan (a list's syntax)
				}
				built++
				if !sameStmts(got, want) {
					t.Errorf("value %q: via shapes\n%s %q\nwant (built in full)\n%s %q", v, got.main.SQL, got.main.Params, want.main.SQL, want.main.Params)
				}
				if tmpl {
					templated++
				}
			}
			if built < len(shapeValues)/2 {
				t.Errorf("only %d of %d values built", built, len(shapeValues))
			}
			if st.templated != (templated > 0) {
				t.Errorf("answered from a template %d times, want templated = %v", templated, st.templated)
			}
		})
	}
}

func TestShapeKey(t *testing.T) {
	t.Parallel()
	key := func(target string, h http.Header) string {
		t.Helper()
		path, query, _ := strings.Cut(target, "?")
		if h == nil {
			h = http.Header{}
		}
		req, err := parse.Parse(parse.Input{Method: "GET", Path: path, RawQuery: query, Header: h.Get, HeaderValues: h.Values}, parse.Options{Schemas: []string{"library"}})
		if err != nil {
			t.Fatal(err)
		}
		return string(shapeKey(req))
	}
	base := key("/books?select=id&id=eq.1&title=like.a*", nil)
	if base == "" {
		t.Fatal("no key for a plain read")
	}
	cases := []struct {
		name, target string
		headers      http.Header
		same         bool
	}{
		{"another slotted value", "/books?select=id&id=eq.2&title=like.a*", nil, true},
		{"an empty slotted value", "/books?select=id&id=eq.&title=like.a*", nil, true},
		{"another pattern", "/books?select=id&id=eq.1&title=like.b*", nil, false},
		{"another operator", "/books?select=id&id=neq.1&title=like.a*", nil, false},
		{"another column", "/books?select=id&author_id=eq.1&title=like.a*", nil, false},
		{"another select", "/books?select=id,title&id=eq.1&title=like.a*", nil, false},
		{"a limit", "/books?select=id&id=eq.1&title=like.a*&limit=1", nil, false},
		{"a count", "/books?select=id&id=eq.1&title=like.a*", http.Header{"Prefer": {"count=exact"}}, false},
		{"another media type", "/books?select=id&id=eq.1&title=like.a*", http.Header{"Accept": {"text/csv"}}, false},
		{"another table", "/authors?select=id&id=eq.1&title=like.a*", nil, false},
	}
	for _, tc := range cases {
		if got := key(tc.target, tc.headers) == base; got != tc.same {
			t.Errorf("%s: same key = %v, want %v", tc.name, got, tc.same)
		}
	}
}

// FuzzShapeTemplates: whatever the value, the shape cache's statements
// are those built in full.
func FuzzShapeTemplates(f *testing.F) {
	for _, v := range shapeValues {
		f.Add(v)
	}
	fx := newShapeFixture(f)
	targets := []string{
		"/books?select=id,title&id=eq.{v}&price=lt.{v}",
		"/books?select=id&search=fts(english).{v}&order=id&limit=3",
		"/books?select=id&in_print=neq.{v}",
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, target := range targets {
			// Two rounds, so the second is answered from the template
			// learnt (or not) in the first.
			for range 2 {
				got, want, _, err := fx.statements(t, "GET", target, v, http.Header{})
				if err != nil {
					return // refused by parse or plan, as in full
				}
				if !sameStmts(got, want) {
					t.Fatalf("%s with %q: via shapes\n%s %q\nwant\n%s %q", target, v, got.main.SQL, got.main.Params, want.main.SQL, want.main.Params)
				}
			}
		}
	})
}

// BenchmarkShapeKey: the key of the app's detail page read (19 columns,
// one id), which every read not asked before computes.
func BenchmarkShapeKey(b *testing.B) {
	const cols = "id,user_id,title,type,purpose,price,price_unit,location,description,deposit,images,created_at,is_active,payment_status,paid_until,pending_days,pending_fee,moderation_notes,updated_at"
	h := http.Header{}
	req, err := parse.Parse(parse.Input{Method: "GET", Path: "/properties", RawQuery: "select=" + cols + "&id=eq.00000000-0000-4000-8000-000000004242", Header: h.Get, HeaderValues: h.Values},
		parse.Options{Schemas: []string{"public"}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if shapeKey(req) == nil {
			b.Fatal("no key")
		}
	}
}
