package pgrst

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// The read cache (readcache.go) answers a request asked before. A request
// for a value not asked before (another listing's detail page, another
// word typed into search) misses it and pays for building its statements,
// most of its own cost in rest (measured: sqlgen alone was a sixth of
// rest's CPU for searches of many rare words). Yet such requests mostly
// differ from one asked before only in the values of their filters, which
// the statements carry as bound parameters. shapeCache keeps, per request
// shape (the parsed request with those values blanked), the statements
// with the places the values take, so a new value of a known shape skips
// sqlgen: parse and plan still run, and so do their checks and the
// planner's choices (sightings).
//
// A value is slotted only where sqlgen binds it as it came, or changed by
// a rule of its own that slotValues applies too: the top-level filters of
// the operators in slotOps.
// Everything else stays in the shape. What a shape's statements are, and
// where its values go, is learnt by building them a second time with
// sentinels in place of the values; a shape whose values do not come out
// verbatim, in parameters only, is remembered as one to build in full.
// Calls have shapes too (callShapeKey, below).

// slotOps are the operators whose single value sqlgen binds when the
// filter is not inlined (plan.Filter.Inline): verbatim, or for like and
// ilike as sqlgen.LikeValue makes it (* becomes %), which is what their
// slots take (slotValues). in binds its whole list as one array literal
// (sqlgen.InArray), which its slot takes, unless the list is empty
// (sqlgen.EmptyList). is (a keyword) and the quantified forms (eq(any)
// takes an array) are not among them.
var slotOps = map[string]bool{
	parse.OpEq: true, parse.OpNeq: true, parse.OpGt: true, parse.OpGte: true, parse.OpLt: true, parse.OpLte: true,
	parse.OpMatch: true, parse.OpIMatch: true, parse.OpLike: true, parse.OpILike: true, parse.OpIn: true,
	parse.OpFts: true, parse.OpPlFts: true, parse.OpPhFts: true, parse.OpWFts: true,
}

// shapeCache keeps each shape's templates, or nil for a shape whose reads
// are built in full.
type shapeCache = snapCache[*readTemplates]

// readStmts are a read's statements, their parameters encoded.
type readStmts struct {
	main              sqlgen.Query
	planned, estimate *sqlgen.Query
	// along, with estimate, remembers whether the last read of these
	// statements had its count estimated, so the next one sends the
	// estimate along (exec.Tx.EstimateAlong). Reads from one shape's
	// templates share it.
	along *atomic.Bool
}

// readTemplates are a shape's statements with the parameters that take
// its values (slots) marked.
type readTemplates struct {
	main              template
	planned, estimate *template
	along             *atomic.Bool
}

// template is one statement: its text, its parameters as built, and for
// each slotted parameter the index of the value it takes.
type template struct {
	sql    string
	params [][]byte
	slots  []slotAt
}

type slotAt struct{ param, value int }

// slotValues returns the values of r's slotted filters, in order, as
// their statements bind them (bound).
func slotValues(r *parse.ApiRequest) []string {
	var vals []string
	for _, f := range r.Query.Filters {
		if e := f.Filter.Expr; slotted(e) {
			vals = append(vals, bound(e))
		}
	}
	return vals
}

// bound is the parameter sqlgen binds for a slotted filter's value: an
// in list's array literal, a pattern with its * already %, any other
// value as it came.
func bound(e parse.OpExpr) string {
	switch e.Op {
	case parse.OpIn:
		list, _ := sqlgen.InArray(e.List)
		return list
	case parse.OpLike, parse.OpILike:
		return sqlgen.LikeValue(e.Value)
	}
	return e.Value
}

// boundProbes returns probes as r's slots bind them once withValues has
// put them there (an in slot's sentinel is a list of one), for
// learnTemplates to find in the probe's parameters. Probes past r's
// slots (a call's arguments) are bound as they are. withValues takes the
// first probes, one per slot, so the slots' count is the number of values
// that come back.
func boundProbes(r *parse.ApiRequest, probes []string) []string {
	vals := slotValues(withValues(r, probes))
	return append(vals, probes[len(vals):]...)
}

// slotted reports whether a top-level filter's value takes a slot. "true"
// and "false" stay in the shape: compared with a boolean column they are
// written into the text as TRUE or FALSE (sqlgen's boolLiteral), not
// bound, and they are two values only, so keeping them costs at most two
// shapes of one (the app's is_active=eq.true beside a searched word).
func slotted(e parse.OpExpr) bool {
	if !slotOps[e.Op] || e.Quant != "" || e.Is != "" {
		return false
	}
	if e.Op == parse.OpIn {
		return !sqlgen.EmptyList(e.List)
	}
	return e.List == nil && e.Value != "true" && e.Value != "false"
}

// withValues returns a copy of r whose slotted filters take vals, in
// order (r itself is left alone): an in filter a list of that one value.
func withValues(r *parse.ApiRequest, vals []string) *parse.ApiRequest {
	return withSlots(r, func(i int, e *parse.OpExpr) {
		if e.Op == parse.OpIn {
			e.List = []string{vals[i]}
		} else {
			e.Value = vals[i]
		}
	})
}

// blanked returns a copy of r whose slotted filters hold no value: an
// in filter a nil list, which no parsed in filter has (parse reads in.()
// as one empty value, and that one stays in the shape).
func blanked(r *parse.ApiRequest) *parse.ApiRequest {
	return withSlots(r, func(_ int, e *parse.OpExpr) { e.Value, e.List = "", nil })
}

// withSlots returns a copy of r in which set has changed the i-th slotted
// filter, for each in order (r itself is left alone).
func withSlots(r *parse.ApiRequest, set func(i int, e *parse.OpExpr)) *parse.ApiRequest {
	c := *r
	c.Query.Filters = slices.Clone(r.Query.Filters)
	i := 0
	for j := range c.Query.Filters {
		if e := &c.Query.Filters[j].Filter.Expr; slotted(*e) {
			set(i, e)
			i++
		}
	}
	return &c
}

// shapeKey is r with its slotted values blanked, written out field by
// field (through reflection, so a field added to the request later is
// part of the shape without anyone remembering to add it); nil if r holds
// something that cannot be written out.
//
// The select list is written as its text: the tree is parsed from it
// alone (and never changed after), and walking its items was most of the
// key's cost.
func shapeKey(r *parse.ApiRequest) []byte {
	blank := blanked(r)
	blank.Query.Select = nil
	b, ok := appendShape(make([]byte, 0, 512), reflect.ValueOf(blank).Elem())
	if !ok {
		return nil
	}
	return b
}

// appendShape writes v unambiguously: strings and slices carry their
// length, pointers whether they are nil.
func appendShape(b []byte, v reflect.Value) ([]byte, bool) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return append(strconv.AppendInt(b, v.Int(), 10), ';'), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return append(strconv.AppendUint(b, v.Uint(), 10), ';'), true
	case reflect.Float32, reflect.Float64:
		return append(strconv.AppendUint(b, math.Float64bits(v.Float()), 16), ';'), true
	case reflect.String:
		s := v.String()
		b = append(strconv.AppendInt(b, int64(len(s)), 10), ':')
		return append(b, s...), true
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 'n'), true
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b = append(strconv.AppendInt(b, int64(v.Len()), 10), ':')
			return append(b, v.Bytes()...), true
		}
		fallthrough
	case reflect.Array:
		b = append(strconv.AppendInt(b, int64(v.Len()), 10), '[')
		for i := range v.Len() {
			var ok bool
			if b, ok = appendShape(b, v.Index(i)); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, 'n'), true
		}
		return appendShape(append(b, '*'), v.Elem())
	case reflect.Struct:
		b = append(b, '{')
		for i := range v.NumField() {
			var ok bool
			if b, ok = appendShape(b, v.Field(i)); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	// Maps, functions, channels: no request holds one today.
	return b, false
}

// fill builds a read's statements from t with vals.
func (t *readTemplates) fill(vals []string) readStmts {
	s := readStmts{main: t.main.fill(vals)}
	if t.planned != nil {
		q := t.planned.fill(vals)
		s.planned = &q
	}
	if t.estimate != nil {
		q := t.estimate.fill(vals)
		s.estimate, s.along = &q, t.along
	}
	return s
}

func (t *template) fill(vals []string) sqlgen.Query {
	params := slices.Clone(t.params)
	for _, s := range t.slots {
		params[s.param] = []byte(vals[s.value])
	}
	return sqlgen.Query{SQL: t.sql, Params: params}
}

// sentinels are values no request sends by chance, one per slot, that
// every slotted operator passes through unchanged (they hold no *).
func sentinels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "pgrst\x1fslot\x1f" + strconv.Itoa(i)
	}
	return out
}

// learnTemplates compares a read's statements built from its own values
// (got) with the same read built from sentinels (probe), and returns the
// templates when the values are all the two differ by: the same texts,
// and every parameter either the same in both or the slot's value in
// each. nil otherwise.
func learnTemplates(got, probe readStmts, vals, probes []string) *readTemplates {
	main, ok := learnTemplate(got.main, probe.main, vals, probes)
	if !ok {
		return nil
	}
	t := &readTemplates{main: main}
	if (got.planned == nil) != (probe.planned == nil) || (got.estimate == nil) != (probe.estimate == nil) {
		return nil
	}
	if got.planned != nil {
		p, ok := learnTemplate(*got.planned, *probe.planned, vals, probes)
		if !ok {
			return nil
		}
		t.planned = &p
	}
	if got.estimate != nil {
		e, ok := learnTemplate(*got.estimate, *probe.estimate, vals, probes)
		if !ok {
			return nil
		}
		t.estimate, t.along = &e, got.along
	}
	// Every value must have a place in the main statement: one that
	// does not was written some other way.
	for i := range vals {
		if !slices.ContainsFunc(t.main.slots, func(s slotAt) bool { return s.value == i }) {
			return nil
		}
	}
	return t
}

func learnTemplate(got, probe sqlgen.Query, vals, probes []string) (template, bool) {
	if got.SQL != probe.SQL || len(got.Params) != len(probe.Params) {
		return template{}, false
	}
	t := template{sql: got.SQL, params: got.Params}
	for j, p := range probe.Params {
		i := slices.Index(probes, string(p))
		if p == nil || i < 0 {
			// A parameter that is no sentinel must be the same for any
			// values, and may not hold a sentinel changed on its way.
			if !bytes.Equal(p, got.Params[j]) || (p == nil) != (got.Params[j] == nil) || bytes.Contains(p, []byte("pgrst\x1fslot\x1f")) {
				return template{}, false
			}
			continue
		}
		if string(got.Params[j]) != vals[i] {
			return template{}, false
		}
		t.slots = append(t.slots, slotAt{param: j, value: i})
	}
	return t, true
}

// anyInline reports whether a node of the read writes a filter's values
// into its statement.
func anyInline(r *plan.ReadPlan) bool {
	for i := range r.Where {
		if inlineLogic(&r.Where[i]) {
			return true
		}
	}
	return slices.ContainsFunc(r.Children, anyInline)
}

func inlineLogic(l *plan.Logic) bool {
	if l.Filter != nil && l.Filter.Inline {
		return true
	}
	for i := range l.Children {
		if inlineLogic(&l.Children[i]) {
			return true
		}
	}
	return false
}

// Calls. A call's statement binds, besides the values of the filters on
// its rows, what the plan made of its arguments: the body (POST), or each
// text argument (GET), one parameter each. Which function, and which of
// its parameters the body's keys or the argument names chose, are part of
// the call's shape; the values are slots after the filters'. Every call
// misses the read cache (POST, and /rpc/ is never kept there), so this is
// what spares a call sqlgen.

// callValues returns what sqlgen binds of cp's arguments, in order.
func callValues(cp *plan.CallPlan) []string {
	switch {
	case cp.SingleParam:
		return []string{string(cp.Body)}
	case cp.JSONArgs != nil:
		if len(cp.Params) == 0 {
			// The body names no parameter: nothing of it is bound.
			return nil
		}
		return []string{string(cp.JSONArgs)}
	}
	return slices.Clone(cp.Args)
}

// withCallValues returns a copy of cp whose arguments are vals, as
// callValues orders them (cp itself is left alone).
func withCallValues(cp *plan.CallPlan, vals []string) *plan.CallPlan {
	c := *cp
	switch {
	case c.SingleParam:
		c.Body = []byte(vals[0])
	case c.JSONArgs != nil:
		if len(c.Params) > 0 {
			c.JSONArgs = []byte(vals[0])
		}
	default:
		c.Args = vals
	}
	return &c
}

// callShapeKey is the shape of a call: r's with its body and argument
// values blanked, then cp's with its values blanked and its function named
// by address. A shape is only ever matched under the snapshot it was made
// from (snapCache), which holds the function. It shares the shape cache
// with reads: r's Action tells them apart. nil if r or cp holds something
// that cannot be written out.
func callShapeKey(r *parse.ApiRequest, cp *plan.CallPlan) []byte {
	blank := *r
	blank.RawBody = nil
	blank.Query.RPCArgs = make([][2]string, len(r.Query.RPCArgs))
	for i, a := range r.Query.RPCArgs {
		blank.Query.RPCArgs[i][0] = a[0]
	}
	b := shapeKey(&blank)
	if b == nil {
		return nil
	}
	c := *cp
	c.Func = nil
	c.Body, c.JSONArgs = blankBytes(c.Body), blankBytes(c.JSONArgs)
	c.Args = make([]string, len(c.Args))
	b = strconv.AppendUint(append(b, '@'), uint64(reflect.ValueOf(cp.Func).Pointer()), 16)
	b, ok := appendShape(b, reflect.ValueOf(c))
	if !ok {
		return nil
	}
	return b
}

// blankBytes is empty where b is, and nil where b is.
func blankBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return []byte{}
}
