package store

import (
	"context"
	"time"
)

// OAuthClientState is one auth.oauth_client_states row: a sign-in with an
// external provider waiting for its callback, and the PKCE code verifier
// that redeems the provider's code.
type OAuthClientState struct {
	ID           string
	ProviderType string
	CodeVerifier string
	CreatedAt    time.Time
}

// CreateOAuthClientState inserts s (ID chosen by the caller).
func (q *Q) CreateOAuthClientState(ctx context.Context, s *OAuthClientState) error {
	_, err := q.db.Exec(ctx, `insert into auth.oauth_client_states (id, provider_type, code_verifier, created_at)
		values ($1, $2, $3, $4)`, s.ID, s.ProviderType, s.CodeVerifier, s.CreatedAt)
	return wrap("create oauth client state", err)
}

// TakeOAuthClientState deletes the row with id and returns it (GoTrue's
// FindAndDeleteOAuthClientStateByID). Reading and deleting in one statement
// makes a state single use: of two callbacks with the same state, however
// close together, one finds nothing. ErrNotFound when there is no row.
func (q *Q) TakeOAuthClientState(ctx context.Context, id string) (*OAuthClientState, error) {
	s := &OAuthClientState{}
	err := q.db.QueryRow(ctx, `delete from auth.oauth_client_states where id = $1
		returning id::text, provider_type, coalesce(code_verifier, ''), created_at`, id).
		Scan(&s.ID, &s.ProviderType, &s.CodeVerifier, &s.CreatedAt)
	return s, wrap("take oauth client state", err)
}

// DeleteOAuthClientStatesBefore removes the rows of sign-ins started before
// t, whose callback never came.
func (q *Q) DeleteOAuthClientStatesBefore(ctx context.Context, t time.Time) error {
	_, err := q.db.Exec(ctx, `delete from auth.oauth_client_states where created_at < $1`, t)
	return wrap("delete stale oauth client states", err)
}
