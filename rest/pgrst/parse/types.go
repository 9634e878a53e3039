// Package parse is the first stage of the PostgREST pipeline: it turns the
// method, path, query string, headers and body of one request into an
// ApiRequest (PostgREST ApiRequest.hs, ApiRequest/QueryParams.hs,
// ApiRequest/Preferences.hs, RangeQuery.hs). It never touches a database or
// an HTTP framework, and it bounds what it allocates: inputs longer or deeper
// than the limits below are rejected with PGRST100.
package parse

// Limits on untrusted input.
const (
	// MaxQueryLen bounds the raw query string.
	MaxQueryLen = 64 << 10
	// MaxParams bounds the number of query parameters.
	MaxParams = 512
	// MaxDepth bounds embedding and logic nesting.
	MaxDepth = 16
	// MaxItems bounds the items of one select, order, in-list or logic list.
	MaxItems = 1024
	// MaxHeaderLen bounds a Prefer, Accept or Range header.
	MaxHeaderLen = 8 << 10
)

// JSONOp is one step of a JSON path: -> or ->> (Text) with a key or an
// array index.
type JSONOp struct {
	// Text is true for ->> (the step yields text).
	Text bool
	// Key is the object key, or the index with its sign ("+1", "-1").
	Key string
	// Index reports an array index.
	Index bool
}

// Field is a column with an optional JSON path.
type Field struct {
	Name     string
	JSONPath []JSONOp
}

// LastKey returns the name a JSON path result is aliased to (the last key
// of the path, or the column name), PostgREST's addAliases rule.
func (f Field) LastKey() string {
	if len(f.JSONPath) == 0 {
		return ""
	}
	last := f.JSONPath[len(f.JSONPath)-1]
	if !last.Index {
		return last.Key
	}
	for i := len(f.JSONPath) - 1; i >= 0; i-- {
		if !f.JSONPath[i].Index {
			return f.JSONPath[i].Key
		}
	}
	return f.Name
}

// SelectKind tells the select items apart.
type SelectKind int

// The select item kinds.
const (
	SelectField SelectKind = iota
	SelectRelation
	SelectSpread
)

// Aggregate functions of the select grammar.
const (
	AggCount = "count"
	AggSum   = "sum"
	AggAvg   = "avg"
	AggMax   = "max"
	AggMin   = "min"
)

// SelectItem is one item of select=: a field (possibly *, cast, aliased or
// aggregated), an embedded relation, or a spread relation.
type SelectItem struct {
	Kind SelectKind
	// Field items.
	Field Field
	Cast  string
	// Aggregate is "", or one of the Agg* names; AggregateCast casts its
	// result.
	Aggregate     string
	AggregateCast string
	// Alias is the output name (fields and relations).
	Alias string
	// Relation items (and spreads): the target, the hint after !, and
	// JoinType "", "inner" or "left".
	Relation string
	Hint     string
	JoinType string
	Children []*SelectItem
}

// Filter operators.
const (
	OpEq         = "eq"
	OpNeq        = "neq"
	OpGt         = "gt"
	OpGte        = "gte"
	OpLt         = "lt"
	OpLte        = "lte"
	OpLike       = "like"
	OpILike      = "ilike"
	OpMatch      = "match"
	OpIMatch     = "imatch"
	OpIn         = "in"
	OpIs         = "is"
	OpIsDistinct = "isdistinct"
	OpCs         = "cs"
	OpCd         = "cd"
	OpOv         = "ov"
	OpSl         = "sl"
	OpSr         = "sr"
	OpNxr        = "nxr"
	OpNxl        = "nxl"
	OpAdj        = "adj"
	OpFts        = "fts"
	OpPlFts      = "plfts"
	OpPhFts      = "phfts"
	OpWFts       = "wfts"
)

// OpExpr is the right-hand side of a filter: [not.]op[(any|all)][(lang)].value.
type OpExpr struct {
	Not bool
	Op  string
	// Quant is "", "any" or "all" (eq, gt…, like, match and friends).
	Quant string
	// Value is the single value; List the values of in.(…); Is the
	// keyword of is. (null, not_null, true, false, unknown), lower-cased;
	// Lang the full-text configuration.
	Value string
	List  []string
	Is    string
	Lang  string
}

// Filter is field op value.
type Filter struct {
	Field Field
	Expr  OpExpr
}

// LogicTree is a node of or=(…)/and=(…): either a Filter or an operator
// over children.
type LogicTree struct {
	Not      bool
	Or       bool
	Children []LogicTree
	Filter   *Filter
}

// OrderTerm is one term of order=: a field, or Relation(field) for a
// to-one embed. Dir is "", "asc" or "desc"; Nulls "", "first" or "last".
type OrderTerm struct {
	Relation string
	Field    Field
	Dir      string
	Nulls    string
}

// EmbedPath is the path of embedded resources a parameter applies to
// (aliases or relation names); empty for the top level.
type EmbedPath []string

// PathFilter is a filter on the resource at Path.
type PathFilter struct {
	Path   EmbedPath
	Filter Filter
}

// PathLogic is an or=/and= tree on the resource at Path.
type PathLogic struct {
	Path EmbedPath
	Tree LogicTree
}

// PathOrder is an order= on the resource at Path.
type PathOrder struct {
	Path  EmbedPath
	Terms []OrderTerm
}

// Range is a row window: Offset and, unless Limit is negative, Limit rows
// (NoLimit).
type Range struct {
	Offset int64
	Limit  int64
}

// NoLimit marks a Range without an upper bound.
const NoLimit = -1

// All is the unbounded range.
var All = Range{Offset: 0, Limit: NoLimit}

// IsAll reports the unbounded range.
func (r Range) IsAll() bool { return r.Offset == 0 && r.Limit == NoLimit }

// PathRange is a limit/offset on the resource at Path.
type PathRange struct {
	Path  EmbedPath
	Range Range
}

// QueryParams is the parsed query string.
type QueryParams struct {
	// Select is select= (default *).
	Select []*SelectItem
	// SelectText is select= as it came ("" when absent), which Select is
	// parsed from.
	SelectText string
	// Filters are the field=op.value parameters, in order.
	Filters []PathFilter
	Logic   []PathLogic
	Order   []PathOrder
	Ranges  []PathRange
	// Columns is columns= (nil when absent).
	Columns []string
	// OnConflict is on_conflict= (nil when absent).
	OnConflict []string
	// RPCArgs are, for GET/HEAD on a function, the parameters without an
	// operator: the function's arguments, in order.
	RPCArgs [][2]string
}
