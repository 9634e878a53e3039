// Package config reads the payments service's settings from the
// environment once, in main, and checks them before anything listens.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/darajasim"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

// DefaultPort is the Supabase edge runtime's port.
const DefaultPort = 8081

// Daraja environments (MPESA_ENVIRONMENT).
const (
	Sandbox    = "sandbox"
	Production = "production"
)

// minJWTSecretLen is the shortest HMAC secret accepted.
const minJWTSecretLen = 32

// Daraja's field limits.
const (
	maxAccountReference = 12
	maxTransactionDesc  = 13
)

// Config is the payments service's whole configuration. The M-Pesa
// variables carry the names Daraja integrations commonly use. Without
// KEJANEST_ENV=production or MPESA_ENVIRONMENT=production every value has
// a development default that talks to the simulator (darajasim) with
// Daraja's public sandbox shortcode and passkey; in either production
// mode the credentials, shortcode, passkey and callback base URL must be
// set, and with MPESA_ENVIRONMENT=production they must not be the sandbox
// or simulator values and the URLs must be https.
//
//	variable                     default                                                          meaning
//	DATABASE_URL                 postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable  login that switches to the caller's role, as rest and rpc do
//	PAYMENTS_HOST                127.0.0.1                                                        listen host
//	PORT                         8081                                                             listen port
//	JWT_SECRET                   devkeys.JWTSecret (also read: SUPABASE_JWT_SECRET)                HS256 secret of user tokens
//	SUPABASE_JWKS                "" (also read: JWT_JWKS)                                          public JWKS (Supabase's JWT_JWKS): asymmetric keys by kid, "oct" keys for HS256
//	PAYMENTS_DB_POOL             10                                                               database connections
//	LOG_LEVEL                    info                                                             debug, info, warn or error
//	KEJANEST_ENV                 "" (development)                                                 production refuses dev secrets and missing M-Pesa values
//	MPESA_ENVIRONMENT            sandbox                                                          sandbox or production (Daraja's environments)
//	MPESA_API_BASE_URL           https://sandbox.safaricom.co.ke / https://api.safaricom.co.ke     Daraja's base URL (devstack: the simulator)
//	MPESA_CONSUMER_KEY           the simulator's development key                                  Daraja app consumer key
//	MPESA_CONSUMER_SECRET        the simulator's development secret                               Daraja app consumer secret
//	MPESA_SHORTCODE              174379 (Daraja's sandbox paybill)                                BusinessShortCode
//	MPESA_PASSKEY                Daraja's public sandbox passkey                                  Lipa Na M-Pesa Online passkey
//	MPESA_PARTY_B                MPESA_SHORTCODE                                                  PartyB (a till number for CustomerBuyGoodsOnline)
//	MPESA_TRANSACTION_TYPE       CustomerPayBillOnline                                            or CustomerBuyGoodsOnline
//	MPESA_CALLBACK_BASE_URL      http://127.0.0.1:54321                                           public origin of the gateway; callbacks go to <it>/functions/v1/mpesa-callback
//	MPESA_ACCOUNT_REFERENCE      KejaNest                                                         AccountReference on the prompt (at most 12 characters)
//	MPESA_TRANSACTION_DESC       Nestcoins                                                        TransactionDesc (at most 13 characters)
//	MPESA_HTTP_TIMEOUT           30s                                                              timeout of one Daraja call
//	MPESA_PENDING_QUERY_AFTER    2m                                                               a pending purchase this old is asked about with STK query
//	MPESA_PENDING_EXPIRE_AFTER   15m                                                              a pending purchase this old without any answer fails as expired
//	MPESA_SWEEP_INTERVAL         30s                                                              how often the lost-callback sweep runs; 0 turns it off
//
// Durations are Go durations (90s, 2m) or whole seconds.
type Config struct {
	DatabaseURL string
	Host        string
	Port        int
	JWTSecret   string
	// JWKS verifies user tokens by kid (SUPABASE_JWKS, JWT_JWKS).
	JWKS     string
	DBPool   int
	LogLevel string
	// Production is KEJANEST_ENV=production.
	Production bool

	// Environment is MPESA_ENVIRONMENT: Sandbox or Production.
	Environment string
	// APIBaseURL is Daraja's (or the simulator's) base URL.
	APIBaseURL                  string
	ConsumerKey, ConsumerSecret string
	ShortCode, PassKey, PartyB  string
	TransactionType             string
	CallbackBaseURL             string
	AccountReference            string
	TransactionDesc             string
	HTTPTimeout                 time.Duration
	PendingQueryAfter           time.Duration
	PendingExpireAfter          time.Duration
	SweepInterval               time.Duration
}

// strict reports whether the M-Pesa values need to be configured rather
// than defaulted.
func strict(prod bool, env string) bool { return prod || env == Production }

// Load reads the configuration through r. It returns the parse errors of
// malformed values alongside the best-effort Config; callers still run
// Validate.
func Load(r *envconf.Reader) (Config, error) {
	prod := devkeys.IsProduction(r.String("", devkeys.EnvVar))
	env := strings.ToLower(r.String(Sandbox, "MPESA_ENVIRONMENT"))
	dev := func(v string) string {
		if strict(prod, env) {
			return ""
		}
		return v
	}
	base := daraja.SandboxURL
	if env == Production {
		base = daraja.ProductionURL
	}
	c := Config{
		DatabaseURL: r.String("postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable", "DATABASE_URL"),
		Host:        r.String("127.0.0.1", "PAYMENTS_HOST"),
		Port:        r.Int(DefaultPort, "PORT"),
		JWTSecret:   r.String(devkeys.JWTSecret, "JWT_SECRET", "SUPABASE_JWT_SECRET"),
		JWKS:        r.String("", "SUPABASE_JWKS", "JWT_JWKS"),
		DBPool:      r.Int(10, "PAYMENTS_DB_POOL"),
		LogLevel:    strings.ToLower(r.String("info", "LOG_LEVEL")),
		Production:  prod,

		Environment:        env,
		APIBaseURL:         strings.TrimSuffix(r.String(base, "MPESA_API_BASE_URL"), "/"),
		ConsumerKey:        r.String(dev(darajasim.DevConsumerKey), "MPESA_CONSUMER_KEY"),
		ConsumerSecret:     r.String(dev(darajasim.DevConsumerSecret), "MPESA_CONSUMER_SECRET"),
		ShortCode:          r.String(dev(darajasim.SandboxShortCode), "MPESA_SHORTCODE"),
		PassKey:            r.String(dev(darajasim.SandboxPassKey), "MPESA_PASSKEY"),
		TransactionType:    r.String(daraja.PayBillOnline, "MPESA_TRANSACTION_TYPE"),
		CallbackBaseURL:    strings.TrimSuffix(r.String(dev("http://127.0.0.1:54321"), "MPESA_CALLBACK_BASE_URL"), "/"),
		AccountReference:   r.String("KejaNest", "MPESA_ACCOUNT_REFERENCE"),
		TransactionDesc:    r.String("Nestcoins", "MPESA_TRANSACTION_DESC"),
		HTTPTimeout:        r.Duration(30*time.Second, "MPESA_HTTP_TIMEOUT"),
		PendingQueryAfter:  r.Duration(2*time.Minute, "MPESA_PENDING_QUERY_AFTER"),
		PendingExpireAfter: r.Duration(15*time.Minute, "MPESA_PENDING_EXPIRE_AFTER"),
		SweepInterval:      r.Duration(30*time.Second, "MPESA_SWEEP_INTERVAL"),
	}
	c.PartyB = r.String(c.ShortCode, "MPESA_PARTY_B")
	return c, r.Err()
}

// Validate reports every problem that would stop the service from working,
// including development values in production.
func (c Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if _, err := pgconn.ParseConfig(c.DatabaseURL); err != nil {
		add("DATABASE_URL: %w", err)
	}
	if c.Host == "" {
		add("PAYMENTS_HOST: empty")
	}
	if c.Port < 1 || c.Port > 65535 {
		add("PORT: %d is not a port (1-65535)", c.Port)
	}
	if len(c.JWTSecret) < minJWTSecretLen {
		add("JWT_SECRET: must be at least %d characters", minJWTSecretLen)
	}
	if err := jwtverify.CheckConfig("JWT_SECRET", c.JWTSecret, "SUPABASE_JWKS", c.JWKS, 0); err != nil && strings.TrimSpace(c.JWKS) != "" {
		add("%w", err)
	}
	if c.DBPool < 2 {
		add("PAYMENTS_DB_POOL: %d, want at least 2 (the sweep holds one connection for its lock)", c.DBPool)
	}
	if _, ok := levels[c.LogLevel]; !ok {
		add("LOG_LEVEL: %q, want debug, info, warn or error", c.LogLevel)
	}
	switch c.Environment {
	case Sandbox, Production:
	default:
		add("MPESA_ENVIRONMENT: %q, want sandbox or production", c.Environment)
	}
	live := c.Environment == Production
	if err := checkURL(c.APIBaseURL, live); err != nil {
		add("MPESA_API_BASE_URL: %w", err)
	}
	for _, v := range []struct{ name, value string }{
		{"MPESA_CONSUMER_KEY", c.ConsumerKey}, {"MPESA_CONSUMER_SECRET", c.ConsumerSecret},
		{"MPESA_SHORTCODE", c.ShortCode}, {"MPESA_PASSKEY", c.PassKey}, {"MPESA_CALLBACK_BASE_URL", c.CallbackBaseURL},
	} {
		if strings.TrimSpace(v.value) == "" {
			add("%s must be set (KEJANEST_ENV=production or MPESA_ENVIRONMENT=production takes no default)", v.name)
		}
	}
	if c.CallbackBaseURL != "" {
		if err := checkURL(c.CallbackBaseURL, live); err != nil {
			add("MPESA_CALLBACK_BASE_URL: %w", err)
		}
	}
	if live {
		for _, v := range []struct{ name, value, dev string }{
			{"MPESA_CONSUMER_KEY", c.ConsumerKey, darajasim.DevConsumerKey},
			{"MPESA_CONSUMER_SECRET", c.ConsumerSecret, darajasim.DevConsumerSecret},
			{"MPESA_SHORTCODE", c.ShortCode, darajasim.SandboxShortCode},
			{"MPESA_PASSKEY", c.PassKey, darajasim.SandboxPassKey},
		} {
			if v.value == v.dev {
				add("%s: the sandbox/simulator value is configured with MPESA_ENVIRONMENT=production", v.name)
			}
		}
	}
	if !isDigits(c.ShortCode) && c.ShortCode != "" {
		add("MPESA_SHORTCODE: %q is not a number", c.ShortCode)
	}
	if !isDigits(c.PartyB) && c.PartyB != "" {
		add("MPESA_PARTY_B: %q is not a number", c.PartyB)
	}
	switch c.TransactionType {
	case daraja.PayBillOnline, daraja.BuyGoodsOnline:
	default:
		add("MPESA_TRANSACTION_TYPE: %q, want %s or %s", c.TransactionType, daraja.PayBillOnline, daraja.BuyGoodsOnline)
	}
	if n := len(c.AccountReference); n < 1 || n > maxAccountReference {
		add("MPESA_ACCOUNT_REFERENCE: %q, want 1 to %d characters", c.AccountReference, maxAccountReference)
	}
	if n := len(c.TransactionDesc); n < 1 || n > maxTransactionDesc {
		add("MPESA_TRANSACTION_DESC: %q, want 1 to %d characters", c.TransactionDesc, maxTransactionDesc)
	}
	if c.HTTPTimeout <= 0 {
		add("MPESA_HTTP_TIMEOUT: %s, want a positive duration", c.HTTPTimeout)
	}
	if c.PendingQueryAfter <= 0 {
		add("MPESA_PENDING_QUERY_AFTER: %s, want a positive duration", c.PendingQueryAfter)
	}
	if c.PendingExpireAfter <= c.PendingQueryAfter {
		add("MPESA_PENDING_EXPIRE_AFTER: %s, want more than MPESA_PENDING_QUERY_AFTER (%s)", c.PendingExpireAfter, c.PendingQueryAfter)
	}
	if c.SweepInterval < 0 {
		add("MPESA_SWEEP_INTERVAL: %s is negative", c.SweepInterval)
	}
	if c.Production {
		if err := devkeys.Refuse(map[string]string{"JWT_SECRET": c.JWTSecret}); err != nil {
			add("production mode (%s): %w", devkeys.EnvVar, err)
		}
	}
	return errors.Join(errs...)
}

var levels = map[string]bool{"debug": true, "info": true, "warn": true, "error": true}

// Addr is the listen address, host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// CallbackURL is where Safaricom posts results: the gateway's public
// /functions/v1/mpesa-callback.
func (c Config) CallbackURL() string { return c.CallbackBaseURL + "/functions/v1/mpesa-callback" }

// Daraja is the Daraja client's configuration.
func (c Config) Daraja() daraja.Config {
	return daraja.Config{
		BaseURL: c.APIBaseURL, ConsumerKey: c.ConsumerKey, ConsumerSecret: c.ConsumerSecret,
		ShortCode: c.ShortCode, PartyB: c.PartyB, PassKey: c.PassKey, TransactionType: c.TransactionType,
	}
}

func checkURL(raw string, httpsOnly bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "https" && (httpsOnly || u.Scheme != "http") {
		if httpsOnly {
			return fmt.Errorf("%q: must be https with MPESA_ENVIRONMENT=production", raw)
		}
		return fmt.Errorf("%q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%q: no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: must not carry a query or fragment", raw)
	}
	return nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
