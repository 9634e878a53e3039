// Package jsonstring appends strings to a byte slice as JSON strings,
// without reflection or allocation beyond the slice's growth: for hot paths
// that write JSON by hand (the gateway's access line, rest's
// request.headers).
package jsonstring

import (
	"unicode"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plain marks the bytes a JSON string holds as they are: printable ASCII
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Append appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func Append(b []byte, s string) []byte { return appendString(b, s, false) }

// AppendLower appends s lower-cased (as strings.ToLower does it) as a JSON
// string; invalid UTF-8 becomes U+FFFD.
func AppendLower(b []byte, s string) []byte { return appendString(b, s, true) }

func appendString(b []byte, s string, lower bool) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		// Header names and values (two bearer tokens on most requests)
		// are long runs of plain ASCII: copied a run at a time, and
		// lower-cased where they landed.
		j := i
		for j < len(s) && plain[s[j]] {
			j++
		}
		n := len(b)
		b = append(b, s[i:j]...)
		if lower {
			for k := n; k < len(b); k++ {
				if c := b[k]; 'A' <= c && c <= 'Z' {
					b[k] = c + 'a' - 'A'
				}
			}
		}
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if lower {
				r = unicode.ToLower(r)
			}
			b = utf8.AppendRune(b, r)
			i += n
			continue
		}
		// Not plain: the quote, the backslash or a control character.
		if c == '"' || c == '\\' {
			b = append(b, '\\', c)
		} else {
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
	}
	return append(b, '"')
}
