// Package ratelimit holds per-client token buckets with bounded memory.
//
// The rate syntax is Supabase Auth's (supabase/auth internal/conf/rate.go):
// "N/duration" such as "600/1m" or "10/1h" means a burst of N requests
// refilled evenly over the duration; a bare number means that many requests
// per second.
package ratelimit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rate is a parsed limit. The zero Rate means "no limit".
type Rate struct {
	// Events is how many requests a client may make per Per.
	Events float64
	// Per is the window over which Events refill.
	Per time.Duration
}

// Enabled reports whether the rate limits anything.
func (r Rate) Enabled() bool { return r.Events > 0 && r.Per > 0 }

// String renders the rate in the syntax ParseRate reads.
func (r Rate) String() string {
	if !r.Enabled() {
		return "off"
	}
	return strconv.FormatFloat(r.Events, 'f', -1, 64) + "/" + r.Per.String()
}

// ParseRate reads "N/duration", a bare number per second, or "" / "0" for
// no limit.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rate{}, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return Rate{}, fmt.Errorf("rate %q: must be a non-negative number", s)
		}
		if f == 0 {
			return Rate{}, nil
		}
		return Rate{Events: f, Per: time.Second}, nil
	}
	events, window, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want N/duration (e.g. 600/1m) or a number per second", s)
	}
	// 52 bits, as Supabase Auth does, so the count fits a float64 exactly.
	n, err := strconv.ParseUint(strings.TrimSpace(events), 10, 52)
	if err != nil {
		return Rate{}, fmt.Errorf("rate %q: bad event count: %w", s, err)
	}
	d, err := time.ParseDuration(strings.TrimSpace(window))
	if err != nil {
		return Rate{}, fmt.Errorf("rate %q: bad duration: %w", s, err)
	}
	if d <= 0 {
		return Rate{}, fmt.Errorf("rate %q: duration must be positive", s)
	}
	if n == 0 {
		return Rate{}, nil
	}
	return Rate{Events: float64(n), Per: d}, nil
}

// DefaultMaxClients bounds how many buckets a Limiter keeps.
const DefaultMaxClients = 100_000

// sweepEvery is how often idle buckets are looked for; a bucket that has
// refilled completely is indistinguishable from a new one, so dropping it
// loses nothing.
const sweepEvery = time.Minute

type bucket struct {
	tokens float64
	last   time.Time
}

// Limiter is a set of token buckets keyed by client. It is safe for
// concurrent use.
type Limiter struct {
	burst      float64
	perSecond  float64
	fullAfter  time.Duration // time for an empty bucket to refill
	maxClients int
	now        func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

// Options tunes a Limiter; zero values take defaults.
type Options struct {
	// MaxClients bounds memory; when a sweep cannot bring the table under
	// it, arbitrary buckets are dropped (those clients start afresh).
	MaxClients int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// New returns a Limiter for r, or nil when r is not Enabled; a nil Limiter
// allows everything.
func New(r Rate, o Options) *Limiter {
	if !r.Enabled() {
		return nil
	}
	l := &Limiter{
		burst:      math.Max(1, r.Events),
		perSecond:  r.Events / r.Per.Seconds(),
		maxClients: o.MaxClients,
		now:        o.Now,
		buckets:    make(map[string]*bucket),
	}
	if l.maxClients <= 0 {
		l.maxClients = DefaultMaxClients
	}
	if l.now == nil {
		l.now = time.Now
	}
	l.fullAfter = time.Duration(l.burst / l.perSecond * float64(time.Second))
	l.lastSweep = l.now()
	return l
}

// Allow takes one token from key's bucket. When none is left it returns
// false and how long until one will be.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) >= sweepEvery || len(l.buckets) >= l.maxClients {
		l.sweep(now)
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	} else if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed.Seconds()*l.perSecond)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.perSecond * float64(time.Second))
	return false, wait
}

// Len reports how many buckets are held; tests use it to check eviction.
func (l *Limiter) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// sweep drops buckets idle long enough to be full again, then, if the table
// is still at its bound, arbitrary ones. Called with mu held.
func (l *Limiter) sweep(now time.Time) {
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.last) >= l.fullAfter {
			delete(l.buckets, k)
		}
	}
	// Under a flood of distinct addresses, memory wins over fairness: a
	// dropped client merely gets a fresh bucket. Shrinking to 90% rather
	// than just under the bound keeps the sweep from running on every call.
	low := l.maxClients - l.maxClients/10
	if low >= l.maxClients {
		low = l.maxClients - 1
	}
	for k := range l.buckets {
		if len(l.buckets) <= low {
			break
		}
		delete(l.buckets, k)
	}
}

// RetryAfterSeconds rounds a wait up to whole seconds (at least 1) for the
// Retry-After header.
func RetryAfterSeconds(wait time.Duration) int {
	s := int(math.Ceil(wait.Seconds()))
	if s < 1 {
		s = 1
	}
	return s
}
