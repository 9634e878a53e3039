package parse

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// ObjectKeys returns the distinct member names of the JSON object body,
// sorted, as encoding/json would decode them into a map, and false if
// body is not valid JSON or not an object.
//
// Where only the names matter (an RPC body's argument names, the columns
// of each row written), the body is checked and its top level walked
// rather than decoded into a map of every value: for the P2P board's 80
// bytes, 21 allocations and 2.5 µs decoded against 6 and 0.77 µs walked.
func ObjectKeys(body []byte) ([]string, bool) {
	if len(body) == 0 || body[0] != '{' || !json.Valid(body) {
		return nil, false
	}
	keys := make([]string, 0, 8) // most calls name fewer arguments
	i := skipSpace(body, 1)
	for i < len(body) && body[i] == '"' {
		end := stringEnd(body, i)
		keys = append(keys, memberName(body[i:end]))
		i = skipSpace(body, end)
		i = skipSpace(body, skipValue(body, skipSpace(body, i+1))) // past ':' and the value
		if body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}

// memberName decodes a quoted name: as is when it is plain UTF-8 without
// escapes (nearly always), else through encoding/json, which also turns
// invalid UTF-8 into U+FFFD as it does for map keys.
func memberName(quoted []byte) string {
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // valid: json.Valid accepted the whole
	return s
}

// The helpers below walk JSON that json.Valid has accepted, so they need
// not check it again.

// isSpace reports JSON's whitespace, which is all encoding/json skips.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd is the index just past the string that opens at b[i].
func stringEnd(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue is the index just past the value that begins at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	default: // number, true, false, null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
			i++
		}
		return i
	}
}
