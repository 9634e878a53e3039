// Command realtime serves the Supabase Realtime-compatible Phoenix websocket
// (/realtime/v1/websocket behind the gateway) and its REST endpoints. It is
// configured from the environment (see internal/config) and stops gracefully
// on SIGINT or SIGTERM, closing sockets with 1001.
package main

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgpool"
	"github.com/kejanest/kejanest/realtime/internal/config"
	"github.com/kejanest/kejanest/realtime/internal/wsapi"
)

const service = "realtime"

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

	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		log.Error("listen", "addr", cfg.Addr(), "error", err.Error())
		return 1
	}
	if err := wsapi.New(wsapi.Options{Log: log}).Serve(ctx, ln); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
