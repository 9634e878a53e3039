package stackconf

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/listenfd"
)

// listenVars is where each service reads the address it listens on: a
// variable holding addresses, or a host variable and a port variable.
var listenVars = map[string]struct{ addrs, host, port []string }{
	"devmail":   {addrs: []string{"DEVMAIL_WEB_ADDR", "DEVMAIL_SMTP_ADDR"}},
	"darajasim": {addrs: []string{"DARAJASIM_ADDR"}},
	"rest":      {host: []string{"PGRST_SERVER_HOST"}, port: []string{"PGRST_SERVER_PORT"}},
	"rpc":       {host: []string{"PGRST_SERVER_HOST"}, port: []string{"PGRST_SERVER_PORT"}},
	"authsvc":   {host: []string{"GOTRUE_API_HOST"}, port: []string{"PORT"}},
	"realtime":  {host: []string{"REALTIME_HOST"}, port: []string{"PORT"}},
	"storage":   {host: []string{"SERVER_HOST"}, port: []string{"SERVER_PORT"}},
	"payments":  {host: []string{"PAYMENTS_HOST"}, port: []string{"PORT"}},
	"gateway":   {addrs: []string{"GATEWAY_LISTEN"}},
}

// configured is every address a child's environment tells it to listen on.
func configured(t *testing.T, service string, env []string) []string {
	t.Helper()
	v, ok := listenVars[service]
	if !ok {
		t.Fatalf("no listen variables known for %s", service)
	}
	var out []string
	for _, k := range v.addrs {
		for a := range strings.SplitSeq(lastValue(env, k), ",") {
			out = append(out, a)
		}
	}
	for i, k := range v.host {
		out = append(out, net.JoinHostPort(lastValue(env, k), lastValue(env, v.port[i])))
	}
	return out
}

// Every child is handed exactly the sockets of the addresses its own
// environment has it listen on, as descriptors 3, 4, … in the order the
// variable names them; so a held port always reaches the service that
// serves it, whatever the shape of the stack.
func TestChildrenInheritTheirOwnSockets(t *testing.T) {
	t.Parallel()
	for _, shape := range []struct {
		name      string
		replicas  int
		inProcess bool
	}{{"make run", 1, true}, {"separate rest and rpc", 1, false}, {"replicas", 2, false}} {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			ports, err := PickPorts(shape.replicas, func() (int, error) {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					return 0, err
				}
				defer ln.Close()
				return ln.Addr().(*net.TCPAddr).Port, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			st := Stack{Root: "/repo", BinDir: "/repo/bin", DatabaseURL: "postgres://postgres@127.0.0.1:5432/db", Ports: ports,
				StorageDir: "/data", InProcess: shape.inProcess}
			st.Held, err = listenfd.Hold(st.ListenAddrs())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Held.Close()
			seen := map[string]string{}
			for _, svc := range st.Services() {
				service := strings.TrimPrefix(svc.Binary, "/repo/bin/")
				var want []string
				for _, a := range configured(t, service, svc.Env) {
					if slices.Contains(st.Held.Addrs(), a) {
						want = append(want, a)
					} else if !strings.HasPrefix(a, "[::1]") { // held only where the machine has IPv6
						t.Errorf("%s listens on %s, which devstack does not hold", svc.Name, a)
					}
					if other, ok := seen[a]; ok {
						t.Errorf("%s and %s both listen on %s", other, svc.Name, a)
					}
					seen[a] = svc.Name
				}
				if v := lastValue(svc.Env, listenfd.Env); v != "" {
					t.Errorf("%s: %s in its own environment, where a restart would see it too", svc.Name, listenfd.Env)
				}
				spec := lastValue(svc.FilesEnv, listenfd.Env)
				var got []string
				for i, pair := range strings.Split(spec, ",") {
					a, fd, _ := strings.Cut(pair, "=")
					if fd != strconv.Itoa(3+i) {
						t.Errorf("%s: %q is not descriptor %d", svc.Name, pair, 3+i)
					}
					got = append(got, a)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s inherits %v, want %v", svc.Name, got, want)
				}
				if len(svc.Files) != len(want) {
					t.Errorf("%s gets %d files for %d sockets", svc.Name, len(svc.Files), len(want))
				}
			}
			if len(seen) < len(st.Held.Addrs()) {
				t.Errorf("%d addresses held, %d listened on: some held port reaches no service", len(st.Held.Addrs()), len(seen))
			}
		})
	}
}
