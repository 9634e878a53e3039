package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newStores returns n stores, each on its own pool, over one fresh
// database, connected as authsvc connects: n replicas.
func newStores(t testing.TB, n int) []*store.Store {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	out := make([]*store.Store, n)
	for i := range out {
		pool, err := pgxpool.New(context.Background(), db.URLAs("supabase_auth_admin"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		out[i] = store.New(pool)
	}
	return out
}

func rate(events float64, over time.Duration) config.Rate {
	return config.Rate{Events: events, OverTime: over}
}

// take is one or more identical checks in a Limiter scenario.
type take struct {
	wait    time.Duration // clock move before it (may be negative)
	key     string        // "" means "a"
	times   int           // repetitions; 0 means 1
	allowed bool          // every repetition's answer
}

// TestLimiter: the SQL token bucket, with the clock passed to the
// statement. Each case has its own limit name over one database.
func TestLimiter(t *testing.T) {
	t.Parallel()
	st := newStores(t, 1)[0]
	tests := []struct {
		name  string
		rate  config.Rate
		takes []take
	}{
		{
			name: "a burst of events, then refused; keys apart", rate: rate(3, time.Minute),
			takes: []take{{times: 3, allowed: true}, {allowed: false}, {key: "b", times: 3, allowed: true}, {key: "b", allowed: false}},
		},
		{
			name: "refills continuously", rate: rate(3, time.Minute),
			takes: []take{
				{times: 3, allowed: true},
				{wait: 19 * time.Second, allowed: false}, // 0.95 of a token
				{wait: time.Second, allowed: true},
				{allowed: false},
				{wait: 40 * time.Second, times: 2, allowed: true},
				{allowed: false},
			},
		},
		{
			name: "never more than the burst", rate: rate(3, time.Minute),
			takes: []take{{times: 1, allowed: true}, {wait: 10 * time.Hour, times: 3, allowed: true}, {allowed: false}},
		},
		{
			name: "refusals take nothing", rate: rate(2, time.Minute),
			takes: []take{{times: 2, allowed: true}, {wait: 15 * time.Second, times: 5, allowed: false}, {wait: 15 * time.Second, allowed: true}},
		},
		{
			name: "fractional events", rate: rate(1.5, 30*time.Second),
			takes: []take{{allowed: true}, {allowed: false}, {wait: 9 * time.Second, allowed: false}, {wait: time.Second, allowed: true}},
		},
		{
			name: "less than one event per window never allows", rate: rate(0.5, time.Minute),
			takes: []take{{allowed: false}, {wait: time.Hour, allowed: false}},
		},
		{
			// Replicas passing their own clocks may disagree: an earlier
			// time refills nothing and does not rewind the bucket.
			name: "a clock going backwards refills nothing", rate: rate(2, time.Minute),
			takes: []take{
				{times: 2, allowed: true},
				{wait: -30 * time.Second, allowed: false},
				{wait: 30 * time.Second, allowed: false},
				{wait: 30 * time.Second, allowed: true},
			},
		},
		{
			name: "the default per-source sign-in rate", rate: rate(30, 5*time.Minute),
			takes: []take{{times: 30, allowed: true}, {allowed: false}, {wait: 10 * time.Second, allowed: true}, {allowed: false}},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := time.Unix(1_000_000, 0)
			l := New(st, fmt.Sprint("test", i), tt.rate, func() time.Time { return now })
			for j, tk := range tt.takes {
				now = now.Add(tk.wait)
				key := tk.key
				if key == "" {
					key = "a"
				}
				for n := range max(tk.times, 1) {
					ok, err := l.Allow(context.Background(), key)
					if err != nil {
						t.Fatal(err)
					}
					if ok != tk.allowed {
						t.Fatalf("take %d (repetition %d): allowed = %v, want %v", j, n+1, ok, tk.allowed)
					}
				}
			}
		})
	}
}

// TestLimiterNames: two limits keep apart buckets for one key.
func TestLimiterNames(t *testing.T) {
	t.Parallel()
	st := newStores(t, 1)[0]
	ctx := context.Background()
	otp, verify := New(st, "otp", rate(1, time.Hour), nil), New(st, "verify", rate(1, time.Hour), nil)
	for _, step := range []struct {
		l    *Limiter
		want bool
	}{{otp, true}, {otp, false}, {verify, true}, {verify, false}} {
		if ok, err := step.l.Allow(ctx, "203.0.113.7"); err != nil || ok != step.want {
			t.Fatalf("%s: %v, %v; want %v", step.l.name, ok, err, step.want)
		}
	}
}

// TestLimiterOff: a rate that is off allows everything without a store.
func TestLimiterOff(t *testing.T) {
	t.Parallel()
	for _, r := range []config.Rate{{}, rate(0, time.Hour), rate(10, 0)} {
		l := New(nil, "off", r, nil)
		for range 100 {
			if ok, err := l.Allow(context.Background(), "x"); !ok || err != nil {
				t.Fatalf("rate %v: %v, %v", r, ok, err)
			}
		}
	}
}

// TestLimiterParallel: many goroutines on two replicas, on the database's
// clock, get exactly the budget.
func TestLimiterParallel(t *testing.T) {
	t.Parallel()
	replicas := newStores(t, 2)
	limiters := []*Limiter{New(replicas[0], "otp", rate(25, time.Hour), nil), New(replicas[1], "otp", rate(25, time.Hour), nil)}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
		errs    []error
	)
	for n := range 100 {
		wg.Go(func() {
			ok, err := limiters[n%2].Allow(context.Background(), "198.51.100.7")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				allowed++
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if allowed != 25 {
		t.Errorf("%d of 100 parallel events allowed, want 25", allowed)
	}
}

// TestUnreachableStore: without the database no check passes (fail closed):
// the caller gets an error and a refusal.
func TestUnreachableStore(t *testing.T) {
	t.Parallel()
	port, err := pgtest.FreePort() // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), fmt.Sprintf("postgres://supabase_auth_admin@127.0.0.1:%d/postgres?connect_timeout=5", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st := store.New(pool)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ok, err := New(st, "otp", rate(30, time.Hour), nil).Allow(ctx, "x"); ok || err == nil {
		t.Errorf("Allow = %v, %v; want false and an error", ok, err)
	}
	if _, ok, err := NewFailures(st, rate(30, time.Hour), rate(100, time.Hour), nil).Begin(ctx, "email:a@example.com", "x"); ok || err == nil {
		t.Errorf("Begin = %v, %v; want false and an error", ok, err)
	}
}
