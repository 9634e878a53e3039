// Command darajasim is a Daraja (M-Pesa) sandbox simulator for development
// and tests: OAuth, STK push and STK query as Safaricom serves them, then
// the STK callback after a short delay, with the payer's answer chosen by
// phone number (README, "Payments (M-Pesa)"; GET /simulator/outcomes lists
// them, GET /simulator/transactions shows what it has seen).
//
// Configuration:
//
//	DARAJASIM_ADDR             listen address (default 127.0.0.1:8089)
//	MPESA_CONSUMER_KEY         accepted consumer key (default the development key)
//	MPESA_CONSUMER_SECRET      accepted consumer secret (default the development secret)
//	MPESA_SHORTCODE            accepted BusinessShortCode (default 174379)
//	MPESA_PASSKEY              passkey the Password is checked against (default Daraja's sandbox passkey)
//	DARAJASIM_CALLBACK_DELAY   how long the payer takes (default 3s)
//	LOG_LEVEL                  debug, info (default), warn or error
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/kejanest/kejanest/payments/internal/darajasim"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/listenfd"
	"github.com/kejanest/kejanest/platform/logging"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "darajasim:", err)
		os.Exit(1)
	}
}

func run() error {
	env := envconf.New()
	addr := env.String("127.0.0.1:8089", "DARAJASIM_ADDR")
	cfg := darajasim.Config{
		ConsumerKey:    env.String(darajasim.DevConsumerKey, "MPESA_CONSUMER_KEY"),
		ConsumerSecret: env.String(darajasim.DevConsumerSecret, "MPESA_CONSUMER_SECRET"),
		ShortCode:      env.String(darajasim.SandboxShortCode, "MPESA_SHORTCODE"),
		PassKey:        env.String(darajasim.SandboxPassKey, "MPESA_PASSKEY"),
		CallbackDelay:  env.Duration(darajasim.DefaultCallbackDelay, "DARAJASIM_CALLBACK_DELAY"),
	}
	level := env.String("info", "LOG_LEVEL")
	if err := env.Err(); err != nil {
		return err
	}
	log := logging.New(os.Stderr, "darajasim", level)
	cfg.Log = log
	sim := darajasim.New(cfg)
	defer sim.Close()

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	ln, err := listenfd.Listen(ctx, addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "shortcode", cfg.ShortCode, "callback_delay", cfg.CallbackDelay.String())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), lifecycle.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
