package parse

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestParseSelect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // compact rendering, see render
		err  string // substring of details
	}{
		{in: "*", want: "*"},
		{in: "", want: ""},
		{in: "id,name", want: "id,name"},
		{in: "id, name ", want: "id,name"},
		{in: "alias:name", want: "alias:name"},
		{in: "name::text", want: "name::text"},
		{in: "alias:data->a->>b::int", want: "alias:data->a->>b::int"},
		{in: "data->0->-1", want: "data->+0->-1"},
		{in: `"weird col":"x,y"`, want: "weird col:x,y"},
		{in: "first-name", want: "first-name"},
		{in: "count()", want: "*.count()"},
		{in: "total:count()::text", want: "total:*.count()::text"},
		{in: "amount.sum(),status", want: "amount.sum(),status"},
		{in: "amount::int.avg()::text", want: "amount::int.avg()::text"},
		{in: "price.max(),price.min()", want: "price.max(),price.min()"},
		{in: "*,client(*)", want: "*,client(*)"},
		{in: "*,c:clients!fk_name!inner(id,name)", want: "*,c:clients!fk_name!inner(id,name)"},
		{in: "rel!left(*)", want: "rel!left(*)"},
		{in: "rel!inner!hint(*)", want: "rel!hint!inner(*)"},
		{in: "...rel(a,b),x", want: "...rel(a,b),x"},
		{in: "...rel!h!inner(a)", want: "...rel!h!inner(a)"},
		{in: "a(b(c(d)))", want: "a(b(c(d)))"},
		{in: "rel(count)", want: "rel(count)"},
		{in: "rel()", want: "rel()"},
		{in: "id,clients(name[])", err: `unexpected "["`},
		{in: "name!hint", err: `unexpected "!"`},
		{in: "name::", err: "unexpected end of input"},
		{in: "name::$x$", err: `unexpected "$"`},
		{in: "name::text $q$,b", err: `unexpected "$"`},
		{in: "a.sum()::$$", err: `unexpected "$"`},
		{in: "name::double precision", want: "name::double precision"},
		{in: "name::my$type", want: "name::my$type"},
		{in: "rel(a", err: "unexpected end of input"},
		{in: "data->>-78xy", err: `unexpected "x"`},
		{in: strings.Repeat("a(", 40) + strings.Repeat(")", 40), err: "nesting"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSelect(tt.in)
			if tt.err != "" {
				var pe *pgrsterr.Error
				if err == nil || !asPGRST(err, &pe) || pe.Code != "PGRST100" || !strings.Contains(pe.Details.(string), tt.err) {
					t.Fatalf("ParseSelect(%q) = %v, %v; want PGRST100 with %q", tt.in, render(got), err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSelect(%q): %v", tt.in, err)
			}
			if r := render(got); r != tt.want {
				t.Errorf("ParseSelect(%q) = %q, want %q", tt.in, r, tt.want)
			}
		})
	}
}

func asPGRST(err error, pe **pgrsterr.Error) bool {
	e, ok := err.(*pgrsterr.Error)
	*pe = e
	return ok
}

func render(items []*SelectItem) string {
	var parts []string
	for _, it := range items {
		var b strings.Builder
		switch it.Kind {
		case SelectSpread:
			b.WriteString("..." + it.Relation)
		case SelectRelation:
			if it.Alias != "" {
				b.WriteString(it.Alias + ":")
			}
			b.WriteString(it.Relation)
		default:
			if it.Alias != "" {
				b.WriteString(it.Alias + ":")
			}
			b.WriteString(renderField(it.Field))
			if it.Cast != "" {
				b.WriteString("::" + it.Cast)
			}
			if it.Aggregate != "" {
				b.WriteString("." + it.Aggregate + "()")
			}
			if it.AggregateCast != "" {
				b.WriteString("::" + it.AggregateCast)
			}
		}
		if it.Kind != SelectField {
			if it.Hint != "" {
				b.WriteString("!" + it.Hint)
			}
			if it.JoinType != "" {
				b.WriteString("!" + it.JoinType)
			}
			b.WriteString("(" + render(it.Children) + ")")
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ",")
}

func renderField(f Field) string {
	s := f.Name
	for _, op := range f.JSONPath {
		if op.Text {
			s += "->>"
		} else {
			s += "->"
		}
		s += op.Key
	}
	return s
}

func TestParseFilterValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want OpExpr
		err  bool
	}{
		{in: "eq.1", want: OpExpr{Op: "eq", Value: "1"}},
		{in: "eq.", want: OpExpr{Op: "eq", Value: ""}},
		{in: "eq.a.b,c)", want: OpExpr{Op: "eq", Value: "a.b,c)"}},
		{in: "not.eq.1", want: OpExpr{Not: true, Op: "eq", Value: "1"}},
		{in: "neq.x", want: OpExpr{Op: "neq", Value: "x"}},
		{in: "gt.1", want: OpExpr{Op: "gt", Value: "1"}},
		{in: "gte.1", want: OpExpr{Op: "gte", Value: "1"}},
		{in: "lt.1", want: OpExpr{Op: "lt", Value: "1"}},
		{in: "lte.1", want: OpExpr{Op: "lte", Value: "1"}},
		{in: "like.*a%", want: OpExpr{Op: "like", Value: "*a%"}},
		{in: "ilike.%nairobi%", want: OpExpr{Op: "ilike", Value: "%nairobi%"}},
		{in: "like(any).{a*,*b}", want: OpExpr{Op: "like", Quant: "any", Value: "{a*,*b}"}},
		{in: "eq(all).{1,2}", want: OpExpr{Op: "eq", Quant: "all", Value: "{1,2}"}},
		{in: "match.^a", want: OpExpr{Op: "match", Value: "^a"}},
		{in: "imatch.^A", want: OpExpr{Op: "imatch", Value: "^A"}},
		{in: "in.(1,2,3)", want: OpExpr{Op: "in", List: []string{"1", "2", "3"}}},
		{in: `in.("a,b",c)`, want: OpExpr{Op: "in", List: []string{"a,b", "c"}}},
		{in: "in.()", want: OpExpr{Op: "in", List: []string{""}}},
		{in: "not.in.(1)", want: OpExpr{Not: true, Op: "in", List: []string{"1"}}},
		{in: "is.null", want: OpExpr{Op: "is", Is: "null"}},
		{in: "is.NULL", want: OpExpr{Op: "is", Is: "null"}},
		{in: "is.not_null", want: OpExpr{Op: "is", Is: "not_null"}},
		{in: "is.true", want: OpExpr{Op: "is", Is: "true"}},
		{in: "is.unknown", want: OpExpr{Op: "is", Is: "unknown"}},
		{in: "isdistinct.x", want: OpExpr{Op: "isdistinct", Value: "x"}},
		{in: "cs.{a,b}", want: OpExpr{Op: "cs", Value: "{a,b}"}},
		{in: `cd.{"k":1}`, want: OpExpr{Op: "cd", Value: `{"k":1}`}},
		{in: "ov.[1,5)", want: OpExpr{Op: "ov", Value: "[1,5)"}},
		{in: "sl.(1,2)", want: OpExpr{Op: "sl", Value: "(1,2)"}},
		{in: "sr.(1,2)", want: OpExpr{Op: "sr", Value: "(1,2)"}},
		{in: "nxr.(1,2)", want: OpExpr{Op: "nxr", Value: "(1,2)"}},
		{in: "nxl.(1,2)", want: OpExpr{Op: "nxl", Value: "(1,2)"}},
		{in: "adj.(1,2)", want: OpExpr{Op: "adj", Value: "(1,2)"}},
		{in: "fts.cat", want: OpExpr{Op: "fts", Value: "cat"}},
		{in: "plfts(english).fat cat", want: OpExpr{Op: "plfts", Lang: "english", Value: "fat cat"}},
		{in: "phfts.a b", want: OpExpr{Op: "phfts", Value: "a b"}},
		{in: "wfts(simple).a -b", want: OpExpr{Op: "wfts", Lang: "simple", Value: "a -b"}},
		{in: "noop.1", err: true},
		{in: "is.maybe", err: true},
		{in: "in.(1", err: true},
		{in: "eq", err: true},
		{in: "val", err: true},
		{in: "fts().x", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFilterValue(tt.in)
			if tt.err {
				if err == nil {
					t.Fatalf("ParseFilterValue(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil || js(got) != js(tt.want) {
				t.Errorf("ParseFilterValue(%q) = %s, %v; want %s", tt.in, js(got), err, js(tt.want))
			}
		})
	}
}

func TestParseLogic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		op, in string
		want   string
		err    bool
	}{
		{op: "or", in: "(a.eq.1,b.gt.2)", want: `{"Not":false,"Or":true,"Children":[{"Not":false,"Or":false,"Children":null,"Filter":{"Field":{"Name":"a","JSONPath":null},"Expr":{"Not":false,"Op":"eq","Quant":"","Value":"1","List":null,"Is":"","Lang":""}}},{"Not":false,"Or":false,"Children":null,"Filter":{"Field":{"Name":"b","JSONPath":null},"Expr":{"Not":false,"Op":"gt","Quant":"","Value":"2","List":null,"Is":"","Lang":""}}}],"Filter":null}`},
		{op: "not.and", in: "(a.is.null,or(b.eq.\"x,y\",c.cs.{1,2}))"},
		{op: "or", in: "(id.in.(1,2),name.ilike.*a*)"},
		{op: "or", in: "(data->>k.eq.v)"},
		{op: "or", in: "()", err: true},
		{op: "or", in: "(id.in.1,2)", err: true},
		{op: "or", in: "(a.eq.1,not.xor(b.eq.2))", err: true},
		{op: "or", in: strings.Repeat("(or", 30) + "(a.eq.1" + strings.Repeat(")", 31), err: true},
	}
	for _, tt := range tests {
		t.Run(tt.op+tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLogic(tt.op, tt.in)
			if tt.err {
				if err == nil {
					t.Fatalf("ParseLogic(%q) = %s, want an error", tt.in, js(got))
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLogic(%q): %v", tt.in, err)
			}
			if tt.want != "" && js(got) != tt.want {
				t.Errorf("ParseLogic(%q) = %s\nwant %s", tt.in, js(got), tt.want)
			}
		})
	}
	got, _ := ParseLogic("not.and", "(a.is.null,or(b.eq.\"x,y\",c.cs.{1,2}))")
	if !got.Not || got.Or || len(got.Children) != 2 || !got.Children[1].Or || got.Children[1].Children[0].Filter.Expr.Value != "x,y" || got.Children[1].Children[1].Filter.Expr.Value != "{1,2}" {
		t.Errorf("nested logic = %s", js(got))
	}
}

func TestParseOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []OrderTerm
		err  bool
	}{
		{in: "id", want: []OrderTerm{{Field: Field{Name: "id"}}}},
		{in: "created_at.desc", want: []OrderTerm{{Field: Field{Name: "created_at"}, Dir: "desc"}}},
		{in: "a.desc.nullslast,b,c.asc.nullsfirst", want: []OrderTerm{{Field: Field{Name: "a"}, Dir: "desc", Nulls: "last"}, {Field: Field{Name: "b"}}, {Field: Field{Name: "c"}, Dir: "asc", Nulls: "first"}}},
		{in: "a.nullsfirst", want: []OrderTerm{{Field: Field{Name: "a"}, Nulls: "first"}}},
		{in: "data->>k.desc", want: []OrderTerm{{Field: Field{Name: "data", JSONPath: []JSONOp{{Text: true, Key: "k"}}}, Dir: "desc"}}},
		{in: "clients(name).desc", want: []OrderTerm{{Relation: "clients", Field: Field{Name: "name"}, Dir: "desc"}}},
		{in: "id.ac", err: true},
		{in: "id.descc", err: true},
		{in: "id.asc.nlsfst", err: true},
		{in: "clients(name,id)", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseOrder(tt.in)
			if tt.err {
				if err == nil {
					t.Fatalf("ParseOrder(%q) = %s, want an error", tt.in, js(got))
				}
				return
			}
			if err != nil || js(got) != js(tt.want) {
				t.Errorf("ParseOrder(%q) = %s, %v; want %s", tt.in, js(got), err, js(tt.want))
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	t.Parallel()
	params, err := SplitQuery("select=id,profiles(full_name)&status=eq.active&location=ilike.%25nairobi%25&type=eq.One+Bedroom&order=created_at.desc&limit=20&offset=5&profiles.order=name&profiles.limit=1&or=(a.eq.1,b.eq.2)&profiles.not.or=(c.eq.3)&author.name=eq.x&flag")
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParseQuery(params, false)
	if err != nil {
		t.Fatal(err)
	}
	if render(q.Select) != "id,profiles(full_name)" {
		t.Errorf("select = %s", render(q.Select))
	}
	if len(q.Filters) != 4 || q.Filters[1].Filter.Expr.Value != "%nairobi%" || q.Filters[2].Filter.Expr.Value != "One Bedroom" ||
		js(q.Filters[3].Path) != `["author"]` || q.Filters[3].Filter.Field.Name != "name" {
		t.Errorf("filters = %s", js(q.Filters))
	}
	if len(q.Order) != 2 || js(q.Order[1].Path) != `["profiles"]` {
		t.Errorf("order = %s", js(q.Order))
	}
	if js(q.Ranges) != `[{"Path":null,"Range":{"Offset":5,"Limit":20}},{"Path":["profiles"],"Range":{"Offset":0,"Limit":1}}]` {
		t.Errorf("ranges = %s", js(q.Ranges))
	}
	if len(q.Logic) != 2 || !q.Logic[1].Tree.Not || js(q.Logic[1].Path) != `["profiles"]` {
		t.Errorf("logic = %s", js(q.Logic))
	}

	rp, _ := SplitQuery("a=1&b=eq.2&arr={1,2}&select=x")
	q, err = ParseQuery(rp, true)
	if err != nil || js(q.RPCArgs) != `[["a","1"],["arr","{1,2}"]]` || len(q.Filters) != 1 {
		t.Errorf("rpc read: %s %s %v", js(q.RPCArgs), js(q.Filters), err)
	}
	if _, err := ParseQuery([]Param{{Key: "limit", Value: "-1", HasValue: true}}, false); err == nil || err.(*pgrsterr.Error).Code != "PGRST103" {
		t.Errorf("negative limit: %v", err)
	}
	if _, err := ParseQuery([]Param{{Key: "id", Value: "val", HasValue: true}}, false); err == nil || err.(*pgrsterr.Error).Code != "PGRST100" {
		t.Errorf("bad filter: %v", err)
	}
}

func TestParsePrefer(t *testing.T) {
	t.Parallel()
	p := ParsePrefer([]string{"resolution=merge-duplicates, count=exact,return=representation", "count=planned, bogus, max-affected=5, tx=rollback, handling=strict, missing=default, params=single-object, timezone=Africa/Nairobi"})
	want := Preferences{Return: "representation", Count: "exact", Resolution: "merge-duplicates", Missing: "default", Tx: "rollback", Handling: "strict",
		Timezone: "Africa/Nairobi", Params: "single-object", MaxAffected: 5, HasMax: true, Invalid: []string{"bogus"}}
	if js(p) != js(want) {
		t.Errorf("ParsePrefer = %s\nwant %s", js(p), js(want))
	}
	if p := ParsePrefer([]string{"return=everything, count=all, max-affected=-1"}); js(p.Invalid) != `["return=everything","count=all","max-affected=-1"]` || p.Return != "" {
		t.Errorf("invalid values = %s", js(p))
	}
}

func TestParseRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Range
		err  bool
	}{
		{in: "0-19", want: Range{0, 20}},
		{in: "items=5-9", want: Range{5, 5}},
		{in: "10-", want: Range{10, NoLimit}},
		{in: "", want: All},
		{in: "abc", want: All},
		{in: "-5", want: All},
		{in: "9-5", err: true},
	}
	for _, tt := range tests {
		got, err := ParseRangeHeader(tt.in)
		if tt.err != (err != nil) || (!tt.err && got != tt.want) {
			t.Errorf("ParseRangeHeader(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
	if got := (Range{5, 20}).Intersect(Range{0, 10}); got != (Range{5, 5}) {
		t.Errorf("intersect = %v", got)
	}
	if got := All.Restrict(1000); got != (Range{0, 1000}) {
		t.Errorf("restrict = %v", got)
	}
}

func TestAccept(t *testing.T) {
	t.Parallel()
	got := ParseAccept("text/csv;q=0.5, application/vnd.pgrst.object+json;nulls=stripped, application/json;q=0.9")
	if js(got[0].String()) != `"application/vnd.pgrst.object+json;nulls=stripped"` || got[1].Type != MTJSON || got[2].Type != MTCSV {
		t.Errorf("ParseAccept = %v", got)
	}
	if got := ParseAccept(""); got[0].Type != MTAny {
		t.Errorf("empty Accept = %v", got)
	}
}

func TestPayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body     string
		ct       string
		anyKeys  bool
		wantKeys string
		wantErr  string
	}{
		{body: `{"b":1,"a":2}`, wantKeys: `["a","b"]`},
		{body: `[{"a":1},{"a":2}]`, wantKeys: `["a"]`},
		{body: `[]`, wantKeys: `null`},
		{body: `[{"a":1},{"b":2}]`, wantErr: "All object keys must match"},
		{body: `[{"a":1},{"b":2}]`, anyKeys: true, wantKeys: `["a"]`},
		{body: `{"a":`, wantErr: "Empty or invalid json"},
		{body: ``, wantErr: "Empty or invalid json"},
		{body: `5`, wantErr: "All object keys must match"},
		{body: "name,age\nann,30\nbob,NULL\n", ct: "text/csv", wantKeys: `["age","name"]`},
		{body: "a=1&b=x+y", ct: "application/x-www-form-urlencoded", wantKeys: `["a","b"]`},
	}
	for _, tt := range tests {
		p, err := ParsePayload([]byte(tt.body), ParseContentType(tt.ct), tt.anyKeys)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePayload(%q) = %v, want %q", tt.body, err, tt.wantErr)
			}
			continue
		}
		if err != nil || js(p.Keys) != tt.wantKeys {
			t.Errorf("ParsePayload(%q) keys = %v, %v; want %s", tt.body, p, err, tt.wantKeys)
		}
	}
}

func TestCanonicalQuery(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"&&", ""},
		{"a=1&c=3&b=2&d", "a=1&b=2&c=3&d="},
		{"select=id,name&order=id&limit=2", "limit=2&order=id&select=id%2Cname"},
		{"id=gte.1&select=id&id=lte.3", "id=gte.1,lte.3&select=id"},
		{"title=ilike.*o*&x=a+b%20c%ZZ", "title=ilike.%2Ao%2A&x=a%20b%20c%25ZZ"},
		{"name=Ng%C5%A9g%C4%A9&tags=cs.{a}", "name=Ng%C5%A9g%C4%A9&tags=cs.%7Ba%7D"},
		{"b.c=eq.1&b=x&a_-.~=y", "a_-.~=y&b=x&b.c=eq.1"},
	}
	for _, tt := range tests {
		if got := CanonicalQuery(tt.in); got != tt.want {
			t.Errorf("CanonicalQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
