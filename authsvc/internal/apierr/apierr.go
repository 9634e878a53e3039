// Package apierr holds authsvc's coded errors and renders them in the two
// body shapes GoTrue answers with (supabase/auth internal/api/errors.go,
// HandleResponseError):
//
//   - when the request's X-Supabase-Api-Version is 2024-01-01 or later
//     (auth-js always sends it): {"code":"<error_code>","message":"…"}, with
//     the response headers X-Supabase-Api-Version: 2024-01-01 and
//     x-sb-error-code;
//   - otherwise the legacy {"code":<http status>,"error_code":"…","msg":"…"}
//     (plus "error_id", the request id, on 5xx), with x-sb-error-code.
//
// The package knows nothing of HTTP servers; the api package's error handler
// writes the Response that Render returns.
package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Header names.
const (
	HeaderAPIVersion = "X-Supabase-Api-Version"
	HeaderErrorCode  = "x-sb-error-code"
)

// APIVersion20240101 is the first dated API version, the one that switched
// error bodies to {code, message}.
var APIVersion20240101 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// apiVersionLayout is how versions are written in the header.
const apiVersionLayout = "2006-01-02"

// unexpectedMessage is GoTrue's text for failures the client cannot act on.
const unexpectedMessage = "Unexpected failure, please check server logs for more information"

// Error is an error with an HTTP status, an error code from codes.go and a
// message for the client. Cause is logged, never sent.
type Error struct {
	HTTPStatus int
	Code       string
	Message    string
	Cause      error
	// WeakPasswordReasons, when set, adds GoTrue's
	// "weak_password":{"reasons":[…]} to the body.
	WeakPasswordReasons []string
	// OAuthError, when set, makes this an OAuth 2.0 error (GoTrue's
	// OAuthError): the body is {"error","error_description"} in every API
	// version, without an error code header.
	OAuthError string
}

// Error returns "status code: message", and the cause when there is one.
func (e *Error) Error() string {
	s := fmt.Sprintf("%d %s: %s", e.HTTPStatus, e.Code, e.Message)
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// New returns an Error with a formatted message.
func New(status int, code, format string, args ...any) *Error {
	return &Error{HTTPStatus: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotImplemented is the 501 answered by routes GoTrue has and authsvc does
// not yet; what names the route.
func NotImplemented(what string) *Error {
	return New(http.StatusNotImplemented, CodeNotImplemented, "%s is not implemented yet", what)
}

// ParseAPIVersion returns the API version a request asks for: the zero time
// (GoTrue's initial version) when header is empty or predates 2024-01-01,
// else APIVersion20240101, the latest dated version. An unparseable header
// gives the initial version and an error to log.
func ParseAPIVersion(header string) (time.Time, error) {
	if header == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(apiVersionLayout, header, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse %s %q: %w", HeaderAPIVersion, header, err)
	}
	if t.Before(APIVersion20240101) {
		return time.Time{}, nil
	}
	return APIVersion20240101, nil
}

// Response is a rendered error: what to send.
type Response struct {
	Status int
	// Headers are name/value pairs to set on the response.
	Headers [][2]string
	Body    []byte
	// Unexpected is true when err was not an *Error; its text must be
	// logged, since the body only says "unexpected failure".
	Unexpected bool
}

// body20240101 is the {code, message} shape.
type body20240101 struct {
	Code         string        `json:"code"`
	Message      string        `json:"message"`
	WeakPassword *weakPassword `json:"weak_password,omitempty"`
}

type weakPassword struct {
	Reasons []string `json:"reasons"`
}

// bodyLegacy is the shape before 2024-01-01; field order is GoTrue's.
type bodyLegacy struct {
	Code         int           `json:"code"`
	ErrorCode    string        `json:"error_code,omitempty"`
	Msg          string        `json:"msg"`
	ErrorID      string        `json:"error_id,omitempty"`
	WeakPassword *weakPassword `json:"weak_password,omitempty"`
}

// Render turns err into the response GoTrue would send to a request whose
// X-Supabase-Api-Version header is apiVersionHeader. requestID is reported
// as the legacy body's error_id on 5xx answers.
func Render(err error, apiVersionHeader, requestID string) Response {
	version, _ := ParseAPIVersion(apiVersionHeader) // a bad header means the initial version
	dated := !version.IsZero()

	var e *Error
	unexpected := !errors.As(err, &e)
	if unexpected {
		e = &Error{HTTPStatus: http.StatusInternalServerError, Code: CodeUnexpectedFailure, Message: unexpectedMessage}
	}
	if e.OAuthError != "" {
		r := Response{Status: e.HTTPStatus}
		if dated {
			r.Headers = append(r.Headers, [2]string{HeaderAPIVersion, version.Format(apiVersionLayout)})
		}
		r.Body, _ = json.Marshal(oauthBody{Error: e.OAuthError, Description: e.Message})
		return r
	}
	code := e.Code
	if code == "" {
		code = CodeUnknown
		if e.HTTPStatus == http.StatusInternalServerError {
			code = CodeUnexpectedFailure
		}
	}

	r := Response{Status: e.HTTPStatus, Unexpected: unexpected}
	if dated {
		r.Headers = append(r.Headers, [2]string{HeaderAPIVersion, version.Format(apiVersionLayout)})
	}
	r.Headers = append(r.Headers, [2]string{HeaderErrorCode, code})

	var wp *weakPassword
	if len(e.WeakPasswordReasons) > 0 {
		wp = &weakPassword{Reasons: e.WeakPasswordReasons}
	}
	var v any = body20240101{Code: code, Message: e.Message, WeakPassword: wp}
	if !dated {
		b := bodyLegacy{Code: e.HTTPStatus, ErrorCode: code, Msg: e.Message, WeakPassword: wp}
		if e.HTTPStatus >= http.StatusInternalServerError {
			b.ErrorID = requestID
		}
		v = b
	}
	r.Body, _ = json.Marshal(v) // plain strings and ints always encode
	return r
}

// oauthBody is GoTrue's OAuthError shape.
type oauthBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// Constructors for the statuses GoTrue uses.

// OAuth is GoTrue's oauthError(name, description): 400 with the OAuth 2.0
// error body, as the id_token grant answers a token it refuses.
func OAuth(name, description string) *Error {
	return &Error{HTTPStatus: http.StatusBadRequest, OAuthError: name, Message: description}
}

// BadRequest is a 400.
func BadRequest(code, format string, args ...any) *Error {
	return New(http.StatusBadRequest, code, format, args...)
}

// Unauthorized is a 401.
func Unauthorized(code, format string, args ...any) *Error {
	return New(http.StatusUnauthorized, code, format, args...)
}

// Forbidden is a 403.
func Forbidden(code, format string, args ...any) *Error {
	return New(http.StatusForbidden, code, format, args...)
}

// NotFound is a 404.
func NotFound(code, format string, args ...any) *Error {
	return New(http.StatusNotFound, code, format, args...)
}

// Unprocessable is a 422.
func Unprocessable(code, format string, args ...any) *Error {
	return New(http.StatusUnprocessableEntity, code, format, args...)
}

// TooManyRequests is a 429.
func TooManyRequests(code, format string, args ...any) *Error {
	return New(http.StatusTooManyRequests, code, format, args...)
}

// Internal is a 500 whose cause is logged and never sent.
func Internal(cause error) *Error {
	return &Error{HTTPStatus: http.StatusInternalServerError, Code: CodeUnexpectedFailure, Message: unexpectedMessage, Cause: cause}
}
