// Command devstack runs the whole KejaNest stack on one machine: it ensures
// PostgreSQL, applies the migrations (and, for `make run`, the demo data),
// starts every service and the gateway as child processes, waits for their
// health, prints the URL and keys, restarts a service that crashes (with
// backoff, giving up on a crash loop), and stops everything on Ctrl-C.
// Every service's port is bound first of all and its socket handed to the
// service (platform/listenfd), so a port is never free in between.
//
// With -ephemeral it is the test harness's stack: free ports, a fresh
// database that is dropped at exit, and one JSON line on stdout when ready.
//
// With one replica (the default) the gateway serves rest and rpc in its own
// process (GATEWAY_INPROCESS; DEVSTACK_INPROCESS=false runs them as
// children, as docker-compose.yml does). With -replicas N (or
// DEVSTACK_REPLICAS) it runs N replicas of each of rest, rpc, authsvc,
// realtime and storage, each its own supervised child on its own port,
// behind the one gateway: the scale-out shape on one machine.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/devstack/internal/database"
	"github.com/kejanest/kejanest/devstack/internal/stackconf"
	"github.com/kejanest/kejanest/devstack/internal/supervise"
	"github.com/kejanest/kejanest/devstack/internal/sweeps"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/listenfd"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgcluster"
)

func main() {
	os.Exit(run())
}

type options struct {
	ephemeral bool
	seed      bool
	root      string
	fixtures  fixtureList
	replicas  int // 0: DEVSTACK_REPLICAS, else 1
}

// fixtureList collects repeated -sql flags.
type fixtureList []string

func (f *fixtureList) String() string     { return strings.Join(*f, ",") }
func (f *fixtureList) Set(v string) error { *f = append(*f, v); return nil }

func run() int {
	var o options
	flag.BoolVar(&o.ephemeral, "ephemeral", false, "test mode: free ports, a throwaway database, a JSON ready line")
	flag.BoolVar(&o.seed, "seed", true, "apply sql/seed (demo data); ignored with -ephemeral")
	flag.StringVar(&o.root, "root", "", "repository root (default: the folder holding go.work)")
	flag.Var(&o.fixtures, "sql", "with -ephemeral: an SQL file applied after the migrations, before the services start (repeatable)")
	flag.IntVar(&o.replicas, "replicas", 0, fmt.Sprintf("replicas of each of %s, 1 to %d (default: $DEVSTACK_REPLICAS, else 1)",
		strings.Join(stackconf.Replicated, ", "), stackconf.MaxReplicas))
	flag.Parse()
	log := logging.New(os.Stderr, "devstack", os.Getenv("LOG_LEVEL"))
	if err := start(o, log); err != nil {
		fmt.Fprintln(os.Stderr, "devstack:", err)
		return 1
	}
	return 0
}

func start(o options, log *slog.Logger) error {
	began := time.Now()
	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	if o.ephemeral {
		// The harness owns us through a pipe: when it goes away, so do we.
		ctx = stopOnStdinEOF(ctx)
	}
	root, err := repoRoot(o.root)
	if err != nil {
		return err
	}
	env := envconf.New()
	keys := stackconf.Keys{
		JWTSecret:      env.String(devkeys.JWTSecret, "JWT_SECRET"),
		AnonKey:        env.String(devkeys.AnonKey, "ANON_KEY"),
		ServiceRoleKey: env.String(devkeys.ServiceRoleKey, "SERVICE_ROLE_KEY"),
		PublishableKey: env.String(devkeys.PublishableKey, "SUPABASE_PUBLISHABLE_KEY"),
		SecretKey:      env.String(devkeys.SecretKey, "SUPABASE_SECRET_KEY"),
		JWTKeys:        env.String("", "JWT_KEYS"),
		JWKS:           env.String("", "JWT_JWKS"),
	}
	pgPort := env.Int(54322, "POSTGRES_PORT")
	replicas := o.replicas
	if replicas == 0 {
		replicas = env.Int(1, "DEVSTACK_REPLICAS")
	}
	// One replica: the gateway serves rest and rpc itself, sparing every
	// table read a second HTTP hop (README, "Performance"). Replicas are
	// separate processes by definition.
	inProcess := replicas == 1 && env.Bool(true, "DEVSTACK_INPROCESS")
	if err := env.Err(); err != nil {
		return err
	}
	fixedPorts, err := stackconf.DefaultPorts.WithReplicas(replicas)
	if err != nil {
		return err
	}
	if devkeys.IsProduction(os.Getenv(devkeys.EnvVar)) {
		return errors.New("devstack is the local development stack; production runs the services directly (see docker-compose.yml)")
	}

	binDir := os.Getenv("DEVSTACK_BIN_DIR")
	if binDir == "" {
		binDir = filepath.Join(root, "bin")
	}
	st := stackconf.Stack{Root: root, BinDir: binDir, Ports: fixedPorts, Keys: keys, InProcess: inProcess,
		FrontendDir: os.Getenv("DEVSTACK_FRONTEND_DIR"),
		RolePasswords: stackconf.RolePasswords{
			Authenticator: os.Getenv("AUTHENTICATOR_PASSWORD"),
			AuthAdmin:     os.Getenv("AUTH_ADMIN_PASSWORD"),
		}}
	var cleanups []func(context.Context)
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i](context.Background())
		}
	}()

	// Every port is bound before anything else runs, and each child is
	// handed its sockets (platform/listenfd): the documented ports 54321,
	// 54324 and 54325 lie in the kernel's ephemeral range, so until bound
	// they could go to any outgoing connection, PostgreSQL's below
	// included, and the service would fail to start.
	if o.ephemeral {
		pick := func() (stackconf.Ports, error) { return stackconf.PickPorts(replicas, pgcluster.FreePort) }
		hold := func(p stackconf.Ports) (*listenfd.Held, error) {
			st.Ports = p
			return listenfd.Hold(st.ListenAddrs(os.Environ()...))
		}
		st.Ports, st.Held, err = holdFreePorts(holdAttempts, pick, hold, log)
	} else if st.Held, err = listenfd.Hold(st.ListenAddrs(os.Environ()...)); errors.Is(err, syscall.EADDRINUSE) {
		err = fmt.Errorf("%w (is another make run going?)", err)
	}
	if err != nil {
		return err
	}
	cleanups = append(cleanups, func(context.Context) { st.Held.Close() })

	logDir := filepath.Join(root, ".data", "logs")
	st.StorageDir = filepath.Join(root, ".data", "storage")
	if o.ephemeral {
		tmp, err := os.MkdirTemp("", "kejanest-stack-")
		if err != nil {
			return fmt.Errorf("temp dir: %w", err)
		}
		logDir, st.StorageDir = filepath.Join(tmp, "logs"), filepath.Join(tmp, "storage")
		srv, err := pgcluster.FindServer(ctx, "TEST_DATABASE_URL", root, filepath.Join(root, ".data", "embedded-postgres"))
		if err != nil {
			return err
		}
		cleanups = append(cleanups, func(ctx context.Context) { _ = srv.Close(ctx) })
		st.DatabaseURL = database.WithDatabase(srv.AdminURL, "kejanest_stack_"+randomHex(6))
		if err := database.EnsureDatabase(ctx, st.DatabaseURL); err != nil {
			return err
		}
		cleanups = append(cleanups, func(ctx context.Context) {
			if err := database.DropDatabase(ctx, st.DatabaseURL); err != nil {
				log.Warn("drop stack database", "err", err)
			}
			_ = os.RemoveAll(tmp)
		})
	} else {
		st.DatabaseURL = os.Getenv("DATABASE_URL")
		if st.DatabaseURL == "" {
			url, stopPG, err := embeddedPostgres(ctx, root, pgPort, log)
			if err != nil {
				return err
			}
			st.DatabaseURL = url
			cleanups = append(cleanups, stopPG)
		} else if err := database.EnsureDatabase(ctx, st.DatabaseURL); err != nil {
			return err
		}
	}

	applied, err := database.Migrate(ctx, st.DatabaseURL, filepath.Join(root, "sql", "migrations"))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	log.Info("migrations applied", "count", len(applied))
	if err := database.SetRolePasswords(ctx, st.DatabaseURL, st.RolePasswords.ByRole()); err != nil {
		return fmt.Errorf("role passwords: %w", err)
	}
	if len(o.fixtures) > 0 {
		if !o.ephemeral {
			return errors.New("-sql fixtures are for -ephemeral test stacks only")
		}
		if err := database.ApplyFiles(ctx, st.DatabaseURL, o.fixtures); err != nil {
			return err
		}
	}
	if o.seed && !o.ephemeral {
		seeded, err := database.Seed(ctx, st.DatabaseURL, filepath.Join(root, "sql", "seed"))
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		log.Info("demo data applied", "files", seeded)
	}

	procs, err := supervise.StartAll(ctx, st.Services(os.Environ()...), logDir, 30*time.Second)
	if err != nil {
		return err
	}
	// Each service holds its sockets now; devstack's copies would only keep
	// a crashed service's port accepting connections nobody serves (see
	// supervise.NewGroup).
	st.Held.Close()
	// From here on a service that crashes is started again (see
	// supervise.DefaultPolicy); the database and the others keep running.
	group := supervise.NewGroup(procs, supervise.DefaultPolicy, log)
	cleanups = append(cleanups, func(context.Context) {
		for _, err := range group.Stop(lifecycle.ShutdownGrace + 2*time.Second) {
			log.Warn("stop service", "err", err)
		}
	})

	// Listings, offers and trades lapse by the clock; production runs the
	// same sweep from its scheduler.
	go sweeps.Every(ctx, st.AuthenticatorURL(), time.Minute, log)

	if o.ephemeral {
		if err := printReady(st, logDir); err != nil {
			return err
		}
	} else {
		printBanner(st, root, logDir, time.Since(began))
	}

	if err := group.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "devstack: stopping...")
	return nil
}

// embeddedPostgres starts (initializing on first use) the private cluster
// under .data/postgres, or reuses one a previous run left running.
func embeddedPostgres(ctx context.Context, root string, port int, log *slog.Logger) (string, func(context.Context), error) {
	bin, err := pgcluster.FindBinaries(filepath.Join(root, ".data", "embedded-postgres"))
	if err != nil {
		return "", nil, err
	}
	c, err := pgcluster.New(filepath.Join(root, ".data", "postgres"), port, bin)
	if err != nil {
		return "", nil, err
	}
	url := c.URL("postgres")
	if c.Initialized() {
		if conn, err := pgx.Connect(ctx, url); err == nil {
			conn.Close(ctx)
			log.Info("reusing the running embedded PostgreSQL", "port", port)
			return url, func(context.Context) {}, nil
		}
	}
	log.Info("starting embedded PostgreSQL", "dir", c.Dir, "port", port, "binaries", bin)
	if err := c.Init(ctx); err != nil {
		return "", nil, err
	}
	if err := c.Start(ctx); err != nil {
		return "", nil, err
	}
	return url, func(ctx context.Context) {
		if err := c.Stop(ctx); err != nil {
			log.Warn("stop embedded PostgreSQL", "err", err)
		}
	}, nil
}

// holdAttempts bounds how often a test stack's ports are picked afresh.
const holdAttempts = 5

// holdFreePorts picks a test stack's ports and binds them all (hold). A
// picked port is only free until someone binds it, so when one has been
// taken since, the ports are picked again, up to attempts times; any other
// failure is returned as it is. Once held, no service can find its port
// taken.
func holdFreePorts(attempts int, pick func() (stackconf.Ports, error),
	hold func(stackconf.Ports) (*listenfd.Held, error), log *slog.Logger) (stackconf.Ports, *listenfd.Held, error) {
	for attempt := 1; ; attempt++ {
		ports, err := pick()
		if err != nil {
			return stackconf.Ports{}, nil, err
		}
		held, err := hold(ports)
		if err == nil {
			return ports, held, nil
		}
		if attempt == attempts || !errors.Is(err, syscall.EADDRINUSE) {
			return stackconf.Ports{}, nil, err
		}
		log.Warn("a picked port was taken before it was bound; picking again", "attempt", attempt, "err", err)
	}
}

// readyLine is what the test harness reads from stdout.
type readyLine struct {
	Event          string `json:"event"`
	URL            string `json:"url"`
	AnonKey        string `json:"anonKey"`
	ServiceRoleKey string `json:"serviceRoleKey"`
	PublishableKey string `json:"publishableKey"`
	SecretKey      string `json:"secretKey"`
	JWTSecret      string `json:"jwtSecret"`
	DatabaseURL    string `json:"databaseUrl"`
	MailboxURL     string `json:"mailboxUrl"`
	LogDir         string `json:"logDir"`
	// Ports has each service's first replica, as before replicas existed.
	Ports stackconf.Ports `json:"ports"`
	// Replicas lists every replica of rest, rpc, authsvc, realtime and
	// storage by service (one each without -replicas).
	Replicas map[string][]readyReplica `json:"replicas"`
}

// readyReplica is one replica in the ready line.
type readyReplica struct {
	Name string `json:"name"` // devstack's name of the child, e.g. rest-2
	Port int    `json:"port"`
	URL  string `json:"url"` // its base URL, as the gateway lists it
	Log  string `json:"log"` // its log file
}

func replicasOf(st stackconf.Stack, logDir string) map[string][]readyReplica {
	out := make(map[string][]readyReplica, len(stackconf.Replicated))
	for _, svc := range stackconf.Replicated {
		for _, in := range st.Instances(svc) {
			out[svc] = append(out[svc], readyReplica{Name: in.Name, Port: in.Port,
				URL: "http://127.0.0.1:" + strconv.Itoa(in.Port), Log: filepath.Join(logDir, in.Name+".log")})
		}
	}
	return out
}

func printReady(st stackconf.Stack, logDir string) error {
	b, err := json.Marshal(readyLine{
		Event: "ready", URL: st.GatewayURL(), AnonKey: st.Keys.AnonKey, ServiceRoleKey: st.Keys.ServiceRoleKey,
		PublishableKey: st.Keys.PublishableKey, SecretKey: st.Keys.SecretKey, JWTSecret: st.Keys.JWTSecret,
		DatabaseURL: st.DatabaseURL, MailboxURL: st.MailboxURL(), LogDir: logDir, Ports: st.Ports,
		Replicas: replicasOf(st, logDir),
	})
	if err != nil {
		return fmt.Errorf("encode ready line: %w", err)
	}
	_, err = fmt.Fprintf(os.Stdout, "%s\n", b)
	return err
}

func printBanner(st stackconf.Stack, root, logDir string, took time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nKejaNest is running (ready in %v).\n\n", took.Round(time.Millisecond))
	fmt.Fprintf(&b, "  App and API URL   %s\n", st.GatewayURL())
	fmt.Fprintf(&b, "  Database URL      %s\n", database.Redact(st.DatabaseURL))
	fmt.Fprintf(&b, "  anon key          %s\n", st.Keys.AnonKey)
	fmt.Fprintf(&b, "  service_role key  %s\n", st.Keys.ServiceRoleKey)
	fmt.Fprintf(&b, "  Publishable key   %s\n", st.Keys.PublishableKey)
	fmt.Fprintf(&b, "  Secret key        %s\n", st.Keys.SecretKey)
	fmt.Fprintf(&b, "  Mailbox           %s  (confirmation and recovery mails)\n", st.MailboxURL())
	fmt.Fprintf(&b, "  M-Pesa simulator  %s  (STK pushes; test numbers in the README)\n", st.DarajaSimURL())
	fmt.Fprintf(&b, "  Service logs      %s\n", logDir)
	if st.InProcess {
		fmt.Fprintf(&b, "  rest and rpc      served inside the gateway (DEVSTACK_INPROCESS=false runs them as their own processes)\n")
	}
	if n := len(st.Ports.Of("rest")); n > 1 {
		fmt.Fprintf(&b, "  Replicas          %d each of %s (logs <service>-1.log …)\n", n, strings.Join(stackconf.Replicated, ", "))
		for _, svc := range stackconf.Replicated {
			var ports []string
			for _, p := range st.Ports.Of(svc) {
				ports = append(ports, strconv.Itoa(p))
			}
			fmt.Fprintf(&b, "    %-9s       %s\n", svc, strings.Join(ports, ", "))
		}
	}
	if logins, err := os.ReadFile(filepath.Join(root, "sql", "seed", "logins.txt")); err == nil {
		fmt.Fprintf(&b, "\nDemo logins:\n")
		for _, line := range strings.Split(strings.TrimSpace(string(logins)), "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	fmt.Fprintf(&b, "\nPress Ctrl-C to stop.\n")
	fmt.Fprint(os.Stdout, b.String())
}

func stopOnStdinEOF(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		cancel()
	}()
	return ctx
}

func repoRoot(flagValue string) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("not inside the repository (no go.work found); pass -root")
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
