// Package miniotest runs a real MinIO server for the S3 tests of the
// storage service's packages.
package miniotest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Version is the MinIO module the S3 tests build (the same pin as
// compat/harness/minio.mjs).
const Version = "github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"

// binary returns the cached MinIO binary, building it with go install
// when missing (KEJANEST_TOOLS_DIR or ~/.cache/kejanest-tools).
func binary(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("KEJANEST_TOOLS_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(home, ".cache", "kejanest-tools")
	}
	bin := filepath.Join(dir, "minio")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if testing.Short() {
		t.Skip("MinIO is not built yet and -short is set")
	}
	cmd := exec.Command("go", "install", Version)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", Version, err, out)
	}
	return bin
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Test credentials of every server Start runs.
const (
	user = "kejanest-test"
	pass = "kejanest-test-secret"
)

// startAttempts bounds how often Start picks fresh ports.
const startAttempts = 3

// errExited is a server that ended before it answered its health check:
// most likely its port was taken after it was picked (MinIO then exits,
// "Specified port is already in use").
var errExited = errors.New("minio exited during start-up")

// Start runs MinIO on a free loopback port with a temp data dir until
// the test ends, and returns its endpoint. A picked port is only free until
// someone binds it, so a server that exits during start-up is started again
// on fresh ports.
func Start(t testing.TB) (endpoint, username, password string) {
	t.Helper()
	bin := binary(t)
	for attempt := 1; ; attempt++ {
		endpoint, err := startOn(t, bin, freePort(t), freePort(t))
		if err == nil {
			return endpoint, user, pass
		}
		if attempt == startAttempts || !errors.Is(err, errExited) {
			t.Fatal(err)
		}
		t.Logf("starting MinIO again on fresh ports: %v", err)
	}
}

// startOn runs the server on port (its console on cport) and waits until
// it answers its health check, it exits (errExited), or a minute passes.
// The server is stopped when the test ends.
func startOn(t testing.TB, bin string, port, cport int) (string, error) {
	cmd := exec.Command(bin, "server", t.TempDir(), "--address", fmt.Sprintf("127.0.0.1:%d", port),
		"--console-address", fmt.Sprintf("127.0.0.1:%d", cport), "--quiet")
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+user, "MINIO_ROOT_PASSWORD="+pass, "MINIO_BROWSER=off", "MINIO_UPDATE=off")
	// Read only once the server has ended: os/exec copies into it until then.
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start minio: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	// A stranger's socket on the port may accept and never answer.
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			return "", fmt.Errorf("%w (%s):\n%s", errExited, cmd.ProcessState, log.String())
		default:
		}
		resp, err := client.Get(endpoint + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return endpoint, nil
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return "", fmt.Errorf("minio not ready after a minute:\n%s", log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
