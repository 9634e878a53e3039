//go:build !linux

package main

import "syscall"

// childAttr: elsewhere a child outlives a restbench killed by SIGKILL.
func childAttr() *syscall.SysProcAttr { return nil }
