package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMatchAndOpen(t *testing.T) {
	t.Parallel()
	p, err := New(Upstreams{Rest: []string{"http://r"}, RPC: []string{"http://p"}, Auth: []string{"http://a"}, Realtime: []string{"http://rt"}, Storage: []string{"http://s"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, service string
		open          bool
	}{
		{"/rest/v1/rpc/f", ServiceRPC, false},
		{"/rest/v1/rpc", ServiceRPC, false},
		{"/rest/v1/rpcs", ServiceRest, false},
		{"/rest/v1/t", ServiceRest, false},
		{"/rest/v1", ServiceRest, false},
		{"/rest/v10/t", "", false},
		{"/auth/v1/verify", ServiceAuth, true},
		{"/auth/v1/verify/", ServiceAuth, true},
		{"/auth/v1/callback", ServiceAuth, true},
		{"/auth/v1/authorize", ServiceAuth, true},
		{"/auth/v1/.well-known/jwks.json", ServiceAuth, true},
		{"/auth/v1/health", ServiceAuth, true},
		{"/auth/v1/verify/x", ServiceAuth, false},
		{"/auth/v1/token", ServiceAuth, false},
		{"/auth/v1/admin/users", ServiceAuth, false},
		{"/realtime/v1/websocket", ServiceRealtime, false},
		{"/storage/v1/object/b/x", ServiceStorage, true},
		{"/storage/v1", ServiceStorage, true},
		{"/", "", false},
		{"/assets/x.js", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			rt := p.Match(tc.path)
			if rt == nil {
				if tc.service != "" {
					t.Fatalf("no route, want %s", tc.service)
				}
				return
			}
			if rt.Service() != tc.service || rt.Open(tc.path) != tc.open {
				t.Errorf("got %s open=%v, want %s open=%v", rt.Service(), rt.Open(tc.path), tc.service, tc.open)
			}
		})
	}
}

func TestRewritePaths(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	}))
	t.Cleanup(up.Close)
	one := []string{up.URL}
	p, err := New(Upstreams{Rest: []string{up.URL + "/base/"}, RPC: one, Auth: one, Realtime: one, Storage: one}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.Match(r.URL.Path).ServeHTTP(w, r)
	}))
	t.Cleanup(gw.Close)
	tests := []struct{ target, want string }{
		{"/storage/v1/object/b/a%2Fb.png?x=1", "/object/b/a%2Fb.png?x=1"},
		{"/storage/v1/object/b/a%20b.png", "/object/b/a%20b.png?"},
		{"/rest/v1/t?select=*", "/base/t?select=*"},
		{"/rest/v1", "/base/?"},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			res, err := gw.Client().Get(gw.URL + tc.target)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if string(body) != tc.want {
				t.Errorf("upstream saw %q, want %q", body, tc.want)
			}
		})
	}
}

func TestNewRejectsBadUpstream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rest []string
		want string
	}{
		{"no scheme", []string{"localhost:3000"}, "need scheme and host"},
		{"one bad replica", []string{"http://r:3000", "localhost:3001"}, "need scheme and host"},
		{"none", nil, "no URL"},
		{"host twice", []string{"http://r:3000", "http://R:3000/"}, "host listed twice"},
		{"paths differ", []string{"http://r:3000/a", "http://q:3000/b"}, "base path differs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			other := []string{"http://x"}
			_, err := New(Upstreams{Rest: tc.rest, RPC: other, Auth: other, Realtime: other, Storage: other}, Options{})
			if err == nil || !strings.Contains(err.Error(), "rest") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one naming rest and %q", err, tc.want)
			}
		})
	}
}
