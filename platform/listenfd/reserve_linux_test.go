package listenfd

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A reserved port (a crashed service's, until its restart) refuses
// connections at once, as a free port does, yet is taken for any bind
// that does not share it, which is how connect() picks a local port; the
// child handed the socket listens on it and serves. devstack closes its
// copy once the child has started, so after the child ends nothing
// listens on the port, until the next crash reserves it again.
func TestReserve(t *testing.T) {
	addr := freeAddr(t, "127.0.0.1")
	for round := range 2 {
		h, err := Reserve([]string{addr, addr})
		if err != nil || len(h.Addrs()) != 1 {
			t.Fatalf("round %d: Reserve = %v, %v", round, h.Addrs(), err)
		}
		if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
			c.Close()
			t.Fatalf("round %d: a reserved port accepted a connection", round)
		} else if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("round %d: connecting to a reserved port: %v, want connection refused", round, err)
		}
		if err := bindUnshared(addr); !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("round %d: binding a reserved port: %v, want address already in use", round, err)
		}
		files, env := h.Pass([]string{addr})
		runChild(t, addr, files, env, h.Close)
		if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
			c.Close()
			t.Fatalf("round %d: the port accepted a connection after the child ended", round)
		}
	}
}

// Reserve leaves out what it cannot bind, and says why.
func TestReserveLeavesOut(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	h, err := Reserve([]string{busy.Addr().String(), "localhost:80"})
	defer h.Close()
	if len(h.Addrs()) != 0 || err == nil || !strings.Contains(err.Error(), busy.Addr().String()) ||
		!errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), "localhost:80: not an IP address") {
		t.Fatalf("Reserve of a listening port and a host name = %v, %v", h.Addrs(), err)
	}
}

// bindUnshared binds addr (IPv4) without SO_REUSEADDR, as the kernel
// checks a local port for an outgoing connection: any bound socket on the
// port refuses it.
func bindUnshared(addr string) error {
	ap := netip.MustParseAddrPort(addr)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Bind(fd, &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
}

// Reserve takes every form of address Hold takes: IPv6 and the wildcards
// (a dual-stack socket, as Go's), and the child serves on each.
func TestReserveAddressForms(t *testing.T) {
	for _, host := range []string{"[::1]", "0.0.0.0", "[::]"} {
		t.Run(host, func(t *testing.T) {
			addr := freeAddr(t, host)
			h, err := Reserve([]string{addr})
			if err != nil || len(h.Addrs()) != 1 {
				t.Fatalf("Reserve(%s) = %v, %v", addr, h.Addrs(), err)
			}
			files, env := h.Pass([]string{addr})
			runChild(t, addr, files, env, h.Close)
		})
	}
}
