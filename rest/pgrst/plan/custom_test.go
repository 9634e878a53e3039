package plan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
)

func TestCustomPlan(t *testing.T) {
	// f is a filter the planner marked as it marks them: value-sensitive
	// ones written into the statement (Filter.Inline).
	f := func(op string) Logic {
		return Logic{Filter: &Filter{Expr: parse.OpExpr{Op: op, Value: "x"}, Inline: ValueSensitive(op)}}
	}
	// bound is a value-sensitive filter whose value is bound (it cannot be
	// written, or has not repeated), so it is planned on every execution.
	bound := func(op string) Logic {
		return Logic{Filter: &Filter{Expr: parse.OpExpr{Op: op, Value: "x"}}}
	}
	tests := []struct {
		name string
		read *ReadPlan
		want bool
	}{
		{"no filters", &ReadPlan{}, false},
		{"equalities and is", &ReadPlan{Where: []Logic{f(parse.OpEq), f(parse.OpNeq), f(parse.OpIs), f(parse.OpIsDistinct)}}, false},
		{"full-text search, written into the statement", &ReadPlan{Where: []Logic{f(parse.OpEq), f(parse.OpFts)}}, false},
		{"pattern, range, list, written", &ReadPlan{Where: []Logic{f(parse.OpILike), f(parse.OpGte),
			{Filter: &Filter{Expr: parse.OpExpr{Op: parse.OpIn, List: []string{"a", "b"}}, Inline: true}}}}, false},
		{"full-text search, bound", &ReadPlan{Where: []Logic{f(parse.OpEq), bound(parse.OpFts)}}, true},
		{"equality, not marked", &ReadPlan{Where: []Logic{bound(parse.OpEq)}}, false},
		{"pattern, bound", &ReadPlan{Where: []Logic{bound(parse.OpILike)}}, true},
		{"list too long to write", &ReadPlan{Where: []Logic{{Filter: &Filter{Expr: parse.OpExpr{Op: parse.OpIn,
			List: []string{strings.Repeat("a", MaxInlined)}}}}}}, true},
		{"bound, inside or=()", &ReadPlan{Where: []Logic{{Or: true, Children: []Logic{f(parse.OpEq), {Children: []Logic{bound(parse.OpWFts)}}}}}}, true},
		{"or=() of equalities", &ReadPlan{Where: []Logic{{Or: true, Children: []Logic{f(parse.OpEq), f(parse.OpIs)}}}}, false},
		{"embed presence (rel=is.null)", &ReadPlan{Where: []Logic{{Filter: &Filter{NullEmbed: "a", Expr: parse.OpExpr{Op: parse.OpIs}}}}}, false},
		{"bound, on an embedded resource", &ReadPlan{Children: []*ReadPlan{{}, {Where: []Logic{bound(parse.OpLike)}}}}, true},
		{"nil read (a write without representation)", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.read.CustomPlan(); got != tt.want {
				t.Errorf("CustomPlan() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInlinable(t *testing.T) {
	tests := []struct {
		name string
		e    parse.OpExpr
		want bool
	}{
		{"plain value", parse.OpExpr{Value: "kilim:*"}, true},
		{"quotes and backslashes", parse.OpExpr{Value: `it's a \' test`}, true},
		{"configuration and value", parse.OpExpr{Lang: "english", Value: "mau"}, true},
		{"list", parse.OpExpr{List: []string{"1", "2"}}, true},
		{"empty", parse.OpExpr{}, true},
		{"NUL in the value", parse.OpExpr{Value: "a\x00b"}, false},
		{"NUL in the configuration", parse.OpExpr{Lang: "eng\x00", Value: "a"}, false},
		{"NUL in a list item", parse.OpExpr{List: []string{"a", "b\x00"}}, false},
		{"invalid UTF-8", parse.OpExpr{Value: "\xff\xfe"}, false},
		{"at the limit", parse.OpExpr{Value: strings.Repeat("a", MaxInlined)}, true},
		{"over the limit", parse.OpExpr{Value: strings.Repeat("a", MaxInlined+1)}, false},
		{"long list", parse.OpExpr{List: strings.Split(strings.Repeat("abcdef,", 200), ",")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Inlinable(tt.e); got != tt.want {
				t.Errorf("Inlinable(%+v) = %v, want %v", tt.e, got, tt.want)
			}
		})
	}
}

func TestSightings(t *testing.T) {
	ilike := func(v string) parse.OpExpr { return parse.OpExpr{Op: parse.OpILike, Value: v} }
	keys := []struct {
		name                  string
		schema, table, column string
		e                     parse.OpExpr
	}{
		{"a value", "public", "properties", "location", ilike("*kilimani*")},
		{"another value", "public", "properties", "location", ilike("*westlands*")},
		{"another column", "public", "properties", "title", ilike("*kilimani*")},
		{"another table", "public", "lands", "location", ilike("*kilimani*")},
		{"another schema", "private", "properties", "location", ilike("*kilimani*")},
		{"another operator", "public", "properties", "location", parse.OpExpr{Op: parse.OpLike, Value: "*kilimani*"}},
		{"a configuration", "public", "properties", "search", parse.OpExpr{Op: parse.OpFts, Lang: "english", Value: "nyumba"}},
		{"another configuration", "public", "properties", "search", parse.OpExpr{Op: parse.OpFts, Lang: "simple", Value: "nyumba"}},
		{"a list", "public", "properties", "id", parse.OpExpr{Op: parse.OpIn, List: []string{"a", "bc"}}},
		{"the list split otherwise", "public", "properties", "id", parse.OpExpr{Op: parse.OpIn, List: []string{"ab", "c"}}},
	}
	s := NewSightings()
	// Each key is asked for in turn, so two keys sharing a count would
	// reach InlineAt early, or reset each other and never reach it.
	for n := 1; n <= InlineAt+2; n++ {
		for _, k := range keys {
			want := n >= InlineAt
			if got := s.Often(k.schema, k.table, k.column, k.e); got != want {
				t.Errorf("%s, sighting %d: Often = %v, want %v", k.name, n, got, want)
			}
		}
	}
}

// A value forgotten when others take its slot counts again from one:
// Sightings bounds its memory, never its answers.
func TestSightingsForget(t *testing.T) {
	s := NewSightings()
	e := parse.OpExpr{Op: parse.OpILike, Value: "*kilimani*"}
	for range InlineAt {
		s.Often("public", "properties", "location", e)
	}
	for i := range 50 * sightingSlots {
		s.Often("public", "properties", "location", parse.OpExpr{Op: parse.OpILike, Value: strconv.Itoa(i)})
	}
	for n := 1; n < InlineAt; n++ {
		if s.Often("public", "properties", "location", e) {
			t.Fatalf("sighting %d after 50 times the table's size of other values: still counted from before", n)
		}
	}
	// The count stops at its ceiling rather than wrapping to zero.
	for n := InlineAt; n < 1000; n++ {
		if !s.Often("public", "properties", "location", e) {
			t.Fatalf("sighting %d in a row: not written", n)
		}
	}
}

func TestSightingsAllocations(t *testing.T) {
	s := NewSightings()
	e := parse.OpExpr{Op: parse.OpIn, List: []string{"1", "2", "3"}}
	if n := testing.AllocsPerRun(100, func() { s.Often("public", "properties", "id", e) }); n != 0 {
		t.Errorf("Often allocates %v times", n)
	}
}
