package objects

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Signer issues and checks the tokens of signed URLs: HS256 JWTs over
// {"url":"<bucket>/<name>"} as Supabase Storage signs them; upload tokens
// also carry the owner, the upsert flag and a one-time id.
type Signer struct {
	secret []byte
	verify *jwtverify.Verifier
	now    func() time.Time
}

// NewSigner returns a Signer using the service's JWT secret.
func NewSigner(secret string, now func() time.Time) (*Signer, error) {
	if now == nil {
		now = time.Now
	}
	v, err := jwtverify.New(jwtverify.Options{Secret: secret, Skew: time.Nanosecond, Now: now})
	if err != nil {
		return nil, err
	}
	return &Signer{secret: []byte(secret), verify: v, now: now}, nil
}

// UploadGrant is what a signed upload token allows.
type UploadGrant struct {
	URL   string
	Owner string
	// Role is the role of the caller who signed the URL ("" in tokens
	// signed before it was recorded).
	Role    string
	Upsert  bool
	TokenID string
	Expires time.Time
}

// SignDownload returns a token for GET /object/sign/<url> valid for ttl.
func (s *Signer) SignDownload(url string, ttl time.Duration) (string, error) {
	now := s.now()
	return jwtverify.SignHS256(map[string]any{"url": url, "iat": now.Unix(), "exp": now.Add(ttl).Unix()}, s.secret)
}

// SignUpload returns a single-use token for PUT /object/upload/sign/<url>,
// signed by a caller of role for owner.
func (s *Signer) SignUpload(url, owner, role string, upsert bool, ttl time.Duration) (string, error) {
	now := s.now()
	var id [16]byte
	_, _ = rand.Read(id[:])
	h := hex.EncodeToString(id[:])
	uuid := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	return jwtverify.SignHS256(map[string]any{
		"url": url, "owner": owner, "role": role, "upsert": upsert, "jti": uuid, "typ": "upload",
		"iat": now.Unix(), "exp": now.Add(ttl).Unix(),
	}, s.secret)
}

// VerifyDownload checks a download token and that it was issued for url.
func (s *Signer) VerifyDownload(token, url string) error {
	m, _, err := s.check(token)
	if err != nil {
		return err
	}
	if m["typ"] != nil {
		return storageerr.InvalidJWT("invalid signature")
	}
	if got, _ := m["url"].(string); got != url {
		return storageerr.InvalidSignature("Invalid signature")
	}
	return nil
}

// VerifyUpload checks an upload token and that it was issued for url.
func (s *Signer) VerifyUpload(token, url string) (UploadGrant, error) {
	m, exp, err := s.check(token)
	if err != nil {
		return UploadGrant{}, err
	}
	if m["typ"] != "upload" {
		return UploadGrant{}, storageerr.InvalidJWT("invalid signature")
	}
	g := UploadGrant{}
	g.URL, _ = m["url"].(string)
	g.Owner, _ = m["owner"].(string)
	g.Role, _ = m["role"].(string)
	g.Upsert, _ = m["upsert"].(bool)
	g.TokenID, _ = m["jti"].(string)
	g.Expires = exp
	if g.URL != url || g.TokenID == "" || g.Expires.IsZero() {
		return UploadGrant{}, storageerr.InvalidSignature("Invalid signature")
	}
	return g, nil
}

// check verifies a token and returns its claims and expiry.
func (s *Signer) check(token string) (map[string]any, time.Time, error) {
	if token == "" {
		return nil, time.Time{}, storageerr.MissingParameter("token")
	}
	c, err := s.verify.Verify(token)
	if err != nil {
		return nil, time.Time{}, JWTError(err)
	}
	return c.Map, c.ExpiresAt, nil
}

// BearerError is what upstream answers a request whose Authorization token
// does not verify: AccessDenied (403, "Unauthorized") with the message of
// jose, the library it verifies with.
func BearerError(err error) error {
	var e *jwtverify.Error
	if !errors.As(err, &e) {
		return storageerr.AccessDenied("Invalid Compact JWS")
	}
	switch e {
	case jwtverify.ErrExpired:
		return storageerr.AccessDenied(`"exp" claim timestamp check failed`)
	case jwtverify.ErrNotYet:
		return storageerr.AccessDenied(`"nbf" claim timestamp check failed`)
	case jwtverify.ErrIssuedLate:
		return storageerr.AccessDenied(`"iat" claim timestamp check failed (it should be in the past)`)
	case jwtverify.ErrSignature, jwtverify.ErrNoKey:
		// Upstream falls back to the HS256 secret when no JWKS key has
		// the token's kid, so a token no key fits fails its signature.
		return storageerr.AccessDenied("signature verification failed")
	case jwtverify.ErrAudience:
		return storageerr.AccessDenied(`unexpected "aud" claim value`)
	case jwtverify.ErrClaims:
		return storageerr.AccessDenied("JWT Claims Set must be a top-level JSON object")
	}
	return storageerr.AccessDenied("Invalid Compact JWS")
}

// JWTError turns a jwtverify failure into upstream's InvalidJWT with the
// jsonwebtoken library's messages ("jwt expired", "invalid signature", …).
func JWTError(err error) error {
	var e *jwtverify.Error
	if !errors.As(err, &e) {
		return storageerr.InvalidJWT("")
	}
	switch e {
	case jwtverify.ErrExpired:
		return storageerr.InvalidJWT("jwt expired")
	case jwtverify.ErrNotYet:
		return storageerr.InvalidJWT("jwt not active")
	case jwtverify.ErrSignature, jwtverify.ErrNoKey:
		return storageerr.InvalidJWT("invalid signature")
	case jwtverify.ErrAudience:
		return storageerr.InvalidJWT("jwt audience invalid")
	}
	if e.Code == "PGRST301" {
		return storageerr.InvalidJWT("jwt malformed")
	}
	return storageerr.InvalidJWT(e.Message)
}
