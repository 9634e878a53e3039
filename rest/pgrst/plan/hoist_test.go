package plan

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

var (
	toOne  = &schemacache.Relationship{Cardinality: schemacache.M2O}
	toMany = &schemacache.Relationship{Cardinality: schemacache.O2M}
)

func col(name string) SelectField { return SelectField{Field: Field{Name: name}} }

func agg(name, fn, cast, alias string) SelectField {
	return SelectField{Field: Field{Name: name}, Aggregate: fn, AggregateCast: cast, Alias: alias}
}

// node builds a read node; rel nil is the root.
func node(rel *schemacache.Relationship, spread bool, sel []SelectField, children ...*ReadPlan) *ReadPlan {
	n := &ReadPlan{Table: &schemacache.Table{}, Select: sel, Rel: rel, IsSpread: spread, Children: children}
	for _, c := range children {
		c.Parent = n
	}
	var mark func(*ReadPlan, int)
	mark = func(p *ReadPlan, d int) {
		p.Depth = d
		for _, c := range p.Children {
			mark(c, d+1)
		}
	}
	mark(n, 0)
	return n
}

func TestHoistSpreadAggregates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tree func() *ReadPlan
		// spread is the path (child indexes) of the spread node checked.
		spread      []int
		wantSelect  []SelectField
		wantHoisted []HoistedAgg
		// groups says whether the root applies hoisted aggregates.
		groups bool
	}{
		{
			name: "to-one spread with an aliased, cast sum",
			tree: func() *ReadPlan {
				return node(nil, false, []SelectField{col("id")}, node(toOne, true, []SelectField{col("name"), agg("budget", parse.AggSum, "int", "total")}))
			},
			spread:      []int{0},
			wantSelect:  []SelectField{col("name"), {Field: Field{Name: "budget"}, Alias: "total"}},
			wantHoisted: []HoistedAgg{{Column: "total", Aggregate: parse.AggSum, AggregateCast: "int", Alias: "total"}},
			groups:      true,
		},
		{
			name: "count() leaves the whole row",
			tree: func() *ReadPlan {
				return node(nil, false, nil, node(toOne, true, []SelectField{agg("*", parse.AggCount, "", "")}))
			},
			spread:      []int{0},
			wantSelect:  []SelectField{{Field: Field{Name: "*"}, FullRow: true}},
			wantHoisted: []HoistedAgg{{Column: "*", Aggregate: parse.AggCount}},
			groups:      true,
		},
		{
			name: "nested to-one spreads hand the aggregate up",
			tree: func() *ReadPlan {
				return node(nil, false, nil, node(toOne, true, []SelectField{col("factory_id")}, node(toOne, true, []SelectField{agg("cost", parse.AggSum, "", "")})))
			},
			spread:      []int{0},
			wantSelect:  []SelectField{col("factory_id")},
			wantHoisted: []HoistedAgg{{Column: "cost", Aggregate: parse.AggSum}},
			groups:      true,
		},
		{
			name: "a plain embed keeps its aggregates",
			tree: func() *ReadPlan {
				return node(nil, false, nil, node(toMany, false, []SelectField{agg("cost", parse.AggSum, "", "")}))
			},
			spread:     []int{0},
			wantSelect: []SelectField{agg("cost", parse.AggSum, "", "")},
		},
		{
			name: "a plain embed applies its spread's aggregates",
			tree: func() *ReadPlan {
				return node(nil, false, nil, node(toMany, false, nil, node(toOne, true, []SelectField{agg("cost", parse.AggMax, "", "")})))
			},
			spread:      []int{0, 0},
			wantSelect:  []SelectField{col("cost")},
			wantHoisted: []HoistedAgg{{Column: "cost", Aggregate: parse.AggMax}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := tt.tree()
			if err := hoistSpreadAggregates(root); err != nil {
				t.Fatalf("hoist: %v", err)
			}
			n := root
			for _, i := range tt.spread {
				n = n.Children[i]
			}
			if !reflect.DeepEqual(n.Select, tt.wantSelect) {
				t.Errorf("select = %+v, want %+v", n.Select, tt.wantSelect)
			}
			if !reflect.DeepEqual(n.Hoisted, tt.wantHoisted) {
				t.Errorf("hoisted = %+v, want %+v", n.Hoisted, tt.wantHoisted)
			}
			if got := root.GroupsHoisted(); got != tt.groups {
				t.Errorf("root GroupsHoisted = %v, want %v", got, tt.groups)
			}
			if h, ok := root.HoistedFrom(root.Children[0], "cost"); ok && !tt.groups {
				t.Errorf("root applies %+v it does not group by", h)
			}
		})
	}
}

func TestHoistSpreadAggregatesToManyRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tree *ReadPlan
	}{
		{"own aggregate", node(nil, false, nil, node(toMany, true, []SelectField{col("type"), agg("size", parse.AggSum, "", "")}))},
		{"hoisted from a to-one spread", node(nil, false, nil, node(toMany, true, nil, node(toOne, true, []SelectField{agg("*", parse.AggCount, "", "")})))},
		{"deeper", node(nil, false, nil, node(toOne, true, nil, node(toMany, true, []SelectField{agg("id", parse.AggMin, "", "")})))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := hoistSpreadAggregates(tt.tree)
			var pe *pgrsterr.Error
			if !errors.As(err, &pe) || pe.Code != "PGRST127" || pe.Details != "Aggregates are not implemented for one-to-many or many-to-many spreads." {
				t.Fatalf("err = %#v, want PGRST127", err)
			}
		})
	}
}
