package apierr

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestRender(t *testing.T) {
	t.Parallel()
	notImpl := NotImplemented("POST /signup")
	tests := []struct {
		name        string
		err         error
		header      string
		wantStatus  int
		wantHeaders [][2]string
		wantBody    string
		unexpected  bool
	}{
		{
			name: "dated shape", err: notImpl, header: "2024-01-01", wantStatus: 501,
			wantHeaders: [][2]string{{"X-Supabase-Api-Version", "2024-01-01"}, {"x-sb-error-code", "not_implemented"}},
			wantBody:    `{"code":"not_implemented","message":"POST /signup is not implemented yet"}`,
		},
		{
			name: "later date answers the latest version", err: New(400, CodeValidationFailed, "Bad %s", "email"), header: "2031-07-15", wantStatus: 400,
			wantHeaders: [][2]string{{"X-Supabase-Api-Version", "2024-01-01"}, {"x-sb-error-code", "validation_failed"}},
			wantBody:    `{"code":"validation_failed","message":"Bad email"}`,
		},
		{
			name: "oauth error, dated: same body, no code header", err: OAuth("invalid request", "Bad ID token"), header: "2024-01-01", wantStatus: 400,
			wantHeaders: [][2]string{{"X-Supabase-Api-Version", "2024-01-01"}},
			wantBody:    `{"error":"invalid request","error_description":"Bad ID token"}`,
		},
		{
			name: "oauth error, legacy", err: fmt.Errorf("id token: %w", OAuth("invalid nonce", "Nonces mismatch")), wantStatus: 400,
			wantBody: `{"error":"invalid nonce","error_description":"Nonces mismatch"}`,
		},
		{
			name: "legacy shape without the header", err: New(422, CodeEmailExists, "A user with this email address has already been registered"), wantStatus: 422,
			wantHeaders: [][2]string{{"x-sb-error-code", "email_exists"}},
			wantBody:    `{"code":422,"error_code":"email_exists","msg":"A user with this email address has already been registered"}`,
		},
		{
			name: "legacy shape for an older date", err: notImpl, header: "2023-12-31", wantStatus: 501,
			wantHeaders: [][2]string{{"x-sb-error-code", "not_implemented"}},
			wantBody:    `{"code":501,"error_code":"not_implemented","msg":"POST /signup is not implemented yet","error_id":"req-9"}`,
		},
		{
			name: "legacy shape for a malformed header", err: New(403, CodeBadJWT, "invalid JWT"), header: "yesterday", wantStatus: 403,
			wantHeaders: [][2]string{{"x-sb-error-code", "bad_jwt"}},
			wantBody:    `{"code":403,"error_code":"bad_jwt","msg":"invalid JWT"}`,
		},
		{
			name: "wrapped coded error", err: fmt.Errorf("sign up: %w", New(422, CodeWeakPassword, "weak")), header: "2024-01-01", wantStatus: 422,
			wantHeaders: [][2]string{{"X-Supabase-Api-Version", "2024-01-01"}, {"x-sb-error-code", "weak_password"}},
			wantBody:    `{"code":"weak_password","message":"weak"}`,
		},
		{
			name: "unexpected error, dated", err: errors.New("pq: password authentication failed"), header: "2024-01-01", wantStatus: 500, unexpected: true,
			wantHeaders: [][2]string{{"X-Supabase-Api-Version", "2024-01-01"}, {"x-sb-error-code", "unexpected_failure"}},
			wantBody:    `{"code":"unexpected_failure","message":"Unexpected failure, please check server logs for more information"}`,
		},
		{
			name: "unexpected error, legacy, with the request id", err: errors.New("boom"), wantStatus: 500, unexpected: true,
			wantHeaders: [][2]string{{"x-sb-error-code", "unexpected_failure"}},
			wantBody:    `{"code":500,"error_code":"unexpected_failure","msg":"Unexpected failure, please check server logs for more information","error_id":"req-9"}`,
		},
		{
			name: "missing code becomes unknown", err: &Error{HTTPStatus: 400, Message: "m"}, wantStatus: 400,
			wantHeaders: [][2]string{{"x-sb-error-code", "unknown"}},
			wantBody:    `{"code":400,"error_code":"unknown","msg":"m"}`,
		},
		{
			name: "missing code on a 500 becomes unexpected_failure", err: &Error{HTTPStatus: 500, Message: "m", Cause: errors.New("hidden")}, header: "2024-01-01", wantStatus: 500,
			wantHeaders: [][2]string{{"X-Supabase-Api-Version", "2024-01-01"}, {"x-sb-error-code", "unexpected_failure"}},
			wantBody:    `{"code":"unexpected_failure","message":"m"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Render(tt.err, tt.header, "req-9")
			if r.Status != tt.wantStatus || string(r.Body) != tt.wantBody || r.Unexpected != tt.unexpected || !reflect.DeepEqual(r.Headers, tt.wantHeaders) {
				t.Errorf("Render = %d %v %s unexpected=%v\nwant     %d %v %s unexpected=%v",
					r.Status, r.Headers, r.Body, r.Unexpected, tt.wantStatus, tt.wantHeaders, tt.wantBody, tt.unexpected)
			}
		})
	}
}

func TestParseAPIVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header  string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"2024-01-01", APIVersion20240101, false},
		{"2024-06-30", APIVersion20240101, false},
		{"2023-12-31", time.Time{}, false},
		{"2024-13-01", time.Time{}, true},
		{"2024-01-01T00:00:00Z", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			t.Parallel()
			got, err := ParseAPIVersion(tt.header)
			if !got.Equal(tt.want) || (err != nil) != tt.wantErr {
				t.Errorf("ParseAPIVersion(%q) = %v, %v; want %v, error %v", tt.header, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	cause := errors.New("db down")
	e := &Error{HTTPStatus: 500, Code: CodeUnexpectedFailure, Message: "m", Cause: cause}
	if !errors.Is(e, cause) || e.Error() != "500 unexpected_failure: m: db down" {
		t.Errorf("Error() = %q, Is(cause) = %v", e.Error(), errors.Is(e, cause))
	}
}
