// Package config reads authsvc's settings from the environment once, in
// main, and checks them before anything listens.
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

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

// minJWTSecretLen is the shortest HMAC secret accepted.
const minJWTSecretLen = 32

// Config is authsvc's whole configuration, under Supabase Auth's own
// variable names (supabase/auth internal/conf/configuration.go). The
// defaults reproduce the Supabase CLI's local stack.
//
//	variable           fallback                default                                                                 meaning
//	DATABASE_URL       GOTRUE_DB_DATABASE_URL  postgres://supabase_auth_admin@127.0.0.1:54322/postgres?sslmode=disable  owner of the auth schema
//	GOTRUE_API_HOST                            127.0.0.1                                                               listen host
//	PORT               GOTRUE_API_PORT         9999                                                                    listen port
//	GOTRUE_JWT_SECRET  JWT_SECRET              devkeys.JWTSecret                                                       HS256 secret that signs access tokens, at least 32 characters
//	API_EXTERNAL_URL                           http://127.0.0.1:54321                                                  public URL of the gateway (callbacks, issuer)
//	GOTRUE_SITE_URL                            http://127.0.0.1:54321                                                  the app: default redirect after verification and OAuth
//	GOTRUE_JWT_EXP                             3600                                                                    access-token lifetime: seconds, or a Go duration (1h)
//	GOTRUE_LOG_LEVEL                           info                                                                    trace, debug, info, warn, error, fatal or panic
//	KEJANEST_ENV                               "" (development)                                                        production refuses empty or well-known dev secrets
type Config struct {
	// DatabaseURL is the connection string (DATABASE_URL,
	// GOTRUE_DB_DATABASE_URL).
	DatabaseURL string
	// Host and Port are the listen address (GOTRUE_API_HOST; PORT,
	// GOTRUE_API_PORT).
	Host string
	Port int
	// JWTSecret signs and verifies access tokens (GOTRUE_JWT_SECRET,
	// JWT_SECRET).
	JWTSecret string
	// ExternalURL is the public URL of the API (API_EXTERNAL_URL).
	ExternalURL string
	// SiteURL is the app's URL (GOTRUE_SITE_URL).
	SiteURL string
	// JWTExp is the access-token lifetime (GOTRUE_JWT_EXP).
	JWTExp time.Duration
	// LogLevel is GoTrue's (logrus) level name (GOTRUE_LOG_LEVEL); SlogLevel
	// maps it for platform/logging.
	LogLevel string
	// Production is true when KEJANEST_ENV names production.
	Production bool
	// Auth holds accounts, sessions, mail, SMS, MFA and OAuth settings
	// (auth.go).
	Auth Auth
}

// Load reads the configuration through r. It returns the parse errors of
// malformed values (all of them) alongside the best-effort Config; callers
// still run Validate.
func Load(r *envconf.Reader) (Config, error) {
	c := Config{
		DatabaseURL: r.String("postgres://supabase_auth_admin@127.0.0.1:54322/postgres?sslmode=disable", "DATABASE_URL", "GOTRUE_DB_DATABASE_URL"),
		Host:        r.String("127.0.0.1", "GOTRUE_API_HOST"),
		Port:        r.Int(9999, "PORT", "GOTRUE_API_PORT"),
		JWTSecret:   r.String(devkeys.JWTSecret, "GOTRUE_JWT_SECRET", "JWT_SECRET"),
		ExternalURL: r.String("http://127.0.0.1:54321", "API_EXTERNAL_URL"),
		SiteURL:     r.String("http://127.0.0.1:54321", "GOTRUE_SITE_URL"),
		JWTExp:      r.Duration(time.Hour, "GOTRUE_JWT_EXP"),
		LogLevel:    strings.ToLower(r.String("info", "GOTRUE_LOG_LEVEL")),
		Production:  devkeys.IsProduction(r.String("", devkeys.EnvVar)),
	}
	auth, err := loadAuth(r)
	c.Auth = auth
	return c, errors.Join(r.Err(), err)
}

// Validate reports every problem that would stop the service from serving
// correctly, including development secrets in production mode.
func (c Config) Validate() error {
	var errs []error
	if _, err := pgconn.ParseConfig(c.DatabaseURL); err != nil {
		errs = append(errs, fmt.Errorf("DATABASE_URL: %w", err))
	}
	if c.Host == "" {
		errs = append(errs, errors.New("GOTRUE_API_HOST: empty"))
	}
	if c.Port < 1 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("PORT: %d is not a port (1-65535)", c.Port))
	}
	if len(c.JWTSecret) < minJWTSecretLen {
		errs = append(errs, fmt.Errorf("GOTRUE_JWT_SECRET: must be at least %d characters", minJWTSecretLen))
	}
	if err := checkURL(c.ExternalURL); err != nil {
		errs = append(errs, fmt.Errorf("API_EXTERNAL_URL: %w", err))
	}
	if err := checkURL(c.SiteURL); err != nil {
		errs = append(errs, fmt.Errorf("GOTRUE_SITE_URL: %w", err))
	}
	if c.JWTExp < time.Second {
		errs = append(errs, fmt.Errorf("GOTRUE_JWT_EXP: %s, want at least one second", c.JWTExp))
	}
	if _, ok := slogLevels[c.LogLevel]; !ok {
		errs = append(errs, fmt.Errorf("GOTRUE_LOG_LEVEL: %q, want trace, debug, info, warn, error, fatal or panic", c.LogLevel))
	}
	errs = append(errs, c.Auth.validate()...)
	if c.Production {
		if err := devkeys.Refuse(map[string]string{"GOTRUE_JWT_SECRET": c.JWTSecret}); err != nil {
			errs = append(errs, fmt.Errorf("production mode (%s): %w", devkeys.EnvVar, err))
		}
	}
	return errors.Join(errs...)
}

// checkURL accepts an absolute http(s) URL with a host.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%q: no host", raw)
	}
	return nil
}

// slogLevels maps logrus level names onto platform/logging's.
var slogLevels = map[string]string{
	"trace": "debug", "debug": "debug", "info": "info", "warn": "warn", "warning": "warn",
	"error": "error", "fatal": "error", "panic": "error",
}

// SlogLevel is LogLevel as platform/logging names it.
func (c Config) SlogLevel() string { return slogLevels[c.LogLevel] }

// Addr is the listen address, host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }
