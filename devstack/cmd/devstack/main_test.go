package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kejanest/kejanest/devstack/internal/stackconf"
	"github.com/kejanest/kejanest/platform/listenfd"
	"github.com/kejanest/kejanest/platform/pgcluster"
)

func TestHoldFreePorts(t *testing.T) {
	t.Parallel()
	taken := fmt.Errorf("listen on 127.0.0.1:41751: %w", syscall.EADDRINUSE)
	denied := fmt.Errorf("listen on 127.0.0.1:41751: %w", syscall.EACCES)
	tests := []struct {
		name      string
		results   []error // what each hold returns, in order
		wantErr   error
		wantPicks int
	}{
		{"first hold works", []error{nil}, nil, 1},
		{"a taken port is picked again", []error{taken, nil}, nil, 2},
		{"gives up after the last attempt", []error{taken, taken, taken}, taken, 3},
		{"another failure is not tried again", []error{denied}, denied, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			picks := 0
			pick := func() (stackconf.Ports, error) {
				picks++
				return stackconf.Ports{Gateway: 20000 + picks}, nil
			}
			var held []int
			hold := func(p stackconf.Ports) (*listenfd.Held, error) {
				held = append(held, p.Gateway)
				if err := tt.results[len(held)-1]; err != nil {
					return nil, err
				}
				return &listenfd.Held{}, nil
			}
			ports, h, err := holdFreePorts(3, pick, hold, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if (err == nil) != (h != nil) {
				t.Errorf("held = %v with err = %v", h, err)
			}
			if err == nil && ports.Gateway != 20000+tt.wantPicks {
				t.Errorf("ports = %+v, not the last ones picked", ports)
			}
			if picks != tt.wantPicks || len(held) != tt.wantPicks {
				t.Errorf("picked %d times and held %d times, want %d", picks, len(held), tt.wantPicks)
			}
			for i, g := range held {
				if g != 20001+i {
					t.Errorf("hold %d bound gateway port %d: not the ports picked for it", i+1, g)
				}
			}
		})
	}
}

// A stack's every address is bound by Hold, and a port someone took
// between the pick and the hold is picked again: the real kernel's answer,
// not a made-up error.
func TestHoldFreePortsRealPorts(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	picks := 0
	pick := func() (stackconf.Ports, error) {
		picks++
		p, err := stackconf.PickPorts(1, pgcluster.FreePort)
		if picks == 1 {
			p.MailWeb = busyPort // taken since it was picked
		}
		return p, err
	}
	st := stackconf.Stack{InProcess: true}
	hold := func(p stackconf.Ports) (*listenfd.Held, error) {
		st.Ports = p
		return listenfd.Hold(st.ListenAddrs())
	}
	ports, held, err := holdFreePorts(holdAttempts, pick, hold, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if picks != 2 {
		t.Errorf("picked %d times, want 2 (the first held a taken port)", picks)
	}
	st.Ports = ports
	for _, a := range st.ListenAddrs() {
		if strings.HasPrefix(a, "[::1]") {
			continue // held only where the machine has IPv6
		}
		if !slices.Contains(held.Addrs(), a) {
			t.Errorf("%s is not held (held: %v)", a, held.Addrs())
		}
		if ln, err := net.Listen("tcp", a); err == nil {
			ln.Close()
			t.Errorf("%s could be bound by another while held", a)
		}
	}
}

// The kernel's free ports, as the ephemeral stack draws them, are distinct
// across the gateway, the mailbox and every replica.
func TestFreePortsAreDistinct(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 1, 2, 3, stackconf.MaxReplicas} {
		p, err := stackconf.PickPorts(n, pgcluster.FreePort)
		if err != nil {
			t.Fatal(err)
		}
		all := []int{p.Gateway, p.MailSMTP, p.MailWeb}
		for _, svc := range stackconf.Replicated {
			if got := len(p.Of(svc)); got != n {
				t.Fatalf("%s has %d ports, want %d", svc, got, n)
			}
			all = append(all, p.Of(svc)...)
		}
		seen := map[int]bool{}
		for _, port := range all {
			if port == 0 || seen[port] {
				t.Fatalf("PickPorts(%d) = %+v: a port is zero or repeated", n, p)
			}
			seen[port] = true
		}
	}
}

// The ready line keeps its old fields and adds every replica.
func TestReadyLineListsReplicas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		want map[string][]readyReplica
	}{
		{"one replica", 1, map[string][]readyReplica{
			"rest":     {{"rest", 3000, "http://127.0.0.1:3000", "/logs/rest.log"}},
			"rpc":      {{"rpc", 3001, "http://127.0.0.1:3001", "/logs/rpc.log"}},
			"authsvc":  {{"authsvc", 9999, "http://127.0.0.1:9999", "/logs/authsvc.log"}},
			"realtime": {{"realtime", 4000, "http://127.0.0.1:4000", "/logs/realtime.log"}},
			"storage":  {{"storage", 5000, "http://127.0.0.1:5000", "/logs/storage.log"}},
		}},
		{"two replicas", 2, map[string][]readyReplica{
			"rest":     {{"rest-1", 3000, "http://127.0.0.1:3000", "/logs/rest-1.log"}, {"rest-2", 3010, "http://127.0.0.1:3010", "/logs/rest-2.log"}},
			"rpc":      {{"rpc-1", 3001, "http://127.0.0.1:3001", "/logs/rpc-1.log"}, {"rpc-2", 3011, "http://127.0.0.1:3011", "/logs/rpc-2.log"}},
			"authsvc":  {{"authsvc-1", 9999, "http://127.0.0.1:9999", "/logs/authsvc-1.log"}, {"authsvc-2", 10009, "http://127.0.0.1:10009", "/logs/authsvc-2.log"}},
			"realtime": {{"realtime-1", 4000, "http://127.0.0.1:4000", "/logs/realtime-1.log"}, {"realtime-2", 4010, "http://127.0.0.1:4010", "/logs/realtime-2.log"}},
			"storage":  {{"storage-1", 5000, "http://127.0.0.1:5000", "/logs/storage-1.log"}, {"storage-2", 5010, "http://127.0.0.1:5010", "/logs/storage-2.log"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ports, err := stackconf.DefaultPorts.WithReplicas(tt.n)
			if err != nil {
				t.Fatal(err)
			}
			got := replicasOf(stackconf.Stack{Ports: ports}, "/logs")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("replicas = %+v\nwant %+v", got, tt.want)
			}
			b, err := json.Marshal(readyLine{Event: "ready", Ports: ports, Replicas: got})
			if err != nil {
				t.Fatal(err)
			}
			var back struct {
				Ports    map[string]int              `json:"ports"`
				Replicas map[string][]map[string]any `json:"replicas"`
			}
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			// "ports" is what it was before replicas: one number per service.
			wantPorts := map[string]int{"Gateway": 54321, "Rest": 3000, "RPC": 3001, "Auth": 9999, "Realtime": 4000, "Storage": 5000, "MailSMTP": 54325, "MailWeb": 54324,
				"Payments": 8081, "DarajaSim": 8089}
			if !reflect.DeepEqual(back.Ports, wantPorts) {
				t.Errorf("ports = %v, want %v", back.Ports, wantPorts)
			}
			if r := back.Replicas["rest"]; len(r) != tt.n || r[0]["port"] != float64(3000) || r[0]["url"] != "http://127.0.0.1:3000" {
				t.Errorf("replicas.rest = %v", r)
			}
		})
	}
}
