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
		DBURI:      "postgres://authenticator@127.0.0.1:54322/postgres?sslmode=disable",
		Host:       "127.0.0.1",
		Port:       3001,
		JWTSecret:  devkeys.JWTSecret,
		DBSchemas:  []string{"public"},
		DBAnonRole: "anon",
		DBMaxRows:  1000,
		DBPool:     10,
		LogLevel:   "info",

		DBExtraSearchPath: []string{"public", "extensions"},
		DBTxEnd:           "commit",
		DBSafeUpdate:      true,
		OpenAPIMode:       "follow-privileges",
		ServerTiming:      true,
		DBConfig:          true,
		JWTRoleClaimKey:   ".role",
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    func(c *Config)
		wantErr string // substring of the Load or Validate error; "" means valid
	}{
		{name: "defaults", env: nil, want: func(c *Config) {}},
		{name: "bad tx end", env: map[string]string{"PGRST_DB_TX_END": "maybe"}, wantErr: "PGRST_DB_TX_END"},
		{name: "bad openapi mode", env: map[string]string{"PGRST_OPENAPI_MODE": "loud"}, wantErr: "PGRST_OPENAPI_MODE"},
		{name: "bad role claim key", env: map[string]string{"PGRST_JWT_ROLE_CLAIM_KEY": "role"}, wantErr: "PGRST_JWT_ROLE_CLAIM_KEY"},
		{
			name: "every variable",
			env: map[string]string{
				"PGRST_DB_URI": "postgres://u@db:5432/app", "PGRST_SERVER_HOST": "0.0.0.0", "PGRST_SERVER_PORT": "8080",
				"PGRST_JWT_SECRET": goodSecret, "PGRST_DB_SCHEMAS": "api, public", "PGRST_DB_ANON_ROLE": "web_anon",
				"PGRST_DB_MAX_ROWS": "50", "PGRST_DB_POOL": "3", "PGRST_LOG_LEVEL": "DEBUG",
				"PGRST_DB_EXTRA_SEARCH_PATH": "public", "PGRST_DB_PRE_REQUEST": "app.check", "PGRST_DB_TX_END": "commit-allow-override",
				"PGRST_DB_AGGREGATES_ENABLED": "true", "PGRST_DB_SAFE_UPDATE": "false", "PGRST_OPENAPI_MODE": "disabled",
				"PGRST_SERVER_TIMING_ENABLED": "false", "PGRST_JWT_AUD": "authenticated",
				"PGRST_DB_CONFIG": "false", "PGRST_DB_PRE_CONFIG": "app.pre_config",
				"PGRST_DB_PLAN_ENABLED": "true", "PGRST_JWT_ROLE_CLAIM_KEY": ".app.role",
			},
			want: func(c *Config) {
				*c = Config{DBURI: "postgres://u@db:5432/app", Host: "0.0.0.0", Port: 8080, JWTSecret: goodSecret,
					DBSchemas: []string{"api", "public"}, DBAnonRole: "web_anon", DBMaxRows: 50, DBPool: 3, LogLevel: "debug",
					DBExtraSearchPath: []string{"public"}, DBPreRequest: "app.check", DBTxEnd: "commit-allow-override", DBAggregates: true,
					OpenAPIMode: "disabled", JWTAud: "authenticated", DBPreConfig: "app.pre_config",
					DBPlanEnabled: true, JWTRoleClaimKey: ".app.role"}
			},
		},
		{
			name: "fallback names",
			env:  map[string]string{"DATABASE_URL": "postgres://other@h/db", "JWT_SECRET": goodSecret},
			want: func(c *Config) { c.DBURI, c.JWTSecret = "postgres://other@h/db", goodSecret },
		},
		{
			name: "PostgREST names win over fallbacks",
			env:  map[string]string{"PGRST_DB_URI": "postgres://a@h/db", "DATABASE_URL": "postgres://b@h/db"},
			want: func(c *Config) { c.DBURI = "postgres://a@h/db" },
		},
		{name: "max rows 0 means no cap", env: map[string]string{"PGRST_DB_MAX_ROWS": "0"}, want: func(c *Config) { c.DBMaxRows = 0 }},
		{name: "keyword connection string", env: map[string]string{"PGRST_DB_URI": "host=localhost user=authenticator dbname=postgres"},
			want: func(c *Config) { c.DBURI = "host=localhost user=authenticator dbname=postgres" }},
		{name: "crit level", env: map[string]string{"PGRST_LOG_LEVEL": "crit"}, want: func(c *Config) { c.LogLevel = "crit" }},
		{name: "production with real secret", env: map[string]string{"KEJANEST_ENV": "production", "PGRST_JWT_SECRET": goodSecret},
			want: func(c *Config) { c.Production, c.JWTSecret = true, goodSecret }},
		{name: "port not a number", env: map[string]string{"PGRST_SERVER_PORT": "http"}, wantErr: `PGRST_SERVER_PORT: "http" is not an integer`},
		{name: "port zero", env: map[string]string{"PGRST_SERVER_PORT": "0"}, wantErr: "PGRST_SERVER_PORT: 0 is not a port"},
		{name: "port too big", env: map[string]string{"PGRST_SERVER_PORT": "65536"}, wantErr: "PGRST_SERVER_PORT: 65536 is not a port"},
		{name: "bad db uri", env: map[string]string{"PGRST_DB_URI": "postgres://u@h:notaport/db"}, wantErr: "PGRST_DB_URI"},
		{name: "short secret", env: map[string]string{"PGRST_JWT_SECRET": "short"}, wantErr: "PGRST_JWT_SECRET: must be at least 32"},
		{name: "negative max rows", env: map[string]string{"PGRST_DB_MAX_ROWS": "-1"}, wantErr: "PGRST_DB_MAX_ROWS"},
		{name: "empty pool", env: map[string]string{"PGRST_DB_POOL": "0"}, wantErr: "PGRST_DB_POOL"},
		{name: "unknown log level", env: map[string]string{"PGRST_LOG_LEVEL": "verbose"}, wantErr: "PGRST_LOG_LEVEL"},
		{name: "no schema", env: map[string]string{"PGRST_DB_SCHEMAS": " , "}, wantErr: "PGRST_DB_SCHEMAS"},
		{name: "production refuses the dev secret", env: map[string]string{"KEJANEST_ENV": "production"}, wantErr: "PGRST_JWT_SECRET: " + devkeys.ErrDevSecret.Error()},
		{name: "prod alias refuses the dev secret too", env: map[string]string{"KEJANEST_ENV": "prod", "JWT_SECRET": devkeys.JWTSecret}, wantErr: "production mode"},
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
			want.DBSchemas = append([]string(nil), defaults.DBSchemas...)
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
		host, level        string
		port               int
		wantAddr, wantSlog string
	}{
		{"127.0.0.1", "crit", 3001, "127.0.0.1:3001", "error"},
		{"::1", "debug", 80, "[::1]:80", "debug"},
	}
	for _, tt := range tests {
		t.Run(tt.wantAddr, func(t *testing.T) {
			t.Parallel()
			c := Config{Host: tt.host, Port: tt.port, LogLevel: tt.level}
			if c.Addr() != tt.wantAddr || c.SlogLevel() != tt.wantSlog {
				t.Errorf("Addr, SlogLevel = %q, %q; want %q, %q", c.Addr(), c.SlogLevel(), tt.wantAddr, tt.wantSlog)
			}
		})
	}
}
