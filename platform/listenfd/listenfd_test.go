package listenfd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary act as a service that inherited a socket
// (TestMain), as devstack's children do.
const childEnv = "LISTENFD_TEST_CHILD_ADDR"

func TestMain(m *testing.M) {
	if addr := os.Getenv(childEnv); addr != "" {
		os.Exit(serveChild(addr))
	}
	os.Exit(m.Run())
}

// serveChild listens on addr through Listen and answers every request with
// its pid, until stdin closes.
func serveChild(addr string) int {
	ln, err := Listen(context.Background(), addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pid := strconv.Itoa(os.Getpid())
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, pid) }))
	}()
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

func TestSameAddr(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"127.0.0.1:54321", "127.0.0.1:54321", true},
		{"127.0.0.1:54321", "127.0.0.1:54322", false},
		{"[::1]:80", "[0:0::1]:80", true},
		{"[::1]:80", "127.0.0.1:80", false},
		{"localhost:80", "localhost:80", true},
		{"localhost:80", "127.0.0.1:80", false},
		{":80", "0.0.0.0:80", false},
		{"0.0.0.0:80", "[::]:80", true},
		{"0.0.0.0:80", "[::]:81", false},
		{"0.0.0.0:80", "127.0.0.1:80", false},
	} {
		if got := sameAddr(c.a, c.b); got != c.want {
			t.Errorf("sameAddr(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// socketFile listens on host and a port of its own (what Hold keeps for a
// child) and returns host with that port, and the socket as a file.
func socketFile(t *testing.T, host string) (string, *os.File) {
	t.Helper()
	h, err := Hold([]string{host + ":0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	f := h.files[host+":0"]
	ln, err := net.FileListener(f)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)), f
}

// dup copies f's descriptor: inherited closes the one it is given (its
// listener has a copy), as a child does with the one it inherits.
func dup(t *testing.T, f *os.File) int {
	t.Helper()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func TestInherited(t *testing.T) {
	addr, sock := socketFile(t, "127.0.0.1")
	other, otherSock := socketFile(t, "127.0.0.1")
	notSocket, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer notSocket.Close()
	for _, c := range []struct {
		name    string
		spec    func() string
		want    bool   // a listener on addr
		wantErr string // or an error holding this
	}{
		{"no variable", func() string { return "" }, false, ""},
		{"another address only", func() string { return fmt.Sprintf("%s=%d", other, dup(t, otherSock)) }, false, ""},
		{"the address", func() string { return fmt.Sprintf("%s=%d", addr, dup(t, sock)) }, true, ""},
		{"the address after another", func() string {
			return fmt.Sprintf("%s=%d,%s=%d", other, dup(t, otherSock), addr, dup(t, sock))
		}, true, ""},
		{"no descriptor", func() string { return addr }, false, "not address=descriptor"},
		{"a word for the descriptor", func() string { return addr + "=three" }, false, "not a descriptor"},
		{"stdin's descriptor", func() string { return addr + "=0" }, false, "not a descriptor"},
		{"a file that is no socket", func() string { return fmt.Sprintf("%s=%d", addr, dup(t, notSocket)) }, false, "inherited socket"},
		{"a socket on another address", func() string { return fmt.Sprintf("%s=%d", addr, dup(t, otherSock)) }, false, "listens on " + other},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := inherited(c.spec(), addr)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one holding %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.want {
				if ln != nil {
					ln.Close()
					t.Fatalf("a listener on %s, want none", ln.Addr())
				}
				return
			}
			if ln == nil {
				t.Fatal("no listener")
			}
			defer ln.Close()
			if got := ln.Addr().String(); got != addr {
				t.Fatalf("listener on %s, want %s", got, addr)
			}
			accepted := make(chan error, 1)
			go func() {
				conn, err := ln.Accept()
				if err == nil {
					conn.Close()
				}
				accepted <- err
			}()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
			if err := <-accepted; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestListenWithoutVariable(t *testing.T) {
	t.Setenv(Env, "")
	ln, err := Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

// TestHoldAndPass is devstack's use: the port is bound before the child
// exists, nobody else can bind it meanwhile, and the child serves on the
// very socket it inherits; a second child (a restart) inherits it again.
func TestHoldAndPass(t *testing.T) {
	addr := freeAddr(t, "127.0.0.1")
	h, err := Hold([]string{addr, addr, "[::1]:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if got := len(h.Addrs()); got != 1 && got != 2 { // [::1] only where the machine has IPv6
		t.Fatalf("held %v", h.Addrs())
	}
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Fatalf("%s could be bound while held", addr)
	} else if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("binding a held port: %v, want address already in use", err)
	}
	if _, err := Hold([]string{addr}); err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("holding a held port: %v, want an error naming %s", err, addr)
	}
	files, env := h.Pass([]string{"127.0.0.1:1", addr})
	if len(files) != 1 || env != fmt.Sprintf("%s=%s=3", Env, addr) {
		t.Fatalf("Pass = %d files, %q", len(files), env)
	}
	if files, env := h.Pass([]string{"127.0.0.1:1"}); files != nil || env != "" {
		t.Fatalf("Pass of nothing held = %v, %q", files, env)
	}
	if files, env := (*Held)(nil).Pass([]string{addr}); files != nil || env != "" {
		t.Fatalf("nil Pass = %v, %q", files, env)
	}

	for range 2 { // as a first start and a restart would
		runChild(t, addr, files, env, nil)
	}
}

// freeAddr returns host with a port nobody listens on just now; it skips
// the test where the machine has no such host (IPv6).
func freeAddr(t *testing.T, host string) string {
	t.Helper()
	probe, err := net.Listen("tcp", net.JoinHostPort(strings.Trim(host, "[]"), "0"))
	if err != nil && strings.Contains(host, ":") {
		t.Skipf("no %s here: %v", host, err)
	} else if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	_, port, _ := net.SplitHostPort(probe.Addr().String())
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// runChild starts the test binary as a child serving on addr through
// Listen, with files and env as Pass gives them, calls started (if any)
// once the child has its descriptors, checks that the child is the one
// answering on addr, and ends it.
func runChild(t *testing.T, addr string, files []*os.File, env string, started func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+addr, env)
	cmd.ExtraFiles = files
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if started != nil {
		started()
	}
	// A reserved socket refuses connections until the child listens.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
	}
	if body := get(t, "http://"+addr); body != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("answered by %q, want the child %d", body, cmd.Process.Pid)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
}

// get fetches url on a connection of its own and returns the body.
func get(t *testing.T, url string) string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(bufio.NewReader(resp.Body))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A service asked to listen on "0.0.0.0:P" takes the socket held for that
// address, although Go's dual-stack socket reads "[::]:P".
func TestInheritedWildcard(t *testing.T) {
	addr, sock := socketFile(t, "0.0.0.0")
	got, err := inherited(fmt.Sprintf("%s=%d", addr, dup(t, sock)), addr)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("no listener")
	}
	got.Close()
}

func TestIsIPv6(t *testing.T) {
	for _, c := range []struct {
		addr string
		want bool
	}{
		{"[::1]:54321", true},
		{"[::]:80", true},
		{"127.0.0.1:54321", false},
		{"0.0.0.0:80", false},
		{"[::ffff:127.0.0.1]:80", false}, // an IPv4 address written as IPv6
		{"localhost:80", false},
		{"::1", false}, // no port
	} {
		if got := IsIPv6(c.addr); got != c.want {
			t.Errorf("IsIPv6(%q) = %v, want %v", c.addr, got, c.want)
		}
	}
}
