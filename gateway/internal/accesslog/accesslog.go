// Package accesslog records what the gateway answered and writes exactly one
// structured log line per request.
//
// The line carries the path without its query string: queries carry tokens
// (the websocket apikey, signed-URL tokens, verification tokens), and
// nothing secret is ever logged.
package accesslog

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kejanest/kejanest/platform/jsonstring"
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
	// End is when the request ended, the line's "time"; zero means now.
	// The server has read the clock for Duration already, and a second
	// read per request showed in its profile.
	End time.Time
}

// Logger writes the access log: one JSON line per request, in the shape
// platform/logging's slog handler gives every other line ("time", "level",
// "msg", "service", then the entry's fields), so the merged output reads
// alike and log tools parse both.
//
// The line is appended by hand rather than through slog's JSON handler,
// which spent about 3 % of the gateway's CPU on it under load: it walks
// the attributes through interfaces and formats every float (duration_ms)
// with encoding/json.
type Logger struct {
	w       io.Writer
	enabled bool
	// head follows the time: the level, the message and the service.
	head string
	bufs sync.Pool
}

// NewLogger writes "request" lines for service to w when level lets info
// lines through. Each line is one Write call, so a logging.Batch keeps it
// whole.
func NewLogger(w io.Writer, service string, level slog.Level) *Logger {
	head := jsonstring.Append([]byte(`,"level":"INFO","msg":"request","service":`), service)
	l := &Logger{w: w, enabled: level <= slog.LevelInfo, head: string(head)}
	l.bufs.New = func() any { b := make([]byte, 0, 512); return &b }
	return l
}

// Log writes e's line; the upstream goes under "upstream" because
// "service" names the gateway itself. A nil Logger writes nothing.
func (l *Logger) Log(e Entry) {
	if l == nil || !l.enabled {
		return
	}
	path := e.Path
	if len(path) > maxPathLen {
		path = path[:maxPathLen]
	}
	bp := l.bufs.Get().(*[]byte)
	b := append((*bp)[:0], `{"time":"`...)
	end := e.End
	if end.IsZero() {
		end = time.Now()
	}
	// slog's own format: RFC 3339 to the millisecond.
	b = end.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, '"')
	b = append(b, l.head...)
	b = appendField(b, "request_id", e.RequestID)
	b = appendField(b, "method", e.Method)
	b = appendField(b, "path", path)
	b = appendField(b, "upstream", e.Service)
	b = appendField(b, "role", e.Role)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	// Milliseconds to the microsecond, written as a number.
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendFloat(b, float64(e.Duration.Microseconds())/1000, 'f', -1, 64)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.Bytes, 10)
	b = appendField(b, "remote_ip", e.RemoteIP)
	b = appendField(b, "user_agent", e.UserAgent)
	b = append(b, "}\n"...)
	_, _ = l.w.Write(b)
	*bp = b
	l.bufs.Put(bp)
}

func appendField(b []byte, key, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return jsonstring.Append(b, value)
}
