package backend

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// minioVersion is the MinIO module the S3 tests build (the same pin as
// compat/harness/minio.mjs).
const minioVersion = "github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"

// contract runs the Backend contract against b.
func contract(t *testing.T, b Backend) {
	ctx := context.Background()
	payload := make([]byte, 3<<20+17)
	_, _ = rand.Read(payload)

	t.Run("put get stat", func(t *testing.T) {
		n, err := b.Put(ctx, "bkt/dir/obj.bin/v1", bytes.NewReader(payload), "application/octet-stream")
		if err != nil || n != int64(len(payload)) {
			t.Fatalf("Put = %d, %v", n, err)
		}
		rc, err := b.Get(ctx, "bkt/dir/obj.bin/v1", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("Get: %d bytes, %v", len(got), err)
		}
		st, err := b.Stat(ctx, "bkt/dir/obj.bin/v1")
		if err != nil || st.Size != int64(len(payload)) {
			t.Fatalf("Stat = %+v, %v", st, err)
		}
	})
	t.Run("ranges", func(t *testing.T) {
		for _, r := range []Range{{0, 1}, {5, 10}, {100, -1}, {int64(len(payload)) - 3, 3}} {
			rc, err := b.Get(ctx, "bkt/dir/obj.bin/v1", &r)
			if err != nil {
				t.Fatalf("%+v: %v", r, err)
			}
			got, _ := io.ReadAll(rc)
			_ = rc.Close()
			end := int64(len(payload))
			if r.Length >= 0 {
				end = r.Start + r.Length
			}
			if !bytes.Equal(got, payload[r.Start:end]) {
				t.Errorf("range %+v: got %d bytes", r, len(got))
			}
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := b.Get(ctx, "bkt/none/v1", nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get missing = %v", err)
		}
		if _, err := b.Stat(ctx, "bkt/none/v1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat missing = %v", err)
		}
	})
	t.Run("failed put leaves nothing", func(t *testing.T) {
		r := io.MultiReader(bytes.NewReader(payload[:1<<20]), errReader{})
		if _, err := b.Put(ctx, "bkt/partial/v1", r, ""); err == nil {
			t.Fatal("Put of a failing reader succeeded")
		}
		if _, err := b.Stat(ctx, "bkt/partial/v1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("partial object visible: %v", err)
		}
	})
	t.Run("copy delete", func(t *testing.T) {
		if err := b.Copy(ctx, "bkt/dir/obj.bin/v1", "bkt2/copy/v2"); err != nil {
			t.Fatal(err)
		}
		if st, err := b.Stat(ctx, "bkt2/copy/v2"); err != nil || st.Size != int64(len(payload)) {
			t.Fatalf("copy Stat = %+v, %v", st, err)
		}
		if err := b.Delete(ctx, "bkt/dir/obj.bin/v1", "bkt2/copy/v2", "bkt/never/v0"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Stat(ctx, "bkt2/copy/v2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted object still there: %v", err)
		}
	})
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("client went away") }

func TestFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := NewFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	contract(t, b)
	// Nothing but directories may remain: no temp files from the failed Put.
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

func TestFileRefusesEscapingKeys(t *testing.T) {
	t.Parallel()
	b, err := NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"", "/abs", "a/../../x", "a//b", "a/./b", "..", "a\x00b"} {
		if _, err := b.Put(context.Background(), k, strings.NewReader("x"), ""); err == nil {
			t.Errorf("Put(%q) accepted", k)
		}
	}
}

// minioBinary returns the cached MinIO binary, building it with go install
// when missing (KEJANEST_TOOLS_DIR or ~/.cache/kejanest-tools).
func minioBinary(t *testing.T) string {
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
	cmd := exec.Command("go", "install", minioVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", minioVersion, err, out)
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startMinio runs MinIO on a free loopback port with a temp data dir until
// the test ends, and returns its endpoint.
func startMinio(t *testing.T) (endpoint, user, pass string) {
	t.Helper()
	bin := minioBinary(t)
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

func TestS3AgainstMinIO(t *testing.T) {
	t.Parallel()
	endpoint, user, pass := startMinio(t)
	b, err := NewS3(S3Options{Endpoint: endpoint, Bucket: "kejanest-test", Region: "us-east-1", AccessKeyID: user, SecretAccessKey: pass, ForcePathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureBucket(context.Background(), "us-east-1"); err != nil {
		t.Fatal(err)
	}
	contract(t, b)
}
