package parse

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// Param is one decoded query parameter. HasValue is false for "k" without
// "=", which PostgREST ignores except for its canonical form.
type Param struct {
	Key, Value string
	HasValue   bool
}

// SplitQuery decodes a raw query string the way PostgREST does
// (parseQueryReplacePlus): '&'-separated, '+' is a space, %XX decoded, a
// malformed escape kept as it is.
func SplitQuery(raw string) ([]Param, error) {
	if len(raw) > MaxQueryLen {
		return nil, pgrsterr.QueryParam("query string too long", fmt.Sprintf("at most %d bytes are accepted", MaxQueryLen))
	}
	if raw == "" {
		return nil, nil
	}
	out := make([]Param, 0, min(strings.Count(raw, "&")+1, MaxParams))
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		if len(out) >= MaxParams {
			return nil, pgrsterr.QueryParam("too many query parameters", fmt.Sprintf("at most %d are accepted", MaxParams))
		}
		k, v, has := strings.Cut(part, "=")
		out = append(out, Param{Key: unescape(k), Value: unescape(v), HasValue: has})
	}
	return out, nil
}

// CanonicalQuery is PostgREST's canonical form of a query string
// (qsCanonical): the parameters sorted by name (stably), the values of a
// repeated name joined by commas, and each name and value percent-encoded
// as Network.HTTP.Base's urlEncode does (all but ASCII letters, digits and
// "-_.~"). Reads answer it in Content-Location.
func CanonicalQuery(raw string) string {
	return string(AppendCanonicalQuery(nil, raw))
}

// AppendCanonicalQuery appends CanonicalQuery(raw) to b.
func AppendCanonicalQuery(b []byte, raw string) []byte {
	params, err := SplitQuery(raw)
	if err != nil || len(params) == 0 {
		return b
	}
	slices.SortStableFunc(params, func(a, b Param) int { return strings.Compare(a.Key, b.Key) })
	for i, p := range params {
		if i > 0 && p.Key == params[i-1].Key {
			b = append(b, ',')
			b = appendURLEncoded(b, p.Value)
			continue
		}
		if i > 0 {
			b = append(b, '&')
		}
		b = appendURLEncoded(b, p.Key)
		b = append(b, '=')
		b = appendURLEncoded(b, p.Value)
	}
	return b
}

// unreserved marks the bytes urlEncode keeps as they are: ASCII letters,
// digits and "-_.~".
var unreserved = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
	}
	return t
}()

// appendURLEncoded appends s percent-encoded, copying each run of
// unreserved bytes at once (a select list is mostly such runs between
// commas).
func appendURLEncoded(b []byte, s string) []byte {
	const upperHex = "0123456789ABCDEF"
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && unreserved[s[j]] {
			j++
		}
		b = append(b, s[i:j]...)
		if j == len(s) {
			break
		}
		c := s[j]
		b = append(b, '%', upperHex[c>>4], upperHex[c&0xf])
		i = j + 1
	}
	return b
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func unescape(s string) string {
	// Two byte searches: ContainsAny builds its byte set on every call,
	// and this runs for every name and value of every query.
	if strings.IndexByte(s, '+') < 0 && strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 < len(s) {
				h, ok1 := unhex(s[i+1])
				l, ok2 := unhex(s[i+2])
				if ok1 && ok2 {
					b = append(b, h<<4|l)
					i += 2
					continue
				}
			}
			b = append(b, c)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

var reservedParams = map[string]bool{"select": true, "columns": true, "on_conflict": true}
var reservedEmbeddable = map[string]bool{"order": true, "limit": true, "offset": true, "and": true, "or": true}

func lastSegment(k string) string {
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		return k[i+1:]
	}
	return k
}

// ParseQuery parses the decoded parameters. rpcRead marks GET/HEAD on a
// function: parameters whose value has no operator become RPCArgs instead of
// failing.
func ParseQuery(params []Param, rpcRead bool) (QueryParams, error) {
	return parseQuery(params, rpcRead, nil)
}

// parseQuery is ParseQuery taking select= from selects when it holds it.
func parseQuery(params []Param, rpcRead bool, selects *SelectCache) (QueryParams, error) {
	var q QueryParams
	selectSeen := false
	type rangeAcc struct {
		path          EmbedPath
		limit, offset int64
		hasL, hasO    bool
	}
	var ranges []*rangeAcc
	rangeFor := func(key string) (*rangeAcc, error) {
		var path EmbedPath
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			p, f, err := ParseTreePath(key[:i] + ".x")
			if err != nil {
				return nil, err
			}
			_ = f
			path = p
		}
		for _, r := range ranges {
			if pathEq(r.path, path) {
				return r, nil
			}
		}
		r := &rangeAcc{path: path}
		ranges = append(ranges, r)
		return r, nil
	}
	for _, prm := range params {
		if !prm.HasValue {
			continue
		}
		k, v := prm.Key, prm.Value
		switch {
		case k == "select":
			if selectSeen {
				continue
			}
			selectSeen = true
			sel, err := selects.parse(v)
			if err != nil {
				return q, err
			}
			q.Select, q.SelectText = sel, v
			continue
		case k == "columns":
			if q.Columns != nil {
				continue
			}
			cols, err := ParseColumns("columns", v)
			if err != nil {
				return q, err
			}
			q.Columns = cols
			continue
		case k == "on_conflict":
			if q.OnConflict != nil {
				continue
			}
			cols, err := ParseColumns("on_conflict", v)
			if err != nil {
				return q, err
			}
			q.OnConflict = cols
			continue
		}
		switch last := lastSegment(k); {
		case last == "order":
			var path EmbedPath
			if i := strings.LastIndexByte(k, '.'); i >= 0 {
				p, _, err := ParseTreePath(k[:i] + ".x")
				if err != nil {
					return q, err
				}
				path = p
			}
			terms, err := ParseOrder(v)
			if err != nil {
				return q, err
			}
			if !hasPath(q.Order, path) {
				q.Order = append(q.Order, PathOrder{Path: path, Terms: terms})
			}
		case last == "limit" || last == "offset":
			r, err := rangeFor(k)
			if err != nil {
				return q, err
			}
			n, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if perr != nil {
				continue // PostgREST ignores a limit that is not a number
			}
			if last == "limit" && !r.hasL {
				r.limit, r.hasL = n, true
			} else if last == "offset" && !r.hasO {
				r.offset, r.hasO = n, true
			}
		case last == "and" || last == "or":
			path, op, err := logicPath(k)
			if err != nil {
				return q, err
			}
			t, err := ParseLogic(op, v)
			if err != nil {
				return q, err
			}
			q.Logic = append(q.Logic, PathLogic{Path: path, Tree: t})
		default:
			if reservedParams[k] {
				continue
			}
			path, f, err := ParseTreePath(k)
			if err != nil {
				return q, err
			}
			e, err := ParseFilterValue(v)
			if err != nil {
				if rpcRead {
					q.RPCArgs = append(q.RPCArgs, [2]string{k, v})
					continue
				}
				return q, err
			}
			q.Filters = append(q.Filters, PathFilter{Path: path, Filter: Filter{Field: f, Expr: e}})
		}
	}
	if !selectSeen {
		q.Select = []*SelectItem{{Kind: SelectField, Field: Field{Name: "*"}}}
	}
	for _, r := range ranges {
		rg := All
		if r.hasL {
			if r.limit < 0 {
				return q, pgrsterr.RangeNegativeLimit()
			}
			rg.Limit = r.limit
		}
		if r.hasO && r.offset > 0 {
			rg.Offset = r.offset
		}
		q.Ranges = append(q.Ranges, PathRange{Path: r.path, Range: rg})
	}
	return q, nil
}

func pathEq(a, b EmbedPath) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hasPath(os []PathOrder, p EmbedPath) bool {
	for _, o := range os {
		if pathEq(o.Path, p) {
			return true
		}
	}
	return false
}

// logicPath splits "rel.not.or" into the path and "not.or".
func logicPath(k string) (EmbedPath, string, error) {
	p := &scanner{s: k}
	var names []string
	for {
		n, err := p.fieldName()
		if err != nil {
			return nil, "", toPGRST("logic path", k, err)
		}
		names = append(names, n)
		if len(names) > MaxDepth*2 {
			return nil, "", toPGRST("logic path", k, p.fail("a shorter path"))
		}
		if p.peek() == '.' && !p.eof() {
			p.i++
			continue
		}
		break
	}
	if !p.eof() {
		return nil, "", toPGRST("logic path", k, p.fail(`"." or end of input`))
	}
	op := names[len(names)-1]
	var path EmbedPath
	not := false
	for _, n := range names[:len(names)-1] {
		if n == "not" {
			not = true
			continue
		}
		path = append(path, n)
	}
	if not {
		op = "not." + op
	}
	return path, op, nil
}
