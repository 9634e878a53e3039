package httpapi

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// tinyPNG is a valid 2×2 PNG (the service re-encodes PNG uploads).
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.Set(1, 1, color.NRGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// invalidMime is Supabase Storage's ERRORS.InvalidMimeType(type) as the body
// of an HTTP 400.
func invalidMime(mimeType string) string {
	return `{"statusCode":"415","code":"InvalidMimeType","error":"invalid_mime_type","message":"mime type ` + mimeType + ` is not supported"}`
}

// TestContentTypeSniffing: an upload whose type is missing or
// application/octet-stream takes the type sniffed from its first bytes
// (except that octet-stream stays octet-stream for bytes that merely look
// like text); that type is what is stored, served, and checked against the
// bucket's allowed_mime_types. Raw bodies (the header) and multipart file
// parts (the part's header) behave alike.
func TestContentTypeSniffing(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t, 1<<20)
	svc := api.serviceKey
	for _, body := range []string{
		`{"name":"any","public":true}`,
		`{"name":"pics","public":true,"allowed_mime_types":["image/png","image/jpeg"]}`,
	} {
		if status, _, b := (call{method: "POST", target: "/bucket", key: svc, contentType: "application/json", body: []byte(body)}).do(t, api.app); status != 200 {
			t.Fatalf("create bucket %s: %d %s", body, status, b)
		}
	}
	pngBytes := tinyPNG(t)
	text := []byte("just some words, nothing else")
	html := []byte("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>")
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	binary := []byte{0x00, 0x01, 0x02, 0x03, 0xfe, 0xff, 0x00, 0x10}

	const none = "" // no Content-Type at all
	tests := []struct {
		name, bucket, declared string
		multipart              bool
		data                   []byte
		// wantMime is the stored metadata.mimetype (info's content_type);
		// wantServed the Content-Type a download answers with. Empty
		// wantErr means the upload succeeds.
		wantMime, wantServed, wantErr string
		// sandboxed: served with Content-Security-Policy: sandbox, as a
		// type a browser could run (the app shares the API's origin).
		sandboxed bool
	}{
		{name: "text, no type", bucket: "any", declared: none, data: text,
			wantMime: "text/plain; charset=utf-8", wantServed: "text/plain; charset=utf-8"},
		{name: "text, octet-stream", bucket: "any", declared: "application/octet-stream", data: text,
			wantMime: "application/octet-stream", wantServed: "application/octet-stream"},
		{name: "binary, octet-stream", bucket: "any", declared: "application/octet-stream", data: binary,
			wantMime: "application/octet-stream", wantServed: "application/octet-stream"},
		{name: "png, no type", bucket: "any", declared: none, data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "png, octet-stream", bucket: "any", declared: "application/octet-stream", data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "png, octet-stream with a parameter", bucket: "any", declared: "Application/Octet-Stream; x=y", data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "png part, no type", bucket: "any", declared: none, multipart: true, data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "png part, octet-stream", bucket: "any", declared: "application/octet-stream", multipart: true, data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "text part, no type", bucket: "any", declared: none, multipart: true, data: text,
			wantMime: "text/plain; charset=utf-8", wantServed: "text/plain; charset=utf-8"},
		// Stored as sniffed, but never served as HTML (upstream's
		// normalizeContentType): the API origin must not run uploaded
		// scripts.
		{name: "html, no type", bucket: "any", declared: none, data: html,
			wantMime: "text/html; charset=utf-8", wantServed: "text/plain", sandboxed: true},
		{name: "html, declared", bucket: "any", declared: "text/html", data: html,
			wantMime: "text/html", wantServed: "text/plain", sandboxed: true},
		// SVG is served as itself (an <img> shows it) but sandboxed, so
		// opened directly its script does not run on the app's origin.
		{name: "svg, declared", bucket: "any", declared: "image/svg+xml", data: svg,
			wantMime: "image/svg+xml", wantServed: "image/svg+xml", sandboxed: true},
		{name: "xml, declared", bucket: "any", declared: "text/xml", data: svg,
			wantMime: "text/xml", wantServed: "text/xml", sandboxed: true},

		// The image bucket checks the sniffed type, not the missing or
		// generic declared one.
		{name: "image bucket: png, no type", bucket: "pics", declared: none, data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "image bucket: png, octet-stream", bucket: "pics", declared: "application/octet-stream", data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "image bucket: png part, octet-stream", bucket: "pics", declared: "application/octet-stream", multipart: true, data: pngBytes,
			wantMime: "image/png", wantServed: "image/png"},
		{name: "image bucket: text, no type", bucket: "pics", declared: none, data: text,
			wantErr: invalidMime("text/plain")},
		{name: "image bucket: text part, no type", bucket: "pics", declared: none, multipart: true, data: text,
			wantErr: invalidMime("text/plain")},
		{name: "image bucket: html, no type", bucket: "pics", declared: none, data: html,
			wantErr: invalidMime("text/html")},
		{name: "image bucket: gif, octet-stream", bucket: "pics", declared: "application/octet-stream", data: gif,
			wantErr: invalidMime("image/gif")},
		{name: "image bucket: text, octet-stream", bucket: "pics", declared: "application/octet-stream", data: text,
			wantErr: invalidMime("application/octet-stream")},
		{name: "image bucket: text part, octet-stream", bucket: "pics", declared: "application/octet-stream", multipart: true, data: text,
			wantErr: invalidMime("application/octet-stream")},
	}
	for i, tt := range tests {
		name := "f" + string(rune('a'+i))
		c := call{method: "POST", target: "/object/" + tt.bucket + "/" + name, key: svc, contentType: tt.declared, body: tt.data}
		if tt.multipart {
			c.contentType, c.body = filePart(t, tt.declared, tt.data)
		}
		status, _, body := c.do(t, api.app)
		info := call{method: "GET", target: "/object/info/" + tt.bucket + "/" + name, key: svc}
		if tt.wantErr != "" {
			if status != 400 || body != tt.wantErr {
				t.Errorf("%s: %d %s\nwant 400 %s", tt.name, status, body, tt.wantErr)
			}
			if status, _, body := info.do(t, api.app); status != 400 || !strings.Contains(body, `"code":"NoSuchKey"`) {
				t.Errorf("%s: info after the refusal %d %s, want NoSuchKey", tt.name, status, body)
			}
			continue
		}
		if status != 200 {
			t.Errorf("%s: %d %s, want 200", tt.name, status, body)
			continue
		}
		status, _, body = info.do(t, api.app)
		var got struct {
			ContentType string `json:"content_type"`
		}
		if status != 200 || json.Unmarshal([]byte(body), &got) != nil || got.ContentType != tt.wantMime {
			t.Errorf("%s: stored type %q (%d %s), want %q", tt.name, got.ContentType, status, body, tt.wantMime)
		}
		for _, method := range []string{"GET", "HEAD"} {
			status, h, _ := call{method: method, target: "/object/public/" + tt.bucket + "/" + name}.do(t, api.app)
			if status != 200 || h["content-type"] != tt.wantServed {
				t.Errorf("%s: %s answers %d with Content-Type %q, want %q", tt.name, method, status, h["content-type"], tt.wantServed)
			}
			if h["x-content-type-options"] != "nosniff" {
				t.Errorf("%s: %s X-Content-Type-Options %q, want nosniff", tt.name, method, h["x-content-type-options"])
			}
			if got := h["content-security-policy"] == "sandbox"; got != tt.sandboxed {
				t.Errorf("%s: %s Content-Security-Policy %q, want sandboxed %v", tt.name, method, h["content-security-policy"], tt.sandboxed)
			}
		}
	}
}
