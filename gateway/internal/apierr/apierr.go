// Package apierr holds the gateway's own error responses, with Kong's and
// Supabase's exact texts, and the one function that writes them.
//
// The bodies are static, so they are encoded once here rather than
// marshalled on every rejected request.
package apierr

import (
	"net/http"
	"strconv"
)

// Error is a complete JSON error response.
type Error struct {
	Status int
	Body   []byte
}

// The responses the gateway itself produces.
var (
	// NoAPIKey is Supabase's answer to a request without apikey when keys
	// are enforced.
	NoAPIKey = Error{http.StatusUnauthorized, []byte(`{"message":"No API key found in request","hint":"No ` + "`apikey`" + ` request header or url param was found."}`)}
	// InvalidAPIKey is Supabase's answer to an unknown or invalid apikey.
	InvalidAPIKey = Error{http.StatusUnauthorized, []byte(`{"message":"Invalid API key","hint":"Double check your Supabase ` + "`anon`" + ` or ` + "`service_role`" + ` API key."}`)}
	// BadGateway is Kong's text when an upstream cannot be reached.
	BadGateway = Error{http.StatusBadGateway, []byte(`{"message":"An invalid response was received from the upstream server"}`)}
	// RateLimited is Kong's rate-limiting plugin text.
	RateLimited = Error{http.StatusTooManyRequests, []byte(`{"message":"API rate limit exceeded"}`)}
	// MethodNotAllowed answers methods a gateway-own path does not serve.
	MethodNotAllowed = Error{http.StatusMethodNotAllowed, []byte(`{"message":"Method not allowed"}`)}
	// MetricsForbidden answers /metrics from a non-loopback client while
	// the metrics are not public.
	MetricsForbidden = Error{http.StatusForbidden, []byte(`{"message":"Metrics are only served to loopback clients"}`)}
)

// WriteInternal answers an unexpected failure with a generic message and
// the request id, so the client can quote it and the cause stays in the
// log.
func WriteInternal(w http.ResponseWriter, requestID string) {
	body := make([]byte, 0, 96+len(requestID))
	body = append(body, `{"message":"Internal gateway error","request_id":`...)
	body = strconv.AppendQuote(body, requestID)
	body = append(body, '}')
	Write(w, Error{Status: http.StatusInternalServerError, Body: body})
}

// Write sends e. Headers already set on w (CORS, request id) are kept.
func Write(w http.ResponseWriter, e Error) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json; charset=utf-8"}
	h["Content-Length"] = []string{strconv.Itoa(len(e.Body))}
	w.WriteHeader(e.Status)
	_, _ = w.Write(e.Body)
}
