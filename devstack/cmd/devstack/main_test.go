package main

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/kejanest/kejanest/devstack/internal/stackconf"
	"github.com/kejanest/kejanest/devstack/internal/supervise"
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

func TestFreePortsAreDistinct(t *testing.T) {
	t.Parallel()
	for range 20 {
		p, err := freePorts()
		if err != nil {
			t.Fatal(err)
		}
		all := []int{p.Gateway, p.Rest, p.RPC, p.Auth, p.Realtime, p.Storage, p.MailSMTP, p.MailWeb}
		seen := map[int]bool{}
		for _, port := range all {
			if port == 0 || seen[port] {
				t.Fatalf("freePorts() = %+v: a port is zero or repeated", p)
			}
			seen[port] = true
		}
	}
}
