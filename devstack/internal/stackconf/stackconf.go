// Package stackconf decides the ports, URLs and per-service environment of a
// local stack, so that `make run` and the test harness start the same thing.
package stackconf

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/devstack/internal/database"
	"github.com/kejanest/kejanest/devstack/internal/supervise"
	"github.com/kejanest/kejanest/platform/listenfd"
)

// Ports of one stack. The defaults are Supabase's: the CLI's 54321 for the
// gateway and 54322 for the database, and each upstream service's own port.
type Ports struct {
	// Rest, RPC, Auth, Realtime and Storage are each service's first (with
	// one replica, only) port.
	Gateway, Rest, RPC, Auth, Realtime, Storage int
	// MailSMTP and MailWeb are the development mailbox (authsvc's devmail),
	// on the Supabase CLI's Inbucket ports.
	MailSMTP, MailWeb int
	// Payments is the payments service (/functions/v1), on the Supabase
	// edge runtime's port; DarajaSim is its M-Pesa (Daraja) simulator.
	Payments, DarajaSim int
	// More holds the ports of the second and later replicas of each
	// replicated service, by service name (see Replicated); a service it
	// does not name runs once. Of lists all of a service's ports. It is
	// left out of JSON, so the ready line's "ports" keeps its shape.
	More map[string][]int `json:"-"`
}

// DefaultPorts are used by `make run`.
var DefaultPorts = Ports{Gateway: 54321, Rest: 3000, RPC: 3001, Auth: 9999, Realtime: 4000, Storage: 5000, MailSMTP: 54325, MailWeb: 54324,
	Payments: 8081, DarajaSim: 8089}

// Replicated names, in start order, the services that run as several
// replicas when devstack is asked for more than one (-replicas,
// DEVSTACK_REPLICAS): they keep nothing between requests that PostgreSQL
// (or the shared storage root) does not hold. devmail, the Daraja
// simulator (it holds its transactions in memory), payments and the gateway
// run once.
var Replicated = []string{"rest", "rpc", "authsvc", "realtime", "storage"}

// MaxReplicas bounds the replicas of one service. With ReplicaPortStep
// between them, the fixed ports of different services never meet below it
// (rest's 3000+10k stays under realtime's 4000, and so on).
const MaxReplicas = 16

// ReplicaPortStep separates the fixed ports of one service's replicas
// (WithReplicas): rest on 3000, 3010, 3020 …, authsvc on 9999, 10009 ….
const ReplicaPortStep = 10

// CheckReplicas reports whether n is a replica count devstack runs.
func CheckReplicas(n int) error {
	if n < 1 || n > MaxReplicas {
		return fmt.Errorf("replicas: %d, want 1 to %d", n, MaxReplicas)
	}
	return nil
}

// field is the Ports field of service's first replica; nil for a name that
// is not in Replicated.
func (p *Ports) field(service string) *int {
	switch service {
	case "rest":
		return &p.Rest
	case "rpc":
		return &p.RPC
	case "authsvc":
		return &p.Auth
	case "realtime":
		return &p.Realtime
	case "storage":
		return &p.Storage
	}
	return nil
}

// Of lists the ports of service's replicas in order, its field's port
// first; nil for a service that is not replicated.
func (p Ports) Of(service string) []int {
	f := p.field(service)
	if f == nil {
		return nil
	}
	return append([]int{*f}, p.More[service]...)
}

// WithReplicas is p with n replicas of every replicated service, on fixed
// ports (`make run`): replica k (from 1) of a service listens on its
// field's port plus (k-1)*ReplicaPortStep.
func (p Ports) WithReplicas(n int) (Ports, error) {
	if err := CheckReplicas(n); err != nil {
		return Ports{}, err
	}
	p.More = nil
	if n == 1 {
		return p, nil
	}
	p.More = make(map[string][]int, len(Replicated))
	for _, svc := range Replicated {
		base := *p.field(svc)
		for k := 1; k < n; k++ {
			p.More[svc] = append(p.More[svc], base+k*ReplicaPortStep)
		}
	}
	return p, nil
}

// PickPorts draws the ports of a stack of n replicas from free (the
// kernel's choice of a free loopback port, probed and released): the
// gateway, the mailbox, every replica, payments and the Daraja simulator
// each get a distinct one. A probe
// may hand out a port it gave before, so repeats are drawn again, up to a
// bound.
func PickPorts(n int, free func() (int, error)) (Ports, error) {
	if err := CheckReplicas(n); err != nil {
		return Ports{}, err
	}
	need := 5 + n*len(Replicated)
	ports := make([]int, 0, need)
	taken := make(map[int]bool, need)
	for draws := 0; len(ports) < need; draws++ {
		if draws == 4*need+16 {
			return Ports{}, fmt.Errorf("pick %d distinct free ports: only %d after %d draws", need, len(ports), draws)
		}
		port, err := free()
		if err != nil {
			return Ports{}, err
		}
		if port > 0 && !taken[port] {
			taken[port] = true
			ports = append(ports, port)
		}
	}
	// payments and the simulator come last, so the others keep the ports
	// they drew before those two existed.
	p := Ports{Gateway: ports[0], MailSMTP: ports[1], MailWeb: ports[2], Payments: ports[need-2], DarajaSim: ports[need-1]}
	if n > 1 {
		p.More = make(map[string][]int, len(Replicated))
	}
	for i, svc := range Replicated {
		own := ports[3+i*n : 3+(i+1)*n]
		*p.field(svc) = own[0]
		if n > 1 {
			p.More[svc] = own[1:]
		}
	}
	return p, nil
}

// Keys are the secrets every service shares.
type Keys struct {
	JWTSecret, AnonKey, ServiceRoleKey, PublishableKey, SecretKey string
	// JWTKeys is authsvc's private signing key set (Supabase's JWT_KEYS,
	// given as GOTRUE_JWT_KEYS) and JWKS the public set every verifying
	// service reads (Supabase's JWT_JWKS); both empty means HS256 only.
	JWTKeys, JWKS string
}

// withJWKS appends JWT_JWKS to env when a key set is configured: rest,
// rpc, realtime, storage, payments and the gateway all read it.
func (k Keys) withJWKS(env []string) []string {
	if k.JWKS == "" {
		return env
	}
	return append(env, "JWT_JWKS="+k.JWKS)
}

// Stack is everything needed to start the services.
type Stack struct {
	Root        string // repository root
	BinDir      string
	DatabaseURL string // the superuser URL of the stack's database
	Ports       Ports
	Keys        Keys
	StorageDir  string
	// FrontendDir is the built app the gateway serves; empty means
	// Root/frontend/dist (DEVSTACK_FRONTEND_DIR sets it, so a second build
	// can be tested beside the first).
	FrontendDir string
	Production  bool
	// RolePasswords holds the login passwords of authenticator and
	// supabase_auth_admin, when the server asks for them (empty: none).
	RolePasswords RolePasswords
	// InProcess has the gateway serve rest and rpc itself
	// (GATEWAY_INPROCESS) instead of running them as children: one process
	// and no second HTTP hop for the embedded default. Their KEJANEST_REST_
	// and KEJANEST_RPC_ overrides then reach the gateway.
	InProcess bool
	// Held holds the children's listening sockets, which devstack binds
	// before it starts anything (ListenAddrs); each child's first start is
	// handed its own and serves on them. Nil: every child binds its own.
	Held *listenfd.Held
}

// inProcessed are the services the gateway serves with InProcess.
var inProcessed = map[string]bool{"rest": true, "rpc": true}

func (s Stack) frontendDir() string {
	if s.FrontendDir != "" {
		return s.FrontendDir
	}
	return filepath.Join(s.Root, "frontend", "dist")
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

// DarajaSimURL is the M-Pesa (Daraja) simulator's base URL.
func (s Stack) DarajaSimURL() string { return local(s.Ports.DarajaSim) }

// MailboxURL is the development mailbox's page.
func (s Stack) MailboxURL() string { return local(s.Ports.MailWeb) }

func local(port int) string { return "http://" + loopback(port) }

// OverridePrefix starts the variables that reach one service only:
// KEJANEST_<SERVICE>_<NAME>=v in devstack's environment becomes NAME=v for
// that service, after (and so winning over) devstack's own settings. Test
// suites use it to run a service in another mode, e.g.
// KEJANEST_STORAGE_STORAGE_BACKEND=s3.
const OverridePrefix = "KEJANEST_"

// Instance is one child process of a service.
type Instance struct {
	Service string // the service: a binary in BinDir and its override prefix
	// Name is the child's name in devstack's log and the name of its log
	// file: the service's name, or name-k (k from 1) for the replicas of
	// a service that runs several.
	Name string
	Port int // the port it serves on (for devmail, its web page)
}

// Instances lists the children of service in start order: one per replica
// of a replicated service, else one.
func (s Stack) Instances(service string) []Instance {
	if s.InProcess && inProcessed[service] {
		return nil
	}
	ports := s.Ports.Of(service)
	switch service {
	case "devmail":
		ports = []int{s.Ports.MailWeb}
	case "gateway":
		ports = []int{s.Ports.Gateway}
	case "payments":
		ports = []int{s.Ports.Payments}
	case "darajasim":
		ports = []int{s.Ports.DarajaSim}
	}
	out := make([]Instance, len(ports))
	for i, port := range ports {
		name := service
		if len(ports) > 1 {
			name = fmt.Sprintf("%s-%d", service, i+1)
		}
		out[i] = Instance{Service: service, Name: name, Port: port}
	}
	return out
}

// ListenAddrs lists every address the stack's children listen on, in
// start order, as their environments (overrides from environ included)
// tell them: what devstack binds before it starts anything (Held).
func (s Stack) ListenAddrs(environ ...string) []string {
	var out []string
	for _, c := range s.children(environ) {
		out = append(out, c.addrs...)
	}
	return out
}

func loopback(port int) string  { return "127.0.0.1:" + strconv.Itoa(port) }
func loopback6(port int) string { return "[::1]:" + strconv.Itoa(port) }

// upstream is the gateway's value for service: the base URL of each of its
// replicas, comma-separated.
func (s Stack) upstream(service string) string {
	var urls []string
	for _, port := range s.Ports.Of(service) {
		urls = append(urls, local(port))
	}
	return strings.Join(urls, ",")
}

// Services returns the children in start order, with their environment:
// devmail and the Daraja simulator, then every replica of rest, rpc,
// authsvc, realtime and storage (each replica a child of its own, on its
// own port), then payments, then the gateway,
// given each service's replicas as a comma list. Overrides come from
// environ (os.Environ() in devstack) and reach every replica of their
// service.
func (s Stack) Services(environ ...string) []supervise.Service {
	children := s.children(environ)
	out := make([]supervise.Service, len(children))
	for i, c := range children {
		out[i] = c.svc
		out[i].Listens = c.addrs
		files, inherit := s.Held.Pass(c.addrs)
		if inherit != "" {
			out[i].Files, out[i].FilesEnv = files, []string{inherit}
		}
	}
	return out
}

// child is one child process and the addresses it listens on.
type child struct {
	svc   supervise.Service
	addrs []string
}

// children lists the children in start order, each with its environment
// (overrides from environ last) and the addresses that environment has it
// listen on.
func (s Stack) children(environ []string) []child {
	var out []child
	for _, t := range s.templates() {
		var overrides []string
		if t.service == "gateway" && s.InProcess {
			// One pipeline serves both: rpc's settings win a conflict.
			overrides = append(overridesOf("rest", environ), overridesOf("rpc", environ)...)
		}
		overrides = append(overrides, overridesOf(t.service, environ)...)
		for _, in := range s.Instances(t.service) {
			env := append(t.env(in.Port), overrides...)
			out = append(out, child{
				svc: supervise.Service{
					Name:      in.Name,
					Binary:    filepath.Join(s.BinDir, t.service),
					Env:       env,
					HealthURL: local(in.Port) + t.health,
				},
				addrs: t.listen(env),
			})
		}
	}
	return out
}

// overridesOf returns service's KEJANEST_<SERVICE>_ settings in environ,
// without the prefix.
func overridesOf(service string, environ []string) []string {
	prefix := OverridePrefix + strings.ToUpper(service) + "_"
	var out []string
	for _, kv := range environ {
		if rest, ok := strings.CutPrefix(kv, prefix); ok && strings.Contains(rest, "=") {
			out = append(out, rest)
		}
	}
	return out
}

// template is how every child of one service is started: its environment
// for the port it serves on, its health path, and where in its environment
// it reads the addresses it listens on.
type template struct {
	service string
	health  string
	env     func(port int) []string
	listen  func(env []string) []string
}

// addrVars reads addresses from variables holding comma-separated lists.
func addrVars(names ...string) func(env []string) []string {
	return func(env []string) []string {
		var out []string
		for _, n := range names {
			for a := range strings.SplitSeq(lastValue(env, n), ",") {
				if a = strings.TrimSpace(a); a != "" {
					out = append(out, a)
				}
			}
		}
		return out
	}
}

// hostPort reads one address from a host variable and a port variable.
func hostPort(host, port string) func(env []string) []string {
	return func(env []string) []string {
		return []string{net.JoinHostPort(lastValue(env, host), lastValue(env, port))}
	}
}

// lastValue is what a child sees of key in env: with duplicate keys exec
// uses the last.
func lastValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

func (s Stack) templates() []template {
	authenticator := s.AuthenticatorURL()
	authAdmin := database.WithUser(s.DatabaseURL, "supabase_auth_admin", s.RolePasswords.AuthAdmin)
	p := s.Ports
	k := s.Keys
	pgrst := func(port int) []string {
		return k.withJWKS([]string{
			"PGRST_DB_URI=" + authenticator,
			"PGRST_SERVER_HOST=127.0.0.1",
			"PGRST_SERVER_PORT=" + strconv.Itoa(port),
			"PGRST_JWT_SECRET=" + k.JWTSecret,
		})
	}
	return []template{
		// Mail from authsvc lands here; the page lists it so a developer
		// can follow confirmation links. Production uses a real SMTP server.
		{"devmail", "/health", func(int) []string {
			return []string{
				"DEVMAIL_SMTP_ADDR=" + loopback(p.MailSMTP),
				"DEVMAIL_WEB_ADDR=" + loopback(p.MailWeb),
			}
		}, addrVars("DEVMAIL_WEB_ADDR", "DEVMAIL_SMTP_ADDR")},
		// M-Pesa is the simulator locally: the payer's answer is chosen by
		// the phone number (README, "Payments (M-Pesa)").
		{"darajasim", "/health", func(port int) []string {
			return []string{"DARAJASIM_ADDR=" + loopback(port)}
		}, addrVars("DARAJASIM_ADDR")},
		{"rest", "/ready", pgrst, hostPort("PGRST_SERVER_HOST", "PGRST_SERVER_PORT")},
		{"rpc", "/ready", pgrst, hostPort("PGRST_SERVER_HOST", "PGRST_SERVER_PORT")},
		{"authsvc", "/health", func(port int) []string {
			env := []string{
				"DATABASE_URL=" + authAdmin,
				"GOTRUE_API_HOST=127.0.0.1",
				"PORT=" + strconv.Itoa(port),
				"GOTRUE_JWT_SECRET=" + k.JWTSecret,
				"API_EXTERNAL_URL=" + s.GatewayURL(),
				"GOTRUE_SITE_URL=" + s.GatewayURL(),
				"GOTRUE_SMTP_HOST=127.0.0.1",
				"GOTRUE_SMTP_PORT=" + strconv.Itoa(p.MailSMTP),
				"GOTRUE_SMTP_ADMIN_EMAIL=no-reply@kejanest.test",
				// A developer re-sending a link should not wait a minute.
				"GOTRUE_SMTP_MAX_FREQUENCY=1s",
				// Phone sign-in works locally: the default SMS sender, log,
				// writes each text with its code to the replica's log
				// (.data/logs/authsvc.log with one replica).
				"GOTRUE_EXTERNAL_PHONE_ENABLED=true",
			}
			if k.JWTKeys != "" {
				env = append(env, "GOTRUE_JWT_KEYS="+k.JWTKeys)
			}
			return env
		}, hostPort("GOTRUE_API_HOST", "PORT")},
		{"realtime", "/api/health", func(port int) []string {
			return k.withJWKS([]string{
				"DATABASE_URL=" + authenticator,
				"REALTIME_HOST=127.0.0.1",
				"PORT=" + strconv.Itoa(port),
				"API_JWT_SECRET=" + k.JWTSecret,
				// The websocket's apikey query parameter may be an sb_ key.
				"SUPABASE_PUBLISHABLE_KEY=" + k.PublishableKey,
				"SUPABASE_SECRET_KEY=" + k.SecretKey,
			})
		}, hostPort("REALTIME_HOST", "PORT")},
		{"storage", "/status", func(port int) []string {
			return k.withJWKS([]string{
				"DATABASE_URL=" + authenticator,
				"SERVER_HOST=127.0.0.1",
				"SERVER_PORT=" + strconv.Itoa(port),
				"AUTH_JWT_SECRET=" + k.JWTSecret,
				"ANON_KEY=" + k.AnonKey,
				"SERVICE_KEY=" + k.ServiceRoleKey,
				// Every replica shares the one root: an upload is written
				// to a temporary file and renamed into place under a key
				// of its own version, and the metadata is in PostgreSQL,
				// so replicas on one disk never see each other's halves.
				"STORAGE_BACKEND=file",
				"FILE_STORAGE_BACKEND_PATH=" + s.StorageDir,
			})
		}, hostPort("SERVER_HOST", "SERVER_PORT")},
		// The credentials, shortcode and passkey are both sides' shared
		// development defaults; Safaricom's callback reaches payments the
		// way it would in production, through the gateway.
		{"payments", "/ready", func(port int) []string {
			return k.withJWKS([]string{
				"DATABASE_URL=" + authenticator,
				"PAYMENTS_HOST=127.0.0.1",
				"PORT=" + strconv.Itoa(port),
				"JWT_SECRET=" + k.JWTSecret,
				"MPESA_API_BASE_URL=" + s.DarajaSimURL(),
				"MPESA_CALLBACK_BASE_URL=" + s.GatewayURL(),
			})
		}, hostPort("PAYMENTS_HOST", "PORT")},
		{"gateway", "/health", func(int) []string {
			// rest and rpc: their URLs, or their own settings for the
			// pipeline the gateway runs itself.
			pgrstEnv := []string{"REST_URL=" + s.upstream("rest"), "RPC_URL=" + s.upstream("rpc")}
			if s.InProcess {
				pgrstEnv = []string{"GATEWAY_INPROCESS=rest,rpc", "PGRST_DB_URI=" + authenticator, "PGRST_JWT_SECRET=" + k.JWTSecret}
			}
			return k.withJWKS(append(pgrstEnv,
				"GATEWAY_LISTEN="+loopback(p.Gateway)+","+loopback6(p.Gateway),
				"AUTH_URL="+s.upstream("authsvc"),
				"REALTIME_URL="+s.upstream("realtime"),
				"STORAGE_URL="+s.upstream("storage"),
				"FUNCTIONS_URL="+local(p.Payments),
				"FRONTEND_DIR="+s.frontendDir(),
				"JWT_SECRET="+k.JWTSecret,
				"ANON_KEY="+k.AnonKey,
				"SERVICE_ROLE_KEY="+k.ServiceRoleKey,
				"SUPABASE_PUBLISHABLE_KEY="+k.PublishableKey,
				"SUPABASE_SECRET_KEY="+k.SecretKey,
			))
		}, addrVars("GATEWAY_LISTEN")},
	}
}
