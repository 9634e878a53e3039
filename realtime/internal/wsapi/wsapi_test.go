package wsapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kejanest/kejanest/platform/devkeys"
)

func newServer(t *testing.T, o Options) *httptest.Server {
	t.Helper()
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	srv := httptest.NewServer(New(o).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func dial(t *testing.T, base, query string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/websocket"+query, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

func send(t *testing.T, c *websocket.Conn, frame string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		t.Fatalf("write %s: %v", frame, err)
	}
}

func receive(t *testing.T, c *websocket.Conn) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("got a %v frame, want text", typ)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("frame %s: %v", data, err)
	}
	return v
}

func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestPhoenixReplies(t *testing.T) {
	t.Parallel()
	srv := newServer(t, Options{})
	tests := []struct {
		name  string
		query string
		sends []string
		want  string // the first frame the server sends back
	}{
		{
			name: "v2 heartbeat", query: "?vsn=2.0.0&apikey=x",
			sends: []string{`[null,"7","phoenix","heartbeat",{}]`},
			want:  `[null,"7","phoenix","phx_reply",{"status":"ok","response":{}}]`,
		},
		{
			name: "v2 join with a bad token is refused", query: "?vsn=2.0.0",
			sends: []string{`["1","1","realtime:room","phx_join",{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":""},"postgres_changes":[],"private":false},"access_token":"t"}]`},
			want:  `["1","1","realtime:room","phx_reply",{"status":"error","response":{"reason":"MalformedJWT: The token provided is not a valid JWT"}}]`,
		},
		{
			name: "v2 leave", query: "?vsn=2.0.0",
			sends: []string{`["1","2","realtime:room","phx_leave",{}]`},
			want:  `["1","2","realtime:room","phx_reply",{"status":"ok","response":{}}]`,
		},
		{
			name: "v1 heartbeat", query: "?vsn=1.0.0",
			sends: []string{`{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"3"}`},
			want:  `{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"3"}`,
		},
		{
			name: "v1 join without a token is refused", query: "?vsn=1.0.0",
			sends: []string{`{"topic":"realtime:room","event":"phx_join","payload":{"config":{}},"ref":"4","join_ref":"4"}`},
			want:  `{"topic":"realtime:room","event":"phx_reply","payload":{"status":"error","response":{"reason":"MalformedJWT: The token provided is not a valid JWT"}},"ref":"4"}`,
		},
		{
			name: "no vsn means 1.0.0", query: "",
			sends: []string{`{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"5"}`},
			want:  `{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"5"}`,
		},
		{
			name: "events on unjoined topics", query: "?vsn=2.0.0",
			sends: []string{`["1","2","realtime:room","broadcast",{"type":"broadcast","event":"e","payload":{}}]`},
			want:  `["1","2","realtime:room","phx_reply",{"status":"error","response":{"reason":"unmatched topic"}}]`,
		},
		{
			name: "v2 join with the publishable key", query: "?vsn=2.0.0&apikey=" + devkeys.PublishableKey,
			sends: []string{`["1","1","realtime:room","phx_join",{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":""},"postgres_changes":[],"private":false},"access_token":"` + devkeys.PublishableKey + `"}]`},
			want:  `["1","1","realtime:room","phx_reply",{"status":"ok","response":{"postgres_changes":[]}}]`,
		},
		{
			name: "v2 join with an unknown sb_ key is refused", query: "?vsn=2.0.0&apikey=sb_publishable_other",
			sends: []string{`["1","1","realtime:room","phx_join",{"config":{},"access_token":"sb_publishable_other"}]`},
			want:  `["1","1","realtime:room","phx_reply",{"status":"error","response":{"reason":"MalformedJWT: The token provided is not a valid JWT"}}]`,
		},
		{
			name: "malformed and wrong-version frames are ignored", query: "?vsn=2.0.0",
			sends: []string{
				`[null,"4","phoenix","other",{}]`,
				`{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"5"}`,
				`not json`,
				`[null,"6","phoenix","heartbeat",{}]`,
			},
			want: `[null,"6","phoenix","phx_reply",{"status":"ok","response":{}}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := dial(t, srv.URL, tt.query)
			for _, f := range tt.sends {
				send(t, c, f)
			}
			if got, want := receive(t, c), jsonValue(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("reply = %v\nwant    %v", got, want)
			}
		})
	}
}

func TestIdleSocketsAreClosed(t *testing.T) {
	t.Parallel()
	// The timeout leaves room for scheduling delays on a loaded machine: a
	// heartbeat that arrives late by more than the timeout fails the test.
	srv := newServer(t, Options{IdleTimeout: 1500 * time.Millisecond})

	t.Run("without heartbeats", func(t *testing.T) {
		t.Parallel()
		c := dial(t, srv.URL, "?vsn=2.0.0")
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _, err := c.Read(ctx)
		if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Fatalf("read = %v, want a normal close", err)
		}
		if d := time.Since(start); d < 1400*time.Millisecond {
			t.Errorf("closed after %v, before the idle timeout", d)
		}
	})

	t.Run("heartbeats keep it open", func(t *testing.T) {
		t.Parallel()
		c := dial(t, srv.URL, "?vsn=2.0.0")
		for i := range 10 { // 10 × 250 ms is well past the 1.5 s timeout
			time.Sleep(250 * time.Millisecond)
			ref := string(rune('a' + i))
			send(t, c, `[null,"`+ref+`","phoenix","heartbeat",{}]`)
			want := jsonValue(t, `[null,"`+ref+`","phoenix","phx_reply",{"status":"ok","response":{}}]`)
			if got := receive(t, c); !reflect.DeepEqual(got, want) {
				t.Fatalf("heartbeat %d: reply %v", i, got)
			}
		}
	})
}

func TestHTTPEndpoints(t *testing.T) {
	t.Parallel()
	srv := newServer(t, Options{})
	tests := []struct {
		method, path string
		wantStatus   int
		wantBody     string
	}{
		{"GET", "/api/health", 200, `{"status":"ok"}`},
		{"GET", "/health", 200, `{"status":"ok"}`},
		{"HEAD", "/health", 200, ``},
		{"POST", "/api/broadcast", 401, `{"message":"The token provided is not a valid JWT"}`},
		{"POST", "/api/broadcast/room/events/e", 401, `{"message":"The token provided is not a valid JWT"}`},
		{"GET", "/nowhere", 404, `{"message":"not found"}`},
		{"GET", "/websocket?vsn=3.0.0", 400, `{"message":"unsupported vsn \"3.0.0\""}`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(""))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || strings.TrimSpace(string(b)) != tt.wantBody {
				t.Errorf("= %d %s, want %d %s", resp.StatusCode, b, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

func TestServeClosesSocketsOnShutdown(t *testing.T) {
	t.Parallel()
	s := New(Options{Log: slog.New(slog.DiscardHandler)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()

	base := "http://" + ln.Addr().String()
	conns := []*websocket.Conn{dial(t, base, "?vsn=2.0.0"), dial(t, base, "?vsn=1.0.0")}
	// A round trip on each proves the server registered the socket.
	send(t, conns[0], `[null,"1","phoenix","heartbeat",{}]`)
	receive(t, conns[0])
	send(t, conns[1], `{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"1"}`)
	receive(t, conns[1])

	cancel()
	for i, c := range conns {
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _, err := c.Read(rctx)
		rcancel()
		if websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("socket %d: read = %v, want close 1001", i, err)
		}
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("still accepting connections after shutdown")
	}
}

func TestShutdownRefusesNewSockets(t *testing.T) {
	t.Parallel()
	s := New(Options{Log: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv.URL, "?vsn=2.0.0")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := c.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("read = %v, want close 1001", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("socket left open")
	}
}
