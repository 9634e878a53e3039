package changes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Op is a filter operator, as postgres_changes bindings spell it.
type Op string

// The operators Supabase Realtime accepts in a binding's filter.
const (
	OpEq  Op = "eq"
	OpNeq Op = "neq"
	OpLt  Op = "lt"
	OpLte Op = "lte"
	OpGt  Op = "gt"
	OpGte Op = "gte"
	OpIn  Op = "in"
)

// Filter is a parsed binding filter "column=op.value".
type Filter struct {
	Column string
	Op     Op
	// Values holds one value, or the list for OpIn.
	Values []string
	// lits are Values read once in the forms a typed column compares by,
	// so that a delivery to many subscribers parses no literal.
	lits []filterLit
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
// Filter built by hand.
func (f *Filter) literal(i int) filterLit {
	if i < len(f.lits) {
		return f.lits[i]
	}
	return readLiteral(f.Values[i])
}

// ErrFilter is wrapped by every filter parse error.
var ErrFilter = errors.New("invalid filter")

// maxFilterLen bounds what ParseFilter looks at.
const maxFilterLen = 4096

// ParseFilter parses a binding's filter. An empty string is no filter (nil,
// nil).
func ParseFilter(s string) (*Filter, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > maxFilterLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrFilter, maxFilterLen)
	}
	col, rest, ok := strings.Cut(s, "=")
	if !ok || col == "" {
		return nil, fmt.Errorf("%w %q: want column=op.value", ErrFilter, s)
	}
	op, val, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, fmt.Errorf("%w %q: want column=op.value", ErrFilter, s)
	}
	f := &Filter{Column: strings.TrimSpace(col), Op: Op(op)}
	switch f.Op {
	case OpEq, OpNeq, OpLt, OpLte, OpGt, OpGte:
		f.Values = []string{val}
	case OpIn:
		vals, err := parseList(val)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrFilter, s, err)
		}
		f.Values = vals
	default:
		return nil, fmt.Errorf("%w %q: operator %q is not one of eq, neq, lt, lte, gt, gte, in", ErrFilter, s, op)
	}
	f.lits = make([]filterLit, len(f.Values))
	for i, v := range f.Values {
		f.lits[i] = readLiteral(v)
	}
	return f, nil
}

// parseList parses "(a,b,"c,d")": values are separated by commas, and a
// value in double quotes may contain commas, parentheses and \-escapes.
func parseList(s string) ([]string, error) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, errors.New("in wants a parenthesised list")
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
		return nil, errors.New("unterminated quote")
	}
	if len(s) > 0 || len(out) > 0 {
		flush()
	}
	return out, nil
}

// Match reports whether record (a JSON object of column values) satisfies
// f. columns gives the record's column types, so that a literal is compared
// as Postgres would after casting it to the column's type (a uuid in any
// case, a timestamp in any ISO spelling). A column absent from the record
// (not visible to the subscriber) or null never matches, as in SQL.
func (f *Filter) Match(record map[string]json.RawMessage, columns []Column) bool {
	if f == nil {
		return true
	}
	raw, ok := record[f.Column]
	if !ok {
		return false
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return false
	}
	typ := ""
	for _, c := range columns {
		if c.Name == f.Column {
			typ = c.Type
			break
		}
	}
	switch f.Op {
	case OpIn:
		for i, v := range f.Values {
			if c, ok := compareTyped(raw, v, typ, f.literal(i)); ok && c == 0 {
				return true
			}
		}
		return false
	}
	c, ok := compareTyped(raw, f.Values[0], typ, f.literal(0))
	if !ok {
		return false
	}
	switch f.Op {
	case OpEq:
		return c == 0
	case OpNeq:
		return c != 0
	case OpLt:
		return c < 0
	case OpLte:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGte:
		return c >= 0
	}
	return false
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
