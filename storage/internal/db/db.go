// Package db holds every SQL statement the storage service runs. Each
// operation is one transaction whose first statement switches to the
// caller's role and sets the JWT claims (the §1.6 preamble), so Row Level
// Security on storage.buckets and storage.objects decides what it sees and
// changes; service_role bypasses RLS.
package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Roles the service switches to.
const (
	RoleAnon    = "anon"
	RoleService = "service_role"
)

// Caller is who a request runs as.
type Caller struct {
	// Role is the Postgres role (the JWT "role" claim; anon without one).
	Role string
	// Subject is the JWT "sub" (the user id), empty for anon and keys.
	Subject string
	// Claims is the verified JWT payload; empty means {"role":Role}.
	Claims json.RawMessage
}

// Anon is the caller of a request without Authorization.
func Anon() Caller { return Caller{Role: RoleAnon} }

// Service is the service_role caller the service itself uses for reads that
// upstream makes as superuser (bucket limits, public downloads, signed
// URLs).
func Service() Caller { return Caller{Role: RoleService} }

func (c Caller) claims() string {
	if len(c.Claims) > 0 {
		return string(c.Claims)
	}
	b, _ := json.Marshal(map[string]string{"role": c.Role})
	return string(b)
}

// Store runs the storage statements on a pool connected as authenticator.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a Store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Tx is one caller's transaction.
type Tx struct {
	tx pgx.Tx
}

// Read runs fn in a read-only transaction as c.
func (s *Store) Read(ctx context.Context, c Caller, fn func(*Tx) error) error {
	return s.run(ctx, c, pgx.ReadOnly, fn)
}

// Write runs fn in a read-write transaction as c; it commits if fn returns
// nil.
func (s *Store) Write(ctx context.Context, c Caller, fn func(*Tx) error) error {
	return s.run(ctx, c, pgx.ReadWrite, fn)
}

func (s *Store) run(ctx context.Context, c Caller, mode pgx.TxAccessMode, fn func(*Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: mode})
	if err != nil {
		return mapErr(fmt.Errorf("begin: %w", err))
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx,
		`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('search_path', '', true)`,
		c.Role, c.claims()); err != nil {
		return mapErr(fmt.Errorf("set role: %w", err))
	}
	if err := fn(&Tx{tx: tx}); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return mapErr(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// Savepoint runs fn inside a savepoint and rolls it back whatever fn
// returns: a permission test that leaves no trace.
func (t *Tx) Savepoint(ctx context.Context, fn func(*Tx) error) error {
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return mapErr(err)
	}
	defer func() { _ = sp.Rollback(context.WithoutCancel(ctx)) }()
	return fn(&Tx{tx: sp})
}

// mapErr turns the Postgres errors callers can cause into storage errors;
// the rest stay unexpected (500, logged).
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "42501": // insufficient_privilege: RLS refusal or missing grant
		return &storageerr.Error{Status: 403, Code: storageerr.CodeAccessDenied, ErrorText: "Unauthorized",
			Message: "new row violates row-level security policy", Cause: err}
	case "23505":
		return &storageerr.Error{Status: 409, Code: storageerr.CodeKeyAlreadyExists, ErrorText: "Duplicate",
			Message: "The resource already exists", Cause: err}
	case "23503":
		return &storageerr.Error{Status: 404, Code: storageerr.CodeNoSuchBucket, ErrorText: "Bucket not found",
			Message: "Bucket not found", Cause: err}
	case "57014":
		return &storageerr.Error{Status: 544, HTTPStatus: 544, Code: "DatabaseTimeout",
			Message: "The connection to the database timed out", Cause: err}
	case "23514", "22001", "22P02":
		return &storageerr.Error{Status: 400, Code: storageerr.CodeInvalidRequest, Message: pe.Message, Cause: err}
	}
	return err
}
