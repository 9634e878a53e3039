package pgcluster

import (
	"fmt"
	"net"
)

// FreePort asks the kernel for a TCP port on 127.0.0.1 that nothing listens
// on now. The port is not reserved: it stays free only until someone binds
// it, an outgoing connection included (the kernel hands the same ephemeral
// range to both). A caller that binds later must be ready to pick again;
// devstack -ephemeral does.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
