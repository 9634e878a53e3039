//go:build linux

package listenfd

import (
	"fmt"
	"net/netip"
	"os"
	"syscall"
)

// reserve binds a TCP socket to addr without listening on it. A bound port
// is never given to an outgoing connection, and with nobody listening a
// connection to it is refused at once, as to a free port. The family is
// the one Go's own listen would pick: an IPv4 or IPv6 address its own, a
// wildcard a dual-stack IPv6 socket where the host has IPv6.
func reserve(addr string) (*os.File, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("reserve %s: not an IP address and port", addr)
	}
	ip, port := ap.Addr().Unmap(), int(ap.Port())
	dual := ip.IsUnspecified()
	var (
		family int
		sa     syscall.Sockaddr
	)
	switch {
	case dual: // either wildcard: the IPv6 one, as Go's dual-stack socket
		family, sa = syscall.AF_INET6, &syscall.SockaddrInet6{Port: port}
	case ip.Is6():
		family, sa = syscall.AF_INET6, &syscall.SockaddrInet6{Port: port, Addr: ip.As16()}
	default:
		family, sa = syscall.AF_INET, &syscall.SockaddrInet4{Port: port, Addr: ip.As4()}
	}
	fd, err := socket(family)
	if err != nil && dual {
		// No IPv6 on this host: the IPv4 wildcard alone, as Go falls back.
		dual, family, sa = false, syscall.AF_INET, &syscall.SockaddrInet4{Port: port}
		fd, err = socket(family)
	}
	if err != nil {
		return nil, fmt.Errorf("reserve %s: socket: %w", addr, err)
	}
	// SO_REUSEADDR as Go's listeners set it, so that the child's listen on
	// this socket is not refused for connections of the crashed run still
	// in TIME_WAIT.
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("reserve %s: %w", addr, err)
	}
	if dual {
		if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 0); err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf("reserve %s: %w", addr, err)
		}
	}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("reserve %s: bind: %w", addr, err)
	}
	return os.NewFile(uintptr(fd), addr), nil
}

// socket opens a TCP socket closed on exec: only the child it is handed
// to (os/exec's ExtraFiles) inherits it.
func socket(family int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, syscall.IPPROTO_TCP)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	return fd, err
}

// maxBacklog asks for the longest accept queue; the kernel cuts it to its
// limit (net.core.somaxconn on Linux), which is what Go's own listen asks
// for.
const maxBacklog = 1<<16 - 1

// startListening makes a socket bound by reserve listen. A socket that
// listens already, or is no socket at all, is left as it is: the caller's
// checks say what it is.
func startListening(fd int) error {
	if on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN); err != nil || on != 0 {
		return nil
	}
	return syscall.Listen(fd, maxBacklog)
}
