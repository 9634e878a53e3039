package cors

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		origins []string
		origin  string
		allowed bool
	}{
		{"any", []string{"*"}, "https://x.example", true},
		{"any but no origin", []string{"*"}, "", false},
		{"listed", []string{"https://kejanest.example/"}, "https://kejanest.example", true},
		{"listed case", []string{"https://KejaNest.example"}, "https://kejanest.example", true},
		{"not listed", []string{"https://kejanest.example"}, "https://kejanest.example.evil", false},
		{"empty list", nil, "https://x.example", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := New(tc.origins)
			if p.Allowed(tc.origin) != tc.allowed {
				t.Errorf("Allowed(%q) = %v", tc.origin, !tc.allowed)
			}
			h := http.Header{}
			p.Decorate(h, tc.origin)
			if (h.Get("Access-Control-Allow-Origin") == tc.origin && tc.origin != "") != tc.allowed {
				t.Errorf("Decorate: %v", h)
			}
		})
	}
}

func TestPreflightHeaders(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodOptions, "/rest/v1/t", nil)
	r.Header.Set("Origin", "http://localhost:5173")
	r.Header.Set("Access-Control-Request-Method", "POST")
	r.Header.Add("Access-Control-Request-Headers", "apikey")
	r.Header.Add("Access-Control-Request-Headers", "x-custom")
	if !IsPreflight(r) {
		t.Fatal("not a preflight")
	}
	rec := httptest.NewRecorder()
	New([]string{"*"}).Preflight(rec, r)
	if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Headers") != "apikey, x-custom" {
		t.Errorf("%d %v", rec.Code, rec.Header())
	}
}

func TestStripUpstream(t *testing.T) {
	t.Parallel()
	h := http.Header{"Access-Control-Allow-Origin": {"*"}, "Access-Control-Allow-Headers": {"x"}, "Content-Type": {"a"}, "Vary": {"Accept"}}
	StripUpstream(h)
	if len(h) != 2 || h.Get("Content-Type") != "a" {
		t.Errorf("%v", h)
	}
}
