// Package sweeps runs the database's expiry sweeps (overdue P2P trades,
// lapsed offers and listings) on a timer for the local stack. Production runs
// the same function from its scheduler as service_role.
package sweeps

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Once runs public.run_expiry_sweeps() as service_role, the way any API
// caller would: through the authenticator login with the role and claims set
// for the transaction. It returns the function's counts as JSON.
func Once(ctx context.Context, authenticatorURL string) (string, error) {
	conn, err := pgx.Connect(ctx, authenticatorURL)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var counts string
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
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
