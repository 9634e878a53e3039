package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/platform/pgtest"
)

// The cost of one check against the real database, on the database's clock
// as in production: one round trip to a prepared statement (pgx prepares it
// on a connection's first use and reuses it). BenchmarkRoundTrip is the
// floor: select 1 on the same pool. Run:
// go test -run '^$' -bench . -benchmem ./internal/ratelimit
func benchPool(b *testing.B) *pgxpool.Pool {
	db := pgtest.New(b, pgtest.Options{})
	pool, err := pgxpool.New(context.Background(), db.URLAs("supabase_auth_admin"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

func BenchmarkRoundTrip(b *testing.B) {
	pool := benchPool(b)
	ctx := context.Background()
	var one int
	for b.Loop() {
		if err := pool.QueryRow(ctx, "select 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLimiterAllow: one IP's bucket taken from over and over (every
// check allowed, so every check writes), as a per-IP limit is on each
// request.
func BenchmarkLimiterAllow(b *testing.B) {
	l := New(store.New(benchPool(b)), "token_refresh", rate(1e9, time.Second), nil)
	ctx := context.Background()
	for b.Loop() {
		if ok, err := l.Allow(ctx, "198.51.100.7"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkLimiterAllowParallel: many clients, one key each.
func BenchmarkLimiterAllowParallel(b *testing.B) {
	l := New(store.New(benchPool(b)), "token_refresh", rate(1e9, time.Second), nil)
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprint("198.51.100.", next.Add(1))
		for pb.Next() {
			if ok, err := l.Allow(context.Background(), key); !ok || err != nil {
				b.Error(ok, err)
				return
			}
		}
	})
}

// BenchmarkFailuresBegin: one password attempt checked and counted (both
// budgets on, two rows locked and written by the SQL function).
func BenchmarkFailuresBegin(b *testing.B) {
	f := NewFailures(store.New(benchPool(b)), rate(1e9, time.Second), rate(1e9, time.Second), nil)
	ctx := context.Background()
	for b.Loop() {
		if _, ok, err := f.Begin(ctx, "email:victim@example.com", "198.51.100.7"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
