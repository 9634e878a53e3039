package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
)

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
	down := func(context.Context) error { return errors.New("database is down") }
	tests := []struct {
		method, path string
		wantStatus   int
	}{
		{"GET", "/health", 200},
		{"HEAD", "/health", 200},
		{"GET", "/live", 200},
		{"GET", "/ready", 503},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			app := New(Deps{Log: slog.New(slog.DiscardHandler), Ready: down})
			resp, body := do(t, app, tt.method, tt.path)
			if resp.StatusCode != tt.wantStatus || body != "" {
				t.Errorf("= %d %q, want %d and an empty body", resp.StatusCode, body, tt.wantStatus)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, target string
		wantStatus     int
		want           map[string]any
	}{
		{"POST", "/rpc/suspend_user", 400, map[string]any{"code": "PGRST127", "message": "Feature not implemented", "details": "calling function suspend_user is not implemented yet", "hint": nil}},
		{"GET", "/rpc/search?q=house", 400, map[string]any{"code": "PGRST127", "message": "Feature not implemented", "details": "calling function search is not implemented yet", "hint": nil}},
		{"PUT", "/rpc/fn", 405, map[string]any{"code": "PGRST101", "message": "Cannot use the PUT method on RPC", "details": nil, "hint": nil}},
		{"PATCH", "/rpc/fn", 405, map[string]any{"code": "PGRST101", "message": "Cannot use the PATCH method on RPC", "details": nil, "hint": nil}},
		{"DELETE", "/rpc/fn", 405, map[string]any{"code": "PGRST101", "message": "Cannot use the DELETE method on RPC", "details": nil, "hint": nil}},
		{"GET", "/todos", 404, map[string]any{"code": "PGRST125", "message": "Invalid path specified in request URL", "details": nil, "hint": nil}},
		{"GET", "/rpc", 404, map[string]any{"code": "PGRST125", "message": "Invalid path specified in request URL", "details": nil, "hint": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, New(Deps{Log: slog.New(slog.DiscardHandler)}), tt.method, tt.target)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d (body %s)", resp.StatusCode, tt.wantStatus, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("body = %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestHeadCallHasNoBody(t *testing.T) {
	t.Parallel()
	resp, body := do(t, New(Deps{Log: slog.New(slog.DiscardHandler)}), "HEAD", "/rpc/fn")
	if resp.StatusCode != 400 || body != "" {
		t.Errorf("HEAD = %d %q, want 400 without a body", resp.StatusCode, body)
	}
}
