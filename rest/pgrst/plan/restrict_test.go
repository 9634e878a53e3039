package plan

import (
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// TestRestrictKeyPinned checks which read nodes the max-rows cap leaves
// alone because their filters pin a key of their table: only a table's own
// rows under col=eq.v on every column of its primary key or of a unique
// constraint. Anything that could still yield two rows keeps the cap.
func TestRestrictKeyPinned(t *testing.T) {
	t.Parallel()
	const maxRows = 1000
	listings := &schemacache.Table{Kind: 'r', PK: []string{"id"}, Uniques: [][]string{{"slug"}}}
	pair := &schemacache.Table{Kind: 'r', PK: []string{"a", "b"}}
	view := &schemacache.Table{Kind: 'v', PK: []string{"id"}}
	partitioned := &schemacache.Table{Kind: 'p', PK: []string{"id", "day"}}
	noKey := &schemacache.Table{Kind: 'r'}
	parent := &schemacache.Table{Kind: 'r', PK: []string{"id"}, HasChildren: true}

	filter := func(name string, e parse.OpExpr) Logic {
		return Logic{Filter: &Filter{Field: Field{Name: name, Column: &schemacache.Column{Name: name}}, Expr: e}}
	}
	eq := func(name string) Logic { return filter(name, parse.OpExpr{Op: parse.OpEq, Value: "1"}) }
	computed := Logic{Filter: &Filter{Field: Field{Name: "id", Computed: &schemacache.Function{}}, Expr: parse.OpExpr{Op: parse.OpEq, Value: "1"}}}
	jsonPath := filter("id", parse.OpExpr{Op: parse.OpEq, Value: "1"})
	jsonPath.Filter.Field.JSONPath = []parse.JSONOp{{Key: "k"}}

	tests := []struct {
		name    string
		table   *schemacache.Table
		rel     *schemacache.Relationship
		fromCTE bool
		where   []Logic
		limit   int64
		capped  bool
	}{
		{"no filter", listings, nil, false, nil, parse.NoLimit, true},
		{"primary key", listings, nil, false, []Logic{eq("id")}, parse.NoLimit, false},
		{"primary key and another filter", listings, nil, false, []Logic{filter("title", parse.OpExpr{Op: parse.OpLike, Value: "a*"}), eq("id")}, parse.NoLimit, false},
		{"unique constraint", listings, nil, false, []Logic{eq("slug")}, parse.NoLimit, false},
		{"an explicit limit stays", listings, nil, false, []Logic{eq("id")}, 5000, false},
		{"other column", listings, nil, false, []Logic{eq("title")}, parse.NoLimit, true},
		{"neq", listings, nil, false, []Logic{filter("id", parse.OpExpr{Op: parse.OpNeq, Value: "1"})}, parse.NoLimit, true},
		{"not.eq", listings, nil, false, []Logic{filter("id", parse.OpExpr{Not: true, Op: parse.OpEq, Value: "1"})}, parse.NoLimit, true},
		{"eq(any)", listings, nil, false, []Logic{filter("id", parse.OpExpr{Op: parse.OpEq, Quant: "any", Value: "{1,2}"})}, parse.NoLimit, true},
		{"in", listings, nil, false, []Logic{filter("id", parse.OpExpr{Op: parse.OpIn, List: []string{"1"}})}, parse.NoLimit, true},
		{"inside or", listings, nil, false, []Logic{{Or: true, Children: []Logic{eq("id")}}}, parse.NoLimit, true},
		{"negated logic", listings, nil, false, []Logic{{Not: true, Filter: eq("id").Filter}}, parse.NoLimit, true},
		{"JSON path", listings, nil, false, []Logic{jsonPath}, parse.NoLimit, true},
		{"computed field", listings, nil, false, []Logic{computed}, parse.NoLimit, true},
		{"half a composite key", pair, nil, false, []Logic{eq("a")}, parse.NoLimit, true},
		{"whole composite key", pair, nil, false, []Logic{eq("b"), eq("a")}, parse.NoLimit, false},
		{"partitioned table", partitioned, nil, false, []Logic{eq("id"), eq("day")}, parse.NoLimit, false},
		{"view", view, nil, false, []Logic{eq("id")}, parse.NoLimit, true},
		{"no key", noKey, nil, false, []Logic{eq("id")}, parse.NoLimit, true},
		{"inheritance parent", parent, nil, false, []Logic{eq("id")}, parse.NoLimit, true},
		{"a function's rows", listings, nil, true, []Logic{eq("id")}, parse.NoLimit, true},
		{"one-to-many embed", listings, toMany, false, []Logic{eq("id")}, parse.NoLimit, false},
		{"many-to-many embed", listings, &schemacache.Relationship{Cardinality: schemacache.M2M, Junction: &schemacache.Junction{}}, false, []Logic{eq("id")}, parse.NoLimit, true},
		{"computed relationship", listings, &schemacache.Relationship{Cardinality: schemacache.O2M, Function: schemacache.QI{Name: "f"}}, false, []Logic{eq("id")}, parse.NoLimit, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &ReadPlan{Table: tt.table, Rel: tt.rel, FromCTE: tt.fromCTE, Where: tt.where, Range: parse.Range{Limit: tt.limit}}
			restrict(n, maxRows)
			want := tt.limit
			if tt.capped && (want == parse.NoLimit || want > maxRows) {
				want = maxRows
			}
			if n.Range.Limit != want {
				t.Errorf("limit = %d, want %d (capped: %v)", n.Range.Limit, want, tt.capped)
			}
		})
	}
}
