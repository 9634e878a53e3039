package objects

import (
	"encoding/base64"
	"regexp"
	"strings"
	"time"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Cursor is a list-v2 continuation token: where the previous page ended and
// under which sort, so the next page continues the same walk whatever sortBy
// the next request carries (upstream lets the cursor's sort win).
type Cursor struct {
	// After is the last key of the previous page ("l").
	After string
	// Order is "asc" or "desc" as sent ("o"); upstream's decoder defaults it
	// to "asc", so a cursor always fixes the order.
	Order string
	// Column is the sort column as sent ("c"), empty when none was.
	Column string
	// AfterTime is the last item's sort column as an ISO string ("a"),
	// empty when sorting by name.
	AfterTime string
}

// cursorPart is one "k:value" line of a decoded token; (?s) is absent on
// purpose: like JavaScript's ".", it stops at a carriage return.
var cursorPart = regexp.MustCompile(`^(\S):([^\r\x{2028}\x{2029}]*)`)

// errInvalidCursor answers a cursor that is not a continuation token with
// upstream's message (upstream throws it as a plain Error).
func errInvalidCursor() *storageerr.Error {
	return storageerr.InvalidRequest(400, "Invalid continuation token")
}

// EncodeCursor writes c as upstream's encodeContinuationToken does: base64
// (standard, padded) of "l:…\no:…\nc:…\na:…", empty parts left out.
func EncodeCursor(c Cursor) string {
	var b strings.Builder
	for _, p := range [...]struct{ k, v string }{{"l", c.After}, {"o", c.Order}, {"c", c.Column}, {"a", c.AfterTime}} {
		if p.v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.k + ":" + p.v)
	}
	return base64.StdEncoding.EncodeToString([]byte(b.String()))
}

// DecodeCursor reads a continuation token as upstream's
// decodeContinuationToken: Node's lenient base64, then one "k:value" line
// per part, each k one of l, o, c, a; anything else is refused.
func DecodeCursor(token string) (Cursor, error) {
	c := Cursor{Order: "asc"}
	raw := lenientBase64(token)
	for _, part := range strings.Split(strings.ToValidUTF8(string(raw), "\uFFFD"), "\n") {
		m := cursorPart.FindStringSubmatch(part)
		if m == nil {
			return Cursor{}, errInvalidCursor()
		}
		switch m[1] {
		case "l":
			c.After = m[2]
		case "o":
			c.Order = m[2]
		case "c":
			c.Column = m[2]
		case "a":
			c.AfterTime = m[2]
		default:
			return Cursor{}, errInvalidCursor()
		}
	}
	return c, nil
}

// lenientBase64 decodes s as Node's Buffer.from(s, "base64"): both
// alphabets, characters outside them skipped, stop at the first "=", a
// dangling sixth of a byte dropped.
func lenientBase64(s string) []byte {
	var clean strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '=':
			i = len(s)
		case ch == '-':
			clean.WriteByte('+')
		case ch == '_':
			clean.WriteByte('/')
		case ch >= 'A' && ch <= 'Z', ch >= 'a' && ch <= 'z', ch >= '0' && ch <= '9', ch == '+', ch == '/':
			clean.WriteByte(ch)
		}
	}
	t := clean.String()
	if len(t)%4 == 1 {
		t = t[:len(t)-1]
	}
	out, err := base64.RawStdEncoding.DecodeString(t)
	if err != nil {
		// Unreachable: t holds only alphabet characters in a valid length.
		return nil
	}
	return out
}

// parseCursorTime reads the "a" part: the ISO time upstream writes with
// toISOString, or any RFC 3339 time.
func parseCursorTime(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, errInvalidCursor()
	}
	return &t, nil
}

// isoMillis formats t as JavaScript's Date.toISOString.
func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
