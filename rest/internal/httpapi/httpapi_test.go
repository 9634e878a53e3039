package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/fiberserve"
)

var errDown = errors.New("database is down")

func newApp(ready func(context.Context) error) *fiber.App {
	return New(Deps{Log: slog.New(slog.DiscardHandler), Ready: ready})
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
	up := func(context.Context) error { return nil }
	down := func(context.Context) error { return errDown }
	tests := []struct {
		name       string
		ready      func(context.Context) error
		method     string
		path       string
		wantStatus int
	}{
		{"health with database up", up, "GET", "/health", 200},
		{"health with database down", down, "GET", "/health", 200},
		{"live with database down", down, "GET", "/live", 200},
		{"head live", down, "HEAD", "/live", 200},
		{"ready with database up", up, "GET", "/ready", 200},
		{"ready with database down", down, "GET", "/ready", 503},
		{"ready without a check", nil, "GET", "/ready", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, newApp(tt.ready), tt.method, tt.path)
			if resp.StatusCode != tt.wantStatus || body != "" {
				t.Errorf("%s %s = %d %q, want %d and an empty body", tt.method, tt.path, resp.StatusCode, body, tt.wantStatus)
			}
		})
	}
}

func TestNotImplemented(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, target, wantDetails string
	}{
		{"GET", "/todos?select=*&id=eq.1", "GET /todos is not implemented yet"},
		{"POST", "/todos", "POST /todos is not implemented yet"},
		{"PATCH", "/todos", "PATCH /todos is not implemented yet"},
		{"DELETE", "/todos", "DELETE /todos is not implemented yet"},
		{"PUT", "/todos", "PUT /todos is not implemented yet"},
		{"GET", "/", "GET / is not implemented yet"},
		{"POST", "/health", "POST /health is not implemented yet"},
		{"GET", "/" + strings.Repeat("a", 300), "GET /" + strings.Repeat("a", 255) + "… is not implemented yet"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target[:min(len(tt.target), 20)], func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, newApp(nil), tt.method, tt.target)
			if resp.StatusCode != 400 {
				t.Errorf("status = %d, want 400", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			want := map[string]any{"code": "PGRST127", "message": "Feature not implemented", "details": tt.wantDetails, "hint": nil}
			if len(got) != 4 || got["code"] != want["code"] || got["message"] != want["message"] || got["details"] != want["details"] || got["hint"] != nil {
				t.Errorf("body = %v, want %v", got, want)
			}
		})
	}
}

func TestErrorHandler(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		handler    fiber.Handler
		wantStatus int
		wantCode   string
	}{
		{"unexpected error", func(c fiber.Ctx) error { return errors.New("secret detail") }, 500, "PGRSTX00"},
		{"panic", func(c fiber.Ctx) error { panic("secret detail") }, 500, "PGRSTX00"},
		{"fiber not found", func(c fiber.Ctx) error { return fiber.ErrNotFound }, 404, "PGRST125"},
		{"fiber body too large", func(c fiber.Ctx) error { return fiber.ErrRequestEntityTooLarge }, 413, "PGRST102"},
		{"fiber bad request", func(c fiber.Ctx) error { return fiber.ErrBadRequest }, 400, "PGRST102"},
		{"fiber server error", func(c fiber.Ctx) error { return fiber.ErrBadGateway }, 500, "PGRSTX00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := slog.New(slog.DiscardHandler)
			app := fiberserve.New(fiberserve.Config{}, log, errorHandler(log))
			app.Get("/x", tt.handler)
			resp, body := do(t, app, "GET", "/x")
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if resp.StatusCode != tt.wantStatus || got["code"] != tt.wantCode || len(got) != 4 || strings.Contains(body, "secret") {
				t.Errorf("= %d %s, want %d with code %s and no internals", resp.StatusCode, body, tt.wantStatus, tt.wantCode)
			}
		})
	}
}
