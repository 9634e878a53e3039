package supervise

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the child process: with SUPERVISE_HELPER set it
// becomes a tiny service that answers /health (or misbehaves on request).
func TestMain(m *testing.M) {
	switch os.Getenv("SUPERVISE_HELPER") {
	case "":
		os.Exit(m.Run())
	case "serve":
		fmt.Println("helper starting")
		l, err := net.Listen("tcp", os.Getenv("ADDR"))
		if err != nil {
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

func TestStopKillsAfterGrace(t *testing.T) {
	t.Parallel()
	p, err := Start(Service{Name: "stubborn", Binary: os.Args[0], Env: []string{"SUPERVISE_HELPER=stubborn"}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let it install its signal handler
	began := time.Now()
	if err := p.Stop(300 * time.Millisecond); err == nil {
		t.Error("want an error saying the process was killed")
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("stop took %v", d)
	}
}
