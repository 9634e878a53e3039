package coalesce

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// pair is a *Conn from a real Listener and the client end of its
// loopback connection.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := Listener{Listener: ln}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, ok := (<-accepted).(*Conn)
	if !ok {
		t.Fatal("Listener did not wrap a TCP connection in *Conn")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return server, client
}

// nothingArrives fails if c can read a byte within 50 ms.
func nothingArrives(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	defer c.SetReadDeadline(time.Time{})
	var b [1]byte
	if n, err := c.Read(b[:]); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read %d bytes (%v) while held, want nothing", n, err)
	}
}

func readN(t *testing.T, c net.Conn, n int) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, n)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	return string(b)
}

// Held writes reach the peer only on Release, whole and in order, however
// they were split; then the connection writes through again.
func TestHoldRelease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		pieces []string
	}{
		{"nothing", nil},
		{"one piece", []string{"HTTP/1.1 200 OK\r\n\r\n{}"}},
		// net/http's way with a 12 KiB body: a full 4 KiB buffer, then
		// the rest written past the buffer.
		{"as net/http splits a large body", []string{strings.Repeat("h", 4096), strings.Repeat("b", 8400)}},
		{"up to the bound", []string{strings.Repeat("x", MaxHeld-1), "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			server, client := pair(t)
			server.Hold()
			for _, p := range tt.pieces {
				if n, err := server.Write([]byte(p)); n != len(p) || err != nil {
					t.Fatalf("held write: %d, %v", n, err)
				}
			}
			nothingArrives(t, client)
			if err := server.Release(); err != nil {
				t.Fatal(err)
			}
			want := strings.Join(tt.pieces, "")
			if got := readN(t, client, len(want)); got != want {
				t.Fatalf("got %d bytes, want %d in order", len(got), len(want))
			}
			if _, err := server.Write([]byte("after")); err != nil {
				t.Fatal(err)
			}
			if got := readN(t, client, 5); got != "after" {
				t.Fatalf("after release got %q", got)
			}
		})
	}
}

// Past MaxHeld the held bytes and the new ones leave at once, in order,
// and the connection stops holding.
func TestHoldBeyondBound(t *testing.T) {
	t.Parallel()
	server, client := pair(t)
	server.Hold()
	first := strings.Repeat("a", MaxHeld-10)
	second := strings.Repeat("b", 20)
	for _, p := range []string{first, second} {
		if _, err := server.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if got := readN(t, client, len(first)+len(second)); got != first+second {
		t.Fatal("bytes past the bound arrived out of order")
	}
	if _, err := server.Write([]byte("c")); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, client, 1); got != "c" {
		t.Fatalf("got %q: the connection still holds past the bound", got)
	}
	if err := server.Release(); err != nil {
		t.Fatalf("release after the bound: %v", err)
	}
}

// ReadFrom (which may splice without calling Write) sends what is held
// first.
func TestReadFromKeepsOrder(t *testing.T) {
	t.Parallel()
	server, client := pair(t)
	server.Hold()
	if _, err := server.Write([]byte("header;")); err != nil {
		t.Fatal(err)
	}
	if _, err := server.ReadFrom(strings.NewReader("body")); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, client, len("header;body")); got != "header;body" {
		t.Fatalf("got %q", got)
	}
}

// Release reports the write's error on a closed connection.
func TestReleaseError(t *testing.T) {
	t.Parallel()
	server, _ := pair(t)
	server.Hold()
	if _, err := server.Write([]byte("lost")); err != nil {
		t.Fatal(err)
	}
	server.Close()
	if err := server.Release(); err == nil {
		t.Fatal("release on a closed connection: want an error")
	}
}

func TestContext(t *testing.T) {
	t.Parallel()
	server, client := pair(t)
	if got := FromContext(WithConn(context.Background(), server)); got != server {
		t.Errorf("FromContext of a *Conn: %v", got)
	}
	// The client end is a plain *net.TCPConn: not recorded.
	if got := FromContext(WithConn(context.Background(), client)); got != nil {
		t.Errorf("FromContext of a plain connection: %v", got)
	}
	if got := FromContext(context.Background()); got != nil {
		t.Errorf("FromContext without one: %v", got)
	}
}

// A released buffer comes back empty.
func TestReleaseEmptiesBuffer(t *testing.T) {
	t.Parallel()
	server, client := pair(t)
	for _, p := range []string{"first", "second"} {
		server.Hold()
		if _, err := server.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := server.Release(); err != nil {
			t.Fatal(err)
		}
		if got := readN(t, client, len(p)); got != p {
			t.Fatalf("got %q, want %q (a buffer reused with old bytes?)", got, p)
		}
	}
}
