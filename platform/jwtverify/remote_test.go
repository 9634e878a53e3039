package jwtverify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// issuer publishes a JWKS that a test rotates, and counts the fetches.
type issuer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    map[string]jwk.Key // kid → private key
	publish []string           // kids in the published set
	extra   []map[string]any   // raw JWKs published as well
	down    bool
	fetches atomic.Int64
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{keys: map[string]jwk.Key{}}
	is.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		if is.down {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var keys []any
		for _, kid := range is.publish {
			pub, _ := is.keys[kid].PublicKey()
			keys = append(keys, pub)
		}
		for _, e := range is.extra {
			keys = append(keys, e)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys})
	}))
	t.Cleanup(is.Close)
	return is
}

// rotate publishes exactly kids, creating the keys it does not have yet.
func (is *issuer) rotate(t *testing.T, kids ...string) {
	t.Helper()
	is.mu.Lock()
	defer is.mu.Unlock()
	for _, kid := range kids {
		if _, ok := is.keys[kid]; ok {
			continue
		}
		raw, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := jwk.Import(raw)
		_ = k.Set(jwk.KeyIDKey, kid)
		_ = k.Set(jwk.AlgorithmKey, jwa.ES256())
		is.keys[kid] = k
	}
	is.publish = kids
}

func (is *issuer) setDown(down bool) { is.mu.Lock(); is.down = down; is.mu.Unlock() }

// token signs an ES256 token with the key kid (created if new, unpublished).
func (is *issuer) token(t *testing.T, kid string, exp time.Time) string {
	t.Helper()
	is.mu.Lock()
	k, ok := is.keys[kid]
	is.mu.Unlock()
	if !ok {
		raw, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		k, _ = jwk.Import(raw)
	}
	payload, _ := json.Marshal(map[string]any{"role": "authenticated", "sub": "u1", "exp": exp.Unix()})
	hdr := jws.NewHeaders()
	_ = hdr.Set(jws.KeyIDKey, kid)
	tok, err := jws.Sign(payload, jws.WithKey(jwa.ES256(), k, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time           { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration)      { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func (c *fakeClock) exp() time.Time           { return c.now().Add(time.Hour) }
func newFakeClock() *fakeClock                { return &fakeClock{t: time.Now()} }
func (is *issuer) count() int64               { return is.fetches.Load() }
func (is *issuer) jwksURL() []byte            { return []byte(is.URL + "/auth/v1/.well-known/jwks.json") }
func verifyErr(v *Verifier, tok string) error { _, err := v.Verify(tok); return err }

func TestRemoteJWKSRotation(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.rotate(t, "k1")
	clock := newFakeClock()
	v, err := New(Options{JWKS: is.jwksURL(), Now: clock.now, JWKSMaxAge: 10 * time.Minute, JWKSMinRefresh: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if is.count() != 0 {
		t.Fatal("fetched before the first verification")
	}
	steps := []struct {
		name      string
		before    func()
		kid       string
		wantErr   error
		wantCount int64
	}{
		{name: "first use fetches", kid: "k1", wantCount: 1},
		{name: "cached", kid: "k1", wantCount: 1},
		{name: "rotation: an unknown kid refetches", before: func() { is.rotate(t, "k1", "k2"); clock.add(time.Minute) }, kid: "k2", wantCount: 2},
		{name: "old key still published", kid: "k1", wantCount: 2},
		{name: "unknown kid within the minimum interval: no fetch", before: func() { clock.add(10 * time.Second) }, kid: "forged", wantErr: ErrNoKey, wantCount: 2},
		{name: "unknown kid again, still paced", kid: "forged-2", wantErr: ErrNoKey, wantCount: 2},
		{name: "unknown kid after the interval fetches once", before: func() { clock.add(30 * time.Second) }, kid: "forged-3", wantErr: ErrNoKey, wantCount: 3},
		{name: "retired key verifies until the cache ages", before: func() { is.rotate(t, "k2") }, kid: "k1", wantCount: 3},
		{name: "max age refetches; the retired key is refused", before: func() { clock.add(10 * time.Minute) }, kid: "k1", wantErr: ErrNoKey, wantCount: 4},
		{name: "issuer down: the held keys still verify", before: func() { is.setDown(true); clock.add(11 * time.Minute) }, kid: "k2", wantCount: 5},
		{name: "issuer down: paced retries", kid: "k2", wantCount: 5},
		{name: "issuer back", before: func() { is.setDown(false); is.rotate(t, "k3"); clock.add(31 * time.Second) }, kid: "k3", wantCount: 6},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		err := verifyErr(v, is.token(t, s.kid, clock.exp()))
		if !errors.Is(err, s.wantErr) && err != s.wantErr {
			t.Fatalf("%s: err %v, want %v", s.name, err, s.wantErr)
		}
		if got := is.count(); got != s.wantCount {
			t.Fatalf("%s: %d fetches, want %d", s.name, got, s.wantCount)
		}
	}
}

func TestRemoteJWKSConcurrentUnknownKid(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.rotate(t, "k1")
	clock := newFakeClock()
	v, err := New(Options{JWKS: is.jwksURL(), Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	forged := is.token(t, "nobody", clock.exp())
	good := is.token(t, "k1", clock.exp())
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := forged
			if i%2 == 0 {
				tok = good
			}
			_, _ = v.Verify(tok)
		}()
	}
	wg.Wait()
	if got := is.count(); got != 1 {
		t.Fatalf("%d fetches for one burst, want 1", got)
	}
	if err := verifyErr(v, good); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteJWKSIgnoresSymmetricKeys: a published "oct" key would let anyone
// who reads the URL mint HS256 tokens.
func TestRemoteJWKSIgnoresSymmetricKeys(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.rotate(t, "k1")
	secret := []byte("published-secret-that-must-not-count")
	is.extra = []map[string]any{{"kty": "oct", "kid": "hs", "k": base64.RawURLEncoding.EncodeToString(secret), "alg": "HS256"}}
	v, err := New(Options{JWKS: is.jwksURL()})
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyErr(v, is.token(t, "k1", time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	hs := signWith(t, jwa.HS256(), secret, "hs", map[string]any{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()})
	if err := verifyErr(v, hs); !errors.Is(err, ErrNoKey) {
		t.Fatalf("HS256 token with the published oct key: err %v, want ErrNoKey", err)
	}
	// The shared secret still verifies HS tokens beside a URL.
	withSecret, err := New(Options{Secret: string(secret) + "-real", JWKS: is.jwksURL()})
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyErr(withSecret, signWith(t, jwa.HS256(), []byte(string(secret)+"-real"), "", map[string]any{"role": "anon"})); err != nil {
		t.Fatal(err)
	}
}

func TestJWKSURLConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		url   bool
		ok    bool
	}{
		{"https://project.example/auth/v1/.well-known/jwks.json", true, true},
		{" http://127.0.0.1:9999/auth/v1/.well-known/jwks.json ", true, true},
		{"http://", true, false},
		{"https:///path", true, false},
		{`{"keys":[]}`, false, false}, // inline and empty: neither a key nor a secret
		{"ftp://example/jwks", false, false},
	}
	for _, tt := range tests {
		if got := IsJWKSURL(tt.value); got != tt.url {
			t.Errorf("IsJWKSURL(%q) = %v, want %v", tt.value, got, tt.url)
		}
		err := CheckConfig("JWT_SECRET", "", "JWT_JWKS", tt.value, 0)
		if (err == nil) != tt.ok {
			t.Errorf("CheckConfig(%q) = %v, want ok %v", tt.value, err, tt.ok)
		}
		_, err = New(Options{JWKS: []byte(tt.value)})
		if (err == nil) != tt.ok {
			t.Errorf("New(%q) = %v, want ok %v", tt.value, err, tt.ok)
		}
	}
}
