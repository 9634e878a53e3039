package jwtverify

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// testKeys are one key of each asymmetric type, generated once per run.
type testKeys struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
	ed  ed25519.PrivateKey
	// jwks is the public set in the shape Supabase's JWT_JWKS has: each
	// asymmetric key with kid, alg, use and key_ops ["verify"], plus the
	// legacy secret as an "oct" key without a kid.
	jwks []byte
	// rsaPEM is the RSA public key as PEM, the bytes an attacker would use
	// as an HMAC secret in the algorithm-confusion attack.
	rsaPEM []byte
}

func newTestKeys(t *testing.T) testKeys {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	set := jwk.NewSet()
	add := func(pub any, kid string, alg jwa.SignatureAlgorithm) {
		k, err := jwk.Import(pub)
		if err != nil {
			t.Fatal(err)
		}
		_ = k.Set(jwk.KeyIDKey, kid)
		_ = k.Set(jwk.AlgorithmKey, alg)
		_ = k.Set(jwk.KeyUsageKey, "sig")
		_ = k.Set(jwk.KeyOpsKey, jwk.KeyOperationList{jwk.KeyOpVerify})
		if err := set.AddKey(k); err != nil {
			t.Fatal(err)
		}
	}
	add(rk.Public(), "rsa-1", jwa.RS256())
	add(ek.Public(), "ec-1", jwa.ES256())
	add(edk.Public(), "ed-1", jwa.EdDSA())
	body, _ := json.Marshal(set)
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	_ = json.Unmarshal(body, &doc)
	oct := `{"kty":"oct","k":"` + base64.RawURLEncoding.EncodeToString([]byte(cliSecret)) + `","alg":"HS256"}`
	doc.Keys = append(doc.Keys, json.RawMessage(oct))
	jwks, _ := json.Marshal(doc)
	der, _ := x509.MarshalPKIXPublicKey(rk.Public())
	return testKeys{rsa: rk, ec: ek, ed: edk, jwks: jwks, rsaPEM: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})}
}

func signWith(t *testing.T, alg jwa.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	payload, _ := json.Marshal(claims)
	hdr := jws.NewHeaders()
	_ = hdr.Set(jws.TypeKey, "JWT")
	if kid != "" {
		_ = hdr.Set(jws.KeyIDKey, kid)
	}
	out, err := jws.Sign(payload, jws.WithKey(alg, key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// forge builds a token with any header, signed HMAC-SHA256 with key: the
// shape of an algorithm-confusion attack, which jws.Sign would refuse to make.
func forge(t *testing.T, head map[string]any, claims map[string]any, key []byte) string {
	t.Helper()
	h, _ := json.Marshal(head)
	p, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(input))
	mac := m.Sum(nil)
	return input + "." + base64.RawURLEncoding.EncodeToString(mac)
}

func TestVerifyKeySet(t *testing.T) {
	t.Parallel()
	k := newTestKeys(t)
	now := func() time.Time { return fixedNow }
	exp := fixedNow.Add(time.Hour).Unix()
	user := map[string]any{"sub": "u1", "role": "authenticated", "exp": exp}
	expired := map[string]any{"sub": "u1", "role": "authenticated", "exp": fixedNow.Add(-time.Hour).Unix()}

	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherRSA, _ := rsa.GenerateKey(rand.Reader, 2048)

	secretAndJWKS, err := New(Options{Secret: cliSecret, JWKS: k.jwks, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	jwksOnly, err := New(Options{JWKS: k.jwks, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	secretOnly, err := New(Options{Secret: cliSecret, Now: now})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		v       *Verifier
		token   string
		wantErr error
	}{
		{"HS256 with the secret", secretAndJWKS, mustSign(t, user, cliSecret), nil},
		{"HS256 legacy anon key through the JWKS oct key", jwksOnly, cliAnonKey, nil},
		{"HS256 with a kid not in the set uses the secret", secretAndJWKS, signWith(t, jwa.HS256(), []byte(cliSecret), "legacy", user), nil},
		{"HS256 wrong secret", secretAndJWKS, mustSign(t, user, "another-secret-that-is-long-enough-too"), ErrSignature},
		{"RS256 by kid", secretAndJWKS, signWith(t, jwa.RS256(), k.rsa, "rsa-1", user), nil},
		{"ES256 by kid", secretAndJWKS, signWith(t, jwa.ES256(), k.ec, "ec-1", user), nil},
		{"EdDSA by kid", jwksOnly, signWith(t, jwa.EdDSA(), k.ed, "ed-1", user), nil},
		{"ES256 unknown kid", secretAndJWKS, signWith(t, jwa.ES256(), k.ec, "nope", user), ErrNoKey},
		{"ES256 without kid", secretAndJWKS, signWith(t, jwa.ES256(), k.ec, "", user), ErrNoKey},
		{"ES256 signed by another key under a known kid", secretAndJWKS, signWith(t, jwa.ES256(), other, "ec-1", user), ErrSignature},
		{"RS256 signed by another key under a known kid", secretAndJWKS, signWith(t, jwa.RS256(), otherRSA, "rsa-1", user), ErrSignature},
		{"RS256 token naming the EC key", secretAndJWKS, signWith(t, jwa.RS256(), k.rsa, "ec-1", user), ErrNoKey},
		{"RS512 token under an RS256 key", secretAndJWKS, signWith(t, jwa.RS512(), k.rsa, "rsa-1", user), ErrNoKey},
		{"alg confusion: HS256 keyed by the RSA public key, kid of the RSA key", secretAndJWKS,
			forge(t, map[string]any{"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}, user, k.rsaPEM), ErrNoKey},
		{"alg confusion: HS256 keyed by the RSA public key, no kid", secretAndJWKS,
			forge(t, map[string]any{"alg": "HS256", "typ": "JWT"}, user, k.rsaPEM), ErrSignature},
		{"alg confusion: HS256 keyed by the RSA public key, JWKS only", jwksOnly,
			forge(t, map[string]any{"alg": "HS256", "typ": "JWT"}, user, k.rsaPEM), ErrSignature},
		{"asymmetric token without a JWKS", secretOnly, signWith(t, jwa.ES256(), k.ec, "ec-1", user), ErrNoKey},
		{"RS256 expired", secretAndJWKS, signWith(t, jwa.RS256(), k.rsa, "rsa-1", expired), ErrExpired},
		{"ES256 expired", jwksOnly, signWith(t, jwa.ES256(), k.ec, "ec-1", expired), ErrExpired},
		{"alg none", secretAndJWKS, unsigned(user), ErrNoKey},
		{"alg none with a kid", secretAndJWKS, forgeNone(map[string]any{"alg": "none", "kid": "ec-1"}, user), ErrNoKey},
		{"alg NONE", secretAndJWKS, forgeNone(map[string]any{"alg": "NONE"}, user), ErrNoKey},
		{"unknown alg", secretAndJWKS, forgeNone(map[string]any{"alg": "XS256", "kid": "ec-1"}, user), ErrNoKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := tc.v.Verify(tc.token)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("got %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if c.Role == "" {
				t.Errorf("no role in %s", c.Raw)
			}
		})
	}
}

func forgeNone(head, claims map[string]any) string {
	h, _ := json.Marshal(head)
	p, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p) + "."
}

func TestParseJWKSForms(t *testing.T) {
	t.Parallel()
	k := newTestKeys(t)
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(k.jwks, &doc); err != nil {
		t.Fatal(err)
	}
	array, _ := json.Marshal(doc.Keys)
	tests := []struct {
		name  string
		in    string
		count int
		bad   bool
	}{
		{"key set", string(k.jwks), 4, false},
		{"bare array (API_JWT_JWKS, GOTRUE_JWT_KEYS)", string(array), 4, false},
		{"single JWK (PostgREST jwt-secret)", string(doc.Keys[0]), 1, false},
		{"empty", "  ", 0, false},
		{"malformed", "{not json", 0, true},
		{"not a key", `{"kty":"nope"}`, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, err := ParseJWKS([]byte(tc.in))
			if tc.bad {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if set.Len() != tc.count {
				t.Errorf("%d keys, want %d", set.Len(), tc.count)
			}
		})
	}
}

func TestVerifierDropsPrivateHalvesAndNonSigningKeys(t *testing.T) {
	t.Parallel()
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	priv, _ := jwk.Import(ek)
	_ = priv.Set(jwk.KeyIDKey, "sign-1")
	_ = priv.Set(jwk.AlgorithmKey, jwa.ES256())
	_ = priv.Set(jwk.KeyOpsKey, jwk.KeyOperationList{jwk.KeyOpSign, jwk.KeyOpVerify})
	enc, _ := jwk.Import(ek.Public())
	_ = enc.Set(jwk.KeyIDKey, "enc-1")
	_ = enc.Set(jwk.KeyUsageKey, "enc")
	set := jwk.NewSet()
	_ = set.AddKey(priv)
	_ = set.AddKey(enc)
	body, _ := json.Marshal(set)
	v, err := New(Options{JWKS: body, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{"role": "anon"}
	if _, err := v.Verify(signWith(t, jwa.ES256(), ek, "sign-1", claims)); err != nil {
		t.Errorf("GoTrue-style private JWK (key_ops sign, verify): %v", err)
	}
	if _, err := v.Verify(signWith(t, jwa.ES256(), ek, "enc-1", claims)); !errors.Is(err, ErrNoKey) {
		t.Errorf("use=enc key: got %v, want ErrNoKey", err)
	}
	for _, key := range v.keys {
		if _, ok := key.raw.(*ecdsa.PrivateKey); ok {
			t.Error("verifier kept a private key")
		}
	}
}

func TestCheckConfig(t *testing.T) {
	t.Parallel()
	k := newTestKeys(t)
	tests := []struct {
		name, secret, jwks string
		wantErr            string
	}{
		{"secret only", cliSecret, "", ""},
		{"jwks only", "", string(k.jwks), ""},
		{"both", cliSecret, string(k.jwks), ""},
		{"neither", "", "", "one is required"},
		{"short secret", "short", "", "at least 32"},
		{"bad jwks", cliSecret, "[{]", "JWT_JWKS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckConfig("JWT_SECRET", tc.secret, "JWT_JWKS", tc.jwks, 32)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want %q", err, tc.wantErr)
			}
		})
	}
	if !IsJWKS(` {"keys":[]}`) || !IsJWKS("[]") || IsJWKS(cliSecret) {
		t.Error("IsJWKS")
	}
}
