package supervise

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/kejanest/kejanest/platform/listenfd"
)

// ErrCrashLoop is returned by Group.Run when a service crashed more often
// than its Policy tolerates.
var ErrCrashLoop = errors.New("service keeps crashing")

// errStopping is relaunch's answer once Stop has been called.
var errStopping = errors.New("the stack is stopping")

// restartStopGrace is how long a restarted service that never became ready
// may take to stop before it is killed.
const restartStopGrace = 5 * time.Second

// instance is one run of a service, as the Group sees it; *Process is the
// real one and the tests use fakes.
type instance interface {
	Exited() <-chan struct{}
	ExitStatus() string
	WaitHealthy(ctx context.Context) error
	Stop(grace time.Duration) error
	PID() int
	Tail(n int) string
	LogPath() string
}

// member is one service of a Group and its current run.
type member struct {
	name string
	// launch starts a run, with the sockets reserved for it (nil for
	// none).
	launch  func(reserved *listenfd.Held) (instance, error)
	listens []string

	// cur is read by Stop, so it changes only under Group.mu; the other
	// fields belong to the member's own keep loop.
	cur      instance
	readyAt  time.Time // when cur became ready; zero while it is not
	crashes  crashRecord
	restarts int
}

// Group keeps a started set of services running: Run restarts any service
// that exits without being asked to, and Stop ends them all for good.
type Group struct {
	policy  Policy
	log     *slog.Logger
	members []*member

	mu       sync.Mutex
	stopping bool
}

// NewGroup takes over processes that StartAll started (and found healthy);
// a restarted service logs to the same file as before.
func NewGroup(procs []*Process, policy Policy, log *slog.Logger) *Group {
	g := &Group{policy: policy, log: log}
	now := time.Now()
	for _, p := range procs {
		svc, logDir := p.Service, filepath.Dir(p.LogPath())
		// devstack lets go of the listening sockets it handed down once
		// the stack is up, so that a crashed service's port refuses
		// connections (and the gateway sends them to another replica at
		// once) instead of queueing them for the restart, or for ever in
		// a crash loop. A restart gets the sockets keep reserved for it.
		svc.Files, svc.FilesEnv = nil, nil
		g.members = append(g.members, &member{
			name: svc.Name,
			launch: func(reserved *listenfd.Held) (instance, error) {
				run := svc
				if files, env := reserved.Pass(svc.Listens); env != "" {
					run.Files, run.FilesEnv = files, []string{env}
				}
				return Start(run, logDir)
			},
			listens: svc.Listens,
			cur:     p,
			readyAt: now,
		})
	}
	return g
}

// Run watches every service until ctx ends or Stop is called (it then
// returns nil), or until one of them crashes more often than the policy
// allows (it then returns an error wrapping ErrCrashLoop, with that
// service's last log lines). A crashed service is started again after the
// policy's delay and counts as healthy once its health endpoint answers;
// the database and the other services are left alone meanwhile. Run starts
// nothing after it returns, and stops nothing either: the caller ends the
// services with Stop.
func (g *Group) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, m := range g.members {
		wg.Go(func() {
			if err := g.keep(ctx, m); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				cancel() // the others stop watching too
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Stop ends every service in reverse start order (SIGTERM, then SIGKILL of
// its process group after grace) and keeps them from being restarted.
func (g *Group) Stop(grace time.Duration) []error {
	g.mu.Lock()
	g.stopping = true
	current := make([]instance, len(g.members))
	for i, m := range g.members {
		current[i] = m.cur
	}
	g.mu.Unlock()
	var errs []error
	for i := len(current) - 1; i >= 0; i-- {
		if err := current[i].Stop(grace); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func (g *Group) isStopping() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopping
}

// keep restarts m each time its current run exits, until ctx ends, Stop is
// called, or the policy gives up (the returned error).
func (g *Group) keep(ctx context.Context, m *member) error {
	g.mu.Lock()
	inst := m.cur
	g.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-inst.Exited():
		}
		if ctx.Err() != nil || g.isStopping() {
			return nil
		}
		crashed := time.Now()
		// At once, before the delay: until a service binds its port, an
		// outgoing connection may be given that port as its local one
		// (54321, 54324 and 54325 lie in Linux's ephemeral range), and the
		// restart would then fail on it.
		reserved, err := listenfd.Reserve(m.listens)
		if err != nil {
			g.log.Warn("could not keep a crashed service's port for its restart; the restart binds it", "child", m.name, "err", err)
		}
		var uptime time.Duration
		if !m.readyAt.IsZero() {
			uptime = crashed.Sub(m.readyAt)
		}
		v := g.policy.decide(&m.crashes, crashed, uptime)
		if v.giveUp {
			reserved.Close()
			g.log.Error("service keeps crashing; giving up and stopping the stack", "child", m.name, "pid", inst.PID(),
				"exit", inst.ExitStatus(), "crashes", v.recent, "window", g.policy.Window.String(), "log", inst.LogPath())
			return fmt.Errorf("%w: %s exited %d times within %v, the last time with %s; its log (%s) ends with:\n%s",
				ErrCrashLoop, m.name, v.recent, g.policy.Window, inst.ExitStatus(), inst.LogPath(), inst.Tail(20))
		}
		m.restarts++
		g.log.Warn("service exited unexpectedly; restarting", "child", m.name, "pid", inst.PID(),
			"exit", inst.ExitStatus(), "uptime", uptime.Round(time.Millisecond).String(),
			"restart", m.restarts, "crashes", v.recent, "delay", v.delay.String(), "log", inst.LogPath())
		select {
		case <-ctx.Done():
			reserved.Close()
			return nil
		case <-time.After(v.delay):
		}
		next, err := g.relaunch(ctx, m, reserved)
		if ctx.Err() != nil || g.isStopping() {
			return nil
		}
		if err != nil {
			g.log.Warn("restarted service did not become ready", "child", m.name, "restart", m.restarts, "err", err)
		} else {
			g.log.Info("service restarted and ready", "child", m.name, "pid", next.PID(), "restart", m.restarts,
				"took", time.Since(crashed).Round(time.Millisecond).String())
		}
		inst = next
	}
}

// relaunch starts m again, handing it the sockets reserved for it, and
// waits for its health. The instance it returns has exited (or been
// stopped) whenever err is not nil, so keep's next wait sees it as the next
// crash. reserved is closed once the child has its copies: if the restart
// dies too, its port must refuse connections, not queue them.
func (g *Group) relaunch(ctx context.Context, m *member, reserved *listenfd.Held) (instance, error) {
	defer reserved.Close()
	g.mu.Lock()
	if g.stopping {
		g.mu.Unlock()
		return nil, errStopping
	}
	inst, err := m.launch(reserved)
	reserved.Close()
	if err != nil {
		g.mu.Unlock()
		return failedStart{err: err}, err
	}
	m.cur, m.readyAt = inst, time.Time{}
	g.mu.Unlock()

	readyCtx, cancel := context.WithTimeout(ctx, g.policy.ReadyTimeout)
	defer cancel()
	if err := inst.WaitHealthy(readyCtx); err != nil {
		if ctx.Err() == nil && !g.isStopping() {
			_ = inst.Stop(restartStopGrace)
		}
		return inst, err
	}
	m.readyAt = time.Now()
	return inst, nil
}

// failedStart stands for a run that could not even be started (the binary
// is missing, say): it has already exited.
type failedStart struct{ err error }

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (f failedStart) Exited() <-chan struct{}           { return closedChan }
func (f failedStart) ExitStatus() string                { return "not started: " + f.err.Error() }
func (f failedStart) WaitHealthy(context.Context) error { return f.err }
func (f failedStart) Stop(time.Duration) error          { return nil }
func (f failedStart) PID() int                          { return 0 }
func (f failedStart) Tail(int) string                   { return "" }
func (f failedStart) LogPath() string                   { return "" }
