// Command rpc serves the PostgREST-compatible function calls
// (/rest/v1/rpc/{fn} behind the gateway). It is configured from the
// environment (see internal/config) and stops gracefully on SIGINT or
// SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgpool"
	"github.com/kejanest/kejanest/rest/pgrst"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rpc/internal/config"
	"github.com/kejanest/kejanest/rpc/internal/httpapi"
)

// firstLoadWait bounds how long start-up waits for the schema cache.
const firstLoadWait = 5 * time.Second

const service = "rpc"

func main() { os.Exit(run()) }

func run() int {
	cfg, err := config.Load(envconf.New())
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: invalid configuration:\n%v\n", service, err)
		return 1
	}
	log := logging.New(os.Stderr, service, cfg.SlogLevel())

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()

	// The pool connects lazily: the service starts while PostgreSQL is
	// still coming up, and /ready reports it.
	pool, err := pgpool.New(context.Background(), cfg.DBURI, pgpool.Options{AppName: "kejanest-" + service, MaxConns: int32(cfg.DBPool)})
	if err != nil {
		log.Error("open database pool", "error", err.Error())
		return 1
	}
	defer pool.Close()

	verifier, err := jwtverify.New(jwtverify.Options{Secret: cfg.JWTSecret, JWKS: []byte(cfg.JWKS), Audience: cfg.JWTAud})
	if err != nil {
		log.Error("configure JWT verification", "error", err.Error())
		return 1
	}
	cache := schemacache.NewHolder(pool, cfg.DBSchemas, log)
	cache.OnChange(pool.Reset)
	pipeline := pgrst.New(cfg.Pipeline(), pool, cache, verifier, log)
	// The in-database configuration is read when the listener connects
	// (before the first schema load) and on NOTIFY pgrst, 'reload config'.
	cache.OnConfigReload(pipeline.ReloadConfig)
	loaded := cache.Reloaded()
	go func() { _ = cache.Listen(ctx, pool.Config().ConnConfig, time.Second) }()
	// Give the first schema load a moment before listening, so the first
	// requests do not meet 503 PGRST002; a database still starting up only
	// delays that (and /ready reports it).
	select {
	case <-loaded:
	case <-time.After(firstLoadWait):
		log.Warn("schema cache not loaded yet; serving anyway", "waited", firstLoadWait.String())
	case <-ctx.Done():
		return 0
	}

	app := httpapi.New(httpapi.Deps{
		Log: log,
		Ready: func(ctx context.Context) error {
			if cache.Get() == nil {
				return errors.New("schema cache not loaded")
			}
			return pgpool.Ping(ctx, pool)
		},
		Pipeline: pipeline,
	})
	if err := fiberserve.Serve(ctx, app, cfg.Addr(), log); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
