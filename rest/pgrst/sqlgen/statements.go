package sqlgen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"

	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// Handler is how the body column aggregates the result rows.
type Handler int

// The body handlers.
const (
	// HandlerJSON is a JSON array.
	HandlerJSON Handler = iota
	// HandlerSingle is the first row as an object (vnd.pgrst.object).
	HandlerSingle
	// HandlerCSV is CSV with a header line.
	HandlerCSV
	// HandlerNone returns no body (return=minimal, HEAD).
	HandlerNone
	// HandlerGeoJSON is a GeoJSON FeatureCollection of the rows, by
	// PostGIS's ST_AsGeoJSON(record) (application/geo+json).
	HandlerGeoJSON
)

// Output chooses the body of a statement.
type Output struct {
	Handler    Handler
	StripNulls bool
	// Func is set for calls: scalar and single-row results change the
	// aggregation.
	Func *schemacache.Function
}

// The main statement of every request returns one row with these columns.
const resultColumns = "total_result_set, page_total, body, response_headers, response_status, response_inserted, location"

func stripNulls(strip bool, e string) string {
	if strip {
		return "json_strip_nulls(" + e + ")"
	}
	return e
}

// bodyExpr is PostgREST's handlerF.
func bodyExpr(o Output) exp.Expression {
	f := o.Func
	switch o.Handler {
	case HandlerNone:
		return goqu.L("''::text")
	case HandlerGeoJSON:
		// PostgREST's asGeoJsonF: each row a Feature whose geometry is its
		// (first) geometry column and whose properties are the others.
		// Without PostGIS the function does not exist (42883).
		return goqu.L("json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))::text")
	case HandlerCSV:
		return goqu.L(`(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k FROM (SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) s) a)` +
			` || chr(10) || coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), chr(10)), '')`)
	case HandlerSingle:
		if f != nil && f.ReturnsScalar() {
			return goqu.L("coalesce(" + stripNulls(o.StripNulls, "json_agg(_postgrest_t.pgrst_scalar)->0") + ", 'null')::text")
		}
		return goqu.L("coalesce(" + stripNulls(o.StripNulls, "json_agg(_postgrest_t)->0") + ", 'null')::text")
	}
	switch {
	case f != nil && f.ReturnsSingleComposite():
		return goqu.L("coalesce(" + stripNulls(o.StripNulls, "json_agg(_postgrest_t)->0") + ", 'null')::text")
	case f != nil && f.ReturnsScalar():
		return goqu.L("coalesce(" + stripNulls(o.StripNulls, "json_agg(_postgrest_t.pgrst_scalar)->0") + ", 'null')::text")
	case f != nil && f.ReturnsSetOfScalar():
		return goqu.L("coalesce(" + stripNulls(o.StripNulls, "json_agg(_postgrest_t.pgrst_scalar)") + ", '[]')::text")
	}
	return goqu.L("coalesce(" + stripNulls(o.StripNulls, "json_agg(_postgrest_t)") + ", '[]')::text")
}

var (
	responseHeaders = goqu.L("nullif(current_setting('response.headers', true), '') AS response_headers")
	responseStatus  = goqu.L("nullif(current_setting('response.status', true), '') AS response_status")
	noLocation      = goqu.L("'[]'::text AS location")
)

func toQuery(ds *goqu.SelectDataset) (Query, error) {
	s, args, err := ds.Prepared(true).ToSQL()
	if err != nil {
		return Query{}, fmt.Errorf("build statement: %w", err)
	}
	return Query{SQL: s, Args: args}, nil
}

// pageTotal counts the rows of the body. PostgREST writes
// count(_postgrest_t); count(*) is the same number (the row of the only
// FROM item is never NULL) without forming every row a second time, once
// for the count and once for the body, which costs a short read a few
// percent of its time in the database.
var pageTotal = goqu.L("pg_catalog.count(*) AS page_total")

// Read is the statement of a GET/HEAD (PostgREST's prepareRead): the root
// select as the pgrst_source CTE, an exact count when asked, and the body
// aggregated in the database.
func Read(root *plan.ReadPlan, exactCount bool, o Output) (Query, error) {
	var count exp.Expression
	if exactCount {
		count = countDataset(root)
	}
	return read(root, count, o)
}

// ReadCountUpTo is Read counting at most limit rows, for Prefer:
// count=estimated: PostgREST counts every row and then, above max-rows,
// answers the planner's estimate instead; counting max-rows + 1 tells the
// two cases apart alike without counting a large table's every row. The
// limit is written into the text, as the page's is (see literalRange).
func ReadCountUpTo(root *plan.ReadPlan, limit int64, o Output) (Query, error) {
	return read(root, literalRange(countDataset(root), max(limit, 0), 0), o)
}

func read(root *plan.ReadPlan, count exp.Expression, o Output) (Query, error) {
	ds := dialect.From(goqu.L("(SELECT * FROM pgrst_source) _postgrest_t")).With("pgrst_source", limited(root))
	total := goqu.L("null::bigint AS total_result_set")
	if count != nil {
		ds = ds.With("pgrst_source_count", count)
		total = goqu.L("(SELECT pg_catalog.count(*) FROM pgrst_source_count) AS total_result_set")
	}
	return toQuery(ds.Select(total, pageTotal, goqu.L("? AS body", bodyExpr(o)),
		responseHeaders, responseStatus, goqu.L("null::bigint AS response_inserted"), noLocation))
}

// PlannedCount is EXPLAIN (FORMAT JSON) of the root's count query, whose
// "Plan Rows" is Prefer: count=planned.
func PlannedCount(root *plan.ReadPlan) (Query, error) {
	q, err := toQuery(countDataset(root))
	if err != nil {
		return q, err
	}
	q.SQL = "EXPLAIN (FORMAT JSON) " + q.SQL
	return q, nil
}

// payloadSource is PostgREST's fromJsonBodyF: the JSON body as rows typed
// like the target columns (with column defaults for absent keys when
// defaults is set).
func payloadSource(body []byte, columns []*schemacache.Column, isObject, defaults, limitOne bool) exp.Expression {
	var args []any
	var b strings.Builder
	jsonType := "json"
	if defaults {
		jsonType = "jsonb"
	}
	b.WriteString("(SELECT ?::" + jsonType + " AS json_data) pgrst_payload, ")
	args = append(args, string(body))
	src := "pgrst_payload.json_data"
	if defaults {
		var defs []string
		for _, c := range columns {
			if c.Default != "" {
				// The default expression comes from the catalog.
				defs = append(defs, "?::text, "+c.Default)
				args = append(args, c.Name)
			}
		}
		obj := "jsonb_build_object(" + strings.Join(defs, ", ") + ")"
		if isObject {
			b.WriteString("LATERAL (SELECT " + obj + " || pgrst_payload.json_data AS val) pgrst_json_defs, ")
		} else {
			b.WriteString("LATERAL (SELECT jsonb_agg(" + obj + " || elem) AS val FROM jsonb_array_elements(pgrst_payload.json_data) elem) pgrst_json_defs, ")
		}
		src = "pgrst_json_defs.val"
	}
	toRecord := "json_to_recordset"
	switch {
	case defaults && isObject:
		toRecord = "jsonb_to_record"
	case defaults:
		toRecord = "jsonb_to_recordset"
	case isObject:
		toRecord = "json_to_record"
	}
	if len(columns) == 0 {
		if isObject {
			b.WriteString("LATERAL (SELECT FROM (values(1)) _) pgrst_body")
		} else {
			elems := "json_array_elements"
			if defaults {
				elems = "jsonb_array_elements"
			}
			b.WriteString("LATERAL (SELECT FROM " + elems + "(" + src + ") _) pgrst_body")
		}
		return goqu.L(b.String(), args...)
	}
	b.WriteString("LATERAL (SELECT " + placeholders(len(columns), ", ") + " FROM " + toRecord + "(" + src + ") AS _(")
	for _, c := range columns {
		args = append(args, ident(c.Name))
	}
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		// The type comes from the catalog (format_type).
		b.WriteString("? " + c.Type)
		args = append(args, ident(c.Name))
	}
	b.WriteString(")")
	if limitOne {
		b.WriteString(" LIMIT 1")
	}
	b.WriteString(") pgrst_body")
	return goqu.L(b.String(), args...)
}

func returning(m *plan.MutatePlan) exp.Expression {
	t := m.Table.QI()
	switch {
	case m.ReturnAll:
		return goqu.L("RETURNING ?", qualified(t, "", "*"))
	case len(m.Returning) > 0:
		ids := make([]any, len(m.Returning))
		for i, c := range m.Returning {
			ids[i] = qualified(t, "", c)
		}
		return goqu.L("RETURNING "+placeholders(len(ids), ", "), ids...)
	}
	return goqu.L("RETURNING 1")
}

const (
	insertedInc = "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) + 1)::text, true) <> '0'"
	insertedDec = "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) - 1)::text, true) <> '-1'"
)

// mutation renders the INSERT, UPDATE or DELETE of m (PostgREST's
// mutatePlanToQuery), wrapped in parentheses for the CTE.
func mutation(m *plan.MutatePlan) exp.Expression {
	t := m.Table.QI()
	root := &plan.ReadPlan{Table: m.Table, From: t}
	where := func() (string, []any) {
		if len(m.Where) == 0 {
			return "", nil
		}
		var args []any
		for _, l := range m.Where {
			args = append(args, logicExpr(root, l, false))
		}
		return " WHERE " + placeholders(len(args), " AND "), args
	}
	switch m.Kind {
	case plan.Insert:
		var names []string
		for _, c := range m.Columns {
			names = append(names, c.Name)
		}
		args := []any{tableIdent(t)}
		tmpl := "(INSERT INTO ?"
		if len(names) > 0 {
			tmpl += "(?)"
			args = append(args, cols(names))
		}
		tmpl += " SELECT "
		if len(names) > 0 {
			tmpl += placeholders(len(names), ", ")
			for _, n := range names {
				args = append(args, qualified(schemacache.QI{Name: "pgrst_body"}, "", n))
			}
		}
		tmpl += " FROM ?"
		args = append(args, payloadSource(m.Payload.JSON, m.Columns, m.Payload.IsObject, m.ApplyDefaults, false))
		if m.OnConflict == "merge" {
			tmpl += " WHERE " + insertedInc
		}
		if m.OnConflict != "" {
			tmpl += " ON CONFLICT(?) "
			args = append(args, cols(m.ConflictCols))
			if m.OnConflict == "ignore" || len(names) == 0 {
				tmpl += "DO NOTHING"
			} else {
				var sets []string
				for _, n := range names {
					sets = append(sets, "? = EXCLUDED.?")
					args = append(args, ident(n), ident(n))
				}
				tmpl += "DO UPDATE SET " + strings.Join(sets, ", ") + " WHERE " + insertedDec
			}
		}
		tmpl += " ?)"
		args = append(args, returning(m))
		return goqu.L(tmpl, args...)
	case plan.Update:
		if len(m.Columns) == 0 {
			// Nothing to set: no row changes (PostgREST answers from an
			// empty select).
			return goqu.L("(SELECT 1 FROM ? WHERE false)", tableIdent(t))
		}
		args := []any{tableIdent(t)}
		var sets []string
		for _, c := range m.Columns {
			sets = append(sets, "? = ?")
			args = append(args, ident(c.Name), qualified(schemacache.QI{Name: "pgrst_body"}, "", c.Name))
		}
		tmpl := "(UPDATE ? SET " + strings.Join(sets, ", ") + " FROM ?"
		args = append(args, payloadSource(m.Payload.JSON, m.Columns, m.Payload.IsObject, m.ApplyDefaults, true))
		w, wargs := where()
		tmpl += w + " ?)"
		args = append(append(args, wargs...), returning(m))
		return goqu.L(tmpl, args...)
	default:
		w, wargs := where()
		args := append([]any{tableIdent(t)}, wargs...)
		args = append(args, returning(m))
		return goqu.L("(DELETE FROM ?"+w+" ?)", args...)
	}
}

// Mutate is the statement of a write (PostgREST's prepareWrite): the
// mutation as pgrst_source, the returned rows read through read (embeds,
// select), the Location of a single inserted row, and the upsert's
// inserted count.
func Mutate(m *plan.MutatePlan, read *plan.ReadPlan, o Output, location bool) (Query, error) {
	var from exp.Expression
	if o.Handler == HandlerNone {
		from = goqu.L("(SELECT * FROM pgrst_source) _postgrest_t")
	} else {
		from = goqu.L("? _postgrest_t", limited(read))
	}
	ds := dialect.From(from).With("pgrst_source", mutation(m))
	inserted := goqu.L("null::bigint AS response_inserted")
	if m.Kind == plan.Insert && m.OnConflict == "merge" {
		inserted = goqu.L("nullif(current_setting('pgrst.inserted', true), '')::bigint AS response_inserted")
	}
	loc := noLocation
	if location && len(m.Table.PK) > 0 {
		loc = goqu.L(`CASE WHEN pg_catalog.count(*) = 1 THEN coalesce((WITH data AS (SELECT row_to_json(_) AS row FROM pgrst_source AS _ LIMIT 1)
  SELECT json_agg(json_data.key || '=' || coalesce('eq.' || json_data.value, 'is.null'))::text FROM data CROSS JOIN json_each_text(data.row) AS json_data
  WHERE json_data.key = ANY(?::text[])), '[]') ELSE '[]' END AS location`, ArrayLiteral(m.Table.PK))
	}
	return toQuery(ds.Select(goqu.L("null::bigint AS total_result_set"), pageTotal,
		goqu.L("? AS body", bodyExpr(o)), responseHeaders, responseStatus, inserted, loc))
}

// call renders the function call as the pgrst_source CTE (PostgREST's
// callPlanToQuery).
func call(c *plan.CallPlan) exp.Expression {
	f := c.Func
	fn := tableIdent(f.QI())
	var callArgs []string
	var args []any
	args = append(args, fn)
	var from string
	var fromArgs []any
	switch {
	case c.SingleParam:
		typ := f.Params[0].Type
		callArgs = append(callArgs, "?::"+typ)
		args = append(args, string(c.Body))
	case c.JSONArgs != nil && len(c.Params) > 0:
		cols := make([]*schemacache.Column, len(c.Params))
		for i, p := range c.Params {
			cols[i] = &schemacache.Column{Name: p.Name, Type: p.Type}
			v := ""
			if p.Variadic {
				v = "VARIADIC "
			}
			callArgs = append(callArgs, v+"? := ?")
			args = append(args, ident(p.Name), qualified(schemacache.QI{Name: "pgrst_body"}, "", p.Name))
		}
		from = "?, "
		fromArgs = append(fromArgs, payloadSource(c.JSONArgs, cols, true, false, true))
	default:
		for i, p := range c.Params {
			v := ""
			if p.Variadic {
				v = "VARIADIC "
			}
			callArgs = append(callArgs, v+"? := ?::"+p.Type)
			args = append(args, ident(p.Name), c.Args[i])
		}
	}
	callSQL := "?(" + strings.Join(callArgs, ", ") + ")"
	var tmpl string
	if f.ReturnsScalar() || f.ReturnsSetOfScalar() {
		tmpl = "(SELECT pgrst_call.pgrst_scalar FROM " + from + "LATERAL (SELECT " + callSQL + " pgrst_scalar) pgrst_call)"
	} else {
		tmpl = "(SELECT pgrst_call.* FROM " + from + "LATERAL " + callSQL + " pgrst_call)"
	}
	return goqu.L(tmpl, append(fromArgs, args...)...)
}

// Call is the statement of an rpc (PostgREST's prepareCall): the call as
// pgrst_source, read (filters, order, embeds) over its rows, and an exact
// count when asked.
func Call(c *plan.CallPlan, read *plan.ReadPlan, exactCount bool, o Output) (Query, error) {
	f := c.Func
	var from exp.Expression
	// Without a body (HEAD) the rows are still the read's: its filters and
	// limits decide page_total and the range.
	if f.ReturnsScalar() || f.ReturnsSetOfScalar() {
		from = goqu.L("(SELECT * FROM pgrst_source) _postgrest_t")
	} else {
		from = goqu.L("? _postgrest_t", limited(read))
	}
	ds := dialect.From(from).With("pgrst_source", call(c))
	total := goqu.L("null::bigint AS total_result_set")
	if exactCount {
		cds := dialect.From(ident(plan.SourceCTE)).Select(goqu.L("1"))
		if !(f.ReturnsScalar() || f.ReturnsSetOfScalar()) {
			cds = countDataset(read)
		}
		ds = ds.With("pgrst_source_count", cds)
		total = goqu.L("(SELECT pg_catalog.count(*) FROM pgrst_source_count) AS total_result_set")
	}
	page := pageTotal
	if !f.RetSet {
		page = goqu.L("1::bigint AS page_total")
	}
	return toQuery(ds.Select(total, page, goqu.L("? AS body", bodyExpr(o)), responseHeaders, responseStatus,
		goqu.L("null::bigint AS response_inserted"), noLocation))
}

// Preamble is the first statement of every transaction: one SELECT of
// set_config(name, value, true) calls with every name and value bound
// (PostgREST's txVarQuery).
func Preamble(settings [][2]string) Query {
	var s Settings
	for _, kv := range settings {
		s.Add(kv[0], kv[1])
	}
	return s.Query()
}

// Settings builds a Preamble with its names and values in one buffer, so
// a request's preamble costs a few allocations however many settings it
// carries. The zero value is empty and ready to use.
type Settings struct {
	buf []byte
	// ends holds the end offsets in buf of each name and each value.
	ends []int
}

// Grow makes room for n more settings of size bytes in all.
func (s *Settings) Grow(n, size int) {
	s.buf = slices.Grow(s.buf, size)
	s.ends = slices.Grow(s.ends, 2*n)
}

// Add appends one setting.
func (s *Settings) Add(name, value string) {
	s.buf = append(s.buf, name...)
	s.ends = append(s.ends, len(s.buf))
	s.buf = append(s.buf, value...)
	s.ends = append(s.ends, len(s.buf))
}

// AddFunc appends a setting whose value appendValue writes to the end of
// the slice it is given (and returns, as append does).
func (s *Settings) AddFunc(name string, appendValue func([]byte) []byte) {
	s.buf = append(s.buf, name...)
	s.ends = append(s.ends, len(s.buf))
	s.buf = appendValue(s.buf)
	s.ends = append(s.ends, len(s.buf))
}

// Query returns the preamble statement. Its text depends only on the
// number of settings, so it is prepared once per connection.
func (s *Settings) Query() Query {
	params := make([][]byte, len(s.ends))
	start := 0
	for i, end := range s.ends {
		params[i] = s.buf[start:end:end]
		start = end
	}
	return Query{SQL: preambleSQL(len(s.ends) / 2), Params: params}
}

// preambleTexts holds the preamble texts of up to 31 settings (a request
// carries about a dozen), built once.
var preambleTexts = func() (t [32]string) {
	for n := range t {
		t[n] = buildPreambleSQL(n)
	}
	return t
}()

// WithSetting returns the preamble p (a Preamble or Settings.Query) with
// one more setting after its own, so a setting only some connections need
// costs no statement of its own.
func WithSetting(p Query, name, value string) Query {
	params := make([][]byte, len(p.Params), len(p.Params)+2)
	copy(params, p.Params)
	params = append(params, []byte(name), []byte(value))
	return Query{SQL: preambleSQL(len(params) / 2), Params: params}
}

func preambleSQL(n int) string {
	if n < len(preambleTexts) {
		return preambleTexts[n]
	}
	return buildPreambleSQL(n)
}

// maxWrappedSettings is how many set_config calls one num_nulls can take:
// PostgreSQL passes at most 100 arguments to a function (FUNC_MAX_ARGS).
const maxWrappedSettings = 100

// buildPreambleSQL writes the preamble of n settings. The set_config calls
// are the arguments of one num_nulls, which PostgreSQL evaluates in order,
// so the statement answers a single integer instead of sending every value
// back (the request's headers and claims among them) for the client to
// read and drop: measured with pgbench on the detail read, 3 % more
// transactions per second than the bare SELECT list. Beyond
// maxWrappedSettings, the calls are a plain SELECT list, as PostgREST's
// txVarQuery writes them.
func buildPreambleSQL(n int) string {
	wrap := n > 0 && n <= maxWrappedSettings
	b := make([]byte, 0, 32+32*n)
	b = append(b, "select "...)
	if wrap {
		b = append(b, "pg_catalog.num_nulls("...)
	}
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, "pg_catalog.set_config($"...)
		b = strconv.AppendInt(b, int64(2*i+1), 10)
		b = append(b, ", $"...)
		b = strconv.AppendInt(b, int64(2*i+2), 10)
		b = append(b, ", true)"...)
	}
	if wrap {
		b = append(b, ')')
	}
	return string(b)
}

// PreRequest calls the configured db-pre-request function.
func PreRequest(fn schemacache.QI) (Query, error) {
	return toQuery(dialect.Select(goqu.L("?()", tableIdent(fn))))
}

// Explain wraps a statement in EXPLAIN for Accept: application/vnd.pgrst.plan.
func Explain(q Query, format string, options []string) Query {
	opts := append([]string{"FORMAT " + strings.ToUpper(format)}, options...)
	return Query{SQL: "EXPLAIN (" + strings.Join(opts, ", ") + ") " + q.SQL, Args: q.Args}
}
