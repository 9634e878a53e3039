package store

import (
	"context"
	"time"
)

// One-time token types (auth.one_time_token_type).
const (
	OTTConfirmation       = "confirmation_token"
	OTTReauthentication   = "reauthentication_token"
	OTTRecovery           = "recovery_token"
	OTTEmailChangeNew     = "email_change_token_new"
	OTTEmailChangeCurrent = "email_change_token_current"
	OTTPhoneChange        = "phone_change_token"
)

// OneTimeToken is one auth.one_time_tokens row: a hashed code bound to a
// user, a purpose and the address it was sent to.
type OneTimeToken struct {
	ID        string
	UserID    string
	Type      string
	TokenHash string
	RelatesTo string
	CreatedAt time.Time
}

// SetOneTimeToken replaces the user's token of that type.
func (q *Q) SetOneTimeToken(ctx context.Context, t *OneTimeToken) error {
	_, err := q.db.Exec(ctx, `insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
		values (gen_random_uuid(), $1::uuid, $2::auth.one_time_token_type, $3, $4, $5, $5)
		on conflict (user_id, token_type) do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to,
		created_at = excluded.created_at, updated_at = excluded.updated_at`,
		t.UserID, t.Type, t.TokenHash, t.RelatesTo, t.CreatedAt.UTC())
	return wrap("set one-time token", err)
}

// OneTimeTokenByHash finds a token by hash among the given types.
func (q *Q) OneTimeTokenByHash(ctx context.Context, hash string, types ...string) (*OneTimeToken, error) {
	t := &OneTimeToken{}
	err := q.db.QueryRow(ctx, `select id::text, user_id::text, token_type::text, token_hash, relates_to, created_at
		from auth.one_time_tokens where token_hash = $1 and token_type::text = any($2) limit 1`, hash, types).
		Scan(&t.ID, &t.UserID, &t.Type, &t.TokenHash, &t.RelatesTo, &t.CreatedAt)
	if err == nil {
		t.CreatedAt = time.Date(t.CreatedAt.Year(), t.CreatedAt.Month(), t.CreatedAt.Day(), t.CreatedAt.Hour(),
			t.CreatedAt.Minute(), t.CreatedAt.Second(), t.CreatedAt.Nanosecond(), time.UTC)
	}
	return t, wrap("load one-time token", err)
}

// OneTimeTokenOfUser returns the user's token of a type.
func (q *Q) OneTimeTokenOfUser(ctx context.Context, userID, typ string) (*OneTimeToken, error) {
	t := &OneTimeToken{}
	err := q.db.QueryRow(ctx, `select id::text, user_id::text, token_type::text, token_hash, relates_to, created_at
		from auth.one_time_tokens where user_id::text = $1 and token_type::text = $2`, userID, typ).
		Scan(&t.ID, &t.UserID, &t.Type, &t.TokenHash, &t.RelatesTo, &t.CreatedAt)
	if err == nil {
		t.CreatedAt = time.Date(t.CreatedAt.Year(), t.CreatedAt.Month(), t.CreatedAt.Day(), t.CreatedAt.Hour(),
			t.CreatedAt.Minute(), t.CreatedAt.Second(), t.CreatedAt.Nanosecond(), time.UTC)
	}
	return t, wrap("load one-time token", err)
}

// DeleteOneTimeTokens removes the user's tokens of the given types (all
// when none are named).
func (q *Q) DeleteOneTimeTokens(ctx context.Context, userID string, types ...string) error {
	var err error
	if len(types) == 0 {
		_, err = q.db.Exec(ctx, `delete from auth.one_time_tokens where user_id::text = $1`, userID)
	} else {
		_, err = q.db.Exec(ctx, `delete from auth.one_time_tokens where user_id::text = $1 and token_type::text = any($2)`, userID, types)
	}
	return wrap("delete one-time tokens", err)
}
