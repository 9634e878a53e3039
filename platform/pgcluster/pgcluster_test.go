package pgcluster

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A private cluster initializes, serves, stops, and on a second start reuses
// its data: what `make run` relies on for a fast second start.
func TestClusterLifecycle(t *testing.T) {
	t.Parallel()
	bin, err := FindBinaries()
	if err != nil {
		t.Fatalf("this machine must have PostgreSQL binaries for the embedded default: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := New(filepath.Join(t.TempDir(), "pg", "data"), freePort(t), bin)
	if err != nil {
		t.Fatal(err)
	}
	if c.Initialized() {
		t.Fatal("fresh directory reported as initialized")
	}
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = c.Stop(context.Background())
		}
	})
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "create table kept (v text); insert into kept values ('first start')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if err := c.Start(ctx); err == nil {
		t.Error("a second start on a busy port must fail")
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	began := time.Now()
	if err := c.Init(ctx); err != nil { // no-op on an initialized directory
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart took %v", time.Since(began))
	conn, err = pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, "select v from kept").Scan(&v); err != nil || v != "first start" {
		t.Fatalf("data not kept across restarts: %q %v", v, err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
}

func TestFindBinariesHonoursPGBINDIR(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PG_BINDIR", dir) // empty dir: must be skipped, not chosen
	got, err := FindBinaries()
	if err == nil && got == dir {
		t.Fatalf("chose %s although it has no binaries", dir)
	}
}
