// Package config reads the rpc service's settings from the environment once,
// in main, and checks them before anything listens.
package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/rest/pgrst"
)

// DefaultPort is 3001: rpc reads the same PostgREST variables as rest, which
// keeps PostgREST's own 3000.
const DefaultPort = 3001

// minJWTSecretLen is PostgREST's minimum for an HMAC secret.
const minJWTSecretLen = 32

// Config is the rpc service's whole configuration, under PostgREST's own
// variable names (its Config.hs keys with the PGRST_ prefix). The defaults
// reproduce the Supabase CLI's local stack, so `make run` needs none of them.
//
//	variable            fallback      default                                                          meaning
//	PGRST_DB_URI        DATABASE_URL  postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable  login role that switches to anon/authenticated/service_role
//	PGRST_SERVER_HOST                 127.0.0.1                                                        listen host
//	PGRST_SERVER_PORT                 3001                                                             listen port
//	PGRST_JWT_SECRET    JWT_SECRET    devkeys.JWTSecret                                                HS256 secret, at least 32 characters, or (as PostgREST) a JWK or JWKS JSON
//	JWT_JWKS                          ""                                                               public JWKS shared by every service (Supabase's JWT_JWKS): asymmetric keys by kid, "oct" keys for HS256
//	PGRST_DB_SCHEMAS                  public                                                           comma list of exposed schemas; the first is the default
//	PGRST_DB_ANON_ROLE                anon                                                             role of requests without a JWT
//	PGRST_DB_MAX_ROWS                 1000                                                             cap on rows a read returns; 0 is no cap
//	PGRST_DB_POOL                     10                                                               database connections
//	PGRST_LOG_LEVEL                   info                                                             crit, error, warn, info or debug
//	PGRST_DB_EXTRA_SEARCH_PATH        public,extensions                                                schemas after the request's in search_path
//	PGRST_DB_PRE_REQUEST              ""                                                               function ([schema.]name) called before each request's statement
//	PGRST_DB_TX_END                   commit                                                           commit, commit-allow-override, rollback or rollback-allow-override
//	PGRST_DB_AGGREGATES_ENABLED       false                                                            allow count(), sum(), avg(), min(), max() in select
//	PGRST_DB_PLAN_ENABLED             false                                                            answer Accept: application/vnd.pgrst.plan with the statement's EXPLAIN
//	PGRST_DB_SAFE_UPDATE              true                                                             refuse UPDATE and DELETE without a filter (as pg-safeupdate)
//	PGRST_OPENAPI_MODE                follow-privileges                                                follow-privileges, ignore-privileges or disabled
//	PGRST_SERVER_TIMING_ENABLED       true                                                             send Server-Timing (jwt, parse, plan, transaction, response)
//	PGRST_JWT_AUD                     ""                                                               when set, tokens must carry this audience
//	PGRST_JWT_ROLE_CLAIM_KEY          .role                                                            where the role is in the JWT's claims (.key, ."key", [n], [?(@ == "v")])
//	PGRST_DB_CONFIG                   true                                                             read pgrst.* settings of the login role (and PGRST_DB_PRE_CONFIG's) from the database
//	PGRST_DB_PRE_CONFIG               ""                                                               function ([schema.]name) whose set_config calls add in-database settings
//	KEJANEST_ENV                      "" (development)                                                 production refuses empty or well-known dev secrets
type Config struct {
	// DBURI is the connection string (PGRST_DB_URI, DATABASE_URL).
	DBURI string
	// Host and Port are the listen address (PGRST_SERVER_HOST,
	// PGRST_SERVER_PORT).
	Host string
	Port int
	// JWTSecret verifies HS256 bearer tokens (PGRST_JWT_SECRET, JWT_SECRET);
	// empty when PGRST_JWT_SECRET holds a JWK set.
	JWTSecret string
	// JWKS verifies tokens by kid: PGRST_JWT_SECRET when it is JSON, as
	// PostgREST reads it, else JWT_JWKS.
	JWKS string
	// DBSchemas are the exposed schemas (PGRST_DB_SCHEMAS).
	DBSchemas []string
	// DBAnonRole is the role of anonymous requests (PGRST_DB_ANON_ROLE).
	DBAnonRole string
	// DBMaxRows caps the rows of one read, 0 for no cap (PGRST_DB_MAX_ROWS).
	DBMaxRows int
	// DBPool is the pool size (PGRST_DB_POOL).
	DBPool int
	// LogLevel is PostgREST's level name (PGRST_LOG_LEVEL); SlogLevel maps
	// it for platform/logging.
	LogLevel string
	// Production is true when KEJANEST_ENV names production.
	Production bool
	// DBExtraSearchPath follows the request's schema in search_path
	// (PGRST_DB_EXTRA_SEARCH_PATH).
	DBExtraSearchPath []string
	// DBPreRequest is the function called first in every transaction
	// (PGRST_DB_PRE_REQUEST).
	DBPreRequest string
	// DBTxEnd ends transactions (PGRST_DB_TX_END).
	DBTxEnd string
	// DBAggregates allows aggregate functions (PGRST_DB_AGGREGATES_ENABLED).
	DBAggregates bool
	// DBPlanEnabled answers the EXPLAIN media type (PGRST_DB_PLAN_ENABLED).
	DBPlanEnabled bool
	// DBSafeUpdate refuses unfiltered UPDATE/DELETE (PGRST_DB_SAFE_UPDATE).
	DBSafeUpdate bool
	// OpenAPIMode is PGRST_OPENAPI_MODE.
	OpenAPIMode string
	// ServerTiming sends Server-Timing (PGRST_SERVER_TIMING_ENABLED).
	ServerTiming bool
	// JWTAud is the required token audience, or "" (PGRST_JWT_AUD).
	JWTAud string
	// JWTRoleClaimKey is the path to the role claim (PGRST_JWT_ROLE_CLAIM_KEY).
	JWTRoleClaimKey string
	// DBConfig reads the in-database configuration (PGRST_DB_CONFIG).
	DBConfig bool
	// DBPreConfig is the pre-config function, or "" (PGRST_DB_PRE_CONFIG).
	DBPreConfig string
}

// Load reads the configuration through r. It returns the parse errors of
// malformed values (all of them) alongside the best-effort Config; callers
// still run Validate.
func Load(r *envconf.Reader) (Config, error) {
	c := Config{
		DBURI:      r.String("postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable", "PGRST_DB_URI", "DATABASE_URL"),
		Host:       r.String("127.0.0.1", "PGRST_SERVER_HOST"),
		Port:       r.Int(DefaultPort, "PGRST_SERVER_PORT"),
		JWTSecret:  r.String(devkeys.JWTSecret, "PGRST_JWT_SECRET", "JWT_SECRET"),
		DBSchemas:  r.List([]string{"public"}, "PGRST_DB_SCHEMAS"),
		DBAnonRole: r.String("anon", "PGRST_DB_ANON_ROLE"),
		DBMaxRows:  r.Int(1000, "PGRST_DB_MAX_ROWS"),
		DBPool:     r.Int(10, "PGRST_DB_POOL"),
		LogLevel:   strings.ToLower(r.String("info", "PGRST_LOG_LEVEL")),
		Production: devkeys.IsProduction(r.String("", devkeys.EnvVar)),

		DBExtraSearchPath: r.List([]string{"public", "extensions"}, "PGRST_DB_EXTRA_SEARCH_PATH"),
		DBPreRequest:      r.String("", "PGRST_DB_PRE_REQUEST"),
		DBTxEnd:           r.String("commit", "PGRST_DB_TX_END"),
		DBAggregates:      r.Bool(false, "PGRST_DB_AGGREGATES_ENABLED"),
		DBPlanEnabled:     r.Bool(false, "PGRST_DB_PLAN_ENABLED"),
		DBSafeUpdate:      r.Bool(true, "PGRST_DB_SAFE_UPDATE"),
		OpenAPIMode:       r.String("follow-privileges", "PGRST_OPENAPI_MODE"),
		ServerTiming:      r.Bool(true, "PGRST_SERVER_TIMING_ENABLED"),
		JWTAud:            r.String("", "PGRST_JWT_AUD"),
		JWTRoleClaimKey:   r.String(".role", "PGRST_JWT_ROLE_CLAIM_KEY"),
		DBConfig:          r.Bool(true, "PGRST_DB_CONFIG"),
		DBPreConfig:       r.String("", "PGRST_DB_PRE_CONFIG"),
	}
	if jwtverify.IsJWKS(c.JWTSecret) {
		c.JWKS, c.JWTSecret = c.JWTSecret, ""
	} else {
		c.JWKS = r.String("", "JWT_JWKS")
	}
	return c, r.Err()
}

// Validate reports every problem that would stop the service from serving
// correctly, including development secrets in production mode.
func (c Config) Validate() error {
	var errs []error
	if _, err := pgconn.ParseConfig(c.DBURI); err != nil {
		errs = append(errs, fmt.Errorf("PGRST_DB_URI: %w", err))
	}
	if c.Host == "" {
		errs = append(errs, errors.New("PGRST_SERVER_HOST: empty"))
	}
	if c.Port < 1 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("PGRST_SERVER_PORT: %d is not a port (1-65535)", c.Port))
	}
	if err := jwtverify.CheckConfig("PGRST_JWT_SECRET", c.JWTSecret, "JWT_JWKS", c.JWKS, minJWTSecretLen); err != nil {
		errs = append(errs, err)
	}
	if err := pgrst.CheckRoleClaimKey(c.JWTRoleClaimKey); err != nil {
		errs = append(errs, fmt.Errorf("PGRST_JWT_ROLE_CLAIM_KEY: %w", err))
	}
	if len(c.DBSchemas) == 0 {
		errs = append(errs, errors.New("PGRST_DB_SCHEMAS: no schema"))
	}
	if c.DBAnonRole == "" {
		errs = append(errs, errors.New("PGRST_DB_ANON_ROLE: empty"))
	}
	if c.DBMaxRows < 0 {
		errs = append(errs, fmt.Errorf("PGRST_DB_MAX_ROWS: %d is negative", c.DBMaxRows))
	}
	if c.DBPool < 1 {
		errs = append(errs, fmt.Errorf("PGRST_DB_POOL: %d, want at least 1", c.DBPool))
	}
	switch c.DBTxEnd {
	case "commit", "commit-allow-override", "rollback", "rollback-allow-override":
	default:
		errs = append(errs, fmt.Errorf("PGRST_DB_TX_END: %q, want commit, commit-allow-override, rollback or rollback-allow-override", c.DBTxEnd))
	}
	switch c.OpenAPIMode {
	case "follow-privileges", "ignore-privileges", "disabled":
	default:
		errs = append(errs, fmt.Errorf("PGRST_OPENAPI_MODE: %q, want follow-privileges, ignore-privileges or disabled", c.OpenAPIMode))
	}
	if _, ok := slogLevels[c.LogLevel]; !ok {
		errs = append(errs, fmt.Errorf("PGRST_LOG_LEVEL: %q, want crit, error, warn, info or debug", c.LogLevel))
	}
	if c.Production && c.JWTSecret != "" {
		if err := devkeys.Refuse(map[string]string{"PGRST_JWT_SECRET": c.JWTSecret}); err != nil {
			errs = append(errs, fmt.Errorf("production mode (%s): %w", devkeys.EnvVar, err))
		}
	}
	return errors.Join(errs...)
}

// slogLevels maps PostgREST's level names onto platform/logging's.
var slogLevels = map[string]string{"crit": "error", "error": "error", "warn": "warn", "info": "info", "debug": "debug"}

// SlogLevel is LogLevel as platform/logging names it.
func (c Config) SlogLevel() string { return slogLevels[c.LogLevel] }

// Addr is the listen address, host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// Pipeline returns the PostgREST pipeline's configuration.
func (c Config) Pipeline() pgrst.Config {
	return pgrst.Config{
		Schemas:         c.DBSchemas,
		ExtraSearchPath: c.DBExtraSearchPath,
		AnonRole:        c.DBAnonRole,
		MaxRows:         int64(c.DBMaxRows),
		Aggregates:      c.DBAggregates,
		PlanEnabled:     c.DBPlanEnabled,
		PreRequest:      c.DBPreRequest,
		TxEnd:           c.DBTxEnd,
		SafeUpdate:      c.DBSafeUpdate,
		OpenAPIMode:     c.OpenAPIMode,
		ServerTiming:    c.ServerTiming,
		DBConfig:        c.DBConfig,
		PreConfig:       c.DBPreConfig,
		JWTSecret:       c.JWTSecret,
		JWKS:            c.JWKS,
		JWTAud:          c.JWTAud,
		JWTRoleClaimKey: c.JWTRoleClaimKey,
	}
}
