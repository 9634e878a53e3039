//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// (the kernel's ABI, whatever its own tick rate).
const userHZ = 100

// processCPU is the CPU time, user and system, the processes with pids
// have spent so far (every thread), from /proc/PID/stat; 0 if a process
// cannot be read.
func processCPU(pids ...int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		t, ok := statTicks(pid)
		if !ok {
			return 0
		}
		ticks += t
	}
	return time.Duration(ticks) * time.Second / userHZ
}

// statTicks reads utime + stime, fields 14 and 15 of /proc/PID/stat. The
// second field, the command's name in parentheses, may hold spaces, so
// fields are counted after its closing parenthesis.
func statTicks(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStatTicks(b)
}

func parseStatTicks(b []byte) (int64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	// After ")": field 3 (state) is the first; utime is field 14.
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return utime + stime, true
}
