// Package supervise runs the stack's services as child processes: it starts
// them with their environment, waits for their health endpoints, restarts
// one that crashes (Group, with the backoff of a Policy), and stops them in
// reverse order on shutdown.
package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Service describes one child process.
type Service struct {
	Name      string
	Binary    string
	Env       []string // KEY=value, added to the supervisor's environment
	HealthURL string
	// Files are handed to the child after stdin, stdout and stderr (as
	// descriptors 3, 4, …), and FilesEnv is added to its environment to
	// name them: the listening sockets devstack bound for it
	// (platform/listenfd). Only the first start gets them; a restart gets
	// the sockets Group reserved for Listens (see NewGroup).
	Files    []*os.File
	FilesEnv []string
	// Listens are the addresses the child serves on: when it exits
	// unasked, Group reserves them until its restart, which inherits
	// them.
	Listens []string
}

// Process is a started service.
type Process struct {
	Service
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error
}

// Start launches svc with stdout and stderr appended to logDir/<name>.log.
// The child gets its own process group, so a terminal Ctrl-C reaches only
// the supervisor, which then stops the children in order.
func Start(svc Service, logDir string) (*Process, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, fmt.Errorf("create log dir: %w", err)
	}
	logPath := filepath.Join(logDir, svc.Name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", svc.Name, err)
	}
	cmd := exec.Command(svc.Binary)
	cmd.Env = append(append(os.Environ(), svc.Env...), svc.FilesEnv...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = svc.Files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", svc.Name, err)
	}
	p := &Process{Service: svc, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// PID is the operating system's id of the process.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// ExitStatus says how the process ended ("exit status 1", "signal:
// killed"), or "running" while it has not.
func (p *Process) ExitStatus() string {
	select {
	case <-p.exited:
	default:
		return "running"
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// LogPath is where the process writes its output.
func (p *Process) LogPath() string { return p.logPath }

// WaitHealthy polls the health URL until it answers 2xx from this process,
// the process exits, or ctx ends.
//
// An answer alone is not enough: test stacks pick their ports just before
// starting, so another stack's service can bind a port first. It then
// answers this process's health checks while this process fails to bind
// and exits, and the stack would route to a stranger. The listening socket
// must be this process's own.
func (p *Process) WaitHealthy(ctx context.Context) error {
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	port := urlPort(p.HealthURL)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.HealthURL, nil)
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				own, err := p.listensOn(port)
				if err != nil {
					return fmt.Errorf("%s: who listens on port %d: %w", p.Name, port, err)
				}
				if own {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not healthy at %s: %w\n%s", p.Name, p.HealthURL, ctx.Err(), p.Tail(20))
		case <-p.exited:
			return fmt.Errorf("%s exited during start-up (%v)\n%s", p.Name, p.waitErr, p.Tail(20))
		case <-tick.C:
		}
	}
}

// listensOn reports whether the process listens on port; true when port is
// 0 (the health URL names none) and where the system cannot tell.
func (p *Process) listensOn(port int) (bool, error) {
	if port == 0 {
		return true, nil
	}
	return listensOn(p.PID(), port)
}

// urlPort is the port a URL names explicitly, or 0.
func urlPort(raw string) int {
	u, err := url.Parse(raw)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(u.Port())
	if err != nil {
		return 0
	}
	return n
}

// Stop sends SIGTERM, waits up to grace, then kills the process group.
func (p *Process) Stop(grace time.Duration) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
		return fmt.Errorf("%s did not stop within %v and was killed", p.Name, grace)
	}
}

// Tail returns the last n lines of the process log.
func (p *Process) Tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  | " + strings.Join(lines, "\n  | ")
}

// StartAll starts every service, then waits for all of them to be healthy.
// On any failure the ones already started are stopped.
func StartAll(ctx context.Context, svcs []Service, logDir string, timeout time.Duration) ([]*Process, error) {
	var procs []*Process
	for _, s := range svcs {
		p, err := Start(s, logDir)
		if err != nil {
			StopAll(procs, 5*time.Second)
			return nil, err
		}
		procs = append(procs, p)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	errs := make(chan error, len(procs))
	for _, p := range procs {
		go func() { errs <- p.WaitHealthy(ctx) }()
	}
	var all []error
	for range procs {
		if err := <-errs; err != nil {
			all = append(all, err)
		}
	}
	if err := errors.Join(all...); err != nil {
		StopAll(procs, 5*time.Second)
		return nil, err
	}
	return procs, nil
}

// StopAll stops processes in reverse start order.
func StopAll(procs []*Process, grace time.Duration) []error {
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		if err := procs[i].Stop(grace); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
