package supervise

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/listenfd"
)

// fakeRun is one run of a fake service. Its mode says how it behaves when
// the Group waits for its health: "ready" answers at once, "dies" exits
// during start-up, "hangs" never answers.
type fakeRun struct {
	mode   string
	pid    int
	exited chan struct{}
	once   sync.Once

	mu      sync.Mutex
	status  string
	stopped bool
}

func (r *fakeRun) exit(status string) {
	r.once.Do(func() {
		r.mu.Lock()
		r.status = status
		r.mu.Unlock()
		close(r.exited)
	})
}

func (r *fakeRun) Exited() <-chan struct{} { return r.exited }
func (r *fakeRun) PID() int                { return r.pid }
func (r *fakeRun) Tail(int) string         { return "  | fake log" }
func (r *fakeRun) LogPath() string         { return "fake.log" }

func (r *fakeRun) ExitStatus() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func (r *fakeRun) WaitHealthy(ctx context.Context) error {
	switch r.mode {
	case "ready":
		return nil
	case "dies":
		r.exit("exit status 1")
		return errors.New("exited during start-up")
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-r.exited:
		return errors.New("exited during start-up")
	}
}

func (r *fakeRun) Stop(time.Duration) error {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.exit("signal: terminated")
	return nil
}

func (r *fakeRun) wasStopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// fakeService launches fakeRuns following a script: the modes of its
// successive restarts ("fail" refuses to start), the last one repeating.
type fakeService struct {
	name   string
	script []string

	mu       sync.Mutex
	attempts int
	runs     []*fakeRun // runs[0] is the run the Group took over
}

func newFakeService(name string, script ...string) *fakeService {
	s := &fakeService{name: name, script: script}
	s.runs = []*fakeRun{{mode: "ready", pid: 1, exited: make(chan struct{})}}
	return s
}

func (s *fakeService) launch(*listenfd.Held) (instance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mode := s.script[min(s.attempts, len(s.script)-1)]
	s.attempts++
	if mode == "fail" {
		return nil, errors.New("fork/exec: no such file or directory")
	}
	r := &fakeRun{mode: mode, pid: 1 + s.attempts, exited: make(chan struct{})}
	s.runs = append(s.runs, r)
	return r, nil
}

func (s *fakeService) state() (attempts int, runs []*fakeRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts, slices.Clone(s.runs)
}

// live reports whether the newest run became ready and is still running.
func (s *fakeService) live() bool {
	_, runs := s.state()
	last := runs[len(runs)-1]
	select {
	case <-last.exited:
		return false
	default:
		return last.mode == "ready"
	}
}

func fakeGroup(policy Policy, log *slog.Logger, svcs ...*fakeService) *Group {
	g := &Group{policy: policy, log: log}
	for _, s := range svcs {
		g.members = append(g.members, &member{name: s.name, launch: s.launch, cur: s.runs[0], readyAt: time.Now()})
	}
	return g
}

// logRecorder is a slog.Handler that keeps every record's message and
// attributes.
type logRecorder struct {
	mu      sync.Mutex
	records []map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecorder) WithGroup(string) slog.Handler            { return h }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := map[string]string{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool { rec[a.Key] = a.Value.String(); return true })
	h.mu.Lock()
	h.records = append(h.records, rec)
	h.mu.Unlock()
	return nil
}

// values returns attribute key of every record with message msg.
func (h *logRecorder) values(msg, key string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		if r["msg"] == msg {
			out = append(out, r[key])
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

const restarting = "service exited unexpectedly; restarting"

func TestGroupRestartsACrashedService(t *testing.T) {
	t.Parallel()
	quick := Policy{FirstDelay: time.Millisecond, MaxDelay: 8 * time.Millisecond, StableAfter: time.Hour,
		MaxCrashes: 10, Window: time.Hour, ReadyTimeout: 5 * time.Second}
	tests := []struct {
		name         string
		policy       Policy
		script       []string // how the crashed service's restarts behave
		wantAttempts int      // starts of the crashed service after its crash
		wantDelays   []string // logged wait before each restart
		wantErr      string   // set when the Group must give up
	}{
		{name: "restarted once", policy: quick, script: []string{"ready"},
			wantAttempts: 1, wantDelays: []string{"1ms"}},
		{name: "dies during start-up twice, then comes up", policy: quick, script: []string{"dies", "dies", "ready"},
			wantAttempts: 3, wantDelays: []string{"1ms", "2ms", "4ms"}},
		{name: "the delay stops doubling at the cap", policy: quick, script: []string{"dies", "dies", "dies", "dies", "dies", "ready"},
			wantAttempts: 6, wantDelays: []string{"1ms", "2ms", "4ms", "8ms", "8ms", "8ms"}},
		{name: "a binary that cannot start counts as a crash", policy: quick, script: []string{"fail", "ready"},
			wantAttempts: 2, wantDelays: []string{"1ms", "2ms"}},
		{name: "a restart that never gets ready is stopped and tried again",
			policy: Policy{FirstDelay: time.Millisecond, MaxDelay: time.Second, StableAfter: time.Hour, MaxCrashes: 10,
				Window: time.Hour, ReadyTimeout: 20 * time.Millisecond},
			script: []string{"hangs", "ready"}, wantAttempts: 2, wantDelays: []string{"1ms", "2ms"}},
		{name: "a crash loop gives up",
			policy: Policy{FirstDelay: time.Millisecond, MaxDelay: time.Second, StableAfter: time.Hour, MaxCrashes: 2,
				Window: time.Hour, ReadyTimeout: time.Second},
			script: []string{"dies"}, wantAttempts: 2, wantDelays: []string{"1ms", "2ms"},
			wantErr: "api exited 3 times within 1h0m0s, the last time with exit status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &logRecorder{}
			api, other := newFakeService("api", tt.script...), newFakeService("other", "ready")
			g := fakeGroup(tt.policy, slog.New(logs), api, other)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			result := make(chan error, 1)
			go func() { result <- g.Run(ctx) }()

			api.runs[0].exit("signal: killed")
			if tt.wantErr != "" {
				select {
				case err := <-result:
					if !errors.Is(err, ErrCrashLoop) || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("Run() = %v, want ErrCrashLoop with %q", err, tt.wantErr)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Run did not give up")
				}
			} else {
				waitFor(t, "the crashed service is up again", func() bool {
					attempts, _ := api.state()
					return attempts == tt.wantAttempts && api.live() &&
						len(logs.values("service restarted and ready", "child")) == 1
				})
				cancel()
				if err := <-result; err != nil {
					t.Fatalf("Run() = %v after cancel, want nil", err)
				}
			}

			if attempts, _ := api.state(); attempts != tt.wantAttempts {
				t.Errorf("api was started %d times after its crash, want %d", attempts, tt.wantAttempts)
			}
			if got := logs.values(restarting, "delay"); !slices.Equal(got, tt.wantDelays) {
				t.Errorf("logged delays %v, want %v", got, tt.wantDelays)
			}
			if got := logs.values(restarting, "exit"); len(got) == 0 || got[0] != "signal: killed" {
				t.Errorf("first restart logged exit %v, want signal: killed first", got)
			}
			wantCounts := make([]string, len(tt.wantDelays))
			for i := range wantCounts {
				wantCounts[i] = fmt.Sprint(i + 1)
			}
			if got := logs.values(restarting, "restart"); !slices.Equal(got, wantCounts) {
				t.Errorf("logged restart counts %v, want %v", got, wantCounts)
			}
			if children := logs.values(restarting, "child"); slices.ContainsFunc(children, func(c string) bool { return c != "api" }) {
				t.Errorf("restarts logged for %v, want only api", children)
			}
			if _, runs := api.state(); tt.name == "a restart that never gets ready is stopped and tried again" && !runs[1].wasStopped() {
				t.Error("the run that never got ready was left running")
			}
			if attempts, runs := other.state(); attempts != 0 || runs[0].wasStopped() {
				t.Errorf("the other service was touched: %d starts, stopped %v", attempts, runs[0].wasStopped())
			}
		})
	}
}

func TestGroupStopRestartsNothing(t *testing.T) {
	t.Parallel()
	logs := &logRecorder{}
	a, b := newFakeService("a", "ready"), newFakeService("b", "ready")
	g := fakeGroup(Policy{FirstDelay: time.Millisecond, MaxDelay: time.Millisecond, ReadyTimeout: time.Second}, slog.New(logs), a, b)
	result := make(chan error, 1)
	go func() { result <- g.Run(context.Background()) }()
	if errs := g.Stop(time.Second); len(errs) != 0 {
		t.Fatal(errs)
	}
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Run() = %v after Stop, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run kept going after Stop")
	}
	for _, s := range []*fakeService{a, b} {
		if attempts, runs := s.state(); attempts != 0 || !runs[0].wasStopped() {
			t.Errorf("%s: %d restarts, stopped %v; want 0 and true", s.name, attempts, runs[0].wasStopped())
		}
	}
	if got := logs.values(restarting, "child"); len(got) != 0 {
		t.Errorf("restarts logged after a requested stop: %v", got)
	}
}

func TestGroupCancelDuringBackoffIsPrompt(t *testing.T) {
	t.Parallel()
	logs := &logRecorder{}
	a := newFakeService("a", "ready")
	g := fakeGroup(Policy{FirstDelay: time.Hour, MaxDelay: time.Hour, ReadyTimeout: time.Second}, slog.New(logs), a)
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- g.Run(ctx) }()
	a.runs[0].exit("signal: killed")
	waitFor(t, "the crash is logged", func() bool { return len(logs.values(restarting, "child")) == 1 })
	began := time.Now()
	cancel()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Run() = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run waited out the backoff after its context ended")
	}
	if d := time.Since(began); d > time.Second {
		t.Errorf("Run took %v to return", d)
	}
	if attempts, _ := a.state(); attempts != 0 {
		t.Errorf("restarted %d times after the context ended", attempts)
	}
}

func TestGroupOneGiveUpEndsTheWholeRun(t *testing.T) {
	t.Parallel()
	a, b := newFakeService("a", "dies"), newFakeService("b", "ready")
	g := fakeGroup(Policy{FirstDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxCrashes: 1, Window: time.Hour,
		ReadyTimeout: time.Second}, slog.New(&logRecorder{}), a, b)
	result := make(chan error, 1)
	go func() { result <- g.Run(context.Background()) }()
	a.runs[0].exit("exit status 2")
	select {
	case err := <-result:
		if !errors.Is(err, ErrCrashLoop) {
			t.Fatalf("Run() = %v, want ErrCrashLoop", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after a give-up")
	}
	// The caller stops the rest, as devstack does.
	g.Stop(time.Second)
	if _, runs := b.state(); !runs[0].wasStopped() {
		t.Error("b still runs after Stop")
	}
}
