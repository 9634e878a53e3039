// Command payments serves the Supabase Edge Functions-shaped endpoints
// (/functions/v1/* behind the gateway) for buying Nestcoins with M-Pesa:
// mpesa-stk-push and mpesa-callback, and runs the lost-callback sweep. It
// is configured from the environment (see internal/config) and stops
// gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/kejanest/kejanest/payments/internal/checkout"
	"github.com/kejanest/kejanest/payments/internal/config"
	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/httpapi"
	"github.com/kejanest/kejanest/payments/internal/store"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgpool"
)

const service = "payments"

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
	log := logging.New(os.Stderr, service, cfg.LogLevel)

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()

	// The pool connects lazily: the service starts while PostgreSQL is
	// still coming up, and /ready reports it.
	pool, err := pgpool.New(context.Background(), cfg.DatabaseURL, pgpool.Options{AppName: "kejanest-" + service, MaxConns: int32(cfg.DBPool)})
	if err != nil {
		log.Error("open database pool", "error", err.Error())
		return 1
	}
	defer pool.Close()

	verifier, err := jwtverify.New(jwtverify.Options{Secret: cfg.JWTSecret, JWKS: []byte(cfg.JWKS)})
	if err != nil {
		log.Error("configure JWT verification", "error", err.Error())
		return 1
	}
	dcfg := cfg.Daraja()
	dcfg.HTTP = &http.Client{Timeout: cfg.HTTPTimeout}
	client, err := daraja.New(dcfg)
	if err != nil {
		log.Error("configure Daraja", "error", err.Error())
		return 1
	}
	st := store.New(pool)
	svc := &checkout.Service{
		Store: st, Daraja: client, CallbackURL: cfg.CallbackURL(),
		AccountReference: cfg.AccountReference, Description: cfg.TransactionDesc, Log: log,
	}
	if cfg.SweepInterval > 0 {
		go svc.SweepEvery(ctx, cfg.SweepInterval, checkout.SweepConfig{QueryAfter: cfg.PendingQueryAfter, ExpireAfter: cfg.PendingExpireAfter})
	}
	app := httpapi.New(httpapi.Deps{
		Log: log, Checkout: svc, Verifier: verifier,
		Ready: func(ctx context.Context) error { return pgpool.Ping(ctx, pool) },
		// A push waits on Daraja: the request may take its whole timeout
		// plus the database work around it.
		Server: fiberserve.Config{RequestTimeout: cfg.HTTPTimeout + fiberserve.DefaultRequestTimeout},
	})
	log.Info("daraja", "environment", cfg.Environment, "api", cfg.APIBaseURL, "shortcode", cfg.ShortCode,
		"callback", cfg.CallbackURL(), "sweep_interval", cfg.SweepInterval.String())
	if err := fiberserve.Serve(ctx, app, cfg.Addr(), log); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
