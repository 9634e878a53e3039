package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serverPackages are built when -bin-dir is not given. The gateway's
// packages sit under gateway/internal, which Go lets no other module
// import, so the benchmark runs the real commands as child processes, as
// in every deployment; rest runs as its command too, so that every server
// measured (the floor included, see serveFloor) is a process of its own
// beside the load generator.
var serverPackages = []string{"github.com/kejanest/kejanest/gateway/cmd/gateway", "github.com/kejanest/kejanest/rest/cmd/rest"}

// childStartTimeout bounds the wait for a child's health check.
const childStartTimeout = 30 * time.Second

// childStopGrace is how long a child gets to drain after SIGINT before it
// is killed.
const childStopGrace = 10 * time.Second

// buildServers compiles the gateway and rest into dir with the go command
// on PATH. The working directory must lie inside the repository (go.work
// finds the modules from there), which `go run ./rest/cmd/restbench` from
// the root or `go run ./cmd/restbench` from rest/ satisfy.
func buildServers(ctx context.Context, dir string) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("build the servers (or pass -bin-dir): %w", err)
	}
	cmd := exec.CommandContext(ctx, goCmd, append([]string{"build", "-o", dir + string(filepath.Separator)}, serverPackages...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build the servers (run from inside the repository, or pass -bin-dir): %w", err)
	}
	return nil
}

// gatewayKeys are the legacy API keys the child accepts, signed with the
// benchmark's secret, which is also rest's: the gateway forwards the anon
// key as the bearer, and rest verifies it.
type gatewayKeys struct {
	anon, serviceRole string
}

// startGateway runs bin with upstream's settings (REST_URL, or
// GATEWAY_INPROCESS and rest's own) on a free loopback port. Its
// environment holds only the gateway's own settings (a rate limit or
// required key in the caller's shell would change what is measured) plus
// PATH and the Go runtime's knobs. It logs as in production, one JSON
// access line per request at info, into a pipe that keeps only the tail
// for error messages. pprof turns GATEWAY_PPROF on.
func startGateway(ctx context.Context, bin string, keys gatewayKeys, frontendDir string, pprof bool, upstream ...string) (child, error) {
	return startChild(ctx, bin, "/health", func(addr string) ([]string, []string) {
		return nil, append([]string{
			"GATEWAY_LISTEN=" + addr,
			"JWT_SECRET=" + secret,
			"ANON_KEY=" + keys.anon,
			"SERVICE_ROLE_KEY=" + keys.serviceRole,
			"FRONTEND_DIR=" + frontendDir,
			"GATEWAY_RATE_LIMIT=",
			"GATEWAY_REQUIRE_APIKEY=false",
			"GATEWAY_CORS_ORIGINS=*",
			"LOG_LEVEL=info",
			"GATEWAY_PPROF=" + strconv.FormatBool(pprof),
		}, upstream...)
	})
}

// child is a server restbench started.
type child struct {
	url string
	// pid is the process's, whose CPU time restbench reads.
	pid  int
	stop func()
}

// startChild runs bin on a free loopback address, with the arguments and
// environment setup gives for it (plus PATH and the Go runtime's knobs,
// nothing else of the caller's), and waits until health answers 200. Its
// output goes to a pipe that keeps the tail for error messages.
func startChild(ctx context.Context, bin, health string, setup func(addr string) (args, env []string)) (child, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return child{}, err
	}
	args, env := setup(addr)
	for _, k := range []string{"PATH", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	logs := &tail{max: 8 << 10}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return child{}, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(childStopGrace):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	url := "http://" + addr
	if err := waitHealthy(ctx, url+health, exited); err != nil {
		stop()
		return child{}, fmt.Errorf("start %s: %w\n%s", filepath.Base(bin), err, logs)
	}
	return child{url: url, pid: cmd.Process.Pid, stop: stop}, nil
}

// freeLoopbackAddr returns a loopback address no one listens on now. The
// gateway takes addresses, not a listener, so the port is released before
// the child binds it; another process taking it in between makes the start
// fail, not the measurement lie.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("pick gateway port: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", fmt.Errorf("pick gateway port: %w", err)
	}
	return addr, nil
}

// waitHealthy polls url until it answers 200, the child exits, or
// childStartTimeout passes.
func waitHealthy(ctx context.Context, url string, exited <-chan error) error {
	ctx, cancel := context.WithTimeout(ctx, childStartTimeout)
	defer cancel()
	c := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exited:
			return fmt.Errorf("exited before serving: %v", err)
		case <-ctx.Done():
			return errors.New("no healthy /health within " + childStartTimeout.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tail is an io.Writer that keeps at least the last max bytes written to
// it (the access log runs to thousands of lines a second, so it trims only
// when twice that has piled up).
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// String returns the last max bytes written, trimmed.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return strings.TrimSpace(string(b))
}
