package main

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"testing"

	"github.com/kejanest/kejanest/devstack/internal/stackconf"
	"github.com/kejanest/kejanest/devstack/internal/supervise"
	"github.com/kejanest/kejanest/platform/pgcluster"
)

func TestStartOnFreePorts(t *testing.T) {
	t.Parallel()
	portTaken := errors.New("rpc exited during start-up (exit status 1)\n  | listen tcp 127.0.0.1:41751: bind: address already in use")
	crashed := errors.New("authsvc exited during start-up (exit status 1)\n  | migrations missing")
	tests := []struct {
		name      string
		results   []error // what each start returns, in order
		wantErr   error
		wantPicks int
	}{
		{"first start works", []error{nil}, nil, 1},
		{"a taken port is tried again on fresh ports", []error{portTaken, nil}, nil, 2},
		{"gives up after the last attempt", []error{portTaken, portTaken, portTaken}, portTaken, 3},
		{"another failure is not tried again", []error{crashed}, crashed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			picks := 0
			pick := func() (stackconf.Ports, error) {
				picks++
				return stackconf.Ports{Gateway: 20000 + picks}, nil
			}
			var started []int
			start := func(p stackconf.Ports) ([]*supervise.Process, error) {
				started = append(started, p.Gateway)
				if err := tt.results[len(started)-1]; err != nil {
					return nil, err
				}
				return []*supervise.Process{}, nil
			}
			procs, err := startOnFreePorts(3, pick, start, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if (err == nil) != (procs != nil) {
				t.Errorf("procs = %v with err = %v", procs, err)
			}
			if picks != tt.wantPicks || len(started) != tt.wantPicks {
				t.Errorf("picked %d times and started %d times, want %d", picks, len(started), tt.wantPicks)
			}
			for i, g := range started {
				if g != 20001+i {
					t.Errorf("start %d ran on gateway port %d: not the ports picked for it", i+1, g)
				}
			}
		})
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
