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
	"bytes"
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
	CodeResourceNotEmpty      = "ResourceNotEmpty"
	CodeInvalidRange          = "InvalidRange"
	CodeInvalidSignature      = "InvalidSignature"
	CodeSlowDown              = "SlowDown"
	CodeNoSuchUpload          = "NoSuchUpload"

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
	// Without HTML escaping, as upstream's Fastify prints messages ("must be
	// >= 1", not "\u003e= 1"); strings always encode.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body{StatusCode: strconv.Itoa(e.Status), Code: e.Code, Error: text, Message: e.Message})
	b = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return e.ResponseStatus(), b, expected
}

// The constructors below are upstream's ERRORS factory entries
// (supabase/storage src/internal/errors/codes.ts), message for message.

// NoSuchBucket is ERRORS.NoSuchBucket.
func NoSuchBucket() *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNoSuchBucket, ErrorText: "Bucket not found", Message: "Bucket not found"}
}

// NoSuchKey is ERRORS.NoSuchKey.
func NoSuchKey() *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNoSuchKey, ErrorText: "not_found", Message: "Object not found"}
}

// InvalidKey is ERRORS.InvalidKey for an object name the service refuses.
func InvalidKey(key string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidKey, Message: "Invalid key: " + key}
}

// InvalidBucketName is ERRORS.InvalidBucketName.
func InvalidBucketName() *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidBucketName, ErrorText: "Invalid Input", Message: "Bucket name invalid"}
}

// KeyAlreadyExists is ERRORS.KeyAlreadyExists: an upload without x-upsert
// onto an existing object, or a move/copy onto one.
func KeyAlreadyExists() *Error {
	return &Error{Status: http.StatusConflict, Code: CodeKeyAlreadyExists, ErrorText: "Duplicate", Message: "The resource already exists"}
}

// BucketAlreadyExists is ERRORS.BucketAlreadyExists.
func BucketAlreadyExists() *Error {
	return &Error{Status: http.StatusConflict, Code: CodeBucketAlreadyExists, ErrorText: "Duplicate", Message: "The resource already exists"}
}

// BucketNotEmpty is ERRORS.BucketNotEmpty.
func BucketNotEmpty() *Error {
	return &Error{Status: http.StatusConflict, Code: CodeResourceNotEmpty, Message: "The bucket you tried to delete is not empty"}
}

// AccessDenied is ERRORS.AccessDenied; message empty means "Access denied".
func AccessDenied(message string) *Error {
	if message == "" {
		message = "Access denied"
	}
	return &Error{Status: http.StatusForbidden, Code: CodeAccessDenied, ErrorText: "Unauthorized", Message: message}
}

// RLSDenied is the AccessDenied a row-level security refusal becomes.
func RLSDenied() *Error { return AccessDenied("new row violates row-level security policy") }

// InvalidMimeType is ERRORS.InvalidMimeType.
func InvalidMimeType(mimeType string) *Error {
	return &Error{Status: http.StatusUnsupportedMediaType, Code: CodeInvalidMimeType, ErrorText: "invalid_mime_type", Message: "mime type " + mimeType + " is not supported"}
}

// InvalidJWT is ERRORS.InvalidJWT; message empty means "Invalid JWT".
func InvalidJWT(message string) *Error {
	if message == "" {
		message = "Invalid JWT"
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidJWT, Message: message}
}

// MissingParameter is ERRORS.MissingParameter.
func MissingParameter(name string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeMissingParameter, Message: "Missing Required Parameter " + name}
}

// InvalidParameter is ERRORS.InvalidParameter; message empty means
// "Invalid Parameter <name>".
func InvalidParameter(name, message string) *Error {
	if message == "" {
		message = "Invalid Parameter " + name
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidParameter, Message: message}
}

// InvalidRange is ERRORS.InvalidRange.
func InvalidRange() *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRange, ErrorText: "invalid_range", Message: "invalid range provided"}
}

// NoContentProvided is ERRORS.NoContentProvided.
func NoContentProvided() *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, Message: "No content provided"}
}

// InvalidFileSizeLimit is ERRORS.InvalidFileSizeLimit.
func InvalidFileSizeLimit() *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, Message: "Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B"}
}

// ImageRefused is ERRORS.ImageProcessingError with a 4xx status: an image
// upload the service will not decode (absurd dimensions, corrupt data).
func ImageRefused(status int, message string) *Error {
	return &Error{Status: status, Code: CodeInvalidRequest, Message: message}
}

// SlowDown is the answer upstream's rate limiter gives (code SlowDown,
// HTTP 429 on the wire as in the body): the service is at capacity and the
// request may be retried later.
func SlowDown(message string) *Error {
	return &Error{
		Status:     http.StatusTooManyRequests,
		HTTPStatus: http.StatusTooManyRequests,
		Code:       CodeSlowDown,
		ErrorText:  "Too Many Requests",
		Message:    message,
	}
}

// InvalidSignature is ERRORS.InvalidSignature: a signed URL token issued for
// another object.
func InvalidSignature(message string) *Error {
	if message == "" {
		message = "Invalid signature"
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidSignature, Message: message}
}
