package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kejanest/kejanest/gateway/internal/accesslog"
	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/proxy"
	"github.com/kejanest/kejanest/platform/envconf"
)

// echo is what an upstream received, as the echo upstreams report it.
type echo struct {
	Service       string `json:"service"`
	Method        string `json:"method"`
	Path          string `json:"path"`
	RawPath       string `json:"raw_path"`
	RawQuery      string `json:"raw_query"`
	Host          string `json:"host"`
	Authorization string `json:"authorization"`
	HasAuth       bool   `json:"has_auth"`
	APIKey        string `json:"apikey"`
	RequestID     string `json:"request_id"`
	XFF           string `json:"xff"`
	RealIP        string `json:"real_ip"`
	XFHost        string `json:"xf_host"`
	XFProto       string `json:"xf_proto"`
	XFPrefix      string `json:"xf_prefix"`
}

// echoUpstream answers every request with what it received. It also sets
// CORS and request-id headers of its own, which the gateway must remove.
func echoUpstream(t testing.TB, service string, hits *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(echoHandler(service, hits, true))
	t.Cleanup(srv.Close)
	return srv
}

// echoHandler is an echo upstream's handler; ownHeaders adds its CORS and
// request-id headers (an in-process service sets none: it writes into the
// gateway's own response).
func echoHandler(service string, hits *atomic.Int64, ownHeaders bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits != nil {
			hits.Add(1)
		}
		_, hasAuth := r.Header["Authorization"]
		e := echo{
			Service: service, Method: r.Method, Path: r.URL.Path, RawPath: r.URL.RawPath,
			RawQuery: r.URL.RawQuery, Host: r.Host,
			Authorization: r.Header.Get("Authorization"), HasAuth: hasAuth,
			APIKey:    r.Header.Get("apikey"),
			RequestID: r.Header.Get("X-Request-Id"),
			XFF:       r.Header.Get("X-Forwarded-For"), XFHost: r.Header.Get("X-Forwarded-Host"),
			RealIP:  r.Header.Get("X-Real-Ip"),
			XFProto: r.Header.Get("X-Forwarded-Proto"), XFPrefix: r.Header.Get("X-Forwarded-Prefix"),
		}
		if ownHeaders {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Expose-Headers", "X-Upstream-Only")
			w.Header().Set("X-Request-Id", "upstream-id")
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Range", "0-0/1")
		_ = json.NewEncoder(w).Encode(e)
	})
}

// syncBuffer collects log output from concurrent requests.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines returns the decoded JSON log lines with msg "request".
func (b *syncBuffer) requestLines(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q: %v", l, err)
		}
		if m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

type harness struct {
	gw    *httptest.Server
	srv   *Server
	cfg   config.Config
	logs  *syncBuffer
	hits  *atomic.Int64 // requests that reached any upstream
	front string        // frontend dir
}

// newHarness starts six echo upstreams, a built frontend and a gateway
// configured by env on top of them.
func newHarness(t testing.TB, env map[string]string) *harness {
	t.Helper()
	return newHarnessWith(t, env, Options{})
}

// newHarnessWith is newHarness with the server's test options (a clock).
func newHarnessWith(t testing.TB, env map[string]string, o Options) *harness {
	t.Helper()
	h := &harness{logs: &syncBuffer{}, hits: &atomic.Int64{}}
	vars := map[string]string{}
	for name, key := range map[string]string{
		proxy.ServiceRest: "REST_URL", proxy.ServiceRPC: "RPC_URL", proxy.ServiceAuth: "AUTH_URL",
		proxy.ServiceRealtime: "REALTIME_URL", proxy.ServiceStorage: "STORAGE_URL",
		proxy.ServiceFunctions: "FUNCTIONS_URL",
	} {
		vars[key] = echoUpstream(t, name, h.hits).URL
	}
	h.front = t.TempDir()
	writeFile(t, filepath.Join(h.front, "index.html"), "<!doctype html><title>KejaNest</title>")
	writeFile(t, filepath.Join(h.front, "assets", "app-3f9a1c.js"), "console.log(1)")
	vars["FRONTEND_DIR"] = h.front
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.Load(envconf.FromMap(vars))
	if err != nil {
		t.Fatalf("load config: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("validate config: %v", err)
	}
	h.cfg = cfg
	log := slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.srv, err = New(cfg, log, accesslog.NewLogger(h.logs, "gateway", slog.LevelDebug), o)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	h.gw = httptest.NewServer(h.srv)
	t.Cleanup(h.gw.Close)
	return h
}

func writeFile(t testing.TB, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// do sends a request to the gateway and returns the response and body.
func (h *harness) do(t testing.TB, method, target string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, h.gw.URL+target, nil)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := h.gw.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return res, body
}

// echoOf decodes an upstream echo, failing if the response is not one.
func echoOf(t testing.TB, res *http.Response, body []byte) echo {
	t.Helper()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d, body %s", res.StatusCode, body)
	}
	var e echo
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not an upstream echo: %s", body)
	}
	return e
}
