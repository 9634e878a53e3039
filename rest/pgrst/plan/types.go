// Package plan is the second stage of the PostgREST pipeline: it resolves
// a parsed request against the schema cache into a ReadPlan tree, a
// MutatePlan or a CallPlan (PostgREST Plan.hs, Plan/ReadPlan.hs,
// Plan/MutatePlan.hs, Plan/CallPlan.hs). Every column and table it hands on
// comes from the cache; names it cannot resolve are errors here, so sqlgen
// never sees an identifier the database did not define.
package plan

import (
	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// SourceCTE is the name of the CTE holding a mutation's or a call's rows.
const SourceCTE = "pgrst_source"

// Field is a resolved column reference.
type Field struct {
	// Name is the column name, or "*".
	Name string
	// Column is the cached column (nil for "*" and computed fields).
	Column *schemacache.Column
	// Computed is the function computing the field from the row, for a
	// computed field (Column is nil then).
	Computed *schemacache.Function
	JSONPath []parse.JSONOp
	// ToJSON wraps a non-JSON column in to_jsonb() before a JSON path.
	ToJSON bool
	// ToTSVector wraps the column in to_tsvector([TSLang,] col) for a
	// full-text filter on a non-tsvector column.
	ToTSVector bool
	TSLang     string
}

// SelectField is one output column.
type SelectField struct {
	Field         Field
	Cast          string
	Aggregate     string
	AggregateCast string
	// Alias is the output name ("" keeps the column's).
	Alias string
	// RelCount marks the count of an embed written rel(count), which
	// PostgREST answers whether or not aggregates are enabled.
	RelCount bool
	// FullRow selects the node's whole row: what a count() of a to-one
	// spread leaves behind once its aggregate is hoisted to the parent,
	// which counts the rows the spread matched.
	FullRow bool
}

// HoistedAgg is an aggregate a to-one spread hands to the node its columns
// land in: that node applies it to the spread's column Column ("*" for the
// whole row of a count()), with its cast and output alias.
type HoistedAgg struct {
	Column        string
	Aggregate     string
	AggregateCast string
	Alias         string
}

// OutputName is the JSON key the hoisted aggregate produces.
func (h HoistedAgg) OutputName() string {
	if h.Alias != "" {
		return h.Alias
	}
	return h.Aggregate
}

// OutputName is the JSON key the field produces.
func (s SelectField) OutputName() string {
	switch {
	case s.Alias != "":
		return s.Alias
	case s.Aggregate != "" && s.Field.Name == "*":
		return "count"
	case s.Aggregate != "":
		return s.Aggregate
	}
	return s.Field.Name
}

// Filter is a resolved filter. NullEmbed, when set, makes it a presence
// test on the embedded resource with that SQL alias (rel=is.null /
// rel=not.is.null).
type Filter struct {
	Field     Field
	Expr      parse.OpExpr
	NullEmbed string
	// Inline has sqlgen write the values into the statement's text rather
	// than bind them (see CustomPlan, builder.inline).
	Inline bool
}

// Logic is a resolved or/and tree (or a single filter).
type Logic struct {
	Not, Or  bool
	Children []Logic
	Filter   *Filter
}

// OrderTerm is a resolved order term; RelAlias, when set, orders by a
// column of the to-one embed with that SQL alias.
type OrderTerm struct {
	Field    Field
	RelAlias string
	Dir      string
	Nulls    string
}

// ColRef is a column of a FROM item: Alias when the item has one, else the
// qualified table.
type ColRef struct {
	Table schemacache.QI
	Alias string
	Col   string
}

// JoinCond is Left = Right.
type JoinCond struct {
	Left, Right ColRef
}

// ReadPlan is one node of a read: the root resource or an embedded one.
type ReadPlan struct {
	// Table describes the rows (their columns).
	Table *schemacache.Table
	// Unseen (on the root) says a filter's value is bound only because it
	// was not asked for often enough yet (Options.Seen): planned again
	// once it has been (Sightings), the value is written into the
	// statement. Such a plan is not worth keeping.
	Unseen bool
	// From is the relation read: a cached table, or SourceCTE for the
	// root of mutations and calls (FromCTE).
	From    schemacache.QI
	FromCTE bool
	// Alias is the SQL alias of From ("" refers to it by qualified name).
	Alias  string
	Select []SelectField
	Where  []Logic
	Order  []OrderTerm
	Range  parse.Range

	// Embedding (zero on the root).
	RelName  string
	RelAlias string
	Hint     string
	JoinType string
	Rel      *schemacache.Relationship
	IsSpread bool
	// AggAlias is the alias of the LATERAL subquery joining this node to
	// its parent.
	AggAlias string
	// JunctionAlias aliases the junction table of an M2M embed.
	JunctionAlias string
	JoinConds     []JoinCond
	// Hoisted are the aggregates of a to-one spread (its own and those of
	// its to-one spreads) that the node receiving its columns applies
	// (PostgREST's hoistSpreadAggFunctions).
	Hoisted []HoistedAgg
	// Parent is the node embedding this one, whose row a computed
	// relationship's function takes (nil on the root).
	Parent   *ReadPlan
	Children []*ReadPlan
	Depth    int
	// OmitFromSelect marks an embed whose select is empty and has no
	// embeds: it only filters its parent (PostgREST's empty embed).
	OmitFromSelect bool
}

// Name is how requests refer to the node: its alias, else its relation.
func (r *ReadPlan) Name() string {
	if r.RelAlias != "" {
		return r.RelAlias
	}
	return r.RelName
}

// HasAggregates reports an aggregate in the node's select.
func (r *ReadPlan) HasAggregates() bool {
	for _, s := range r.Select {
		if s.Aggregate != "" {
			return true
		}
	}
	return false
}

// IsToOneSpread reports a spread of a to-one relationship, whose columns
// land in its parent's rows.
func (r *ReadPlan) IsToOneSpread() bool {
	return r.IsSpread && r.Rel != nil && r.Rel.ToOne()
}

// HoistedFrom returns the aggregate hoisted from to-one spread c for its
// column col, when r is the node that applies it: c's parent, unless that
// parent is itself a to-one spread and hands it further up.
func (r *ReadPlan) HoistedFrom(c *ReadPlan, col string) (HoistedAgg, bool) {
	if r.IsToOneSpread() || !c.IsToOneSpread() {
		return HoistedAgg{}, false
	}
	for _, h := range c.Hoisted {
		if h.Column == col {
			return h, true
		}
	}
	return HoistedAgg{}, false
}

// GroupsHoisted reports that the node applies aggregates hoisted from its
// to-one spreads, so its other columns become its GROUP BY.
func (r *ReadPlan) GroupsHoisted() bool {
	return !r.IsToOneSpread() && r.receivesHoisted()
}

// MutateKind tells the write statements apart.
type MutateKind int

// The mutations.
const (
	Insert MutateKind = iota
	Update
	Delete
)

// MutatePlan is one INSERT, UPDATE or DELETE.
type MutatePlan struct {
	Kind  MutateKind
	Table *schemacache.Table
	// Columns are the payload columns written (insert/update), in the
	// order of Payload.Keys or columns=.
	Columns []*schemacache.Column
	Payload *parse.Payload
	// ApplyDefaults fills absent keys with the column default
	// (Prefer: missing=default).
	ApplyDefaults bool
	// OnConflict is "" (plain insert), "merge" or "ignore"; ConflictCols
	// the conflict target.
	OnConflict   string
	ConflictCols []string
	// Where filters updates and deletes (root filters and logic).
	Where []Logic
	// PutConds requires the payload to match the URL's primary key (PUT).
	PutConds []Filter
	// Returning lists the returned columns; empty returns 1 per row (no
	// SELECT privilege or policy needed), ReturnAll returns every column.
	Returning []string
	ReturnAll bool
	// Range limits updates and deletes by primary key (limit/offset with
	// an order).
	Range parse.Range
	Order []OrderTerm
}

// CallPlan is one function call.
type CallPlan struct {
	Func *schemacache.Function
	// Params are the parameters given (by name), in declaration order.
	Params []schemacache.Param
	// JSONArgs is the argument object (POST); Args the text arguments
	// (GET), aligned with Params.
	JSONArgs []byte
	Args     []string
	// SingleParam passes Body whole as the function's one parameter.
	SingleParam bool
	Body        []byte
}
