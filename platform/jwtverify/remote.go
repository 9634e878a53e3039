package jwtverify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults for a JWKS fetched from a URL.
const (
	// DefaultJWKSMaxAge is how long fetched keys are used before they are
	// fetched again (on the next verification after it passes).
	DefaultJWKSMaxAge = 10 * time.Minute
	// DefaultJWKSMinRefresh is the least time between two fetches, however
	// many tokens name an unknown kid: a stream of forged kids must not turn
	// into a stream of requests to the issuer.
	DefaultJWKSMinRefresh = 30 * time.Second
	// jwksFetchTimeout bounds one fetch; a verification waits at most this.
	jwksFetchTimeout = 5 * time.Second
	// jwksMaxBytes bounds a JWKS document.
	jwksMaxBytes = 1 << 20
)

// IsJWKSURL reports whether a JWKS setting (JWT_JWKS and the services'
// equivalents) names a URL to fetch the key set from, such as authsvc's own
// <API_EXTERNAL_URL>/auth/v1/.well-known/jwks.json or an external issuer's,
// rather than holding the keys inline.
func IsJWKSURL(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://")
}

// remoteKeys is a JWKS fetched from a URL and cached: refetched when older
// than maxAge, and on a kid it does not hold, but never twice within
// minRefresh. A failed fetch keeps the keys it had.
type remoteKeys struct {
	url        string
	client     *http.Client
	maxAge     time.Duration
	minRefresh time.Duration
	now        func() time.Time

	// mu is held across a fetch, so concurrent verifications that need one
	// wait for it instead of fetching too.
	mu          sync.Mutex
	keys        []verifyKey
	fetchedAt   time.Time // of the keys held; zero before the first success
	attemptedAt time.Time // of the last fetch, successful or not
}

func newRemoteKeys(rawURL string, o Options, now func() time.Time) (*remoteKeys, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("jwtverify: JWKS URL %q: want an absolute http(s) URL", rawURL)
	}
	r := &remoteKeys{url: u.String(), client: o.HTTPClient, maxAge: o.JWKSMaxAge, minRefresh: o.JWKSMinRefresh, now: now}
	if r.client == nil {
		r.client = &http.Client{Timeout: jwksFetchTimeout}
	}
	if r.maxAge <= 0 {
		r.maxAge = DefaultJWKSMaxAge
	}
	if r.minRefresh <= 0 {
		r.minRefresh = DefaultJWKSMinRefresh
	}
	return r, nil
}

// get returns the cached keys, fetched first when none are held or they are
// older than maxAge, or when want is true (a token named a kid the keys
// lack), as far as minRefresh allows.
func (r *remoteKeys) get(want func([]verifyKey) bool) []verifyKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	stale := r.fetchedAt.IsZero() || now.Sub(r.fetchedAt) >= r.maxAge
	missing := want != nil && !want(r.keys)
	if (stale || missing) && (r.attemptedAt.IsZero() || now.Sub(r.attemptedAt) >= r.minRefresh) {
		r.attemptedAt = now
		if keys, err := r.fetch(); err == nil {
			r.keys, r.fetchedAt = keys, now
		}
		// A failure keeps the keys held: an issuer that is briefly down
		// must not lock everyone out, and minRefresh paces the retries.
	}
	return r.keys
}

func (r *remoteKeys) fetch() ([]verifyKey, error) {
	ctx, cancel := context.WithTimeout(context.Background(), jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch JWKS %s: status %d", r.url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	if len(body) > jwksMaxBytes {
		return nil, errors.New("fetch JWKS: document too large")
	}
	set, err := ParseJWKS(body)
	if err != nil {
		return nil, err
	}
	keys, err := usableKeys(set)
	if err != nil {
		return nil, err
	}
	// A published key set holds public keys only. A symmetric key in it
	// would let anyone who reads the URL sign tokens: it is never used.
	out := keys[:0]
	for _, k := range keys {
		if k.kty != "oct" {
			out = append(out, k)
		}
	}
	return out, nil
}
