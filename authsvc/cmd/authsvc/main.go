// Command authsvc serves the Supabase Auth (GoTrue)-compatible API
// (/auth/v1/* behind the gateway) and sends the contact-verification codes
// queued in app_private.verification_outbox (internal/outbox); it deletes
// expired rate-limit buckets from auth.rate_limits (internal/ratelimit). It
// is configured from the environment (see internal/config) and stops
// gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/kejanest/kejanest/authsvc/internal/api"
	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/authsvc/internal/mailer"
	"github.com/kejanest/kejanest/authsvc/internal/oidc"
	"github.com/kejanest/kejanest/authsvc/internal/outbox"
	"github.com/kejanest/kejanest/authsvc/internal/ratelimit"
	"github.com/kejanest/kejanest/authsvc/internal/sms"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgpool"
)

const service = "authsvc"

func main() { os.Exit(run()) }

func run() int {
	cfg, err := config.Load(envconf.New())
	if err == nil {
		err = cfg.Validate()
	}
	var signer *tokens.Signer
	if err == nil {
		signer, err = tokens.New(cfg.JWTSecret, cfg.Auth.JWTKeys)
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
	// The rate limits' buckets (auth.rate_limits, shared by every replica)
	// get a pool of their own: the email and SMS limits are checked inside
	// transactions of the main pool, and must never wait for it. A check
	// holds a connection for one short statement, so a few connections do.
	limitPool, err := pgpool.New(context.Background(), cfg.DatabaseURL, pgpool.Options{AppName: "kejanest-" + service + "-ratelimit", MaxConns: 4})
	if err != nil {
		log.Error("open rate limit pool", "error", err.Error())
		return 1
	}
	defer limitPool.Close()
	limits := store.New(limitPool)

	au := cfg.Auth
	var mail mailer.Sender = &mailer.Log{Log: log}
	if au.SMTP.Host != "" {
		mail = &mailer.SMTP{Host: au.SMTP.Host, Port: au.SMTP.Port, User: au.SMTP.User, Pass: au.SMTP.Pass,
			From: au.SMTP.AdminEmail, FromName: au.SMTP.SenderName}
	}
	text := smsSender(cfg, log)
	var google *oidc.Provider
	if au.Google.Enabled {
		redirect := au.Google.RedirectURI
		if redirect == "" {
			redirect = strings.TrimRight(cfg.ExternalURL, "/") + "/auth/v1/callback"
		}
		ids := au.Google.ClientIDs()
		google = oidc.New(oidc.Config{Issuer: au.Google.Issuer, ClientID: ids[0], Audiences: ids, ClientSecret: au.Google.Secret, RedirectURI: redirect})
	}

	st := store.New(pool)
	// The outbox relay and the rate limits' sweeper stop with the server
	// (and before the pools close), the relay finishing the send in flight.
	bgCtx, stopBackground := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopBackground(); wg.Wait() }()
	relay := &outbox.Relay{Store: st, Mail: mail, SMS: text, Log: log,
		PollInterval: au.VerificationOutbox.PollInterval, MaxAttempts: au.VerificationOutbox.MaxAttempts}
	wg.Go(func() { _ = relay.Run(bgCtx) })
	// Every replica sweeps expired buckets; whichever comes first deletes.
	sweeper := &ratelimit.Sweeper{Store: limits, Log: log}
	wg.Go(func() { _ = sweeper.Run(bgCtx) })

	app := api.New(api.Deps{Config: cfg, Log: log, Store: st, RateLimits: limits, Signer: signer, Mailer: mail, SMS: text, Google: google})
	if err := fiberserve.Serve(ctx, app, cfg.Addr(), log); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}

// smsSender is the configured SMS provider. The log provider writes codes
// to the log (the local stack's way to read them) except in production.
func smsSender(cfg config.Config, log *slog.Logger) sms.Sender {
	c := cfg.Auth.SMS
	switch c.Provider {
	case "twilio":
		return &sms.Twilio{AccountSID: c.TwilioAccountSID, AuthToken: c.TwilioAuthToken,
			MessageServiceSID: c.TwilioMessageServiceSID, BaseURL: c.APIURL}
	case "africastalking":
		return &sms.AfricasTalking{Username: c.ATUsername, APIKey: c.ATAPIKey, SenderID: c.ATSenderID, BaseURL: c.APIURL}
	}
	return &sms.Log{Log: log, Reveal: !cfg.Production}
}
