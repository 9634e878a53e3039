package pgcluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// The pool FreePort draws from: above the well-known and registered ports
// our services and the machine's own (PostgreSQL, Redis, RabbitMQ…) use by
// default, below the kernel's ephemeral range.
const (
	poolLow         = 10000
	defaultPoolHigh = 32768 // Linux's default ip_local_port_range starts here
	minPoolSize     = 1000
	freePortTries   = 64
)

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now.
//
// A probed port is not reserved: it stays free only until someone else
// binds it. The kernel's own choice (port 0) comes from the ephemeral range,
// which it also hands to every outgoing connection, so a stack's many
// client sockets could take a port between the probe and the service's
// bind. The port is therefore drawn at random from below that range, where
// only another listener could take it, and it would have to draw the same
// port. When the range leaves no room below it, the kernel chooses.
func FreePort() (int, error) {
	if hi, ok := poolHigh(readPortRange()); ok {
		for range freePortTries {
			p := poolLow + rand.IntN(hi-poolLow)
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
				_ = l.Close()
				return p, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// readPortRange is the kernel's ephemeral port range as its proc file
// writes it ("32768\t60999\n"), or "" where there is none (not Linux).
func readPortRange() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return ""
	}
	return string(b)
}

// poolHigh is the exclusive upper end of FreePort's pool for an ephemeral
// range written as "low high": the range's start, or defaultPoolHigh when
// the range is unknown. ok is false when fewer than minPoolSize ports lie
// between poolLow and the range.
func poolHigh(portRange string) (hi int, ok bool) {
	fields := strings.Fields(portRange)
	if len(fields) != 2 {
		return defaultPoolHigh, true
	}
	start, err := strconv.Atoi(fields[0])
	if err != nil {
		return defaultPoolHigh, true
	}
	if start-poolLow < minPoolSize {
		return 0, false
	}
	return start, true
}
