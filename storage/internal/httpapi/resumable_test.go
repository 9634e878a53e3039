package httpapi

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestResumableHTTP walks a TUS upload through the routes: discovery,
// creation with the first chunk, offset, append, the finished object, and
// the protocol's refusals with their HTTP statuses.
func TestResumableHTTP(t *testing.T) {
	t.Parallel()
	a := newTestAPI(t, 1<<20)
	svc := a.serviceKey
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	if st, _, body := (call{method: "POST", target: "/bucket", key: svc, contentType: "application/json", body: []byte(`{"name":"r"}`)}).do(t, a.app); st != 200 {
		t.Fatalf("create bucket: %d %s", st, body)
	}
	tus := func(h map[string]string) map[string]string {
		out := map[string]string{"Tus-Resumable": "1.0.0"}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	metadata := "bucketName " + b64("r") + ",objectName " + b64("docs/a.txt") + ",contentType " + b64("text/plain") + ",cacheControl " + b64("120")

	st, h, _ := call{method: "OPTIONS", target: "/upload/resumable"}.do(t, a.app)
	if st != 204 || h["tus-version"] != "1.0.0" || !strings.Contains(h["tus-extension"], "creation-with-upload") || h["tus-max-size"] != "1048576" {
		t.Errorf("OPTIONS: %d %v", st, h)
	}
	if st, _, body := (call{method: "POST", target: "/upload/resumable", key: svc, headers: map[string]string{"Upload-Length": "11", "Upload-Metadata": metadata}}).do(t, a.app); st != 412 {
		t.Errorf("creation without Tus-Resumable: %d %s", st, body)
	}
	if st, _, body := (call{method: "POST", target: "/upload/resumable", key: svc, headers: tus(map[string]string{"Upload-Metadata": metadata})}).do(t, a.app); st != 400 || !strings.Contains(body, "Upload-Length") {
		t.Errorf("creation without Upload-Length: %d %s", st, body)
	}
	if st, _, body := (call{method: "POST", target: "/upload/resumable", key: svc, headers: tus(map[string]string{"Upload-Length": "11", "Upload-Metadata": "bucketName !"})}).do(t, a.app); st != 400 || !strings.Contains(body, "InvalidParameter") {
		t.Errorf("creation with malformed metadata: %d %s", st, body)
	}
	if st, _, body := (call{method: "POST", target: "/upload/resumable", headers: tus(map[string]string{"Upload-Length": "11", "Upload-Metadata": metadata})}).do(t, a.app); st != 403 || !strings.Contains(body, `"statusCode":"403"`) {
		t.Errorf("anon creation: %d %s, want RLS's 403", st, body)
	}

	// Creation with the first chunk, behind the gateway.
	st, h, body := call{method: "POST", target: "/upload/resumable", key: svc, contentType: "application/offset+octet-stream",
		headers: tus(map[string]string{"Upload-Length": "11", "Upload-Metadata": metadata, "X-Forwarded-Host": "api.example.com", "X-Forwarded-Proto": "https", "X-Forwarded-Prefix": "/storage/v1"}),
		body:    []byte("hello")}.do(t, a.app)
	loc := h["location"]
	if st != 201 || h["upload-offset"] != "5" || !strings.HasPrefix(loc, "https://api.example.com/storage/v1/upload/resumable/") || h["tus-resumable"] != "1.0.0" || h["upload-expires"] == "" {
		t.Fatalf("creation with upload: %d %v %s", st, h, body)
	}
	path := "/upload/resumable/" + loc[strings.LastIndex(loc, "/")+1:]

	st, h, _ = call{method: "HEAD", target: path, key: svc, headers: tus(nil)}.do(t, a.app)
	if st != 200 || h["upload-offset"] != "5" || h["upload-length"] != "11" || h["cache-control"] != "no-store" {
		t.Errorf("HEAD: %d %v", st, h)
	}
	if st, _, _ := (call{method: "HEAD", target: path, key: a.userKey, headers: tus(nil)}).do(t, a.app); st != 404 {
		t.Errorf("HEAD as another user: %d, want 404", st)
	}
	for _, tc := range []struct {
		name        string
		contentType string
		offset      string
		want        int
	}{
		{"wrong content type", "text/plain", "5", 415},
		{"no offset", "application/offset+octet-stream", "", 400},
		{"negative offset", "application/offset+octet-stream", "-1", 400},
		{"stale offset", "application/offset+octet-stream", "0", 409},
	} {
		if st, _, body := (call{method: "PATCH", target: path, key: svc, contentType: tc.contentType, headers: tus(map[string]string{"Upload-Offset": tc.offset}), body: []byte(" world")}).do(t, a.app); st != tc.want {
			t.Errorf("PATCH %s: %d %s, want %d", tc.name, st, body, tc.want)
		}
	}
	st, h, body = call{method: "PATCH", target: path, key: svc, contentType: "application/offset+octet-stream", headers: tus(map[string]string{"Upload-Offset": "5"}), body: []byte(" world")}.do(t, a.app)
	if st != 204 || h["upload-offset"] != "11" {
		t.Fatalf("last PATCH: %d %v %s", st, h, body)
	}
	st, h, body = call{method: "GET", target: "/object/authenticated/r/docs/a.txt", key: svc}.do(t, a.app)
	if st != 200 || body != "hello world" || h["cache-control"] != "max-age=120" || !strings.HasPrefix(h["content-type"], "text/plain") {
		t.Errorf("finished object: %d %v %q", st, h, body)
	}
	if st, _, _ := (call{method: "HEAD", target: path, key: svc, headers: tus(nil)}).do(t, a.app); st != 404 {
		t.Errorf("HEAD of a finished upload: %d, want 404", st)
	}

	// Termination.
	_, h, _ = call{method: "POST", target: "/upload/resumable", key: svc, headers: tus(map[string]string{"Upload-Length": "3", "Upload-Metadata": "bucketName " + b64("r") + ",objectName " + b64("gone.txt")})}.do(t, a.app)
	path = "/upload/resumable/" + h["location"][strings.LastIndex(h["location"], "/")+1:]
	if st, _, body := (call{method: "DELETE", target: path, key: svc, headers: tus(nil)}).do(t, a.app); st != 204 {
		t.Errorf("DELETE: %d %s", st, body)
	}
	if st, _, _ := (call{method: "HEAD", target: path, key: svc, headers: tus(nil)}).do(t, a.app); st != 404 {
		t.Errorf("HEAD after DELETE: %d, want 404", st)
	}
}
