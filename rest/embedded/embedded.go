// Package embedded assembles the rest service (pool, schema cache and its
// listener, pipeline) from the environment, for cmd/rest, for rpc's command
// (the same pipeline on its own port) and for a process
// that serves rest in-process: the gateway's one-process mode
// (GATEWAY_INPROCESS) answers /rest/v1 through Handler, with no second HTTP
// hop. The settings are rest's own (PGRST_*, see internal/config), so one
// environment configures either shape.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgpool"
	"github.com/kejanest/kejanest/rest/internal/config"
	"github.com/kejanest/kejanest/rest/pgrst"
	"github.com/kejanest/kejanest/rest/pgrst/exec"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// FirstLoadWait bounds how long Start waits for the first schema load.
const FirstLoadWait = 5 * time.Second

// ErrInvalidConfig wraps every configuration error Start returns.
var ErrInvalidConfig = errors.New("invalid configuration")

// Service is a started rest service: its pipeline, the pool under it, and
// the schema cache listener, which runs until the Start context ends.
type Service struct {
	Config   config.Config
	Pipeline *pgrst.Handler
	pool     *pgxpool.Pool
	cache    *schemacache.Holder
	log      *slog.Logger
}

// Default ports of the two commands serving the pipeline: rest keeps
// PostgREST's own, rpc reads the same variables beside it.
const (
	RestPort = config.DefaultPort
	RPCPort  = 3001
)

// LoadConfig reads and checks rest's settings (internal/config documents
// them), listening on defaultPort unless PGRST_SERVER_PORT says otherwise.
func LoadConfig(env *envconf.Reader, defaultPort int) (config.Config, error) {
	cfg, err := config.Load(env)
	cfg.Port = env.Int(defaultPort, "PGRST_SERVER_PORT")
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return cfg, fmt.Errorf("%w:\n%w", ErrInvalidConfig, err)
	}
	return cfg, nil
}

// Start opens the pool (lazily: PostgreSQL may still be starting, and
// Ready reports it), starts the schema cache's listener under ctx, and
// waits up to FirstLoadWait for the first schema load, so the first
// requests do not meet 503 PGRST002. Close releases the pool. appName
// names the pool's connections in pg_stat_activity.
func Start(ctx context.Context, cfg config.Config, log *slog.Logger, appName string) (*Service, error) {
	pool, err := pgpool.New(context.Background(), cfg.DBURI, pgpool.Options{AppName: appName, MaxConns: int32(cfg.DBPool), AfterConnect: warmUp(log)})
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	verifier, err := jwtverify.New(jwtverify.Options{Secret: cfg.JWTSecret, JWKS: []byte(cfg.JWKS), Audience: cfg.JWTAud})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("configure JWT verification: %w", err)
	}
	cache := schemacache.NewHolder(pool, cfg.DBSchemas, log)
	cache.OnChange(pool.Reset)
	pipeline := pgrst.New(cfg.Pipeline(), pool, cache, verifier, log)
	// The in-database configuration is read when the listener connects
	// (before the first schema load) and on NOTIFY pgrst, 'reload config'.
	cache.OnConfigReload(pipeline.ReloadConfig)
	loaded := cache.Reloaded()
	go func() { _ = cache.Listen(ctx, pool.Config().ConnConfig, time.Second) }()
	select {
	case <-loaded:
	case <-time.After(FirstLoadWait):
		log.Warn("schema cache not loaded yet; serving anyway", "waited", FirstLoadWait.String())
	case <-ctx.Done():
	}
	return &Service{Config: cfg, Pipeline: pipeline, pool: pool, cache: cache, log: log}, nil
}

// warmUp runs exec.WarmUp on each new connection. It only saves work: a
// connection where it failed (a statement_timeout of a few milliseconds
// on the login role, say) serves as well without it, so the failure is
// logged and the connection kept.
func warmUp(log *slog.Logger) func(context.Context, *pgx.Conn) error {
	return func(ctx context.Context, c *pgx.Conn) error {
		if err := exec.WarmUp(ctx, c.PgConn()); err != nil {
			log.Warn("connection warm-up failed; serving without it", "error", err.Error())
		}
		return nil
	}
}

// Ready reports whether the service can answer table requests: the schema
// cache is loaded and the database answers a ping.
func (s *Service) Ready(ctx context.Context) error {
	if s.cache.Get() == nil {
		return errors.New("schema cache not loaded")
	}
	return pgpool.Ping(ctx, s.pool)
}

// Close releases the database pool.
func (s *Service) Close() { s.pool.Close() }
