//go:build !linux

package server

import "net"

// heldPort stands for a dead replica's port. Elsewhere than Linux the port
// is simply left closed (and could, rarely, be taken by a parallel test's
// server before the replica listens again).
type heldPort struct{ addr *net.TCPAddr }

func holdPort(addr *net.TCPAddr) (*heldPort, error) { return &heldPort{addr: addr}, nil }

func (h *heldPort) listen() (net.Listener, error) { return net.Listen("tcp", h.addr.String()) }

func (h *heldPort) close() {}
