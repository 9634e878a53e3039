package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// runningService is a storage binary running against a fresh database.
type runningService struct {
	url, serviceKey string
	cmd             *exec.Cmd
}

// startService builds this command (without -race, so RSS is the
// service's own), starts it on a free port with the file backend, and
// stops it when the test ends.
func startService(t testing.TB, extraEnv ...string) *runningService {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	dir := t.TempDir()
	bin := filepath.Join(dir, "storage")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	port, err := pgtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+db.URLAs("authenticator"),
		"SERVER_HOST=127.0.0.1", "SERVER_PORT="+strconv.Itoa(port),
		"AUTH_JWT_SECRET="+devkeys.JWTSecret,
		"STORAGE_BACKEND=file", "FILE_STORAGE_BACKEND_PATH="+filepath.Join(dir, "objects"),
		"FILE_SIZE_LIMIT="+strconv.Itoa(1<<30), "LOG_LEVEL=warn",
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	s := &runningService{url: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd}
	s.serviceKey, err = jwtverify.SignHS256(map[string]any{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()}, []byte(devkeys.JWTSecret))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("storage did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

func (s *runningService) do(t *testing.T, method, path, contentType string, body io.Reader, size int64) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("Authorization", "Bearer "+s.serviceKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// rss reads a process's resident set size in bytes from /proc.
func rss(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

// pattern streams n bytes of a repeating pattern without holding them.
type pattern struct{ left int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	for i := range b {
		b[i] = byte(i * 31)
	}
	p.left -= int64(len(b))
	return len(b), nil
}

// TestUploadStreams uploads and downloads 200 MB, raw and multipart, on
// each backend (local disk, and S3 on MinIO), and checks the service's RSS
// never grows by 50 MB over its warmed-up level.
func TestUploadStreams(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		checkStreams(t, startService(t))
	})
	t.Run("s3", func(t *testing.T) {
		t.Parallel()
		endpoint, user, pass := startMinio(t)
		checkStreams(t, startService(t, "STORAGE_BACKEND=s3", "STORAGE_S3_ENDPOINT="+endpoint, "STORAGE_S3_BUCKET=streams",
			"STORAGE_S3_REGION=us-east-1", "AWS_ACCESS_KEY_ID="+user, "AWS_SECRET_ACCESS_KEY="+pass))
	})
}

func checkStreams(t *testing.T, s *runningService) {
	const size = 200 << 20
	const maxGrowth = 50 << 20
	if code, body := s.do(t, "POST", "/bucket", "application/json", strings.NewReader(`{"name":"big"}`), -1); code != 200 {
		t.Fatalf("create bucket: %d %s", code, body)
	}
	// Warm up: pools, the first DB connections, buffers.
	if code, body := s.do(t, "POST", "/object/big/warm.bin", "application/octet-stream", &pattern{left: 4 << 20}, 4<<20); code != 200 {
		t.Fatalf("warm-up upload: %d %s", code, body)
	}
	base, err := rss(s.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var peak atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for ctx.Err() == nil {
			if r, err := rss(s.cmd.Process.Pid); err == nil && r > peak.Load() {
				peak.Store(r)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()

	code, body := s.do(t, "POST", "/object/big/raw.bin", "application/octet-stream", &pattern{left: size}, size)
	if code != 200 {
		t.Fatalf("raw upload: %d %s", code, body)
	}

	// Multipart, as supabase-js sends a File: fields first, then the part
	// named "" (unknown total length on the part).
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		fmt.Fprint(w, "--XyZ\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n")
		fmt.Fprint(w, "--XyZ\r\nContent-Disposition: form-data; name=\"\"; filename=\"f.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n")
		_, _ = io.Copy(w, &pattern{left: size})
		fmt.Fprint(w, "\r\n--XyZ--\r\n")
		_ = w.Flush()
		_ = pw.Close()
	}()
	code, body = s.do(t, "POST", "/object/big/form.bin", "multipart/form-data; boundary=XyZ", pr, -1)
	if code != 200 {
		t.Fatalf("multipart upload: %d %s", code, body)
	}

	req, _ := http.NewRequest("GET", s.url+"/object/big/raw.bin", nil)
	req.Header.Set("Authorization", "Bearer "+s.serviceKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != size {
		t.Fatalf("download: %d bytes, %v", n, err)
	}
	stop()
	<-sampled

	growth := peak.Load() - base
	t.Logf("RSS: base %d MiB, peak %d MiB, growth %d MiB over 2×200 MB up and 200 MB down", base>>20, peak.Load()>>20, growth>>20)
	if growth > maxGrowth {
		t.Errorf("RSS grew by %d MiB (> %d MiB): uploads are buffered", growth>>20, maxGrowth>>20)
	}
	// What the backend stored, as the service reports it.
	for _, name := range []string{"raw.bin", "form.bin"} {
		req, _ := http.NewRequest("HEAD", s.url+"/object/big/"+name, nil)
		req.Header.Set("Authorization", "Bearer "+s.serviceKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.ContentLength != size {
			t.Errorf("%s: HEAD %d, %d bytes stored, want 200 and %d", name, resp.StatusCode, resp.ContentLength, size)
		}
	}
}
