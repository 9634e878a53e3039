package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const (
	pgrstTooLargeBody      = `{"code":"PGRST102","details":null,"hint":null,"message":"Request body too large"}`
	authTooLargeLegacyBody = `{"code":413,"error_code":"validation_failed","msg":"Request Entity Too Large"}`
	authTooLargeBody       = `{"code":"validation_failed","message":"Request Entity Too Large"}`
)

// limitedUpstream is a service that enforces a body limit the way rest,
// rpc and authsvc do (fasthttp under Fiber's BodyLimit): a body announced
// larger than the limit is answered 413 at once, a chunked body is read
// until it passes the limit, and either way the connection is then closed
// with the rest of the upload unread, so the kernel resets it. Within the
// limit it answers 200 {"read":n}. It records the bytes it read per request
// id.
type limitedUpstream struct {
	url   string
	limit int64
	mu    sync.Mutex
	read  map[string]int64
}

func newLimitedUpstream(t *testing.T, limit int64) *limitedUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	u := &limitedUpstream{url: "http://" + ln.Addr().String(), limit: limit, read: map[string]int64{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go u.serve(c)
		}
	}()
	return u
}

func (u *limitedUpstream) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		id := req.Header.Get("X-Request-Id")
		if req.ContentLength > u.limit {
			u.record(id, 0)
			writeRaw(c, http.StatusRequestEntityTooLarge, pgrstTooLargeBody, true)
			return
		}
		n, err := io.Copy(io.Discard, io.LimitReader(req.Body, u.limit+1))
		u.record(id, n)
		if n > u.limit {
			writeRaw(c, http.StatusRequestEntityTooLarge, pgrstTooLargeBody, true)
			return
		}
		if err != nil {
			return
		}
		writeRaw(c, http.StatusOK, fmt.Sprintf(`{"read":%d}`, n), false)
	}
}

func (u *limitedUpstream) record(id string, n int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.read[id] = n
}

// bytesRead reports what the upstream read of request id's body, and
// whether the request reached it at all.
func (u *limitedUpstream) bytesRead(id string) (int64, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	n, ok := u.read[id]
	return n, ok
}

func writeRaw(w io.Writer, status int, body string, closing bool) {
	conn := ""
	if closing {
		conn = "Connection: close\r\n"
	}
	_, _ = fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n%s\r\n%s",
		status, http.StatusText(status), len(body), conn, body)
}

// fill is an endless body of one repeated byte.
type fill byte

func (f fill) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

// upload POSTs size bytes to target, announcing the length or, when
// chunked, sending the body chunked.
func (h *harness) upload(t *testing.T, target string, size int64, chunked bool, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.gw.URL+target, io.LimitReader(fill('a'), size))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	if chunked {
		req.ContentLength = -1
		req.TransferEncoding = []string{"chunked"}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := h.gw.Client().Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", target, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return res, body
}

// limitedReplicas are the replicas of one service; together they report
// what the one that got a request read of it.
type limitedReplicas []*limitedUpstream

func newLimitedReplicas(t *testing.T, n int, limit int64) limitedReplicas {
	rs := make(limitedReplicas, n)
	for i := range rs {
		rs[i] = newLimitedUpstream(t, limit)
	}
	return rs
}

func (rs limitedReplicas) urls() string {
	urls := make([]string, len(rs))
	for i, r := range rs {
		urls[i] = r.url
	}
	return strings.Join(urls, ",")
}

func (rs limitedReplicas) bytesRead(id string) (int64, bool) {
	for _, r := range rs {
		if n, ok := r.bytesRead(id); ok {
			return n, ok
		}
	}
	return 0, false
}

// TestBodyLimit sends bodies over GATEWAY_BODY_LIMIT to services that
// enforce the same limit by cutting the connection (issue 12: the gateway
// answered 502). The answer is 413 in the shape of the service behind the
// route; an announced length over the limit never reaches the service.
// Storage takes large uploads and has limits of its own: it is not cut.
// Every case runs with each service as one URL and as two replicas.
func TestBodyLimit(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	const big = 50 << 20 // the upload
	tests := []struct {
		name, target string
		size         int64
		chunked      bool
		hdr          map[string]string
		status       int
		body         string            // exact body
		header       map[string]string // response headers
		sent         bool              // whether the request may reach the service
	}{
		{name: "rest at the limit", target: "/rest/v1/t", size: limit, status: 200, body: `{"read":65536}`, sent: true},
		{name: "rest chunked at the limit", target: "/rest/v1/t", size: limit, chunked: true, status: 200, body: `{"read":65536}`, sent: true},
		{name: "rest announced one byte over", target: "/rest/v1/t", size: limit + 1, status: 413, body: pgrstTooLargeBody},
		{name: "rest announced 50 MB", target: "/rest/v1/t", size: big, status: 413, body: pgrstTooLargeBody,
			hdr: map[string]string{"Origin": "http://localhost:5173"}, header: map[string]string{"Access-Control-Allow-Origin": "http://localhost:5173"}},
		{name: "rest chunked one byte over", target: "/rest/v1/t", size: limit + 1, chunked: true, status: 413, body: pgrstTooLargeBody, sent: true},
		{name: "rest chunked 50 MB", target: "/rest/v1/t", size: big, chunked: true, status: 413, body: pgrstTooLargeBody, sent: true},
		// curl sends Expect: 100-continue with large bodies.
		{name: "rest chunked 50 MB expecting 100-continue", target: "/rest/v1/t", size: big, chunked: true, status: 413, body: pgrstTooLargeBody, sent: true,
			hdr: map[string]string{"Expect": "100-continue"}},
		{name: "rpc announced 50 MB", target: "/rest/v1/rpc/f", size: big, status: 413, body: pgrstTooLargeBody},
		{name: "rpc chunked 50 MB", target: "/rest/v1/rpc/f", size: big, chunked: true, status: 413, body: pgrstTooLargeBody, sent: true},
		{name: "auth announced 50 MB", target: "/auth/v1/signup", size: big, status: 413, body: authTooLargeLegacyBody,
			header: map[string]string{"X-Sb-Error-Code": "validation_failed"}},
		{name: "auth chunked 50 MB, dated API version", target: "/auth/v1/signup", size: big, chunked: true, status: 413, body: authTooLargeBody, sent: true,
			hdr:    map[string]string{"X-Supabase-Api-Version": "2024-01-01"},
			header: map[string]string{"X-Sb-Error-Code": "validation_failed", "X-Supabase-Api-Version": "2024-01-01"}},
		{name: "storage upload over the limit", target: "/storage/v1/object/b/big", size: 8 << 20, status: 200, body: `{"read":8388608}`, sent: true},
		{name: "storage chunked upload over the limit", target: "/storage/v1/object/b/big", size: 8 << 20, chunked: true, status: 200, body: `{"read":8388608}`, sent: true},
	}
	for _, replicas := range []int{1, 2} {
		services := newLimitedReplicas(t, replicas, limit)
		storage := newLimitedReplicas(t, replicas, 1<<40)
		h := newHarness(t, map[string]string{
			"GATEWAY_BODY_LIMIT": strconv.Itoa(limit),
			"REST_URL":           services.urls(),
			"RPC_URL":            services.urls(),
			"AUTH_URL":           services.urls(),
			"STORAGE_URL":        storage.urls(),
		})
		for i, tc := range tests {
			t.Run(fmt.Sprintf("%s, %d replicas", tc.name, replicas), func(t *testing.T) {
				t.Parallel()
				id := fmt.Sprintf("body-limit-%d-%d", replicas, i)
				hdr := map[string]string{"X-Request-Id": id}
				for k, v := range tc.hdr {
					hdr[k] = v
				}
				res, body := h.upload(t, tc.target, tc.size, tc.chunked, hdr)
				if res.StatusCode != tc.status || string(body) != tc.body {
					t.Fatalf("status %d body %s\nwant %d %s", res.StatusCode, body, tc.status, tc.body)
				}
				if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("Content-Type %q", ct)
				}
				for k, v := range tc.header {
					if got := res.Header.Get(k); got != v {
						t.Errorf("%s = %q, want %q", k, got, v)
					}
				}
				up, limited := services, true
				if strings.HasPrefix(tc.target, "/storage/") {
					up, limited = storage, false
				}
				n, reached := up.bytesRead(id)
				if reached && !tc.sent {
					t.Errorf("the service saw the request (read %d bytes); an announced length over the limit must be refused first", n)
				}
				if n > limit && limited {
					t.Errorf("the service read %d bytes, over the limit", n)
				}
			})
		}
	}
}
