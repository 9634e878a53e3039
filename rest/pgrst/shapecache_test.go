package pgrst

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/internal/schematest"
	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
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

// parseTarget parses a request for target (path and query) as Serve
// does, with body, the headers h (nil for none) and the exposed schemas.
func parseTarget(method, target, body string, h http.Header, schemas []string) (*parse.ApiRequest, error) {
	if h == nil {
		h = http.Header{}
	}
	path, query, _ := strings.Cut(target, "?")
	return parse.Parse(parse.Input{Method: method, Path: path, RawQuery: query, Header: h.Get, HeaderValues: h.Values, Body: []byte(body)},
		parse.Options{Schemas: schemas})
}

// statements runs target (with value in place of every {v}) through
// parse and plan as a request does, then builds its statements both ways:
// through the shape cache, and in full. It reports whether the shape
// cache answered from a learnt template.
// A request that parse or plan refuse returns their error.
func (f *shapeFixture) statements(t testing.TB, method, target, value string, h http.Header) (viaShapes, full readStmts, templated bool, err error) {
	t.Helper()
	req, err := parseTarget(method, strings.ReplaceAll(target, "{v}", url.QueryEscape(value)), "", h, f.cfg.Schemas)
	if err != nil {
		return viaShapes, full, false, err
	}
	x, tbl, mt, root, err := f.plan(t, req)
	if err != nil {
		return viaShapes, full, false, err
	}
	if vals := slotValues(req); len(vals) > 0 && !anyInline(root) {
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

// plan plans req as a request's read is planned, in a call on f's
// caches; an error is plan's refusal.
func (f *shapeFixture) plan(t testing.TB, req *parse.ApiRequest) (*call, *schemacache.Table, parse.MediaType, *plan.ReadPlan, error) {
	t.Helper()
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
	return x, tbl, mt, root, err
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
	// often: the request is asked for plan.InlineAt times before, so its
	// value-sensitive filters are written into the statement.
	often bool
}{
	{"detail by id", "GET", "/books?select=id,title,price&id=eq.{v}", nil, true, false},
	{"full-text search, estimated count", "GET", "/books?select=id&search=fts(english).{v}&order=id&limit=3", http.Header{"Prefer": {"count=estimated"}}, true, false},
	{"search without a configuration", "GET", "/books?select=id&search=wfts.{v}", nil, true, false},
	{"a slotted value beside another filter", "GET", "/books?select=id&price=gte.{v}&editor_id=is.null", nil, true, false},
	// A pattern asked for often is written into the statement (sightings),
	// and such a read is built in full.
	{"a slotted value beside a repeated pattern", "GET", "/books?select=id&price=gte.{v}&title=ilike.*o*", nil, false, true},
	{"two slotted values", "GET", "/books?select=id&title=match.{v}&published_on=lt.{v}", http.Header{"Prefer": {"count=planned"}}, true, false},
	{"negated, with an exact count", "GET", "/books?select=id&author_id=not.eq.{v}&order=id", http.Header{"Prefer": {"count=exact"}}, true, false},
	{"an embedded filter", "GET", "/authors?select=id,books!books_author_id_fkey(id)&books.title=neq.{v}&id=gt.{v}", nil, true, false},
	{"a JSON path", "GET", "/books?select=id&metadata->>isbn=eq.{v}", nil, true, false},
	{"csv", "GET", "/authors?select=id,name&name=eq.{v}", http.Header{"Accept": {"text/csv"}}, true, false},
	{"HEAD", "HEAD", "/authors?select=id&name=eq.{v}", nil, true, false},
	{"a boolean column", "GET", "/books?select=id&in_print=eq.{v}", nil, true, false},
	// true and false stay in the shape, so the values beside them take
	// slots (the app's list and search: is_active=eq.true and a word).
	{"a slotted value beside a boolean true", "GET", "/books?select=id&in_print=eq.true&search=fts(english).{v}&order=id&limit=3", http.Header{"Prefer": {"count=estimated"}}, true, false},
	{"a slotted value beside a boolean false", "GET", "/books?select=id&in_print=not.eq.false&title=neq.{v}", nil, true, false},
	{"a slotted value beside true on a text column", "GET", "/books?select=id&title=eq.true&price=gte.{v}", nil, true, false},
	// A pattern's slot takes it as bound, its * already %: the app's
	// location filter (ilike.*estate*) with another estate each time.
	{"a pattern", "GET", "/books?select=id&title=like.{v}", nil, true, false},
	{"a contains pattern beside a boolean", "GET", "/books?select=id&in_print=eq.true&title=ilike.*{v}*&order=id&limit=12", http.Header{"Prefer": {"count=estimated"}}, true, false},
	{"a negated pattern", "GET", "/books?select=id&title=not.ilike.{v}*&price=lt.{v}", nil, true, false},
	// An in list's slot takes its array literal, however many values it
	// holds (the app's saved listings: id=in.(…) of the user's ids).
	{"a list", "GET", "/books?select=id&id=in.({v})", nil, true, false},
	{"a list of two beside a boolean", "GET", "/books?select=id,title&in_print=eq.true&title=in.({v},\"{v}\")&price=lt.{v}", nil, true, false},
	{"a negated list, with an exact count", "GET", "/books?select=id&author_id=not.in.({v})&order=id", http.Header{"Prefer": {"count=exact"}}, true, false},
	// The empty list is written as '{}' and stays in the shape.
	{"an empty list beside a value", "GET", "/books?select=id&id=in.()&title=eq.{v}", nil, true, false},
	// Values in quantified operators and logic trees stay in the shape.
	{"a list of patterns", "GET", "/books?select=id&title=like(any).{{v}*}", nil, false, false},
	{"a logic tree", "GET", "/books?select=id&or=(title.eq.{v},id.eq.1)", nil, false, false},
	{"a quantified operator", "GET", "/books?select=id&title=eq(any).{{v}}", nil, false, false},
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
			matchFullBuild(t, st.templated, st.often, func(v string) (readStmts, readStmts, bool, error) {
				return f.statements(t, st.method, st.target, v, h)
			})
		})
	}
}

// matchFullBuild builds a shape (build) for every value in shapeValues in
// turn, and checks that the statements the shape cache answered are those
// built in full, and that some value after the first was answered from a
// template exactly when wantTemplated. With often, the first value is
// built plan.InlineAt times first.
func matchFullBuild(t *testing.T, wantTemplated, often bool, build func(v string) (viaShapes, full readStmts, templated bool, err error)) {
	t.Helper()
	if often {
		for range plan.InlineAt {
			if _, _, _, err := build(shapeValues[0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	templated, built := 0, 0
	for _, v := range shapeValues {
		got, want, tmpl, err := build(v)
		if err != nil {
			continue // refused by parse or plan (a list's syntax), as in full
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
	if wantTemplated != (templated > 0) {
		t.Errorf("answered from a template %d times, want templated = %v", templated, wantTemplated)
	}
}

func TestShapeKey(t *testing.T) {
	t.Parallel()
	key := func(target string, h http.Header) string {
		t.Helper()
		req, err := parseTarget("GET", target, "", h, []string{"library"})
		if err != nil {
			t.Fatal(err)
		}
		return string(shapeKey(req))
	}
	const base = "/books?select=id&id=eq.1&title=like.a*"
	if key(base, nil) == "" {
		t.Fatal("no key for a plain read")
	}
	// An in list takes one slot whatever it holds; the empty list, which
	// sqlgen writes into the text, stays in the shape.
	const list = "/books?select=id&id=in.(1,2)"
	cases := []struct {
		name, of, target string // of: the target compared with
		headers          http.Header
		same             bool
	}{
		{"another slotted value", base, "/books?select=id&id=eq.2&title=like.a*", nil, true},
		{"an empty slotted value", base, "/books?select=id&id=eq.&title=like.a*", nil, true},
		{"another pattern", base, "/books?select=id&id=eq.1&title=like.b*", nil, true},
		{"a pattern's * as %", base, "/books?select=id&id=eq.1&title=like.a%25", nil, true},
		{"another pattern operator", base, "/books?select=id&id=eq.1&title=ilike.a*", nil, false},
		{"a list of patterns", base, "/books?select=id&id=eq.1&title=like(any).{a*}", nil, false},
		{"a list in a slot's place", base, "/books?select=id&id=in.(1,2)&title=like.a*", nil, false},
		{"another operator", base, "/books?select=id&id=neq.1&title=like.a*", nil, false},
		{"another column", base, "/books?select=id&author_id=eq.1&title=like.a*", nil, false},
		{"another select", base, "/books?select=id,title&id=eq.1&title=like.a*", nil, false},
		{"a limit", base, "/books?select=id&id=eq.1&title=like.a*&limit=1", nil, false},
		{"a count", base, base, http.Header{"Prefer": {"count=exact"}}, false},
		{"another media type", base, base, http.Header{"Accept": {"text/csv"}}, false},
		{"another table", base, "/authors?select=id&id=eq.1&title=like.a*", nil, false},
		// true and false are kept, not slotted (sqlgen may write them).
		{"true in a slot's place", base, "/books?select=id&id=eq.true&title=like.a*", nil, false},
		{"false in a slot's place", base, "/books?select=id&id=eq.false&title=like.a*", nil, false},
		{"another list", list, "/books?select=id&id=in.(3)", nil, true},
		{"a longer list", list, "/books?select=id&id=in.(3,4,5,6)", nil, true},
		{"a quoted empty value in a list", list, "/books?select=id&id=in.(\"\",1)", nil, true},
		{"the empty list", list, "/books?select=id&id=in.()", nil, false},
		{"a list of one empty value", list, "/books?select=id&id=in.(\"\")", nil, false},
		{"a negated list", list, "/books?select=id&id=not.in.(1,2)", nil, false},
		// parse reads both as the empty list (as PostgREST does).
		{"in.() and in.(\"\")", "/books?select=id&id=in.()", "/books?select=id&id=in.(\"\")", nil, true},
	}
	for _, tc := range cases {
		if got := key(tc.target, tc.headers) == key(tc.of, nil); got != tc.same {
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
		"/books?select=id&in_print=eq.true&title=eq.{v}&price=gt.{v}",
		"/books?select=id&title=ilike.*{v}*&summary=like.{v}&price=gt.{v}",
		"/books?select=id&id=in.({v})&title=in.({v},{v})&author_id=not.in.({v})",
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
	req, err := parseTarget("GET", "/properties?select="+cols+"&id=eq.00000000-0000-4000-8000-000000004242", "", nil, []string{"public"})
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

// callStatements runs a call (target and body as sent) through parse and
// plan as a request does, then builds its statement both ways: through
// the shape cache, and in full. It reports whether the shape cache
// answered from a learnt template. A request that parse or plan refuse
// returns their error.
func (f *shapeFixture) callStatements(t testing.TB, method, target, body string, h http.Header) (viaShapes, full sqlgen.Query, templated bool, err error) {
	t.Helper()
	req, err := parseTarget(method, target, body, h, f.cfg.Schemas)
	if err != nil {
		return viaShapes, full, false, err
	}
	x := &call{ctx: context.Background(), h: f.h, cfg: f.cfg, c: f.snap, req: req}
	p, err := x.planCall()
	if err != nil {
		return viaShapes, full, false, err
	}
	if !anyInline(p.read) {
		if key := callShapeKey(req, p.cp); key != nil {
			tmpl, known := f.h.shapes.get(key, f.snap, f.cfg)
			templated = known && tmpl != nil
		}
	}
	viaShapes, err1 := x.callStatement(p)
	full, err2 := buildCall(p, p.cp, p.read)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("%s %s %q: via shapes: %v; built in full: %v", method, target, body, err1, err2)
	}
	return viaShapes, full, templated, err1
}

// callTargets are calls with {v} where a value goes: in a body, as JSON
// text; in a query string, escaped.
var callTargets = []struct {
	name, method, target, body string
	headers                    http.Header
	templated, often           bool
}{
	{"POST, named arguments", "POST", "/rpc/add", `{"a": {v}, "b": 2}`, nil, true, false},
	{"POST, an argument with a default", "POST", "/rpc/greet", `{"name": {v}}`, nil, true, false},
	{"POST, no arguments", "POST", "/rpc/book_count", `{}`, nil, true, false},
	{"POST, a single unnamed parameter", "POST", "/rpc/echo", `{"x": {v}}`, nil, true, false},
	{"POST, filtered rows", "POST", "/rpc/books_by?select=id,title&title=neq.{v}&order=id", `{"author": {v}}`, nil, true, false},
	{"POST, filtered on a boolean column", "POST", "/rpc/books_by?select=id&in_print=eq.{v}", `{"author": 1}`, nil, true, false},
	{"POST, a single object", "POST", "/rpc/first_book?select=id,title", `{}`, http.Header{"Accept": {"application/vnd.pgrst.object+json"}}, true, false},
	{"POST, an exact count", "POST", "/rpc/books_by?select=id&id=gt.{v}", `{"author": {v}}`, http.Header{"Prefer": {"count=exact"}}, true, false},
	{"GET, arguments", "GET", "/rpc/add?a={v}&b=2", "", nil, true, false},
	{"GET, a variadic argument given twice", "GET", "/rpc/sum_all?nums={v}&nums=2", "", nil, true, false},
	{"GET, a variadic argument", "GET", "/rpc/sum_all?nums={v}", "", nil, true, false},
	{"GET, a set of scalars", "GET", "/rpc/tag_list", "", nil, true, false},
	// Filters' slots come before the arguments': a list and a pattern,
	// whose slots take what sqlgen binds, beside an argument.
	{"POST, rows filtered by a list and a pattern", "POST", "/rpc/books_by?select=id&id=in.({v},3)&title=like.*{v}", `{"author": {v}}`, nil, true, false},
	// A pattern asked for often is written into the statement.
	{"POST, a repeated pattern", "POST", "/rpc/books_by?select=id&title=ilike.*o*", `{"author": {v}}`, nil, false, true},
}

// TestCallShapesMatchFullBuild: for every call and value, the statement
// the shape cache answers is byte for byte the one built in full, and a
// templated call is answered from its template.
func TestCallShapesMatchFullBuild(t *testing.T) {
	f := newShapeFixture(t)
	for _, ct := range callTargets {
		t.Run(ct.name, func(t *testing.T) {
			h := ct.headers
			if h == nil {
				h = http.Header{}
			}
			matchFullBuild(t, ct.templated, ct.often, func(v string) (readStmts, readStmts, bool, error) {
				js, _ := json.Marshal(v)
				target := strings.ReplaceAll(ct.target, "{v}", url.QueryEscape(v))
				body := strings.ReplaceAll(ct.body, "{v}", string(js))
				got, want, tmpl, err := f.callStatements(t, ct.method, target, body, h)
				return readStmts{main: got}, readStmts{main: want}, tmpl, err
			})
		})
	}
}

// TestCallShapesFollowTheArguments: calls of one function whose bodies
// name other parameters, or another overload, in turn, each answered as
// built in full.
func TestCallShapesFollowTheArguments(t *testing.T) {
	f := newShapeFixture(t)
	bodies := []string{
		`{"a": 1, "b": 2}`, `{"a": 1, "b": 2, "c": 3}`, `{"b": 5, "a": 6}`, `{"a": 1, "b": 2, "c": 4}`,
		`{"a": "x", "b": null}`, `{"a": 1}`, `{"a": 1, "b": 2}`, ` {"b":2,"a":1} `, `[{"a": 1, "b": 2}]`, `{}`,
	}
	templated := 0
	for range 2 {
		for _, body := range bodies {
			got, want, tmpl, err := f.callStatements(t, "POST", "/rpc/add", body, http.Header{})
			if err != nil {
				continue // no such overload: refused in full as well
			}
			if !sameQuery(&got.SQL, got.Params, &want.SQL, want.Params) {
				t.Errorf("%s: via shapes\n%s %q\nwant (built in full)\n%s %q", body, got.SQL, got.Params, want.SQL, want.Params)
			}
			if tmpl {
				templated++
			}
		}
	}
	if templated == 0 {
		t.Error("no call answered from a template")
	}
}

func TestCallShapeKey(t *testing.T) {
	f := newShapeFixture(t)
	key := func(method, target, body string) string {
		t.Helper()
		req, err := parseTarget(method, target, body, nil, f.cfg.Schemas)
		if err != nil {
			t.Fatal(err)
		}
		x := &call{ctx: context.Background(), h: f.h, cfg: f.cfg, c: f.snap, req: req}
		p, err := x.planCall()
		if err != nil {
			t.Fatal(err)
		}
		return string(callShapeKey(req, p.cp))
	}
	base := key("POST", "/rpc/add", `{"a": 1, "b": 2}`)
	if base == "" {
		t.Fatal("no key for a plain call")
	}
	cases := []struct {
		name, method, target, body string
		same                       bool
	}{
		{"other values", "POST", "/rpc/add", `{"a": 10, "b": "x"}`, true},
		{"the keys in another order", "POST", "/rpc/add", `{"b": 2, "a": 1}`, true},
		{"another overload", "POST", "/rpc/add", `{"a": 1, "b": 2, "c": 3}`, false},
		{"a limit", "POST", "/rpc/add?limit=1", `{"a": 1, "b": 2}`, false},
		{"GET", "GET", "/rpc/add?a=1&b=2", "", false},
		{"another function", "POST", "/rpc/greet", `{"name": "x"}`, false},
	}
	for _, tc := range cases {
		if got := key(tc.method, tc.target, tc.body) == base; got != tc.same {
			t.Errorf("%s: same key = %v, want %v", tc.name, got, tc.same)
		}
	}
	if key("POST", "/rpc/books_by?select=id", `{"author": 1}`) == key("POST", "/rpc/books_by?select=id,title", `{"author": 1}`) {
		t.Error("another select list kept the key")
	}
	if key("GET", "/rpc/add?a=1&b=2", "") != key("GET", "/rpc/add?a=7&b=x", "") {
		t.Error("GET arguments' values or order changed the key")
	}
}

// FuzzCallShapeTemplates: whatever the body, the shape cache's statement
// is the one built in full.
func FuzzCallShapeTemplates(f *testing.F) {
	for _, b := range []string{`{"a": 1, "b": 2}`, `{"a": 1, "b": 2, "c": 3}`, `{}`, `[]`, `{"name": "x"}`, `{"author": 1}`, `null`, `"pgrst` + "\x1fslot\x1f0" + `"`, `{"a": "pgrst\u001fslot\u001f0", "b": 1}`} {
		f.Add(b)
	}
	fx := newShapeFixture(f)
	fns := []string{"/rpc/add", "/rpc/greet", "/rpc/echo", "/rpc/books_by?select=id&id=gt.1", "/rpc/book_count"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, fn := range fns {
			for range 2 {
				got, want, _, err := fx.callStatements(t, "POST", fn, body, http.Header{})
				if err != nil {
					break // refused by parse or plan, as in full
				}
				if !sameQuery(&got.SQL, got.Params, &want.SQL, want.Params) {
					t.Fatalf("%s with %q: via shapes\n%s %q\nwant\n%s %q", fn, body, got.SQL, got.Params, want.SQL, want.Params)
				}
			}
		}
	})
}
