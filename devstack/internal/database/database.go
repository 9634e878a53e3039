// Package database prepares the PostgreSQL database the stack runs on: it
// picks or starts the server, creates the database if needed, applies the
// migrations and, for `make run`, the demo data.
package database

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kejanest/kejanest/platform/migrate"
)

// EnsureDatabase creates the database named in dbURL if it does not exist,
// connecting to the server's maintenance database to do so.
func EnsureDatabase(ctx context.Context, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" || name == "postgres" {
		return nil
	}
	admin := *u
	admin.Path = "/postgres"
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return fmt.Errorf("connect to %s: %w", Redact(admin.String()), err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "create database "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// DropDatabase removes a database the stack created for itself.
func DropDatabase(ctx context.Context, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin := *u
	admin.Path = "/postgres"
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// Migrate applies sql/migrations and returns the names it applied.
func Migrate(ctx context.Context, dbURL, dir string) ([]string, error) {
	migs, err := migrate.Load(os.DirFS(dir))
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	res, err := migrate.Apply(ctx, conn, migs)
	return res.Applied, err
}

// Seed applies each *.sql file of dir once per database (recorded by name),
// in name order, each in its own transaction. Demo data is never part of the
// migrations: production databases must not receive it.
func Seed(ctx context.Context, dbURL, dir string) ([]string, error) {
	entries, err := fs.ReadDir(os.DirFS(dir), ".")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read seeds: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `create table if not exists supabase_migrations.seeds (
		name text primary key, applied_at timestamptz not null default now())`); err != nil {
		return nil, fmt.Errorf("create seed table: %w", err)
	}
	var applied []string
	for _, name := range names {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return applied, fmt.Errorf("read %s: %w", name, err)
		}
		done, err := seedOne(ctx, conn, name, string(body))
		if err != nil {
			return applied, err
		}
		if done {
			applied = append(applied, name)
		}
	}
	return applied, nil
}

func seedOne(ctx context.Context, conn *pgx.Conn, name, body string) (bool, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("begin seed %s: %w", name, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	tag, err := tx.Exec(ctx, "insert into supabase_migrations.seeds (name) values ($1) on conflict do nothing", name)
	if err != nil {
		return false, fmt.Errorf("record seed %s: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if _, err := tx.Exec(ctx, body, pgx.QueryExecModeSimpleProtocol); err != nil {
		return false, fmt.Errorf("seed %s: %w", name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("commit seed %s: %w", name, err)
	}
	return true, nil
}

// ApplyFiles runs each SQL file once, in order, each in its own transaction:
// the fixture schemas of test stacks.
func ApplyFiles(ctx context.Context, dbURL string, files []string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read fixture: %w", err)
		}
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, string(body), pgx.QueryExecModeSimpleProtocol)
			return err
		}); err != nil {
			return fmt.Errorf("fixture %s: %w", f, err)
		}
	}
	return nil
}

// WithUser returns dbURL with its user (and password) replaced, for the
// services' own login roles; a non-empty password is set in the URL, an
// empty one leaves none (a server that trusts loopback needs none).
func WithUser(dbURL, user, password string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return dbURL
	}
	if password != "" {
		u.User = url.UserPassword(user, password)
	} else {
		u.User = url.User(user)
	}
	return u.String()
}

// SetRolePasswords gives the services' login roles their passwords (role →
// password; empty ones are skipped), so that a DATABASE_URL server asking
// for passwords lets the services in.
func SetRolePasswords(ctx context.Context, dbURL string, passwords map[string]string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return migrate.SetPasswords(ctx, conn, passwords)
}

// WithDatabase returns dbURL pointing at another database.
func WithDatabase(dbURL, name string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return dbURL
	}
	u.Path = "/" + name
	return u.String()
}

// Redact hides a password in a URL before it is printed or logged.
func Redact(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "<unparseable url>"
	}
	return u.Redacted()
}
