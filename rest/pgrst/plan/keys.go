package plan

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// objectKeys returns the distinct member names of the JSON object body,
// sorted, as encoding/json would decode them, and false if body is not
// valid JSON. The caller has seen body begin with '{'.
//
// An RPC body only names the arguments here (the values go to PostgreSQL
// as the body itself), so it is checked and its top level walked, rather
// than decoded into a map of every value: 21 allocations and 2.5 µs for
// the P2P board's 80 bytes, against json.Valid's none and 0.3 µs.
func objectKeys(body []byte) ([]string, bool) {
	if !json.Valid(body) {
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
	plain := utf8.Valid(raw)
	for _, c := range raw {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(raw)
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // valid: json.Valid accepted the whole
	return s
}

// The helpers below walk JSON that json.Valid has accepted, so they need
// not check it again.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
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
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}
