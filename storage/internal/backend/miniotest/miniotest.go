// Package miniotest runs a real MinIO server for the S3 tests of the
// storage service's packages.
package miniotest

import (
	"bytes"
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

// Start runs MinIO on a free loopback port with a temp data dir until
// the test ends, and returns its endpoint.
func Start(t testing.TB) (endpoint, user, pass string) {
	t.Helper()
	bin := binary(t)
	port, cport := freePort(t), freePort(t)
	user, pass = "kejanest-test", "kejanest-test-secret"
	cmd := exec.Command(bin, "server", t.TempDir(), "--address", fmt.Sprintf("127.0.0.1:%d", port),
		"--console-address", fmt.Sprintf("127.0.0.1:%d", cport), "--quiet")
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+user, "MINIO_ROOT_PASSWORD="+pass, "MINIO_BROWSER=off", "MINIO_UPDATE=off")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	endpoint = fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(endpoint + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return endpoint, user, pass
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("minio not ready:\n%s", log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
