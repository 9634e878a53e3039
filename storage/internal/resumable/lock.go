package resumable

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// keyedLock serialises the requests on one upload within this process.
// Several storage replicas would need a shared lock (Supabase takes a
// PostgreSQL advisory lock); see the README.
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
	return nil, &storageerr.Error{Status: http.StatusLocked, HTTPStatus: http.StatusLocked, Code: storageerr.CodeInvalidRequest,
		ErrorText: "locked", Message: "The upload is being written by another request"}
}
