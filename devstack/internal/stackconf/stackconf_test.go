package stackconf

import (
	"testing"
)

func envOf(t *testing.T, svcs []serviceEnv, name string) []string {
	t.Helper()
	for _, s := range svcs {
		if s.name == name {
			return s.env
		}
	}
	t.Fatalf("no service %s", name)
	return nil
}

type serviceEnv struct {
	name string
	env  []string
}

func TestOverridesReachOnlyTheirService(t *testing.T) {
	t.Parallel()
	st := Stack{Root: "/repo", BinDir: "/repo/bin", DatabaseURL: "postgres://postgres@127.0.0.1:5432/db", Ports: DefaultPorts, StorageDir: "/data"}
	var got []serviceEnv
	for _, s := range st.Services(
		"KEJANEST_STORAGE_STORAGE_BACKEND=s3",
		"KEJANEST_STORAGE_STORAGE_S3_ENDPOINT=http://127.0.0.1:9000",
		"KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM=true",
		"KEJANEST_ENV=development", // not a per-service override
		"KEJANEST_STORAGE_NOEQUALS",
		"PATH=/usr/bin",
	) {
		got = append(got, serviceEnv{s.Name, s.Env})
	}
	tests := []struct{ service, key, want string }{
		{"storage", "STORAGE_BACKEND", "s3"},
		{"storage", "STORAGE_S3_ENDPOINT", "http://127.0.0.1:9000"},
		{"storage", "FILE_STORAGE_BACKEND_PATH", "/data"},
		{"authsvc", "GOTRUE_MAILER_AUTOCONFIRM", "true"},
		{"authsvc", "STORAGE_BACKEND", ""},
		{"rest", "GOTRUE_MAILER_AUTOCONFIRM", ""},
		{"rest", "PGRST_DB_URI", "postgres://authenticator@127.0.0.1:5432/db"},
		{"authsvc", "DATABASE_URL", "postgres://supabase_auth_admin@127.0.0.1:5432/db"},
		{"authsvc", "GOTRUE_EXTERNAL_PHONE_ENABLED", "true"},
		{"rest", "GOTRUE_EXTERNAL_PHONE_ENABLED", ""},
	}
	for _, tc := range tests {
		if v := lastValue(envOf(t, got, tc.service), tc.key); v != tc.want {
			t.Errorf("%s sees %s=%q, want %q", tc.service, tc.key, v, tc.want)
		}
	}
}

func TestRolePasswordsReachEveryDatabaseURL(t *testing.T) {
	t.Parallel()
	st := Stack{Root: "/repo", BinDir: "/repo/bin", DatabaseURL: "postgres://postgres:super@db.example:5432/app", Ports: DefaultPorts,
		RolePasswords: RolePasswords{Authenticator: "auth-pw", AuthAdmin: "admin-pw"}}
	var got []serviceEnv
	for _, s := range st.Services() {
		got = append(got, serviceEnv{s.Name, s.Env})
	}
	tests := []struct{ service, key, want string }{
		{"rest", "PGRST_DB_URI", "postgres://authenticator:auth-pw@db.example:5432/app"},
		{"rpc", "PGRST_DB_URI", "postgres://authenticator:auth-pw@db.example:5432/app"},
		{"authsvc", "DATABASE_URL", "postgres://supabase_auth_admin:admin-pw@db.example:5432/app"},
		{"storage", "DATABASE_URL", "postgres://authenticator:auth-pw@db.example:5432/app"},
		{"realtime", "DATABASE_URL", "postgres://authenticator:auth-pw@db.example:5432/app"},
	}
	for _, tc := range tests {
		if v := lastValue(envOf(t, got, tc.service), tc.key); v != tc.want {
			t.Errorf("%s sees %s=%q, want %q", tc.service, tc.key, v, tc.want)
		}
	}
	if got, want := st.RolePasswords.ByRole(), map[string]string{"authenticator": "auth-pw", "supabase_auth_admin": "admin-pw"}; got["authenticator"] != want["authenticator"] || got["supabase_auth_admin"] != want["supabase_auth_admin"] || len(got) != 2 {
		t.Errorf("ByRole() = %v, want %v", got, want)
	}
}

// With InProcess the gateway serves rest and rpc: no child of theirs, the
// gateway reads their settings (and their KEJANEST_REST_ overrides, which
// its own win over), and no upstream URL names them.
func TestInProcessRestLivesInTheGateway(t *testing.T) {
	t.Parallel()
	st := Stack{Root: "/repo", BinDir: "/repo/bin", DatabaseURL: "postgres://postgres@127.0.0.1:5432/db", Ports: DefaultPorts,
		StorageDir: "/data", InProcess: true, Keys: Keys{JWTSecret: "secret-of-the-stack"}}
	var got []serviceEnv
	for _, s := range st.Services("KEJANEST_REST_PGRST_DB_MAX_ROWS=50", "KEJANEST_GATEWAY_LOG_LEVEL=debug") {
		if s.Name == "rest" || s.Name == "rpc" {
			t.Errorf("%s runs as a child of its own", s.Name)
		}
		got = append(got, serviceEnv{s.Name, s.Env})
	}
	gw := envOf(t, got, "gateway")
	for key, want := range map[string]string{
		"GATEWAY_INPROCESS": "rest,rpc",
		"PGRST_DB_URI":      "postgres://authenticator@127.0.0.1:5432/db",
		"PGRST_JWT_SECRET":  "secret-of-the-stack",
		"PGRST_DB_MAX_ROWS": "50",
		"LOG_LEVEL":         "debug",
		"REST_URL":          "",
		"RPC_URL":           "",
		"AUTH_URL":          "http://127.0.0.1:9999",
	} {
		if v := lastValue(gw, key); v != want {
			t.Errorf("gateway sees %s=%q, want %q", key, v, want)
		}
	}
	if n := len(st.Instances("rest")) + len(st.Instances("rpc")); n != 0 {
		t.Errorf("%d rest and rpc instances listed", n)
	}
}
