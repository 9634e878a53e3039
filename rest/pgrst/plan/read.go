package plan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// Options are the configuration planning needs.
type Options struct {
	// MaxRows caps every read node (PGRST_DB_MAX_ROWS; 0: no cap).
	MaxRows int64
	// Aggregates allows count(), sum() and friends
	// (PGRST_DB_AGGREGATES_ENABLED).
	Aggregates bool
	// Seen, when set, has a value-sensitive filter's value written into
	// the statement only once it is asked for often (Sightings); nil
	// writes every one that can be.
	Seen *Sightings
	// BindAll binds every value, as if none had been asked for often
	// (Seen is then not read): a shape's template is learnt from such a
	// plan.
	BindAll bool
}

// RootKind says what the root of a read plan reads.
type RootKind int

// The root kinds.
const (
	// RootTable reads the table itself (GET/HEAD).
	RootTable RootKind = iota
	// RootMutation reads the rows a write returned, from SourceCTE.
	RootMutation
	// RootCall reads the rows a function returned, from SourceCTE.
	RootCall
)

type builder struct {
	c      *schemacache.Cache
	schema string
	n      int
	opt    Options
	// unseen: a filter's value was bound because it was not asked for
	// often enough yet.
	unseen bool
}

func (b *builder) nextAlias() (table, agg string) {
	b.n++
	s := strconv.Itoa(b.n)
	return "pgrst_" + s, "pgrst_agg_" + s
}

// Read builds the ReadPlan tree of req over table t.
func Read(c *schemacache.Cache, t *schemacache.Table, req *parse.ApiRequest, kind RootKind, opt Options) (*ReadPlan, error) {
	b := &builder{c: c, schema: t.Schema, opt: opt}
	root := &ReadPlan{Table: t, From: t.QI(), RelName: t.Name, Range: parse.All}
	if kind != RootTable {
		root.From, root.FromCTE = schemacache.QI{Name: SourceCTE}, true
	}
	if err := b.addSelect(root, req.Query.Select); err != nil {
		return nil, err
	}
	mutation := kind == RootMutation
	for _, f := range req.Query.Filters {
		if mutation && len(f.Path) == 0 {
			continue
		}
		n, err := findNode(root, f.Path)
		if err != nil {
			return nil, err
		}
		l, err := b.resolveFilter(n, f.Filter, true)
		if err != nil {
			return nil, err
		}
		n.Where = append(n.Where, l)
	}
	for _, lg := range req.Query.Logic {
		if mutation && len(lg.Path) == 0 {
			continue
		}
		n, err := findNode(root, lg.Path)
		if err != nil {
			return nil, err
		}
		l, err := b.resolveLogic(n, lg.Tree, 0)
		if err != nil {
			return nil, err
		}
		n.Where = append(n.Where, l)
	}
	if !mutation {
		for _, o := range req.Query.Order {
			n, err := findNode(root, o.Path)
			if err != nil {
				return nil, err
			}
			if n.Order, err = b.resolveOrder(n, o.Terms); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range req.Query.Ranges {
		if len(r.Path) == 0 {
			continue
		}
		n, err := findNode(root, r.Path)
		if err != nil {
			return nil, err
		}
		n.Range = r.Range
	}
	if kind != RootMutation {
		root.Range = req.TopRange
		restrict(root, opt.MaxRows)
	}
	if err := b.checkAggregates(root); err != nil {
		return nil, err
	}
	if err := hoistSpreadAggregates(root); err != nil {
		return nil, err
	}
	markEmpty(root)
	root.Unseen = b.unseen
	return root, nil
}

func restrict(n *ReadPlan, maxRows int64) {
	// A to-one embed is at most one row already, and so is a node whose
	// filters pin a key of its table (the detail page's id=eq.…): a LIMIT
	// there changes no answer and costs the executor a node, a few
	// microseconds of a one-row read.
	if (n.Rel == nil || !n.Rel.ToOne()) && !keyPinned(n) {
		n.Range = n.Range.Restrict(maxRows)
	}
	for _, c := range n.Children {
		restrict(c, maxRows)
	}
}

// keyPinned reports whether n reads its table's own rows under top-level
// filters col=eq.v on every column of a primary key or unique constraint.
// Rows from elsewhere may repeat one: a function's or a write's (FromCTE),
// a computed relationship's, and a many-to-many embed's, whose junction
// table may pair the same two rows twice. Such a filter never matches
// NULL, so a unique constraint's NULLs do not count; a negated,
// quantified, JSON-path or computed filter does not pin.
func keyPinned(n *ReadPlan) bool {
	if n.Table == nil || n.FromCTE || len(n.Where) == 0 {
		return false
	}
	if r := n.Rel; r != nil && (r.Cardinality == schemacache.M2M || r.Junction != nil || r.IsComputed()) {
		return false
	}
	return n.Table.KeyPinned(func(col string) bool {
		for _, l := range n.Where {
			f := l.Filter
			if l.Not || len(l.Children) > 0 || f == nil || f.NullEmbed != "" {
				continue
			}
			if f.Expr.Op == parse.OpEq && !f.Expr.Not && f.Expr.Quant == "" &&
				f.Field.Column != nil && f.Field.Name == col && len(f.Field.JSONPath) == 0 && !f.Field.ToTSVector {
				return true
			}
		}
		return false
	})
}

func markEmpty(n *ReadPlan) bool {
	empty := len(n.Select) == 0
	for _, c := range n.Children {
		if !markEmpty(c) {
			empty = false
		}
	}
	if n.Depth > 0 && !n.IsSpread {
		n.OmitFromSelect = empty
	}
	return empty
}

func (b *builder) checkAggregates(n *ReadPlan) error {
	if n.HasAggregates() {
		if !b.opt.Aggregates && !onlyRelCounts(n) {
			return pgrsterr.AggregatesNotAllowed()
		}
		expandStar(n)
	}
	for _, c := range n.Children {
		if err := b.checkAggregates(c); err != nil {
			return err
		}
	}
	return nil
}

// expandStar turns * into every column of the node: with aggregates they
// become its GROUP BY.
func expandStar(n *ReadPlan) {
	var sel []SelectField
	for _, s := range n.Select {
		if s.Field.Name == "*" && s.Aggregate == "" && !s.FullRow {
			for _, col := range n.Table.Columns {
				sel = append(sel, SelectField{Field: Field{Name: col.Name, Column: col}})
			}
			continue
		}
		sel = append(sel, s)
	}
	n.Select = sel
}

// hoistSpreadAggregates lifts the aggregates of to-one spreads into the
// node their columns land in (PostgREST's hoistSpreadAggFunctions): a
// to-one spread is one row per parent row, so an aggregate computed inside
// it would aggregate that one row. The spread selects the aggregate's input
// instead, and the nearest ancestor that is not itself a to-one spread (the
// root, a plain embed or a to-many spread) applies it, grouping by its other
// columns. A to-many spread cannot take aggregates, its own or hoisted ones:
// PostgREST answers PGRST127 there.
func hoistSpreadAggregates(n *ReadPlan) error {
	for _, c := range n.Children {
		if err := hoistSpreadAggregates(c); err != nil {
			return err
		}
	}
	if n.IsSpread && !n.Rel.ToOne() && (n.HasAggregates() || n.receivesHoisted()) {
		return pgrsterr.NotImplemented("Aggregates are not implemented for one-to-many or many-to-many spreads.")
	}
	if n.IsToOneSpread() {
		for i, s := range n.Select {
			if s.Aggregate == "" {
				continue
			}
			col := s.Field.Name
			if s.Alias != "" {
				col = s.Alias
			}
			n.Hoisted = append(n.Hoisted, HoistedAgg{Column: col, Aggregate: s.Aggregate, AggregateCast: s.AggregateCast, Alias: s.Alias})
			s.Aggregate, s.AggregateCast, s.RelCount = "", "", false
			// count() has no column: the spread hands up its whole row,
			// null when it matched nothing, which COUNT skips.
			s.FullRow = s.Field.Name == "*"
			n.Select[i] = s
		}
		// The columns of its own to-one spreads are its columns, by the
		// same names, so their aggregates pass on unchanged.
		for _, c := range n.Children {
			if c.IsToOneSpread() {
				n.Hoisted = append(n.Hoisted, c.Hoisted...)
			}
		}
		return nil
	}
	if n.GroupsHoisted() && !n.HasAggregates() {
		expandStar(n)
	}
	return nil
}

// receivesHoisted reports a to-one spread child with aggregates to hoist.
func (r *ReadPlan) receivesHoisted() bool {
	for _, c := range r.Children {
		if c.IsToOneSpread() && len(c.Hoisted) > 0 {
			return true
		}
	}
	return false
}

// onlyRelCounts reports that a node's aggregates are all rel(count).
func onlyRelCounts(n *ReadPlan) bool {
	for _, s := range n.Select {
		if s.Aggregate != "" && !s.RelCount {
			return false
		}
	}
	return true
}

func findNode(root *ReadPlan, path parse.EmbedPath) (*ReadPlan, error) {
	n := root
	for _, seg := range path {
		var next *ReadPlan
		for _, c := range n.Children {
			if c.Name() == seg {
				next = c
				break
			}
		}
		if next == nil {
			return nil, pgrsterr.NotEmbedded(seg)
		}
		n = next
	}
	return n, nil
}

func (b *builder) column(n *ReadPlan, name string) (*schemacache.Column, error) {
	col := n.Table.Column(name)
	if col == nil {
		return nil, pgrsterr.UndefinedColumn(n.Table.Name, name)
	}
	return col, nil
}

// resolveField resolves f on node n. fts asks for the to_tsvector wrapping
// when the column is not a tsvector.
func (b *builder) resolveField(n *ReadPlan, f parse.Field, ftsLang string, fts bool) (Field, error) {
	if f.Name == "*" && len(f.JSONPath) == 0 {
		return Field{Name: "*"}, nil
	}
	col, err := b.column(n, f.Name)
	if err != nil {
		// A computed field: a function of the row (rows read from a
		// mutation's or a call's CTE are cast back to the table's type).
		fn := b.c.ComputedField(n.Table.QI(), f.Name)
		if fn == nil || n.Table.Kind == 'c' {
			return Field{}, err
		}
		out := Field{Name: f.Name, Computed: fn, JSONPath: f.JSONPath}
		isJSON := fn.ReturnTypeName == "json" || fn.ReturnTypeName == "jsonb"
		if len(f.JSONPath) > 0 && !isJSON {
			out.ToJSON = true
		}
		if fts && fn.ReturnTypeName != "tsvector" {
			out.ToTSVector, out.TSLang = true, ftsLang
		}
		return out, nil
	}
	out := Field{Name: col.Name, Column: col, JSONPath: f.JSONPath}
	if len(f.JSONPath) > 0 && !col.IsJSON() {
		out.ToJSON = true
	}
	if fts && !col.IsTSVector() {
		out.ToTSVector, out.TSLang = true, ftsLang
	}
	return out, nil
}

func (b *builder) addSelect(n *ReadPlan, items []*parse.SelectItem) error {
	// A SelectField is large: growing the list by appending was most of
	// planning a read's cost (a screen selects 19 columns).
	n.Select = slices.Grow(n.Select, len(items))
	for _, it := range items {
		switch it.Kind {
		case parse.SelectField:
			if n.Depth > 0 && it.Field.Name == "count" && len(it.Field.JSONPath) == 0 && it.Cast == "" && it.Aggregate == "" && n.Table.Column("count") == nil {
				// rel(count): the number of related rows.
				n.Select = append(n.Select, SelectField{Field: Field{Name: "*"}, Aggregate: parse.AggCount, Alias: it.Alias, RelCount: true})
				continue
			}
			f, err := b.resolveField(n, it.Field, "", false)
			if err != nil {
				return err
			}
			// The parsed request is shared (parse.SelectCache): it is
			// read here, never changed.
			cast := it.Cast
			if f.Name == "*" {
				cast = ""
			}
			sf := SelectField{Field: f, Cast: cast, Aggregate: it.Aggregate, AggregateCast: it.AggregateCast, Alias: it.Alias}
			if sf.Alias == "" && it.Aggregate == "" && len(it.Field.JSONPath) > 0 {
				sf.Alias = it.Field.LastKey()
			}
			n.Select = append(n.Select, sf)
		default:
			child, err := b.embed(n, it)
			if err != nil {
				return err
			}
			n.Children = append(n.Children, child)
		}
	}
	return nil
}

func (b *builder) embed(parent *ReadPlan, it *parse.SelectItem) (*ReadPlan, error) {
	if parent.Depth+1 > parse.MaxDepth {
		return nil, pgrsterr.QueryParam("embedding too deep", "at most "+strconv.Itoa(parse.MaxDepth)+" levels")
	}
	origin := parent.Table.QI()
	rel, err := FindRel(b.c, origin, it.Relation, it.Hint)
	if err != nil {
		return nil, err
	}
	ft := b.c.Table(rel.ForeignTable)
	if ft == nil {
		return nil, pgrsterr.TableNotFound(rel.ForeignTable.Schema, rel.ForeignTable.Name, "")
	}
	alias, agg := b.nextAlias()
	child := &ReadPlan{Table: ft, From: ft.QI(), Alias: alias, AggAlias: agg, RelName: it.Relation, RelAlias: it.Alias,
		Hint: it.Hint, JoinType: it.JoinType, Rel: rel, IsSpread: it.Kind == parse.SelectSpread, Depth: parent.Depth + 1, Range: parse.All, Parent: parent}
	parentRef := func(col string) ColRef {
		if parent.FromCTE {
			return ColRef{Table: parent.From, Col: col}
		}
		return ColRef{Table: parent.From, Alias: parent.Alias, Col: col}
	}
	switch {
	case rel.IsComputed():
		// The function of the parent's row yields the rows: no join
		// condition (sqlgen writes the call as the FROM item).
	case rel.Cardinality == schemacache.M2M:
		j := rel.Junction
		child.JunctionAlias = alias + "_j"
		for _, p := range j.ColsTarget {
			child.JoinConds = append(child.JoinConds, JoinCond{ColRef{Table: ft.QI(), Alias: alias, Col: p.Col}, ColRef{Table: j.Table, Alias: child.JunctionAlias, Col: p.FCol}})
		}
		for _, p := range j.ColsSource {
			child.JoinConds = append(child.JoinConds, JoinCond{ColRef{Table: j.Table, Alias: child.JunctionAlias, Col: p.FCol}, parentRef(p.Col)})
		}
	default:
		for _, p := range rel.Columns {
			child.JoinConds = append(child.JoinConds, JoinCond{ColRef{Table: ft.QI(), Alias: alias, Col: p.FCol}, parentRef(p.Col)})
		}
	}
	if err := b.addSelect(child, it.Children); err != nil {
		return nil, err
	}
	return child, nil
}

func (b *builder) resolveFilter(n *ReadPlan, f parse.Filter, allowEmbed bool) (Logic, error) {
	if allowEmbed && len(f.Field.JSONPath) == 0 {
		for _, c := range n.Children {
			if c.Name() != f.Field.Name {
				continue
			}
			if f.Expr.Op != parse.OpIs || (f.Expr.Is != "null" && f.Expr.Is != "not_null") {
				return Logic{}, pgrsterr.UnacceptableFilter(f.Field.Name)
			}
			e := f.Expr
			if e.Is == "not_null" {
				e.Is, e.Not = "null", !e.Not
			}
			return Logic{Filter: &Filter{Expr: e, NullEmbed: c.AggAlias}}, nil
		}
	}
	fts := false
	switch f.Expr.Op {
	case parse.OpFts, parse.OpPlFts, parse.OpPhFts, parse.OpWFts:
		fts = true
	}
	fld, err := b.resolveField(n, f.Field, f.Expr.Lang, fts)
	if err != nil {
		return Logic{}, err
	}
	if fld.Name == "*" {
		return Logic{}, pgrsterr.UndefinedColumn(n.Table.Name, "*")
	}
	return Logic{Filter: &Filter{Field: fld, Expr: f.Expr, Inline: b.inline(n, fld, f.Expr)}}, nil
}

// inline decides whether sqlgen writes the values of n's filter by e on
// fld into the statement (Filter.Inline): a value-sensitive filter whose
// values can be, once they are asked for often.
func (b *builder) inline(n *ReadPlan, fld Field, e parse.OpExpr) bool {
	if !ValueSensitive(e.Op) || !Inlinable(e) {
		return false
	}
	if b.opt.BindAll {
		b.unseen = true
		return false
	}
	if b.opt.Seen == nil {
		return true
	}
	var table string
	if n.Table != nil {
		table = n.Table.Name
	}
	if b.opt.Seen.Often(b.schema, table, fld.Name, e) {
		return true
	}
	b.unseen = true
	return false
}

func (b *builder) resolveLogic(n *ReadPlan, t parse.LogicTree, depth int) (Logic, error) {
	if depth > parse.MaxDepth {
		return Logic{}, pgrsterr.QueryParam("logic tree too deep", "at most "+strconv.Itoa(parse.MaxDepth)+" levels")
	}
	if t.Filter != nil {
		return b.resolveFilter(n, *t.Filter, true)
	}
	out := Logic{Not: t.Not, Or: t.Or}
	for _, c := range t.Children {
		l, err := b.resolveLogic(n, c, depth+1)
		if err != nil {
			return Logic{}, err
		}
		out.Children = append(out.Children, l)
	}
	return out, nil
}

func (b *builder) resolveOrder(n *ReadPlan, terms []parse.OrderTerm) ([]OrderTerm, error) {
	var out []OrderTerm
	for _, t := range terms {
		if t.Relation == "" {
			f, err := b.resolveField(n, t.Field, "", false)
			if err != nil {
				return nil, err
			}
			out = append(out, OrderTerm{Field: f, Dir: t.Dir, Nulls: t.Nulls})
			continue
		}
		var child *ReadPlan
		for _, c := range n.Children {
			if c.Name() == t.Relation {
				child = c
			}
		}
		if child == nil {
			return nil, pgrsterr.NotEmbedded(t.Relation)
		}
		if !child.Rel.ToOne() {
			return nil, pgrsterr.RelatedOrderNotToOne(n.Table.Name, t.Relation)
		}
		f, err := b.resolveField(child, t.Field, "", false)
		if err != nil {
			return nil, err
		}
		if f.Computed != nil {
			// The embed's row is its selected columns: order by the
			// computed field only as one of them.
			name := ""
			for _, s := range child.Select {
				if s.Field.Computed == f.Computed && len(s.Field.JSONPath) == 0 && s.Aggregate == "" && s.Cast == "" {
					name = s.OutputName()
				}
			}
			if name == "" || len(f.JSONPath) > 0 {
				return nil, pgrsterr.UndefinedColumn(child.Table.Name, t.Field.Name)
			}
			out = append(out, OrderTerm{Field: Field{Name: name}, RelAlias: child.AggAlias, Dir: t.Dir, Nulls: t.Nulls})
			continue
		}
		// The embed's subquery names its columns by their aliases.
		for _, s := range child.Select {
			if s.Field.Name == f.Name && s.Alias != "" && len(s.Field.JSONPath) == 0 && len(f.JSONPath) == 0 && s.Aggregate == "" {
				f.Name = s.Alias
			}
		}
		out = append(out, OrderTerm{Field: f, RelAlias: child.AggAlias, Dir: t.Dir, Nulls: t.Nulls})
	}
	return out, nil
}

// SplitQI splits "schema.name" (a configured function name); a bare name
// takes schema def.
func SplitQI(s, def string) schemacache.QI {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return schemacache.QI{Schema: s[:i], Name: s[i+1:]}
	}
	return schemacache.QI{Schema: def, Name: s}
}
