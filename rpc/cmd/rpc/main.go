// Command rpc serves the PostgREST-compatible function calls
// (/rest/v1/rpc/{fn} behind the gateway). It is configured from the
// environment (see internal/config) and stops gracefully on SIGINT or
// SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgpool"
	"github.com/kejanest/kejanest/rpc/internal/config"
	"github.com/kejanest/kejanest/rpc/internal/httpapi"
)

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

	app := httpapi.New(httpapi.Deps{
		Log:   log,
		Ready: func(ctx context.Context) error { return pgpool.Ping(ctx, pool) },
	})
	if err := fiberserve.Serve(ctx, app, cfg.Addr(), log); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
