// Package store is the only place authsvc's SQL lives: users, identities,
// sessions, refresh tokens, one-time tokens, MFA factors and challenges, and
// PKCE/OAuth flow state, all in Supabase Auth's auth schema; and the
// contact-verification codes waiting in app_private.verification_outbox.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a unique constraint refuses a write.
var ErrConflict = errors.New("conflict")

type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Q runs the queries, on the pool or inside a transaction.
type Q struct{ db querier }

// Store is the database: Q on the pool, plus transactions.
type Store struct {
	*Q
	pool *pgxpool.Pool
}

// New wraps a pool.
func New(pool *pgxpool.Pool) *Store { return &Store{Q: &Q{db: pool}, pool: pool} }

// Tx runs fn in one transaction, committed when fn returns nil.
func (s *Store) Tx(ctx context.Context, fn func(q *Q) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(&Q{db: tx}) })
}

// Ping checks the connection.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// wrap names the operation and maps pgx's no-rows and unique violations.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return fmt.Errorf("%s: %w: %s", op, ErrConflict, pe.ConstraintName)
	}
	return fmt.Errorf("%s: %w", op, err)
}
