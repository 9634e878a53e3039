// Package requestid picks the id that ties a request's access-log line to
// the upstream service's logs and to the response the client sees.
package requestid

import (
	"crypto/rand"
	"encoding/hex"
)

// Header is the header that carries the id both ways.
const Header = "X-Request-Id"

// MaxLen is the longest incoming id that is kept.
const MaxLen = 128

// Valid reports whether an incoming id may be kept: 1 to MaxLen printable
// ASCII characters. Anything else could smuggle control bytes or bloat logs.
func Valid(id string) bool {
	if id == "" || len(id) > MaxLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// New returns a random version-4 UUID.
func New() string {
	var b [16]byte
	// crypto/rand.Read never fails (it panics on a broken system source).
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// Pick keeps incoming when Valid, else generates a new id.
func Pick(incoming string) string {
	if Valid(incoming) {
		return incoming
	}
	return New()
}
