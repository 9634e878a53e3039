// Package pgrsterr holds PostgREST's error body and the codes our PostgREST
// pipeline answers with (PostgREST src/library/PostgREST/Error.hs).
//
// Every error body has exactly four keys, code, details, hint and message,
// each null when absent, in the order PostgREST writes them. The package knows
// nothing of HTTP servers: Render turns any error into a status and a body,
// and the HTTP layer (rest's and rpc's httpapi) writes them with ContentType.
package pgrsterr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// ContentType is the Content-Type of every error body.
const ContentType = "application/json; charset=utf-8"

// Error is one PostgREST error: the HTTP status it is answered with and the
// body's four fields.
type Error struct {
	// Status is the HTTP status.
	Status int
	// Code is a PGRSTnnn code or a Postgres SQLSTATE.
	Code string
	// Message is the one-line description.
	Message string
	// Details is nil (null), a string ("" is null), or any JSON-encodable
	// value (PGRST201 lists the candidate relationships as objects).
	Details any
	// Hint is "" (null) or a suggestion for the client.
	Hint string
	// Headers are extra response headers (WWW-Authenticate on 401s, the
	// headers of a RAISE SQLSTATE 'PGRST'), in the order to send them.
	Headers [][2]string
}

// Error returns "CODE: message".
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// body is the wire form; field order is PostgREST's.
type body struct {
	Code    string  `json:"code"`
	Details any     `json:"details"`
	Hint    *string `json:"hint"`
	Message string  `json:"message"`
}

// MarshalJSON writes the four-key body.
func (e *Error) MarshalJSON() ([]byte, error) {
	b := body{Code: e.Code, Details: e.Details, Message: e.Message}
	if d, ok := e.Details.(string); ok && d == "" {
		b.Details = nil
	}
	if e.Hint != "" {
		h := e.Hint
		b.Hint = &h
	}
	return marshal(b)
}

// marshal encodes v as PostgREST (aeson) does: without escaping <, > and &
// as \u003c, \u003e and \u0026, which encoding/json does by default (and
// to a Marshaler's output too).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// NotImplemented is PGRST127, answered 400: the request is well formed but
// asks for something this server does not do yet. details says what.
func NotImplemented(details string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST127", Message: "Feature not implemented", Details: details}
}

// InvalidRPCMethod is PGRST101, answered 405: functions are called only
// with GET, HEAD or POST.
func InvalidRPCMethod(method string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: "PGRST101", Message: fmt.Sprintf("Cannot use the %s method on RPC", method)}
}

// InvalidResourcePath is PGRST125, answered 404: the URL names no resource.
func InvalidResourcePath() *Error {
	return &Error{Status: http.StatusNotFound, Code: "PGRST125", Message: "Invalid path specified in request URL"}
}

// UnsupportedMethod is PGRST117, answered 405.
func UnsupportedMethod(method string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: "PGRST117", Message: "Unsupported HTTP method: " + method}
}

// InvalidBody is PGRST102, answered 400 (or the given status, such as 413
// for a body over the size limit).
func InvalidBody(status int, message string) *Error {
	if status == 0 {
		status = http.StatusBadRequest
	}
	return &Error{Status: status, Code: "PGRST102", Message: message}
}

// Internal is PGRSTX00, answered 500: a failure the client cannot act on.
// The cause is logged, never sent; the request id lets an operator find it.
func Internal(requestID string) *Error {
	e := &Error{Status: http.StatusInternalServerError, Code: "PGRSTX00", Message: "Internal server error"}
	if requestID != "" {
		e.Details = "request id " + requestID
	}
	return e
}

// Render returns the status and body answering err: err's own if it is (or
// wraps) an *Error, else Internal(requestID). expected reports which case it
// was, so the caller logs the unexpected ones.
func Render(err error, requestID string) (status int, body []byte, expected bool) {
	var e *Error
	expected = errors.As(err, &e)
	if !expected {
		e = Internal(requestID)
	}
	body, merr := marshal(e)
	if merr != nil { // Details held something unencodable: a programming error
		e, expected = Internal(requestID), false
		body, _ = marshal(e)
	}
	return e.Status, body, expected
}
