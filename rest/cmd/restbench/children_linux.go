//go:build linux

package main

import "syscall"

// childAttr has the kernel kill a child when restbench dies, even by
// SIGKILL, which restbench's own clean-up cannot catch. (The signal goes
// with the thread that started the child; the Go runtime ends threads only
// under LockOSThread, which restbench does not use.)
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processRunning reports whether a process with pid exists (EPERM: it
// does, under another user).
func processRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
