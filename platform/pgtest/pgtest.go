// Package pgtest gives each test its own real PostgreSQL database.
//
// The migrations (plus any fixture files a package adds) are applied once to a
// template database whose name carries a hash of their content; every test
// then gets `CREATE DATABASE … TEMPLATE …`, which takes milliseconds. A
// database is dropped when its test passes and kept, with its name logged,
// when it fails. The server is TEST_DATABASE_URL, else the machine's server
// on 127.0.0.1:5432, else a private cluster started for this test binary.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/migrate"
	"github.com/kejanest/kejanest/platform/pgcluster"
)

var (
	serverOnce sync.Once
	server     *pgcluster.Server
	serverErr  error
)

// ServerURL returns the admin URL (superuser, maintenance database) of the
// server tests use, starting a private cluster if no server is reachable.
func ServerURL(ctx context.Context) (string, error) {
	serverOnce.Do(func() {
		root := RepoRoot()
		server, serverErr = pgcluster.FindServer(ctx, "TEST_DATABASE_URL", root, filepath.Join(root, ".data", "embedded-postgres"))
	})
	if serverErr != nil {
		return "", serverErr
	}
	return server.AdminURL, nil
}

// Main wraps a package's TestMain: it runs the tests and then stops a private
// cluster if one was started. Use: func TestMain(m *testing.M) { pgtest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if server != nil {
		_ = server.Close(context.Background())
	}
	os.Exit(code)
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) { return pgcluster.FreePort() }

// RepoRoot walks up from the working directory to the folder holding go.work.
func RepoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// Options choose what goes into the template.
type Options struct {
	// MigrationsDir defaults to <repo>/sql/migrations.
	MigrationsDir string
	// Fixtures are SQL files applied after the migrations, in order.
	Fixtures []string
}

// DB is one test's database.
type DB struct {
	Name string
	// URL connects as the superuser; URLAs switches the user.
	URL string
}

// URLAs returns the database URL for another login role (e.g. authenticator).
func (d *DB) URLAs(role string) string {
	u, err := url.Parse(d.URL)
	if err != nil {
		return d.URL
	}
	u.User = url.User(role)
	return u.String()
}

// New creates a fresh, migrated database for t and schedules its cleanup.
func New(t testing.TB, opts Options) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := ServerURL(ctx)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	tpl, err := ensureTemplate(ctx, admin, opts)
	if err != nil {
		t.Fatalf("pgtest: template: %v", err)
	}
	return create(ctx, t, admin, tpl)
}

func create(ctx context.Context, t testing.TB, admin, tpl string) *DB {
	t.Helper()
	name := "kejanest_test_" + randomHex(6)
	if err := exec(ctx, admin, fmt.Sprintf("create database %s template %s", pgx.Identifier{name}.Sanitize(), pgx.Identifier{tpl}.Sanitize())); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	db := &DB{Name: name, URL: withDatabase(admin, name)}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pgtest: kept database %s for inspection", name)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec(ctx, admin, fmt.Sprintf("drop database if exists %s with (force)", pgx.Identifier{name}.Sanitize())); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	return db
}

// NewEmpty creates a fresh database with nothing in it (no migrations), for
// tests of the migrator itself.
func NewEmpty(t testing.TB) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := ServerURL(ctx)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return create(ctx, t, admin, "template0")
}

// Template returns the name of the migrated template for opts, creating it if
// needed; tools that want their own copies (the stack harness) use it.
func Template(ctx context.Context, opts Options) (string, error) {
	admin, err := ServerURL(ctx)
	if err != nil {
		return "", err
	}
	return ensureTemplate(ctx, admin, opts)
}

func ensureTemplate(ctx context.Context, admin string, opts Options) (string, error) {
	dir := opts.MigrationsDir
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "sql", "migrations")
	}
	migs, err := migrate.Load(os.DirFS(dir))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range migs {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Name, m.Checksum)
	}
	fixtures := make([][]byte, len(opts.Fixtures))
	for i, f := range opts.Fixtures {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("read fixture: %w", err)
		}
		fixtures[i] = b
		fmt.Fprintf(h, "fixture\x00%s\x00", b)
	}
	name := "kejanest_tpl_" + hex.EncodeToString(h.Sum(nil))[:16]

	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// Test binaries of several packages run at once; one builds, the others
	// wait on the lock and then find the finished template.
	lockKey := int64(migrate.LockKey ^ 0x7465737400000000)
	if _, err := conn.Exec(ctx, "select pg_advisory_lock($1)", lockKey); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "select pg_advisory_unlock($1)", lockKey) }()

	var done bool
	err = conn.QueryRow(ctx, `select coalesce(shobj_description(oid, 'pg_database') = 'kejanest template complete', false)
		from pg_database where datname = $1`, name).Scan(&done)
	if err == nil && done {
		return name, nil
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("look up template: %w", err)
	}
	ident := pgx.Identifier{name}.Sanitize()
	// A half-built template from an interrupted run is rebuilt.
	if _, err := conn.Exec(ctx, "drop database if exists "+ident+" with (force)"); err != nil {
		return "", fmt.Errorf("drop stale template: %w", err)
	}
	if _, err := conn.Exec(ctx, "create database "+ident); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	tconn, err := pgx.Connect(ctx, withDatabase(admin, name))
	if err != nil {
		return "", fmt.Errorf("connect template: %w", err)
	}
	if _, err := migrate.Apply(ctx, tconn, migs); err != nil {
		tconn.Close(ctx)
		return "", err
	}
	for i, f := range fixtures {
		if _, err := tconn.Exec(ctx, string(f), pgx.QueryExecModeSimpleProtocol); err != nil {
			tconn.Close(ctx)
			return "", fmt.Errorf("fixture %s: %w", opts.Fixtures[i], err)
		}
	}
	tconn.Close(ctx)
	if _, err := conn.Exec(ctx, "comment on database "+ident+" is 'kejanest template complete'"); err != nil {
		return "", fmt.Errorf("mark template: %w", err)
	}
	return name, nil
}

func exec(ctx context.Context, admin, sql string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}

func withDatabase(admin, db string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + db
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
