package pgrsterr

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		err          error
		wantStatus   int
		wantBody     string
		wantExpected bool
	}{
		{
			name:         "not implemented",
			err:          NotImplemented("GET /todos is not implemented yet"),
			wantStatus:   400,
			wantBody:     `{"code":"PGRST127","details":"GET /todos is not implemented yet","hint":null,"message":"Feature not implemented"}`,
			wantExpected: true,
		},
		{
			name:         "rpc method",
			err:          InvalidRPCMethod("PUT"),
			wantStatus:   405,
			wantBody:     `{"code":"PGRST101","details":null,"hint":null,"message":"Cannot use the PUT method on RPC"}`,
			wantExpected: true,
		},
		{
			name:         "wrapped error keeps its shape",
			err:          fmt.Errorf("plan request: %w", InvalidResourcePath()),
			wantStatus:   404,
			wantBody:     `{"code":"PGRST125","details":null,"hint":null,"message":"Invalid path specified in request URL"}`,
			wantExpected: true,
		},
		{
			name:         "hint and structured details",
			err:          &Error{Status: 300, Code: "PGRST201", Message: "m", Details: []map[string]string{{"cardinality": "one-to-many"}}, Hint: "h"},
			wantStatus:   300,
			wantBody:     `{"code":"PGRST201","details":[{"cardinality":"one-to-many"}],"hint":"h","message":"m"}`,
			wantExpected: true,
		},
		{
			name:         "empty details is null",
			err:          &Error{Status: 400, Code: "P0001", Message: "raised", Details: ""},
			wantStatus:   400,
			wantBody:     `{"code":"P0001","details":null,"hint":null,"message":"raised"}`,
			wantExpected: true,
		},
		{
			name:       "unexpected error hides its cause",
			err:        errors.New("connection refused to 10.0.0.1 with password hunter2"),
			wantStatus: 500,
			wantBody:   `{"code":"PGRSTX00","details":"request id r-1","hint":null,"message":"Internal server error"}`,
		},
		{
			name:       "unencodable details fall back to internal",
			err:        &Error{Status: 400, Code: "X", Message: "m", Details: func() {}},
			wantStatus: 500,
			wantBody:   `{"code":"PGRSTX00","details":"request id r-1","hint":null,"message":"Internal server error"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, expected := Render(tt.err, "r-1")
			if status != tt.wantStatus || string(body) != tt.wantBody || expected != tt.wantExpected {
				t.Errorf("Render = %d %s %v, want %d %s %v", status, body, expected, tt.wantStatus, tt.wantBody, tt.wantExpected)
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil || len(m) != 4 {
				t.Errorf("body %s: want exactly four keys (err %v)", body, err)
			}
		})
	}
}

func TestInternalWithoutRequestID(t *testing.T) {
	t.Parallel()
	_, body, _ := Render(errors.New("x"), "")
	if want := `{"code":"PGRSTX00","details":null,"hint":null,"message":"Internal server error"}`; string(body) != want {
		t.Errorf("body = %s, want %s", body, want)
	}
}
