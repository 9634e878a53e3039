package devkeys

import (
	"errors"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/jwtverify"
)

// The legacy keys must really be tokens signed by the CLI secret, with the
// roles their names claim; a typo here would break every local client.
func TestLegacyKeysAreSignedBySecret(t *testing.T) {
	t.Parallel()
	v, err := jwtverify.New(jwtverify.Options{Secret: JWTSecret})
	if err != nil {
		t.Fatal(err)
	}
	for key, role := range map[string]string{AnonKey: "anon", ServiceRoleKey: "service_role"} {
		c, err := v.Verify(key)
		if err != nil {
			t.Fatalf("%s key does not verify: %v", role, err)
		}
		if c.Role != role {
			t.Errorf("key role %q, want %q", c.Role, role)
		}
	}
}

func TestRefuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      map[string]string
		wantErr bool
		mention string
	}{
		{"own values", map[string]string{"JWT_SECRET": "a-real-secret-of-sufficient-length-123"}, false, ""},
		{"dev secret", map[string]string{"JWT_SECRET": JWTSecret}, true, "JWT_SECRET"},
		{"dev anon key", map[string]string{"ANON_KEY": AnonKey}, true, "ANON_KEY"},
		{"dev sb key", map[string]string{"SUPABASE_SECRET_KEY": SecretKey}, true, "SUPABASE_SECRET_KEY"},
		{"empty", map[string]string{"SERVICE_ROLE_KEY": ""}, true, "SERVICE_ROLE_KEY"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Refuse(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not name %s", err, tc.mention)
			}
			if tc.name == "dev secret" && !errors.Is(err, ErrDevSecret) {
				t.Errorf("want ErrDevSecret, got %v", err)
			}
		})
	}
	if !IsProduction("Production") || IsProduction("dev") || IsProduction("") {
		t.Error("IsProduction misreads its input")
	}
}
