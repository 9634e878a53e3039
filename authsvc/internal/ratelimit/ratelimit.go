// Package ratelimit holds authsvc's rate limits: token buckets of N events
// per duration for each key (IP, email, phone), GoTrue's conf/rate.go
// semantics, and the password sign-in guard that counts failures per
// account and source (Failures). The buckets live in a Store that every
// replica shares (PostgreSQL's auth.rate_limits, through package store), so
// N replicas together allow what one does.
package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// Store keeps the buckets. *store.Store implements it in PostgreSQL. Each
// check is atomic, so concurrent callers, on any replica, never take more
// than a bucket holds. A zero at means the store's own clock.
type Store interface {
	// TakeRateLimitToken takes one token from key's bucket of events per
	// window and reports whether one was left.
	TakeRateLimitToken(ctx context.Context, key string, events float64, window time.Duration, at time.Time) (bool, error)
	// BeginPasswordSignIn applies Failures' rules to one attempt and counts
	// it as a failure if allowed; charged: it took from the account's cap.
	BeginPasswordSignIn(ctx context.Context, c store.SignInCheck) (allowed, charged bool, err error)
	// PasswordSignInSucceeded forgets a pair's failures and, when refund,
	// gives the account's cap its token back.
	PasswordSignInSucceeded(ctx context.Context, pairKey, accountKey string, refund bool, accountEvents float64) error
	// SweepRateLimits deletes up to limit buckets expired at at.
	SweepRateLimits(ctx context.Context, at time.Time, limit int) (int64, error)
}

// Limiter allows Events per OverTime for each key, with bursts up to
// Events, counted in its Store for every replica. It is safe for concurrent
// use.
type Limiter struct {
	name  string
	rate  config.Rate
	store Store
	now   func() time.Time
}

// New returns the limit called name over st. The name is the namespace of
// the limit's keys in st, so each limit needs its own (authsvc uses the
// setting's, e.g. "otp" for GOTRUE_RATE_LIMIT_OTP). now nil means the
// store's clock (the database's, the same for every replica). A rate with
// Events <= 0 or OverTime <= 0 allows everything without asking st.
func New(st Store, name string, r config.Rate, now func() time.Time) *Limiter {
	return &Limiter{name: name, rate: r, store: st, now: now}
}

// Allow takes one event for key and reports whether it was allowed. An
// error means the store could not say (it is unreachable); callers refuse
// the request then, as authsvc does (see README: fail closed).
func (l *Limiter) Allow(ctx context.Context, key string) (bool, error) {
	if l == nil || !on(l.rate) {
		return true, nil
	}
	ok, err := l.store.TakeRateLimitToken(ctx, bucketKey(l.name, key), l.rate.Events, l.rate.OverTime, clockOf(l.now))
	if err != nil {
		return false, fmt.Errorf("rate limit %s: %w", l.name, err)
	}
	return ok, nil
}

// bucketKey is the store's key for subject under the limit name: the name,
// then a digest of the subject, so that keys have one length whatever a
// client sends and hold no address in clear.
func bucketKey(name, subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return name + ":" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// clockOf reads now, or is zero (the store's clock) when now is nil.
func clockOf(now func() time.Time) time.Time {
	if now == nil {
		return time.Time{}
	}
	return now()
}

func on(r config.Rate) bool { return r.Events > 0 && r.OverTime > 0 }
