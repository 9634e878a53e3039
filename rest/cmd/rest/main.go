// Command rest serves the PostgREST-compatible table endpoints
// (/rest/v1/{table} behind the gateway). It is configured from the
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
	"github.com/kejanest/kejanest/rest/embedded"
	"github.com/kejanest/kejanest/rest/internal/httpapi"
)

const service = "rest"

func main() { os.Exit(run()) }

func run() int {
	lifecycle.DefaultGCPercent(lifecycle.ServerGCPercent)
	cfg, err := embedded.LoadConfig(envconf.New(), embedded.RestPort)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", service, err)
		return 1
	}
	log := logging.New(os.Stderr, service, cfg.SlogLevel())

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()

	svc, err := embedded.Start(ctx, cfg, log, "kejanest-"+service)
	if err != nil {
		log.Error("start", "error", err.Error())
		return 1
	}
	defer svc.Close()
	if ctx.Err() != nil {
		return 0
	}

	app := httpapi.New(httpapi.Deps{Log: log, Ready: svc.Ready, Pipeline: svc.Pipeline})
	if err := fiberserve.Serve(ctx, app, cfg.Addr(), log); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
