package tokens

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"

	"github.com/kejanest/kejanest/platform/jwtverify"
)

const secret = "super-secret-jwt-token-with-at-least-32-characters-long"

func claims(now time.Time) Claims {
	return Claims{Issuer: "http://x/auth/v1", Subject: "u1", Audience: "authenticated", IssuedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix(),
		Email: "a@b.c", AppMetadata: map[string]any{"provider": "email"}, UserMetadata: map[string]any{}, Role: "authenticated",
		AAL: "aal1", AMR: []AMR{{Method: "password", Timestamp: now.Unix()}}, SessionID: "s1"}
}

func privateJWK(t *testing.T, raw any, kid string) string {
	t.Helper()
	k, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	_ = k.Set(jwk.KeyIDKey, kid)
	b, _ := json.Marshal(k)
	return "[" + string(b) + "]"
}

func TestSignVerify(t *testing.T) {
	t.Parallel()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Now()
	tests := []struct {
		name, keys, wantAlg, wantKid string
	}{
		{"hs256", "", "HS256", ""},
		{"rs256", privateJWK(t, rsaKey, "rsa-1"), "RS256", "rsa-1"},
		{"es256", privateJWK(t, ecKey, "ec-1"), "ES256", "ec-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := New(secret, tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := s.Sign(claims(now))
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.Verify(tok, now)
			if err != nil || m["sub"] != "u1" || m["is_anonymous"] != false || m["phone"] != "" {
				t.Fatalf("verify = %v, %v", m, err)
			}
			if _, err := s.Verify(tok, now.Add(2*time.Hour)); err == nil {
				t.Error("expired token verified")
			}
			if _, err := s.Verify(tok[:len(tok)-3]+"abc", now); err == nil {
				t.Error("tampered token verified")
			}
			jwks, _ := s.JWKS()
			// The consumers' verifier (rest, storage, realtime) accepts it.
			v, err := jwtverify.New(jwtverify.Options{Secret: secret, JWKS: jwks})
			if err != nil {
				t.Fatal(err)
			}
			c, err := v.Verify(tok)
			if err != nil || c.Role != "authenticated" {
				t.Fatalf("jwtverify = %v, %v", c, err)
			}
			hdr := strings.Split(tok, ".")[0]
			if !strings.Contains(decodeSeg(t, hdr), `"`+tt.wantAlg+`"`) || (tt.wantKid != "" && !strings.Contains(decodeSeg(t, hdr), tt.wantKid)) {
				t.Errorf("header %s", decodeSeg(t, hdr))
			}
			if tt.wantKid != "" && (strings.Contains(string(jwks), `"d"`) || !strings.Contains(string(jwks), tt.wantKid)) {
				t.Errorf("jwks %s", jwks)
			}
		})
	}
}

func TestClaimsExactKeys(t *testing.T) {
	t.Parallel()
	b, _ := json.Marshal(Claims{})
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	want := []string{"iss", "sub", "aud", "exp", "iat", "email", "phone", "app_metadata", "user_metadata", "role", "is_anonymous"}
	if len(m) != len(want) {
		t.Errorf("empty claims keys = %v", m)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %s", k)
		}
	}
}

func TestRejects(t *testing.T) {
	t.Parallel()
	s, _ := New(secret, "")
	other, _ := New("another-secret-that-is-long-enough-for-hs256", "")
	tok, _ := other.Sign(claims(time.Now()))
	for _, bad := range []string{"", "a.b", "a.b.c", tok, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."} {
		if _, err := s.Verify(bad, time.Now()); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if _, err := New(secret, "[{]"); err == nil {
		t.Error("bad keys accepted")
	}
}

func decodeSeg(t *testing.T, seg string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jwkJSON renders one JWK with the given kid and key_ops (none when nil).
func jwkJSON(t *testing.T, raw any, kid string, ops ...jwk.KeyOperation) string {
	t.Helper()
	k, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	_ = k.Set(jwk.KeyIDKey, kid)
	if ops != nil {
		_ = k.Set(jwk.KeyOpsKey, jwk.KeyOperationList(ops))
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// TestSigningKeyChoice follows GoTrue's conf.JwtKeysDecoder: the key whose
// key_ops include "sign" signs, exactly one may, and Supabase's JWT_KEYS
// shape (an ES256 signing key beside the legacy secret as an "oct" key)
// is accepted with the oct key left unpublished.
func TestSigningKeyChoice(t *testing.T) {
	t.Parallel()
	ec1, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	oct := `{"kty":"oct","k":"` + base64.RawURLEncoding.EncodeToString([]byte(secret)) + `","alg":"HS256"}`
	sign, verify := jwk.KeyOpSign, jwk.KeyOpVerify
	tests := []struct {
		name, keys, wantKid, wantErr string
		published                    int
	}{
		{"supabase JWT_KEYS shape", "[" + jwkJSON(t, ec1, "ec-sign", sign, verify) + "," + oct + "]", "ec-sign", "", 1},
		{"rotation: the marked key signs, the old one stays published",
			"[" + jwkJSON(t, rsaKey, "rsa-old", verify) + "," + jwkJSON(t, ec1, "ec-new", sign, verify) + "]", "ec-new", "", 2},
		{"no key_ops anywhere: the first private key signs",
			"[" + jwkJSON(t, ec2, "first") + "," + jwkJSON(t, ec1, "second") + "]", "first", "", 2},
		{"two signing keys", "[" + jwkJSON(t, ec1, "a", sign) + "," + jwkJSON(t, ec2, "b", sign) + "]", "", "multiple signing keys detected", 0},
		{"key_ops without a signing key", "[" + jwkJSON(t, ec1, "a", verify) + "]", "", "no signing key detected", 0},
		{"public key only", "[" + jwkJSON(t, ec1.Public(), "pub") + "]", "", "no signing key detected", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := New(secret, tt.keys)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tok, err := s.Sign(claims(time.Now()))
			if err != nil {
				t.Fatal(err)
			}
			if hdr := decodeSeg(t, strings.Split(tok, ".")[0]); !strings.Contains(hdr, `"kid":"`+tt.wantKid+`"`) {
				t.Errorf("header %s, want kid %s", hdr, tt.wantKid)
			}
			raw, _ := s.JWKS()
			var doc struct {
				Keys []map[string]any `json:"keys"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Keys) != tt.published {
				t.Fatalf("published %s", raw)
			}
			for _, k := range doc.Keys {
				if k["kty"] == "oct" || k["d"] != nil || k["use"] != "sig" || k["alg"] == nil {
					t.Errorf("published key %v", k)
				}
				if ops, _ := k["key_ops"].([]any); len(ops) != 1 || ops[0] != "verify" {
					t.Errorf("key_ops %v", k["key_ops"])
				}
			}
			// HS256 tokens signed with the secret still verify (admin keys).
			hs, _ := New(secret, "")
			htok, _ := hs.Sign(claims(time.Now()))
			if _, err := s.Verify(htok, time.Now()); err != nil {
				t.Errorf("HS256 token: %v", err)
			}
		})
	}
}
