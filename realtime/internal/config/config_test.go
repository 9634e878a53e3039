package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

const goodSecret = "a-production-secret-that-is-long-enough-0123456789"

func TestLoad(t *testing.T) {
	t.Parallel()
	defaults := Config{
		DatabaseURL: "postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable",
		Host:        "127.0.0.1",
		Port:        4000,
		JWTSecret:   devkeys.JWTSecret,
		LogLevel:    "info",

		PublishableKey: devkeys.PublishableKey, SecretKey: devkeys.SecretKey,
		MaxChannels: 100, MaxEventsPerSecond: 100, MaxPayloadKB: 256, QueueSize: 1024,
		PresenceReplicaTimeoutMS: 5000,
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    func(c *Config)
		wantErr string
	}{
		{name: "defaults", want: func(c *Config) {}},
		{
			name: "every variable",
			env: map[string]string{"DATABASE_URL": "postgres://x@db/app", "REALTIME_HOST": "::1", "PORT": "4001",
				"API_JWT_SECRET": goodSecret, "LOG_LEVEL": "WARNING"},
			want: func(c *Config) {
				c.DatabaseURL, c.Host, c.Port, c.JWTSecret, c.LogLevel = "postgres://x@db/app", "::1", 4001, goodSecret, "warning"
			},
		},
		{name: "secret fallback", env: map[string]string{"JWT_SECRET": goodSecret}, want: func(c *Config) { c.JWTSecret = goodSecret }},
		{name: "API_JWT_SECRET wins", env: map[string]string{"API_JWT_SECRET": goodSecret, "JWT_SECRET": "ignored-secret-that-is-long-enough-xxxxx"},
			want: func(c *Config) { c.JWTSecret = goodSecret }},
		{name: "production with real secrets", env: map[string]string{"KEJANEST_ENV": "production", "API_JWT_SECRET": goodSecret,
			"SUPABASE_PUBLISHABLE_KEY": "sb_publishable_real", "SUPABASE_SECRET_KEY": "sb_secret_real"},
			want: func(c *Config) {
				c.Production, c.JWTSecret, c.PublishableKey, c.SecretKey = true, goodSecret, "sb_publishable_real", "sb_secret_real"
			}},
		{name: "production refuses the dev secret key", env: map[string]string{"KEJANEST_ENV": "production", "API_JWT_SECRET": goodSecret,
			"SUPABASE_PUBLISHABLE_KEY": "sb_publishable_real"}, wantErr: "SUPABASE_SECRET_KEY: " + devkeys.ErrDevSecret.Error()},
		{name: "production refuses the dev publishable key", env: map[string]string{"KEJANEST_ENV": "production", "API_JWT_SECRET": goodSecret,
			"SUPABASE_SECRET_KEY": "sb_secret_real"}, wantErr: "SUPABASE_PUBLISHABLE_KEY: " + devkeys.ErrDevSecret.Error()},
		{name: "port not a number", env: map[string]string{"PORT": "ws"}, wantErr: `PORT: "ws" is not an integer`},
		{name: "port out of range", env: map[string]string{"PORT": "0"}, wantErr: "PORT: 0 is not a port"},
		{name: "bad database url", env: map[string]string{"DATABASE_URL": "postgres://a@h:p/db"}, wantErr: "DATABASE_URL"},
		{name: "short secret", env: map[string]string{"API_JWT_SECRET": "s"}, wantErr: "API_JWT_SECRET: must be at least 32"},
		{name: "presence replica timeout", env: map[string]string{"PRESENCE_REPLICA_TIMEOUT_IN_MS": "2000"},
			want: func(c *Config) { c.PresenceReplicaTimeoutMS = 2000 }},
		{name: "presence replica timeout too short", env: map[string]string{"PRESENCE_REPLICA_TIMEOUT_IN_MS": "100"},
			wantErr: "PRESENCE_REPLICA_TIMEOUT_IN_MS: 100, want at least 300"},
		{name: "unknown log level", env: map[string]string{"LOG_LEVEL": "shout"}, wantErr: "LOG_LEVEL"},
		{name: "production refuses the dev secret", env: map[string]string{"KEJANEST_ENV": "production"}, wantErr: "API_JWT_SECRET: " + devkeys.ErrDevSecret.Error()},
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
	tests := []struct{ level, wantSlog string }{{"notice", "info"}, {"warning", "warn"}, {"error", "error"}}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			t.Parallel()
			c := Config{Host: "127.0.0.1", Port: 4000, LogLevel: tt.level}
			if c.SlogLevel() != tt.wantSlog || c.Addr() != "127.0.0.1:4000" {
				t.Errorf("SlogLevel, Addr = %q, %q", c.SlogLevel(), c.Addr())
			}
		})
	}
}
