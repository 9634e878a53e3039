package schemacache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Channel and the payloads are PostgREST's: `NOTIFY pgrst, 'reload schema'`
// (an empty payload reloads too) and `NOTIFY pgrst, 'reload config'`.
const (
	Channel             = "pgrst"
	ReloadPayload       = "reload schema"
	ReloadConfigPayload = "reload config"
)

// Holder keeps the current Cache and replaces it atomically. Readers call
// Get once per request and use that snapshot throughout.
type Holder struct {
	p       atomic.Pointer[Cache]
	pool    *pgxpool.Pool
	schemas []string
	log     *slog.Logger
	mu      sync.Mutex // serializes reloads
	// reloaded is closed and replaced after every successful reload, so
	// tests can wait for one.
	reloaded chan struct{}
	onChange func()
	onConfig func(ctx context.Context) error
}

// OnConfigReload registers f to read the configuration: Listen calls it
// each time its connection is (re)established, before the schema reload,
// and on every `NOTIFY pgrst, 'reload config'`. Call it before Listen.
func (h *Holder) OnConfigReload(f func(ctx context.Context) error) { h.onConfig = f }

func (h *Holder) reloadConfig(ctx context.Context) {
	if h.onConfig == nil {
		return
	}
	if err := h.onConfig(ctx); err != nil {
		h.log.Error("configuration reload failed", "error", err.Error())
	}
}

// OnChange registers f to run after every reload that replaces an earlier
// snapshot (not the first load). The services flush their pool there, as
// PostgREST does, so no connection keeps prepared statements planned
// against the old schema. Call it before Listen.
func (h *Holder) OnChange(f func()) { h.onChange = f }

// NewHolder returns an empty Holder that loads schemas through pool.
func NewHolder(pool *pgxpool.Pool, schemas []string, log *slog.Logger) *Holder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Holder{pool: pool, schemas: schemas, log: log, reloaded: make(chan struct{})}
}

// SetSchemas changes the schemas the next Reload loads (the in-database
// db_schemas: the configuration reload sets them and reloads before putting
// the configuration in force).
func (h *Holder) SetSchemas(schemas []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.schemas = slices.Clone(schemas)
}

// Get returns the current snapshot, nil before the first successful load.
func (h *Holder) Get() *Cache { return h.p.Load() }

// Set installs c (tests build caches by hand or share one).
func (h *Holder) Set(c *Cache) { h.p.Store(c) }

// Reloaded returns a channel closed at the next successful reload.
func (h *Holder) Reloaded() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reloaded
}

// Reload loads a fresh snapshot in one read-only REPEATABLE READ
// transaction and swaps it in. On failure the old snapshot stays.
func (h *Holder) Reload(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	start := time.Now()
	var c *Cache
	err := pgx.BeginTxFunc(ctx, h.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		c, err = Load(ctx, tx, h.schemas)
		return err
	})
	if err != nil {
		return fmt.Errorf("load schema cache: %w", err)
	}
	old := h.p.Swap(c)
	if old != nil && h.onChange != nil {
		h.onChange()
	}
	close(h.reloaded)
	h.reloaded = make(chan struct{})
	h.log.Info("schema cache loaded", "tables", len(c.tables), "functions", len(c.funcs), "duration_ms", time.Since(start).Milliseconds())
	return nil
}

// Listen keeps the cache fresh until ctx ends: on a dedicated connection
// (connConfig, normally the pool's) it LISTENs on Channel, then reloads (the
// backlog: anything changed before the LISTEN took effect), then reloads
// again on every notification, coalescing bursts (a migration notifies once
// per DDL statement). A lost connection is retried after retry, with a
// reload once it is back. It returns ctx's error.
func (h *Holder) Listen(ctx context.Context, connConfig *pgx.ConnConfig, retry time.Duration) error {
	if retry <= 0 {
		retry = time.Second
	}
	for {
		err := h.listenOnce(ctx, connConfig)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		h.log.Warn("schema cache listener lost its connection; retrying", "error", err.Error(), "retry", retry.String())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retry):
		}
	}
}

func (h *Holder) listenOnce(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return fmt.Errorf("connect listener: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "listen "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	h.reloadConfig(ctx)
	if err := h.Reload(ctx); err != nil {
		h.log.Error("schema cache reload failed", "error", err.Error())
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for notification: %w", err)
		}
		if n.Payload == ReloadConfigPayload {
			// A reload that changes the exposed schemas (db_schemas) loads
			// them itself before the configuration is in force.
			h.reloadConfig(ctx)
			continue
		}
		if n.Payload != ReloadPayload && n.Payload != "" {
			continue
		}
		// Drain the burst: wait until 50ms pass without another one (a
		// config reload in it still happens).
		configToo := false
		for {
			dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			dn, err := conn.WaitForNotification(dctx)
			cancel()
			if err == nil && dn.Payload == ReloadConfigPayload {
				configToo = true
			}
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					return fmt.Errorf("wait for notification: %w", err)
				}
				break
			}
		}
		if configToo {
			h.reloadConfig(ctx)
		}
		if err := h.Reload(ctx); err != nil {
			h.log.Error("schema cache reload failed", "error", err.Error())
		}
	}
}
