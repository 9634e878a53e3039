package changes

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseFilter(t *testing.T) {
	t.Parallel()
	cond := func(col string, op Op, neg bool, vals ...string) *Cond {
		return &Cond{Column: col, Op: op, Negate: neg, Values: vals}
	}
	tests := []struct {
		in   string
		want []*Cond
		// err is Supabase's message for a refused filter ("" = accepted).
		err string
	}{
		{in: "", want: nil},
		{in: "   ", want: nil},
		{in: "id=eq.5", want: []*Cond{cond("id", OpEq, false, "5")}},
		{in: "name=neq.a.b", want: []*Cond{cond("name", OpNeq, false, "a.b")}},
		{in: `id=in.(1,2, 3)`, want: []*Cond{cond("id", OpIn, false, "1", "2", "3")}},
		{in: `t=in.("a,b","c\"d",e)`, want: []*Cond{cond("t", OpIn, false, "a,b", `c"d`, "e")}},
		{in: `t=in.()`, want: []*Cond{{Column: "t", Op: OpIn}}},
		// Commas outside parentheses and quotes separate ANDed conditions.
		{in: "value=gte.a,value=lte.b", want: []*Cond{cond("value", OpGte, false, "a"), cond("value", OpLte, false, "b")}},
		{in: " id=gt.0 , id=in.(1,2),name=eq.\"x,y\"", want: []*Cond{cond("id", OpGt, false, "0"), cond("id", OpIn, false, "1", "2"), cond("name", OpEq, false, "x,y")}},
		{in: "name=like.Nai%", want: []*Cond{cond("name", OpLike, false, "Nai%")}},
		{in: "name=ilike.*nai*", want: []*Cond{cond("name", OpILike, false, "*nai*")}},
		{in: "name=match.^N[a-z]+$", want: []*Cond{cond("name", OpMatch, false, "^N[a-z]+$")}},
		{in: "name=imatch.nai", want: []*Cond{cond("name", OpIMatch, false, "nai")}},
		{in: "x=is.null", want: []*Cond{cond("x", OpIs, false, "null")}},
		{in: "x=not.is.null", want: []*Cond{cond("x", OpIs, true, "null")}},
		{in: "x=isdistinct.3", want: []*Cond{cond("x", OpIsDistinct, false, "3")}},
		{in: "id=not.eq.5", want: []*Cond{cond("id", OpEq, true, "5")}},
		{in: "id=not.in.(1,2)", want: []*Cond{cond("id", OpIn, true, "1", "2")}},
		// Refused, with Supabase's messages.
		{in: "id=foo.5", err: "Error parsing `filter` params: [\"foo\", \"5\"]"},
		{in: "undefined", err: "Error parsing `filter` params: [\"undefined\"]"},
		{in: "id=eq5", err: "Error parsing `filter` params: [\"eq5\"]"},
		{in: "id=fts.word", err: "Error parsing `filter` params: [\"fts\", \"word\"]"},
		{in: "or=(a.eq.1,b.eq.2)", err: "Error parsing `filter` params: [\"(a\", \"eq.1,b.eq.2)\"]"},
		{in: "id=eq.1,,id=eq.2", err: "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)"},
		{in: "id=eq.1,", err: "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)"},
		{in: "id=in.1,2", err: "Error parsing `filter` params: `in` filter value must be wrapped by parentheses"},
		{in: `t=in.("a)`, err: "Error parsing `filter` params: unterminated quote in `in` filter value"},
		{in: "x=is.maybe", err: "invalid value for is filter: must be null, true, false, or unknown"},
		{in: "x=match.(", err: "invalid regular expression for match filter: error parsing regexp: missing closing ): `(`"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFilter(tt.in)
			if tt.err != "" {
				var fe *FilterError
				if !errors.Is(err, ErrFilter) || !errors.As(err, &fe) || fe.Message != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if got != nil {
					t.Fatalf("got %+v, want no filter", got)
				}
				return
			}
			gj, _ := json.Marshal(got.Conds)
			wj, _ := json.Marshal(tt.want)
			if string(gj) != string(wj) {
				t.Fatalf("got %s want %s", gj, wj)
			}
		})
	}
}

func TestParseFilterInLimit(t *testing.T) {
	t.Parallel()
	vals := strings.Repeat("1,", 100)
	if _, err := ParseFilter("id=in.(" + vals[:len(vals)-1] + ")"); err != nil {
		t.Fatalf("100 values: %v", err)
	}
	_, err := ParseFilter("id=in.(" + vals + "1)")
	var fe *FilterError
	if !errors.As(err, &fe) || fe.Message != "too many values for `in` filter. Maximum 100" {
		t.Fatalf("101 values: %v", err)
	}
}

func TestFilterMatch(t *testing.T) {
	t.Parallel()
	rec := map[string]json.RawMessage{
		"id": json.RawMessage(`5`), "price": json.RawMessage(`12.50`), "name": json.RawMessage(`"beta"`),
		"ok": json.RawMessage(`true`), "gone": json.RawMessage(`null`), "uid": json.RawMessage(`"6f1c"`),
		"at": json.RawMessage(`"2026-11-20T10:00:00+00:00"`), "naive": json.RawMessage(`"2026-11-20T10:00:00.5"`),
		"day": json.RawMessage(`"2026-11-20"`), "owner": json.RawMessage(`"6f1c2a9e-0b7d-4c1e-9a55-3f2e8d1b7c40"`),
		"code": json.RawMessage(`"ABC"`),
	}
	cols := []Column{{"id", "int4"}, {"price", "numeric"}, {"name", "text"}, {"ok", "bool"}, {"gone", "int4"}, {"uid", "text"},
		{"at", "timestamptz"}, {"naive", "timestamp"}, {"day", "date"}, {"owner", "uuid"}, {"code", "text"}}
	tests := []struct {
		filter string
		want   bool
	}{
		{"id=eq.5", true}, {"id=eq.5.0", true}, {"id=eq.6", false}, {"id=neq.6", true}, {"id=neq.5", false},
		{"id=lt.6", true}, {"id=lt.5", false}, {"id=lte.5", true}, {"id=gt.4", true}, {"id=gt.5", false}, {"id=gte.5", true},
		{"id=eq.abc", false}, {"id=eq.1e999999999", false}, {"id=eq.5e0", true},
		{"price=gt.12.4", true}, {"price=eq.12.5", true},
		{"name=eq.beta", true}, {"name=lt.gamma", true}, {"name=gt.gamma", false}, {"name=in.(alpha,beta)", true}, {"name=in.(alpha)", false},
		{"id=in.(1,5)", true}, {"id=in.()", false},
		{"ok=eq.true", true}, {"ok=eq.f", false}, {"ok=neq.false", true}, {"ok=eq.maybe", false},
		{"gone=eq.null", false}, {"gone=neq.1", false},
		{"missing=eq.1", false},
		{"at=gt.2026-11-19", true},
		// Timestamps compare as instants, whatever the literal's spelling.
		{"at=eq.2026-11-20 10:00:00+00", true}, {"at=eq.2026-11-20T10:00:00Z", true}, {"at=eq.2026-11-20T13:00:00+03:00", true},
		{"at=eq.2026-11-20 10:00:00", true}, {"at=eq.2026-11-20T10:00:00.000001Z", false}, {"at=lt.2026-11-20T10:00:01Z", true},
		{"at=in.(2026-01-01,2026-11-20 13:00:00+03)", true}, {"at=eq.yesterday", false}, {"at=neq.2026-11-20T10:00:00Z", false},
		{"naive=eq.2026-11-20 10:00:00.5", true}, {"naive=gt.2026-11-20T10:00:00", true},
		{"day=eq.2026-11-20", true}, {"day=lt.2026-11-21", true}, {"day=eq.2026-11-20T00:00:00", true},
		// A uuid in any case, with or without hyphens or braces.
		{"owner=eq.6F1C2A9E-0B7D-4C1E-9A55-3F2E8D1B7C40", true}, {"owner=eq.{6f1c2a9e0b7d4c1e9a553f2e8d1b7c40}", true},
		{"owner=eq.6f1c2a9e-0b7d-4c1e-9a55-3f2e8d1b7c41", false}, {"owner=eq.not-a-uuid", false},
		{"owner=in.(00000000-0000-0000-0000-000000000000,6F1C2A9E0B7D4C1E9A553F2E8D1B7C40)", true},
		// Text stays byte-wise (case matters).
		{"code=eq.abc", false}, {"code=eq.ABC", true},
		// Conditions separated by commas are ANDed.
		{"id=gte.1,id=lte.9", true}, {"id=gte.1,id=lte.4", false}, {"id=gte.6,id=lte.9", false}, {"id=gt.1,name=eq.beta", true},
		{"price=gte.10,price=lte.12", false}, {"name=in.(alpha,beta),id=in.(5)", true},
		// Negation.
		{"id=not.eq.5", false}, {"id=not.eq.6", true}, {"id=not.in.(1,2)", true}, {"id=not.in.(5)", false},
		{"gone=not.eq.1", false}, {"missing=not.eq.1", false},
		// like / ilike: % and _, case-sensitive or not, backslash escapes.
		{"name=like.be%", true}, {"name=like.Be%", false}, {"name=ilike.BE%", true}, {"name=like.b_ta", true},
		{"name=like.b_t", false}, {"name=like.%et%", true}, {"name=not.like.a%", true}, {`name=like.bet\%`, false},
		{"id=like.5", false}, {"gone=like.%", false},
		// match / imatch: regular expressions, unanchored.
		{"name=match.^b.t", true}, {"name=match.^B", false}, {"name=imatch.^B", true}, {"name=match.eta$", true},
		{"name=not.match.z", true},
		// is: null, true, false, unknown.
		{"gone=is.null", true}, {"id=is.null", false}, {"gone=not.is.null", false}, {"id=not.is.null", true},
		{"missing=is.null", false}, {"ok=is.true", true}, {"ok=is.false", false}, {"ok=not.is.false", true},
		{"ok=is.unknown", false}, {"name=is.true", false},
		// isdistinct: null-safe inequality.
		{"id=isdistinct.5", false}, {"id=isdistinct.6", true}, {"gone=isdistinct.1", true}, {"gone=not.isdistinct.1", false},
		{"id=not.isdistinct.5", true},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			t.Parallel()
			f, err := ParseFilter(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Match(rec, cols); got != tt.want {
				t.Fatalf("Match = %v, want %v", got, tt.want)
			}
		})
	}
	var none *Filter
	if !none.Match(nil, nil) {
		t.Fatal("nil filter must match")
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"id=eq.5", `t=in.("a,b",c)`, "x=gte.1e5", "=", "a=in.(", `a=in.("\`,
		"id=gte.1,id=lte.9", "t=like.a%_\\%", "t=ilike.A%", "t=match.^x+$", "t=imatch.X", "t=is.null", "id=not.is.null",
		"id=isdistinct.5", "id=not.eq.5", `t=eq."a,b"`, "id=eq.1,,", "a=(b", `t=eq.",x`} {
		f.Add(s)
	}
	rec := map[string]json.RawMessage{"id": json.RawMessage(`5`), "t": json.RawMessage(`"x"`), "x": json.RawMessage(`{"a":1}`),
		"u": json.RawMessage(`"6f1c2a9e-0b7d-4c1e-9a55-3f2e8d1b7c40"`), "at": json.RawMessage(`"2026-11-20T10:00:00+00:00"`),
		"n": json.RawMessage(`null`), "b": json.RawMessage(`true`)}
	cols := []Column{{"id", "int8"}, {"t", "text"}, {"x", "jsonb"}, {"u", "uuid"}, {"at", "timestamptz"}, {"n", "text"}, {"b", "bool"}}
	for _, s := range []string{"u=eq.{6F1C2A9E0B7D4C1E9A553F2E8D1B7C40}", "at=gte.2026-11-20 10:00+00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		// The message rendering of a filter Supabase accepts the syntax of
		// is the parsed filter's.
		if loose := InspectFilter(s); err == nil && loose != flt.Inspect() {
			t.Fatalf("%q: InspectFilter %s, Inspect %s", s, loose, flt.Inspect())
		}
		if err != nil {
			var fe *FilterError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFilter) {
				t.Fatalf("%q: error %v is not a FilterError", s, err)
			}
			return
		}
		if flt == nil {
			if strings.TrimSpace(s) != "" {
				t.Fatalf("%q: accepted as no filter", s)
			}
			return
		}
		all := flt.Match(rec, cols)
		for _, c := range flt.Conds {
			if c.Column == "" && !strings.Contains(s, "=") {
				t.Fatalf("%q: a condition without =", s)
			}
			// A condition and its negation never both hold.
			neg := *c
			neg.Negate = !c.Negate
			if c.Match(rec, cols) && neg.Match(rec, cols) {
				t.Fatalf("%q: %+v holds with and without not.", s, c)
			}
			// The conditions are ANDed.
			if all && !c.Match(rec, cols) {
				t.Fatalf("%q: the filter matched but %+v does not", s, c)
			}
		}
	})
}

func TestSubscriptionMatches(t *testing.T) {
	t.Parallel()
	c := &Change{Schema: "public", Table: "properties", Type: Update}
	tests := []struct {
		sub  Subscription
		want bool
	}{
		{Subscription{Event: "*", Schema: "public", Table: "properties"}, true},
		{Subscription{Event: "UPDATE", Schema: "public"}, true},
		{Subscription{Event: "*", Schema: "public", Table: "*"}, true},
		{Subscription{Event: "INSERT", Schema: "public", Table: "properties"}, false},
		{Subscription{Event: "*", Schema: "private", Table: "properties"}, false},
		{Subscription{Event: "*", Schema: "public", Table: "products"}, false},
	}
	for i, tt := range tests {
		if got := tt.sub.Matches(c); got != tt.want {
			t.Errorf("%d: %+v Matches = %v, want %v", i, tt.sub, got, tt.want)
		}
	}
}

func TestDataEncode(t *testing.T) {
	t.Parallel()
	d := Data{Schema: "public", Table: "t", CommitTimestamp: "2026-11-20T10:00:00.123Z", Type: Update,
		Columns:   []Column{{"id", "int4"}, {"name", "text"}},
		Record:    map[string]json.RawMessage{"name": json.RawMessage(`"n"`), "id": json.RawMessage(`1`)},
		OldRecord: map[string]json.RawMessage{"id": json.RawMessage(`1`)}}
	got := string(Message([]uint32{7, 9}, d.Encode()))
	want := `{"ids":[7,9],"data":{"schema":"public","table":"t","commit_timestamp":"2026-11-20T10:00:00.123Z","type":"UPDATE","columns":[{"name":"id","type":"int4"},{"name":"name","type":"text"}],"record":{"id":1,"name":"n"},"old_record":{"id":1},"errors":null}}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	del := Data{Schema: "public", Table: "t", Type: Delete, Columns: []Column{{"id", "int4"}}, OldRecord: map[string]json.RawMessage{"id": json.RawMessage(`1`)}}
	if g := string(del.Encode()); g != `{"schema":"public","table":"t","commit_timestamp":"","type":"DELETE","columns":[{"name":"id","type":"int4"}],"old_record":{"id":1},"errors":null}` {
		t.Fatalf("delete: %s", g)
	}
}

// A parsed filter reads its literal once: matching a time or uuid column
// then costs less than with a Filter built by hand, which reads it each time.
func TestFilterMatchReadsLiteralOnce(t *testing.T) {
	tests := []struct{ filter, column, typ, value string }{
		{"at=gte.2026-11-20 13:00:00+03", "at", "timestamptz", `"2026-11-20T10:00:00+00:00"`},
		{"owner=eq.6F1C2A9E0B7D4C1E9A553F2E8D1B7C40", "owner", "uuid", `"6f1c2a9e-0b7d-4c1e-9a55-3f2e8d1b7c40"`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			parsed, err := ParseFilter(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			p := parsed.Conds[0]
			byHand := &Filter{Conds: []*Cond{{Column: p.Column, Op: p.Op, Values: p.Values}}}
			rec := map[string]json.RawMessage{tt.column: json.RawMessage(tt.value)}
			cols := []Column{{tt.column, tt.typ}}
			if !parsed.Match(rec, cols) || !byHand.Match(rec, cols) {
				t.Fatalf("%s does not match %s", tt.filter, tt.value)
			}
			once := testing.AllocsPerRun(200, func() { parsed.Match(rec, cols) })
			each := testing.AllocsPerRun(200, func() { byHand.Match(rec, cols) })
			if once >= each {
				t.Errorf("a parsed filter allocates %.0f per match, one built by hand %.0f: the literal is read per match", once, each)
			}
		})
	}
}

func BenchmarkFilterMatchTime(b *testing.B) {
	f, err := ParseFilter("at=gte.2026-11-20 13:00:00+03")
	if err != nil {
		b.Fatal(err)
	}
	rec := map[string]json.RawMessage{"at": json.RawMessage(`"2026-11-20T10:00:00+00:00"`)}
	cols := []Column{{"at", "timestamptz"}}
	b.ReportAllocs()
	for b.Loop() {
		if !f.Match(rec, cols) {
			b.Fatal("no match")
		}
	}
}

// Filters are rendered in messages as Supabase logs them: Elixir's pretty
// inspect of {column, op, value, negated} tuples, an in list as the array
// literal Supabase stores.
func TestFilterInspect(t *testing.T) {
	t.Parallel()
	tests := []struct{ filter, want string }{
		{"", "[]"},
		{"notacolumn=eq.123", `[{"notacolumn", "eq", "123", false}]`},
		{"subject=not.like.hey%", `[{"subject", "like", "hey%", true}]`},
		{`t=in.(a,"b,c")`, `[{"t", "in", "{a,\"b,c\"}", false}]`},
		{`note=eq."a,b"`, `[{"note", "eq", "a,b", false}]`},
		{`q=eq.x#{y}\`, `[{"q", "eq", "x\#{y}\\", false}]`},
		{"id=gt.0,id=lt.100", `[{"id", "gt", "0", false}, {"id", "lt", "100", false}]`},
		// Longer than 80 columns: one tuple per line.
		{"long_column_name=gte.2026-11-20T10:00:00Z,another_long_name=ilike.%something%",
			"[\n  {\"long_column_name\", \"gte\", \"2026-11-20T10:00:00Z\", false},\n  {\"another_long_name\", \"ilike\", \"%something%\", false}\n]"},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			t.Parallel()
			f, err := ParseFilter(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Inspect(); got != tt.want {
				t.Fatalf("Inspect\n got %s\nwant %s", got, tt.want)
			}
			if got := InspectFilter(tt.filter); got != tt.want {
				t.Fatalf("InspectFilter\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	// A value Supabase's trigger refuses still has its tuple.
	if got, want := InspectFilter("ok=is.maybe,n=in.(1,2)"), `[{"ok", "is", "maybe", false}, {"n", "in", "{1,2}", false}]`; got != want {
		t.Fatalf("InspectFilter got %s, want %s", got, want)
	}
	if got, want := InspectStrings([]string{"id", `a"b`}), `["id", "a\"b"]`; got != want {
		t.Fatalf("InspectStrings got %s, want %s", got, want)
	}
}
