// Package cors answers browser preflights and decorates API responses with
// the CORS headers supabase-js needs (supabase-compat.md §0).
//
// Credentials are allowed (Supabase Auth sets AllowCredentials), so the
// allowed origin is always echoed, never "*".
package cors

import (
	"net/http"
	"strings"
)

// Methods is the Access-Control-Allow-Methods value.
const Methods = "GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS"

// AllowHeaders is sent when a preflight names no headers: everything
// supabase-js and its sub-clients send.
const AllowHeaders = "authorization, apikey, content-type, accept, accept-profile, content-profile, prefer, range, range-unit, x-client-info, x-supabase-api-version, x-upsert, x-metadata, cache-control, content-encoding, x-retry-count, traceparent, tracestate, baggage, x-region, tus-resumable, upload-length, upload-offset, upload-metadata, upload-defer-length, upload-concat"

// ExposeHeaders is the union of what PostgREST, Supabase Auth and Storage
// clients read, TUS clients' protocol headers included; without it the
// browser hides them (and count is null, a resumable upload cannot resume).
const ExposeHeaders = "Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit, X-Total-Count, Link, X-Supabase-Api-Version, x-sb-error-code, Content-Length, ETag, Last-Modified, Cache-Control, Content-Disposition, X-Request-Id, Preference-Applied, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Upload-Offset, Upload-Length, Upload-Expires, Upload-Metadata"

// MaxAge lets browsers cache a preflight for a day.
const MaxAge = "86400"

// Pre-built header values, so the hot path shares them instead of
// allocating a slice per response. Header maps own their slices only by
// convention; nothing in the gateway appends to these.
var (
	valTrue    = []string{"true"}
	valExpose  = []string{ExposeHeaders}
	valMethods = []string{Methods}
	valHeaders = []string{AllowHeaders}
	valMaxAge  = []string{MaxAge}
)

// Policy decides which origins get CORS headers.
type Policy struct {
	any     bool
	allowed map[string]struct{}
}

// New builds a Policy from a list of origins; "*" allows any origin.
func New(origins []string) *Policy {
	p := &Policy{allowed: make(map[string]struct{}, len(origins))}
	for _, o := range origins {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "*" {
			p.any = true
			continue
		}
		if o != "" {
			p.allowed[strings.ToLower(o)] = struct{}{}
		}
	}
	return p
}

// Allowed reports whether origin may read responses.
func (p *Policy) Allowed(origin string) bool {
	if origin == "" {
		return false
	}
	if p.any {
		return true
	}
	_, ok := p.allowed[strings.ToLower(origin)]
	return ok
}

// IsPreflight reports whether r is a CORS preflight, which the gateway
// answers itself and never forwards.
func IsPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != ""
}

// Preflight answers a preflight with 204. A disallowed origin gets no CORS
// headers, so the browser blocks the actual request.
func (p *Policy) Preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Vary"] = []string{"Origin"}
	if origin := r.Header.Get("Origin"); p.Allowed(origin) {
		h["Access-Control-Allow-Origin"] = []string{origin}
		h["Access-Control-Allow-Credentials"] = valTrue
		h["Access-Control-Allow-Methods"] = valMethods
		// Echo the requested headers, as PostgREST does: custom headers
		// (x-client-info variants, tracing) keep working without a list.
		if req := r.Header.Values("Access-Control-Request-Headers"); len(req) > 0 {
			h["Access-Control-Allow-Headers"] = []string{strings.Join(req, ", ")}
		} else {
			h["Access-Control-Allow-Headers"] = valHeaders
		}
		h["Access-Control-Max-Age"] = valMaxAge
	}
	w.WriteHeader(http.StatusNoContent)
}

// Decorate sets the actual-response CORS headers for an allowed Origin. It
// must run before the upstream's headers are merged in; StripUpstream
// removes the upstream's own CORS headers so these are the only ones.
func (p *Policy) Decorate(h http.Header, origin string) {
	if !p.Allowed(origin) {
		return
	}
	h["Access-Control-Allow-Origin"] = []string{origin}
	h["Access-Control-Allow-Credentials"] = valTrue
	h["Access-Control-Expose-Headers"] = valExpose
	// A fresh slice: the proxy appends the upstream's Vary values to it.
	h["Vary"] = []string{"Origin"}
}

// StripUpstream deletes every Access-Control-* header from an upstream
// response.
func StripUpstream(h http.Header) {
	for k := range h {
		if len(k) > 15 && strings.EqualFold(k[:15], "Access-Control-") {
			delete(h, k)
		}
	}
}
