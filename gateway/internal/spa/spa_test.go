package spa

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHandler(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dist := filepath.Join(parent, "dist")
	write(t, filepath.Join(dist, "index.html"), "<!doctype html>INDEX")
	write(t, filepath.Join(dist, "assets", "index-B2xQ9a.js"), "JS")
	write(t, filepath.Join(dist, "favicon.svg"), "<svg/>")
	write(t, filepath.Join(dist, ".env"), "SECRET=1")
	write(t, filepath.Join(parent, "secret.txt"), "OUTSIDE")
	if err := os.Symlink(filepath.Join(parent, "secret.txt"), filepath.Join(dist, "link.txt")); err != nil {
		t.Fatal(err)
	}
	h := New(dist)

	const immutable = "public, max-age=31536000, immutable"
	tests := []struct {
		name, method, path string
		status             int
		body, cache, ctype string
	}{
		{"root", "GET", "/", 200, "INDEX", "no-cache", "text/html"},
		{"index by name", "GET", "/index.html", 200, "INDEX", "no-cache", "text/html"},
		{"client route", "GET", "/wallet/escrow/7", 200, "INDEX", "no-cache", "text/html"},
		{"head", "HEAD", "/lands", 200, "", "no-cache", "text/html"},
		{"hashed asset", "GET", "/assets/index-B2xQ9a.js", 200, "JS", immutable, "text/javascript"},
		{"other file", "GET", "/favicon.svg", 200, "<svg/>", "no-cache", "image/svg+xml"},
		{"missing asset is 404", "GET", "/assets/index-OLD.js", 404, "404", "", ""},
		{"assets dir falls back", "GET", "/assets/", 200, "INDEX", "no-cache", ""},
		{"post", "POST", "/x", 405, "", "", ""},
		{"dot dot", "GET", "/../secret.txt", 200, "INDEX", "no-cache", ""},
		{"dot dot in assets", "GET", "/assets/../../secret.txt", 200, "INDEX", "no-cache", ""},
		{"encoded dot dot", "GET", "/%2e%2e/secret.txt", 200, "INDEX", "no-cache", ""},
		{"symlink out of root", "GET", "/link.txt", 200, "INDEX", "no-cache", ""},
		{"dotfile", "GET", "/.env", 200, "INDEX", "no-cache", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tc.method, "http://kejanest.test/", nil)
			// Set the path directly so no client or parser cleans it first.
			req.URL.Path = tc.path
			if p, err := decodePath(tc.path); err == nil {
				req.URL.Path = p
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if body := rec.Body.String(); !strings.Contains(body, tc.body) || strings.Contains(body, "OUTSIDE") || strings.Contains(body, "SECRET") {
				t.Errorf("body %q", body)
			}
			if tc.cache != "" && rec.Header().Get("Cache-Control") != tc.cache {
				t.Errorf("Cache-Control %q, want %q", rec.Header().Get("Cache-Control"), tc.cache)
			}
			if tc.ctype != "" && !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.ctype) {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tc.ctype)
			}
		})
	}
}

func decodePath(p string) (string, error) {
	r, err := http.NewRequest("GET", "http://x"+p, nil)
	if err != nil {
		return "", err
	}
	return r.URL.Path, nil
}

func TestNotBuilt(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), t.TempDir()} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			New(dir).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "make run") {
				t.Errorf("status %d body %q", rec.Code, rec.Body.String())
			}
			if IndexExists(dir) {
				t.Error("IndexExists on an unbuilt dir")
			}
		})
	}
}

func TestPrecompressed(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	write(t, filepath.Join(dist, "index.html"), "<!doctype html>INDEX")
	write(t, filepath.Join(dist, "index.html.gz"), "GZ-INDEX")
	write(t, filepath.Join(dist, "assets", "app-1.js"), "PLAIN-JS")
	write(t, filepath.Join(dist, "assets", "app-1.js.br"), "BR-JS")
	write(t, filepath.Join(dist, "assets", "app-1.js.gz"), "GZ-JS")
	write(t, filepath.Join(dist, "assets", "only-plain.css"), "PLAIN-CSS")
	write(t, filepath.Join(dist, "blob"), "PLAIN-BLOB")
	write(t, filepath.Join(dist, "blob.gz"), "GZ-BLOB")
	h := New(dist)

	tests := []struct {
		name, path, accept    string
		body, encoding, ctype string
		vary                  bool
	}{
		{"brotli preferred", "/assets/app-1.js", "gzip, deflate, br", "BR-JS", "br", "text/javascript", true},
		{"gzip only", "/assets/app-1.js", "gzip", "GZ-JS", "gzip", "text/javascript", true},
		{"brotli refused", "/assets/app-1.js", "br;q=0, gzip", "GZ-JS", "gzip", "text/javascript", true},
		{"nothing accepted", "/assets/app-1.js", "", "PLAIN-JS", "", "text/javascript", true},
		{"identity only", "/assets/app-1.js", "identity", "PLAIN-JS", "", "text/javascript", true},
		{"no sibling", "/assets/only-plain.css", "gzip, br", "PLAIN-CSS", "", "text/css", false},
		{"SPA fallback compressed", "/lands/7", "gzip", "GZ-INDEX", "gzip", "text/html", true},
		{"unknown type never compressed", "/blob", "gzip", "PLAIN-BLOB", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest("GET", tc.path, nil)
			if tc.accept != "" {
				req.Header.Set("Accept-Encoding", tc.accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 || rec.Body.String() != tc.body {
				t.Fatalf("status %d body %q, want 200 %q", rec.Code, rec.Body.String(), tc.body)
			}
			if got := rec.Header().Get("Content-Encoding"); got != tc.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, tc.encoding)
			}
			if got := rec.Header().Get("Vary") == "Accept-Encoding"; got != tc.vary {
				t.Errorf("Vary %q, want set=%v", rec.Header().Get("Vary"), tc.vary)
			}
			if tc.ctype != "" && !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.ctype) {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tc.ctype)
			}
			// ServeContent leaves Content-Length out of an encoded answer
			// (it is then chunked); a plain one must carry it.
			if got, want := rec.Header().Get("Content-Length"), strconv.Itoa(len(tc.body)); tc.encoding == "" && got != want {
				t.Errorf("Content-Length %q, want %q", got, want)
			}
		})
	}
}
