package storageerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
		expected   bool
	}{
		{
			name: "not implemented keeps 501", err: NotImplemented("GET /bucket"), wantStatus: 501, expected: true,
			wantBody: `{"statusCode":"501","code":"NotImplemented","error":"NotImplemented","message":"GET /bucket is not implemented yet"}`,
		},
		{
			name: "4xx is answered 400", err: &Error{Status: 404, Code: CodeNoSuchKey, ErrorText: "not_found", Message: "Object not found"}, wantStatus: 400, expected: true,
			wantBody: `{"statusCode":"404","code":"NoSuchKey","error":"not_found","message":"Object not found"}`,
		},
		{
			name: "entity too large", err: fmt.Errorf("upload: %w", EntityTooLarge()), wantStatus: 400, expected: true,
			wantBody: `{"statusCode":"413","code":"EntityTooLarge","error":"Payload too large","message":"The object exceeded the maximum allowed size"}`,
		},
		{
			name: "slow down keeps 429", err: fmt.Errorf("upload: %w", SlowDown("busy")), wantStatus: 429, expected: true,
			wantBody: `{"statusCode":"429","code":"SlowDown","error":"Too Many Requests","message":"busy"}`,
		},
		{
			name: "coded 500 is answered 500", err: &Error{Status: 500, Code: CodeInternalError, Message: "m", Cause: errors.New("hidden")}, wantStatus: 500, expected: true,
			wantBody: `{"statusCode":"500","code":"InternalError","error":"InternalError","message":"m"}`,
		},
		{
			name: "unexpected error is generic", err: errors.New("s3: secret key rejected"), wantStatus: 500,
			wantBody: `{"statusCode":"500","code":"InternalError","error":"InternalError","message":"Internal server error (request id r-7)"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, expected := Render(tt.err, "r-7")
			if status != tt.wantStatus || string(body) != tt.wantBody || expected != tt.expected {
				t.Errorf("Render = %d %s %v\nwant     %d %s %v", status, body, expected, tt.wantStatus, tt.wantBody, tt.expected)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk full")
	e := &Error{Status: 500, Code: CodeInternalError, Message: "m", Cause: cause}
	if e.Error() != "InternalError (500): m: disk full" || !errors.Is(e, cause) {
		t.Errorf("Error() = %q", e.Error())
	}
	if Internal("").Message != "Internal server error" {
		t.Errorf("Internal without id = %q", Internal("").Message)
	}
}
