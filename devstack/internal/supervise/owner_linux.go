package supervise

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// listensOn reports whether process pid holds a TCP socket listening on
// port: the port's listening sockets in /proc/net/tcp{,6}, looked up among
// the process's open files by inode.
func listensOn(pid, port int) (bool, error) {
	inodes := make(map[string]bool)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := listeningInodes(table, port, inodes); err != nil {
			return false, err
		}
	}
	if len(inodes) == 0 {
		return false, nil
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	fds, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return false, nil // the process has ended
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", dir, err)
	}
	for _, fd := range fds {
		link, err := os.Readlink(dir + "/" + fd.Name())
		if err != nil {
			continue // closed since ReadDir
		}
		if inode, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
			return true, nil
		}
	}
	return false, nil
}

// listeningInodes adds to into the inodes of the sockets in table (the
// format of /proc/net/tcp) that listen on port.
func listeningInodes(table string, port int, into map[string]bool) error {
	f, err := os.Open(table)
	if os.IsNotExist(err) {
		return nil // no IPv6 in this kernel
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", table, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
		cols := strings.Fields(sc.Text())
		if len(cols) < 10 || cols[3] != tcpListen {
			continue
		}
		_, hexPort, ok := strings.Cut(cols[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
			into[cols[9]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	return nil
}

// tcpListen is TCP_LISTEN's state code in /proc/net/tcp.
const tcpListen = "0A"

// canCheckOwner says listensOn works on this system.
const canCheckOwner = true
