package pgcluster

import (
	"net"
	"strconv"
	"testing"
)

func TestPoolHigh(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, portRange string
		wantHi          int
		wantOK          bool
	}{
		{"linux default", "32768\t60999\n", 32768, true},
		{"widened range", "15000 65000", 15000, true},
		{"range leaving too little room", "10500 65000", 0, false},
		{"range below the pool", "1024 65000", 0, false},
		{"no proc file", "", defaultPoolHigh, true},
		{"unreadable", "lots of ports", defaultPoolHigh, true},
		{"not a number", "x 60999", defaultPoolHigh, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hi, ok := poolHigh(tt.portRange)
			if hi != tt.wantHi || ok != tt.wantOK {
				t.Errorf("poolHigh(%q) = %d, %v; want %d, %v", tt.portRange, hi, ok, tt.wantHi, tt.wantOK)
			}
		})
	}
}

// FreePort's ports lie below the ephemeral range, where no outgoing
// connection can take them, and can be bound.
func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	hi, ok := poolHigh(readPortRange())
	if !ok {
		t.Skip("the kernel's ephemeral range leaves no pool below it; FreePort lets the kernel choose")
	}
	seen := map[int]bool{}
	for range 20 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if p < poolLow || p >= hi {
			t.Fatalf("FreePort() = %d, outside [%d, %d)", p, poolLow, hi)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d from FreePort cannot be bound: %v", p, err)
		}
		_ = l.Close()
		seen[p] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 calls gave only %d distinct ports: the draw is not random", len(seen))
	}
}
