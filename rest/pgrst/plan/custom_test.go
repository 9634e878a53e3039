package plan

import (
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
)

func TestCustomPlan(t *testing.T) {
	f := func(op string) Logic { return Logic{Filter: &Filter{Expr: parse.OpExpr{Op: op}}} }
	tests := []struct {
		name string
		read *ReadPlan
		want bool
	}{
		{"no filters", &ReadPlan{}, false},
		{"equalities and is", &ReadPlan{Where: []Logic{f(parse.OpEq), f(parse.OpNeq), f(parse.OpIs), f(parse.OpIsDistinct)}}, false},
		{"full-text search", &ReadPlan{Where: []Logic{f(parse.OpEq), f(parse.OpFts)}}, true},
		{"pattern", &ReadPlan{Where: []Logic{f(parse.OpILike)}}, true},
		{"range", &ReadPlan{Where: []Logic{f(parse.OpGte)}}, true},
		{"list", &ReadPlan{Where: []Logic{f(parse.OpIn)}}, true},
		{"inside or=()", &ReadPlan{Where: []Logic{{Or: true, Children: []Logic{f(parse.OpEq), {Children: []Logic{f(parse.OpWFts)}}}}}}, true},
		{"or=() of equalities", &ReadPlan{Where: []Logic{{Or: true, Children: []Logic{f(parse.OpEq), f(parse.OpIs)}}}}, false},
		{"embed presence (rel=is.null)", &ReadPlan{Where: []Logic{{Filter: &Filter{NullEmbed: "a", Expr: parse.OpExpr{Op: parse.OpIs}}}}}, false},
		{"on an embedded resource", &ReadPlan{Children: []*ReadPlan{{}, {Where: []Logic{f(parse.OpLike)}}}}, true},
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
