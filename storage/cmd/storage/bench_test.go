package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/storage/internal/backend"
)

// benchSize is the object moved per benchmark iteration.
const benchSize = 64 << 20

// BenchmarkTransfer reports upload and download MB/s for one 64 MiB object:
// straight into the backend (file, and S3 on MinIO), through the storage
// service over HTTP, and through the gateway in front of it. Not run by
// default:
//
//	go test -run '^$' -bench Transfer -benchtime 5x ./cmd/storage
func BenchmarkTransfer(b *testing.B) {
	b.Run("file", func(b *testing.B) {
		be, err := backend.NewFile(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		benchBackend(b, be)
		s := startService(b)
		benchHTTP(b, "service", s.url, s.serviceKey)
		benchHTTP(b, "gateway", startGateway(b, s.url), s.serviceKey)
	})
	b.Run("s3", func(b *testing.B) {
		endpoint, user, pass := startMinio(b)
		be, err := backend.NewS3(backend.S3Options{Endpoint: endpoint, Bucket: "bench-direct", Region: "us-east-1", AccessKeyID: user, SecretAccessKey: pass, ForcePathStyle: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := be.EnsureBucket(context.Background(), "us-east-1"); err != nil {
			b.Fatal(err)
		}
		benchBackend(b, be)
		s := startService(b, "STORAGE_BACKEND=s3", "STORAGE_S3_ENDPOINT="+endpoint, "STORAGE_S3_BUCKET=bench-service",
			"STORAGE_S3_REGION=us-east-1", "AWS_ACCESS_KEY_ID="+user, "AWS_SECRET_ACCESS_KEY="+pass)
		benchHTTP(b, "service", s.url, s.serviceKey)
		benchHTTP(b, "gateway", startGateway(b, s.url), s.serviceKey)
	})
}

func benchBackend(b *testing.B, be backend.Backend) {
	ctx := context.Background()
	b.Run("backend/upload", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			if _, err := be.Put(ctx, "bench/obj/v1", &pattern{left: benchSize}, "application/octet-stream"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("backend/download", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			rc, err := be.Get(ctx, "bench/obj/v1", nil)
			if err != nil {
				b.Fatal(err)
			}
			if n, err := io.Copy(io.Discard, rc); err != nil || n != benchSize {
				b.Fatalf("download: %d, %v", n, err)
			}
			_ = rc.Close()
		}
	})
}

func benchHTTP(b *testing.B, name, base, key string) {
	// Create the bucket (ignore "already exists" from a previous run).
	req, _ := http.NewRequest("POST", base+"/bucket", bytes.NewReader([]byte(`{"name":"bench"}`)))
	if name == "gateway" {
		req.URL.Path = "/storage/v1/bucket"
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	prefix := base
	if name == "gateway" {
		prefix += "/storage/v1"
	}
	b.Run(name+"/upload", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			req, _ := http.NewRequest("POST", prefix+"/object/bench/obj.bin", &pattern{left: benchSize})
			req.ContentLength = benchSize
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/octet-stream")
			req.Header.Set("x-upsert", "true")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("upload: %d %s", resp.StatusCode, body)
			}
		}
	})
	b.Run(name+"/download", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			req, _ := http.NewRequest("GET", prefix+"/object/bench/obj.bin", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || n != benchSize {
				b.Fatalf("download: %d %d, %v", resp.StatusCode, n, err)
			}
		}
	})
}

// startGateway builds and runs the gateway with storage behind it and
// returns its origin.
func startGateway(tb testing.TB, storageURL string) string {
	tb.Helper()
	dir := tb.TempDir()
	bin := filepath.Join(dir, "gateway")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../gateway/cmd/gateway").CombinedOutput(); err != nil {
		tb.Fatalf("build gateway: %v\n%s", err, out)
	}
	port, err := pgtest.FreePort()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "GATEWAY_LISTEN=127.0.0.1:"+strconv.Itoa(port), "STORAGE_URL="+storageURL,
		"FRONTEND_DIR="+dir, "JWT_SECRET="+devkeys.JWTSecret, "LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(20 * time.Second); ; {
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			tb.Fatal("gateway did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startMinio runs the pinned MinIO (built with go install when missing) on
// a free loopback port until the benchmark ends.
func startMinio(tb testing.TB) (endpoint, user, pass string) {
	tb.Helper()
	dir := os.Getenv("KEJANEST_TOOLS_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "kejanest-tools")
	}
	bin := filepath.Join(dir, "minio")
	if _, err := os.Stat(bin); err != nil {
		cmd := exec.Command("go", "install", "github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c")
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("go install minio: %v\n%s", err, out)
		}
	}
	port, _ := pgtest.FreePort()
	cport, _ := pgtest.FreePort()
	user, pass = "kejanest-bench", "kejanest-bench-secret"
	cmd := exec.Command(bin, "server", tb.TempDir(), "--address", fmt.Sprintf("127.0.0.1:%d", port),
		"--console-address", fmt.Sprintf("127.0.0.1:%d", cport), "--quiet")
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+user, "MINIO_ROOT_PASSWORD="+pass, "MINIO_BROWSER=off", "MINIO_UPDATE=off")
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	endpoint = fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if resp, err := http.Get(endpoint + "/minio/health/live"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return endpoint, user, pass
			}
		}
		if time.Now().After(deadline) {
			tb.Fatal("minio did not start")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
