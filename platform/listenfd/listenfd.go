// Package listenfd hands listening sockets from a supervisor to the
// services it starts, so that a service serves on a socket its supervisor
// bound instead of binding its own.
//
// Why: devstack (`make run`) serves on fixed ports, and some of them are
// Supabase's (the gateway's 54321, the mailbox's 54324 and 54325), which lie
// inside Linux's ephemeral range (32768–60999). Until a service binds its
// port, any outgoing connection on the machine (devstack's own to
// PostgreSQL, a service's pool, a test's client) may be given that port as
// its local one, and the service then fails with "address already in use".
// A bound port is never handed out that way, so devstack binds every port
// before it does anything else, and each child serves on the socket it is
// handed: there is no moment in which the port is free. When a child
// dies, devstack binds its ports again at once without listening
// (Reserve), so they refuse connections while it is down, and the restart
// listens on those sockets.
//
// The protocol is systemd's socket activation in spirit (the descriptors
// follow stdin, stdout and stderr), with the sockets named by address in
// one variable, Env, because os/exec cannot give a child its own pid in
// LISTEN_PID.
package listenfd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Env is the variable that names the inherited sockets: comma-separated
// address=descriptor pairs, such as "127.0.0.1:54321=3,[::1]:54321=4".
const Env = "KEJANEST_LISTEN_FDS"

// firstFD is the descriptor of a child's first extra file (os/exec's
// ExtraFiles start after stdin, stdout and stderr).
const firstFD = 3

// Listen returns a TCP listener on addr: the socket the environment's Env
// names for addr if there is one, else a socket of its own.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	ln, err := inherited(os.Getenv(Env), addr)
	if ln != nil || err != nil {
		return ln, err
	}
	var lc net.ListenConfig
	return lc.Listen(ctx, "tcp", addr)
}

// inherited returns the listener spec names for addr, nil if it names
// none. A descriptor that is not a socket listening on addr is an error,
// never silently replaced by a new socket: the supervisor holds the port,
// so binding it again could only fail.
func inherited(spec, addr string) (net.Listener, error) {
	if spec == "" {
		return nil, nil
	}
	for pair := range strings.SplitSeq(spec, ",") {
		i := strings.LastIndexByte(pair, '=')
		if i < 0 {
			return nil, fmt.Errorf("%s: %q is not address=descriptor", Env, pair)
		}
		if !sameAddr(pair[:i], addr) {
			continue
		}
		fd, err := strconv.Atoi(pair[i+1:])
		if err != nil || fd < firstFD {
			return nil, fmt.Errorf("%s: %q is not a descriptor for %s", Env, pair[i+1:], addr)
		}
		// A socket reserved for a restart (Reserve) is bound, not yet
		// listening.
		if err := startListening(fd); err != nil {
			return nil, fmt.Errorf("inherited socket %d for %s: listen: %w", fd, addr, err)
		}
		f := os.NewFile(uintptr(fd), addr)
		ln, err := net.FileListener(f)
		// FileListener works on a copy of the descriptor.
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("inherited socket %d for %s: %w", fd, addr, err)
		}
		if !sameAddr(ln.Addr().String(), addr) {
			ln.Close()
			return nil, fmt.Errorf("inherited socket %d for %s listens on %s", fd, addr, ln.Addr())
		}
		return ln, nil
	}
	return nil, nil
}

// sameAddr compares two addresses as IP and port where both are written
// that way ("[::1]:80" and "[0:0::1]:80" are one), else as text. The two
// wildcards are one too: Go listens on "0.0.0.0:80" with a dual-stack
// socket, whose address reads "[::]:80".
func sameAddr(a, b string) bool {
	pa, errA := netip.ParseAddrPort(a)
	pb, errB := netip.ParseAddrPort(b)
	if errA == nil && errB == nil {
		if pa.Addr().IsUnspecified() && pb.Addr().IsUnspecified() {
			return pa.Port() == pb.Port()
		}
		return pa == pb
	}
	return a == b
}

// Held is a set of bound sockets kept for children not yet started:
// listening (Hold) or only bound (Reserve). The zero value holds nothing.
type Held struct {
	files map[string]*os.File // by address, as Hold was given it
}

// Hold binds and listens on every address. An IPv6 address the machine
// does not have is left out (as the gateway leaves it out when it binds
// for itself); any other failure closes what was bound and is returned,
// naming the address.
func Hold(addrs []string) (*Held, error) {
	h := &Held{files: make(map[string]*os.File, len(addrs))}
	for _, a := range addrs {
		if _, ok := h.files[a]; ok {
			continue
		}
		f, err := bind(a)
		if err != nil {
			if IsIPv6(a) && (errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT)) {
				continue
			}
			h.Close()
			return nil, err
		}
		h.files[a] = f
	}
	return h, nil
}

// Reserve binds every address it can without listening on it, for a
// service that is about to be started again: while it is down its ports
// refuse connections, as free ports do (the gateway sends them to another
// replica at once), yet no outgoing connection can be given one of them
// as its local port. The restart inherits the sockets (Pass) and listens
// on them (Listen). An address that cannot be reserved (taken in the
// moment since the service died, not an IP address) is left out, and
// the error names it; the restart then binds that one for itself.
func Reserve(addrs []string) (*Held, error) {
	h := &Held{files: make(map[string]*os.File, len(addrs))}
	var errs []error
	for _, a := range addrs {
		if _, ok := h.files[a]; ok {
			continue
		}
		f, err := reserve(a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		h.files[a] = f
	}
	return h, errors.Join(errs...)
}

// bind listens on addr and returns the socket as a file; the listener
// itself is closed, the file keeps the socket open.
func bind(addr string) (*os.File, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err // "listen tcp <addr>: bind: address already in use"
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return f, nil
}

// Pass returns what a child serving on addrs inherits: the held sockets
// among them, as the child's extra files (os/exec.Cmd.ExtraFiles), and the
// Env entry naming them, "" when none is held. A nil Held passes nothing.
func (h *Held) Pass(addrs []string) (files []*os.File, env string) {
	if h == nil {
		return nil, ""
	}
	var pairs []string
	for _, a := range addrs {
		f, ok := h.files[a]
		if !ok {
			continue
		}
		pairs = append(pairs, a+"="+strconv.Itoa(firstFD+len(files)))
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, ""
	}
	return files, Env + "=" + strings.Join(pairs, ",")
}

// Addrs lists the held addresses, in no order.
func (h *Held) Addrs() []string {
	if h == nil {
		return nil
	}
	out := make([]string, 0, len(h.files))
	for a := range h.files {
		out = append(out, a)
	}
	return out
}

// Close closes every held socket. A child that inherited one keeps its
// copy.
func (h *Held) Close() {
	if h == nil {
		return
	}
	for a, f := range h.files {
		f.Close()
		delete(h.files, a)
	}
}

// IsIPv6 reports whether addr is an IPv6 address and port ("[::1]:80"),
// which a host without IPv6 cannot open: Hold leaves such an address out,
// as the gateway does when it binds for itself.
func IsIPv6(addr string) bool {
	ap, err := netip.ParseAddrPort(addr)
	return err == nil && ap.Addr().Is6() && !ap.Addr().Is4In6()
}
