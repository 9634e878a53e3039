package pgrsterr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStatusForSQLState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code, message string
		authed        bool
		want          int
	}{
		{"08006", "", false, 503}, {"09000", "", false, 500}, {"0L000", "", false, 403}, {"0P000", "", false, 403},
		{"23503", "", false, 409}, {"23505", "", false, 409}, {"23502", "", false, 400}, {"23514", "", false, 400},
		{"25006", "", false, 405}, {"25001", "", false, 500}, {"28000", "", false, 403}, {"2D000", "", false, 500},
		{"38000", "", false, 500}, {"39000", "", false, 500}, {"3B000", "", false, 500}, {"40001", "", false, 500},
		{"53400", "", false, 500}, {"53100", "", false, 503}, {"54000", "", false, 500}, {"55000", "", false, 500},
		{"57P01", "", false, 503}, {"57014", "", false, 500}, {"58000", "", false, 500}, {"F0000", "", false, 500},
		{"HV000", "", false, 500}, {"P0001", "", false, 400}, {"P0002", "", false, 500}, {"XX000", "", false, 500},
		{"42883", "function f() does not exist", false, 404}, {"42883", "function xmlagg(x) does not exist", false, 406},
		{"42P01", "", false, 404}, {"42P17", "", false, 500}, {"42501", "", false, 401}, {"42501", "", true, 403},
		{"21000", "DELETE requires a WHERE clause", false, 400}, {"21000", "more than one row returned by a subquery", false, 500},
		{"22023", `role "ghost" does not exist`, true, 401}, {"22023", "invalid value", false, 400},
		{"PT402", "", false, 402}, {"PTXYZ", "", false, 500}, {"22P02", "", false, 400}, {"42703", "", false, 400},
	}
	for _, tt := range tests {
		if got := StatusForSQLState(tt.code, tt.message, tt.authed); got != tt.want {
			t.Errorf("StatusForSQLState(%s, %q, %v) = %d, want %d", tt.code, tt.message, tt.authed, got, tt.want)
		}
	}
}

func TestFromPG(t *testing.T) {
	t.Parallel()
	e := FromPG(PG{Code: "42501", Message: "permission denied for table x"}, false)
	if e.Status != 401 || len(e.Headers) != 1 || e.Headers[0] != [2]string{"WWW-Authenticate", "Bearer"} {
		t.Errorf("42501 anonymous = %+v", e)
	}
	if e := FromPG(PG{Code: "P0001", Message: "boom", Detail: "d", Hint: "h"}, true); e.Status != 400 || e.Details != "d" || e.Hint != "h" || e.Headers != nil {
		t.Errorf("P0001 = %+v", e)
	}
	tests := []struct {
		name            string
		message, detail string
		status          int
		body            string
	}{
		{"custom", `{"code":"123","message":"Custom","details":"d","hint":"h"}`, `{"status":418,"headers":{"X-B":"2","X-A":"1"}}`, 418,
			`{"code":"123","details":"d","hint":"h","message":"Custom"}`},
		{"bad message", `not json`, `{"status":418,"headers":{}}`, 500, `{"code":"PGRST121","details":"Invalid JSON value for MESSAGE: 'not json'","hint":"MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.","message":"Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error"}`},
		{"no detail", `{"code":"1","message":"m"}`, ``, 500, `~DETAIL is missing`},
		{"bad detail", `{"code":"1","message":"m"}`, `{"status":"x"}`, 500, `~Invalid JSON value for DETAIL`},
	}
	for _, tt := range tests {
		e := FromPG(PG{Code: "PGRST", Message: tt.message, Detail: tt.detail}, false)
		b, _ := json.Marshal(e)
		if e.Status != tt.status || (tt.body[0] != '~' && string(b) != tt.body) || (tt.body[0] == '~' && !strings.Contains(string(b), tt.body[1:])) {
			t.Errorf("%s: %d %s", tt.name, e.Status, b)
		}
	}
	e = FromPG(PG{Code: "PGRST", Message: `{"code":"123","message":"Custom"}`, Detail: `{"status":418,"headers":{"X-B":"2","X-A":"1"}}`}, false)
	if len(e.Headers) != 2 || e.Headers[0][0] != "X-A" {
		t.Errorf("headers = %v", e.Headers)
	}
}
