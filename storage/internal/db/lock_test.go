package db

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
)

// replicas returns n Lockers on one database, each with its own pool of
// two connections as authenticator (as n storage replicas would have),
// and a superuser pool to look at pg_locks.
func replicas(t *testing.T, n int) ([]*Locker, *pgxpool.Pool) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	open := func(url string) *pgxpool.Pool {
		cfg, err := pgxpool.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = 2
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		// A connection opened now, so that a Lock's wait in the tests is
		// spent on the lock: opening one took over the 150 ms wait when
		// CI ran the storage suites beside this one.
		if err := pool.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
		return pool
	}
	lockers := make([]*Locker, n)
	for i := range lockers {
		lockers[i] = NewLocker(open(db.URLAs("authenticator")))
	}
	return lockers, open(db.URL)
}

// advisoryLocks counts the advisory locks held in su's database (pg_locks
// shows the whole cluster's, and other tests run beside this one).
func advisoryLocks(t *testing.T, su *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := su.QueryRow(context.Background(), `select count(*) from pg_locks
		where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLocker holds one key on one replica: the other replica waits
// its whole wait and gets ErrLockTimeout, takes another key at once, and
// takes the first key once it is released; released locks leave nothing
// in pg_locks, and the connections go back to their pools (two each, so
// a leak would show on the third round).
func TestLocker(t *testing.T) {
	t.Parallel()
	lockers, su := replicas(t, 2)
	a, b := lockers[0], lockers[1]
	ctx := context.Background()
	const wait = 150 * time.Millisecond
	for round := range 3 {
		unlockA, err := a.Lock(ctx, "upload-1", wait)
		if err != nil {
			t.Fatalf("round %d: A: %v", round, err)
		}
		began := time.Now()
		if _, err := b.Lock(ctx, "upload-1", wait); !errors.Is(err, ErrLockTimeout) {
			t.Fatalf("round %d: B took a key A holds: %v", round, err)
		}
		if waited := time.Since(began); waited < wait {
			t.Errorf("round %d: B gave up after %v, before its wait of %v", round, waited, wait)
		}
		unlockOther, err := b.Lock(ctx, "upload-2", wait)
		if err != nil {
			t.Fatalf("round %d: B, another key: %v", round, err)
		}
		if n := advisoryLocks(t, su); n != 2 {
			t.Errorf("round %d: %d advisory locks held, want 2", round, n)
		}
		unlockOther()
		unlockA()
		unlockB, err := b.Lock(ctx, "upload-1", wait)
		if err != nil {
			t.Fatalf("round %d: B after A's release: %v", round, err)
		}
		unlockB()
		if n := advisoryLocks(t, su); n != 0 {
			t.Errorf("round %d: %d advisory locks left after every release", round, n)
		}
	}
}

// TestLockerCancelled: a waiter whose context ends stops waiting
// with the context's error and leaves no lock behind, even though the
// holder then releases (the lock could have gone to the cancelled
// session).
func TestLockerCancelled(t *testing.T) {
	t.Parallel()
	lockers, su := replicas(t, 2)
	a, b := lockers[0], lockers[1]
	unlock, err := a.Lock(context.Background(), "upload-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.Lock(ctx, "upload-1", 10*time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled waiter: %v, want the context's deadline", err)
	}
	unlock()
	deadline := time.Now().Add(2 * time.Second)
	for advisoryLocks(t, su) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("an advisory lock is still held after the holder released and the waiter was cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLockerPoolExhausted: with every connection of the Locker's pool
// holding a lock, one more waits its wait for a connection and gets
// ErrLockTimeout (423 for an upload), not an endless wait.
func TestLockerPoolExhausted(t *testing.T) {
	t.Parallel()
	lockers, _ := replicas(t, 1)
	l := lockers[0]
	ctx := context.Background()
	for _, key := range []string{"upload-1", "upload-2"} {
		unlock, err := l.Lock(ctx, key, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
	}
	began := time.Now()
	if _, err := l.Lock(ctx, "upload-3", 150*time.Millisecond); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("a third lock on a pool of two: %v, want ErrLockTimeout", err)
	}
	if waited := time.Since(began); waited > 2*time.Second {
		t.Errorf("the third lock waited %v for a wait of 150ms", waited)
	}
}
