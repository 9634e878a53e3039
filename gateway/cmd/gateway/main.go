// Command gateway is KejaNest's single public entry point: it routes the
// Supabase-compatible API paths to their services, checks API keys, answers
// CORS, rate-limits, logs, exports metrics and serves the built frontend.
// Configuration is documented on config.Config.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/kejanest/kejanest/gateway/internal/accesslog"
	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/server"
	"github.com/kejanest/kejanest/gateway/internal/spa"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/rest/embedded"
)

func main() { os.Exit(run()) }

func run() int {
	lifecycle.DefaultGCPercent(lifecycle.ServerGCPercent)
	cfg, loadErr := config.Load(envconf.New())
	// One access-log line per request: written in batches (at most every
	// logging.DefaultBatchDelay), not with a write call each.
	out := logging.NewBatch(os.Stderr, 0)
	defer out.Close()
	log := logging.New(out, "gateway", cfg.LogLevel)
	if err := errors.Join(loadErr, cfg.Validate()); err != nil {
		log.Error("invalid configuration", "error", err.Error())
		return 1
	}

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	inProcess, closeInProcess, err := startInProcess(ctx, cfg, out)
	if err != nil {
		log.Error("start failed", "error", err.Error())
		return 1
	}
	defer closeInProcess()

	access := accesslog.NewLogger(out, "gateway", logging.ParseLevel(cfg.LogLevel))
	srv, err := server.New(cfg, log, access, server.Options{InProcess: inProcess})
	if err != nil {
		log.Error("start failed", "error", err.Error())
		return 1
	}
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
		"rate_limit", cfg.Rate.String(), "body_limit", cfg.BodyLimit, "production", cfg.Production,
		"in_process", cfg.InProcess)

	if err := srv.Serve(ctx, lns); err != nil {
		log.Error("stopped with error", "error", err.Error())
		return 1
	}
	log.Info("stopped")
	return 0
}

// startInProcess starts rest's pipeline in this process when
// GATEWAY_INPROCESS names rest or rpc: one pipeline and one pool, from
// rest's own PGRST_* settings, answer both routes (the two services differ
// only in their port). It logs as the rest service would, under its name.
func startInProcess(ctx context.Context, cfg config.Config, logOut io.Writer) (map[string]http.Handler, func(), error) {
	if len(cfg.InProcess) == 0 {
		return nil, func() {}, nil
	}
	restCfg, err := embedded.LoadConfig(envconf.New(), embedded.RestPort)
	if err != nil {
		return nil, nil, fmt.Errorf("in-process rest: %w", err)
	}
	var log *slog.Logger = logging.New(logOut, "rest", restCfg.SlogLevel())
	svc, err := embedded.Start(ctx, restCfg, log, "kejanest-gateway")
	if err != nil {
		return nil, nil, fmt.Errorf("in-process rest: %w", err)
	}
	h := svc.Handler()
	out := map[string]http.Handler{}
	for _, s := range cfg.InProcess {
		out[s] = h
	}
	return out, svc.Close, nil
}
