package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/db"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// reencoders counts the running re-encoding goroutines (labelled
// storage=reencode by startReencoder).
func reencoders(t *testing.T) int {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	_, profile, _ := strings.Cut(b.String(), "\n")
	n := 0
	for _, rec := range strings.Split(profile, "\n\n") {
		if strings.Contains(rec, `"storage":"reencode"`) {
			var c int
			if _, err := fmt.Sscanf(rec, "%d @", &c); err != nil {
				t.Fatalf("goroutine profile record %q: %v", rec, err)
			}
			n += c
		}
	}
	return n
}

// waitNoReencoders fails the test unless every re-encoder has returned
// within a few seconds (one that closed its done channel may still be
// unwinding).
func waitNoReencoders(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for reencoders(t) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d re-encoding goroutine(s) still running", reencoders(t))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// noisyPNG is a PNG that compresses badly, so its re-encoding takes many
// pipe writes.
func noisyPNG(t *testing.T, side int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	x := uint32(2463534242)
	for i := range img.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = byte(x)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// countingReader counts its reads.
type countingReader struct {
	r     io.Reader
	reads atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.r.Read(p)
}

// oneByteReader hands out one byte a read, like a slow client.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// TestSanitizeCloseEndsReencoder: closing the re-encoded stream before its
// end, whether the decoder is still reading the upload or the encoder is
// blocked writing, returns only once the goroutine has, and the upload is
// not read after that. Not parallel: it counts the package's re-encoders.
func TestSanitizeCloseEndsReencoder(t *testing.T) {
	img := noisyPNG(t, 256)
	tests := []struct {
		name string
		// read is how much output is consumed before Close; 0 means none
		// (the decoder is still pulling the slow upload).
		read int64
	}{
		{"encoder blocked on the pipe", 4096},
		{"decoder still reading", 0},
	}
	for _, tt := range tests {
		in := &countingReader{r: oneByteReader{bytes.NewReader(img)}}
		r, err := sanitize(in, "image/png")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.read > 0 {
			if _, err := io.CopyN(io.Discard, r, tt.read); err != nil {
				t.Fatalf("%s: read: %v", tt.name, err)
			}
		}
		closed := make(chan struct{})
		go func() { _ = r.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Close did not return", tt.name)
		}
		reads := in.reads.Load()
		waitNoReencoders(t)
		if tt.read == 0 && reads >= int64(len(img)) {
			t.Errorf("%s: the whole upload was read (%d reads) after the output was abandoned", tt.name, reads)
		}
		if got := in.reads.Load(); got != reads {
			t.Errorf("%s: %d reads of the upload after Close returned", tt.name, got-reads)
		}
		if _, err := r.Read(make([]byte, 1)); err == nil {
			t.Errorf("%s: read after Close succeeded", tt.name)
		}
	}
}

// failingBackend's Put reads a little of the object, then fails, like an S3
// error or a cancelled request part-way through.
type failingBackend struct {
	backend.Backend // nil: other methods are not called but Delete
	read            int64
}

var errPutFailed = errors.New("put failed part-way")

func (f failingBackend) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	n, _ := io.CopyN(io.Discard, r, f.read)
	return n, errPutFailed
}

func (failingBackend) Delete(context.Context, ...string) error { return nil }

// TestUploadFailedPutEndsReencoder: an image upload whose backend write fails
// before reading the whole re-encoded stream leaves no re-encoding goroutine
// behind (before the fix it blocked on its pipe forever, holding the decoded
// image). Not parallel: it counts the package's re-encoders.
func TestUploadFailedPutEndsReencoder(t *testing.T) {
	pdb := pgtest.New(t, pgtest.Options{})
	pool, err := pgxpool.New(context.Background(), pdb.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	img := noisyPNG(t, 256)
	for _, read := range []int64{0, 100, 64 << 10} {
		svc := &Service{DB: db.New(pool), Backend: failingBackend{read: read}, FileSizeLimit: 10 << 20, Log: slog.New(slog.DiscardHandler)}
		_, err := svc.Upload(context.Background(), db.Service(), Upload{
			Bucket: "images", Name: fmt.Sprintf("u/%d.png", read), Body: bytes.NewReader(img), ContentLength: -1, ContentType: "image/png",
		})
		if !errors.Is(err, errPutFailed) {
			t.Fatalf("Put reading %d bytes: Upload = %v, want the Put error", read, err)
		}
		waitNoReencoders(t)
	}
}
