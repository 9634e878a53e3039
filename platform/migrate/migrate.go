// Package migrate applies the numbered, forward-only SQL migrations in sql/.
//
// Files are named NNNN_name.sql and numbered 1, 2, 3, ... without gaps or
// duplicates. Each file runs in its own transaction together with the row
// that records it, so a failing file leaves no trace. A session advisory lock
// serializes concurrent migrators: the second one waits, then finds nothing
// left to do. A file whose content changed after it was applied is refused,
// because a merged migration is never edited.
package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// LockKey is the advisory lock every migrator takes ("kejanest" in ASCII).
const LockKey int64 = 0x6b656a616e657374

// Migration is one SQL file.
type Migration struct {
	Version  int
	Name     string // file name, e.g. 0001_roles.sql
	SQL      string
	Checksum string // hex sha256 of SQL
}

// Errors a caller may want to tell apart.
var (
	ErrGap       = errors.New("migration numbers have a gap")
	ErrDuplicate = errors.New("two migrations share a number")
	ErrBadName   = errors.New("migration file name is not NNNN_name.sql")
	ErrEdited    = errors.New("an applied migration was edited")
	ErrUnknown   = errors.New("the database has a migration that is not in the files")
)

var fileName = regexp.MustCompile(`^(\d{4,})_([a-z0-9_]+)\.sql$`)

// Load reads every *.sql file at the top of fsys and checks the numbering.
func Load(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			if len(e.Name()) > 4 && e.Name()[len(e.Name())-4:] == ".sql" {
				return nil, fmt.Errorf("%s: %w", e.Name(), ErrBadName)
			}
			continue // READMEs and the like
		}
		v, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), ErrBadName)
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(body)
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(body), Checksum: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if i > 0 && out[i-1].Version == m.Version {
			return nil, fmt.Errorf("%s and %s: %w", out[i-1].Name, m.Name, ErrDuplicate)
		}
		if m.Version != i+1 {
			return nil, fmt.Errorf("expected migration %04d, found %s: %w", i+1, m.Name, ErrGap)
		}
	}
	return out, nil
}

// Result says what Apply did.
type Result struct {
	Applied []string // names applied by this call, in order
	Current int      // the highest version now recorded
}

const trackingDDL = `
create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (
  version integer primary key,
  name text not null,
  checksum text not null,
  applied_at timestamptz not null default now()
);
comment on table supabase_migrations.schema_migrations is 'One row per applied file of sql/migrations.';`

// Apply brings the database behind conn up to date with migs. conn must be a
// dedicated connection: the advisory lock is held by its session.
func Apply(ctx context.Context, conn *pgx.Conn, migs []Migration) (Result, error) {
	var res Result
	if _, err := conn.Exec(ctx, "select pg_advisory_lock($1)", LockKey); err != nil {
		return res, fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		// Unlock on a fresh context: the caller's may be cancelled already,
		// and a lock left behind would block the next migrator until this
		// session ends.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "select pg_advisory_unlock($1)", LockKey)
	}()
	if _, err := conn.Exec(ctx, trackingDDL); err != nil {
		return res, fmt.Errorf("create tracking table: %w", err)
	}
	applied, err := appliedVersions(ctx, conn)
	if err != nil {
		return res, err
	}
	byVersion := make(map[int]Migration, len(migs))
	for _, m := range migs {
		byVersion[m.Version] = m
	}
	for v, sum := range applied {
		m, ok := byVersion[v]
		if !ok {
			return res, fmt.Errorf("version %d: %w", v, ErrUnknown)
		}
		if m.Checksum != sum {
			return res, fmt.Errorf("%s: %w", m.Name, ErrEdited)
		}
		res.Current = max(res.Current, v)
	}
	for _, m := range migs {
		if _, done := applied[m.Version]; done {
			continue
		}
		if err := applyRetrying(ctx, conn, m); err != nil {
			return res, err
		}
		res.Applied = append(res.Applied, m.Name)
		res.Current = m.Version
	}
	return res, nil
}

func appliedVersions(ctx context.Context, conn *pgx.Conn) (map[int]string, error) {
	rows, err := conn.Query(ctx, "select version, checksum from supabase_migrations.schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("read applied migrations: %w", err)
	}
	out := map[int]string{}
	for rows.Next() {
		var v int
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			return nil, fmt.Errorf("scan applied migration: %w", err)
		}
		out[v] = sum
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read applied migrations: %w", err)
	}
	return out, nil
}

// catalogRetries bounds how often a file that collided with another
// database's migrator on a cluster-wide catalog is tried again.
const catalogRetries = 8

// applyRetrying applies m, trying again when it collided on a cluster-wide
// catalog. Role statements (CREATE/ALTER ROLE, GRANT role, ALTER ROLE SET)
// write catalogs shared by every database of the cluster, which the advisory
// lock, held per database, does not serialize: migrators of two databases in
// one cluster (test stacks started side by side) can meet there, and Postgres
// then fails one of them. Its transaction rolled back whole, and the role
// statements are idempotent, so trying the file again is safe.
func applyRetrying(ctx context.Context, conn *pgx.Conn, m Migration) error {
	for attempt := 1; ; attempt++ {
		err := applyOne(ctx, conn, m)
		if err == nil || attempt == catalogRetries || !IsCatalogConflict(err) {
			return err
		}
		wait := time.Duration(attempt)*20*time.Millisecond + time.Duration(rand.Int64N(int64(20*time.Millisecond)))
		select {
		case <-ctx.Done():
			return fmt.Errorf("apply %s: %w", m.Name, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// IsCatalogConflict reports whether err is Postgres refusing a write to a
// shared catalog that a concurrent transaction changed first: "tuple
// concurrently updated" (XX000), or a unique violation on a pg_catalog index
// (two CREATE ROLE of one name, two GRANTs of one membership).
func IsCatalogConflict(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "XX000":
		return pe.Message == "tuple concurrently updated"
	case "23505":
		return pe.SchemaName == "pg_catalog" || strings.HasPrefix(pe.ConstraintName, "pg_")
	}
	return false
}

func applyOne(ctx context.Context, conn *pgx.Conn, m Migration) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin %s: %w", m.Name, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// The simple protocol runs a multi-statement file in one round trip.
	if _, err := tx.Exec(ctx, m.SQL, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("apply %s: %w", m.Name, err)
	}
	if _, err := tx.Exec(ctx,
		"insert into supabase_migrations.schema_migrations (version, name, checksum) values ($1, $2, $3)",
		m.Version, m.Name, m.Checksum); err != nil {
		return fmt.Errorf("record %s: %w", m.Name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit %s: %w", m.Name, err)
	}
	return nil
}

// SetPasswords sets the login password of each role named in passwords
// (role → password), skipping empty values. Production deployments pass the
// service roles' passwords this way instead of writing them into a migration.
func SetPasswords(ctx context.Context, conn *pgx.Conn, passwords map[string]string) error {
	roles := make([]string, 0, len(passwords))
	for r := range passwords {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, role := range roles {
		pw := passwords[role]
		if pw == "" {
			continue
		}
		// ALTER ROLE takes no bind parameters; format's %I and %L quote the
		// identifier and the literal inside the server.
		var stmt string
		if err := conn.QueryRow(ctx, "select format('alter role %I password %L', $1::text, $2::text)", role, pw).Scan(&stmt); err != nil {
			return fmt.Errorf("quote password of %s: %w", role, err)
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("set password of %s: %w", role, err)
		}
	}
	return nil
}
