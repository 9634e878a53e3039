// Package stackconf decides the ports, URLs and per-service environment of a
// local stack, so that `make run` and the test harness start the same thing.
package stackconf

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/devstack/internal/database"
	"github.com/kejanest/kejanest/devstack/internal/supervise"
)

// Ports of one stack. The defaults are Supabase's: the CLI's 54321 for the
// gateway and 54322 for the database, and each upstream service's own port.
type Ports struct {
	Gateway, Rest, RPC, Auth, Realtime, Storage int
	// MailSMTP and MailWeb are the development mailbox (authsvc's devmail),
	// on the Supabase CLI's Inbucket ports.
	MailSMTP, MailWeb int
}

// DefaultPorts are used by `make run`.
var DefaultPorts = Ports{Gateway: 54321, Rest: 3000, RPC: 3001, Auth: 9999, Realtime: 4000, Storage: 5000, MailSMTP: 54325, MailWeb: 54324}

// Keys are the secrets every service shares.
type Keys struct {
	JWTSecret, AnonKey, ServiceRoleKey, PublishableKey, SecretKey string
}

// Stack is everything needed to start the services.
type Stack struct {
	Root        string // repository root
	BinDir      string
	DatabaseURL string // the superuser URL of the stack's database
	Ports       Ports
	Keys        Keys
	StorageDir  string
	Production  bool
	// RolePasswords holds the login passwords of authenticator and
	// supabase_auth_admin, when the server asks for them (empty: none).
	RolePasswords RolePasswords
}

// RolePasswords are the services' login roles' passwords, read from the
// same variables the migrate command uses.
type RolePasswords struct {
	Authenticator string // AUTHENTICATOR_PASSWORD
	AuthAdmin     string // AUTH_ADMIN_PASSWORD
}

// ByRole maps each role to its password, for database.SetRolePasswords.
func (p RolePasswords) ByRole() map[string]string {
	return map[string]string{"authenticator": p.Authenticator, "supabase_auth_admin": p.AuthAdmin}
}

// AuthenticatorURL is the stack's database as the authenticator role.
func (s Stack) AuthenticatorURL() string {
	return database.WithUser(s.DatabaseURL, "authenticator", s.RolePasswords.Authenticator)
}

// GatewayURL is the public origin of the stack.
func (s Stack) GatewayURL() string { return "http://127.0.0.1:" + strconv.Itoa(s.Ports.Gateway) }

// MailboxURL is the development mailbox's page.
func (s Stack) MailboxURL() string { return local(s.Ports.MailWeb) }

func local(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }

// OverridePrefix starts the variables that reach one service only:
// KEJANEST_<SERVICE>_<NAME>=v in devstack's environment becomes NAME=v for
// that service, after (and so winning over) devstack's own settings. Test
// suites use it to run a service in another mode, e.g.
// KEJANEST_STORAGE_STORAGE_BACKEND=s3.
const OverridePrefix = "KEJANEST_"

// Services returns the children in start order, with their environment;
// overrides come from environ (os.Environ() in devstack).
func (s Stack) Services(environ ...string) []supervise.Service {
	svcs := s.services()
	for i := range svcs {
		prefix := OverridePrefix + strings.ToUpper(svcs[i].Name) + "_"
		for _, kv := range environ {
			if rest, ok := strings.CutPrefix(kv, prefix); ok && strings.Contains(rest, "=") {
				svcs[i].Env = append(svcs[i].Env, rest)
			}
		}
	}
	return svcs
}

func (s Stack) services() []supervise.Service {
	authenticator := s.AuthenticatorURL()
	authAdmin := database.WithUser(s.DatabaseURL, "supabase_auth_admin", s.RolePasswords.AuthAdmin)
	p := s.Ports
	k := s.Keys
	bin := func(name string) string { return filepath.Join(s.BinDir, name) }
	pgrst := func(port int) []string {
		return []string{
			"PGRST_DB_URI=" + authenticator,
			"PGRST_SERVER_HOST=127.0.0.1",
			"PGRST_SERVER_PORT=" + strconv.Itoa(port),
			"PGRST_JWT_SECRET=" + k.JWTSecret,
		}
	}
	return []supervise.Service{
		// Mail from authsvc lands here; the page lists it so a developer
		// can follow confirmation links. Production uses a real SMTP server.
		{Name: "devmail", Binary: bin("devmail"), Env: []string{
			fmt.Sprintf("DEVMAIL_SMTP_ADDR=127.0.0.1:%d", p.MailSMTP),
			fmt.Sprintf("DEVMAIL_WEB_ADDR=127.0.0.1:%d", p.MailWeb),
		}, HealthURL: local(p.MailWeb) + "/health"},
		{Name: "rest", Binary: bin("rest"), Env: pgrst(p.Rest), HealthURL: local(p.Rest) + "/ready"},
		{Name: "rpc", Binary: bin("rpc"), Env: pgrst(p.RPC), HealthURL: local(p.RPC) + "/ready"},
		{Name: "authsvc", Binary: bin("authsvc"), Env: []string{
			"DATABASE_URL=" + authAdmin,
			"GOTRUE_API_HOST=127.0.0.1",
			"PORT=" + strconv.Itoa(p.Auth),
			"GOTRUE_JWT_SECRET=" + k.JWTSecret,
			"API_EXTERNAL_URL=" + s.GatewayURL(),
			"GOTRUE_SITE_URL=" + s.GatewayURL(),
			"GOTRUE_SMTP_HOST=127.0.0.1",
			"GOTRUE_SMTP_PORT=" + strconv.Itoa(p.MailSMTP),
			"GOTRUE_SMTP_ADMIN_EMAIL=no-reply@kejanest.test",
			// A developer re-sending a link should not wait a minute.
			"GOTRUE_SMTP_MAX_FREQUENCY=1s",
			// Phone sign-in works locally: the default SMS sender, log,
			// writes each text with its code to .data/logs/authsvc.log.
			"GOTRUE_EXTERNAL_PHONE_ENABLED=true",
		}, HealthURL: local(p.Auth) + "/health"},
		{Name: "realtime", Binary: bin("realtime"), Env: []string{
			"DATABASE_URL=" + authenticator,
			"REALTIME_HOST=127.0.0.1",
			"PORT=" + strconv.Itoa(p.Realtime),
			"API_JWT_SECRET=" + k.JWTSecret,
			// The websocket's apikey query parameter may be an sb_ key.
			"SUPABASE_PUBLISHABLE_KEY=" + k.PublishableKey,
			"SUPABASE_SECRET_KEY=" + k.SecretKey,
		}, HealthURL: local(p.Realtime) + "/api/health"},
		{Name: "storage", Binary: bin("storage"), Env: []string{
			"DATABASE_URL=" + authenticator,
			"SERVER_HOST=127.0.0.1",
			"SERVER_PORT=" + strconv.Itoa(p.Storage),
			"AUTH_JWT_SECRET=" + k.JWTSecret,
			"ANON_KEY=" + k.AnonKey,
			"SERVICE_KEY=" + k.ServiceRoleKey,
			"STORAGE_BACKEND=file",
			"FILE_STORAGE_BACKEND_PATH=" + s.StorageDir,
		}, HealthURL: local(p.Storage) + "/status"},
		{Name: "gateway", Binary: bin("gateway"), Env: []string{
			fmt.Sprintf("GATEWAY_LISTEN=127.0.0.1:%d,[::1]:%d", p.Gateway, p.Gateway),
			"REST_URL=" + local(p.Rest),
			"RPC_URL=" + local(p.RPC),
			"AUTH_URL=" + local(p.Auth),
			"REALTIME_URL=" + local(p.Realtime),
			"STORAGE_URL=" + local(p.Storage),
			"FRONTEND_DIR=" + filepath.Join(s.Root, "frontend", "dist"),
			"JWT_SECRET=" + k.JWTSecret,
			"ANON_KEY=" + k.AnonKey,
			"SERVICE_ROLE_KEY=" + k.ServiceRoleKey,
			"SUPABASE_PUBLISHABLE_KEY=" + k.PublishableKey,
			"SUPABASE_SECRET_KEY=" + k.SecretKey,
		}, HealthURL: local(p.Gateway) + "/health"},
	}
}
