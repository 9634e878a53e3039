package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// isSlowDown reports whether err is the 429 SlowDown a full budget answers.
func isSlowDown(err error) bool {
	var e *storageerr.Error
	return errors.As(err, &e) && e.Code == storageerr.CodeSlowDown && e.ResponseStatus() == 429
}

// TestImageBudget: units are taken while they fit, waited for in order
// otherwise, refused after the wait or when the context ends, and refused
// at once when more than the whole budget; a smaller request that fits
// goes ahead of a larger one waiting.
func TestImageBudget(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	t.Run("fits, then waits for a release", func(t *testing.T) {
		t.Parallel()
		b := NewImageBudget(100, time.Minute)
		a, err := b.acquire(ctx, 60)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		go func() {
			g, err := b.acquire(ctx, 60)
			if err == nil {
				g.release()
			}
			got <- err
		}()
		select {
		case err := <-got:
			t.Fatalf("second acquire returned %v while the first held its units", err)
		case <-time.After(50 * time.Millisecond):
		}
		a.release()
		a.release() // twice is once
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if b.InUse() != 0 || b.Peak() != 60 {
			t.Errorf("in use %d, peak %d; want 0, 60", b.InUse(), b.Peak())
		}
	})
	t.Run("refused after the queue timeout", func(t *testing.T) {
		t.Parallel()
		b := NewImageBudget(100, 20*time.Millisecond)
		a, _ := b.acquire(ctx, 100)
		defer a.release()
		if _, err := b.acquire(ctx, 1); !isSlowDown(err) {
			t.Fatalf("acquire on a full budget = %v, want SlowDown", err)
		}
		if len(b.waiters) != 0 {
			t.Errorf("%d waiters left", len(b.waiters))
		}
	})
	t.Run("refused when the request ends", func(t *testing.T) {
		t.Parallel()
		b := NewImageBudget(100, time.Minute)
		a, _ := b.acquire(ctx, 100)
		defer a.release()
		cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if _, err := b.acquire(cctx, 1); !isSlowDown(err) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("acquire = %v, want SlowDown caused by the deadline", err)
		}
	})
	t.Run("more than the budget is refused at once", func(t *testing.T) {
		t.Parallel()
		b := NewImageBudget(100, time.Minute)
		if _, err := b.acquire(ctx, 101); !isRefusal(err, "more than the 1 MiB the service allows") {
			t.Fatalf("acquire = %v, want a 422", err)
		}
	})
	t.Run("a small request passes a large one waiting", func(t *testing.T) {
		t.Parallel()
		b := NewImageBudget(100, time.Minute)
		a, _ := b.acquire(ctx, 70)
		large := make(chan *imageGrant)
		go func() {
			g, err := b.acquire(ctx, 50)
			if err != nil {
				t.Error(err)
			}
			large <- g
		}()
		for deadline, waiting := time.Now().Add(5*time.Second), 0; waiting == 0; {
			if time.Now().After(deadline) {
				t.Fatal("the large request never waited")
			}
			time.Sleep(time.Millisecond)
			b.mu.Lock()
			waiting = len(b.waiters)
			b.mu.Unlock()
		}
		small, err := b.acquire(ctx, 30)
		if err != nil {
			t.Fatal(err)
		}
		a.release() // 30 held: the large one fits now
		g := <-large
		if b.InUse() != 80 {
			t.Errorf("in use %d, want 80", b.InUse())
		}
		small.release()
		g.release()
	})
}

// TestConcurrentDecodesStayInBudget: many concurrent JPEG and PNG uploads
// through Sanitize never hold more than the budget at once, by the
// budget's own accounting, yet run side by side as far as it allows, and
// all succeed; every unit comes back. Without the bound the decodes all
// run at once and the peak is many times the budget.
func TestConcurrentDecodesStayInBudget(t *testing.T) {
	t.Parallel()
	pngData := flatPNG(t, pngSpec{w: 600, h: 400, colorType: pngRGBA, depth: 8})
	jpg := flatJPEG(jpegSpec{w: 1200, h: 800, hv: []byte{0x11, 0x11, 0x11}, progressive: true})
	pl := readPNGLayout(bytes.NewReader(pngData))
	jl, _ := parseJPEGLayout(jpg)
	pngCost := pl.decodeBytes(600, 400) + pngEncodeBytes(600)
	jpegCost := jl.decodeBytes() + jpegEncodeOverhead
	// Room for two or three at a time.
	limit := 2*max(pngCost, jpegCost) + min(pngCost, jpegCost)
	b := NewImageBudget(limit, time.Minute)
	const uploads = 16
	var wg sync.WaitGroup
	errs := make(chan error, uploads)
	for i := range uploads {
		in, ct := pngData, "image/png"
		if i%2 == 1 {
			in, ct = jpg, "image/jpeg"
		}
		wg.Go(func() {
			r, err := Sanitize(t.Context(), b, bytes.NewReader(in), ct, testMaxLen)
			if err != nil {
				errs <- fmt.Errorf("upload %d: %w", i, err)
				return
			}
			_, err = io.Copy(io.Discard, r)
			_ = r.Close()
			if err != nil {
				errs <- fmt.Errorf("upload %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if peak := b.Peak(); peak > limit || peak < 2*min(pngCost, jpegCost) {
		t.Errorf("peak %d bytes taken at once, want at most the budget %d and room for two decodes", peak, limit)
	}
	if b.InUse() != 0 {
		t.Errorf("%d bytes still taken", b.InUse())
	}
}

// TestSanitizeRefusesCostlyImage: an image whose decode alone would take
// more than the whole budget (a progressive CMYK JPEG within the pixel
// cap, at 28 bytes a pixel) is refused at once with a 422, before any
// pixel is decoded; one that fits but finds the budget full waits, then
// is refused with SlowDown.
func TestSanitizeRefusesCostlyImage(t *testing.T) {
	t.Parallel()
	costly := flatJPEG(jpegSpec{w: 8000, h: 5000, hv: []byte{0x11, 0x11, 0x11, 0x11}, before: [][]byte{adobeAPP14(0)}, progressive: true})
	b := NewImageBudget(DefaultImageMemoryLimit, time.Minute)
	if _, err := Sanitize(t.Context(), b, bytes.NewReader(costly), "image/jpeg", testMaxLen); !isRefusal(err, "of memory to process") {
		t.Fatalf("Sanitize(costly) = %v, want a 422", err)
	}
	b = NewImageBudget(DefaultImageMemoryLimit, 20*time.Millisecond)
	g, _ := b.acquire(t.Context(), DefaultImageMemoryLimit)
	defer g.release()
	small := flatPNG(t, pngSpec{w: 8, h: 8, colorType: pngGray, depth: 8})
	if _, err := Sanitize(t.Context(), b, bytes.NewReader(small), "image/png", testMaxLen); !isSlowDown(err) {
		t.Fatalf("Sanitize on a full budget = %v, want SlowDown", err)
	}
	gif := gifFile(1, 1, gifFrame(1, 1))
	if _, err := Sanitize(t.Context(), b, bytes.NewReader(gif), "image/gif", int64(len(gif))); !isSlowDown(err) {
		t.Fatalf("Sanitize(gif) on a full budget = %v, want SlowDown", err)
	}
}

// TestLateColorMarker: a 3-component JPEG costed as YCbCr whose APP14
// (Adobe, RGB) or APP0 comes after its scan, where image/jpeg would still
// read it and convert to RGBA (4 more bytes a pixel than the cost), is
// refused; before its scan it is costed as RGB and accepted.
func TestLateColorMarker(t *testing.T) {
	t.Parallel()
	ycc := jpegSpec{w: 64, h: 48, hv: []byte{0x22, 0x11, 0x11}}
	late := ycc
	late.after = [][]byte{adobeAPP14(0)}
	lateData := flatJPEG(late)
	// Unguarded, image/jpeg converts it.
	if img, err := jpeg.Decode(bytes.NewReader(lateData)); err != nil || fmt.Sprintf("%T", img) != "*image.RGBA" {
		t.Fatalf("late Adobe marker decodes to %T, %v; want *image.RGBA", img, err)
	}
	jfifLate := ycc
	jfifLate.before = [][]byte{jfifAPP0, adobeAPP14(0)}
	jfifLate.after = [][]byte{jfxxAPP0}
	early := ycc
	early.before = [][]byte{adobeAPP14(0)}
	tests := []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"Adobe after the scan", lateData, false},
		{"JFXX after the scan undoes JFIF", flatJPEG(jfifLate), false},
		{"Adobe before the frame", flatJPEG(early), true},
		{"plain", flatJPEG(ycc), true},
	}
	for _, tt := range tests {
		r, err := sanitize(bytes.NewReader(tt.in), "image/jpeg")
		if err == nil {
			_, err = io.Copy(io.Discard, r)
			_ = r.Close()
		}
		if tt.ok && err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if !tt.ok && !errors.Is(err, errLateColorMarker) && !isRefusal(err, errLateColorMarker.Error()) {
			t.Errorf("%s: %v, want a refusal", tt.name, err)
		}
	}
}
