package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/fiberserve"
)

func newApp() *fiber.App {
	return New(Deps{Log: slog.New(slog.DiscardHandler), FileSizeLimit: 1024})
}

func do(t *testing.T, app *fiber.App, method, target string) (*http.Response, string) {
	t.Helper()
	resp, err := app.Test(httptest.NewRequest(method, target, nil), fiber.TestConfig{Timeout: 5 * time.Second, FailOnTimeout: true})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestHealth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, path, wantBody string
	}{
		{"GET", "/status", ""},
		{"HEAD", "/status", ""},
		{"GET", "/health", `{"status":"ok"}`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, newApp(), tt.method, tt.path)
			if resp.StatusCode != 200 || body != tt.wantBody {
				t.Errorf("= %d %q, want 200 %q", resp.StatusCode, body, tt.wantBody)
			}
		})
	}
}

func TestNotImplementedEnvelope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, target, wantMessage string
	}{
		{"GET", "/bucket/no-such-bucket", "GET /bucket/no-such-bucket is not implemented yet"},
		{"POST", "/object/images/a.png", "POST /object/images/a.png is not implemented yet"},
		{"GET", "/object/public/images/a.png?download=1", "GET /object/public/images/a.png is not implemented yet"},
		{"DELETE", "/object/images", "DELETE /object/images is not implemented yet"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, newApp(), tt.method, tt.target)
			if resp.StatusCode != 501 {
				t.Errorf("status = %d, want 501", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			want := map[string]any{"statusCode": "501", "code": "NotImplemented", "error": "NotImplemented", "message": tt.wantMessage}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("body = %v, want %v", got, want)
			}
		})
	}
}

func TestUnexpectedErrorsAreGeneric(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler fiber.Handler
	}{
		{"returned error", func(c fiber.Ctx) error { return errors.New("secret cause") }},
		{"panic", func(c fiber.Ctx) error { panic("secret cause") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := slog.New(slog.DiscardHandler)
			app := fiberserve.New(fiberserve.Config{}, log, errorHandler(log))
			app.Get("/x", tt.handler)
			resp, body := do(t, app, "GET", "/x")
			if resp.StatusCode != 500 || strings.Contains(body, "secret") || !strings.Contains(body, `"code":"InternalError"`) {
				t.Errorf("= %d %s, want a generic 500", resp.StatusCode, body)
			}
		})
	}
}

func TestBodyOverTheFileSizeLimit(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)
	app := New(Deps{Log: log, FileSizeLimit: 10})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- fiberserve.ServeListener(ctx, app, ln, log) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()

	// Announce a body over the limit and send only its first 16 KiB: the
	// streaming server pre-reads up to 8 KiB, then must refuse the request
	// from the announced length without waiting for the rest.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "POST /object/b/a.txt HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", 10+multipartOverhead+1); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(make([]byte, 16<<10)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	want := `{"statusCode":"413","code":"EntityTooLarge","error":"Payload too large","message":"The object exceeded the maximum allowed size"}`
	if resp.StatusCode != 400 || string(b) != want {
		t.Errorf("= %d %s, want 400 %s", resp.StatusCode, b, want)
	}
}
