// Package apierr holds the gateway's own error responses, with Kong's and
// Supabase's exact texts (and the services' own, where the gateway refuses
// a request on a service's behalf), and the one function that writes them.
//
// The bodies are static, so they are encoded once here rather than
// marshalled on every rejected request.
package apierr

import (
	"net/http"
	"strconv"
	"time"
)

// Error is a complete JSON error response.
type Error struct {
	Status int
	Body   []byte
	// Headers are extra response headers, name and value, set before the
	// status is written.
	Headers [][2]string
}

// The responses the gateway itself produces.
var (
	// NoAPIKey is Supabase's answer to a request without apikey when keys
	// are enforced.
	NoAPIKey = Error{Status: http.StatusUnauthorized, Body: []byte(`{"message":"No API key found in request","hint":"No ` + "`apikey`" + ` request header or url param was found."}`)}
	// InvalidAPIKey is Supabase's answer to an unknown or invalid apikey.
	InvalidAPIKey = Error{Status: http.StatusUnauthorized, Body: []byte(`{"message":"Invalid API key","hint":"Double check your Supabase ` + "`anon`" + ` or ` + "`service_role`" + ` API key."}`)}
	// BadGateway is Kong's text when an upstream cannot be reached.
	BadGateway = Error{Status: http.StatusBadGateway, Body: []byte(`{"message":"An invalid response was received from the upstream server"}`)}
	// RateLimited is Kong's rate-limiting plugin text.
	RateLimited = Error{Status: http.StatusTooManyRequests, Body: []byte(`{"message":"API rate limit exceeded"}`)}
	// MethodNotAllowed answers methods a gateway-own path does not serve.
	MethodNotAllowed = Error{Status: http.StatusMethodNotAllowed, Body: []byte(`{"message":"Method not allowed"}`)}
	// MetricsForbidden answers /metrics from a non-loopback client while
	// the metrics are not public.
	MetricsForbidden = Error{Status: http.StatusForbidden, Body: []byte(`{"message":"Metrics are only served to loopback clients"}`)}
	// ProfilesForbidden answers /debug/pprof/ from a non-loopback client
	// (GATEWAY_PPROF serves them to loopback peers only).
	ProfilesForbidden = Error{Status: http.StatusForbidden, Body: []byte(`{"message":"Profiles are only served to loopback clients"}`)}
	// RestBodyTooLarge is what rest and rpc answer a body over their limit
	// (PGRST102, as their error handler renders Fiber's 413), so a body
	// the gateway refuses for them reads the same.
	RestBodyTooLarge = Error{Status: http.StatusRequestEntityTooLarge, Body: []byte(`{"code":"PGRST102","details":null,"hint":null,"message":"Request body too large"}`)}
	// FunctionsBodyTooLarge is what the payments service (/functions/v1)
	// answers a body over its limit.
	FunctionsBodyTooLarge = Error{Status: http.StatusRequestEntityTooLarge, Body: []byte(`{"code":"payload_too_large","message":"The request body is too large"}`)}
)

// authsvc's answers to a body over its limit: Fiber's 413 given GoTrue's
// validation_failed code, in the legacy shape and in the 2024-01-01 one.
var (
	authBodyTooLargeLegacy = Error{
		Status:  http.StatusRequestEntityTooLarge,
		Body:    []byte(`{"code":413,"error_code":"validation_failed","msg":"Request Entity Too Large"}`),
		Headers: [][2]string{{authErrorCodeHeader, "validation_failed"}},
	}
	authBodyTooLarge20240101 = Error{
		Status:  http.StatusRequestEntityTooLarge,
		Body:    []byte(`{"code":"validation_failed","message":"Request Entity Too Large"}`),
		Headers: [][2]string{{AuthAPIVersionHeader, "2024-01-01"}, {authErrorCodeHeader, "validation_failed"}},
	}
)

// AuthAPIVersionHeader is the request header that picks GoTrue's error
// shape (supabase/auth internal/api/errors.go).
const AuthAPIVersionHeader = "X-Supabase-Api-Version"

const authErrorCodeHeader = "X-Sb-Error-Code"

// authAPIVersion20240101 is the first dated API version, the one whose
// error bodies are {code, message}.
var authAPIVersion20240101 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// AuthBodyTooLarge is what authsvc answers a body over its limit, in the
// shape a request with this X-Supabase-Api-Version value gets: {code,
// message} from 2024-01-01 on, else (also for an unparseable value) the
// legacy {code, error_code, msg}.
func AuthBodyTooLarge(apiVersion string) Error {
	v, err := time.ParseInLocation("2006-01-02", apiVersion, time.UTC)
	if err != nil || v.Before(authAPIVersion20240101) {
		return authBodyTooLargeLegacy
	}
	return authBodyTooLarge20240101
}

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
	for _, kv := range e.Headers {
		h.Set(kv[0], kv[1])
	}
	h["Content-Type"] = []string{"application/json; charset=utf-8"}
	h["Content-Length"] = []string{strconv.Itoa(len(e.Body))}
	w.WriteHeader(e.Status)
	_, _ = w.Write(e.Body)
}
