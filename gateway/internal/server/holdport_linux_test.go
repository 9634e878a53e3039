//go:build linux

package server

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// heldPort is a dead replica's port, still bound but not listening:
// connections to it are refused, as they are to a replica that has
// stopped, and no parallel test's server can be given the port meanwhile,
// because the kernel's choice of a free port skips bound ones. (A closed
// port could be handed to another test's server, which would then answer
// for the dead replica.)
type heldPort struct{ fd int }

// holdPort binds addr's port again once its listener has closed.
// SO_REUSEADDR lets it bind past the connections still in TIME_WAIT.
func holdPort(addr *net.TCPAddr) (*heldPort, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("SO_REUSEADDR: %w", err)
	}
	sa := &syscall.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	if err := syscall.Bind(fd, sa); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("bind %s: %w", addr, err)
	}
	return &heldPort{fd: fd}, nil
}

// listen turns the held socket into the replica's listener again, on the
// same port; the heldPort is used up either way.
func (h *heldPort) listen() (net.Listener, error) {
	if err := syscall.Listen(h.fd, syscall.SOMAXCONN); err != nil {
		h.close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	f := os.NewFile(uintptr(h.fd), "replica")
	defer f.Close() // FileListener holds a duplicate
	return net.FileListener(f)
}

func (h *heldPort) close() { _ = syscall.Close(h.fd) }
