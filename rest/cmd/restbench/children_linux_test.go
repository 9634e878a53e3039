//go:build linux

package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildDiesWithParent: a child started with childAttr ends when its
// parent is killed by SIGKILL. The parent is this test binary run again
// (the helper below): it starts a sleeping child, prints its pid and
// waits to be killed.
func TestChildDiesWithParent(t *testing.T) {
	if os.Getenv("RESTBENCH_TEST_PARENT") == "1" {
		child := exec.Command("sleep", "60")
		child.SysProcAttr = childAttr()
		if err := child.Start(); err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(child.Process.Pid) + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	t.Parallel()
	parent := exec.Command(os.Args[0], "-test.run=^TestChildDiesWithParent$")
	parent.Env = append(os.Environ(), "RESTBENCH_TEST_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := out.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatalf("the helper wrote %q, want its child's pid", buf[:n])
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	_ = parent.Process.Signal(syscall.SIGKILL)
	_ = parent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Signal 0 fails once the child is gone; a zombie (its parent,
		// now init, not having reaped it yet) counts as gone.
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if syscall.Kill(pid, 0) != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d still running 5 s after its parent was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
