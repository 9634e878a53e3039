// Package tests holds the database-level tests of sql/migrations and
// sql/seed, and Caller, which runs a statement exactly as rest/rpc will: as
// the authenticator login, inside one transaction that first switches role
// and sets the JWT claims (supabase-compat.md §1.6).
package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Caller is who a statement runs as: the database role that rest/rpc switch
// to (anon, authenticated or service_role) and, for a signed-in user, the
// user's id and e-mail as carried in the JWT.
type Caller struct {
	Role   string
	UserID string
	Email  string
	// SessionID is the JWT's session_id claim, when the test gives the
	// caller an auth session (admins: see newAdmin).
	SessionID string
}

// Anon is a request without a user.
func Anon() Caller { return Caller{Role: "anon"} }

// Service is a request carrying the service_role key.
func Service() Caller { return Caller{Role: "service_role"} }

// User is a request carrying a signed-in user's access token.
func User(id, email string) Caller { return Caller{Role: "authenticated", UserID: id, Email: email} }

// Claims returns the request.jwt.claims JSON for c, shaped like the claims
// authsvc issues (sub, role, email, aud).
func (c Caller) Claims() string {
	m := map[string]any{"role": c.Role}
	if c.UserID != "" {
		m["sub"] = c.UserID
		m["aud"] = "authenticated"
		m["email"] = c.Email
	}
	if c.SessionID != "" {
		m["session_id"] = c.SessionID
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Preamble is the first statement of every API transaction: the exposed
// schemas on the search path, the role and the claims, all transaction-local.
const Preamble = `select set_config('search_path', 'public, extensions', true),
       set_config('role', $1, true),
       set_config('request.jwt.claims', $2, true)`

// Beginner is what As needs from a connection or pool (*pgx.Conn, *pgxpool.Pool).
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// As runs fn in one transaction as c: begin, the preamble, fn, then commit
// when commit is true and fn succeeded, else roll back.
func As(ctx context.Context, db Beginner, c Caller, commit bool, fn func(tx pgx.Tx) error) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, Preamble, c.Role, c.Claims()); err != nil {
		return fmt.Errorf("preamble: %w", err)
	}
	if err := fn(tx); err != nil {
		return err
	}
	if commit {
		return tx.Commit(ctx)
	}
	return nil
}

// Result is the outcome of one statement: the rows it returned or affected,
// or the SQLSTATE and message it failed with.
type Result struct {
	Rows    int64
	Code    string
	Message string
	Err     error
}

// Outcome renders r compactly for expectation tables: the row count ("0",
// "1", ...) or the SQLSTATE ("42501", "P0001", ...).
func (r Result) Outcome() string {
	if r.Err != nil {
		if r.Code != "" {
			return r.Code
		}
		return "error"
	}
	return fmt.Sprint(r.Rows)
}

// Exec runs one statement as c (see As) and reports what happened. Rows is
// the number of rows a query returned or a DML statement affected.
func Exec(ctx context.Context, db Beginner, c Caller, commit bool, sql string, args ...any) Result {
	var res Result
	err := As(ctx, db, c, commit, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		res.Rows = rows.CommandTag().RowsAffected()
		return nil
	})
	if err != nil {
		res.Err = err
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			res.Code = pgErr.Code
			res.Message = pgErr.Message
		} else {
			res.Message = err.Error()
		}
	}
	return res
}
