// Package sweeps runs the database's expiry sweeps (overdue P2P trades,
// unreleased paid trades, lapsed offers and listings) on a timer: inside
// devstack for the local stack, and as the sweeper service (cmd/sweeper) in
// production, where any number of replicas sweep each tick once.
package sweeps

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultInterval is how often the sweeps run: a minute, well inside the
// shortest deadline they enforce (30 minutes to pay).
const DefaultInterval = time.Minute

// lockKey is the transaction-level advisory lock that makes one sweep run
// at a time across every process sweeping the same database.
const lockKey = "kejanest.expiry_sweeps"

// Skipped is what Once returns when another process's sweep holds the lock.
const Skipped = "skipped"

// Once runs public.run_expiry_sweeps() as service_role, the way any API
// caller would: through the authenticator login with the role and claims set
// for the transaction. It returns the function's counts as JSON, or Skipped
// when another sweeper (a replica) is sweeping right now: sweeps are
// idempotent, so the tick is simply left to that one.
func Once(ctx context.Context, authenticatorURL string) (string, error) {
	conn, err := pgx.Connect(ctx, authenticatorURL)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	counts := Skipped
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, `select pg_try_advisory_xact_lock(hashtextextended($1, 0))`, lockKey).Scan(&mine); err != nil {
			return err
		}
		if !mine {
			return nil
		}
		if _, err := tx.Exec(ctx, `select set_config('role', 'service_role', true),
			set_config('request.jwt.claims', '{"role":"service_role"}', true)`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "select public.run_expiry_sweeps()::text").Scan(&counts)
	})
	if err != nil {
		return "", fmt.Errorf("run expiry sweeps: %w", err)
	}
	return counts, nil
}

// Every runs Once at each interval until ctx ends, logging failures: a
// failed sweep is retried at the next tick, never fatal to the stack.
func Every(ctx context.Context, authenticatorURL string, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			counts, err := Once(ctx, authenticatorURL)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("expiry sweep failed", "err", err)
				}
				continue
			}
			log.Debug("expiry sweep", "counts", counts)
		}
	}
}
