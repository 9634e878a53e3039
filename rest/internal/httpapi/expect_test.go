package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Roles a case runs as.
const (
	anon    = "anon"    // no Authorization header
	anonJWT = "anonjwt" // the anon key (a JWT with role anon)
	u1      = "user1"
	u2      = "user2"
	service = "service"
)

// expect is one row of an expectation table: request → status, headers,
// body. body is compared as JSON when it parses, else exactly; a body
// starting with "~" only has to contain the rest.
type expect struct {
	name    string
	as      string
	method  string
	target  string
	payload string
	headers []string
	status  int
	want    map[string]string // response headers ("" = must be absent)
	body    string
}

func (s *stack) authHeader(t *testing.T, as string) []string {
	switch as {
	case "", anon:
		return nil
	case anonJWT:
		return []string{"Authorization: Bearer " + token(t, map[string]any{"role": "anon"})}
	case u1:
		return []string{"Authorization: Bearer " + token(t, map[string]any{"role": "authenticated", "sub": user1, "email": "one@example.com"})}
	case u2:
		return []string{"Authorization: Bearer " + token(t, map[string]any{"role": "authenticated", "sub": user2, "email": "two@example.com"})}
	case service:
		return []string{"Authorization: Bearer " + token(t, map[string]any{"role": "service_role"})}
	}
	t.Fatalf("unknown role %q", as)
	return nil
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// run runs independent cases in parallel.
func (s *stack) run(t *testing.T, tests []expect) {
	t.Helper()
	s.runCases(t, tests, true)
}

// seq runs cases in order: each may depend on the writes before it.
func (s *stack) seq(t *testing.T, tests []expect) {
	t.Helper()
	s.runCases(t, tests, false)
}

func (s *stack) runCases(t *testing.T, tests []expect, parallel bool) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			method := tt.method
			if method == "" {
				method = "GET"
			}
			hdrs := append(s.authHeader(t, tt.as), tt.headers...)
			resp, body := s.call(t, method, tt.target, tt.payload, hdrs...)
			if resp.StatusCode != tt.status {
				t.Errorf("%s %s as %s: status %d, want %d; body %s", method, tt.target, tt.as, resp.StatusCode, tt.status, body)
			}
			for k, v := range tt.want {
				got := resp.Header.Get(k)
				if v == "" && got != "" {
					t.Errorf("header %s = %q, want none", k, got)
				} else if v != "" && got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			switch {
			case tt.body == "":
			case strings.HasPrefix(tt.body, "~"):
				if !strings.Contains(body, tt.body[1:]) {
					t.Errorf("body %s\ndoes not contain %s", body, tt.body[1:])
				}
			case json.Valid([]byte(tt.body)):
				if !jsonEqual(body, tt.body) {
					t.Errorf("body %s\nwant %s", body, tt.body)
				}
			default:
				if body != tt.body {
					t.Errorf("body %q\nwant %q", body, tt.body)
				}
			}
		})
	}
}
