package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

// prodSecrets are non-default values for every secret production checks.
var prodSecrets = map[string]string{
	"JWT_SECRET":               "a-production-secret-that-is-not-the-dev-one-0123456789",
	"ANON_KEY":                 "eyJ.prod-anon.sig",
	"SERVICE_ROLE_KEY":         "eyJ.prod-service.sig",
	"SUPABASE_PUBLISHABLE_KEY": "sb_publishable_prodprodprod",
	"SUPABASE_SECRET_KEY":      "sb_secret_prodprodprod",
}

func with(base map[string]string, kv ...string) map[string]string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(envconf.FromMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"listen", strings.Join(c.Listen, ","), "127.0.0.1:54321,[::1]:54321"},
		{"rest", strings.Join(c.RestURLs, ","), "http://127.0.0.1:3000"},
		{"rpc", strings.Join(c.RPCURLs, ","), "http://127.0.0.1:3001"},
		{"auth", strings.Join(c.AuthURLs, ","), "http://127.0.0.1:9999"},
		{"realtime", strings.Join(c.RealtimeURLs, ","), "http://127.0.0.1:4000"},
		{"storage", strings.Join(c.StorageURLs, ","), "http://127.0.0.1:5000"},
		{"functions", strings.Join(c.FunctionsURLs, ","), "http://127.0.0.1:8081"},
		{"frontend", c.FrontendDir, "frontend/dist"},
		{"jwt secret", c.JWTSecret, devkeys.JWTSecret},
		{"anon", c.AnonKey, devkeys.AnonKey},
		{"service", c.ServiceRoleKey, devkeys.ServiceRoleKey},
		{"publishable", c.PublishableKey, devkeys.PublishableKey},
		{"secret", c.SecretKey, devkeys.SecretKey},
		{"require apikey", c.RequireAPIKey, false},
		{"cors", strings.Join(c.CORSOrigins, ","), "*"},
		{"rate off", c.Rate.Enabled(), false},
		{"trust proxy", c.TrustProxy, false},
		{"body limit", c.BodyLimit, 1 << 20},
		{"production", c.Production, false},
		{"log level", c.LogLevel, "info"},
	}
	for _, tc := range checks {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.got != tc.want {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		wantErr []string // substrings; none means valid
		check   func(t *testing.T, c Config)
	}{
		{name: "production refuses dev defaults", env: map[string]string{"KEJANEST_ENV": "production"},
			wantErr: []string{"JWT_SECRET", "ANON_KEY", "SERVICE_ROLE_KEY", "SUPABASE_PUBLISHABLE_KEY", "SUPABASE_SECRET_KEY", "well-known"}},
		{name: "production refuses one dev value", env: with(prodSecrets, "KEJANEST_ENV", "production", "ANON_KEY", devkeys.AnonKey),
			wantErr: []string{"ANON_KEY"}},
		{name: "production with own secrets", env: with(prodSecrets, "KEJANEST_ENV", "production"),
			check: func(t *testing.T, c Config) {
				if !c.RequireAPIKey || !c.Production {
					t.Errorf("production must enforce apikeys by default: %+v", c.RequireAPIKey)
				}
			}},
		{name: "production may turn enforcement off", env: with(prodSecrets, "KEJANEST_ENV", "prod", "GATEWAY_REQUIRE_APIKEY", "false"),
			check: func(t *testing.T, c Config) {
				if c.RequireAPIKey {
					t.Error("explicit false ignored")
				}
			}},
		{name: "rate limit syntax", env: map[string]string{"GATEWAY_RATE_LIMIT": "600/1m"},
			check: func(t *testing.T, c Config) {
				if c.Rate.Events != 600 || c.Rate.Per != time.Minute {
					t.Errorf("rate %+v", c.Rate)
				}
			}},
		{name: "bad rate limit", env: map[string]string{"GATEWAY_RATE_LIMIT": "lots"}, wantErr: []string{"GATEWAY_RATE_LIMIT"}},
		{name: "body limit", env: map[string]string{"GATEWAY_BODY_LIMIT": "65536"},
			check: func(t *testing.T, c Config) {
				if c.BodyLimit != 65536 {
					t.Errorf("body limit %d", c.BodyLimit)
				}
			}},
		{name: "body limit off", env: map[string]string{"GATEWAY_BODY_LIMIT": "0"},
			check: func(t *testing.T, c Config) {
				if c.BodyLimit != 0 {
					t.Errorf("body limit %d", c.BodyLimit)
				}
			}},
		{name: "negative body limit", env: map[string]string{"GATEWAY_BODY_LIMIT": "-1"}, wantErr: []string{"GATEWAY_BODY_LIMIT"}},
		{name: "bad body limit", env: map[string]string{"GATEWAY_BODY_LIMIT": "1MB"}, wantErr: []string{"GATEWAY_BODY_LIMIT"}},
		{name: "in-process rest and rpc", env: map[string]string{"GATEWAY_INPROCESS": " rest, rpc "},
			check: func(t *testing.T, c Config) {
				if !c.Serves("rest") || !c.Serves("rpc") || c.Serves("authsvc") {
					t.Errorf("GATEWAY_INPROCESS read as %q", c.InProcess)
				}
			}},
		{name: "in-process other services", env: map[string]string{"GATEWAY_INPROCESS": "rest,authsvc,storage"}, wantErr: []string{`GATEWAY_INPROCESS: "authsvc"`, `GATEWAY_INPROCESS: "storage"`}},
		{name: "bad upstream", env: map[string]string{"REST_URL": "localhost:3000", "AUTH_URL": "ftp://x"}, wantErr: []string{"REST_URL", "AUTH_URL"}},
		{name: "one upstream URL", env: map[string]string{"REST_URL": "http://rest:3000/base/"},
			check: func(t *testing.T, c Config) {
				if len(c.RestURLs) != 1 || c.RestURLs[0] != "http://rest:3000/base/" {
					t.Errorf("REST_URL read as %q", c.RestURLs)
				}
			}},
		{name: "upstream replicas", env: map[string]string{"REST_URL": " http://10.0.0.5:3000, http://10.0.0.6:3000/ ", "REALTIME_URL": "http://rt-1:4000,https://rt-2:4443"},
			check: func(t *testing.T, c Config) {
				if got := strings.Join(c.RestURLs, "|"); got != "http://10.0.0.5:3000|http://10.0.0.6:3000/" {
					t.Errorf("REST_URL read as %q", got)
				}
				if len(c.RealtimeURLs) != 2 {
					t.Errorf("REALTIME_URL read as %q", c.RealtimeURLs)
				}
			}},
		{name: "every bad replica reported", env: map[string]string{"REST_URL": "http://ok:3000,localhost:3001,http://ok:3002?x=1,ftp://y"},
			wantErr: []string{`REST_URL: "localhost:3001"`, `REST_URL: "http://ok:3002?x=1"`, `REST_URL: "ftp://y"`}},
		{name: "replica listed twice", env: map[string]string{"STORAGE_URL": "http://s:5000,http://S:5000/"}, wantErr: []string{"STORAGE_URL", "same replica"}},
		{name: "replicas on different paths", env: map[string]string{"RPC_URL": "http://a:3001/v1,http://b:3001/v2"}, wantErr: []string{"RPC_URL", "share one path"}},
		{name: "empty list", env: map[string]string{"AUTH_URL": " , "}, wantErr: []string{"AUTH_URL: no URL"}},
		{name: "too many replicas", env: map[string]string{"REST_URL": manyReplicas(65)}, wantErr: []string{"REST_URL: 65 URLs"}},
		{name: "most replicas", env: map[string]string{"REST_URL": manyReplicas(64)}},
		{name: "bad listen", env: map[string]string{"GATEWAY_LISTEN": "54321"}, wantErr: []string{"GATEWAY_LISTEN"}},
		{name: "bad bool", env: map[string]string{"GATEWAY_TRUST_PROXY": "maybe"}, wantErr: []string{"GATEWAY_TRUST_PROXY"}},
		{name: "publishable key format", env: map[string]string{"SUPABASE_PUBLISHABLE_KEY": "pk_123"}, wantErr: []string{"SUPABASE_PUBLISHABLE_KEY"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, loadErr := Load(envconf.FromMap(tc.env))
			err := loadErr
			if vErr := c.Validate(); vErr != nil {
				err = vErr
				if loadErr != nil {
					err = loadErr
				}
			}
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				if err == nil {
					t.Fatal("want an error")
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

// manyReplicas is a REST_URL of n replicas on distinct ports.
func manyReplicas(n int) string {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://10.0.0.5:%d", 3000+i)
	}
	return strings.Join(urls, ",")
}
