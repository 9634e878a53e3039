// Package auth turns the token a realtime client presents (a user JWT, the
// anon or service key, or an sb_ API key) into the Postgres role and claims
// its subscriptions run under, with Supabase Realtime's error messages.
package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kejanest/kejanest/platform/jwtverify"
)

// Claims is what a verified token grants a channel.
type Claims struct {
	// Role is the Postgres role (the "role" claim).
	Role string
	// Sub is the "sub" claim, empty for API keys.
	Sub string
	// Raw is the claims JSON for request.jwt.claims.
	Raw json.RawMessage
	// ExpiresAt is the "exp" claim; zero never expires (sb_ API keys).
	ExpiresAt time.Time

	key string // Key, precomputed by Authorize
}

// Key identifies the claims for batching RLS checks: subscribers with equal
// keys see exactly the same rows.
func (c *Claims) Key() string {
	if c.key != "" {
		return c.key
	}
	return c.Role + "\x00" + string(c.Raw)
}

func (c *Claims) withKey() *Claims {
	c.key = c.Role + "\x00" + string(c.Raw)
	return c
}

// Error is an authorization failure; Message is Supabase's text.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// ErrMissingClaims is Supabase's message for tokens without role or exp.
var ErrMissingClaims = &Error{Message: "Fields `role` and `exp` are required in JWT"}

// Authenticator verifies tokens.
type Authenticator struct {
	verifier       *jwtverify.Verifier
	publishableKey string
	secretKey      string
	now            func() time.Time
}

// Options configures an Authenticator.
type Options struct {
	// JWTSecret verifies HS256 tokens.
	JWTSecret string
	// JWKS verifies tokens by kid (asymmetric keys, and "oct" keys).
	JWKS string
	// PublishableKey, when non-empty, is accepted as the anon role.
	PublishableKey string
	// SecretKey, when non-empty, is accepted as service_role.
	SecretKey string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// New builds an Authenticator.
func New(o Options) (*Authenticator, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	// Skew is checked here, not by the verifier, so the expiry message can
	// say how long ago the token expired.
	v, err := jwtverify.New(jwtverify.Options{Secret: o.JWTSecret, JWKS: []byte(o.JWKS), Now: o.Now, Skew: time.Nanosecond})
	if err != nil {
		return nil, fmt.Errorf("jwt verifier: %w", err)
	}
	return &Authenticator{verifier: v, publishableKey: o.PublishableKey, secretKey: o.SecretKey, now: o.Now}, nil
}

// IsAPIKey reports whether token is an sb_ API key (not a JWT).
func IsAPIKey(token string) bool { return strings.HasPrefix(token, "sb_") }

// Authorize verifies token and returns its claims. Errors are *Error with
// Supabase Realtime's messages.
func (a *Authenticator) Authorize(token string) (*Claims, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, &Error{Message: "The token provided is not a valid JWT"}
	}
	if IsAPIKey(token) {
		switch {
		case a.publishableKey != "" && token == a.publishableKey:
			return (&Claims{Role: "anon", Raw: json.RawMessage(`{"role":"anon"}`)}).withKey(), nil
		case a.secretKey != "" && token == a.secretKey:
			return (&Claims{Role: "service_role", Raw: json.RawMessage(`{"role":"service_role"}`)}).withKey(), nil
		}
		return nil, &Error{Message: "The token provided is not a valid JWT"}
	}
	c, err := a.verifier.Verify(token)
	if err != nil {
		if errors.Is(err, jwtverify.ErrExpired) {
			return nil, a.expired(token)
		}
		if strings.HasPrefix(err.Error(), "PGRST301: Expected 3 parts") || strings.Contains(err.Error(), "could not decode") {
			return nil, &Error{Message: "The token provided is not a valid JWT"}
		}
		if errors.Is(err, jwtverify.ErrSignature) || errors.Is(err, jwtverify.ErrNoKey) {
			return nil, &Error{Message: "Failed to validate JWT signature"}
		}
		return nil, &Error{Message: "Invalid JWT: " + err.Error()}
	}
	if c.Role == "" || c.ExpiresAt.IsZero() {
		return nil, ErrMissingClaims
	}
	return (&Claims{Role: c.Role, Sub: c.Subject, Raw: c.Raw, ExpiresAt: c.ExpiresAt}).withKey(), nil
}

// Expired returns the error for claims whose exp has passed, nil while
// they are valid.
func (a *Authenticator) Expired(c *Claims) error {
	if c.ExpiresAt.IsZero() {
		return nil
	}
	if d := a.now().Sub(c.ExpiresAt); d >= 0 {
		return &Error{Message: fmt.Sprintf("Token has expired %d seconds ago", int64(d/time.Second))}
	}
	return nil
}

// expired builds the expiry message from the (signature-checked by the
// verifier before it looked at exp) payload's exp.
func (a *Authenticator) expired(token string) error {
	parts := strings.Split(token, ".")
	var m struct {
		Exp json.Number `json:"exp"`
	}
	if raw, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil && json.Unmarshal(raw, &m) == nil {
		if f, err := m.Exp.Float64(); err == nil {
			return &Error{Message: fmt.Sprintf("Token has expired %d seconds ago", int64(a.now().Sub(time.Unix(int64(f), 0))/time.Second))}
		}
	}
	return &Error{Message: "Token has expired"}
}
