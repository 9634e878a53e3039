package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// The rate limits' buckets live in auth.rate_limits (migration
// 0022_auth_rate_limits.sql), shared by every replica. Each check is one
// statement, so one round trip; pgx prepares it once per connection and
// reuses it. The row lock each statement takes orders concurrent checks of
// one bucket, so two replicas never both take its last token. Each check
// commits without waiting for the disk (synchronous_commit off for its own
// transaction: see the migration), so run them outside transactions. A zero
// at means the database's clock; tests pass their own.

// takeTokenSQL takes one token from key's bucket of $2 events per $3
// seconds: a new bucket starts full, a known one first refills by the time
// passed (never backwards) up to $2. No row comes back when less than one
// token is left, and then nothing is written. A row expires one window after
// its last use, by when it is full again.
const takeTokenSQL = `insert into auth.rate_limits as b (key, tokens, updated_at, expires_at)
select $1, $2::float8 - 1, t.at, t.at + make_interval(secs => $3::float8)
from (select coalesce($4::timestamptz, statement_timestamp()) as at, set_config('synchronous_commit', 'off', true)) t
where $2::float8 >= 1
on conflict (key) do update set
	tokens = least(b.tokens + greatest(extract(epoch from excluded.updated_at - b.updated_at)::float8, 0) * $2::float8 / $3::float8, $2::float8) - 1,
	updated_at = greatest(b.updated_at, excluded.updated_at),
	expires_at = greatest(b.updated_at, excluded.updated_at) + make_interval(secs => $3::float8)
where least(b.tokens + greatest(extract(epoch from excluded.updated_at - b.updated_at)::float8, 0) * $2::float8 / $3::float8, $2::float8) >= 1
returning true`

// TakeRateLimitToken takes one token from key's bucket of events per window
// and reports whether one was left. events must be > 0 and window > 0.
func (q *Q) TakeRateLimitToken(ctx context.Context, key string, events float64, window time.Duration, at time.Time) (bool, error) {
	var ok bool
	err := q.db.QueryRow(ctx, takeTokenSQL, key, events, window.Seconds(), clock(at)).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, wrap("take rate limit token", err)
	}
	return true, nil
}

// SignInCheck is one password attempt for BeginPasswordSignIn. A budget
// with Events <= 0 or Window <= 0 is off.
type SignInCheck struct {
	// PairKey names the (account, source) bucket, AccountKey the account's.
	PairKey, AccountKey string
	// SourceEvents per SourceWindow is the pair's budget of failures.
	SourceEvents float64
	SourceWindow time.Duration
	// AccountEvents per AccountWindow caps failures at the account.
	AccountEvents float64
	AccountWindow time.Duration
	// OverCapTries is how many recent failures a source may have and still
	// try once the cap is spent.
	OverCapTries int
	// At is the clock; zero means the database's.
	At time.Time
}

// BeginPasswordSignIn decides, with auth.rate_limit_password_sign_in, whether
// c's source may try a password at c's account now, and if so counts the
// attempt as a failure. charged reports that it took a token from the
// account's cap (to be given back on success).
func (q *Q) BeginPasswordSignIn(ctx context.Context, c SignInCheck) (allowed, charged bool, err error) {
	err = q.db.QueryRow(ctx, `select allowed, charged from auth.rate_limit_password_sign_in($1, $2, $3, $4, $5, $6, $7, $8)`,
		c.PairKey, c.AccountKey, c.SourceEvents, c.SourceWindow.Seconds(), c.AccountEvents, c.AccountWindow.Seconds(),
		c.OverCapTries, clock(c.At)).Scan(&allowed, &charged)
	return allowed, charged, wrap("begin password sign-in", err)
}

// PasswordSignInSucceeded forgets the pair's failures and, when refund,
// gives the account's cap (of accountEvents) back one token.
func (q *Q) PasswordSignInSucceeded(ctx context.Context, pairKey, accountKey string, refund bool, accountEvents float64) error {
	_, err := q.db.Exec(ctx, `select auth.rate_limit_password_sign_in_succeeded($1, $2, $3, $4)`, pairKey, accountKey, refund, accountEvents)
	return wrap("password sign-in succeeded", err)
}

// SweepRateLimits deletes up to limit buckets that had expired at at (zero:
// the database's clock), skipping rows a check holds right now (it is
// renewing them), and returns how many it deleted.
func (q *Q) SweepRateLimits(ctx context.Context, at time.Time, limit int) (int64, error) {
	tag, err := q.db.Exec(ctx, `delete from auth.rate_limits where key in (
		select key from auth.rate_limits
		where expires_at < coalesce($1::timestamptz, statement_timestamp())
		limit $2
		for update skip locked)`, clock(at), limit)
	if err != nil {
		return 0, wrap("sweep rate limits", err)
	}
	return tag.RowsAffected(), nil
}

// clock is at as a query argument: NULL, the database's clock, when zero.
func clock(at time.Time) any {
	if at.IsZero() {
		return nil
	}
	return at
}
