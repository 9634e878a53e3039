package plan

import (
	"strings"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
)

func TestCustomPlan(t *testing.T) {
	f := func(op string) Logic { return Logic{Filter: &Filter{Expr: parse.OpExpr{Op: op, Value: "x"}}} }
	// bound is a value-sensitive filter whose value cannot be written
	// into the statement, so it is bound and planned on every execution.
	bound := func(op string) Logic {
		return Logic{Filter: &Filter{Expr: parse.OpExpr{Op: op, Value: "nul\x00byte"}}}
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
			{Filter: &Filter{Expr: parse.OpExpr{Op: parse.OpIn, List: []string{"a", "b"}}}}}}, false},
		{"full-text search, bound", &ReadPlan{Where: []Logic{f(parse.OpEq), bound(parse.OpFts)}}, true},
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

func TestInlined(t *testing.T) {
	tests := []struct {
		name string
		e    parse.OpExpr
		want bool
	}{
		{"ilike", parse.OpExpr{Op: parse.OpILike, Value: "*kilimani*"}, true},
		{"fts", parse.OpExpr{Op: parse.OpFts, Value: "nyumba"}, true},
		{"in", parse.OpExpr{Op: parse.OpIn, List: []string{"1", "2"}}, true},
		{"eq stays bound", parse.OpExpr{Op: parse.OpEq, Value: "1"}, false},
		{"is stays bound", parse.OpExpr{Op: parse.OpIs, Value: "null"}, false},
		{"ilike with a NUL stays bound", parse.OpExpr{Op: parse.OpILike, Value: "a\x00"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Inlined(tt.e); got != tt.want {
				t.Errorf("Inlined(%+v) = %v, want %v", tt.e, got, tt.want)
			}
		})
	}
}
