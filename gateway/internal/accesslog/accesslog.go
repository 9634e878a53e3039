// Package accesslog records what the gateway answered and writes exactly one
// structured log line per request.
//
// The line carries the path without its query string: queries carry tokens
// (the websocket apikey, signed-URL tokens, verification tokens), and
// nothing secret is ever logged.
package accesslog

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// maxPathLen bounds the logged path so a hostile URL cannot bloat the logs.
const maxPathLen = 1024

// Recorder wraps a ResponseWriter to learn the status and body size. It
// keeps the Flusher and Hijacker behaviour of the writer it wraps (through
// http.ResponseController), which streaming and websocket proxying need.
type Recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	// upgraded counts bytes written to a hijacked connection; the proxy
	// writes it from its own goroutines, hence atomic.
	upgraded atomic.Int64
}

// NewRecorder wraps w.
func NewRecorder(w http.ResponseWriter) *Recorder { return &Recorder{ResponseWriter: w} }

// Status is the status sent, 200 if the handler wrote nothing explicit,
// 101 after a protocol switch.
func (r *Recorder) Status() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// Bytes is the number of body bytes sent, or for an upgraded connection the
// bytes written to the client after the switch.
func (r *Recorder) Bytes() int64 { return r.bytes + r.upgraded.Load() }

// WriteHeader records the first status.
func (r *Recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write records the body size.
func (r *Recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

// FlushError flushes the wrapped writer; ReverseProxy calls it for
// streamed responses.
func (r *Recorder) FlushError() error {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return http.NewResponseController(r.ResponseWriter).Flush()
}

// Flush satisfies http.Flusher for callers that check for it directly.
func (r *Recorder) Flush() { _ = r.FlushError() }

// Hijack takes over the connection for a protocol switch; the returned
// connection counts the bytes written to the client.
func (r *Recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// ReverseProxy writes the 101 response itself on the hijacked
	// connection, so WriteHeader never sees it.
	r.status = http.StatusSwitchingProtocols
	cc := &countingConn{Conn: conn, n: &r.upgraded}
	return cc, bufio.NewReadWriter(brw.Reader, bufio.NewWriter(cc)), nil
}

// Unwrap gives http.ResponseController the wrapped writer.
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// Entry is one request's log line.
type Entry struct {
	RequestID string
	Method    string
	Path      string // r.URL.Path: never the query
	Service   string // which upstream (or "gateway", "frontend")
	Role      string
	Status    int
	Duration  time.Duration
	Bytes     int64
	RemoteIP  string
	UserAgent string
}

// Log writes e as one "request" line at info level. The upstream is logged
// under "upstream" because platform/logging already puts "service":"gateway"
// on every line and a JSON object must not repeat a key.
//
// The record is built here and handed to l's handler rather than through
// l.LogAttrs, which would walk the stack (runtime.Callers) for a source
// position no handler of ours prints and that would always name this
// function: 1 % of the gateway's CPU under load, for nothing.
func Log(ctx context.Context, l *slog.Logger, e Entry) {
	if !l.Enabled(ctx, slog.LevelInfo) {
		return
	}
	path := e.Path
	if len(path) > maxPathLen {
		path = path[:maxPathLen]
	}
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("request_id", e.RequestID),
		slog.String("method", e.Method),
		slog.String("path", path),
		slog.String("upstream", e.Service),
		slog.String("role", e.Role),
		slog.Int("status", e.Status),
		slog.Float64("duration_ms", float64(e.Duration.Microseconds())/1000),
		slog.Int64("bytes", e.Bytes),
		slog.String("remote_ip", e.RemoteIP),
		slog.String("user_agent", e.UserAgent),
	)
	_ = l.Handler().Handle(ctx, r)
}
