package changes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Op is a filter operator, as postgres_changes bindings spell it.
type Op string

// The operators Supabase Realtime accepts in a binding's filter; any of them
// may be negated with a "not." prefix (PostgREST's spelling).
const (
	OpEq         Op = "eq"
	OpNeq        Op = "neq"
	OpLt         Op = "lt"
	OpLte        Op = "lte"
	OpGt         Op = "gt"
	OpGte        Op = "gte"
	OpIn         Op = "in"
	OpLike       Op = "like"
	OpILike      Op = "ilike"
	OpIs         Op = "is"
	OpMatch      Op = "match"
	OpIMatch     Op = "imatch"
	OpIsDistinct Op = "isdistinct"
)

var knownOps = map[Op]bool{OpEq: true, OpNeq: true, OpLt: true, OpLte: true, OpGt: true, OpGte: true, OpIn: true,
	OpLike: true, OpILike: true, OpIs: true, OpMatch: true, OpIMatch: true, OpIsDistinct: true}

// maxInValues is Supabase's limit on an in list.
const maxInValues = 100

// Filter is a binding's parsed filter: conditions separated by commas,
// all of which must hold (Supabase ANDs them).
type Filter struct {
	Conds []*Cond
}

// Cond is one condition "column=[not.]op.value".
type Cond struct {
	Column string
	Op     Op
	Negate bool
	// Values holds one value, or the list for OpIn.
	Values []string
	// lits are Values read once in the forms a typed column compares by,
	// so that a delivery to many subscribers parses no literal.
	lits []filterLit
	// re is the compiled pattern of like, ilike, match and imatch.
	re *regexp.Regexp
	// value is the value as Supabase stores it in realtime.subscription
	// (an in list as the array literal "{…}"), for messages.
	value string
}

// filterLit is a filter value as a uuid and as a point in time, where it is
// one; what a column's type makes of it is decided at match time.
type filterLit struct {
	uuid   string // 32 lower-case hex digits; "" when the value is no uuid
	time   time.Time
	isTime bool
}

func readLiteral(v string) filterLit {
	var l filterLit
	if u, ok := canonicalUUID(v); ok {
		l.uuid = u
	}
	l.time, l.isTime = parseTime(strings.TrimSpace(v))
	return l
}

// literal returns Values[i] as ParseFilter read it, or reads it now for a
// Cond built by hand.
func (c *Cond) literal(i int) filterLit {
	if i < len(c.lits) {
		return c.lits[i]
	}
	return readLiteral(c.Values[i])
}

// ErrFilter is wrapped by every filter parse error. Its text after the
// wrapping is Supabase's message for the client.
var ErrFilter = errors.New("invalid filter")

// FilterError is a filter Supabase refuses; Message is what Realtime tells
// the client in the system message.
type FilterError struct{ Message string }

func (e *FilterError) Error() string { return e.Message }
func (e *FilterError) Unwrap() error { return ErrFilter }

func parseErr(reason string) error {
	return &FilterError{Message: "Error parsing `filter` params: " + reason}
}

// maxFilterLen bounds what ParseFilter looks at.
const maxFilterLen = 4096

// ParseFilter parses a binding's filter as Supabase Realtime does: the
// string is split on commas outside parentheses and double quotes, and
// each part is "column=[not.]op.value". An empty (or blank) string is no
// filter (nil, nil). Anything else Supabase refuses is an error: an
// unknown operator, a missing "=" or ".", an empty part, an in list
// without parentheses (or with more than 100 values), an is value other
// than null/true/false/unknown, a pattern that does not compile.
func ParseFilter(s string) (*Filter, error) {
	if len(s) > maxFilterLen {
		return nil, parseErr(fmt.Sprintf("filter longer than %d bytes", maxFilterLen))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	f := &Filter{}
	for _, seg := range splitTopLevel(s) {
		c, err := parseCond(seg)
		if err != nil {
			return nil, err
		}
		f.Conds = append(f.Conds, c)
	}
	return f, nil
}

// splitTopLevel splits on commas outside parentheses and quotes. A double
// quote opens a quoted value only after ".", "(" or "," (where a value
// starts); inside it a backslash escapes the next byte.
func splitTopLevel(s string) []string {
	var out []string
	var cur strings.Builder
	depth, quoted := 0, false
	var prev byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
			prev = s[i]
			continue
		case quoted && c == '"':
			quoted = false
		case quoted:
		case c == '"' && (prev == '.' || prev == '(' || prev == ','):
			quoted = true
		case c == '(':
			depth++
		case c == ')':
			depth = max(0, depth-1)
		case c == ',' && depth == 0:
			out = append(out, cur.String())
			cur.Reset()
			prev = 0
			continue
		}
		cur.WriteByte(c)
		prev = c
	}
	return append(out, cur.String())
}

func parseCond(seg string) (*Cond, error) {
	seg = strings.TrimSpace(seg)
	if seg == "" {
		return nil, parseErr("filter must not contain empty segments (check for extra commas)")
	}
	col, rest, ok := strings.Cut(seg, "=")
	if !ok {
		return nil, parseErr(inspectList(seg))
	}
	c := &Cond{Column: col}
	if r, ok := strings.CutPrefix(rest, "not."); ok {
		c.Negate, rest = true, r
	}
	op, val, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, parseErr(inspectList(rest))
	}
	c.Op = Op(op)
	if !knownOps[c.Op] {
		return nil, parseErr(inspectList(op, val))
	}
	switch c.Op {
	case OpIn:
		if len(val) < 2 || val[0] != '(' || val[len(val)-1] != ')' {
			return nil, parseErr("`in` filter value must be wrapped by parentheses")
		}
		vals, err := parseList(val)
		if err != nil {
			return nil, parseErr(err.Error())
		}
		if len(vals) > maxInValues {
			return nil, &FilterError{Message: "too many values for `in` filter. Maximum 100"}
		}
		c.Values = vals
		c.value = "{" + val[1:len(val)-1] + "}"
	default:
		c.Values = []string{unquote(val)}
		c.value = c.Values[0]
	}
	v := c.Values
	switch c.Op {
	case OpIs:
		switch v[0] {
		case "null", "true", "false", "unknown":
		default:
			return nil, &FilterError{Message: "invalid value for is filter: must be null, true, false, or unknown"}
		}
	case OpLike, OpILike:
		c.re = likePattern(v[0], c.Op == OpILike)
	case OpMatch, OpIMatch:
		expr := v[0]
		if c.Op == OpIMatch {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, &FilterError{Message: fmt.Sprintf("invalid regular expression for %s filter: %v", c.Op, err)}
		}
		c.re = re
	}
	c.lits = make([]filterLit, len(c.Values))
	for i, x := range c.Values {
		c.lits[i] = readLiteral(x)
	}
	return c, nil
}

// unquote strips one pair of double quotes around a whole value, reading
// backslash escapes inside; a value that is not wholly quoted is kept.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case c == '"':
			if i != len(v)-1 {
				return v
			}
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return v
}

// likePattern turns a LIKE pattern (% any run, _ one character, backslash
// escaping the next character) into an anchored regular expression.
func likePattern(p string, fold bool) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)")
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteByte('^')
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\\' && i+1 < len(rs):
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteByte('.')
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteByte('$')
	return regexp.MustCompile(b.String())
}

// Inspect renders f as Supabase Realtime logs a subscription's filters in
// its error messages: Elixir's inspect (pretty) of the list of
// {column, op, value, negated} tuples, "[]" for no filter.
func (f *Filter) Inspect() string {
	if f == nil {
		return "[]"
	}
	items := make([]string, len(f.Conds))
	for i, c := range f.Conds {
		value := c.value
		if value == "" && len(c.Values) > 0 { // built by hand
			value = c.Values[0]
		}
		items[i] = fmt.Sprintf("{%s, %s, %s, %t}", inspectString(c.Column), inspectString(string(c.Op)), inspectString(value), c.Negate)
	}
	return InspectItems(items)
}

// InspectFilter renders a filter string as Filter.Inspect does, for a
// filter whose syntax is sound but whose values Supabase refuses in its
// subscription trigger (ParseFilter returns no Filter then). Segments
// that do not parse are left out.
func InspectFilter(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "[]"
	}
	f := &Filter{}
	for _, seg := range splitTopLevel(s) {
		col, rest, ok := strings.Cut(strings.TrimSpace(seg), "=")
		if !ok {
			continue
		}
		c := &Cond{Column: col}
		if r, ok := strings.CutPrefix(rest, "not."); ok {
			c.Negate, rest = true, r
		}
		op, val, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		c.Op = Op(op)
		if c.Op == OpIn && len(val) >= 2 && val[0] == '(' && val[len(val)-1] == ')' {
			c.value = "{" + val[1:len(val)-1] + "}"
		} else {
			c.value = unquote(val)
		}
		f.Conds = append(f.Conds, c)
	}
	return f.Inspect()
}

// inspectWidth is the line width of Elixir's pretty inspect.
const inspectWidth = 80

// InspectItems renders already-inspected items as Elixir's inspect(list,
// pretty: true) does: on one line when it fits in 80 columns, else one item
// per line, indented by two. (Elixir would also break an item that alone
// exceeds the width; such items stay on their line here.)
func InspectItems(items []string) string {
	one := "[" + strings.Join(items, ", ") + "]"
	if len(one) <= inspectWidth || len(items) == 0 {
		return one
	}
	return "[\n  " + strings.Join(items, ",\n  ") + "\n]"
}

// InspectStrings renders strings as Elixir's inspect(list, pretty: true).
func InspectStrings(list []string) string {
	items := make([]string, len(list))
	for i, v := range list {
		items[i] = inspectString(v)
	}
	return InspectItems(items)
}

func inspectString(v string) string {
	b := strings.Builder{}
	b.WriteByte('"')
	for _, r := range v {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	// Elixir escapes the interpolation opener; a lone # prints as is.
	return strings.ReplaceAll(b.String(), "#{", `\#{`)
}

// inspectList renders strings as Elixir's inspect prints a list of them,
// which is how Supabase quotes the unparsable part of a filter.
func inspectList(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = inspectString(p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// parseList parses "(a,b,"c,d")" as Postgres reads the array literal
// "{a,b,"c,d"}": values are separated by commas, and a value in double
// quotes may contain commas, parentheses and \-escapes.
func parseList(s string) ([]string, error) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, errors.New("`in` filter value must be wrapped by parentheses")
	}
	s = s[1 : len(s)-1]
	var out []string
	var cur strings.Builder
	quoted, inQuotes, escaped := false, false, false
	flush := func() {
		v := cur.String()
		if !quoted {
			v = strings.TrimSpace(v)
		}
		out = append(out, v)
		cur.Reset()
		quoted = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			cur.WriteByte(c)
			escaped = false
		case inQuotes && c == '\\':
			escaped = true
		case c == '"':
			inQuotes = !inQuotes
			quoted = true
		case c == ',' && !inQuotes:
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	if inQuotes || escaped {
		return nil, errors.New("unterminated quote in `in` filter value")
	}
	if len(s) > 0 || len(out) > 0 {
		flush()
	}
	return out, nil
}

// Match reports whether record (a JSON object of column values) satisfies
// every condition of f. A nil filter matches everything.
func (f *Filter) Match(record map[string]json.RawMessage, columns []Column) bool {
	if f == nil {
		return true
	}
	for _, c := range f.Conds {
		if !c.Match(record, columns) {
			return false
		}
	}
	return true
}

// Match reports whether record satisfies c, with SQL's three-valued logic
// as Supabase evaluates it: columns gives the record's column types, so
// that a literal is compared as Postgres would after casting it to the
// column's type (a uuid in any case, a timestamp in any ISO spelling). A
// column absent from the record (not visible to the subscriber) never
// matches; a null value matches only is.null, not.is.true/false and
// isdistinct (the comparison is unknown otherwise, negated or not).
func (c *Cond) Match(record map[string]json.RawMessage, columns []Column) bool {
	raw, ok := record[c.Column]
	if !ok {
		return false
	}
	raw = bytes.TrimSpace(raw)
	isNull := len(raw) == 0 || string(raw) == "null"
	typ := ""
	for _, col := range columns {
		if col.Name == c.Column {
			typ = col.Type
			break
		}
	}
	switch c.Op {
	case OpIs:
		var res bool
		switch c.Values[0] {
		case "null":
			res = isNull
		case "unknown":
			res = isNull && isBoolType(typ)
		case "true":
			res = !isNull && string(raw) == "true"
		case "false":
			res = !isNull && string(raw) == "false"
		}
		if c.Values[0] != "null" && !isBoolType(typ) {
			return false // Supabase refuses is true/false/unknown on other types
		}
		return res != c.Negate
	case OpIsDistinct:
		if isNull {
			return !c.Negate
		}
		cmp, ok := compareTyped(raw, c.Values[0], typ, c.literal(0))
		if !ok {
			return false
		}
		return (cmp != 0) != c.Negate
	}
	if isNull {
		return false
	}
	var res bool
	switch c.Op {
	case OpIn:
		for i, v := range c.Values {
			if cmp, ok := compareTyped(raw, v, typ, c.literal(i)); ok && cmp == 0 {
				res = true
				break
			}
		}
	case OpLike, OpILike, OpMatch, OpIMatch:
		s, ok := textValue(raw, typ)
		if !ok {
			return false
		}
		re := c.re
		if re == nil { // built by hand
			var err error
			if re, err = compileCond(c); err != nil {
				return false
			}
		}
		res = re.MatchString(s)
	default:
		cmp, ok := compareTyped(raw, c.Values[0], typ, c.literal(0))
		if !ok {
			return false
		}
		switch c.Op {
		case OpEq:
			res = cmp == 0
		case OpNeq:
			res = cmp != 0
		case OpLt:
			res = cmp < 0
		case OpLte:
			res = cmp <= 0
		case OpGt:
			res = cmp > 0
		case OpGte:
			res = cmp >= 0
		default:
			return false
		}
	}
	return res != c.Negate
}

func compileCond(c *Cond) (*regexp.Regexp, error) {
	switch c.Op {
	case OpLike, OpILike:
		return likePattern(c.Values[0], c.Op == OpILike), nil
	case OpIMatch:
		return regexp.Compile("(?i)" + c.Values[0])
	}
	return regexp.Compile(c.Values[0])
}

func isBoolType(typ string) bool { return typ == "bool" || typ == "boolean" }

// textValue is a column value for the pattern operators, which Postgres
// has for the string types only (Supabase refuses them on others).
func textValue(raw json.RawMessage, typ string) (string, bool) {
	switch typ {
	case "text", "varchar", "bpchar", "name", "citext", "character varying", "character", "":
	default:
		return "", false
	}
	if raw[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// compareTyped is compare for the types whose text has several spellings
// of one value: uuid, and the date and time types, against l, the literal
// lit as read once. A string value of another type (or of an unknown one)
// is compared byte-wise.
func compareTyped(raw json.RawMessage, lit, typ string, l filterLit) (int, bool) {
	switch typ {
	case "uuid", "timestamptz", "timestamp", "date":
	default:
		return compare(raw, lit)
	}
	if raw[0] != '"' {
		return compare(raw, lit)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, false
	}
	if typ == "uuid" {
		a, ok := canonicalUUID(s)
		if !ok || l.uuid == "" {
			return 0, false
		}
		return strings.Compare(a, l.uuid), true
	}
	a, ok := parseTime(s)
	if !ok || !l.isTime {
		return 0, false
	}
	return a.Compare(l.time), true
}

// canonicalUUID accepts the spellings Postgres' uuid input accepts (any
// case, with or without hyphens, in braces) and returns 32 lower-case hex
// digits.
func canonicalUUID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	var b [32]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-':
			continue
		case n == len(b):
			return "", false
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
			b[n] = c
		case 'A' <= c && c <= 'F':
			b[n] = c + ('a' - 'A')
		default:
			return "", false
		}
		n++
	}
	if n != len(b) {
		return "", false
	}
	return string(b[:]), true
}

// timeLayouts are the ISO 8601 forms of timestamps and dates, with "T" or a
// space, with or without a zone ("Z", "+03", "+03:00"). A fraction of a
// second is accepted after the seconds by time.Parse itself. A time without
// a zone is read as UTC, the session zone Realtime's database uses.
var timeLayouts = []string{
	"2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05Z07:00",
	"2006-01-02T15:04:05Z07", "2006-01-02 15:04:05Z07",
	"2006-01-02T15:04:05", "2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00",
	"2006-01-02T15:04", "2006-01-02 15:04",
	"2006-01-02",
}

func parseTime(s string) (time.Time, bool) {
	if len(s) > 64 {
		return time.Time{}, false
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// compare orders a JSON value against a filter literal the way Postgres
// would after casting the literal to the column's type: numbers
// numerically, booleans as booleans, strings (text, uuid, timestamps in ISO
// form) byte-wise. ok is false when the literal does not fit the type.
func compare(raw json.RawMessage, lit string) (int, bool) {
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, false
		}
		return strings.Compare(s, lit), true
	case 't', 'f':
		b := raw[0] == 't'
		var l bool
		switch strings.ToLower(lit) {
		case "true", "t", "yes", "on", "1":
			l = true
		case "false", "f", "no", "off", "0":
			l = false
		default:
			return 0, false
		}
		switch {
		case b == l:
			return 0, true
		case !b:
			return -1, true
		}
		return 1, true
	case '{', '[':
		// json/jsonb columns: equality on the canonical text only.
		var a, b any
		if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(lit), &b) != nil {
			return 0, false
		}
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		if bytes.Equal(x, y) {
			return 0, true
		}
		return 1, true
	}
	x, ok1 := parseNumber(string(raw))
	y, ok2 := parseNumber(strings.TrimSpace(lit))
	if !ok1 || !ok2 {
		return 0, false
	}
	return x.Cmp(y), true
}

// parseNumber parses a decimal exactly; exponent forms go through float64
// so a literal like 1e999999999 cannot make big.Rat allocate without bound.
func parseNumber(s string) (*big.Rat, bool) {
	if s == "" || len(s) > 128 || strings.ContainsAny(s, "/") {
		return nil, false
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		r := new(big.Rat)
		r.SetFloat64(f)
		return r, true
	}
	return new(big.Rat).SetString(s)
}
