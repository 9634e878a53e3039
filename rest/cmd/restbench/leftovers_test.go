package main

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestLeftover(t *testing.T) {
	t.Parallel()
	running := func(pid int) bool { return pid == 100 }
	cases := []struct {
		name, comment string
		want          bool
	}{
		{"its restbench is gone", ownerLabel(200, "here"), true},
		{"its restbench still runs", ownerLabel(100, "here"), false},
		{"another host's", ownerLabel(200, "there"), false},
		{"a host name with ' on ' in it", ownerLabel(200, "here on there"), false},
		{"no label", "", false},
		{"someone else's comment", "kept for the demo", false},
		{"a broken pid", "restbench pid x on here", false},
		{"pid zero", "restbench pid 0 on here", false},
	}
	for _, tc := range cases {
		if got := leftover(tc.comment, "here", running); got != tc.want {
			t.Errorf("%s (%q): leftover = %v, want %v", tc.name, tc.comment, got, tc.want)
		}
	}
}

// TestDropLeftovers: of four benchmark databases, only the one whose
// restbench (on this host) has ended is dropped.
func TestDropLeftovers(t *testing.T) {
	ctx := context.Background()
	admin, err := pgtest.ServerURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dbs := map[string]string{
		benchPrefix + "test_ended":   ownerLabel(ended.Process.Pid, host),
		benchPrefix + "test_running": ownerLabel(os.Getpid(), host),
		benchPrefix + "test_remote":  ownerLabel(ended.Process.Pid, host+"-elsewhere"),
		benchPrefix + "test_bare":    "",
	}
	for name, label := range dbs {
		if err := execAdmin(ctx, admin, "create database "+pgx.Identifier{name}.Sanitize()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = execAdmin(ctx, admin, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)")
		})
		if label != "" {
			if err := labelDatabase(ctx, admin, name, label); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := dropLeftovers(ctx, admin, host); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, "select datname from pg_database where starts_with(datname, $1) order by 1", benchPrefix+"test_")
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{benchPrefix + "test_bare", benchPrefix + "test_remote", benchPrefix + "test_running"}
	if !slices.Equal(left, want) {
		t.Errorf("databases left = %v, want %v", left, want)
	}
}
