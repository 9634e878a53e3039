package logging

import (
	"io"
	"sync"
	"time"
)

// DefaultBatchDelay is how long a line may wait in a Batch before it is
// written.
const DefaultBatchDelay = 50 * time.Millisecond

// batchLimit is the buffered size that is written at once, without
// waiting for the delay.
const batchLimit = 64 << 10

// Batch is an io.Writer that gathers writes and passes them on together:
// at most every delay, or at once when batchLimit bytes are waiting. A
// process logging one line per request (the gateway's access log) then
// makes a few write calls a second instead of one per request. Each Write
// is kept whole, so JSON lines stay lines. Close writes what is left; a
// process must Close it before exiting, or lose up to delay of lines.
type Batch struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	err    error
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// NewBatch starts a Batch writing to w every delay (DefaultBatchDelay if
// delay is not positive).
func NewBatch(w io.Writer, delay time.Duration) *Batch {
	if delay <= 0 {
		delay = DefaultBatchDelay
	}
	b := &Batch{w: w, buf: make([]byte, 0, batchLimit), stop: make(chan struct{}), done: make(chan struct{})}
	go b.loop(delay)
	return b
}

func (b *Batch) loop(delay time.Duration) {
	defer close(b.done)
	t := time.NewTicker(delay)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.mu.Lock()
			b.flushLocked()
			b.mu.Unlock()
		case <-b.stop:
			return
		}
	}
}

// Write buffers p (or, after Close, writes it through). It reports the
// last error the underlying writer returned, once.
func (b *Batch) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= batchLimit {
		b.flushLocked()
	}
	if err := b.err; err != nil {
		b.err = nil
		return len(p), err
	}
	return len(p), nil
}

func (b *Batch) flushLocked() {
	if len(b.buf) == 0 {
		return
	}
	if _, err := b.w.Write(b.buf); err != nil {
		b.err = err
	}
	b.buf = b.buf[:0]
}

// Close stops the timer and writes what is buffered; later writes go
// straight through.
func (b *Batch) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.flushLocked()
	err := b.err
	b.err = nil
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	return err
}
