package fiberserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
)

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the JSON log lines whose msg is msg.
func (b *logBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// testErrorHandler answers every error as JSON, recording what it saw.
func testErrorHandler(c fiber.Ctx, err error) error {
	status := fiber.StatusInternalServerError
	var fe *fiber.Error
	if errors.As(err, &fe) {
		status = fe.Code
	}
	return c.Status(status).JSON(fiber.Map{"error": err.Error(), "panic": errors.Is(err, ErrPanic)})
}

func newTestApp(t *testing.T, cfg Config) (*fiber.App, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	app := New(cfg, log, testErrorHandler)
	app.Get("/id", func(c fiber.Ctx) error {
		return c.SendString(RequestID(c) + "|" + ContextRequestID(c.Context()))
	})
	app.Get("/deadline", func(c fiber.Ctx) error {
		d, ok := c.Context().Deadline()
		if !ok {
			return c.SendString("none")
		}
		return c.SendString(time.Until(d).Round(time.Second).String())
	})
	app.Get("/panic", func(c fiber.Ctx) error { panic("boom") })
	app.Get("/teapot", func(c fiber.Ctx) error { return fiber.NewError(fiber.StatusTeapot, "short and stout") })
	app.Post("/echo", func(c fiber.Ctx) error { return c.Send(c.Body()) })
	return app, logs
}

func do(t *testing.T, app *fiber.App, req *http.Request) (int, string) {
	t.Helper()
	resp, err := app.Test(req, fiber.TestConfig{Timeout: 5 * time.Second, FailOnTimeout: true})
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestMiddlewares(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		method     string
		target     string
		header     map[string]string
		body       string
		wantStatus int
		check      func(t *testing.T, body string)
		wantPath   string
	}{
		{
			name: "request id from header reaches handler and context", method: "GET", target: "/id",
			header: map[string]string{"X-Request-Id": "abc-123"}, wantStatus: 200, wantPath: "/id",
			check: func(t *testing.T, body string) {
				if body != "abc-123|abc-123" {
					t.Errorf("body = %q, want abc-123|abc-123", body)
				}
			},
		},
		{
			name: "missing request id is generated", method: "GET", target: "/id", wantStatus: 200, wantPath: "/id",
			check: func(t *testing.T, body string) {
				id, ctxID, _ := strings.Cut(body, "|")
				if len(id) != 32 || id != ctxID {
					t.Errorf("body = %q, want a generated 32-char id twice", body)
				}
			},
		},
		{
			name: "request id with control characters is replaced", method: "GET", target: "/id",
			header: map[string]string{"X-Request-Id": "a b"}, wantStatus: 200, wantPath: "/id",
			check: func(t *testing.T, body string) {
				if strings.HasPrefix(body, "a b") {
					t.Errorf("body = %q: hostile id kept", body)
				}
			},
		},
		{
			name: "handler context has the request deadline", method: "GET", target: "/deadline", wantStatus: 200, wantPath: "/deadline",
			check: func(t *testing.T, body string) {
				if body != "7s" {
					t.Errorf("deadline in %q, want 7s", body)
				}
			},
		},
		{
			name: "panic is answered by the error handler", method: "GET", target: "/panic", wantStatus: 500, wantPath: "/panic",
			check: func(t *testing.T, body string) {
				if !strings.Contains(body, `"panic":true`) || !strings.Contains(body, "boom") {
					t.Errorf("body = %q, want the panic error", body)
				}
			},
		},
		{
			name: "returned error is answered by the error handler", method: "GET", target: "/teapot?secret=token", wantStatus: 418, wantPath: "/teapot",
			check: func(t *testing.T, body string) {
				if !strings.Contains(body, "short and stout") {
					t.Errorf("body = %q", body)
				}
			},
		},
		{
			name: "unknown route goes through the error handler", method: "GET", target: "/nowhere", wantStatus: 404, wantPath: "/nowhere",
		},
		{
			name: "body within the limit", method: "POST", target: "/echo", body: strings.Repeat("x", 64), wantStatus: 200, wantPath: "/echo",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app, logs := newTestApp(t, Config{BodyLimit: 64, RequestTimeout: 7 * time.Second})
			req := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			status, body := do(t, app, req)
			if status != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %q)", status, tt.wantStatus, body)
			}
			if tt.check != nil {
				tt.check(t, body)
			}
			lines := logs.lines(t, "request")
			if len(lines) != 1 {
				t.Fatalf("got %d access-log lines, want 1", len(lines))
			}
			l := lines[0]
			if l["level"] != "DEBUG" || l["method"] != tt.method || l["path"] != tt.wantPath ||
				l["status"] != float64(tt.wantStatus) || l["request_id"] == "" {
				t.Errorf("access log = %v", l)
			}
			if _, ok := l["duration_ms"].(float64); !ok {
				t.Errorf("access log has no duration_ms: %v", l)
			}
			if id := tt.header["X-Request-Id"]; id == "abc-123" && l["request_id"] != id {
				t.Errorf("request_id = %v, want %s", l["request_id"], id)
			}
			if tt.wantStatus == 500 && len(logs.lines(t, "panic while serving a request")) != 1 {
				t.Errorf("panic not logged")
			}
		})
	}
}

func TestContextIsCancelledAfterTheRequest(t *testing.T) {
	t.Parallel()
	app, _ := newTestApp(t, Config{})
	got := make(chan context.Context, 1)
	app.Get("/keep", func(c fiber.Ctx) error {
		got <- c.Context()
		return nil
	})
	if status, _ := do(t, app, httptest.NewRequest("GET", "/keep", nil)); status != 200 {
		t.Fatalf("status = %d", status)
	}
	ctx := <-got
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("request context still live after the request")
	}
}

func TestNoAccessLogAboveDebug(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	app := New(Config{}, slog.New(slog.NewJSONHandler(logs, nil)), testErrorHandler)
	app.Get("/", func(c fiber.Ctx) error { return nil })
	do(t, app, httptest.NewRequest("GET", "/", nil))
	if n := len(logs.lines(t, "request")); n != 0 {
		t.Fatalf("%d access-log lines at info level, want 0", n)
	}
}

func TestServeShutsDownGracefully(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	app := New(Config{}, log, testErrorHandler)
	started := make(chan struct{})
	app.Get("/slow", func(c fiber.Ctx) error {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return c.SendString("done")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, app, ln, log, 5*time.Second) }()

	type result struct {
		status int
		body   string
		err    error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		res <- result{resp.StatusCode, string(b), err}
	}()

	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("request never reached the handler")
	}
	cancel() // stop while the request is in flight

	r := <-res
	if r.err != nil || r.status != 200 || r.body != "done" {
		t.Fatalf("in-flight request: status %d body %q err %v", r.status, r.body, r.err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve returned %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancellation")
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("still accepting connections after shutdown")
	}
}

// serve runs app on a loopback port until the test ends and returns its
// base URL.
func serve(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, app, ln, slog.New(slog.DiscardHandler), 5*time.Second) }()
	t.Cleanup(func() {
		// The transport may hold a connection it dialled but never used;
		// close it so shutdown does not wait for the read timeout.
		http.DefaultClient.CloseIdleConnections()
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func TestBodyLimitGoesThroughTheErrorHandler(t *testing.T) {
	t.Parallel()
	app, _ := newTestApp(t, Config{BodyLimit: 64})
	base := serve(t, app)
	tests := []struct {
		name       string
		size       int
		wantStatus int
	}{
		{"at the limit", 64, 200},
		{"over the limit", 65, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := http.Post(base+"/echo", "text/plain", strings.NewReader(strings.Repeat("x", tt.size)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %q)", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus == 413 && !strings.Contains(string(body), `"error"`) {
				t.Errorf("body = %q, not written by the error handler", body)
			}
		})
	}
}

func TestServeStopsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, New(Config{}, log, nil), "127.0.0.1:0", log) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

func TestServeReportsListenErrors(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	err := Serve(context.Background(), New(Config{}, log, nil), "127.0.0.1:99999", log)
	if err == nil || !strings.Contains(err.Error(), "listen on") {
		t.Fatalf("Serve = %v, want a listen error", err)
	}
}

func TestServeGivesUpAfterTheGrace(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	app := New(Config{}, log, testErrorHandler)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// A connection that never sends a request is not idle to fasthttp: only
	// the grace ends the wait for it.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, app, ln, log, 300*time.Millisecond) }()
	time.Sleep(100 * time.Millisecond) // let the server accept it
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the grace")
	}
	if len(logs.lines(t, "shutdown grace expired with connections still open")) != 1 {
		t.Error("expired grace not logged")
	}
}
