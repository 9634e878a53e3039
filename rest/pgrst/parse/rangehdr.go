package parse

import (
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// ParseRangeHeader parses a Range header ("0-19", "items=0-19", "10-"). It
// returns All for an absent or malformed header, which PostgREST ignores,
// and PGRST103 when the first position is after the last.
func ParseRangeHeader(h string) (Range, error) {
	h = strings.TrimSpace(h)
	if h == "" || len(h) > 64 {
		return All, nil
	}
	h = strings.TrimPrefix(h, "items=")
	lo, hi, ok := strings.Cut(h, "-")
	if !ok || !allDigits(lo) || (hi != "" && !allDigits(hi)) {
		return All, nil
	}
	from, err := strconv.ParseInt(lo, 10, 64)
	if err != nil {
		return All, nil
	}
	if hi == "" {
		return Range{Offset: from, Limit: NoLimit}, nil
	}
	to, err := strconv.ParseInt(hi, 10, 64)
	if err != nil {
		return All, nil
	}
	if to < from {
		return All, pgrsterr.RangeLowerGTUpper()
	}
	return Range{Offset: from, Limit: to - from + 1}, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Intersect returns the rows both ranges select.
func (r Range) Intersect(o Range) Range {
	lo := max(r.Offset, o.Offset)
	end := func(x Range) int64 {
		if x.Limit == NoLimit {
			return -1
		}
		return x.Offset + x.Limit
	}
	e1, e2 := end(r), end(o)
	var e int64
	switch {
	case e1 < 0:
		e = e2
	case e2 < 0:
		e = e1
	default:
		e = min(e1, e2)
	}
	if e < 0 {
		return Range{Offset: lo, Limit: NoLimit}
	}
	return Range{Offset: lo, Limit: max(e-lo, 0)}
}

// Restrict caps the range at maxRows rows (0: no cap).
func (r Range) Restrict(maxRows int64) Range {
	if maxRows <= 0 {
		return r
	}
	if r.Limit == NoLimit || r.Limit > maxRows {
		r.Limit = maxRows
	}
	return r
}
