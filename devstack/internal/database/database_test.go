package database

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestEnsureMigrateSeedDrop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, err := pgtest.ServerURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := WithDatabase(admin, "kejanest_devstack_test_"+filepath.Base(t.TempDir()))
	if err := EnsureDatabase(ctx, url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = DropDatabase(context.Background(), url) })
	if err := EnsureDatabase(ctx, url); err != nil {
		t.Fatalf("second ensure must accept the existing database: %v", err)
	}
	applied, err := Migrate(ctx, url, filepath.Join(pgtest.RepoRoot(), "sql", "migrations"))
	if err != nil || len(applied) == 0 {
		t.Fatalf("migrate: %v %v", applied, err)
	}

	seeds := t.TempDir()
	must := func(name, body string) {
		if err := os.WriteFile(filepath.Join(seeds, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must("001_table.sql", "create table public.demo (n int); insert into public.demo values (1);")
	must("002_rows.sql", "insert into public.demo values (2);")
	must("notes.txt", "not sql")
	got, err := Seed(ctx, url, seeds)
	if err != nil || len(got) != 2 {
		t.Fatalf("first seed: %v %v", got, err)
	}
	got, err = Seed(ctx, url, seeds)
	if err != nil || len(got) != 0 {
		t.Fatalf("seeds must apply once: %v %v", got, err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = conn.QueryRow(ctx, "select count(*) from public.demo").Scan(&n)
	conn.Close(ctx)
	if err != nil || n != 2 {
		t.Fatalf("rows %d (%v), want 2", n, err)
	}
	// A missing seed folder is not an error: the schema may have no demo data.
	if got, err := Seed(ctx, url, filepath.Join(seeds, "absent")); err != nil || got != nil {
		t.Fatalf("absent folder: %v %v", got, err)
	}
	if err := DropDatabase(ctx, url); err != nil {
		t.Fatal(err)
	}
	if _, err := pgx.Connect(ctx, url); err == nil {
		t.Fatal("database still exists after drop")
	}
}

func TestURLHelpers(t *testing.T) {
	t.Parallel()
	base := "postgres://postgres:secret@db.example:5432/app?sslmode=disable"
	tests := []struct{ name, got, want string }{
		{"user swapped, password dropped", WithUser(base, "authenticator", ""), "postgres://authenticator@db.example:5432/app?sslmode=disable"},
		{"user swapped, own password", WithUser(base, "authenticator", "p@ss/w:rd"), "postgres://authenticator:p%40ss%2Fw%3Ard@db.example:5432/app?sslmode=disable"},
		{"database swapped", WithDatabase(base, "other"), "postgres://postgres:secret@db.example:5432/other?sslmode=disable"},
		{"redacted", Redact(base), "postgres://postgres:xxxxx@db.example:5432/app?sslmode=disable"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}
