package oidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

type provider struct {
	*httptest.Server
	key    jwk.Key
	claims map[string]any
	issuer string // what discovery claims; defaults to the URL
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
		_ = json.NewEncoder(w).Encode(map[string]any{"email": "info@example.com"})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("client_secret") != "s" {
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
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
	u, err := rp.AuthCodeURL(context.Background(), "st", []string{"calendar", "email"}, url.Values{"prompt": {"consent"}, "client_id": {"evil"}})
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(u)
	q := pu.Query()
	if q.Get("client_id") != "c" || q.Get("scope") != "openid email profile calendar" || q.Get("prompt") != "consent" || q.Get("x") != "1" || q.Get("state") != "st" {
		t.Errorf("url %s", u)
	}
}

func TestExchange(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	now := time.Now()
	base := func() map[string]any {
		return map[string]any{"iss": p.URL, "aud": "c", "sub": "123", "exp": now.Add(time.Minute).Unix(), "email": "a@example.com"}
	}
	tests := []struct {
		name    string
		mutate  func(m map[string]any)
		secret  string
		wantErr string
	}{
		{"ok", func(map[string]any) {}, "s", ""},
		{"audience list", func(m map[string]any) { m["aud"] = []any{"other", "c"} }, "s", ""},
		{"wrong audience", func(m map[string]any) { m["aud"] = "other" }, "s", "audience"},
		{"wrong issuer", func(m map[string]any) { m["iss"] = "http://evil" }, "s", "issuer"},
		{"expired", func(m map[string]any) { m["exp"] = now.Add(-time.Minute).Unix() }, "s", "expired"},
		{"no sub", func(m map[string]any) { delete(m, "sub") }, "s", "sub"},
		{"userinfo fallback", func(m map[string]any) { delete(m, "email") }, "s", ""},
		{"bad client", func(map[string]any) {}, "wrong", "status 401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.mutate(c)
			p.claims = c
			rp := New(Config{Issuer: p.URL, ClientID: "c", ClientSecret: tt.secret, RedirectURI: "http://api/cb"})
			res, err := rp.Exchange(context.Background(), "code")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
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
	if _, err := rp.AuthCodeURL(context.Background(), "s", nil, nil); err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Fatalf("err = %v", err)
	}
}
