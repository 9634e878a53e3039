// Command sweeper runs the database's expiry sweeps on a timer in production
// (docker-compose's sweeper service): overdue P2P trades, unreleased paid
// trades, lapsed offers and listings. devstack runs the same sweeps itself.
// Replicas are safe: each tick sweeps once across all of them (sweeps.Once
// takes an advisory lock), so running two for availability is fine.
//
// Configuration:
//
//	DATABASE_URL    the authenticator login (required), as rest and rpc use
//	SWEEP_INTERVAL  time between sweeps (default 1m)
//	LOG_LEVEL       debug, info (default), warn or error
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kejanest/kejanest/devstack/internal/sweeps"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sweeper:", err)
		os.Exit(1)
	}
}

func run() error {
	env := envconf.New()
	url := env.String("", "DATABASE_URL")
	interval := env.Duration(sweeps.DefaultInterval, "SWEEP_INTERVAL")
	level := env.String("info", "LOG_LEVEL")
	if err := env.Err(); err != nil {
		return err
	}
	if url == "" {
		return errors.New("DATABASE_URL is required (the authenticator login)")
	}
	if interval <= 0 {
		return fmt.Errorf("SWEEP_INTERVAL must be positive, got %s", interval)
	}
	log := logging.New(os.Stderr, "sweeper", level)
	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	log.Info("sweeping", "interval", interval.String())
	sweeps.Every(ctx, url, interval, log)
	return nil
}
