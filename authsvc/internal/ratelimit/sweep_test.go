package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestSweeper: a bucket is deleted once it is the same as no bucket (full
// again, its failures old), not before.
func TestSweeper(t *testing.T) {
	t.Parallel()
	st := newStores(t, 1)[0]
	ctx := context.Background()
	t0 := time.Unix(1_000_000, 0)
	now := t0
	clock := func() time.Time { return now }

	l := New(st, "otp", rate(3, time.Minute), clock)
	for range 3 {
		if ok, err := l.Allow(ctx, "a"); !ok || err != nil {
			t.Fatalf("Allow: %v, %v", ok, err)
		}
	}
	// 50 sources fail once each: 50 pairs, and the account's cap of 10 in
	// a debt of one cap (full again two hours on).
	f := NewFailures(st, rate(5, 5*time.Minute), rate(10, time.Hour), clock)
	for i := range 50 {
		if _, ok, err := f.Begin(ctx, "victim", fmt.Sprint("source-", i)); !ok || err != nil {
			t.Fatalf("Begin %d: %v, %v", i, ok, err)
		}
	}

	s := &Sweeper{Store: st, Batch: 7, Now: clock}
	for _, step := range []struct {
		at      time.Duration
		deleted int64
	}{
		{59 * time.Second, 0},          // the limiter's bucket is still refilling
		{61 * time.Second, 1},          // now it is full
		{time.Hour - time.Second, 0},   // the failures are recent
		{time.Hour + time.Second, 50},  // the pairs (in batches of 7)
		{2*time.Hour - time.Second, 0}, // the cap is still in debt
		{2*time.Hour + time.Second, 1}, // the cap is full again
		{3 * time.Hour, 0},             // nothing left
	} {
		now = t0.Add(step.at)
		n, err := s.Sweep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n != step.deleted {
			t.Fatalf("at +%s: %d deleted, want %d", step.at, n, step.deleted)
		}
	}
	// A deleted bucket is a full one.
	if ok, err := l.Allow(ctx, "a"); !ok || err != nil {
		t.Fatalf("Allow after the sweep: %v, %v", ok, err)
	}
}
