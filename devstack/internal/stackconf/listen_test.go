package stackconf

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/listenfd"
	"github.com/kejanest/kejanest/platform/pgcluster"
)

// serviceAddr is where each service reads the address it listens on (its
// config package): a variable holding addresses, or a host and a port.
// Written out here from the services' side, so a template that sets one
// variable while devstack reads another fails.
var serviceAddr = map[string]func(env []string) []string{
	"devmail":   func(env []string) []string { return vars(env, "DEVMAIL_WEB_ADDR", "DEVMAIL_SMTP_ADDR") },
	"darajasim": func(env []string) []string { return vars(env, "DARAJASIM_ADDR") },
	"rest":      func(env []string) []string { return join(env, "PGRST_SERVER_HOST", "PGRST_SERVER_PORT") },
	"rpc":       func(env []string) []string { return join(env, "PGRST_SERVER_HOST", "PGRST_SERVER_PORT") },
	"authsvc":   func(env []string) []string { return join(env, "GOTRUE_API_HOST", "PORT") },
	"realtime":  func(env []string) []string { return join(env, "REALTIME_HOST", "PORT") },
	"storage":   func(env []string) []string { return join(env, "SERVER_HOST", "SERVER_PORT") },
	"payments":  func(env []string) []string { return join(env, "PAYMENTS_HOST", "PORT") },
	"gateway":   func(env []string) []string { return vars(env, "GATEWAY_LISTEN") },
}

func vars(env []string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, strings.Split(lastValue(env, n), ",")...)
	}
	return out
}

func join(env []string, host, port string) []string {
	return []string{net.JoinHostPort(lastValue(env, host), lastValue(env, port))}
}

// Every child is handed exactly the sockets of the addresses its own
// environment has it listen on, overrides included, as descriptors 3, 4, …
// in the order it names them, and devstack holds nothing else: whatever
// the shape of the stack, a held port reaches the service that serves it,
// and no held port stands in the way of an address an override chose.
func TestChildrenInheritTheirOwnSockets(t *testing.T) {
	t.Parallel()
	for _, shape := range []struct {
		name      string
		replicas  int
		inProcess bool
		// environ's overrides, given the picked ports and one more port.
		environ func(p Ports, spare int) []string
	}{
		{"make run", 1, true, nil},
		{"separate rest and rpc", 1, false, nil},
		{"replicas", 2, false, nil},
		{"the gateway on every interface, authsvc on another port", 1, true, func(p Ports, spare int) []string {
			return []string{"KEJANEST_GATEWAY_GATEWAY_LISTEN=0.0.0.0:" + strconv.Itoa(p.Gateway), "KEJANEST_AUTHSVC_PORT=" + strconv.Itoa(spare)}
		}},
	} {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			ports, err := PickPorts(shape.replicas, pgcluster.FreePort)
			if err != nil {
				t.Fatal(err)
			}
			var environ []string
			if shape.environ != nil {
				spare, err := pgcluster.FreePort()
				if err != nil {
					t.Fatal(err)
				}
				environ = shape.environ(ports, spare)
			}
			st := Stack{Root: "/repo", BinDir: "/repo/bin", DatabaseURL: "postgres://postgres@127.0.0.1:5432/db", Ports: ports,
				StorageDir: "/data", InProcess: shape.inProcess}
			st.Held, err = listenfd.Hold(st.ListenAddrs(environ...))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Held.Close()
			var listened []string
			for _, svc := range st.Services(environ...) {
				service := strings.TrimPrefix(svc.Binary, "/repo/bin/")
				addrs := serviceAddr[service](svc.Env)
				// What a restart has reserved for it: every address the
				// service reads, held at first or not.
				if !slices.Equal(svc.Listens, addrs) {
					t.Errorf("%s: Listens %v, want %v", svc.Name, svc.Listens, addrs)
				}
				var want []string
				for _, a := range addrs {
					listened = append(listened, a)
					if slices.Contains(st.Held.Addrs(), a) {
						want = append(want, a)
					} else if !strings.HasPrefix(a, "[::1]") { // held only where the machine has IPv6
						t.Errorf("%s listens on %s, which devstack does not hold", svc.Name, a)
					}
				}
				if v := lastValue(svc.Env, listenfd.Env); v != "" {
					t.Errorf("%s: %s in its own environment, where a restart would see it too", svc.Name, listenfd.Env)
				}
				var got []string
				if spec := lastValue(svc.FilesEnv, listenfd.Env); spec != "" {
					for i, pair := range strings.Split(spec, ",") {
						a, fd, _ := strings.Cut(pair, "=")
						if fd != strconv.Itoa(3+i) {
							t.Errorf("%s: %q is not descriptor %d", svc.Name, pair, 3+i)
						}
						got = append(got, a)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s inherits %v, want %v", svc.Name, got, want)
				}
				if len(svc.Files) != len(want) {
					t.Errorf("%s gets %d files for %d sockets", svc.Name, len(svc.Files), len(want))
				}
			}
			for _, a := range st.Held.Addrs() {
				if !slices.Contains(listened, a) {
					t.Errorf("%s is held but no service listens on it", a)
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(listened)))) != len(listened) {
				t.Errorf("two children listen on one address: %v", listened)
			}
		})
	}
}
