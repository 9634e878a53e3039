package pgrst

import (
	"sync"
	"time"
)

// jwtCacheSize bounds the verified tokens kept; the cache is emptied when
// it fills (tokens are short-lived, so a simple reset is enough).
const jwtCacheSize = 4096

// jwtCache remembers verified tokens until their expiry, as PostgREST's
// JWT cache does: the gateway forwards the same anon or user token many
// times, and HMAC verification and claim decoding are the costliest part of
// a small read.
type jwtCache struct {
	mu sync.RWMutex
	m  map[string]cachedAuth
}

type cachedAuth struct {
	a   *auth
	exp time.Time // zero: no exp claim
}

func (c *jwtCache) get(token string, now time.Time) *auth {
	c.mu.RLock()
	e, ok := c.m[token]
	c.mu.RUnlock()
	if !ok || (!e.exp.IsZero() && !now.Before(e.exp)) {
		return nil
	}
	return e.a
}

func (c *jwtCache) put(token string, a *auth, exp time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= jwtCacheSize {
		c.m = make(map[string]cachedAuth, 64)
	}
	c.m[token] = cachedAuth{a: a, exp: exp}
}
