package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrLockTimeout is Locker.Lock's answer when the lock (or a connection to
// hold it on) did not come within the wait.
var ErrLockTimeout = errors.New("advisory lock: not granted within the wait")

// Locker takes PostgreSQL advisory locks, which every replica sharing the
// database sees, as Supabase Storage locks an upload. A lock is held on a
// connection of its own for as long as it is held, so the Locker has a
// pool of its own: a lock held for a slow upload's chunk must not take a
// connection the chunk's own statements need (with one pool, as many
// chunks as connections would each hold one and wait for another).
type Locker struct {
	pool *pgxpool.Pool
}

// NewLocker returns a Locker holding its locks on pool's connections; its
// size bounds the locks held at once.
func NewLocker(pool *pgxpool.Pool) *Locker { return &Locker{pool: pool} }

// Lock takes the session-level advisory lock named key, waiting at most
// wait in all (for a connection, then for the lock), and returns the
// function that releases it. The connection stays out of the pool until
// the release: a session lock is the session's, and a pooled connection
// still holding it would lock out every later request for good. If the
// release fails, the connection is closed, which ends the session and its
// locks.
func (l *Locker) Lock(ctx context.Context, key string, wait time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(wait)
	actx, cancel := context.WithDeadline(ctx, deadline)
	conn, err := l.pool.Acquire(actx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, ErrLockTimeout
		}
		return nil, fmt.Errorf("advisory lock: %w", err)
	}
	// lock_timeout counts whole milliseconds, rounded up so the wait is
	// never cut short; 0 would wait for ever, so the wait is at least 1 ms.
	timeout := strconv.FormatInt(max((time.Until(deadline)+time.Millisecond-1).Milliseconds(), 1), 10) + "ms"
	// One pipeline, so one implicit transaction: the lock_timeout is local
	// to it, the lock (session-level) outlives it.
	b := &pgx.Batch{}
	b.Queue(`select pg_catalog.set_config('lock_timeout', $1, true)`, timeout)
	b.Queue(`select pg_catalog.pg_advisory_lock(pg_catalog.hashtextextended($1, 0))`, key)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55P03" { // lock_not_available: nothing was granted
			conn.Release()
			return nil, ErrLockTimeout
		}
		// Otherwise (the context ended, the connection broke) the lock may
		// have been granted unseen; a closed session holds nothing.
		_ = conn.Conn().Close(context.WithoutCancel(ctx))
		conn.Release()
		return nil, fmt.Errorf("advisory lock: %w", err)
	}
	return func() {
		// The request may be over; the release still runs, for a bounded
		// time (a server that does not answer gets its session closed).
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
		defer cancel()
		var released bool
		err := conn.QueryRow(rctx, `select pg_catalog.pg_advisory_unlock(pg_catalog.hashtextextended($1, 0))`, key).Scan(&released)
		if err != nil || !released {
			_ = conn.Conn().Close(rctx)
		}
		conn.Release()
	}, nil
}

// unlockTimeout bounds a release's round trip.
const unlockTimeout = 5 * time.Second
