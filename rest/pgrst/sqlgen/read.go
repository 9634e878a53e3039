package sqlgen

import (
	"strconv"
	"strings"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
)

// field renders a column reference with its JSON path and to_tsvector.
func field(n *plan.ReadPlan, f plan.Field) exp.Expression {
	var e exp.Expression = nodeCol(n, f.Name)
	if f.Computed != nil {
		e = goqu.L("?(?)", tableIdent(f.Computed.QI()), rowRef(n))
	}
	if f.ToJSON {
		e = goqu.L("to_jsonb(?)", e)
	}
	for _, op := range f.JSONPath {
		arrow := "->"
		if op.Text {
			arrow = "->>"
		}
		if op.Index {
			e = goqu.L("?"+arrow+"?::int", e, op.Key)
		} else {
			e = goqu.L("?"+arrow+"?", e, op.Key)
		}
	}
	if f.ToTSVector {
		if f.TSLang != "" {
			e = goqu.L("to_tsvector(?, ?)", f.TSLang, e)
		} else {
			e = goqu.L("to_tsvector(?)", e)
		}
	}
	return e
}

// rowRef is the whole row of a node's FROM item, of its table's type, for
// the functions of computed fields and relationships: named by its alias or
// its bare table name ("schema"."table" would read as a column reference);
// the rows of a mutation's or a call's CTE (every column of the table, in
// order) are cast back to the table's row type.
func rowRef(n *plan.ReadPlan) exp.Expression {
	switch {
	case n.FromCTE:
		return goqu.L("CAST(ROW(?.*) AS ?)", ident(n.From.Name), tableIdent(n.Table.QI()))
	case n.Alias != "":
		return ident(n.Alias)
	}
	return ident(n.From.Name)
}

// castExpr applies CAST(e AS typ). typ passed the grammar's cast check
// (letters, digits, _, $ and spaces, no word starting with $, so no dollar
// quote or parameter can open), so it is written as is, like PostgREST does
// (quoting would break "int" and "double precision").
func castExpr(e exp.Expression, typ string) exp.Expression {
	if typ == "" {
		return e
	}
	return goqu.L("CAST(? AS "+typ+")", e)
}

func aggExpr(agg string, e exp.Expression) exp.Expression {
	if agg == "" {
		return e
	}
	return goqu.L(strings.ToUpper(agg)+"(?)", e)
}

func selectItem(n *plan.ReadPlan, s plan.SelectField) exp.Expression {
	var e exp.Expression
	switch {
	case s.FullRow:
		e = rowRef(n)
	case s.Aggregate == parse.AggCount && s.Field.Name == "*":
		e = goqu.L("COUNT(*)")
	default:
		e = aggExpr(s.Aggregate, castExpr(field(n, s.Field), s.Cast))
	}
	e = castExpr(e, s.AggregateCast)
	if s.Alias != "" {
		return goqu.L("? AS ?", e, ident(s.Alias))
	}
	return e
}

// hoistedItem applies an aggregate hoisted from a to-one spread to the
// spread's column col, as PostgREST's pgFmtSpreadSelectItem does.
func hoistedItem(h plan.HoistedAgg, col exp.Expression) exp.Expression {
	e := castExpr(aggExpr(h.Aggregate, col), h.AggregateCast)
	if h.Alias != "" {
		return goqu.L("? AS ?", e, ident(h.Alias))
	}
	return e
}

// LikeValue turns PostgREST's * wildcard into %: the pattern of a like or
// ilike filter as its statement binds it.
func LikeValue(v string) string { return strings.ReplaceAll(v, "*", "%") }

// QuoteLiteral writes s as a string constant of type unknown, as a bound
// parameter is, so PostgreSQL resolves it the same way. The escape-string
// form (E'…', backslashes and quotes doubled) reads the same whatever
// standard_conforming_strings says. s must be valid UTF-8 without NUL
// (plan.Inlinable): the query text is a C string.
func QuoteLiteral(s string) string {
	b := make([]byte, 0, len(s)+3)
	b = append(b, "E'"...)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '\'':
			b = append(b, c, c)
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '\''))
}

var simpleOps = map[string]string{
	parse.OpNeq: "<>", parse.OpCs: "@>", parse.OpCd: "<@", parse.OpOv: "&&", parse.OpSl: "<<", parse.OpSr: ">>",
	parse.OpNxr: "&<", parse.OpNxl: "&>", parse.OpAdj: "-|-",
}

var quantOps = map[string]string{
	parse.OpEq: "=", parse.OpGt: ">", parse.OpGte: ">=", parse.OpLt: "<", parse.OpLte: "<=",
	parse.OpLike: "LIKE", parse.OpILike: "ILIKE", parse.OpMatch: "~", parse.OpIMatch: "~*",
}

var ftsOps = map[string]string{
	parse.OpFts: "to_tsquery", parse.OpPlFts: "plainto_tsquery", parse.OpPhFts: "phraseto_tsquery", parse.OpWFts: "websearch_to_tsquery",
}

var isVals = map[string]string{"null": "NULL", "not_null": "NOT NULL", "true": "TRUE", "false": "FALSE", "unknown": "UNKNOWN"}

// EmptyList reports whether an in.(…) filter's list is the empty list
// (in.(), which parse reads as one empty value): written into the text as
// '{}' rather than bound.
func EmptyList(list []string) bool { return len(list) == 1 && list[0] == "" }

// InArray returns the array literal an in.(…) filter binds for list, and
// false for the empty list (EmptyList).
func InArray(list []string) (string, bool) {
	if EmptyList(list) {
		return "", false
	}
	return ArrayLiteral(list), true
}

// ArrayLiteral builds the PostgreSQL array literal of in.(…) values, sent
// as one bind parameter so the statement does not change with their count.
func ArrayLiteral(vals []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		if j := strings.IndexByte(v, 0); j >= 0 {
			v = v[:j]
		}
		b.WriteByte('"')
		v = strings.ReplaceAll(v, `\`, `\\`)
		b.WriteString(strings.ReplaceAll(v, `"`, `\"`))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// boolLiteral returns TRUE or FALSE when a filter compares a boolean
// column with "true" or "false" (what supabase-js sends for .eq(col,
// true)), and "" otherwise. Like LIMIT and OFFSET, such a value is written
// into the text rather than bound: it can only be one of two fixed words
// (the request's own text never reaches the SQL), so it makes at most two
// statements of one, and the plan PostgreSQL keeps for the statement can
// see it, which a parameter hides:
// with is_active = $1 the generic plan can neither prove a partial index's
// WHERE is_active nor use the column's statistics, costs more than the
// custom plans, and PostgreSQL then plans the statement on every execution
// (measured: the app's list page, whose only filter is is_active=eq.true).
// The comparison means the same either way.
func boolLiteral(f plan.Field, v string) string {
	if f.Column == nil || f.Column.Type != "boolean" || len(f.JSONPath) > 0 || f.ToJSON || f.ToTSVector {
		return ""
	}
	switch v {
	case "true":
		return "TRUE"
	case "false":
		return "FALSE"
	}
	return ""
}

func filterExpr(n *plan.ReadPlan, f *plan.Filter) exp.Expression {
	if f.NullEmbed != "" {
		// The embed's lateral row is null when it has no child, except a
		// to-many spread's, whose arrays default to []: that one says
		// whether it has children in its presence column.
		target := exp.Expression(ident(f.NullEmbed))
		for _, c := range n.Children {
			if c.AggAlias == f.NullEmbed && c.IsSpread && !c.Rel.ToOne() {
				target = goqu.L("?.?", ident(c.AggAlias), ident(spreadPresence))
			}
		}
		if f.Expr.Not {
			return goqu.L("? IS DISTINCT FROM NULL", target)
		}
		return goqu.L("? IS NOT DISTINCT FROM NULL", target)
	}
	lhs := field(n, f.Field)
	e := f.Expr
	// value is one of the filter's values as the statement carries it: a
	// parameter, or where the planner marked the filter (Filter.Inline: a
	// value-sensitive filter whose value is asked for often) a literal in
	// the text, so the statement kept for this value is planned for it.
	value := func(v string) any { return v }
	if f.Inline {
		value = func(v string) any { return goqu.L(QuoteLiteral(v)) }
	}
	var lit string
	if e.Op == parse.OpEq && e.Quant == "" || e.Op == parse.OpNeq {
		lit = boolLiteral(f.Field, e.Value)
	}
	var out exp.Expression
	switch {
	case lit != "" && e.Op == parse.OpEq:
		out = goqu.L("? = "+lit, lhs)
	case lit != "":
		out = goqu.L("? <> "+lit, lhs)
	case simpleOps[e.Op] != "":
		out = goqu.L("? "+simpleOps[e.Op]+" ?", lhs, value(e.Value))
	case quantOps[e.Op] != "":
		v := e.Value
		if e.Op == parse.OpLike || e.Op == parse.OpILike {
			v = LikeValue(v)
		}
		vv := value(v)
		switch e.Quant {
		case "any":
			out = goqu.L("? "+quantOps[e.Op]+" ANY(?)", lhs, vv)
		case "all":
			out = goqu.L("? "+quantOps[e.Op]+" ALL(?)", lhs, vv)
		default:
			out = goqu.L("? "+quantOps[e.Op]+" ?", lhs, vv)
		}
	case e.Op == parse.OpIs:
		out = goqu.L("? IS "+isVals[e.Is], lhs)
	case e.Op == parse.OpIsDistinct:
		out = goqu.L("? IS DISTINCT FROM ?", lhs, e.Value)
	case e.Op == parse.OpIn:
		if list, ok := InArray(e.List); ok {
			out = goqu.L("? = ANY(?)", lhs, value(list))
		} else {
			out = goqu.L("? = ANY('{}')", lhs)
		}
	case ftsOps[e.Op] != "":
		if e.Lang != "" {
			out = goqu.L("? @@ "+ftsOps[e.Op]+"(?, ?)", lhs, value(e.Lang), value(e.Value))
		} else {
			out = goqu.L("? @@ "+ftsOps[e.Op]+"(?)", lhs, value(e.Value))
		}
	default:
		out = goqu.L("false")
	}
	if e.Not {
		return goqu.L("NOT ?", out)
	}
	return out
}

// logicExpr renders a tree; count switches null-embed filters to EXISTS
// tests on the embed's count query.
func logicExpr(n *plan.ReadPlan, l plan.Logic, count bool) exp.Expression {
	if l.Filter != nil {
		if count && l.Filter.NullEmbed != "" {
			for _, c := range n.Children {
				if c.AggAlias == l.Filter.NullEmbed {
					if l.Filter.Expr.Not {
						return goqu.L("EXISTS ?", countDataset(c))
					}
					return goqu.L("NOT EXISTS ?", countDataset(c))
				}
			}
		}
		return filterExpr(n, l.Filter)
	}
	parts := make([]any, len(l.Children))
	for i, c := range l.Children {
		parts[i] = logicExpr(n, c, count)
	}
	op := " AND "
	if l.Or {
		op = " OR "
	}
	tmpl := "(" + placeholders(len(parts), op) + ")"
	if l.Not {
		tmpl = "NOT " + tmpl
	}
	return goqu.L(tmpl, parts...)
}

func orderExpr(n *plan.ReadPlan, o plan.OrderTerm) exp.OrderedExpression {
	var e exp.Expression
	if o.RelAlias != "" {
		rel := &plan.ReadPlan{From: n.From, Alias: o.RelAlias}
		e = field(rel, o.Field)
	} else {
		e = field(n, o.Field)
	}
	var oe exp.OrderedExpression
	if o.Dir == "desc" {
		oe = goqu.L("?", e).Desc()
	} else {
		oe = goqu.L("?", e).Asc()
	}
	switch o.Nulls {
	case "first":
		oe = oe.NullsFirst()
	case "last":
		oe = oe.NullsLast()
	}
	return oe
}

// fromItems returns the FROM of a node: its table (aliased) and, for M2M,
// the junction table.
func fromItems(n *plan.ReadPlan) []any {
	var from exp.Expression
	switch {
	case n.Rel != nil && n.Rel.IsComputed():
		// A computed relationship: its function of the parent's row.
		from = goqu.L("?(?) AS ?", tableIdent(n.Rel.Function), rowRef(n.Parent), ident(n.Alias))
	case n.FromCTE:
		from = ident(n.From.Name)
	case n.Alias != "":
		from = goqu.L("? AS ?", tableIdent(n.From), ident(n.Alias))
	default:
		from = tableIdent(n.From)
	}
	items := []any{from}
	if n.JunctionAlias != "" {
		items = append(items, goqu.L("? AS ?", tableIdent(n.Rel.Junction.Table), ident(n.JunctionAlias)))
	}
	return items
}

func joinConds(n *plan.ReadPlan) []exp.Expression {
	var out []exp.Expression
	for _, jc := range n.JoinConds {
		out = append(out, goqu.L("? = ?", colRef(jc.Left), colRef(jc.Right)))
	}
	return out
}

// limited returns the node's query as a parenthesized subquery with its
// LIMIT and OFFSET (see literalRange).
func limited(n *plan.ReadPlan) exp.Expression {
	ds := selectDataset(n)
	if n.Range.IsAll() {
		return ds
	}
	return literalRange(ds, n.Range.Limit, n.Range.Offset)
}

// literalRange returns q as a parenthesized subquery with a LIMIT (unless
// limit is parse.NoLimit) and an OFFSET (if positive). Unlike every other
// value, these two are written into the text, as integer literals: they are
// numbers the parse stage read or the server's own max-rows (never request
// text), and a literal LIMIT lets PostgreSQL keep one generic plan for the
// prepared statement instead of planning it again on every execution (with
// LIMIT $n its generic plan assumes a tenth of the table and looks dearer
// than its custom plans; measured: the app's list page at 55 % of a floor
// that writes it).
func literalRange(q exp.Expression, limit, offset int64) exp.Expression {
	clause := []byte("(?")
	if limit != parse.NoLimit {
		clause = append(clause, " LIMIT "...)
		clause = strconv.AppendInt(clause, limit, 10)
	}
	if offset > 0 {
		clause = append(clause, " OFFSET "...)
		clause = strconv.AppendInt(clause, offset, 10)
	}
	return goqu.L(string(append(clause, ')')), q)
}

// lateral joins a node's subquery (or its aggregation wrapper) as alias.
func lateral(sub exp.Expression, alias string) exp.Expression {
	return goqu.L("LATERAL ? AS ?", sub, ident(alias))
}

// selectDataset is the SELECT of one read node with its embeds joined
// LATERAL (PostgREST's readPlanToQuery).
func selectDataset(n *plan.ReadPlan) *goqu.SelectDataset {
	var sel []any
	for _, s := range n.Select {
		sel = append(sel, selectItem(n, s))
	}
	ds := dialect.From(fromItems(n)...)
	var groupBy []any
	hasAgg := n.HasAggregates() || n.GroupsHoisted()
	if hasAgg {
		for _, s := range n.Select {
			if s.Aggregate != "" {
				continue
			}
			if s.Alias != "" {
				groupBy = append(groupBy, ident(s.Alias))
			} else {
				groupBy = append(groupBy, field(n, s.Field))
			}
		}
	}
	for _, c := range n.Children {
		sub := limited(c)
		agg := ident(c.AggAlias)
		join := ds.LeftJoin
		if c.JoinType == "inner" {
			join = ds.InnerJoin
		}
		switch {
		case c.IsSpread && c.Rel.ToOne():
			ds = join(lateral(sub, c.AggAlias), goqu.On(goqu.L("TRUE")))
			for _, name := range spreadNames(c) {
				col := qualified(c.From, c.AggAlias, name)
				if h, ok := n.HoistedFrom(c, name); ok {
					sel = append(sel, hoistedItem(h, col))
					continue
				}
				sel = append(sel, goqu.L("?", col))
				if hasAgg && name != "*" {
					groupBy = append(groupBy, col)
				}
			}
		case c.IsSpread:
			var aggs []any
			for _, name := range spreadNames(c) {
				if name == "*" {
					continue
				}
				aggs = append(aggs, goqu.L("COALESCE(json_agg(?), '[]') AS ?", qualified(c.From, c.AggAlias, name), ident(name)))
				sel = append(sel, goqu.L("?", qualified(c.From, c.AggAlias, name)))
			}
			// Null when there is no child, for the embed's is.null filters;
			// never selected into the parent.
			aggs = append(aggs, goqu.L("NULLIF(count(*), 0) AS ?", ident(spreadPresence)))
			wrapped := dialect.From(goqu.L("? AS ?", sub, agg)).Select(aggs...)
			ds = join(lateral(wrapped, c.AggAlias), goqu.On(goqu.L("TRUE")))
		case c.Rel.ToOne():
			ds = join(lateral(sub, c.AggAlias), goqu.On(goqu.L("TRUE")))
			if !c.OmitFromSelect {
				sel = append(sel, goqu.L("row_to_json(?.*)::jsonb AS ?", agg, ident(c.Name())))
				if hasAgg {
					groupBy = append(groupBy, ident(c.Name()))
				}
			}
		default:
			wrapped := dialect.From(goqu.L("? AS ?", sub, agg)).Select(goqu.L("json_agg(?)::jsonb AS ?", agg, agg))
			cond := goqu.L("TRUE")
			if c.JoinType == "inner" {
				cond = goqu.L("? IS NOT NULL", agg)
			}
			ds = join(lateral(wrapped, c.AggAlias), goqu.On(cond))
			if !c.OmitFromSelect {
				sel = append(sel, goqu.L("COALESCE(?.?, '[]') AS ?", agg, agg, ident(c.Name())))
				if hasAgg {
					groupBy = append(groupBy, ident(c.Name()))
				}
			}
		}
	}
	if len(sel) == 0 {
		sel = append(sel, goqu.L("?", nodeCol(n, "*")))
	}
	ds = ds.Select(sel...)
	var where []exp.Expression
	where = append(where, joinConds(n)...)
	for _, l := range n.Where {
		where = append(where, logicExpr(n, l, false))
	}
	if len(where) > 0 {
		ds = ds.Where(where...)
	}
	if len(groupBy) > 0 {
		ds = ds.GroupBy(groupBy...)
	}
	if len(n.Order) > 0 {
		var ord []exp.OrderedExpression
		for _, o := range n.Order {
			ord = append(ord, orderExpr(n, o))
		}
		ds = ds.Order(ord...)
	}
	return ds
}

// countDataset is SELECT 1 over the node's filters, without limits, with
// EXISTS tests for !inner embeds (PostgREST's readPlanToCountQuery).
func countDataset(n *plan.ReadPlan) *goqu.SelectDataset {
	ds := dialect.From(fromItems(n)...).Select(goqu.L("1"))
	where := joinConds(n)
	for _, l := range n.Where {
		where = append(where, logicExpr(n, l, true))
	}
	for _, c := range n.Children {
		if c.JoinType == "inner" {
			where = append(where, goqu.L("EXISTS ?", countDataset(c)))
		}
	}
	if len(where) > 0 {
		ds = ds.Where(where...)
	}
	return ds
}

// spreadPresence is the hidden column of a to-many spread's lateral row
// that is null when the embed has no child.
const spreadPresence = "pgrst_spread_present"

// spreadNames are the output columns a spread embed lifts into its parent:
// its fields and its own (non-empty) embeds.
func spreadNames(c *plan.ReadPlan) []string {
	var out []string
	for _, s := range c.Select {
		out = append(out, s.OutputName())
	}
	for _, g := range c.Children {
		if g.IsSpread {
			out = append(out, spreadNames(g)...)
		} else if !g.OmitFromSelect {
			out = append(out, g.Name())
		}
	}
	return out
}
