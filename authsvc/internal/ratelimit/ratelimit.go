// Package ratelimit holds authsvc's per-key (IP, email, phone) limits:
// token buckets of N events per duration, GoTrue's conf/rate.go semantics,
// and the password sign-in guard that counts failures per account and
// source (Failures).
package ratelimit

import (
	"strings"
	"sync"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/config"
)

// Limiter allows Events per OverTime for each key, with bursts up to
// Events. It is safe for concurrent use.
type Limiter struct {
	rate  config.Rate
	now   func() time.Time
	mu    sync.Mutex
	bucks map[string]*bucket
	sweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// refill adds the tokens r has earned since the bucket was last touched, up
// to r.Events.
func (b *bucket) refill(r config.Rate, now time.Time) {
	b.tokens = min(b.tokens+now.Sub(b.last).Seconds()*perSecond(r), r.Events)
	b.last = now
}

// New returns a limiter; now nil means time.Now. A rate with Events <= 0
// allows everything.
func New(r config.Rate, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{rate: r, now: now, bucks: map[string]*bucket{}}
}

// Allow takes one event for key and reports whether it was allowed.
func (l *Limiter) Allow(key string) bool {
	if l == nil || l.rate.Events <= 0 || l.rate.OverTime <= 0 {
		return true
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.sweep) > l.rate.OverTime {
		for k, b := range l.bucks {
			if now.Sub(b.last) > l.rate.OverTime {
				delete(l.bucks, k)
			}
		}
		l.sweep = now
	}
	b, ok := l.bucks[key]
	if !ok {
		b = &bucket{tokens: l.rate.Events, last: now}
		// The key outlives the request; callers pass strings that may
		// point into a reused request buffer (Fiber's c.Get).
		l.bucks[strings.Clone(key)] = b
	}
	b.refill(l.rate, now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
