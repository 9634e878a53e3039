//go:build linux

package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestParseStatTicks(t *testing.T) {
	tests := []struct {
		name  string
		stat  string
		ticks int64
		ok    bool
	}{
		{"plain", "1234 (gateway) S 1 1234 1234 0 -1 4194560 2000 0 0 0 150 25 0 0 20 0 9 0", 175, true},
		{"name with spaces and parentheses", "77 (a (b) c) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0", 10, true},
		{"truncated", "77 (x) R 1 77", 0, false},
		{"no name", "77 x R", 0, false},
		{"not a number", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 u 2 0", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ticks, ok := parseStatTicks([]byte(tt.stat))
			if ticks != tt.ticks || ok != tt.ok {
				t.Errorf("parseStatTicks(%q) = %d, %v; want %d, %v", tt.stat, ticks, ok, tt.ticks, tt.ok)
			}
		})
	}
}

// TestProcessCPUAgreesWithRusage: this process's CPU time read from /proc
// grows as getrusage(2) says it did, within /proc's 10 ms ticks.
func TestProcessCPUAgreesWithRusage(t *testing.T) {
	pid := os.Getpid()
	before, rBefore := processCPU(pid), rusageCPU(t)
	for rusageCPU(t)-rBefore < 200*time.Millisecond {
	}
	got, want := processCPU(pid)-before, rusageCPU(t)-rBefore
	if d := got - want; d < -30*time.Millisecond || d > 30*time.Millisecond {
		t.Fatalf("/proc says %v of CPU, getrusage %v", got, want)
	}
	if processCPU(pid, -1) != 0 {
		t.Fatal("an unreadable process should make the sum 0")
	}
}

func rusageCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
