// Package devkeys holds the Supabase CLI's well-known local-development
// secrets, so that local tooling works unchanged against our stack, and the
// check that refuses them in production.
package devkeys

import (
	"errors"
	"fmt"
	"strings"
)

// The values the Supabase CLI prints for every local project. They are public
// knowledge: anyone can mint a service_role token with JWTSecret.
const (
	JWTSecret      = "super-secret-jwt-token-with-at-least-32-characters-long"
	AnonKey        = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"
	ServiceRoleKey = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU"
	PublishableKey = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH"
	SecretKey      = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"
)

// EnvVar is the variable that switches every service into production mode.
const EnvVar = "KEJANEST_ENV"

// IsProduction reports whether the KEJANEST_ENV value names production.
func IsProduction(env string) bool {
	switch strings.ToLower(strings.TrimSpace(env)) {
	case "production", "prod":
		return true
	}
	return false
}

// ErrDevSecret is returned when a production configuration still carries a
// well-known development value.
var ErrDevSecret = errors.New("a well-known development secret is configured in production mode")

// Refuse returns ErrDevSecret (naming the variable) if any of the given
// name→value pairs holds one of the public development values, or an empty
// value, so a production deployment cannot start with a forgeable secret.
func Refuse(values map[string]string) error {
	known := map[string]bool{JWTSecret: true, AnonKey: true, ServiceRoleKey: true, PublishableKey: true, SecretKey: true}
	var errs []error
	for _, name := range sortedKeys(values) {
		v := values[name]
		switch {
		case strings.TrimSpace(v) == "":
			errs = append(errs, fmt.Errorf("%s must be set in production mode", name))
		case known[v]:
			errs = append(errs, fmt.Errorf("%s: %w", name, ErrDevSecret))
		}
	}
	return errors.Join(errs...)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
