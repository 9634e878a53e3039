// Command storage serves the Supabase Storage-compatible API
// (/storage/v1/* behind the gateway). It is configured from the environment
// (see internal/config) and stops gracefully on SIGINT or SIGTERM.
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
	"github.com/kejanest/kejanest/storage/internal/config"
	"github.com/kejanest/kejanest/storage/internal/httpapi"
)

const service = "storage"

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
	// still coming up.
	pool, err := pgpool.New(context.Background(), cfg.DatabaseURL, pgpool.Options{AppName: "kejanest-" + service})
	if err != nil {
		log.Error("open database pool", "error", err.Error())
		return 1
	}
	defer pool.Close()

	app := httpapi.New(httpapi.Deps{Log: log, FileSizeLimit: cfg.FileSizeLimit})
	if err := fiberserve.Serve(ctx, app, cfg.Addr(), log); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
