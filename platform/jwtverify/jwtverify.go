// Package jwtverify checks the JWTs that reach our services and extracts the
// Postgres role and claims that every request runs under.
//
// It accepts HS256/384/512 tokens signed with the shared secret (what Supabase
// Auth issues by default) and RS256/ES256/EdDSA tokens whose "kid" names a key
// in a configured JWKS. Errors carry PostgREST's codes and messages, because
// rest, rpc, storage and realtime all report them to clients.
package jwtverify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// DefaultSkew is the clock skew tolerated on exp, nbf and iat; PostgREST
// allows 30 seconds.
const DefaultSkew = 30 * time.Second

// Error is a verification failure with PostgREST's code and message.
type Error struct {
	Code    string // PGRST301 (decode/signature) or PGRST303 (claims)
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Sentinel-style constructors keep the exact upstream strings in one place.
var (
	ErrNoKey      = &Error{Code: "PGRST301", Message: "No suitable key or wrong key type"}
	ErrSignature  = &Error{Code: "PGRST301", Message: "JWSError JWSInvalidSignature"}
	ErrExpired    = &Error{Code: "PGRST303", Message: "JWT expired"}
	ErrNotYet     = &Error{Code: "PGRST303", Message: "JWT not yet valid"}
	ErrIssuedLate = &Error{Code: "PGRST303", Message: "JWT issued at future"}
	ErrAudience   = &Error{Code: "PGRST303", Message: "JWT not in audience"}
	ErrClaims     = &Error{Code: "PGRST303", Message: "Parsing claims failed"}
)

func partsError(n int) *Error {
	return &Error{Code: "PGRST301", Message: fmt.Sprintf("Expected 3 parts in JWT; got %d", n)}
}

// Options configures a Verifier.
type Options struct {
	// Secret is the shared HMAC secret (JWT_SECRET). Empty disables HS*.
	Secret string
	// JWKS is an optional JSON Web Key Set with public keys for RS/ES/EdDSA
	// tokens (and optionally "oct" keys); tokens pick a key by "kid".
	JWKS []byte
	// Audience, when set, must appear in the token's "aud" claim.
	Audience string
	// Skew tolerated on time claims; zero means DefaultSkew.
	Skew time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Verifier validates compact JWS tokens. It is safe for concurrent use.
type Verifier struct {
	secret   []byte
	keys     jwk.Set
	audience string
	skew     time.Duration
	now      func() time.Time
}

// New builds a Verifier; it fails on a JWKS that does not parse.
func New(o Options) (*Verifier, error) {
	v := &Verifier{secret: []byte(o.Secret), audience: o.Audience, skew: o.Skew, now: o.Now}
	if v.skew == 0 {
		v.skew = DefaultSkew
	}
	if v.now == nil {
		v.now = time.Now
	}
	if len(bytes.TrimSpace(o.JWKS)) > 0 {
		set, err := jwk.Parse(o.JWKS)
		if err != nil {
			return nil, fmt.Errorf("parse JWKS: %w", err)
		}
		v.keys = set
	}
	if len(v.secret) == 0 && v.keys == nil {
		return nil, errors.New("jwtverify: neither a secret nor a JWKS is configured")
	}
	return v, nil
}

// Claims is what a verified token grants.
type Claims struct {
	// Role is the "role" claim; empty when the token has none (the caller
	// then applies its anonymous role).
	Role string
	// Subject is the "sub" claim, the user id for Supabase Auth tokens.
	Subject string
	// ExpiresAt is the "exp" claim, zero when absent.
	ExpiresAt time.Time
	// Raw is the verified payload exactly as signed, for request.jwt.claims.
	Raw json.RawMessage
	// Map is the decoded payload.
	Map map[string]any
}

type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

// Verify checks the token's signature and time claims and returns its claims.
func (v *Verifier) Verify(token string) (*Claims, error) {
	if n := strings.Count(token, ".") + 1; n != 3 {
		return nil, partsError(n)
	}
	headSeg := token[:strings.IndexByte(token, '.')]
	rawHead, err := base64.RawURLEncoding.DecodeString(headSeg)
	if err != nil {
		return nil, &Error{Code: "PGRST301", Message: "Error in $: could not decode JWT header"}
	}
	var h header
	if err := json.Unmarshal(rawHead, &h); err != nil {
		return nil, &Error{Code: "PGRST301", Message: "Error in $: could not decode JWT header"}
	}
	alg, key, err := v.keyFor(h)
	if err != nil {
		return nil, err
	}
	payload, err := jws.VerifyCompactFast(key, []byte(token), alg)
	if err != nil {
		return nil, ErrSignature
	}
	return v.claims(payload)
}

// keyFor chooses the verification key. "none" and unknown algorithms never
// reach a key: an unsigned token must not be accepted under any setting.
func (v *Verifier) keyFor(h header) (jwa.SignatureAlgorithm, any, error) {
	alg, ok := jwa.LookupSignatureAlgorithm(h.Alg)
	if !ok || alg == jwa.NoSignature() {
		return alg, nil, ErrNoKey
	}
	switch alg {
	case jwa.HS256(), jwa.HS384(), jwa.HS512():
		if h.Kid == "" || v.keys == nil {
			if len(v.secret) == 0 {
				return alg, nil, ErrNoKey
			}
			return alg, v.secret, nil
		}
	}
	if v.keys == nil || h.Kid == "" {
		return alg, nil, ErrNoKey
	}
	k, found := v.keys.LookupKeyID(h.Kid)
	if !found {
		return alg, nil, ErrNoKey
	}
	var raw any
	if err := jwk.Export(k, &raw); err != nil {
		return alg, nil, ErrNoKey
	}
	return alg, raw, nil
}

func (v *Verifier) claims(payload []byte) (*Claims, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, ErrClaims
	}
	now := v.now()
	c := &Claims{Raw: json.RawMessage(payload), Map: m}
	if exp, ok, err := numericDate(m, "exp"); err != nil {
		return nil, err
	} else if ok {
		if now.After(exp.Add(v.skew)) {
			return nil, ErrExpired
		}
		c.ExpiresAt = exp
	}
	if nbf, ok, err := numericDate(m, "nbf"); err != nil {
		return nil, err
	} else if ok && now.Add(v.skew).Before(nbf) {
		return nil, ErrNotYet
	}
	if iat, ok, err := numericDate(m, "iat"); err != nil {
		return nil, err
	} else if ok && now.Add(v.skew).Before(iat) {
		return nil, ErrIssuedLate
	}
	if v.audience != "" && !hasAudience(m["aud"], v.audience) {
		return nil, ErrAudience
	}
	if r, ok := m["role"].(string); ok {
		c.Role = r
	} else if _, present := m["role"]; present {
		return nil, ErrClaims
	}
	if s, ok := m["sub"].(string); ok {
		c.Subject = s
	}
	return c, nil
}

func numericDate(m map[string]any, name string) (time.Time, bool, error) {
	raw, ok := m[name]
	if !ok || raw == nil {
		return time.Time{}, false, nil
	}
	n, ok := raw.(json.Number)
	if !ok {
		return time.Time{}, false, ErrClaims
	}
	f, err := n.Float64()
	if err != nil {
		return time.Time{}, false, ErrClaims
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true, nil
}

func hasAudience(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok && s == want {
				return true
			}
		}
	}
	return false
}
