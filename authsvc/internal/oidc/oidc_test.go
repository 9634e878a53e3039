package oidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/kejanest/kejanest/authsvc/internal/crypto"
)

type provider struct {
	*httptest.Server
	key    jwk.Key
	claims map[string]any
	issuer string // what discovery claims; defaults to the URL
	// challenge is the S256 code_challenge the code was issued for: the
	// token endpoint refuses any other verifier, as a real provider does.
	challenge string
	// userinfo is what the userinfo endpoint answers.
	userinfo map[string]any
}

func newProvider(t *testing.T) *provider {
	raw, _ := rsa.GenerateKey(rand.Reader, 2048)
	key, _ := jwk.Import(raw)
	_ = key.Set(jwk.KeyIDKey, "k1")
	pub, _ := key.PublicKey()
	p := &provider{key: key}
	mux := http.NewServeMux()
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		iss := p.issuer
		if iss == "" {
			iss = p.URL
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss, "authorization_endpoint": p.URL + "/auth?x=1",
			"token_endpoint": p.URL + "/token", "jwks_uri": p.URL + "/jwks", "userinfo_endpoint": p.URL + "/userinfo"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		set := jwk.NewSet()
		_ = set.AddKey(pub)
		_ = json.NewEncoder(w).Encode(set)
	})
	mux.HandleFunc("/userinfo", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(p.userinfo)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("client_secret") != "s" {
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		if crypto.S256Challenge(r.Form.Get("code_verifier")) != p.challenge {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		payload, _ := json.Marshal(p.claims)
		hdr := jws.NewHeaders()
		_ = hdr.Set(jws.KeyIDKey, "k1")
		tok, _ := jws.Sign(payload, jws.WithKey(jwa.RS256(), p.key, jws.WithProtectedHeaders(hdr)))
		_ = json.NewEncoder(w).Encode(map[string]string{"access_token": "at", "id_token": string(tok)})
	})
	return p
}

func TestAuthCodeURL(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	rp := New(Config{Issuer: p.URL, ClientID: "c", ClientSecret: "s", RedirectURI: "http://api/cb"})
	verifier := NewVerifier()
	// The caller's extra parameters cannot replace the binding.
	u, err := rp.AuthCodeURL(context.Background(), "st", verifier, []string{"calendar", "email"}, url.Values{"prompt": {"consent"}, "client_id": {"evil"},
		"nonce": {"evil"}, "code_challenge": {"evil"}, "code_challenge_method": {"plain"}})
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(u)
	q := pu.Query()
	if q.Get("client_id") != "c" || q.Get("scope") != "openid email profile calendar" || q.Get("prompt") != "consent" || q.Get("x") != "1" || q.Get("state") != "st" {
		t.Errorf("url %s", u)
	}
	sum := sha256.Sum256([]byte(verifier))
	if q.Get("code_challenge") != base64.RawURLEncoding.EncodeToString(sum[:]) || q.Get("code_challenge_method") != "S256" {
		t.Errorf("pkce %q %q, want the S256 challenge of the verifier", q.Get("code_challenge"), q.Get("code_challenge_method"))
	}
	if n := q.Get("nonce"); len(n) < 43 || n == q.Get("code_challenge") || strings.Contains(u, verifier) {
		t.Errorf("nonce %q: want 43+ characters, neither the challenge nor the verifier in the url %s", n, u)
	}
	if _, err := rp.AuthCodeURL(context.Background(), "st", "", nil, nil); err == nil {
		t.Error("an authorization url without a code verifier")
	}
}

func TestNewVerifier(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		v := NewVerifier()
		// RFC 7636 4.1: 43 to 128 characters of [A-Za-z0-9-._~].
		if len(v) < 43 || len(v) > 128 || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") != "" {
			t.Fatalf("verifier %q", v)
		}
		if seen[v] || seen[nonce(v)] {
			t.Fatalf("verifier or nonce repeated: %q", v)
		}
		seen[v], seen[nonce(v)] = true, true
	}
}

func TestExchange(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	now := time.Now()
	verifier := NewVerifier()
	other := NewVerifier()
	base := func() map[string]any {
		return map[string]any{"iss": p.URL, "aud": "c", "sub": "123", "exp": now.Add(time.Minute).Unix(), "email": "a@example.com", "nonce": nonce(verifier)}
	}
	tests := []struct {
		name     string
		mutate   func(m map[string]any)
		secret   string
		verifier string
		userinfo map[string]any
		wantErr  string
		// wantMismatch: the error is an ErrMismatch.
		wantMismatch bool
	}{
		{name: "ok", mutate: func(map[string]any) {}, secret: "s", verifier: verifier},
		{name: "audience list", mutate: func(m map[string]any) { m["aud"] = []any{"other", "c"} }, secret: "s", verifier: verifier},
		{name: "wrong audience", mutate: func(m map[string]any) { m["aud"] = "other" }, secret: "s", verifier: verifier, wantErr: "audience"},
		{name: "wrong issuer", mutate: func(m map[string]any) { m["iss"] = "http://evil" }, secret: "s", verifier: verifier, wantErr: "issuer"},
		{name: "expired", mutate: func(m map[string]any) { m["exp"] = now.Add(-time.Minute).Unix() }, secret: "s", verifier: verifier, wantErr: "expired"},
		{name: "no sub", mutate: func(m map[string]any) { delete(m, "sub") }, secret: "s", verifier: verifier, wantErr: "sub"},
		{name: "userinfo fallback", mutate: func(m map[string]any) { delete(m, "email") }, secret: "s", verifier: verifier,
			userinfo: map[string]any{"sub": "123", "email": "info@example.com"}},
		{name: "bad client", mutate: func(map[string]any) {}, secret: "wrong", verifier: verifier, wantErr: "status 401"},
		// The binding to the sign-in.
		{name: "nonce of another sign-in", mutate: func(m map[string]any) { m["nonce"] = nonce(other) }, secret: "s", verifier: verifier,
			wantErr: "nonce", wantMismatch: true},
		{name: "no nonce", mutate: func(m map[string]any) { delete(m, "nonce") }, secret: "s", verifier: verifier, wantErr: "nonce", wantMismatch: true},
		{name: "verifier of another sign-in", mutate: func(map[string]any) {}, secret: "s", verifier: other, wantErr: "invalid_grant"},
		{name: "no verifier", mutate: func(map[string]any) {}, secret: "s", wantErr: "no code verifier"},
		{name: "userinfo about someone else", mutate: func(m map[string]any) { delete(m, "email") }, secret: "s", verifier: verifier,
			userinfo: map[string]any{"sub": "456", "email": "info@example.com"}, wantErr: "userinfo sub", wantMismatch: true},
		{name: "userinfo without sub", mutate: func(m map[string]any) { delete(m, "email") }, secret: "s", verifier: verifier,
			userinfo: map[string]any{"email": "info@example.com"}, wantErr: "userinfo sub", wantMismatch: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.mutate(c)
			p.claims, p.challenge, p.userinfo = c, crypto.S256Challenge(verifier), tt.userinfo
			rp := New(Config{Issuer: p.URL, ClientID: "c", ClientSecret: tt.secret, RedirectURI: "http://api/cb"})
			res, err := rp.Exchange(context.Background(), "code", tt.verifier)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, ErrMismatch) != tt.wantMismatch {
					t.Fatalf("err = %v, want %q (ErrMismatch %v)", err, tt.wantErr, tt.wantMismatch)
				}
				return
			}
			if err != nil || res.Claims["sub"] != "123" || res.Claims["email"] == nil || res.AccessToken != "at" {
				t.Fatalf("= %+v, %v", res, err)
			}
		})
	}
}

func TestDiscoveryIssuerMismatch(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	p.issuer = "http://someone-else"
	rp := New(Config{Issuer: p.URL, ClientID: "c"})
	if _, err := rp.AuthCodeURL(context.Background(), "s", "v", nil, nil); err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Fatalf("err = %v", err)
	}
}

// sign makes an id_token with p's key, or with key when it is given (a key
// the provider does not publish).
func (p *provider) sign(t *testing.T, claims map[string]any, key jwk.Key) string {
	t.Helper()
	if key == nil {
		key = p.key
	}
	payload, _ := json.Marshal(claims)
	hdr := jws.NewHeaders()
	_ = hdr.Set(jws.KeyIDKey, "k1")
	tok, err := jws.Sign(payload, jws.WithKey(jwa.RS256(), key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

func TestVerifyIDToken(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	now := time.Now()
	rp := New(Config{Issuer: p.URL, ClientID: "web", Audiences: []string{"web", "android"}})
	atSum := sha256.Sum256([]byte("the-access-token"))
	atHash := base64.RawURLEncoding.EncodeToString(atSum[:16])
	strangerRaw, _ := rsa.GenerateKey(rand.Reader, 2048)
	stranger, _ := jwk.Import(strangerRaw)
	base := func() map[string]any {
		return map[string]any{"iss": p.URL, "aud": "android", "sub": "123", "exp": now.Add(time.Minute).Unix(), "nonce": "n"}
	}
	tests := []struct {
		name        string
		mutate      func(m map[string]any)
		key         jwk.Key
		accessToken string
		wantErr     error // nil: any error when bad is set
		bad         bool
	}{
		{name: "second audience of the list", mutate: func(map[string]any) {}},
		{name: "audience array", mutate: func(m map[string]any) { m["aud"] = []any{"other", "web"} }},
		{name: "other client", mutate: func(m map[string]any) { m["aud"] = "ios" }, bad: true, wantErr: ErrAudience},
		{name: "other issuer", mutate: func(m map[string]any) { m["iss"] = "https://evil.example" }, bad: true},
		{name: "expired", mutate: func(m map[string]any) { m["exp"] = now.Add(-time.Second).Unix() }, bad: true},
		{name: "no sub", mutate: func(m map[string]any) { delete(m, "sub") }, bad: true},
		{name: "unpublished key", mutate: func(map[string]any) {}, key: stranger, bad: true},
		{name: "at_hash matches", mutate: func(m map[string]any) { m["at_hash"] = atHash }, accessToken: "the-access-token"},
		{name: "at_hash of another token", mutate: func(m map[string]any) { m["at_hash"] = atHash }, accessToken: "another", bad: true},
		{name: "no at_hash, access token given", mutate: func(map[string]any) {}, accessToken: "the-access-token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := base()
			tt.mutate(m)
			claims, err := rp.VerifyIDToken(context.Background(), p.sign(t, m, tt.key), tt.accessToken)
			switch {
			case tt.bad && err == nil:
				t.Fatalf("accepted: %v", claims)
			case tt.bad && tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			case !tt.bad && err != nil:
				t.Fatal(err)
			case !tt.bad && claims["sub"] != "123":
				t.Fatalf("claims %v", claims)
			}
		})
	}
}

func TestVerifyIDTokenDefaultsToClientID(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	rp := New(Config{Issuer: p.URL, ClientID: "web"})
	claims := map[string]any{"iss": p.URL, "aud": "web", "sub": "1", "exp": time.Now().Add(time.Minute).Unix()}
	if _, err := rp.VerifyIDToken(context.Background(), p.sign(t, claims, nil), ""); err != nil {
		t.Fatal(err)
	}
	claims["aud"] = "android"
	if _, err := rp.VerifyIDToken(context.Background(), p.sign(t, claims, nil), ""); !errors.Is(err, ErrAudience) {
		t.Fatalf("err %v, want ErrAudience", err)
	}
}
