package auth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

func TestAuthorize(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	a, err := New(Options{JWTSecret: devkeys.JWTSecret, PublishableKey: devkeys.PublishableKey, SecretKey: devkeys.SecretKey, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	sign := func(claims map[string]any) string {
		tok, err := jwtverify.SignHS256(claims, []byte(devkeys.JWTSecret))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	tests := []struct {
		name     string
		token    string
		wantRole string
		wantErr  string
	}{
		{"anon key", devkeys.AnonKey, "anon", ""},
		{"publishable key", devkeys.PublishableKey, "anon", ""},
		{"secret key", devkeys.SecretKey, "service_role", ""},
		{"unknown sb_ key", "sb_publishable_nope", "", "The token provided is not a valid JWT"},
		{"user", sign(map[string]any{"sub": "u1", "role": "authenticated", "exp": now.Unix() + 60}), "authenticated", ""},
		{"expired", sign(map[string]any{"role": "authenticated", "exp": now.Unix() - 42}), "", "Token has expired 42 seconds ago"},
		{"no exp", sign(map[string]any{"role": "authenticated"}), "", "Fields `role` and `exp` are required in JWT"},
		{"no role", sign(map[string]any{"exp": now.Unix() + 60}), "", "Fields `role` and `exp` are required in JWT"},
		{"garbage", "abc", "", "The token provided is not a valid JWT"},
		{"empty", "", "", "The token provided is not a valid JWT"},
		{"bad signature", devkeys.AnonKey[:len(devkeys.AnonKey)-2] + "xx", "", "Failed to validate JWT signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := a.Authorize(tt.token)
			if tt.wantErr != "" {
				var ae *Error
				if !errors.As(err, &ae) || !strings.Contains(ae.Message, tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.Role != tt.wantRole {
				t.Fatalf("= %+v, %v; want role %s", c, err, tt.wantRole)
			}
		})
	}
}

func TestExpired(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	a, err := New(Options{JWTSecret: devkeys.JWTSecret, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := jwtverify.SignHS256(map[string]any{"sub": "u1", "role": "authenticated", "exp": now.Unix() + 60}, []byte(devkeys.JWTSecret))
	c, err := a.Authorize(tok)
	if err != nil || a.Expired(c) != nil || c.Sub != "u1" {
		t.Fatalf("fresh token: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if err := a.Expired(c); err == nil || err.Error() != "Token has expired 60 seconds ago" {
		t.Fatalf("Expired = %v", err)
	}
	if a.Expired(&Claims{Role: "anon"}) != nil {
		t.Fatal("API keys never expire")
	}
}
