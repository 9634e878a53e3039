package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kejanest/kejanest/platform/devkeys"
)

// replica is one replica of an upstream service: a loopback server that
// can be killed (its port then refuses connections) and revived on the
// same port. It serves without keep-alive, so a killed replica leaves no
// pooled connection in the gateway's transport and the next request to it
// dials: the refusal the gateway must route around.
type replica struct {
	t    testing.TB
	name string
	addr *net.TCPAddr
	h    http.Handler
	hits atomic.Int64 // requests that reached it

	mu   sync.Mutex
	ln   net.Listener
	srv  *http.Server
	held *heldPort // while killed
}

// replicaEcho is what the default replica handler answers.
type replicaEcho struct {
	Replica string `json:"replica"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Body    string `json:"body"`
}

// newReplica starts a replica serving h, or with h nil one that answers
// every request with a replicaEcho.
func newReplica(t testing.TB, name string, h http.Handler) *replica {
	t.Helper()
	r := &replica{t: t, name: name, h: h}
	if r.h == nil {
		r.h = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(replicaEcho{Replica: name, Method: req.Method, Path: req.URL.Path, Body: string(body)})
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().(*net.TCPAddr)
	r.serve(ln)
	t.Cleanup(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.srv != nil {
			_ = r.srv.Close()
		}
		if r.held != nil {
			r.held.close()
		}
	})
	return r
}

func (r *replica) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		r.h.ServeHTTP(w, req)
	})}
	srv.SetKeepAlivesEnabled(false)
	r.ln, r.srv = ln, srv
	go func() { _ = srv.Serve(ln) }()
}

// url is the replica's base URL; host is its metric label.
func (r *replica) url() string  { return "http://" + r.addr.String() }
func (r *replica) host() string { return r.addr.String() }

// kill stops the replica: its listener and connections close, and its
// port refuses connections until revive.
func (r *replica) kill() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	// The listener first, by hand: Close misses one that Serve, on its
	// goroutine, has not registered yet.
	_ = r.ln.Close()
	_ = r.srv.Close()
	r.ln, r.srv = nil, nil
	held, err := holdPort(r.addr)
	if err != nil {
		r.t.Fatalf("hold %s's port: %v", r.name, err)
	}
	r.held = held
}

// revive serves again on the same port.
func (r *replica) revive() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	ln, err := r.held.listen()
	r.held = nil
	if err != nil {
		r.t.Fatalf("revive %s: %v", r.name, err)
	}
	r.serve(ln)
}

// replicaList is the value of an upstream variable naming rs.
func replicaList(rs ...*replica) string {
	urls := make([]string, len(rs))
	for i, r := range rs {
		urls[i] = r.url()
	}
	return strings.Join(urls, ",")
}

// fakeClock is the gateway's clock in the back-off tests: it stands still
// until advanced, so a back-off neither ends under a slow test nor needs
// the test to sleep.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// send makes one API request with an anon key and returns the status, the
// body and the replica that answered ("" when the body is not a
// replicaEcho). A body of "" sends none; chunked sends it without a
// length.
func (h *harness) send(t testing.TB, method, target, body string, chunked bool) (int, string, replicaEcho) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd) // hides the length: sent chunked
		}
	}
	req, err := http.NewRequest(method, h.gw.URL+target, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", devkeys.AnonKey)
	req.Header.Set("Origin", "http://localhost:5173")
	res, err := h.gw.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, target, err)
	}
	var e replicaEcho
	_ = json.Unmarshal(b, &e)
	return res.StatusCode, string(b), e
}

// TestReplicasShareRequests: with two URLs, sequential requests alternate
// between the replicas, for every service, and /metrics counts each
// replica's responses.
func TestReplicasShareRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		variable, target, path, service string
	}{
		{"REST_URL", "/rest/v1/properties?select=*", "/properties", "rest"},
		{"RPC_URL", "/rest/v1/rpc/get_stats", "/rpc/get_stats", "rpc"},
		{"AUTH_URL", "/auth/v1/user", "/user", "auth"},
		{"REALTIME_URL", "/realtime/v1/api/broadcast", "/api/broadcast", "realtime"},
		{"STORAGE_URL", "/storage/v1/object/public/b/x.png", "/object/public/b/x.png", "storage"},
	}
	for _, tc := range tests {
		t.Run(tc.variable, func(t *testing.T) {
			t.Parallel()
			a, b := newReplica(t, "a", nil), newReplica(t, "b", nil)
			h := newHarness(t, map[string]string{tc.variable: replicaList(a, b)})
			var order []string
			for range 6 {
				status, body, e := h.send(t, http.MethodGet, tc.target, "", false)
				if status != http.StatusOK || e.Path != tc.path {
					t.Fatalf("status %d body %s, want a replica's echo of %s", status, body, tc.path)
				}
				order = append(order, e.Replica)
			}
			if got := strings.Join(order, ","); got != "a,b,a,b,a,b" {
				t.Errorf("replicas in turn: %s, want a,b,a,b,a,b", got)
			}
			if m := h.metricsEventually(t,
				fmt.Sprintf(`gateway_upstream_responses_total{replica=%q,service=%q} 3`, a.host(), tc.service),
				fmt.Sprintf(`gateway_upstream_responses_total{replica=%q,service=%q} 3`, b.host(), tc.service),
				fmt.Sprintf(`gateway_upstream_in_flight{replica=%q,service=%q} 0`, a.host(), tc.service),
			); m != "" {
				t.Errorf("per-replica metrics:\n%s", grepLines(m, "gateway_upstream"))
			}
		})
	}
}

// TestRefusingReplicaIsSkipped: a replica whose listener is gone is skipped
// without a single failed client request, whatever the method and body;
// it is left alone for its back-off, and used again after it.
func TestRefusingReplicaIsSkipped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, body string
		chunked            bool
	}{
		{"GET", http.MethodGet, "", false},
		{"POST with a body", http.MethodPost, `{"title":"2BR apartment, Kilimani","price":65000}`, false},
		{"POST with a chunked body", http.MethodPost, `{"title":"Bedsitter, Ngong Road"}`, true},
		{"DELETE", http.MethodDelete, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := newReplica(t, "a", nil), newReplica(t, "b", nil)
			clock := newFakeClock()
			h := newHarnessWith(t, map[string]string{"REST_URL": replicaList(a, b)}, Options{Now: clock.Now})
			refused := fmt.Sprintf(`gateway_upstream_refused_total{replica=%q,service="rest"} 1`, b.host())

			// served by replica, with the body intact
			expect := func(step string, want ...string) {
				t.Helper()
				status, body, e := h.send(t, tc.method, "/rest/v1/properties", tc.body, tc.chunked)
				if status != http.StatusOK || e.Method != tc.method || e.Body != tc.body {
					t.Fatalf("%s: status %d body %s\n%s", step, status, body, h.logs.String())
				}
				for _, w := range want {
					if e.Replica == w {
						return
					}
				}
				t.Fatalf("%s: answered by %q, want one of %q", step, e.Replica, want)
			}

			expect("before the kill", "a") // the first request starts at the first replica
			b.kill()
			for i := range 4 {
				expect(fmt.Sprintf("request %d with b dead", i+1), "a")
			}
			if n := b.hits.Load(); n != 0 {
				t.Errorf("the dead replica was reached %d times", n)
			}
			if m := h.metricsEventually(t, refused,
				fmt.Sprintf(`gateway_upstream_backoff{replica=%q,service="rest"} 1`, b.host())); m != "" {
				t.Errorf("one refusal and a back-off expected:\n%s", grepLines(m, "gateway_upstream"))
			}

			// Back, but still in its back-off: not tried.
			b.revive()
			expect("b revived, in back-off", "a")
			expect("b revived, in back-off", "a")
			if n := b.hits.Load(); n != 0 {
				t.Errorf("the replica was used during its back-off (%d requests)", n)
			}

			// After the back-off it is used again, and its answer ends it.
			clock.advance(time.Second)
			served := map[string]int{}
			for i := range 4 {
				status, body, e := h.send(t, tc.method, "/rest/v1/properties", tc.body, tc.chunked)
				if status != http.StatusOK || e.Body != tc.body {
					t.Fatalf("request %d after the back-off: status %d body %s", i+1, status, body)
				}
				served[e.Replica]++
			}
			if served["a"] != 2 || served["b"] != 2 {
				t.Errorf("after the back-off: %v, want 2 each", served)
			}
			if m := h.metricsEventually(t, refused,
				fmt.Sprintf(`gateway_upstream_backoff{replica=%q,service="rest"} 0`, b.host())); m != "" {
				t.Errorf("back-off not ended:\n%s", grepLines(m, "gateway_upstream"))
			}
		})
	}
}

// TestFailureAfterSendIsNotRetried: once a replica has the request, its
// failure is the client's answer (502, or a cut response), never a second
// try on another replica, which could apply a write twice.
func TestFailureAfterSendIsNotRetried(t *testing.T) {
	t.Parallel()
	// dies closes the connection without an answer, having read the request.
	dies := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		panic(http.ErrAbortHandler)
	})
	// cuts announces 100 bytes, sends 10 and closes the connection.
	cuts := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"id":1,"t`)
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	})
	tests := []struct {
		name, method, body string
		upstream           http.Handler
		status             int // 0: the response is cut after its headers
	}{
		{"GET, no answer", http.MethodGet, "", dies, http.StatusBadGateway},
		{"POST, no answer", http.MethodPost, `{"amount":500}`, dies, http.StatusBadGateway},
		{"GET, answer cut", http.MethodGet, "", cuts, 0},
		{"POST, answer cut", http.MethodPost, `{"amount":500}`, cuts, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			failing, healthy := newReplica(t, "failing", tc.upstream), newReplica(t, "healthy", nil)
			h := newHarness(t, map[string]string{"REST_URL": replicaList(failing, healthy)})
			var rd io.Reader
			if tc.body != "" {
				rd = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, h.gw.URL+"/rest/v1/wallet_transfers", rd)
			req.Header.Set("apikey", devkeys.AnonKey)
			res, err := h.gw.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, readErr := io.ReadAll(res.Body)
			res.Body.Close()
			switch tc.status {
			case 0:
				if res.StatusCode != http.StatusOK || readErr == nil {
					t.Errorf("status %d, read %q, %v: want the cut response", res.StatusCode, body, readErr)
				}
			default:
				if res.StatusCode != tc.status || string(body) != badGatewayBody {
					t.Errorf("status %d body %s, want %d %s", res.StatusCode, body, tc.status, badGatewayBody)
				}
			}
			if f, ok := failing.hits.Load(), healthy.hits.Load(); f != 1 || ok != 0 {
				t.Errorf("failing replica reached %d times, healthy %d: want 1 and 0 (no retry)", f, ok)
			}
			if m := h.metricsEventually(t,
				fmt.Sprintf(`gateway_upstream_refused_total{replica=%q,service="rest"} 0`, failing.host()),
				fmt.Sprintf(`gateway_upstream_backoff{replica=%q,service="rest"} 0`, failing.host()),
				fmt.Sprintf(`gateway_upstream_in_flight{replica=%q,service="rest"} 0`, failing.host())); m != "" {
				t.Errorf("a failure after sending is not a refusal:\n%s", grepLines(m, "gateway_upstream"))
			}
		})
	}
}

// TestAllReplicasDown: with every replica refusing, the client gets the
// gateway's usual 502; a replica that comes back is found by the next
// requests, back-off or not.
func TestAllReplicasDown(t *testing.T) {
	t.Parallel()
	tests := []struct{ method, body string }{
		{http.MethodGet, ""},
		{http.MethodPost, `{"title":"Plot, Kitengela"}`},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			a, b := newReplica(t, "a", nil), newReplica(t, "b", nil)
			a.kill()
			b.kill()
			h := newHarnessWith(t, map[string]string{"REST_URL": replicaList(a, b)}, Options{Now: newFakeClock().Now})
			for i := range 3 {
				req, _ := http.NewRequest(tc.method, h.gw.URL+"/rest/v1/lands?token=x-secret", strings.NewReader(tc.body))
				req.Header.Set("apikey", devkeys.AnonKey)
				req.Header.Set("Origin", "http://localhost:5173")
				res, err := h.gw.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusBadGateway || string(body) != badGatewayBody {
					t.Fatalf("request %d: status %d body %s", i+1, res.StatusCode, body)
				}
				if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" || res.Header.Get("Access-Control-Allow-Origin") == "" {
					t.Errorf("request %d: Content-Type %q, CORS %q", i+1, ct, res.Header.Get("Access-Control-Allow-Origin"))
				}
			}
			if strings.Contains(h.logs.String(), "x-secret") {
				t.Error("a log line carries the query string")
			}

			// Every replica is in its back-off, and the clock stands still:
			// each request still tries one, so b is found within two.
			b.revive()
			for i := 0; ; i++ {
				status, body, e := h.send(t, tc.method, "/rest/v1/lands", tc.body, false)
				if status == http.StatusOK && e.Replica == "b" {
					break
				}
				if i == 1 {
					t.Fatalf("b not found in 2 requests: status %d body %s", status, body)
				}
			}
		})
	}
}

// TestWebsocketReplicas: upgrades reach every replica of realtime (the
// one with fewer open sockets first), and skip a dead one.
func TestWebsocketReplicas(t *testing.T) {
	t.Parallel()
	// hello tells the client which replica it reached, then echoes.
	hello := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			if err := c.Write(r.Context(), websocket.MessageText, []byte(name)); err != nil {
				return
			}
			for {
				typ, msg, err := c.Read(r.Context())
				if err != nil {
					return
				}
				if err := c.Write(r.Context(), typ, msg); err != nil {
					return
				}
			}
		})
	}
	tests := []struct {
		name    string
		sockets int
		killB   bool
		want    map[string]int // sockets per replica
	}{
		{"both replicas", 4, false, map[string]int{"a": 2, "b": 2}},
		{"one dead", 3, true, map[string]int{"a": 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := newReplica(t, "a", hello("a")), newReplica(t, "b", hello("b"))
			if tc.killB {
				b.kill()
			}
			h := newHarnessWith(t, map[string]string{"REALTIME_URL": replicaList(a, b)}, Options{Now: newFakeClock().Now})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			wsURL := "ws" + strings.TrimPrefix(h.gw.URL, "http") + "/realtime/v1/websocket?vsn=1.0.0&apikey=" + url.QueryEscape(devkeys.AnonKey)
			got := map[string]int{}
			var conns []*websocket.Conn
			for i := range tc.sockets {
				c, _, err := websocket.Dial(ctx, wsURL, nil)
				if err != nil {
					t.Fatalf("socket %d: %v", i+1, err)
				}
				conns = append(conns, c)
				_, name, err := c.Read(ctx)
				if err != nil {
					t.Fatalf("socket %d: %v", i+1, err)
				}
				got[string(name)]++
			}
			for i, c := range conns { // each one relays both ways
				msg := fmt.Sprintf(`{"event":"heartbeat","ref":"%d"}`, i)
				if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
					t.Fatal(err)
				}
				if _, echo, err := c.Read(ctx); err != nil || string(echo) != msg {
					t.Fatalf("socket %d echoed %q, %v", i+1, echo, err)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("sockets per replica %v, want %v", got, tc.want)
			}
			if m := h.metricsEventually(t, fmt.Sprintf(`gateway_upstream_in_flight{replica=%q,service="realtime"} %d`, a.host(), tc.want["a"])); m != "" {
				t.Errorf("open sockets are in flight:\n%s", grepLines(m, "gateway_upstream_in_flight"))
			}
			for _, c := range conns {
				_ = c.Close(websocket.StatusNormalClosure, "bye")
			}
			if m := h.metricsEventually(t,
				fmt.Sprintf(`gateway_upstream_in_flight{replica=%q,service="realtime"} 0`, a.host()),
				fmt.Sprintf(`gateway_upstream_in_flight{replica=%q,service="realtime"} 0`, b.host())); m != "" {
				t.Errorf("closed sockets still in flight:\n%s", grepLines(m, "gateway_upstream_in_flight"))
			}
		})
	}
}

// TestOneUpstreamURL: with one URL nothing changes. A refused connection
// is the request's 502, the next request dials again (no back-off, with
// the clock standing still), and /metrics has no per-replica series.
func TestOneUpstreamURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ method, body string }{
		{http.MethodGet, ""},
		{http.MethodPost, `{"title":"Sofa, 3 seater"}`},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			only := newReplica(t, "only", nil)
			h := newHarnessWith(t, map[string]string{"REST_URL": only.url()}, Options{Now: newFakeClock().Now})
			if status, body, e := h.send(t, tc.method, "/rest/v1/products", tc.body, false); status != 200 || e.Replica != "only" || e.Body != tc.body {
				t.Fatalf("status %d body %s", status, body)
			}
			only.kill()
			if status, body, _ := h.send(t, tc.method, "/rest/v1/products", tc.body, false); status != http.StatusBadGateway || body != badGatewayBody {
				t.Fatalf("dead: status %d body %s", status, body)
			}
			only.revive()
			if status, body, e := h.send(t, tc.method, "/rest/v1/products", tc.body, false); status != 200 || e.Replica != "only" {
				t.Fatalf("revived: status %d body %s (a one-URL service has no back-off)", status, body)
			}
			_, m := h.do(t, http.MethodGet, "/metrics", nil)
			if strings.Contains(string(m), "gateway_upstream_") {
				t.Errorf("per-replica series for a one-URL service:\n%s", grepLines(string(m), "gateway_upstream_"))
			}
			if strings.Contains(h.logs.String(), `"replica"`) {
				t.Error("one-URL log lines name a replica")
			}
		})
	}
}
