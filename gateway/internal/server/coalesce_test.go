package server

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kejanest/kejanest/gateway/internal/coalesce"
)

// The in-process routes hold a response and send it in one write
// (coalesce) when the gateway serves its own listeners: the response
// arrives framed as net/http frames it without holding (a known length
// kept, a small body given its length, an unknown large one chunked,
// HEAD without a body), on one keep-alive connection after another.
func TestInProcessResponsesHeld(t *testing.T) {
	t.Parallel()
	var held, requests atomic.Int64
	rest := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if coalesce.FromContext(r.Context()) != nil {
			held.Add(1)
		}
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		body := strings.Repeat("k", size)
		switch r.URL.Path {
		case "/echo":
			in, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Length", strconv.Itoa(len(in)))
			_, _ = w.Write(in)
		case "/known":
			w.Header().Set("Content-Length", strconv.Itoa(size))
			_, _ = io.WriteString(w, body)
		case "/unknown":
			_, _ = io.WriteString(w, body[:size/2])
			_, _ = io.WriteString(w, body[size/2:])
		}
	})
	h := newHarnessWith(t, map[string]string{"GATEWAY_INPROCESS": "rest"}, Options{InProcess: map[string]http.Handler{"rest": rest}})
	lns, err := Listen(context.Background(), []string{"127.0.0.1:0"}, h.srv.log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.srv.Serve(ctx, lns) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("shutdown did not finish")
		}
	})
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1}}
	t.Cleanup(client.CloseIdleConnections)

	tests := []struct {
		method, path string
		size         int
		length       int64 // -1: chunked
	}{
		{"GET", "/known", 12 * 1024, 12 * 1024},
		{"GET", "/known", 6 * 1024, 6 * 1024},
		{"GET", "/known", 100, 100},
		{"GET", "/known", 3 * coalesce.MaxHeld, 3 * coalesce.MaxHeld},
		{"HEAD", "/known", 12 * 1024, 12 * 1024},
		{"GET", "/unknown", 100, 100},
		{"GET", "/unknown", 12 * 1024, -1},
		{"GET", "/unknown", 0, 0},
	}
	for _, tt := range tests {
		name := tt.method + " " + tt.path + " " + strconv.Itoa(tt.size)
		req, err := http.NewRequest(tt.method, "http://"+lns[0].Addr().String()+"/rest/v1"+tt.path+"?size="+strconv.Itoa(tt.size), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("apikey", h.cfg.AnonKey)
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatalf("%s: read: %v", name, err)
		}
		chunked := len(res.TransferEncoding) > 0 && res.TransferEncoding[0] == "chunked"
		switch {
		case res.StatusCode != 200:
			t.Errorf("%s: status %d", name, res.StatusCode)
		case tt.length == -1 && !chunked:
			t.Errorf("%s: want chunked, got length %d", name, res.ContentLength)
		case tt.length >= 0 && (chunked || res.ContentLength != tt.length):
			t.Errorf("%s: length %d (chunked %v), want %d", name, res.ContentLength, chunked, tt.length)
		}
		want := strings.Repeat("k", tt.size)
		if tt.method == "HEAD" {
			want = ""
		}
		if string(body) != want {
			t.Errorf("%s: body of %d bytes, want %d", name, len(body), len(want))
		}
	}
	if n := held.Load(); n != requests.Load() || n != int64(len(tests)) {
		t.Errorf("%d of %d requests arrived on a connection that can hold, want all %d", n, requests.Load(), len(tests))
	}

	// A client that waits for "100 Continue" gets it while the service
	// reads, not with the response: Go's client would otherwise send the
	// body only after its 5 s wait (curl's is 1 s).
	expect := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}}
	t.Cleanup(expect.CloseIdleConnections)
	payload := strings.Repeat(`{"p_limit":20}`, 200)
	req, err := http.NewRequest("POST", "http://"+lns[0].Addr().String()+"/rest/v1/echo", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", h.cfg.AnonKey)
	req.Header.Set("Expect", "100-continue")
	start := time.Now()
	res, err := expect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || string(body) != payload {
		t.Errorf("100-continue: %d bytes back (%v), want the %d sent", len(body), err, len(payload))
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("100-continue: took %v: the interim response was held until the client's timeout", took)
	}
}
