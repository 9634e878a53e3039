// Package gwtest mints the tokens the gateway's tests need: valid, expired,
// wrongly signed and unsigned JWTs. Only tests import it.
package gwtest

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/jwtverify"
)

// Token signs claims with secret (HS256), failing the test on error.
func Token(tb testing.TB, secret string, claims map[string]any) string {
	tb.Helper()
	tok, err := jwtverify.SignHS256(claims, []byte(secret))
	if err != nil {
		tb.Fatalf("sign token: %v", err)
	}
	return tok
}

// UserToken is a Supabase Auth-shaped access token valid for an hour.
func UserToken(tb testing.TB, secret, sub string) string {
	tb.Helper()
	now := time.Now()
	return Token(tb, secret, map[string]any{
		"sub": sub, "role": "authenticated", "aud": "authenticated",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	})
}

// Expired is a token of role that expired an hour ago.
func Expired(tb testing.TB, secret, role string) string {
	tb.Helper()
	past := time.Now().Add(-2 * time.Hour)
	return Token(tb, secret, map[string]any{"role": role, "iat": past.Unix(), "exp": past.Add(time.Hour).Unix()})
}

// AlgNone is an unsigned token ("alg":"none") claiming role.
func AlgNone(role string) string {
	enc := base64.RawURLEncoding
	h, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT"})
	p, _ := json.Marshal(map[string]any{"role": role, "exp": time.Now().Add(time.Hour).Unix()})
	return enc.EncodeToString(h) + "." + enc.EncodeToString(p) + "."
}
