package jwtverify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// The Supabase CLI's published local-development values. The test proves the
// keys really are signed by the secret, so a typo in either is caught.
const (
	cliSecret  = "super-secret-jwt-token-with-at-least-32-characters-long"
	cliAnonKey = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"
)

var fixedNow = time.Unix(1_800_000_000, 0)

func mustSign(t *testing.T, claims map[string]any, secret string) string {
	t.Helper()
	tok, err := SignHS256(claims, []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func unsigned(claims map[string]any) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	p, _ := json.Marshal(claims)
	return h + "." + base64.RawURLEncoding.EncodeToString(p) + "."
}

func TestVerifyHS256(t *testing.T) {
	t.Parallel()
	v, err := New(Options{Secret: cliSecret, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	exp := fixedNow.Add(time.Hour).Unix()
	tests := []struct {
		name     string
		token    string
		wantRole string
		wantErr  *Error
	}{
		{"cli anon key", cliAnonKey, "anon", nil},
		{"user token", mustSign(t, map[string]any{"sub": "u1", "role": "authenticated", "exp": exp}, cliSecret), "authenticated", nil},
		{"no role claim", mustSign(t, map[string]any{"sub": "u1", "exp": exp}, cliSecret), "", nil},
		{"expired", mustSign(t, map[string]any{"role": "anon", "exp": fixedNow.Add(-time.Minute).Unix()}, cliSecret), "", ErrExpired},
		{"expired within skew", mustSign(t, map[string]any{"role": "anon", "exp": fixedNow.Add(-10 * time.Second).Unix()}, cliSecret), "anon", nil},
		{"not yet valid", mustSign(t, map[string]any{"role": "anon", "nbf": fixedNow.Add(time.Hour).Unix()}, cliSecret), "", ErrNotYet},
		{"issued in future", mustSign(t, map[string]any{"role": "anon", "iat": fixedNow.Add(time.Hour).Unix()}, cliSecret), "", ErrIssuedLate},
		{"wrong secret", mustSign(t, map[string]any{"role": "service_role"}, "another-secret-that-is-long-enough-too"), "", ErrSignature},
		{"alg none", unsigned(map[string]any{"role": "service_role"}), "", ErrNoKey},
		{"two parts", "abc.def", "", partsError(2)},
		{"opaque key", "sb_publishable_abc", "", partsError(1)},
		{"garbage header", "!!!.e30.sig", "", &Error{Code: "PGRST301"}},
		{"role not a string", mustSign(t, map[string]any{"role": 5}, cliSecret), "", ErrClaims},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := v.Verify(tc.token)
			if tc.wantErr != nil {
				var e *Error
				if !errors.As(err, &e) || e.Code != tc.wantErr.Code || (tc.wantErr.Message != "" && e.Message != tc.wantErr.Message) {
					t.Fatalf("got %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if c.Role != tc.wantRole {
				t.Errorf("role %q, want %q", c.Role, tc.wantRole)
			}
		})
	}
}

func TestVerifyAudienceAndRawClaims(t *testing.T) {
	t.Parallel()
	v, _ := New(Options{Secret: cliSecret, Audience: "authenticated", Now: func() time.Time { return fixedNow }})
	good := mustSign(t, map[string]any{"aud": []string{"x", "authenticated"}, "sub": "abc", "role": "authenticated"}, cliSecret)
	c, err := v.Verify(good)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "abc" {
		t.Errorf("subject %q", c.Subject)
	}
	var back map[string]any
	if err := json.Unmarshal(c.Raw, &back); err != nil || back["sub"] != "abc" {
		t.Errorf("raw claims not the payload: %s", c.Raw)
	}
	bad := mustSign(t, map[string]any{"aud": "other", "role": "authenticated"}, cliSecret)
	if _, err := v.Verify(bad); !errors.Is(err, ErrAudience) {
		t.Errorf("want audience error, got %v", err)
	}
}

func TestVerifyES256FromJWKS(t *testing.T) {
	t.Parallel()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := jwk.Import(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	_ = pub.Set(jwk.KeyIDKey, "k1")
	set := jwk.NewSet()
	_ = set.AddKey(pub)
	jwks, _ := json.Marshal(set)

	v, err := New(Options{JWKS: jwks, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	sign := func(kid string) string {
		hdr := jws.NewHeaders()
		_ = hdr.Set(jws.KeyIDKey, kid)
		out, err := jws.Sign([]byte(`{"role":"authenticated","sub":"u2"}`), jws.WithKey(jwa.ES256(), priv, jws.WithProtectedHeaders(hdr)))
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if c, err := v.Verify(sign("k1")); err != nil || c.Subject != "u2" {
		t.Fatalf("ES256 with known kid: %v %+v", err, c)
	}
	if _, err := v.Verify(sign("unknown")); !errors.Is(err, ErrNoKey) {
		t.Errorf("unknown kid: got %v", err)
	}
	// With no shared secret configured, an HS256 token has no key.
	if _, err := v.Verify(cliAnonKey); !errors.Is(err, ErrNoKey) {
		t.Errorf("HS256 without secret: got %v", err)
	}
}

func TestNewNeedsAKey(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{}); err == nil {
		t.Error("want an error without secret and JWKS")
	}
	if _, err := New(Options{JWKS: []byte("{not json")}); err == nil {
		t.Error("want an error for a malformed JWKS")
	}
}

func FuzzVerify(f *testing.F) {
	for _, seed := range []string{cliAnonKey, "a.b.c", "..", "e30.e30.", unsigned(map[string]any{"role": "x"}), "eyJhbGciOiJIUzI1NiJ9.bnVsbA.x"} {
		f.Add(seed)
	}
	v, _ := New(Options{Secret: cliSecret})
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := v.Verify(tok)
		if err == nil && c == nil {
			t.Fatal("nil claims without error")
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *Error", err)
			}
		}
	})
}
