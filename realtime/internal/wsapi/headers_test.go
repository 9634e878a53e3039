package wsapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHeadersJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		host   string
		header http.Header
		xOnly  bool
		want   string
	}{
		{"none", "", http.Header{}, true, `{}`},
		{"socket keeps x- headers only", "h", http.Header{"X-Room-Key": {"k1"}, "Apikey": {"a"}, "User-Agent": {"ua"}}, true,
			`{"x-room-key":"k1"}`},
		{"REST keeps all, the host among them", "api.example", http.Header{"X-Room-Key": {"k1"}, "Apikey": {"a"}}, false,
			`{"apikey":"a","host":"api.example","x-room-key":"k1"}`},
		{"repeated values joined", "", http.Header{"X-Tag": {"a", "b"}}, true, `{"x-tag":"a, b"}`},
		{"cookies joined as one cookie header", "", http.Header{"Cookie": {"a=1", "b=2"}}, false, `{"cookie":"a=1; b=2"}`},
		{"names lower-cased and merged", "", http.Header{"X-Tag": {"a"}, "x-tag": {"b"}}, true, ``},
		{"x- prefix is the name's, not a substring", "", http.Header{"Max-Forwards": {"1"}, "Xtra": {"2"}}, true, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Host = tt.host
			r.Header = tt.header
			got := string(headersJSON(r, tt.xOnly))
			if tt.want == "" {
				// Map order decides which value comes first; both are there.
				if got != `{"x-tag":"a, b"}` && got != `{"x-tag":"b, a"}` {
					t.Fatalf("= %s", got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("= %s, want %s", got, tt.want)
			}
		})
	}
}
