// Package api is authsvc's HTTP layer. Handlers return errors; one function,
// the app's error handler (errors.go), writes them in GoTrue's shapes.
// Handlers parse, call and respond; SQL lives in store, tokens in tokens.
package api

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/mailer"
	"github.com/kejanest/kejanest/authsvc/internal/oidc"
	"github.com/kejanest/kejanest/authsvc/internal/ratelimit"
	"github.com/kejanest/kejanest/authsvc/internal/sms"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
	"github.com/kejanest/kejanest/platform/fiberserve"
)

// Version is reported by GET /health.
const Version = "kejanest-dev"

// Deps is what the HTTP layer needs from main.
type Deps struct {
	Config config.Config
	// Log receives failures and, at debug, the access log.
	Log *slog.Logger
	// Server holds the HTTP limits; zero values take fiberserve's defaults.
	Server fiberserve.Config
	// Store is the database; nil serves only /health and /settings.
	Store *store.Store
	// Signer signs access tokens; nil builds one from the configuration.
	Signer *tokens.Signer
	// Mailer and SMS deliver codes. A nil Mailer logs only that a mail
	// was sent; a nil SMS logs the text, except in production.
	Mailer mailer.Sender
	SMS    sms.Sender
	// Google is the OIDC provider; nil when GOTRUE_EXTERNAL_GOOGLE is off.
	Google *oidc.Provider
	// RateLimits keeps the rate limits' buckets, shared by every replica
	// (auth.rate_limits); nil means Store. main gives it a pool of its own:
	// the email and SMS limits are checked inside transactions, and a check
	// that waited for a second connection of the same pool could wait
	// forever once every connection is held by such a transaction.
	RateLimits ratelimit.Store
	// Now is the clock; nil means time.Now, and the database's clock for
	// the rate limits.
	Now func() time.Time
}

// API holds the handlers' dependencies.
type API struct {
	cfg    config.Config
	log    *slog.Logger
	store  *store.Store
	signer *tokens.Signer
	tokens *tokens.Service
	mail   mailer.Sender
	sms    sms.Sender
	google *oidc.Provider
	now    func() time.Time
	limits limiters
	// pwned checks passwords against breach corpora (nil: off).
	pwned interface {
		Pwned(ctx context.Context, password string) (bool, error)
	}
}

// limiters are the per-IP and per-address rate limits. Their buckets live
// in the database, so every replica counts against the same budgets.
type limiters struct {
	token, verify, otp, mfa, anonymous *ratelimit.Limiter
	email, sms                         *ratelimit.Limiter
	// passwordSignIn counts failed password sign-ins per email or phone
	// and source address (GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN) and per
	// email or phone from all sources
	// (GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN_ACCOUNT): the per-IP limit alone
	// lets a guesser with many addresses try one password after another,
	// and a per-account limit on attempts lets anyone lock the owner out.
	// Addresses without an account count too, so the answer reveals
	// nothing about them.
	passwordSignIn *ratelimit.Failures
}

// New returns authsvc's app with every route registered.
func New(d Deps) *fiber.App {
	a := newAPI(d)
	app := fiberserve.New(d.Server, d.Log, a.writeError)
	a.routes(app)
	return app
}

func newAPI(d Deps) *API {
	a := &API{cfg: d.Config, log: d.Log, store: d.Store, signer: d.Signer, mail: d.Mailer, sms: d.SMS, google: d.Google, now: d.Now}
	if a.now == nil {
		a.now = time.Now
	}
	if a.signer == nil {
		s, err := tokens.New(d.Config.JWTSecret, d.Config.Auth.JWTKeys)
		if err != nil {
			s, _ = tokens.New(d.Config.JWTSecret, "")
			d.Log.Error("GOTRUE_JWT_KEYS ignored", "error", err.Error())
		}
		a.signer = s
	}
	if a.mail == nil {
		a.mail = &mailer.Log{Log: d.Log}
	}
	if d.Config.Auth.HIBPEnabled {
		a.pwned = &crypto.HIBP{BaseURL: d.Config.Auth.HIBPURL}
	}
	if a.sms == nil {
		a.sms = &sms.Log{Log: d.Log, Reveal: !d.Config.Production}
	}
	au := d.Config.Auth
	a.tokens = &tokens.Service{Store: d.Store, Signer: a.signer, Issuer: a.issuer(), Exp: d.Config.JWTExp,
		ReuseInterval: au.RefreshReuseInterval, Rotation: au.RefreshTokenRotation, Timebox: au.SessionTimebox, Now: a.now}
	a.limits = newLimiters(d, au.RateLimits)
	return a
}

// newLimiters builds the limits over d's store, each named after its
// GOTRUE_RATE_LIMIT_* setting (the namespace of its keys). The limiters
// read d.Now, not time.Now: without a test clock they use the database's,
// which every replica shares.
func newLimiters(d Deps, rl config.RateLimits) limiters {
	var st ratelimit.Store = d.RateLimits
	if st == nil && d.Store != nil {
		st = d.Store
	}
	now := d.Now
	return limiters{
		token:          ratelimit.New(st, "token_refresh", rl.TokenRefresh, now),
		verify:         ratelimit.New(st, "verify", rl.Verify, now),
		otp:            ratelimit.New(st, "otp", rl.OTP, now),
		mfa:            ratelimit.New(st, "mfa", rl.MFA, now),
		anonymous:      ratelimit.New(st, "anonymous_users", rl.AnonymousUsers, now),
		email:          ratelimit.New(st, "email_sent", rl.EmailSent, now),
		sms:            ratelimit.New(st, "sms_sent", rl.SMSSent, now),
		passwordSignIn: ratelimit.NewFailures(st, rl.PasswordSignIn, rl.PasswordSignInAccount, now),
	}
}

// issuer is the iss claim: the public auth URL.
func (a *API) issuer() string { return strings.TrimRight(a.cfg.ExternalURL, "/") + "/auth/v1" }

func (a *API) routes(app *fiber.App) {
	app.Use(apiVersionHeader)
	getHead := []string{fiber.MethodGet, fiber.MethodHead}
	app.Add(getHead, "/health", a.health)
	app.Add(getHead, "/settings", a.settings)
	app.Get("/.well-known/jwks.json", a.jwks)
	if a.store == nil {
		app.Use(notImplemented)
		return
	}
	app.Post("/signup", a.limit(a.limits.otp), a.signup)
	app.Post("/token", a.limit(a.limits.token), a.token)
	app.Post("/logout", a.logout)
	app.Get("/user", a.getUser)
	app.Put("/user", a.updateUser)
	app.Get("/reauthenticate", a.reauthenticate)
	app.Post("/recover", a.limit(a.limits.otp), a.recover)
	app.Post("/otp", a.limit(a.limits.otp), a.otp)
	app.Post("/magiclink", a.limit(a.limits.otp), a.otp)
	app.Post("/resend", a.limit(a.limits.otp), a.resend)
	app.Get("/verify", a.limit(a.limits.verify), a.verifyGet)
	app.Post("/verify", a.limit(a.limits.verify), a.verifyPost)

	app.Post("/factors", a.enrollFactor)
	app.Post("/factors/:id/challenge", a.limit(a.limits.mfa), a.challengeFactor)
	app.Post("/factors/:id/verify", a.limit(a.limits.mfa), a.verifyFactor)
	app.Delete("/factors/:id", a.unenrollFactor)

	app.Post("/passkeys/registration/options", a.limit(a.limits.token), a.passkeyRegistrationOptions)
	app.Post("/passkeys/registration/verify", a.limit(a.limits.token), a.passkeyRegistrationVerify)
	app.Post("/passkeys/authentication/options", a.limit(a.limits.token), a.passkeyAuthenticationOptions)
	app.Post("/passkeys/authentication/verify", a.limit(a.limits.token), a.passkeyAuthenticationVerify)
	app.Get("/passkeys", a.listPasskeys)
	app.Patch("/passkeys/:id", a.updatePasskey)
	app.Delete("/passkeys/:id", a.deletePasskey)

	app.Get("/user/identities/authorize", a.linkIdentityAuthorize)
	app.Delete("/user/identities/:id", a.unlinkIdentity)

	// SAML single sign-on is not offered: every /sso route answers as
	// GoTrue's do with GOTRUE_SAML_ENABLED off.
	app.All("/sso", samlDisabled)
	app.All("/sso/*", samlDisabled)

	app.Get("/authorize", a.authorize)
	app.Get("/callback", a.callback)
	app.Post("/callback", a.callback)

	app.Get("/admin/users", a.adminListUsers)
	app.Post("/admin/users", a.adminCreateUser)
	app.Get("/admin/users/:id", a.adminGetUser)
	app.Put("/admin/users/:id", a.adminUpdateUser)
	app.Delete("/admin/users/:id", a.adminDeleteUser)
	app.Get("/admin/users/:id/factors", a.adminListFactors)
	app.Delete("/admin/users/:id/factors/:factor_id", a.adminDeleteFactor)
	app.Get("/admin/users/:id/passkeys", a.adminListPasskeys)
	app.Delete("/admin/users/:id/passkeys/:passkey_id", a.adminDeletePasskey)
	app.Post("/admin/generate_link", a.adminGenerateLink)
	app.Post("/invite", a.adminInvite)
	app.All("/admin/sso/*", a.adminSAMLDisabled)
	app.Get("/admin/oauth/clients", a.adminListOAuthClients)
	app.Post("/admin/oauth/clients", a.adminCreateOAuthClient)
	app.Get("/admin/oauth/clients/:client_id", a.adminGetOAuthClient)
	app.Put("/admin/oauth/clients/:client_id", a.adminUpdateOAuthClient)
	app.Delete("/admin/oauth/clients/:client_id", a.adminDeleteOAuthClient)
	app.Post("/admin/oauth/clients/:client_id/regenerate_secret", a.adminRegenerateOAuthClientSecret)
	app.Use(notImplemented)
}

// apiVersionHeader echoes the dated API version a request asked for on
// every response, as GoTrue does (errors set it again in writeError).
func apiVersionHeader(c fiber.Ctx) error {
	if v, _ := apierr.ParseAPIVersion(c.Get(apierr.HeaderAPIVersion)); !v.IsZero() {
		c.Set(apierr.HeaderAPIVersion, v.Format("2006-01-02"))
	}
	return c.Next()
}

// limit answers 429 over_request_rate_limit when the caller's IP is over l.
func (a *API) limit(l *ratelimit.Limiter) fiber.Handler {
	return func(c fiber.Ctx) error {
		if err := allow(c.Context(), l, clientIP(c), errRateLimited()); err != nil {
			return err
		}
		return c.Next()
	}
}

// allow counts a request against key in l and returns over (GoTrue's 429)
// once key is over it. A limit that cannot be checked (the database is
// unreachable) refuses too, as an unexpected failure: every limited request
// needs that database anyway, and what the limits guard (guesses, mail,
// SMS) must not go unlimited.
func allow(ctx context.Context, l *ratelimit.Limiter, key string, over error) error {
	ok, err := l.Allow(ctx, key)
	if err != nil {
		return apierr.Internal(err)
	}
	if !ok {
		return over
	}
	return nil
}

// errRateLimited is GoTrue's answer to a caller over a request limit.
func errRateLimited() error {
	return apierr.TooManyRequests(apierr.CodeOverRequestRateLimit, "Request rate limit reached")
}

// clientIP is the caller's address: X-Real-IP as the gateway sets it (the
// peer, or a trusted front proxy's client; it overwrites any value the
// client sent), else the last X-Forwarded-For entry (the nearest proxy's
// view), else the peer.
func clientIP(c fiber.Ctx) string {
	if ip := strings.TrimSpace(c.Get("X-Real-Ip")); ip != "" {
		return ip
	}
	if xff := c.Get("X-Forwarded-For"); xff != "" {
		last := xff[strings.LastIndexByte(xff, ',')+1:]
		if ip := strings.TrimSpace(last); ip != "" {
			return ip
		}
	}
	return c.IP()
}

func (a *API) client(c fiber.Ctx) tokens.Client {
	return tokens.Client{UserAgent: strings.Clone(c.Get(fiber.HeaderUserAgent)), IP: strings.Clone(clientIP(c))}
}

// maxEchoedPathLen bounds the request path quoted back in error messages.
const maxEchoedPathLen = 256

func notImplemented(c fiber.Ctx) error {
	path := c.Path()
	if len(path) > maxEchoedPathLen {
		path = path[:maxEchoedPathLen] + "…"
	}
	return apierr.NotImplemented(c.Method() + " " + path)
}
