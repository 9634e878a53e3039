// Command gateway is KejaNest's single public entry point: it routes the
// Supabase-compatible API paths to their services, checks API keys, answers
// CORS, rate-limits, logs, exports metrics and serves the built frontend.
// Configuration is documented on config.Config.
package main

import (
	"context"
	"errors"
	"os"

	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/server"
	"github.com/kejanest/kejanest/gateway/internal/spa"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
)

func main() { os.Exit(run()) }

func run() int {
	cfg, loadErr := config.Load(envconf.New())
	log := logging.New(os.Stderr, "gateway", cfg.LogLevel)
	if err := errors.Join(loadErr, cfg.Validate()); err != nil {
		log.Error("invalid configuration", "error", err.Error())
		return 1
	}
	srv, err := server.New(cfg, log, server.Options{})
	if err != nil {
		log.Error("start failed", "error", err.Error())
		return 1
	}

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	lns, err := server.Listen(ctx, cfg.Listen, log)
	if err != nil {
		log.Error("start failed", "error", err.Error())
		return 1
	}
	addrs := make([]string, len(lns))
	for i, ln := range lns {
		addrs[i] = ln.Addr().String()
	}
	if !spa.IndexExists(cfg.FrontendDir) {
		log.Warn("frontend not built; / answers 503 until it is (make run builds it)", "frontend_dir", cfg.FrontendDir)
	}
	log.Info("listening", "addrs", addrs, "require_apikey", cfg.RequireAPIKey,
		"rate_limit", cfg.Rate.String(), "body_limit", cfg.BodyLimit, "production", cfg.Production)

	if err := srv.Serve(ctx, lns); err != nil {
		log.Error("stopped with error", "error", err.Error())
		return 1
	}
	log.Info("stopped")
	return 0
}
