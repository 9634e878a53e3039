// Package coalesce lets the gateway send a response in one write to its
// connection where net/http would use several.
//
// net/http buffers a connection's output in 4 KiB. A larger response
// leaves as two writes or more: the header and the start of the body when
// the buffer fills, then the rest. Each write is a system call and, for a
// client on the same host, another wakeup. The app's list of 20 listings
// (about 12 KiB) went out in two, and with the one to PostgreSQL each
// request through the in-process REST route cost three writes; write(2)
// was a third of the gateway's CPU. Holding the response and sending it
// at once makes that two.
package coalesce

import (
	"context"
	"io"
	"net"
	"sync"
)

// MaxHeld bounds what a Conn holds: past it the bytes are sent as they
// come, since a response that large gains little from one write less.
const MaxHeld = 64 << 10

// bufs recycles held bytes between responses, so an idle keep-alive
// connection keeps none.
var bufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 16<<10)
	return &b
}}

// Conn is a TCP connection whose writes can be held (Hold) and then sent
// in one write (Release). Not holding, it writes through. Everything else
// is the TCP connection's own (deadlines, CloseWrite, splicing from it).
type Conn struct {
	*net.TCPConn
	mu sync.Mutex
	// held is non-nil while holding.
	held *[]byte
}

// Write holds p while the connection holds, else writes it.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		return c.TCPConn.Write(p)
	}
	if len(*c.held)+len(p) <= MaxHeld {
		*c.held = append(*c.held, p...)
		return len(p), nil
	}
	if err := c.releaseLocked(); err != nil {
		return 0, err
	}
	return c.TCPConn.Write(p)
}

// ReadFrom sends what is held first, so that bytes copied from r (which
// the TCP connection may splice without a Write) keep their order.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if err := c.Release(); err != nil {
		return 0, err
	}
	return c.TCPConn.ReadFrom(r)
}

// Hold starts holding writes.
func (c *Conn) Hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = bufs.Get().(*[]byte)
	}
}

// Release sends what was held, in one write, and stops holding. Its error
// is the write's: the connection is then broken, as it would be had the
// bytes been written at once.
func (c *Conn) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.releaseLocked()
}

func (c *Conn) releaseLocked() error {
	b := c.held
	if b == nil {
		return nil
	}
	c.held = nil
	var err error
	if len(*b) > 0 {
		_, err = c.TCPConn.Write(*b)
	}
	*b = (*b)[:0]
	bufs.Put(b)
	return err
}

// Listener wraps the TCP connections it accepts in Conn.
type Listener struct{ net.Listener }

// Accept returns the next connection, a *Conn when it is TCP.
func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return &Conn{TCPConn: tc}, nil
	}
	return c, nil
}

type connKey struct{}

// WithConn records c in ctx when it is a *Conn; it is an
// http.Server.ConnContext.
func WithConn(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, connKey{}, cc)
	}
	return ctx
}

// FromContext is the *Conn a request arrived on, or nil (TLS, a test
// server, a connection the Listener did not wrap).
func FromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}
