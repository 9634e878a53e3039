package ratelimit

import (
	"context"
	"log/slog"
	"time"
)

// Defaults of the Sweeper's tunables.
const (
	DefaultSweepInterval = time.Minute
	DefaultSweepBatch    = 1000
)

// Sweeper deletes the buckets whose budgets have refilled and whose
// failures are old (the store's expires_at), which are the same as absent
// ones, so that the store holds only buckets in use: at most what was
// touched within the longest window (two, for an account's cap in debt),
// plus one Interval. Every replica runs one; whichever reaches a row first
// deletes it, and rows a check holds are skipped.
type Sweeper struct {
	// Store and Log are required.
	Store Store
	Log   *slog.Logger
	// Interval is the pause between sweeps (DefaultSweepInterval).
	Interval time.Duration
	// Batch is how many rows one statement deletes (DefaultSweepBatch);
	// a sweep repeats it until a batch comes back short.
	Batch int
	// Now is the clock; nil means the store's.
	Now func() time.Time
}

// Run sweeps every Interval until ctx ends, logging failures (the next
// sweep tries again), and returns ctx's error.
func (s *Sweeper) Run(ctx context.Context) error {
	every := s.Interval
	if every <= 0 {
		every = DefaultSweepInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if n, err := s.Sweep(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.Log.WarnContext(ctx, "rate limit sweep", "error", err.Error(), "deleted", n)
		} else if n > 0 {
			s.Log.DebugContext(ctx, "rate limit sweep", "deleted", n)
		}
	}
}

// Sweep deletes every bucket expired now, in batches, and returns how many
// it deleted.
func (s *Sweeper) Sweep(ctx context.Context) (int64, error) {
	batch := s.Batch
	if batch <= 0 {
		batch = DefaultSweepBatch
	}
	var total int64
	for {
		n, err := s.Store.SweepRateLimits(ctx, clockOf(s.Now), batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
	}
}
