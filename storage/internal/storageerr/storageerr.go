// Package storageerr holds storage's coded errors and renders them in
// Supabase Storage's envelope (supabase/storage src/internal/errors:
// codes.ts, storage-error.ts, renderError):
//
//	{"statusCode":"404","code":"NoSuchKey","error":"not_found","message":"Object not found"}
//
// The body's statusCode is the error's own status, as a string; the HTTP
// status is 400 for every error below 500 (storage-js reads the real one
// from the body), the error's own for 500, or an explicit override.
//
// The package knows nothing of HTTP servers; the httpapi error handler writes
// what Render returns.
package storageerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// Codes, spelled as supabase/storage's ErrorCode enum.
const (
	CodeNoSuchBucket          = "NoSuchBucket"
	CodeNoSuchKey             = "NoSuchKey"
	CodeInvalidJWT            = "InvalidJWT"
	CodeInvalidRequest        = "InvalidRequest"
	CodeEntityTooLarge        = "EntityTooLarge"
	CodeInternalError         = "InternalError"
	CodeResourceAlreadyExists = "ResourceAlreadyExists"
	CodeInvalidBucketName     = "InvalidBucketName"
	CodeInvalidKey            = "InvalidKey"
	CodeInvalidMimeType       = "InvalidMimeType"
	CodeKeyAlreadyExists      = "KeyAlreadyExists"
	CodeBucketAlreadyExists   = "BucketAlreadyExists"
	CodeAccessDenied          = "AccessDenied"
	CodeMissingParameter      = "MissingParameter"
	CodeInvalidParameter      = "InvalidParameter"

	// CodeNotImplemented is KejaNest's own: a route Supabase Storage has and
	// this service does not yet. It disappears with the last such route.
	CodeNotImplemented = "NotImplemented"
)

// Error is one storage error.
type Error struct {
	// Status is the error's own HTTP status, reported as the body's
	// statusCode.
	Status int
	// Code is one of the Code constants.
	Code string
	// ErrorText is the body's "error" field, kept for old clients; empty
	// means Code, as upstream does.
	ErrorText string
	// Message is the human-readable description.
	Message string
	// HTTPStatus, when set, overrides the HTTP status the error is answered
	// with (upstream's withStatusCode).
	HTTPStatus int
	// Cause is logged, never sent.
	Cause error
}

// Error returns "Code (status): message", and the cause when there is one.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message)
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// ResponseStatus is the HTTP status e is answered with.
func (e *Error) ResponseStatus() int {
	switch {
	case e.HTTPStatus != 0:
		return e.HTTPStatus
	case e.Status == http.StatusInternalServerError:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// NotImplemented answers a route this service does not serve yet: HTTP 501
// with statusCode "501". what names the route.
func NotImplemented(what string) *Error {
	return &Error{
		Status:     http.StatusNotImplemented,
		HTTPStatus: http.StatusNotImplemented,
		Code:       CodeNotImplemented,
		Message:    what + " is not implemented yet",
	}
}

// EntityTooLarge is upstream's ERRORS.EntityTooLarge for an object.
func EntityTooLarge() *Error {
	return &Error{
		Status:    http.StatusRequestEntityTooLarge,
		Code:      CodeEntityTooLarge,
		ErrorText: "Payload too large",
		Message:   "The object exceeded the maximum allowed size",
	}
}

// InvalidRequest is a malformed request with the given status and message.
func InvalidRequest(status int, message string) *Error {
	return &Error{Status: status, Code: CodeInvalidRequest, Message: message}
}

// Internal is upstream's ERRORS.InternalError: the cause is logged, the
// client sees a generic message with the request id.
func Internal(requestID string) *Error {
	msg := "Internal server error"
	if requestID != "" {
		msg += " (request id " + requestID + ")"
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternalError, Message: msg}
}

// body is the wire envelope; field order is upstream's.
type body struct {
	StatusCode string `json:"statusCode"`
	Code       string `json:"code"`
	Error      string `json:"error"`
	Message    string `json:"message"`
}

// Render returns the HTTP status and body answering err: err's own if it is
// (or wraps) an *Error, else Internal(requestID). expected is false in the
// second case, so the caller logs err.
func Render(err error, requestID string) (status int, b []byte, expected bool) {
	var e *Error
	expected = errors.As(err, &e)
	if !expected {
		e = Internal(requestID)
	}
	text := e.ErrorText
	if text == "" {
		text = e.Code
	}
	b, _ = json.Marshal(body{StatusCode: strconv.Itoa(e.Status), Code: e.Code, Error: text, Message: e.Message}) // strings always encode
	return e.ResponseStatus(), b, expected
}
