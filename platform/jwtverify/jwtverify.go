// Package jwtverify checks the JWTs that reach our services and extracts the
// Postgres role and claims that every request runs under.
//
// It accepts HS256/384/512 tokens signed with the shared secret (what Supabase
// Auth issues by default) and RS/PS/ES/EdDSA tokens whose "kid" names a key
// in a configured JWKS (Supabase's asymmetric signing keys). Errors carry PostgREST's codes and messages, because
// rest, rpc, storage and realtime all report them to clients.
package jwtverify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
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
	// Secret is the shared HMAC secret (JWT_SECRET). Empty disables HS*
	// tokens unless the JWKS carries an "oct" key.
	Secret string
	// JWKS is an optional JSON Web Key Set ({"keys":[…]}, a bare array of
	// JWKs, or one JWK) with the keys of asymmetric RS/PS/ES/EdDSA tokens
	// and optionally "oct" keys for HS tokens. A token names its key by
	// "kid"; a token without one may use only keys without one. This is the
	// JWT_JWKS value Supabase's self-hosted setup gives every service.
	//
	// JWKS may instead be an http(s) URL (IsJWKSURL), such as authsvc's
	// <API_EXTERNAL_URL>/auth/v1/.well-known/jwks.json: the set is fetched
	// on first use, refetched after JWKSMaxAge and when a token names a kid
	// it lacks, but never twice within JWKSMinRefresh. Symmetric keys in a
	// fetched set are ignored.
	JWKS []byte
	// HTTPClient fetches a JWKS URL; nil means a client with a 5 s timeout.
	HTTPClient *http.Client
	// JWKSMaxAge and JWKSMinRefresh pace a JWKS URL's fetches; zero means
	// DefaultJWKSMaxAge and DefaultJWKSMinRefresh.
	JWKSMaxAge, JWKSMinRefresh time.Duration
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
	keys     []verifyKey
	remote   *remoteKeys // nil unless JWKS is a URL
	audience string
	skew     time.Duration
	now      func() time.Time
}

// verifyKey is one usable JWKS entry, exported to its raw Go form once.
type verifyKey struct {
	kid    string
	kty    string                 // "oct", "RSA", "EC" or "OKP"
	alg    jwa.SignatureAlgorithm // zero when the JWK names none
	hasAlg bool
	raw    any
}

// New builds a Verifier; it fails on a JWKS that does not parse, and when
// neither a secret nor a key is configured.
func New(o Options) (*Verifier, error) {
	v := &Verifier{secret: []byte(o.Secret), audience: o.Audience, skew: o.Skew, now: o.Now}
	if v.skew == 0 {
		v.skew = DefaultSkew
	}
	if v.now == nil {
		v.now = time.Now
	}
	if IsJWKSURL(string(o.JWKS)) {
		r, err := newRemoteKeys(string(o.JWKS), o, v.now)
		if err != nil {
			return nil, err
		}
		v.remote = r
	} else if len(bytes.TrimSpace(o.JWKS)) > 0 {
		set, err := ParseJWKS(o.JWKS)
		if err != nil {
			return nil, err
		}
		keys, err := usableKeys(set)
		if err != nil {
			return nil, err
		}
		v.keys = keys
	}
	if len(v.secret) == 0 && len(v.keys) == 0 && v.remote == nil {
		return nil, errors.New("jwtverify: neither a secret nor a JWKS is configured")
	}
	return v, nil
}

// ParseJWKS reads a JSON Web Key Set in any of the forms Supabase's
// services accept: {"keys":[…]}, a bare array of JWKs (Realtime's
// API_JWT_JWKS, GoTrue's GOTRUE_JWT_KEYS) or a single JWK (PostgREST's
// jwt-secret).
func ParseJWKS(raw []byte) (jwk.Set, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return jwk.NewSet(), nil
	case raw[0] == '[':
		raw = append(append([]byte(`{"keys":`), raw...), '}')
	case raw[0] == '{' && !bytes.Contains(raw, []byte(`"keys"`)):
		k, err := jwk.ParseKey(raw)
		if err != nil {
			return nil, fmt.Errorf("parse JWK: %w", err)
		}
		set := jwk.NewSet()
		if err := set.AddKey(k); err != nil {
			return nil, fmt.Errorf("parse JWK: %w", err)
		}
		return set, nil
	}
	set, err := jwk.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse JWKS: %w", err)
	}
	return set, nil
}

// IsJWKS reports whether a *_JWT_SECRET value is JSON (a JWK or JWK set)
// rather than a shared secret, as PostgREST decides for jwt-secret.
func IsJWKS(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")
}

// CheckConfig validates a service's verification keys at start: a secret of
// at least minSecret bytes when one is set, a JWKS that parses, and at
// least one of the two.
func CheckConfig(secretName, secret, jwksName, jwks string, minSecret int) error {
	var errs []error
	if secret != "" && len(secret) < minSecret {
		errs = append(errs, fmt.Errorf("%s: must be at least %d characters", secretName, minSecret))
	}
	n := 0
	if IsJWKSURL(jwks) {
		// Fetched when the service verifies its first token; only its
		// form can be checked here.
		if _, err := newRemoteKeys(jwks, Options{}, time.Now); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", jwksName, err))
		}
		n = 1
	} else if strings.TrimSpace(jwks) != "" {
		set, err := ParseJWKS([]byte(jwks))
		if err == nil {
			var keys []verifyKey
			keys, err = usableKeys(set)
			n = len(keys)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", jwksName, err))
		}
	}
	if secret == "" && n == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s or %s: one is required", secretName, jwksName))
	}
	return errors.Join(errs...)
}

// usableKeys exports every signature key of set. Private halves are
// dropped: a verifier needs only the public key.
func usableKeys(set jwk.Set) ([]verifyKey, error) {
	var out []verifyKey
	for i := range set.Len() {
		k, _ := set.Key(i)
		if use, ok := k.KeyUsage(); ok && use != "" && use != "sig" {
			continue
		}
		if ops, ok := k.KeyOps(); ok && len(ops) > 0 && !slices.Contains(ops, jwk.KeyOpVerify) && !slices.Contains(ops, jwk.KeyOpSign) {
			continue
		}
		kid, _ := k.KeyID()
		kty := k.KeyType().String()
		if kty != "oct" {
			pub, err := k.PublicKey()
			if err != nil {
				return nil, fmt.Errorf("key %d (%s): %w", i, kid, err)
			}
			k = pub
		}
		var raw any
		if err := jwk.Export(k, &raw); err != nil {
			return nil, fmt.Errorf("key %d (%s): %w", i, kid, err)
		}
		vk := verifyKey{kid: kid, kty: kty, raw: raw}
		if a, ok := k.Algorithm(); ok && a.String() != "" {
			sa, found := jwa.LookupSignatureAlgorithm(a.String())
			if !found || sa == jwa.NoSignature() {
				return nil, fmt.Errorf("key %d (%s): algorithm %q is not a signature algorithm", i, kid, a.String())
			}
			vk.alg, vk.hasAlg = sa, true
		}
		switch kty {
		case "oct", "RSA", "EC", "OKP":
		default:
			return nil, fmt.Errorf("key %d (%s): key type %q", i, kid, kty)
		}
		out = append(out, vk)
	}
	return out, nil
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
	alg, keys, err := v.keysFor(h)
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		if payload, err := jws.VerifyCompactFast(key, []byte(token), alg); err == nil {
			return v.claims(payload)
		}
	}
	return nil, ErrSignature
}

// keyType is the JWK "kty" each signature algorithm needs. Binding the
// algorithm to the key's type is what refuses algorithm confusion: an
// HS256 token never meets an RSA or EC key, whatever its "kid" says.
func keyType(alg jwa.SignatureAlgorithm) string {
	switch alg {
	case jwa.HS256(), jwa.HS384(), jwa.HS512():
		return "oct"
	case jwa.RS256(), jwa.RS384(), jwa.RS512(), jwa.PS256(), jwa.PS384(), jwa.PS512():
		return "RSA"
	case jwa.ES256(), jwa.ES384(), jwa.ES512():
		return "EC"
	case jwa.EdDSA():
		return "OKP"
	}
	return ""
}

// keysFor chooses the candidate verification keys. "none" and unknown
// algorithms never reach a key: an unsigned token must not be accepted
// under any setting. A token with a "kid" gets that key only (an HS token
// whose kid is not in the set falls back to the shared secret, as GoTrue
// does for its own key id); a token without one gets the keys without one
// of its type, plus the shared secret for HS tokens.
func (v *Verifier) keysFor(h header) (jwa.SignatureAlgorithm, []any, error) {
	alg, ok := jwa.LookupSignatureAlgorithm(h.Alg)
	if !ok || alg == jwa.NoSignature() {
		return alg, nil, ErrNoKey
	}
	kty := keyType(alg)
	if kty == "" {
		return alg, nil, ErrNoKey
	}
	fits := func(k verifyKey) bool { return k.kty == kty && (!k.hasAlg || k.alg == alg) }
	keys := v.keys
	if v.remote != nil && kty != "oct" {
		// A fetched set never holds symmetric keys, so HS tokens do not
		// touch it. An unknown kid (a rotation) may refetch it.
		fetched := v.remote.get(func(ks []verifyKey) bool {
			return slices.ContainsFunc(ks, func(k verifyKey) bool {
				return (h.Kid != "" && k.kid == h.Kid) || (h.Kid == "" && k.kid == "" && fits(k))
			})
		})
		keys = append(slices.Clip(keys), fetched...)
	}
	var out []any
	if h.Kid != "" {
		for _, k := range keys {
			if k.kid == h.Kid {
				if !fits(k) {
					return alg, nil, ErrNoKey
				}
				return alg, []any{k.raw}, nil
			}
		}
		if kty == "oct" && len(v.secret) > 0 {
			return alg, []any{v.secret}, nil
		}
		return alg, nil, ErrNoKey
	}
	if kty == "oct" && len(v.secret) > 0 {
		out = append(out, v.secret)
	}
	for _, k := range keys {
		if k.kid == "" && fits(k) {
			out = append(out, k.raw)
		}
	}
	if len(out) == 0 {
		return alg, nil, ErrNoKey
	}
	return alg, out, nil
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
