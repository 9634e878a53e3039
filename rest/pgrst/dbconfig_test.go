package pgrst

import (
	"reflect"
	"strings"
	"testing"
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
		{name: "ignored names", settings: map[string]string{"jwt_aud": "x", "db_schemas": "other", "db_plan_enabled": "true"},
			want: func(*Config) {}},
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
