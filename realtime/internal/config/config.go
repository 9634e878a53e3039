// Package config reads realtime's settings from the environment once, in
// main, and checks them before anything listens.
package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

// minJWTSecretLen is the shortest HMAC secret accepted.
const minJWTSecretLen = 32

// minPresenceReplicaTimeoutMS keeps presence heartbeats (a third of the
// timeout) at most ten a second.
const minPresenceReplicaTimeoutMS = 300

// Config is realtime's whole configuration, under Supabase Realtime's
// variable names where it has them (API_JWT_SECRET, PORT). The defaults
// reproduce the Supabase CLI's local stack.
//
//	variable        fallback    default                                                          meaning
//	DATABASE_URL                postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable  connection for LISTEN and RLS checks
//	REALTIME_HOST               127.0.0.1                                                        listen host
//	PORT                        4000                                                             listen port
//	API_JWT_SECRET  JWT_SECRET  devkeys.JWTSecret                                                HS256 secret, at least 32 characters
//	API_JWT_JWKS    JWT_JWKS    ""                                                               public JWKS (Supabase's JWT_JWKS): asymmetric keys by kid, "oct" keys for HS256
//	SUPABASE_PUBLISHABLE_KEY    devkeys.PublishableKey                                           sb_publishable_… key accepted as the anon role
//	SUPABASE_SECRET_KEY         devkeys.SecretKey                                                sb_secret_… key accepted as service_role
//	MAX_CHANNELS_PER_CLIENT     100                                                              channels one socket may join
//	MAX_EVENTS_PER_SECOND       100                                                              broadcast/presence pushes per socket per second (burst 2x)
//	MAX_PAYLOAD_SIZE_IN_KB      256                                                              largest broadcast or presence payload
//	SOCKET_QUEUE_SIZE           1024                                                             outbound frames queued per socket before it counts as slow
//	PRESENCE_REPLICA_TIMEOUT_IN_MS 5000                                                          a replica without a heartbeat for this long is gone: its presences leave on the others
//	LOG_LEVEL                   info                                                             debug, info, notice, warning (warn) or error
//	KEJANEST_ENV                "" (development)                                                 production refuses empty or well-known dev secrets
type Config struct {
	// DatabaseURL is the connection string (DATABASE_URL).
	DatabaseURL string
	// Host and Port are the listen address (REALTIME_HOST, PORT).
	Host string
	Port int
	// JWTSecret verifies access tokens (API_JWT_SECRET, JWT_SECRET).
	JWTSecret string
	// JWKS verifies tokens by kid (API_JWT_JWKS, JWT_JWKS).
	JWKS string
	// LogLevel is the level name (LOG_LEVEL); SlogLevel maps it for
	// platform/logging.
	LogLevel string
	// Production is true when KEJANEST_ENV names production.
	Production bool
	// PublishableKey and SecretKey are the sb_ API keys (anon and
	// service_role) a socket may present instead of a JWT.
	PublishableKey string
	SecretKey      string
	// Limits per socket.
	MaxChannels        int
	MaxEventsPerSecond int
	MaxPayloadKB       int
	QueueSize          int
	// PresenceReplicaTimeoutMS is how long another replica may go without
	// a presence heartbeat (sent every third of it) before its presences
	// leave (PRESENCE_REPLICA_TIMEOUT_IN_MS).
	PresenceReplicaTimeoutMS int
}

// Load reads the configuration through r. It returns the parse errors of
// malformed values (all of them) alongside the best-effort Config; callers
// still run Validate.
func Load(r *envconf.Reader) (Config, error) {
	c := Config{
		DatabaseURL: r.String("postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable", "DATABASE_URL"),
		Host:        r.String("127.0.0.1", "REALTIME_HOST"),
		Port:        r.Int(4000, "PORT"),
		JWTSecret:   r.String(devkeys.JWTSecret, "API_JWT_SECRET", "JWT_SECRET"),
		JWKS:        r.String("", "API_JWT_JWKS", "JWT_JWKS"),
		LogLevel:    strings.ToLower(r.String("info", "LOG_LEVEL")),
		Production:  devkeys.IsProduction(r.String("", devkeys.EnvVar)),

		PublishableKey:     r.String(devkeys.PublishableKey, "SUPABASE_PUBLISHABLE_KEY"),
		SecretKey:          r.String(devkeys.SecretKey, "SUPABASE_SECRET_KEY"),
		MaxChannels:        r.Int(100, "MAX_CHANNELS_PER_CLIENT"),
		MaxEventsPerSecond: r.Int(100, "MAX_EVENTS_PER_SECOND"),
		MaxPayloadKB:       r.Int(256, "MAX_PAYLOAD_SIZE_IN_KB"),
		QueueSize:          r.Int(1024, "SOCKET_QUEUE_SIZE"),

		PresenceReplicaTimeoutMS: r.Int(5000, "PRESENCE_REPLICA_TIMEOUT_IN_MS"),
	}
	return c, r.Err()
}

// Validate reports every problem that would stop the service from serving
// correctly, including development secrets in production mode.
func (c Config) Validate() error {
	var errs []error
	if _, err := pgconn.ParseConfig(c.DatabaseURL); err != nil {
		errs = append(errs, fmt.Errorf("DATABASE_URL: %w", err))
	}
	if c.Host == "" {
		errs = append(errs, errors.New("REALTIME_HOST: empty"))
	}
	if c.Port < 1 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("PORT: %d is not a port (1-65535)", c.Port))
	}
	if err := jwtverify.CheckConfig("API_JWT_SECRET", c.JWTSecret, "API_JWT_JWKS", c.JWKS, minJWTSecretLen); err != nil {
		errs = append(errs, err)
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"MAX_CHANNELS_PER_CLIENT", c.MaxChannels}, {"MAX_EVENTS_PER_SECOND", c.MaxEventsPerSecond},
		{"MAX_PAYLOAD_SIZE_IN_KB", c.MaxPayloadKB}, {"SOCKET_QUEUE_SIZE", c.QueueSize}} {
		if l.v < 1 {
			errs = append(errs, fmt.Errorf("%s: %d, want at least 1", l.name, l.v))
		}
	}
	if c.PresenceReplicaTimeoutMS < minPresenceReplicaTimeoutMS {
		errs = append(errs, fmt.Errorf("PRESENCE_REPLICA_TIMEOUT_IN_MS: %d, want at least %d", c.PresenceReplicaTimeoutMS, minPresenceReplicaTimeoutMS))
	}
	if _, ok := slogLevels[c.LogLevel]; !ok {
		errs = append(errs, fmt.Errorf("LOG_LEVEL: %q, want debug, info, notice, warning or error", c.LogLevel))
	}
	if c.Production {
		// The sb_ keys are checked too: the well-known development secret
		// key would map any socket that presents it to service_role.
		if err := devkeys.Refuse(map[string]string{
			"API_JWT_SECRET":           c.JWTSecret,
			"SUPABASE_PUBLISHABLE_KEY": c.PublishableKey,
			"SUPABASE_SECRET_KEY":      c.SecretKey,
		}); err != nil {
			errs = append(errs, fmt.Errorf("production mode (%s): %w", devkeys.EnvVar, err))
		}
	}
	return errors.Join(errs...)
}

// slogLevels maps Elixir Logger level names (and warn) onto
// platform/logging's.
var slogLevels = map[string]string{
	"debug": "debug", "info": "info", "notice": "info", "warning": "warn", "warn": "warn", "error": "error",
}

// SlogLevel is LogLevel as platform/logging names it.
func (c Config) SlogLevel() string { return slogLevels[c.LogLevel] }

// PresenceReplicaTimeout is PresenceReplicaTimeoutMS as a duration.
func (c Config) PresenceReplicaTimeout() time.Duration {
	return time.Duration(c.PresenceReplicaTimeoutMS) * time.Millisecond
}

// Addr is the listen address, host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }
