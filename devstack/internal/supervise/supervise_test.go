package supervise

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/listenfd"
)

// The test binary doubles as the child process: with SUPERVISE_HELPER set it
// becomes a tiny service that answers /health (or misbehaves on request).
func TestMain(m *testing.M) {
	switch os.Getenv("SUPERVISE_HELPER") {
	case "":
		os.Exit(m.Run())
	case "serve":
		fmt.Println("helper starting")
		// As every service does: the socket handed down, if any.
		l, err := listenfd.Listen(context.Background(), os.Getenv("ADDR"))
		if os.Getenv(listenfd.Env) != "" {
			fmt.Println("serving on the inherited socket")
		}
		if err != nil {
			fmt.Println("fatal:", err)
			os.Exit(3)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })}
		go func() { _ = srv.Serve(l) }()
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		<-sig
		fmt.Println("helper stopping")
		os.Exit(0)
	case "crash":
		fmt.Println("fatal: cannot start")
		os.Exit(1)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ignoring SIGTERM")
		time.Sleep(time.Minute)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestStartAllHealthyThenStop(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	svc := Service{Name: "helper", Binary: os.Args[0], Env: []string{"SUPERVISE_HELPER=serve", "ADDR=" + addr}, HealthURL: "http://" + addr + "/health"}
	procs, err := StartAll(context.Background(), []Service{svc}, t.TempDir(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if errs := StopAll(procs, 5*time.Second); len(errs) != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(procs[0].Tail(5), "helper stopping") {
		t.Errorf("child did not shut down gracefully; log:\n%s", procs[0].Tail(5))
	}
}

func TestStartAllReportsACrash(t *testing.T) {
	t.Parallel()
	svc := Service{Name: "broken", Binary: os.Args[0], Env: []string{"SUPERVISE_HELPER=crash"}, HealthURL: "http://" + freeAddr(t) + "/health"}
	_, err := StartAll(context.Background(), []Service{svc}, t.TempDir(), 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited during start-up") || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("want the crash and its log in the error, got %v", err)
	}
}

// A port picked for a test stack can be bound first by another stack's
// service, which then answers the health check while the child fails to
// bind: that is a failed start, reported with the child's log, never a
// healthy service.
func TestStartAllRefusesAnAnswerFromAnotherProcess(t *testing.T) {
	t.Parallel()
	if !canCheckOwner {
		t.Skip("no /proc: the owner of a port is unknown here")
	}
	squatter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = http.Serve(squatter, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	}()
	defer squatter.Close()
	addr := squatter.Addr().String()
	svc := Service{Name: "late", Binary: os.Args[0], Env: []string{"SUPERVISE_HELPER=serve", "ADDR=" + addr}, HealthURL: "http://" + addr + "/health"}
	procs, err := StartAll(context.Background(), []Service{svc}, t.TempDir(), 10*time.Second)
	if err == nil {
		StopAll(procs, 5*time.Second)
		t.Fatal("StartAll took the squatter's answer for the child's")
	}
	if !strings.Contains(err.Error(), "exited during start-up") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("want the failed bind in the error (devstack retries on it), got %v", err)
	}
}

func TestListensOn(t *testing.T) {
	t.Parallel()
	if !canCheckOwner {
		t.Skip("no /proc: the owner of a port is unknown here")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	listening := ln.Addr().(*net.TCPAddr).Port
	// A connected socket on the listener's port is not a listener: only the
	// listening socket counts.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := conn.LocalAddr().(*net.TCPAddr).Port
	free := freeAddr(t)
	_, freePort, _ := net.SplitHostPort(free)
	unused, _ := strconv.Atoi(freePort)

	for _, tc := range []struct {
		name string
		pid  int
		port int
		want bool
	}{
		{"our listener", os.Getpid(), listening, true},
		{"our listener, another process", os.Getppid(), listening, false},
		{"the client end of a connection", os.Getpid(), client, false},
		{"a port nobody listens on", os.Getpid(), unused, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := listensOn(tc.pid, tc.port)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("listensOn(%d, %d) = %v, want %v", tc.pid, tc.port, got, tc.want)
			}
		})
	}
}

func TestStopKillsAfterGrace(t *testing.T) {
	t.Parallel()
	p, err := Start(Service{Name: "stubborn", Binary: os.Args[0], Env: []string{"SUPERVISE_HELPER=stubborn"}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A race-built test binary can take over half a second to start on a
	// busy machine: wait until it says it ignores SIGTERM.
	waitFor(t, "the helper ignores SIGTERM", func() bool { return strings.Contains(p.Tail(1), "ignoring SIGTERM") })
	began := time.Now()
	if err := p.Stop(300 * time.Millisecond); err == nil {
		t.Error("want an error saying the process was killed")
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("stop took %v", d)
	}
}

func TestGroupRestartsAKilledProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ inherits, reserves bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		t.Run(fmt.Sprintf("inherits a socket %v, reserves %v", tc.inherits, tc.reserves), func(t *testing.T) {
			t.Parallel()
			restartKilled(t, tc.inherits, tc.reserves)
		})
	}
}

// restartKilled starts a helper, kills it and waits for the group to start
// it again. With inherits, the first start serves on a socket the test
// bound and hands down (Service.Files, as devstack does), which the test
// then lets go of: the restart must not get those files or their
// environment again. With reserves, the service names its address
// (Service.Listens, as devstack does), and the restart serves on the
// socket reserved for it (that a reserved port is bound is listenfd's
// TestReserve); without, the restart binds the port itself. Either way
// the port refuses connections while the helper is down.
func restartKilled(t *testing.T, inherits, reserves bool) {
	addr := freeAddr(t)
	svc := Service{Name: "helper", Binary: os.Args[0], Env: []string{"SUPERVISE_HELPER=serve", "ADDR=" + addr}, HealthURL: "http://" + addr + "/health"}
	if reserves {
		svc.Listens = []string{addr}
	}
	var held *listenfd.Held
	if inherits {
		var err error
		if held, err = listenfd.Hold([]string{addr}); err != nil {
			t.Fatal(err)
		}
		files, env := held.Pass([]string{addr})
		svc.Files, svc.FilesEnv = files, []string{env}
	}
	procs, err := StartAll(context.Background(), []Service{svc}, t.TempDir(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if inherits {
		held.Close()
		if !strings.Contains(procs[0].Tail(5), "serving on the inherited socket") {
			t.Fatalf("the first start did not serve on the socket handed down:\n%s", procs[0].Tail(5))
		}
	}
	logs := &logRecorder{}
	// Long enough to look at the port between the crash and the restart.
	g := NewGroup(procs, Policy{FirstDelay: time.Second, MaxDelay: time.Second, StableAfter: time.Minute,
		MaxCrashes: 3, Window: time.Minute, ReadyTimeout: 10 * time.Second}, slog.New(logs))
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- g.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-result; err != nil {
			t.Errorf("Run() = %v", err)
		}
		if errs := g.Stop(5 * time.Second); len(errs) != 0 {
			t.Error(errs)
		}
	}()

	killed := time.Now()
	if err := syscall.Kill(procs[0].PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the helper's exit is seen", func() bool { return len(logs.values(restarting, "exit")) == 1 })
	if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
		c.Close()
		t.Fatal("the crashed helper's port accepted a connection")
	}
	waitFor(t, "the helper is restarted and ready", func() bool {
		return len(logs.values("service restarted and ready", "child")) == 1
	})
	t.Logf("killed to ready again: %v", time.Since(killed))
	if got := logs.values(restarting, "exit"); len(got) != 1 || got[0] != "signal: killed" {
		t.Errorf("logged exit %v, want [signal: killed]", got)
	}
	resp, err := http.Get(svc.HealthURL)
	if err != nil {
		t.Fatalf("restarted helper does not answer: %v", err)
	}
	resp.Body.Close()
	if pids := logs.values("service restarted and ready", "pid"); pids[0] == strconv.Itoa(procs[0].PID()) {
		t.Errorf("the restarted helper has the old pid %s", pids[0])
	}
	want := 0
	if inherits {
		want++
	}
	if reserves {
		want++
	}
	if got := strings.Count(procs[0].Tail(20), "serving on the inherited socket"); got != want {
		t.Errorf("runs on a socket handed down: %d, want %d\n%s", got, want, procs[0].Tail(20))
	}
}
