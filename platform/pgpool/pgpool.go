// Package pgpool opens the one connection pool a service keeps for its life.
package pgpool

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options tunes a pool; zero values keep pgx's defaults.
type Options struct {
	// AppName is reported as application_name, so pg_stat_activity shows
	// which service holds a connection.
	AppName string
	// MaxConns caps the pool (PGRST_DB_POOL and friends).
	MaxConns int32
	// AfterConnect, when set, is called once on every new connection
	// before the pool hands it out; an error discards the connection.
	AfterConnect func(context.Context, *pgx.Conn) error
}

// New parses url, applies opts and connects. It does not wait for the server:
// services start even while PostgreSQL is still coming up, and report it in
// their health check instead.
func New(ctx context.Context, url string, opts Options) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if opts.AppName != "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = opts.AppName
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	cfg.HealthCheckPeriod = 30 * time.Second
	cfg.AfterConnect = opts.AfterConnect
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	return pool, nil
}

// Ping checks the database within a short deadline, for health endpoints.
func Ping(ctx context.Context, pool *pgxpool.Pool) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}
