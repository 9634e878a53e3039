package pgrst

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/jwtverify"
)

func TestApplyDBSettings(t *testing.T) {
	t.Parallel()
	base := Config{Schemas: []string{"api"}, ExtraSearchPath: []string{"public"}, AnonRole: "anon", MaxRows: 1000, TxEnd: TxCommit,
		OpenAPIMode: OpenAPIFollowPrivileges, ServerTiming: true, Aggregates: false}
	tests := []struct {
		name     string
		settings map[string]string
		want     func(c *Config)
		wantErr  string
	}{
		{name: "none", settings: nil, want: func(*Config) {}},
		{name: "every honoured setting", settings: map[string]string{
			"db_aggregates_enabled": "true", "db_anon_role": "web_anon", "db_extra_search_path": "public, extensions,",
			"db_max_rows": "50", "db_pre_request": "api.check", "db_tx_end": "rollback-allow-override",
			"openapi_mode": "disabled", "server_timing_enabled": "false",
		}, want: func(c *Config) {
			c.Aggregates, c.AnonRole, c.ExtraSearchPath, c.MaxRows = true, "web_anon", []string{"public", "extensions"}, 50
			c.PreRequest, c.TxEnd, c.OpenAPIMode, c.ServerTiming = "api.check", TxRollbackAllowOverride, OpenAPIDisabled, false
		}},
		{name: "booleans as PostgREST reads them", settings: map[string]string{"db_aggregates_enabled": "TRUE", "server_timing_enabled": "0"},
			want: func(c *Config) { c.Aggregates, c.ServerTiming = true, false }},
		{name: "unparsable boolean is false", settings: map[string]string{"server_timing_enabled": "yes"},
			want: func(c *Config) { c.ServerTiming = false }},
		{name: "unparsable max rows is no cap", settings: map[string]string{"db_max_rows": "lots"},
			want: func(c *Config) { c.MaxRows = 0 }},
		{name: "ignored names", settings: map[string]string{"db_prepared_statements": "false", "db_root_spec": "root"},
			want: func(*Config) {}},
		{name: "schemas", settings: map[string]string{"db_schemas": "api, v2 ,"}, want: func(c *Config) { c.Schemas = []string{"api", "v2"} }},
		{name: "no schemas", settings: map[string]string{"db_schemas": " , "}, wantErr: "pgrst.db_schemas"},
		{name: "plan and jwt settings", settings: map[string]string{"db_plan_enabled": "true", "jwt_aud": "app", "jwt_secret": strings.Repeat("s", 32),
			"jwt_role_claim_key": `.app.roles[?(@ ^== "pg_")]`},
			want: func(c *Config) {
				c.PlanEnabled, c.JWTAud, c.JWTSecret, c.JWTRoleClaimKey = true, "app", strings.Repeat("s", 32), `.app.roles[?(@ ^== "pg_")]`
			}},
		{name: "jwt secret as a JWKS", settings: map[string]string{"jwt_secret": `{"keys":[]}`},
			want: func(c *Config) { c.JWKS = `{"keys":[]}` }},
		{name: "bad role claim key", settings: map[string]string{"jwt_role_claim_key": "role"}, wantErr: "pgrst.jwt_role_claim_key"},
		{name: "bad tx end", settings: map[string]string{"db_tx_end": "later"}, wantErr: `pgrst.db_tx_end: "later"`},
		{name: "bad openapi mode", settings: map[string]string{"openapi_mode": "loud", "db_max_rows": "3"}, wantErr: `pgrst.openapi_mode: "loud"`},
		{name: "empty anon role", settings: map[string]string{"db_anon_role": ""}, wantErr: "pgrst.db_anon_role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := base.ApplyDBSettings(tt.settings)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if !reflect.DeepEqual(got, base) {
					t.Fatalf("config changed on error: %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := base
			want.ExtraSearchPath = append([]string(nil), base.ExtraSearchPath...)
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("config = %+v\nwant     %+v", got, want)
			}
		})
	}
}

func TestQuoteQualified(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"f": `"f"`, "s.f": `"s"."f"`, `s.f"x`: `"s"."f""x"`} {
		if got := quoteQualified(in); got != want {
			t.Errorf("quoteQualified(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestAuthenticateInDBJWT checks that an in-database jwt_secret, jwt_aud
// and jwt_role_claim_key apply to the requests after a reload, with the
// tokens verified before forgotten.
func TestAuthenticateInDBJWT(t *testing.T) {
	t.Parallel()
	envSecret, dbSecret := strings.Repeat("e", 32), strings.Repeat("d", 32)
	v, err := jwtverify.New(jwtverify.Options{Secret: envSecret})
	if err != nil {
		t.Fatal(err)
	}
	base := Config{Schemas: []string{"api"}, AnonRole: "anon", JWTSecret: envSecret}
	h := New(base, nil, nil, v, nil)
	sign := func(secret string, claims map[string]any) *Request {
		tok, err := jwtverify.SignHS256(claims, []byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return &Request{Headers: [][2]string{{"Authorization", "Bearer " + tok}}}
	}
	claims := map[string]any{"role": "authenticated", "aud": "app", "app": map[string]any{"roles": []any{"viewer", "pg_editor"}}}
	if a, err := h.authenticate(sign(envSecret, claims), h.live.Load()); err != nil || a.role != "authenticated" {
		t.Fatalf("env secret: %+v, %v", a, err)
	}
	lc, err := liveFromDB(base, map[string]string{"jwt_secret": dbSecret, "jwt_aud": "app", "jwt_role_claim_key": `.app.roles[?(@ ^== "pg_")]`})
	if err != nil {
		t.Fatal(err)
	}
	h.live.Store(lc)
	if _, err := h.authenticate(sign(envSecret, claims), h.live.Load()); err == nil {
		t.Fatal("the environment's secret still verifies")
	}
	a, err := h.authenticate(sign(dbSecret, claims), h.live.Load())
	if err != nil || a.role != "pg_editor" || !a.authenticated {
		t.Fatalf("in-database secret and role claim key: %+v, %v", a, err)
	}
	// No match at the claim key: the anonymous role.
	a, err = h.authenticate(sign(dbSecret, map[string]any{"role": "authenticated", "aud": "app"}), h.live.Load())
	if err != nil || a.role != "anon" || a.authenticated {
		t.Fatalf("role claim key missing: %+v, %v", a, err)
	}
	if _, err := h.authenticate(sign(dbSecret, map[string]any{"role": "authenticated", "aud": "other"}), h.live.Load()); err == nil {
		t.Fatal("jwt_aud not enforced")
	}
}
