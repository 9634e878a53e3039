package objects

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Defaults of the image memory budget (IMAGE_PROCESSING_MEMORY_LIMIT,
// IMAGE_PROCESSING_QUEUE_TIMEOUT).
const (
	DefaultImageMemoryLimit  = 256 << 20
	DefaultImageQueueTimeout = 30 * time.Second
)

// ImageBudget bounds the memory that image uploads hold at once. It is a
// weighted semaphore over bytes. Before an image is decoded (or held whole
// while its metadata is cut), its cost is worked out from its header and
// taken from the budget. The units come back when the work ends.
//
// An upload whose cost fits in what is free goes ahead, even past larger
// ones that are waiting. The others wait in arrival order, and each is
// let in as soon as it fits. Small photos keep flowing while a large one
// waits. A large one can be overtaken until its wait ends; it then gets
// SlowDown and the client retries.
//
// The waits are bounded by the request's context and the queue timeout. An
// upload that cannot get its units in time is refused with SlowDown (HTTP
// 429). One whose cost is more than the whole budget is refused at once
// (422), as it could never be processed.
type ImageBudget struct {
	limit int64
	wait  time.Duration

	mu      sync.Mutex
	held    int64
	peak    int64
	waiters []*budgetWaiter // in arrival order
}

// budgetWaiter is one upload waiting for n units; ready is closed once
// they are taken for it.
type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

// NewImageBudget returns a budget of limit bytes, whose uploads wait at
// most wait for their units (0: refuse at once when they do not fit).
func NewImageBudget(limit int64, wait time.Duration) *ImageBudget {
	return &ImageBudget{limit: limit, wait: max(wait, 0)}
}

// Limit is the budget, in bytes.
func (b *ImageBudget) Limit() int64 { return b.limit }

// InUse is the number of bytes taken now.
func (b *ImageBudget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// Peak is the largest number of bytes ever taken at once. It never
// exceeds Limit.
func (b *ImageBudget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// imageGrant is units taken from a budget; release gives them back once.
type imageGrant struct {
	b    *ImageBudget
	n    int64
	once sync.Once
}

// release gives the units back, once. The memory they stood for is garbage
// by then; a large grant (a sixteenth of the budget or more) first has it
// collected, so the uploads let in next reuse it. Otherwise the heap grows
// by it until the collector's next cycle, which at the default GOGC comes
// at about twice the live heap: twelve uploads of a 160 MB image, let in
// one after the other, grew the process by 461 MiB without the collection
// against 256 MiB of budget.
func (g *imageGrant) release() {
	g.once.Do(func() {
		if g.n >= g.b.limit/16 {
			runtime.GC()
		}
		g.b.put(g.n)
	})
}

// acquire takes n bytes from the budget, waiting for them at most until
// ctx is done or the queue timeout passes.
func (b *ImageBudget) acquire(ctx context.Context, n int64) (*imageGrant, error) {
	if n > b.limit {
		return nil, storageerr.ImageRefused(http.StatusUnprocessableEntity,
			"image needs about "+mib(n)+" of memory to process, more than the "+mib(b.limit)+" the service allows")
	}
	b.mu.Lock()
	if b.held+n <= b.limit {
		b.take(n)
		b.mu.Unlock()
		return &imageGrant{b: b, n: n}, nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()

	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	var cause error
	select {
	case <-w.ready:
		return &imageGrant{b: b, n: n}, nil
	case <-ctx.Done():
		cause = ctx.Err()
	case <-timer.C:
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // let in while giving up: keep the units
		return &imageGrant{b: b, n: n}, nil
	default:
	}
	for i, o := range b.waiters {
		if o == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			break
		}
	}
	e := storageerr.SlowDown("Too many images are being processed; retry later")
	e.Cause = cause
	return nil, e
}

// take records n more bytes held; b.mu is held.
func (b *ImageBudget) take(n int64) {
	b.held += n
	b.peak = max(b.peak, b.held)
}

// put gives n bytes back and lets in, oldest first, every waiter that now
// fits.
func (b *ImageBudget) put(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
	kept := b.waiters[:0]
	for _, w := range b.waiters {
		if b.held+w.n <= b.limit {
			b.take(w.n)
			close(w.ready)
			continue
		}
		kept = append(kept, w)
	}
	clear(b.waiters[len(kept):])
	b.waiters = kept
}

// mib renders a byte count in whole MiB, rounded up.
func mib(n int64) string {
	return strconv.FormatInt((n+1<<20-1)>>20, 10) + " MiB"
}
