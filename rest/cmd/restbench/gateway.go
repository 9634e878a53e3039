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
	"strings"
	"sync"
	"time"
)

// gatewayPackage is built when -gateway-bin is not given. The gateway's
// packages sit under gateway/internal, which Go lets no other module
// import, so the benchmark runs the real command as a child process: as in
// every deployment, a separate process in front of rest.
const gatewayPackage = "github.com/kejanest/kejanest/gateway/cmd/gateway"

// gatewayStartTimeout bounds the wait for the child's /health.
const gatewayStartTimeout = 30 * time.Second

// gatewayStopGrace is how long the child gets to drain after SIGINT
// before it is killed.
const gatewayStopGrace = 10 * time.Second

// buildGateway compiles the gateway into dir with the go command on PATH.
// The working directory must lie inside the repository (go.work finds the
// gateway module from there), which `go run ./rest/cmd/restbench` from the
// root or `go run ./cmd/restbench` from rest/ satisfy.
func buildGateway(ctx context.Context, dir string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("build gateway (or pass -gateway-bin): %w", err)
	}
	bin := filepath.Join(dir, "gateway")
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", bin, gatewayPackage)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build gateway (run from inside the repository, or pass -gateway-bin): %w", err)
	}
	return bin, nil
}

// gatewayKeys are the legacy API keys the child accepts, signed with the
// benchmark's secret, which is also rest's: the gateway forwards the anon
// key as the bearer, and rest verifies it.
type gatewayKeys struct {
	anon, serviceRole string
}

// startGateway runs bin with upstream's settings (REST_URL, or
// GATEWAY_INPROCESS and rest's own) on a free loopback port and
// waits until its /health answers. The child's environment holds only the
// gateway's own settings (a rate limit or required key in the caller's
// shell would change what is measured) plus PATH and the Go runtime's
// knobs. It logs as in production, one JSON access line per request at
// info, into a pipe that keeps only the tail for error messages.
func startGateway(ctx context.Context, bin string, keys gatewayKeys, frontendDir string, upstream ...string) (string, func(), error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return "", nil, err
	}
	env := []string{
		"GATEWAY_LISTEN=" + addr,
		"JWT_SECRET=" + secret,
		"ANON_KEY=" + keys.anon,
		"SERVICE_ROLE_KEY=" + keys.serviceRole,
		"FRONTEND_DIR=" + frontendDir,
		"GATEWAY_RATE_LIMIT=",
		"GATEWAY_REQUIRE_APIKEY=false",
		"GATEWAY_CORS_ORIGINS=*",
		"LOG_LEVEL=info",
	}
	env = append(env, upstream...)
	for _, k := range []string{"PATH", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	logs := &tail{max: 8 << 10}
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start gateway: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(gatewayStopGrace):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	url := "http://" + addr
	if err := waitHealthy(ctx, url+"/health", exited); err != nil {
		stop()
		return "", nil, fmt.Errorf("start gateway: %w\n%s", err, logs)
	}
	return url, stop, nil
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
// gatewayStartTimeout passes.
func waitHealthy(ctx context.Context, url string, exited <-chan error) error {
	ctx, cancel := context.WithTimeout(ctx, gatewayStartTimeout)
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
			return errors.New("no healthy /health within " + gatewayStartTimeout.String())
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
