package proxy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBackoffSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		refusals int
		want     time.Duration
	}{
		{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {4, 8 * time.Second},
		{5, 10 * time.Second}, {6, 10 * time.Second}, {64, 10 * time.Second}, {1 << 30, 10 * time.Second},
	}
	for _, tc := range tests {
		if got := backoff(tc.refusals); got != tc.want {
			t.Errorf("backoff(%d) = %v, want %v", tc.refusals, got, tc.want)
		}
	}
}

// stubUpstreams is a transport standing in for replicas: a host in down
// refuses the connection (the dial error http.Transport returns), any
// other answers 200 with its host as the body.
type stubUpstreams struct {
	mu   sync.Mutex
	down map[string]bool
	hits []string // hosts that answered, in order
}

func (s *stubUpstreams) setDown(host string, down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down[host] = down
}

func (s *stubUpstreams) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		defer r.Body.Close() // as http.Transport does, on success and failure
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down[r.URL.Host] {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	}
	s.hits = append(s.hits, r.URL.Host)
	var body string
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(r.URL.Host + ":" + body)), Request: r}, nil
}

// testClock is a clock that moves only when told.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newTestBalancer(t *testing.T, hosts ...string) (*balancer, *stubUpstreams, *testClock) {
	t.Helper()
	var targets []*url.URL
	for _, h := range hosts {
		targets = append(targets, &url.URL{Scheme: "http", Host: h})
	}
	up := &stubUpstreams{down: map[string]bool{}}
	clock := &testClock{now: time.Unix(1_800_000_000, 0)}
	return newBalancer("rest", targets, up, discardLogger(), clock.Now), up, clock
}

// roundTrip sends one request through b and returns the answering host,
// or "" and the error.
func roundTrip(t *testing.T, b *balancer, body string) (string, error) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(http.MethodPost, "http://placeholder/t", rd)
	res, err := b.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	host, sent, _ := strings.Cut(string(got), ":")
	if sent != body {
		t.Errorf("replica %s received %q, want %q", host, sent, body)
	}
	return host, nil
}

func replicaNamed(b *balancer, host string) *Replica {
	for _, r := range b.replicas {
		if r.host == host {
			return r
		}
	}
	return nil
}

func TestBalancerBackOff(t *testing.T) {
	t.Parallel()
	// a carries one long request throughout, so b, whenever it is not
	// backing off, has fewer in flight and gets the request. Each step:
	// move the clock, set whether b refuses, send one request; then the
	// replica that answered, and b's remaining back-off.
	type step struct {
		advance     time.Duration
		bDown       *bool
		want        string
		wantBackoff time.Duration
	}
	down, up := new(bool), new(bool)
	*down = true
	tests := []struct {
		name  string
		steps []step
	}{
		{"refusal moves the request and backs off 1 s", []step{
			{0, nil, "b", 0},
			{0, down, "a", time.Second}, // b refused, a answered
			{0, nil, "a", time.Second},
			{999 * time.Millisecond, up, "a", time.Millisecond}, // back, but in back-off
		}},
		{"back after the back-off, answer ends it", []step{
			{0, nil, "b", 0},
			{0, down, "a", time.Second},
			{0, up, "a", time.Second},
			{time.Second, nil, "b", 0},
			{0, nil, "b", 0},
		}},
		{"consecutive refusals double, up to 10 s", []step{
			{0, nil, "b", 0},
			{0, down, "a", time.Second},
			{time.Second, nil, "a", 2 * time.Second},
			{2 * time.Second, nil, "a", 4 * time.Second},
			{4 * time.Second, nil, "a", 8 * time.Second},
			{8 * time.Second, nil, "a", 10 * time.Second},
			{10 * time.Second, nil, "a", 10 * time.Second},
			{10 * time.Second, up, "b", 0},
			{0, down, "a", time.Second}, // a fresh outage starts over
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, ups, clock := newTestBalancer(t, "a", "b")
			replicaNamed(b, "a").inFlight.Add(1)
			rb := replicaNamed(b, "b")
			for i, s := range tc.steps {
				clock.advance(s.advance)
				if s.bDown != nil {
					ups.setDown("b", *s.bDown)
				}
				got, err := roundTrip(t, b, "body")
				if got != s.want {
					t.Fatalf("step %d: answered by %q (%v), want %q", i+1, got, err, s.want)
				}
				var left time.Duration
				if until := rb.downUntil.Load(); until != 0 {
					left = max(time.Duration(until-b.clock()), 0)
				}
				if left != s.wantBackoff {
					t.Fatalf("step %d: b's back-off %v, want %v", i+1, left, s.wantBackoff)
				}
			}
		})
	}
}

// TestBalancerConcurrentRefusals: requests that picked a replica before
// any of them was refused count as one refusal, not one doubling each.
func TestBalancerConcurrentRefusals(t *testing.T) {
	t.Parallel()
	b, _, clock := newTestBalancer(t, "a", "b")
	rb := replicaNamed(b, "b")
	req := httptest.NewRequest(http.MethodGet, "http://placeholder/t", nil)
	err := &net.OpError{Op: "dial", Err: errors.New("refused")}
	for range 5 {
		b.backOff(req, rb, 0, err) // all five saw b healthy
	}
	if rb.failures != 1 || time.Duration(rb.downUntil.Load()-b.clock()) != time.Second {
		t.Errorf("failures %d, back-off %v: want 1 and 1s", rb.failures, time.Duration(rb.downUntil.Load()-b.clock()))
	}
	clock.advance(time.Second)
	seen := rb.downUntil.Load()
	b.backOff(req, rb, seen, err)
	b.backOff(req, rb, seen, err)
	if rb.failures != 2 {
		t.Errorf("failures %d after the back-off, want 2", rb.failures)
	}
}

// TestBalancerAllDown: with every replica backing off, each request tries
// one, the one whose back-off ends first, so the service's return is seen
// at once; with none answering the error is the dial error.
func TestBalancerAllDown(t *testing.T) {
	t.Parallel()
	b, ups, _ := newTestBalancer(t, "a", "b", "c")
	for _, h := range []string{"a", "b", "c"} {
		ups.setDown(h, true)
	}
	_, err := roundTrip(t, b, "")
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("err %v, want the dial error", err)
	}
	for _, r := range b.replicas {
		if r.Refusals() != 1 || !r.BackingOff() {
			t.Fatalf("%s: %d refusals, backing off %v: want every replica tried once", r.host, r.Refusals(), r.BackingOff())
		}
	}
	// One dial per request, to a replica whose back-off ends first; its
	// refusal pushes it back behind the others.
	for i := range 4 {
		before := map[*Replica]int64{}
		earliest := int64(0)
		for _, r := range b.replicas {
			u := r.downUntil.Load()
			before[r] = u
			if earliest == 0 || u < earliest {
				earliest = u
			}
		}
		if _, err := roundTrip(t, b, ""); err == nil {
			t.Fatalf("probe %d answered", i+1)
		}
		var probed []string
		for _, r := range b.replicas {
			if r.downUntil.Load() != before[r] {
				probed = append(probed, r.host)
				if before[r] != earliest {
					t.Errorf("probe %d went to %s, whose back-off was not the first to end", i+1, r.host)
				}
			}
		}
		if len(probed) != 1 {
			t.Fatalf("probe %d dialled %v, want one replica", i+1, probed)
		}
	}
	// b comes back: found while the others keep refusing, within one
	// round of probes.
	ups.setDown("b", false)
	for i := 0; ; i++ {
		got, _ := roundTrip(t, b, "")
		if got == "b" {
			break
		}
		if i == 2 {
			t.Fatal("b not found in 3 requests")
		}
	}
	if replicaNamed(b, "b").BackingOff() {
		t.Error("b's answer did not end its back-off")
	}
}

// TestBalancerLeastInFlight: a replica holding more open responses (slow
// requests, websockets) gets the new requests until the counts even out.
func TestBalancerLeastInFlight(t *testing.T) {
	t.Parallel()
	b, _, _ := newTestBalancer(t, "a", "b")
	var open []*http.Response
	for range 2 { // a, b
		res, err := b.RoundTrip(httptest.NewRequest(http.MethodGet, "http://placeholder/ws", nil))
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, res)
	}
	open[1].Body.Close() // b's ends: a 1, b 0
	open[1].Body.Close() // a second Close does not count twice
	var got []string
	for range 3 {
		res, err := b.RoundTrip(httptest.NewRequest(http.MethodGet, "http://placeholder/ws", nil))
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, res)
		got = append(got, res.Request.URL.Host)
	}
	// b (0 vs 1), then a tie goes to whichever is next in turn.
	if got[0] != "b" {
		t.Errorf("went to %s, want b with fewer in flight", got[0])
	}
	ra, rb := replicaNamed(b, "a"), replicaNamed(b, "b")
	if ra.InFlight()+rb.InFlight() != 4 || ra.InFlight() < 1 || rb.InFlight() < 1 {
		t.Errorf("in flight a %d b %d", ra.InFlight(), rb.InFlight())
	}
	for _, res := range open {
		res.Body.Close()
	}
	if ra.InFlight() != 0 || rb.InFlight() != 0 {
		t.Errorf("after closing: in flight a %d b %d", ra.InFlight(), rb.InFlight())
	}
}

func TestBalancerDoesNotRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
	}{
		{"reset after sending", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}},
		{"EOF before an answer", io.EOF},
		{"TLS handshake", errors.New("tls: handshake failure")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls int
			tr := roundTripFunc(func(*http.Request) (*http.Response, error) { calls++; return nil, tc.err })
			b := newBalancer("rest", []*url.URL{{Scheme: "http", Host: "a"}, {Scheme: "http", Host: "b"}}, tr, discardLogger(), nil)
			_, err := b.RoundTrip(httptest.NewRequest(http.MethodPost, "http://placeholder/t", strings.NewReader("x")))
			if !errors.Is(err, tc.err) || calls != 1 {
				t.Errorf("err %v after %d attempts, want %v after 1", err, calls, tc.err)
			}
			for _, r := range b.replicas {
				if r.BackingOff() || r.InFlight() != 0 {
					t.Errorf("%s: backing off %v, in flight %d", r.host, r.BackingOff(), r.InFlight())
				}
			}
		})
	}
}

func TestBalancerCancelledDialIsNoRefusal(t *testing.T) {
	t.Parallel()
	var calls int
	tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		return nil, &net.OpError{Op: "dial", Err: r.Context().Err()}
	})
	b := newBalancer("rest", []*url.URL{{Scheme: "http", Host: "a"}, {Scheme: "http", Host: "b"}}, tr, discardLogger(), nil)
	req := httptest.NewRequest(http.MethodGet, "http://placeholder/t", nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.RoundTrip(req.WithContext(ctx)); err == nil || calls != 1 {
		t.Fatalf("err %v after %d attempts, want an error after 1", err, calls)
	}
	if b.replicas[0].BackingOff() || b.replicas[0].Refusals() != 0 {
		t.Error("the client's cancellation was held against the replica")
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkBalancer measures what the proxy alone spends on a request,
// with a transport that answers at once, for one URL (no balancer: the
// transport direct) and for two (pick, in-flight count, body wrapper):
// "transport" is the upstream round trip and the body's Close, what the
// balancer adds to; "route" is the whole Route.ServeHTTP, ReverseProxy
// included. BenchmarkProxyGET in package server measures the same through
// the whole gateway over loopback.
func BenchmarkBalancer(b *testing.B) {
	answer := roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody}, nil
	})
	for _, bc := range []struct {
		name string
		rest []string
	}{
		{"1_replica", []string{"http://10.0.0.5:3000"}},
		{"2_replicas", []string{"http://10.0.0.5:3000", "http://10.0.0.6:3000"}},
	} {
		other := []string{"http://x"}
		p, err := New(Upstreams{Rest: bc.rest, RPC: other, Auth: other, Realtime: other, Storage: other}, Options{Transport: answer})
		if err != nil {
			b.Fatal(err)
		}
		rt := p.Match("/rest/v1/properties")
		b.Run("transport/"+bc.name, func(b *testing.B) {
			tr := rt.rp.Transport
			req := httptest.NewRequest(http.MethodGet, "http://10.0.0.5:3000/properties?select=id,title&price=lte.70000", nil)
			b.ReportAllocs()
			for b.Loop() {
				res, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				res.Body.Close()
			}
		})
		b.Run("route/"+bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/rest/v1/properties?select=id,title&price=lte.70000", nil)
			w := discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				rt.ServeHTTP(w, req)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing but a header map.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) WriteHeader(int)             {}
