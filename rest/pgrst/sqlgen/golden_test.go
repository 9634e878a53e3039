package sqlgen_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/exec"
	"github.com/kejanest/kejanest/rest/pgrst/internal/schematest"
	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) { pgtest.Main(m) }

var schemas = []string{"library", "public"}

// golden is one request whose generated SQL is pinned in testdata/<name>.sql
// and then executed against the fixture.
type golden struct {
	name    string
	method  string
	target  string
	body    string
	headers http.Header
	// rows is the page_total the statement must produce.
	rows int64
}

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// estimateUpTo is the count limit of a count=estimated read (the
// handler's max-rows + 1).
const estimateUpTo = 1001

var goldens = []golden{
	{name: "read_simple", target: "/authors?select=id,name&order=id&limit=2&offset=1", rows: 2},
	{name: "read_star_count", target: "/books?author_id=eq.1", headers: hdr("Prefer", "count=exact"), rows: 2},
	{name: "read_operators", target: "/books?select=id&price=gte.10&title=ilike.*o*&tags=cs.{kenya}&id=not.in.(9,10)&editor_id=is.null&published_on=lt.2000-01-01", rows: 1},
	{name: "read_quantified", target: "/books?select=id&title=like(any).{Weep*,Arrow*}&id=eq(all).{1}", rows: 1},
	{name: "read_fts", target: "/books?select=id&search=wfts(english).mau&summary=plfts.boy", rows: 1},
	{name: "read_json_paths", target: "/books?select=id,isbn:metadata->>isbn,metadata->edition::text&metadata->edition=gte.1&order=metadata->>isbn.desc.nullslast", rows: 3},
	{name: "read_logic", target: "/books?select=id&or=(author_id.eq.3,and(price.gt.14,tags.not.cs.{nigeria}))&not.and=(id.eq.5,price.lt.10)", rows: 1},
	{name: "read_embed_m2o_o2m", target: "/authors?select=name,books!books_author_id_fkey(title,editor:authors!editor_id(name))&id=eq.1&books.order=id&books.limit=5", rows: 1},
	{name: "read_embed_m2m_inner", target: "/books?select=id,genres!inner(name)&genres.name=eq.History&order=id", headers: hdr("Prefer", "count=exact"), rows: 2},
	{name: "read_embed_null_filter", target: "/authors?select=id,books!books_author_id_fkey(id)&books=is.null", headers: hdr("Prefer", "count=exact"), rows: 1},
	{name: "read_embed_spread_order", target: "/books?select=id,...authors!books_author_id_fkey(author:name)&author_id=not.is.null&order=authors(name).desc,id", rows: 5},
	{name: "read_embed_spread_to_many_presence", target: "/authors?select=id,...books!books_author_id_fkey(title)&books=not.is.null&books.order=id", headers: hdr("Prefer", "count=exact"), rows: 3},
	{name: "read_aggregates", target: "/books?select=author_id,price.sum(),count()&author_id=not.is.null", rows: 3},
	{name: "read_single", target: "/authors?select=name&id=eq.1", headers: hdr("Accept", "application/vnd.pgrst.object+json"), rows: 1},
	{name: "read_csv", target: "/authors?select=id,name&order=id", headers: hdr("Accept", "text/csv"), rows: 4},
	{name: "read_planned", target: "/authors?select=id", headers: hdr("Prefer", "count=planned"), rows: 4},
	{name: "read_boolean_literals", target: "/books?select=id&in_print=eq.true&id=neq.99&order=id", rows: 5},
	{name: "read_boolean_neq", target: "/books?select=id&in_print=neq.true&order=id", rows: 1},
	{name: "read_estimated", target: "/books?select=id&author_id=not.is.null&order=id&limit=2", headers: hdr("Prefer", "count=estimated"), rows: 2},
	{name: "insert_bulk", method: "POST", target: `/authors?columns="id","name"`, body: `[{"id":50,"name":"A"},{"id":51,"name":"B"}]`, rows: 2},
	{name: "insert_defaults_representation", method: "POST", target: "/books?columns=title,tags&select=id,title,tags", body: `[{"title":"X"}]`,
		headers: hdr("Prefer", "missing=default, return=representation"), rows: 1},
	{name: "upsert_merge", method: "POST", target: "/settings?on_conflict=key", body: `{"key":"theme","value":"light"}`, headers: hdr("Prefer", "resolution=merge-duplicates"), rows: 1},
	{name: "upsert_ignore_location", method: "POST", target: "/genres", body: `{"id":60,"name":"Z"}`, headers: hdr("Prefer", "resolution=ignore-duplicates, return=headers-only"), rows: 1},
	{name: "update", method: "PATCH", target: "/books?id=eq.1&select=id,price", body: `{"price":13}`, headers: hdr("Prefer", "return=representation"), rows: 1},
	{name: "delete", method: "DELETE", target: "/book_genres?book_id=eq.1&genre_id=in.(1,2)", rows: 2},
	{name: "put", method: "PUT", target: "/genres?id=eq.70", body: `{"id":70,"name":"Y"}`, rows: 1},
	{name: "call_get_scalar", target: "/rpc/add?a=1&b=2", rows: 1},
	{name: "call_post_setof", method: "POST", target: "/rpc/books_by?select=id,genres(name)&order=id&limit=1", body: `{"author":2}`, headers: hdr("Prefer", "count=exact"), rows: 1},
	{name: "call_single_param", method: "POST", target: "/rpc/echo", body: `{"a":1}`, rows: 1},
	{name: "call_variadic", target: "/rpc/sum_all?nums=1&nums=2", rows: 1},
	{name: "call_setof_scalar", target: "/rpc/tag_list", rows: 5},
	{name: "call_head_count", method: "HEAD", target: "/rpc/books_by?author=1&price=gt.13&limit=5", headers: hdr("Prefer", "count=exact"), rows: 1},
	{name: "read_rel_count", target: "/authors?select=id,books!books_author_id_fkey(count)&order=id", rows: 4},
}

type fixture struct {
	pool  *pgxpool.Pool
	cache *schemacache.Cache
}

func setup(t *testing.T) *fixture {
	t.Helper()
	pool, cache := schematest.Load(t, "rest.sql", schemas)
	return &fixture{pool: pool, cache: cache}
}

// build runs parse, plan and sqlgen as the pipeline does.
func build(c *schemacache.Cache, g golden) (main sqlgen.Query, planned *sqlgen.Query, readOnly bool, err error) {
	return buildIn(c, g, schemas)
}

// buildIn is build with the exposed schemas given.
func buildIn(c *schemacache.Cache, g golden, schemas []string) (main sqlgen.Query, planned *sqlgen.Query, readOnly bool, err error) {
	method := g.method
	if method == "" {
		method = "GET"
	}
	path, query, _ := strings.Cut(g.target, "?")
	h := g.headers
	if h == nil {
		h = http.Header{}
	}
	if g.body != "" && h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	in := parse.Input{Method: method, Path: path, RawQuery: query, Header: h.Get, HeaderValues: func(k string) []string { return h.Values(k) }, Body: []byte(g.body)}
	req, err := parse.Parse(in, parse.Options{Schemas: schemas})
	if err != nil {
		return main, nil, false, err
	}
	// The parsed request is shared between requests (parse.SelectCache),
	// so planning must leave it as parse made it.
	pristine, _ := parse.Parse(in, parse.Options{Schemas: schemas})
	defer func() {
		if err == nil && !reflect.DeepEqual(req, pristine) {
			err = fmt.Errorf("planning %s changed the parsed request", g.target)
		}
	}()
	opt := plan.Options{MaxRows: 1000, Aggregates: true}
	mt := parse.MediaType{Type: parse.MTJSON}
	for _, a := range req.Accept {
		if a.Type != parse.MTAny {
			mt = a
		}
		break
	}
	out := sqlgen.Output{}
	switch mt.Type {
	case parse.MTObject:
		out.Handler = sqlgen.HandlerSingle
	case parse.MTCSV:
		out.Handler = sqlgen.HandlerCSV
	}
	exact := req.Prefs.Count == "exact"
	switch req.Action {
	case parse.ActCall:
		cp, err := plan.Call(c, req)
		if err != nil {
			return main, nil, false, err
		}
		rp, err := plan.Read(c, cp.Func.ResultTable(c), req, plan.RootCall, opt)
		if err != nil {
			return main, nil, false, err
		}
		out.Func = cp.Func
		main, err = sqlgen.Call(cp, rp, exact, out)
		return main, nil, method != "POST" || cp.Func.Volatility != 'v', err
	case parse.ActRead:
		t := c.Table(schemacache.QI{Schema: req.Schema, Name: req.Resource})
		rp, err := plan.Read(c, t, req, plan.RootTable, opt)
		if err != nil {
			return main, nil, false, err
		}
		if req.Prefs.Count == "planned" {
			q, err := sqlgen.PlannedCount(rp)
			if err != nil {
				return main, nil, false, err
			}
			planned = &q
		}
		if req.Prefs.Count == "estimated" {
			main, err = sqlgen.ReadCountUpTo(rp, estimateUpTo, out)
			return main, planned, true, err
		}
		main, err = sqlgen.Read(rp, exact, out)
		return main, planned, true, err
	default:
		t := c.Table(schemacache.QI{Schema: req.Schema, Name: req.Resource})
		m, err := plan.Mutate(c, t, req, plan.MutateOptions{SafeUpdate: true})
		if err != nil {
			return main, nil, false, err
		}
		var rp *plan.ReadPlan
		if req.Prefs.Return == "representation" {
			if rp, err = plan.Read(c, t, req, plan.RootMutation, opt); err != nil {
				return main, nil, false, err
			}
		} else {
			out.Handler = sqlgen.HandlerNone
		}
		main, err = sqlgen.Mutate(m, rp, out, req.Prefs.Return == "headers-only")
		return main, nil, false, err
	}
}

func render(q sqlgen.Query, planned *sqlgen.Query) string {
	var b strings.Builder
	if planned != nil {
		b.WriteString(planned.SQL + ";\n")
		for i, a := range planned.Args {
			fmt.Fprintf(&b, "-- $%d = %#v\n", i+1, a)
		}
	}
	b.WriteString(q.SQL + ";\n")
	for i, a := range q.Args {
		fmt.Fprintf(&b, "-- $%d = %#v\n", i+1, a)
	}
	return b.String()
}

// TestGolden pins the SQL of each request in testdata (go test -update
// rewrites them) and runs each statement against the fixture, as
// service_role inside a transaction that is rolled back.
func TestGolden(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			runGolden(t, f, g, schemas)
		})
	}
}

// runGolden builds g against the exposed schemas, compares its SQL with
// testdata/<name>.sql (go test -update rewrites it), runs it as
// service_role inside a transaction that is rolled back, checks its page
// total and returns the body.
func runGolden(t *testing.T, f *fixture, g golden, exposed []string) []byte {
	t.Helper()
	main, planned, readOnly, err := buildIn(f.cache, g, exposed)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	got := render(main, planned)
	file := filepath.Join("testdata", g.name+".sql")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(file); err != nil {
		t.Fatalf("%v (run go test -update)", err)
	} else if string(want) != got {
		t.Errorf("SQL of %s changed (go test -update to accept):\n%s", g.name, got)
	}
	path := make([]string, 0, len(exposed)+1)
	for _, s := range exposed {
		path = append(path, `"`+s+`"`)
	}
	if exposed[len(exposed)-1] != "public" {
		path = append(path, `"public"`)
	}
	pre := sqlgen.Preamble([][2]string{{"search_path", strings.Join(path, ", ")}, {"role", "service_role"}, {"request.jwt.claims", `{"role":"service_role"}`}})
	res, err := exec.Run(context.Background(), f.pool, exec.Tx{ReadOnly: readOnly, Preamble: pre, Planned: planned, Main: main, Rollback: true,
		After: func(context.Context, exec.Querier, *exec.Result) error { return nil }})
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if res.PageTotal != g.rows {
		t.Errorf("page_total = %d, want %d (body %s)", res.PageTotal, g.rows, res.Body)
	}
	return res.Body
}

// The stage benchmarks: parse, plan and sqlgen of a typical listing query.
const benchQuery = "select=*,authors!books_author_id_fkey(name)&in_print=eq.true&title=ilike.%25o%25&order=created_at.desc&limit=20"

func BenchmarkStages(b *testing.B) {
	db := pgtest.New(b, pgtest.Options{Fixtures: []string{filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", "rest.sql")}})
	pool, err := pgxpool.New(context.Background(), db.URLAs("authenticator"))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	h := schemacache.NewHolder(pool, schemas, nil)
	if err := h.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	c := h.Get()
	hd := http.Header{}
	in := parse.Input{Method: "GET", Path: "/books", RawQuery: benchQuery, Header: hd.Get, HeaderValues: hd.Values}
	opt := parse.Options{Schemas: schemas}
	req, _ := parse.Parse(in, opt)
	t := c.Table(schemacache.QI{Schema: "library", Name: "books"})
	rp, _ := plan.Read(c, t, req, plan.RootTable, plan.Options{MaxRows: 1000})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parse.Parse(in, opt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := plan.Read(c, t, req, plan.RootTable, plan.Options{MaxRows: 1000}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlgen", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sqlgen.Read(rp, false, sqlgen.Output{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPlanLeavesRequestAlone: planning reads the parsed request and
// never changes it (buildIn fails otherwise), which sharing parsed
// select= lists between requests relies on; here with the select items
// the planner rewrites for itself, beyond the goldens'.
func TestPlanLeavesRequestAlone(t *testing.T) {
	f := setup(t)
	for _, target := range []string{
		"/books?select=*,id::text,metadata->>isbn",
		"/authors?select=*,books!books_author_id_fkey(*,title::text)",
		"/books?select=id,...authors!books_author_id_fkey(name.count(),id.max())",
		"/authors?select=id,books!books_author_id_fkey(count)",
	} {
		if _, _, _, err := build(f.cache, golden{name: target, target: target}); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
}
