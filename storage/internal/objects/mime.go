package objects

import (
	"mime"
	"net/http"
	"strings"
)

// BaseType is the media type of a Content-Type value without parameters,
// lower-cased: "text/plain;charset=UTF-8" is "text/plain".
func BaseType(contentType string) string {
	t, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		t, _, _ = strings.Cut(contentType, ";")
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// MimeAllowed reports whether contentType matches one of allowed (exact
// types or "type/*" wildcards); an empty list allows everything.
func MimeAllowed(contentType string, allowed []string) bool {
	if len(allowed) == 0 {
		return true
	}
	t := BaseType(contentType)
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == t {
			return true
		}
		if prefix, ok := strings.CutSuffix(a, "/*"); ok && strings.HasPrefix(t, prefix+"/") {
			return true
		}
	}
	return false
}

// imageTypes are the image formats whose declared type is checked against
// the bytes: a file sent as image/png must be a PNG.
var imageTypes = map[string]bool{
	"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true, "image/bmp": true,
}

// SniffMismatch reports whether head (the first bytes of an upload) contradicts
// a declared image type: declared image/png but the bytes are not a PNG.
// Only image types are checked; other types are taken as declared.
func SniffMismatch(declared string, head []byte) bool {
	t := BaseType(declared)
	if !imageTypes[t] {
		return false
	}
	return BaseType(http.DetectContentType(head)) != t
}

// InertType reports whether a browser shows a file of this stored type
// without running anything in it: pictures (not SVG, which can carry
// script), sound, video, fonts, PDF (its viewer runs apart from the page),
// plain text and data types a browser only downloads or displays. An empty
// type is served as application/octet-stream, which is inert.
func InertType(contentType string) bool {
	t := BaseType(contentType)
	switch t {
	case "image/svg+xml":
		return false
	case "", "application/pdf", "application/octet-stream", "application/json", "application/zip", "text/plain", "text/csv":
		return true
	}
	for _, kind := range []string{"image/", "audio/", "video/", "font/"} {
		if strings.HasPrefix(t, kind) {
			return true
		}
	}
	return false
}
