package api

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/fiberserve"
)

func newApp() *fiber.App {
	cfg, _ := config.Load(envconf.FromMap(nil))
	return New(Deps{Config: cfg, Log: slog.New(slog.DiscardHandler)})
}

func do(t *testing.T, app *fiber.App, method, target string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := app.Test(req, fiber.TestConfig{Timeout: 5 * time.Second, FailOnTimeout: true})
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

func decode(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return m
}

func TestHealth(t *testing.T) {
	t.Parallel()
	resp, body := do(t, newApp(), "GET", "/health", nil)
	want := map[string]any{"version": "kejanest-dev", "name": "GoTrue", "description": "GoTrue is a user registration and authentication API"}
	if resp.StatusCode != 200 || !reflect.DeepEqual(decode(t, body), want) {
		t.Errorf("GET /health = %d %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	resp, body := do(t, newApp(), "GET", "/settings", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /settings = %d %s", resp.StatusCode, body)
	}
	got := decode(t, body)
	for k, want := range map[string]any{"disable_signup": false, "mailer_autoconfirm": false, "phone_autoconfirm": false, "sms_provider": "", "saml_enabled": false} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	ext, _ := got["external"].(map[string]any)
	for k, want := range map[string]any{"email": true, "phone": false, "google": false, "anonymous_users": false} {
		if ext[k] != want {
			t.Errorf("external.%s = %v, want %v", k, ext[k], want)
		}
	}
}

func TestNotImplementedShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		method      string
		target      string
		header      map[string]string
		wantBody    map[string]any
		wantVersion string
	}{
		{
			name: "auth-js (dated) shape", method: "POST", target: "/signup?redirect_to=x",
			header:      map[string]string{"X-Supabase-Api-Version": "2024-01-01"},
			wantBody:    map[string]any{"code": "not_implemented", "message": "POST /signup is not implemented yet"},
			wantVersion: "2024-01-01",
		},
		{
			name: "legacy shape", method: "GET", target: "/user",
			wantBody: map[string]any{"code": float64(501), "error_code": "not_implemented", "msg": "GET /user is not implemented yet"},
		},
		{
			name: "legacy shape for an old version", method: "POST", target: "/token?grant_type=password",
			header:   map[string]string{"X-Supabase-Api-Version": "2023-06-01"},
			wantBody: map[string]any{"code": float64(501), "error_code": "not_implemented", "msg": "POST /token is not implemented yet"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, newApp(), tt.method, tt.target, tt.header)
			if resp.StatusCode != 501 {
				t.Errorf("status = %d, want 501", resp.StatusCode)
			}
			got := decode(t, body)
			if tt.wantVersion == "" {
				// The legacy 5xx body also names the request id.
				if id, _ := got["error_id"].(string); id == "" {
					t.Errorf("legacy body has no error_id: %s", body)
				}
				delete(got, "error_id")
			}
			if !reflect.DeepEqual(got, tt.wantBody) {
				t.Errorf("body = %v, want %v", got, tt.wantBody)
			}
			if v := resp.Header.Get("X-Supabase-Api-Version"); v != tt.wantVersion {
				t.Errorf("X-Supabase-Api-Version = %q, want %q", v, tt.wantVersion)
			}
			if c := resp.Header.Get("x-sb-error-code"); c != "not_implemented" {
				t.Errorf("x-sb-error-code = %q", c)
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
			a := &API{log: slog.New(slog.DiscardHandler)}
			app := fiberserve.New(fiberserve.Config{}, a.log, a.writeError)
			app.Get("/x", tt.handler)
			resp, body := do(t, app, "GET", "/x", map[string]string{"X-Supabase-Api-Version": "2024-01-01", "X-Request-Id": "rid-1"})
			got := decode(t, body)
			if resp.StatusCode != 500 || got["code"] != "unexpected_failure" || strings.Contains(body, "secret") {
				t.Errorf("= %d %s, want a generic 500", resp.StatusCode, body)
			}
			resp, body = do(t, app, "GET", "/x", map[string]string{"X-Request-Id": "rid-1"})
			if got := decode(t, body); resp.StatusCode != 500 || got["error_id"] != "rid-1" || got["error_code"] != "unexpected_failure" {
				t.Errorf("legacy = %d %s, want error_id rid-1", resp.StatusCode, body)
			}
		})
	}
}

func TestClientIP(t *testing.T) {
	t.Parallel()
	app := fiber.New()
	app.Get("/ip", func(c fiber.Ctx) error { return c.SendString(clientIP(c)) })
	tests := []struct {
		name string
		hdr  map[string]string
		want string
	}{
		{"gateway's X-Real-IP wins", map[string]string{"X-Real-Ip": "203.0.113.7", "X-Forwarded-For": "203.0.113.7, 10.0.0.1, 127.0.0.1"}, "203.0.113.7"},
		{"nearest proxy's entry without it", map[string]string{"X-Forwarded-For": "198.51.100.9, 10.0.0.1"}, "10.0.0.1"},
		{"blank X-Real-IP ignored", map[string]string{"X-Real-Ip": "  ", "X-Forwarded-For": "10.0.0.2"}, "10.0.0.2"},
		{"peer without either", nil, "0.0.0.0"},
	}
	for _, tc := range tests {
		if _, got := do(t, app, "GET", "/ip", tc.hdr); got != tc.want {
			t.Errorf("%s: clientIP = %q, want %q", tc.name, got, tc.want)
		}
	}
}
