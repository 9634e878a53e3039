package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

const goodSecret = "a-production-secret-that-is-long-enough-0123456789"

func TestLoad(t *testing.T) {
	t.Parallel()
	defaults := Config{
		DatabaseURL: "postgres://supabase_auth_admin@127.0.0.1:54322/postgres?sslmode=disable",
		Host:        "127.0.0.1",
		Port:        9999,
		JWTSecret:   devkeys.JWTSecret,
		ExternalURL: "http://127.0.0.1:54321",
		SiteURL:     "http://127.0.0.1:54321",
		JWTExp:      time.Hour,
		LogLevel:    "info",
	}
	defaults.Auth, _ = loadAuth(envconf.FromMap(nil))
	tests := []struct {
		name    string
		env     map[string]string
		want    func(c *Config)
		wantErr string
	}{
		{name: "defaults", want: func(c *Config) {}},
		{
			name: "every variable",
			env: map[string]string{
				"DATABASE_URL": "postgres://a@db/app", "GOTRUE_API_HOST": "0.0.0.0", "PORT": "8081",
				"GOTRUE_JWT_SECRET": goodSecret, "API_EXTERNAL_URL": "https://api.kejanest.co.ke",
				"GOTRUE_SITE_URL": "https://kejanest.co.ke", "GOTRUE_JWT_EXP": "900", "GOTRUE_LOG_LEVEL": "Debug",
			},
			want: func(c *Config) {
				*c = Config{DatabaseURL: "postgres://a@db/app", Host: "0.0.0.0", Port: 8081, JWTSecret: goodSecret,
					ExternalURL: "https://api.kejanest.co.ke", SiteURL: "https://kejanest.co.ke", JWTExp: 15 * time.Minute, LogLevel: "debug", Auth: c.Auth}
			},
		},
		{
			name: "fallback names",
			env:  map[string]string{"GOTRUE_DB_DATABASE_URL": "postgres://b@db/app", "GOTRUE_API_PORT": "7000", "JWT_SECRET": goodSecret},
			want: func(c *Config) { c.DatabaseURL, c.Port, c.JWTSecret = "postgres://b@db/app", 7000, goodSecret },
		},
		{
			name: "primary names win",
			env:  map[string]string{"PORT": "1234", "GOTRUE_API_PORT": "7000", "GOTRUE_JWT_SECRET": goodSecret, "JWT_SECRET": "other-secret-that-is-also-long-enough-xx"},
			want: func(c *Config) { c.Port, c.JWTSecret = 1234, goodSecret },
		},
		{name: "duration syntax for jwt exp", env: map[string]string{"GOTRUE_JWT_EXP": "2h"}, want: func(c *Config) { c.JWTExp = 2 * time.Hour }},
		{name: "production with real secret", env: map[string]string{"KEJANEST_ENV": "production", "GOTRUE_JWT_SECRET": goodSecret},
			want: func(c *Config) { c.Production, c.JWTSecret = true, goodSecret }},
		{name: "port not a number", env: map[string]string{"PORT": "x"}, wantErr: `PORT: "x" is not an integer`},
		{name: "port out of range", env: map[string]string{"PORT": "70000"}, wantErr: "PORT: 70000 is not a port"},
		{name: "bad database url", env: map[string]string{"DATABASE_URL": "postgres://a@h:port/db"}, wantErr: "DATABASE_URL"},
		{name: "relative external url", env: map[string]string{"API_EXTERNAL_URL": "/auth"}, wantErr: "API_EXTERNAL_URL"},
		{name: "site url without host", env: map[string]string{"GOTRUE_SITE_URL": "https://"}, wantErr: "GOTRUE_SITE_URL"},
		{name: "site url bad scheme", env: map[string]string{"GOTRUE_SITE_URL": "ftp://x"}, wantErr: "GOTRUE_SITE_URL"},
		{name: "jwt exp not a duration", env: map[string]string{"GOTRUE_JWT_EXP": "soon"}, wantErr: "GOTRUE_JWT_EXP"},
		{name: "jwt exp zero", env: map[string]string{"GOTRUE_JWT_EXP": "0"}, wantErr: "GOTRUE_JWT_EXP"},
		{name: "short secret", env: map[string]string{"GOTRUE_JWT_SECRET": "tiny"}, wantErr: "GOTRUE_JWT_SECRET: must be at least 32"},
		{name: "unknown log level", env: map[string]string{"GOTRUE_LOG_LEVEL": "loud"}, wantErr: "GOTRUE_LOG_LEVEL"},
		{name: "outbox poll too fast", env: map[string]string{"GOTRUE_VERIFICATION_OUTBOX_POLL_INTERVAL": "1ms"}, wantErr: "GOTRUE_VERIFICATION_OUTBOX_POLL_INTERVAL"},
		{name: "outbox without attempts", env: map[string]string{"GOTRUE_VERIFICATION_OUTBOX_MAX_ATTEMPTS": "0"}, wantErr: "GOTRUE_VERIFICATION_OUTBOX_MAX_ATTEMPTS"},
		{name: "production refuses the dev secret", env: map[string]string{"KEJANEST_ENV": "production"}, wantErr: "GOTRUE_JWT_SECRET: " + devkeys.ErrDevSecret.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(envconf.FromMap(tt.env))
			err = errors.Join(err, c.Validate())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := defaults
			tt.want(&want)
			if !reflect.DeepEqual(c, want) {
				t.Errorf("config = %+v\nwant     %+v", c, want)
			}
		})
	}
}

func TestDerived(t *testing.T) {
	t.Parallel()
	tests := []struct {
		level, wantSlog string
	}{
		{"trace", "debug"}, {"warning", "warn"}, {"fatal", "error"}, {"info", "info"},
	}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			t.Parallel()
			c := Config{Host: "127.0.0.1", Port: 9999, LogLevel: tt.level}
			if c.SlogLevel() != tt.wantSlog || c.Addr() != "127.0.0.1:9999" {
				t.Errorf("SlogLevel, Addr = %q, %q", c.SlogLevel(), c.Addr())
			}
		})
	}
}

// TestAuthValues pins the defaults the issue and the README state, and how
// the variables override them.
func TestAuthValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		got     func(a Auth) any
		want    any
		wantErr string
	}{
		{name: "sms code expiry default", got: func(a Auth) any { return a.SMS.OTPExp }, want: 10 * time.Minute},
		{name: "sms code expiry in seconds", env: map[string]string{"GOTRUE_SMS_OTP_EXP": "60"},
			got: func(a Auth) any { return a.SMS.OTPExp }, want: time.Minute},
		{name: "mail code expiry default", got: func(a Auth) any { return a.MailerOTPExp }, want: 10 * time.Minute},
		{name: "password sign-in limit default", got: func(a Auth) any { return a.RateLimits.PasswordSignIn },
			want: Rate{Events: 30, OverTime: 5 * time.Minute}},
		{name: "password sign-in limit", env: map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "5/1m"},
			got: func(a Auth) any { return a.RateLimits.PasswordSignIn }, want: Rate{Events: 5, OverTime: time.Minute}},
		{name: "password sign-in limit, bare number", env: map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "10"},
			got: func(a Auth) any { return a.RateLimits.PasswordSignIn }, want: Rate{Events: 10, OverTime: 5 * time.Minute}},
		{name: "password sign-in limit off", env: map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "0"},
			got: func(a Auth) any { return a.RateLimits.PasswordSignIn }, want: Rate{Events: 0, OverTime: 5 * time.Minute}},
		{name: "password sign-in limit malformed", env: map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "often"},
			wantErr: "GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN"},
		{name: "password sign-in account cap default", got: func(a Auth) any { return a.RateLimits.PasswordSignInAccount },
			want: Rate{Events: 100, OverTime: time.Hour}},
		{name: "password sign-in account cap, bare number", env: map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN_ACCOUNT": "50"},
			got: func(a Auth) any { return a.RateLimits.PasswordSignInAccount }, want: Rate{Events: 50, OverTime: time.Hour}},
		{name: "password sign-in account cap malformed", env: map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN_ACCOUNT": "50/fortnight"},
			wantErr: "GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN_ACCOUNT"},
		{name: "outbox poll default", got: func(a Auth) any { return a.VerificationOutbox }, want: VerificationOutbox{PollInterval: 5 * time.Second, MaxAttempts: 5}},
		{name: "outbox poll", env: map[string]string{"GOTRUE_VERIFICATION_OUTBOX_POLL_INTERVAL": "500ms", "GOTRUE_VERIFICATION_OUTBOX_MAX_ATTEMPTS": "2"},
			got: func(a Auth) any { return a.VerificationOutbox }, want: VerificationOutbox{PollInterval: 500 * time.Millisecond, MaxAttempts: 2}},
		{name: "google client ids, comma-separated", env: map[string]string{"GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": " web , android,,ios"},
			got: func(a Auth) any { return a.Google.ClientIDs() }, want: []string{"web", "android", "ios"}},
		{name: "google enabled with only commas", env: map[string]string{"GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": ","},
			got: func(a Auth) any { return len(a.validate()) }, want: 1},
		{name: "manual linking and oauth server off by default", got: func(a Auth) any { return [2]bool{a.ManualLinkingEnabled, a.OAuthServerEnabled} }, want: [2]bool{}},
		{name: "manual linking and oauth server on", env: map[string]string{"GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true", "GOTRUE_OAUTH_SERVER_ENABLED": "true"},
			got: func(a Auth) any { return [2]bool{a.ManualLinkingEnabled, a.OAuthServerEnabled} }, want: [2]bool{true, true}},
		{name: "passkeys off by default", got: func(a Auth) any { return a.Passkey }, want: Passkey{ChallengeExpiry: 5 * time.Minute}},
		{name: "passkeys configured", env: map[string]string{"GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "example.com",
			"GOTRUE_WEBAUTHN_RP_ORIGINS": "https://example.com, https://app.example.com", "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "My App",
			"GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION": "2m"},
			got: func(a Auth) any { return a.Passkey }, want: Passkey{Enabled: true, RPID: "example.com",
				RPOrigins: []string{"https://example.com", "https://app.example.com"}, RPDisplayName: "My App", ChallengeExpiry: 2 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(envconf.FromMap(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.got(c.Auth); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
