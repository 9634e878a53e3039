package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kejanest/kejanest/gateway/internal/requestid"
)

// Replicas and passive health.
//
// A service configured with several base URLs is served by all of them.
// Each request goes to the replica with the fewest requests in flight,
// ties going to the next replica in turn, so sequential requests alternate.
// Least in-flight rather than round-robin, for two reasons:
//   - realtime's websockets stay open for hours and count as in flight the
//     whole time: after a replica restarts, its clients reconnect onto it,
//     where round-robin would hand half of them to the replicas that kept
//     their own sockets and leave the load uneven until the sockets churn;
//   - a replica that slows down (a saturated database pool, a busy host)
//     accumulates requests in flight and gets fewer new ones.
//
// Its cost over round-robin is small and confined to multi-replica routes:
// a scan of a few atomic counters and one small allocation per response
// (the body wrapper that ends the count when ReverseProxy closes it). A
// single-URL route has no balancer at all: its requests take exactly the
// path they always took.
//
// Passive health: a replica that refuses the connection (any dial error:
// refused, unreachable, timed out; nothing was sent) is skipped for
// backoffMin, doubling with each further refusal up to backoffMax, and the
// request is tried on the next replica. That is safe for every method
// because the replica never saw the request. An error once the connection
// is made (a reset, a response cut short) is not retried, since the
// replica may have acted on the request; ReverseProxy answers it 502 as
// before. A replica's first response after a back-off ends it. When no
// replica outside its back-off is left to try, a request still tries the
// one whose back-off ends first, once: with every replica down the gateway
// behaves as with one URL (one dial, then 502), and a replica that comes
// back is found by the next request rather than after its back-off.
//
// Not covered: a request sent on a pooled keep-alive connection that the
// replica closes at that very moment fails as before (net/http itself
// retries it when it is idempotent); a replica that dies closes its
// connections, and the transport drops them from its pool on the spot.

const (
	// backoffMin is how long a replica that refused a connection is
	// skipped; each consecutive refusal doubles it up to backoffMax.
	backoffMin = time.Second
	backoffMax = 10 * time.Second

	// MaxReplicas bounds the base URLs of one service: a request's set of
	// replicas already tried is one uint64.
	MaxReplicas = 64
)

// backoff is the back-off after the nth consecutive refusal (n >= 1).
func backoff(n int) time.Duration {
	if n > 4 { // 1 s << 4 is past backoffMax already; no shift overflows
		return backoffMax
	}
	return min(backoffMin<<(n-1), backoffMax)
}

// Replica is one base URL of a service. Its counters are what /metrics
// reports per replica; all methods are safe for concurrent use.
type Replica struct {
	b      *balancer
	index  uint // position in the route's list; bit in a request's tried set
	scheme string
	host   string // host[:port] as configured: the upstream address and the metric label

	inFlight  atomic.Int64
	responses atomic.Uint64
	refusals  atomic.Uint64
	// downUntil ends the current back-off, in nanoseconds on the
	// balancer's clock; 0 when the replica answered since its last
	// refusal. Read without a lock on every pick, written under mu.
	downUntil atomic.Int64
	mu        sync.Mutex
	failures  int // consecutive refusals; guarded by mu
}

// Service names the service the replica belongs to.
func (r *Replica) Service() string { return r.b.service }

// Name is the replica's host and port, as configured.
func (r *Replica) Name() string { return r.host }

// InFlight is the number of requests sent to the replica whose response
// has not been fully relayed yet, open websockets included.
func (r *Replica) InFlight() int64 { return r.inFlight.Load() }

// Responses counts the responses the replica sent (101 included).
func (r *Replica) Responses() uint64 { return r.responses.Load() }

// Refusals counts the connections the replica refused.
func (r *Replica) Refusals() uint64 { return r.refusals.Load() }

// BackingOff reports whether the replica is being skipped after a refusal.
func (r *Replica) BackingOff() bool {
	until := r.downUntil.Load()
	return until != 0 && r.b.clock() < until
}

// balancer is the upstream transport of a route with several replicas: it
// picks a replica for each attempt, points the outgoing request at it and
// moves on to another when the connection is refused.
type balancer struct {
	service  string
	replicas []*Replica
	next     http.RoundTripper
	log      *slog.Logger
	now      func() time.Time
	epoch    time.Time
	rotation atomic.Uint32
}

// newBalancer builds the replicas of service, one per target (checked by
// parseReplicas), in front of next.
func newBalancer(service string, targets []*url.URL, next http.RoundTripper, log *slog.Logger, now func() time.Time) *balancer {
	if now == nil {
		now = time.Now
	}
	b := &balancer{service: service, next: next, log: log, now: now, epoch: now()}
	for i, t := range targets {
		b.replicas = append(b.replicas, &Replica{b: b, index: uint(i), scheme: t.Scheme, host: t.Host})
	}
	return b
}

// clock is the time since the balancer was built. With time.Now it runs on
// the monotonic clock, so a wall-clock step neither ends nor stretches a
// back-off.
func (b *balancer) clock() int64 { return int64(b.now().Sub(b.epoch)) }

// RoundTrip sends out to a replica, trying further ones while connections
// are refused. It changes only out.URL's scheme and host, which
// ReverseProxy's Rewrite set to the first replica; ReverseProxy owns out
// (a clone) and reads it again only to report an error.
func (b *balancer) RoundTrip(out *http.Request) (*http.Response, error) {
	var (
		tried   uint64
		probed  bool
		lastErr error
		body    *heldBody
	)
	if out.Body != nil && out.Body != http.NoBody {
		// The transport closes the body of a request it could not send;
		// held back, the body goes to the next replica instead.
		body = &heldBody{ReadCloser: out.Body}
		out.Body = body
		defer body.release()
	}
	for {
		rep, seen, probe := b.pick(tried, probed)
		if rep == nil {
			if lastErr == nil {
				lastErr = errors.New("no replica")
			}
			return nil, lastErr
		}
		tried |= 1 << rep.index
		probed = probed || probe
		out.URL.Scheme, out.URL.Host = rep.scheme, rep.host
		rep.inFlight.Add(1)
		res, err := b.next.RoundTrip(out)
		if err == nil {
			rep.responses.Add(1)
			if rep.downUntil.Load() != 0 {
				b.recovered(out.Context(), rep)
			}
			res.Body = track(res, rep)
			return res, nil
		}
		rep.inFlight.Add(-1)
		if !refused(out, err) || (body != nil && body.read.Load()) {
			return nil, err
		}
		rep.refusals.Add(1)
		b.backOff(out, rep, seen, err)
		lastErr = err
		if body != nil {
			body.reopen()
		}
	}
}

// heldBody is a request body shared by the attempts of one request. A
// Close (the transport's, after a failed attempt) is held back until
// release, when the balancer will not retry; read records that the body
// was read, after which no attempt may follow (a dial error guarantees it
// was not, but the check costs nothing).
type heldBody struct {
	io.ReadCloser
	read  atomic.Bool
	state atomic.Int32 // heldOpen, heldClosed or heldReleased
}

const (
	heldOpen     = iota // no Close yet
	heldClosed          // Close called and held back
	heldReleased        // Close passes through
)

// Read reads the body.
func (b *heldBody) Read(p []byte) (int, error) {
	b.read.Store(true)
	return b.ReadCloser.Read(p)
}

// Close is held back until release.
func (b *heldBody) Close() error {
	if b.state.CompareAndSwap(heldOpen, heldClosed) {
		return nil
	}
	if b.state.Load() == heldReleased {
		return b.ReadCloser.Close()
	}
	return nil
}

// reopen forgets a held Close before the next attempt.
func (b *heldBody) reopen() { b.state.Store(heldOpen) }

// release passes a held Close through, and every later one.
func (b *heldBody) release() {
	if b.state.Swap(heldReleased) == heldClosed {
		_ = b.ReadCloser.Close()
	}
}

// pick chooses the replica for the next attempt of a request that has
// tried the replicas in tried: the one with the fewest requests in flight
// among those neither tried nor backing off, scanning from a rotating
// start so that ties alternate. When there is none and the request has not
// probed yet, it returns the untried replica whose back-off ends first,
// with probe set. seen is the replica's downUntil as read, which tells
// backOff whether another request has judged the replica since.
func (b *balancer) pick(tried uint64, probed bool) (rep *Replica, seen int64, probe bool) {
	n := uint32(len(b.replicas))
	i := (b.rotation.Add(1) - 1) % n // the first request starts at the first replica
	var (
		now       int64 // read lazily: only a replica in back-off needs it
		best      *Replica
		bestLoad  int64
		bestSeen  int64
		spare     *Replica
		spareSeen int64
	)
	for range n {
		r := b.replicas[i]
		if i++; i == n {
			i = 0
		}
		if tried&(1<<r.index) != 0 {
			continue
		}
		until := r.downUntil.Load()
		if until != 0 {
			if now == 0 {
				now = b.clock()
			}
			if now < until {
				if spare == nil || until < spareSeen {
					spare, spareSeen = r, until
				}
				continue
			}
		}
		if load := r.inFlight.Load(); best == nil || load < bestLoad {
			best, bestLoad, bestSeen = r, load, until
		}
	}
	switch {
	case best != nil:
		return best, bestSeen, false
	case spare != nil && !probed:
		return spare, spareSeen, true
	}
	return nil, 0, false
}

// refused reports whether err means the request never reached the
// replica: the connection could not be made, and the client is still
// waiting (a cancelled dial says nothing about the replica).
func refused(out *http.Request, err error) bool {
	if out.Context().Err() != nil {
		return false
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// backOff starts or lengthens rep's back-off after a refusal, unless
// another request has refused or reached rep since this one picked it
// (seen no longer matches): many requests refused at the same moment count
// as one refusal, not as many doublings.
func (b *balancer) backOff(out *http.Request, rep *Replica, seen int64, err error) {
	now := b.clock()
	rep.mu.Lock()
	if rep.downUntil.Load() != seen {
		rep.mu.Unlock()
		return
	}
	rep.failures++
	n := rep.failures
	d := backoff(n)
	rep.downUntil.Store(now + int64(d))
	rep.mu.Unlock()

	level := slog.LevelDebug
	if n == 1 {
		level = slog.LevelWarn // the first refusal; the rest repeat it
	}
	// A dial error names the address only, never the request's URL.
	b.log.LogAttrs(out.Context(), level, "upstream replica refused the connection; skipping it",
		slog.String("request_id", out.Header.Get(requestid.Header)),
		slog.String("upstream", b.service),
		slog.String("replica", rep.host),
		slog.Int("refusals", n),
		slog.Duration("backoff", d),
		slog.String("error", err.Error()),
	)
}

// recovered ends rep's back-off: it has just answered.
func (b *balancer) recovered(ctx context.Context, rep *Replica) {
	rep.mu.Lock()
	n := rep.failures
	rep.failures = 0
	rep.downUntil.Store(0)
	rep.mu.Unlock()
	if n > 0 {
		b.log.LogAttrs(ctx, slog.LevelInfo, "upstream replica answers again",
			slog.String("upstream", b.service),
			slog.String("replica", rep.host),
			slog.Int("refusals", n),
		)
	}
}

// track wraps a response body so that closing it, which ReverseProxy does
// once the response is relayed (for a websocket: once the connection
// ends), ends the request's in-flight count on rep.
func track(res *http.Response, rep *Replica) io.ReadCloser {
	if res.StatusCode == http.StatusSwitchingProtocols {
		if rwc, ok := res.Body.(io.ReadWriteCloser); ok {
			return &trackedConn{trackedBody: trackedBody{ReadCloser: rwc, rep: rep}, conn: rwc}
		}
	}
	return &trackedBody{ReadCloser: res.Body, rep: rep}
}

// trackedBody is a response body that ends its request's in-flight count
// on the first Close.
type trackedBody struct {
	io.ReadCloser
	rep    *Replica
	closed atomic.Bool
}

// Close closes the body; the first call ends the in-flight count.
func (t *trackedBody) Close() error {
	if t.closed.CompareAndSwap(false, true) {
		t.rep.inFlight.Add(-1)
	}
	return t.ReadCloser.Close()
}

// errNoCloseWrite is what CloseWrite answers for a connection without
// half-close, which ReverseProxy takes as the end of that direction.
var errNoCloseWrite = fmt.Errorf("CloseWrite: %w", http.ErrNotSupported)

// trackedConn is trackedBody for a switched protocol: ReverseProxy writes
// to the body, and half-closes it when the client stops sending.
type trackedConn struct {
	trackedBody
	conn io.ReadWriteCloser
}

// Write writes to the upstream connection.
func (c *trackedConn) Write(p []byte) (int, error) { return c.conn.Write(p) }

// CloseWrite half-closes the upstream connection where it can.
func (c *trackedConn) CloseWrite() error {
	if cw, ok := c.conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errNoCloseWrite
}

// parseReplicas parses the base URLs of one service and checks what the
// proxy relies on (config.Validate reports the same problems, and more,
// with the variable's name): a scheme and host each, distinct hosts (they
// key the per-replica state and metric labels), one shared base path (the
// path is rewritten once, before a replica is chosen), and at most
// MaxReplicas.
func parseReplicas(raws []string) ([]*url.URL, error) {
	if len(raws) == 0 {
		return nil, errors.New("no URL")
	}
	if len(raws) > MaxReplicas {
		return nil, fmt.Errorf("%d URLs: at most %d replicas", len(raws), MaxReplicas)
	}
	targets := make([]*url.URL, 0, len(raws))
	hosts := make(map[string]bool, len(raws))
	for _, raw := range raws {
		t, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", raw, err)
		}
		if t.Scheme == "" || t.Host == "" {
			return nil, fmt.Errorf("%q: need scheme and host", raw)
		}
		h := strings.ToLower(t.Host)
		if hosts[h] {
			return nil, fmt.Errorf("%q: host listed twice", raw)
		}
		hosts[h] = true
		if len(targets) > 0 && basePath(t) != basePath(targets[0]) {
			return nil, fmt.Errorf("%q: base path differs from %q's", raw, targets[0].String())
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// basePath is the path a target's requests start with, without its
// trailing slash.
func basePath(t *url.URL) string { return strings.TrimSuffix(t.Path, "/") }
