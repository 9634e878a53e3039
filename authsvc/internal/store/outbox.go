package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// OutboxChannel is the NOTIFY channel public.request_verification_code
// signals after queueing a code (the payload is the row's id).
const OutboxChannel = "verification_outbox"

// OutboxCode is one app_private.verification_outbox row claimed for
// sending. Code is the plaintext code: never log it.
type OutboxCode struct {
	ID          int64
	UserID      string
	Channel     string // "email" or "phone"
	Destination string
	Code        string
	// Attempts is how many sends have failed so far.
	Attempts int
	// Expired is true once expires_at has passed; Remaining is the time
	// left until it does. Both are read off the database's clock.
	Expired   bool
	Remaining time.Duration
}

// ClaimOutboxCodes locks up to limit rows that are due (next_attempt_at
// passed), oldest first, skipping rows another transaction holds, so that
// concurrent senders never claim the same row. Call it inside Tx: the locks
// last until the transaction ends.
func (q *Q) ClaimOutboxCodes(ctx context.Context, limit int) ([]OutboxCode, error) {
	rows, err := q.db.Query(ctx, `select id, user_id::text, channel, destination, code, attempts,
			expires_at <= now(), greatest(extract(epoch from expires_at - now()), 0)::float8
		from app_private.verification_outbox
		where next_attempt_at <= now()
		order by id
		for update skip locked
		limit $1`, limit)
	if err != nil {
		return nil, wrap("claim outbox codes", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (OutboxCode, error) {
		var (
			c    OutboxCode
			secs float64
		)
		err := r.Scan(&c.ID, &c.UserID, &c.Channel, &c.Destination, &c.Code, &c.Attempts, &c.Expired, &secs)
		c.Remaining = time.Duration(secs * float64(time.Second))
		return c, err
	})
	return out, wrap("claim outbox codes", err)
}

// DeleteOutboxCode removes a row: sent, expired or given up on.
func (q *Q) DeleteOutboxCode(ctx context.Context, id int64) error {
	_, err := q.db.Exec(ctx, `delete from app_private.verification_outbox where id = $1`, id)
	return wrap("delete outbox code", err)
}

// DeferOutboxCode records a failed send: the number of attempts so far,
// the error, and a next attempt after the given delay, but never after the
// code expires, so that an expired row always falls due and is deleted.
func (q *Q) DeferOutboxCode(ctx context.Context, id int64, attempts int, lastError string, after time.Duration) error {
	_, err := q.db.Exec(ctx, `update app_private.verification_outbox
		set attempts = $2, last_error = $3,
			next_attempt_at = least(clock_timestamp() + make_interval(secs => $4), expires_at)
		where id = $1`, id, attempts, lastError, after.Seconds())
	return wrap("defer outbox code", err)
}

// Listen opens a connection of its own, outside the pool and with the
// pool's settings, and LISTENs on channel on it. The caller waits for
// notifications with WaitForNotification and closes the connection.
func (s *Store) Listen(ctx context.Context, channel string) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("connect listener: %w", err)
	}
	if _, err := conn.Exec(ctx, "listen "+pgx.Identifier{channel}.Sanitize()); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("listen %s: %w", channel, err)
	}
	return conn, nil
}
