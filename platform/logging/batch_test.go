package logging

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder keeps every Write it gets, separately.
type recorder struct {
	mu     sync.Mutex
	writes []string
	err    error
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, string(p))
	return len(p), r.err
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...)
}

func TestBatch(t *testing.T) {
	t.Run("lines wait for the delay and go out together", func(t *testing.T) {
		rec := &recorder{}
		b := NewBatch(rec, time.Hour)
		for _, l := range []string{"a\n", "b\n", "c\n"} {
			if _, err := b.Write([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if w := rec.got(); len(w) != 0 {
			t.Fatalf("written before the delay: %q", w)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if w := rec.got(); len(w) != 1 || w[0] != "a\nb\nc\n" {
			t.Fatalf("Close wrote %q, want one write of the three lines", w)
		}
		if _, err := b.Write([]byte("after\n")); err != nil {
			t.Fatal(err)
		}
		if w := rec.got(); len(w) != 2 || w[1] != "after\n" {
			t.Errorf("a write after Close: %q, want it written through", w)
		}
	})
	t.Run("the timer writes", func(t *testing.T) {
		rec := &recorder{}
		b := NewBatch(rec, 5*time.Millisecond)
		defer b.Close()
		_, _ = b.Write([]byte("line\n"))
		deadline := time.Now().Add(5 * time.Second)
		for len(rec.got()) == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if w := rec.got(); len(w) != 1 || w[0] != "line\n" {
			t.Errorf("after the delay: %q", w)
		}
	})
	t.Run("a full buffer is written at once", func(t *testing.T) {
		rec := &recorder{}
		b := NewBatch(rec, time.Hour)
		defer b.Close()
		line := strings.Repeat("x", 1023) + "\n"
		for range batchLimit / len(line) {
			_, _ = b.Write([]byte(line))
		}
		w := rec.got()
		if len(w) != 1 || len(w[0]) != batchLimit {
			t.Fatalf("%d writes, want one of %d bytes", len(w), batchLimit)
		}
	})
	t.Run("an error of the writer is reported once", func(t *testing.T) {
		rec := &recorder{err: errors.New("disk full")}
		b := NewBatch(rec, time.Hour)
		// A full buffer is written within this Write, which reports it.
		if _, err := b.Write(bytes.Repeat([]byte("y"), batchLimit)); err == nil || err.Error() != "disk full" {
			t.Errorf("the write that flushed: %v, want disk full", err)
		}
		if _, err := b.Write([]byte("z")); err != nil {
			t.Errorf("the next write: %v, want nil (reported once)", err)
		}
		// Close flushes "z" into the failing writer and reports it.
		if err := b.Close(); err == nil {
			t.Error("Close: nil, want the flush's error")
		}
	})
	t.Run("lines stay whole under concurrent writers", func(t *testing.T) {
		var out bytes.Buffer
		var mu sync.Mutex
		b := NewBatch(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) }), time.Millisecond)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 200 {
					_, _ = b.Write([]byte(strings.Repeat(string(rune('a'+g)), 40) + "\n"))
				}
			}()
		}
		wg.Wait()
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 1600 {
			t.Fatalf("%d lines, want 1600", len(lines))
		}
		for _, l := range lines {
			if len(l) != 40 || strings.Count(l, l[:1]) != 40 {
				t.Fatalf("mixed line %q", l)
			}
		}
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
