package schemacache

import (
	"slices"
	"testing"
)

func TestCompareOverloads(t *testing.T) {
	t.Parallel()
	p := func(name, typ string, req bool) Param { return Param{Name: name, Type: typ, Required: req} }
	fn := func(desc string, params ...Param) *Function {
		return &Function{Schema: "s", Name: "f", Description: desc, Params: params, ReturnTypeName: "text", ReturnTypeSchema: "pg_catalog", Volatility: 'v'}
	}
	tests := []struct {
		name string
		in   []*Function
		want []int // indexes of in, in the expected order
	}{
		{name: "fewer parameters first", in: []*Function{fn("", p("a", "integer", true), p("b", "integer", false)), fn("z", p("a", "integer", true))}, want: []int{1, 0}},
		{name: "no description first", in: []*Function{fn("a", p("a", "integer", true)), fn("", p("a", "text", true))}, want: []int{1, 0}},
		{name: "then by description", in: []*Function{fn("Picks by number.", p("a", "integer", true)), fn("Picks by name.", p("a", "text", true))}, want: []int{1, 0}},
		{name: "then by parameter name and type", in: []*Function{fn("", p("b", "integer", true)), fn("", p("a", "text", true)), fn("", p("a", "integer", true))}, want: []int{2, 1, 0}},
		{name: "optional before required", in: []*Function{fn("", p("a", "integer", true)), fn("", p("a", "integer", false))}, want: []int{1, 0}},
		{name: "single before set, volatile before stable", in: []*Function{
			{Description: "", Params: nil, RetSet: true, Volatility: 'v'},
			{Description: "", Params: nil, Volatility: 's'},
			{Description: "", Params: nil, Volatility: 'v'},
		}, want: []int{2, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Clone(tt.in)
			slices.SortStableFunc(got, compareOverloads)
			for i, w := range tt.want {
				if got[i] != tt.in[w] {
					t.Fatalf("position %d: got %+v, want in[%d] %+v", i, got[i], w, tt.in[w])
				}
			}
		})
	}
}
