package resumable

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// lock serialises the requests on one upload, waiting at most m's lock
// wait in all: first within this process (keyedLock, which waits without
// holding a database connection), then across every replica with a
// PostgreSQL advisory lock (m.Locker), as Supabase Storage locks an
// upload. A request that waits too long answers 423 Locked, which TUS
// clients retry.
func (m *Manager) lock(ctx context.Context, id string) (func(), error) {
	wait := m.LockWait
	if wait <= 0 {
		wait = lockWait
	}
	deadline := time.Now().Add(wait)
	unlockLocal, err := m.locks.lock(ctx, id, wait)
	if err != nil {
		return nil, err
	}
	if m.Locker == nil {
		return unlockLocal, nil
	}
	unlockShared, err := m.Locker.Lock(ctx, "storage.resumable:"+id, time.Until(deadline))
	if err != nil {
		unlockLocal()
		if errors.Is(err, db.ErrLockTimeout) {
			return nil, errLocked()
		}
		return nil, err
	}
	return func() { unlockShared(); unlockLocal() }, nil
}

func errLocked() error {
	return &storageerr.Error{Status: http.StatusLocked, HTTPStatus: http.StatusLocked, Code: storageerr.CodeInvalidRequest,
		ErrorText: "locked", Message: "The upload is being written by another request"}
}

// keyedLock serialises the requests on one upload within this process.
type keyedLock struct {
	mu    sync.Mutex
	locks map[string]*entry
}

type entry struct {
	ch   chan struct{} // holds one token while the lock is taken
	refs int
}

// lock takes id's lock, waiting at most wait; it answers 423 Locked, which
// TUS clients retry, when another request keeps it longer.
func (k *keyedLock) lock(ctx context.Context, id string, wait time.Duration) (func(), error) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*entry{}
	}
	e := k.locks[id]
	if e == nil {
		e = &entry{ch: make(chan struct{}, 1)}
		k.locks[id] = e
	}
	e.refs++
	k.mu.Unlock()

	release := func() {
		k.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(k.locks, id)
		}
		k.mu.Unlock()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case e.ch <- struct{}{}:
		return func() { <-e.ch; release() }, nil
	case <-t.C:
	case <-ctx.Done():
	}
	release()
	return nil, errLocked()
}
