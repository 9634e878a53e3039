package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/gwtest"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

// benchGateway builds a gateway (JSON access log to io.Discard, as in
// production minus the I/O) in front of replicas small JSON upstreams,
// all of them rest.
func benchGateway(b *testing.B, replicas int) *Server {
	b.Helper()
	urls := make([]string, replicas)
	for i := range urls {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Range", "0-0/*")
			_, _ = io.WriteString(w, `[{"id":1,"title":"2BR apartment, Kilimani","price":65000}]`)
		}))
		b.Cleanup(up.Close)
		urls[i] = up.URL
	}
	cfg, err := config.Load(envconf.FromMap(map[string]string{"REST_URL": strings.Join(urls, ","), "FRONTEND_DIR": b.TempDir()}))
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	srv, err := New(cfg, log, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// BenchmarkProxyGET measures one supabase-js style read (apikey plus
// Authorization: Bearer <anon key>, a CORS origin) through the gateway's
// handler to an httptest upstream over loopback. Allocations include the
// upstream server's and net/http's transport, which run in-process. The
// _2_replicas case runs rest as two replicas (REST_URL a list of two),
// which requests alternate between: its difference from anon is the
// balancer's cost.
func BenchmarkProxyGET(b *testing.B) {
	one, two := benchGateway(b, 1), benchGateway(b, 2)
	user := gwtest.UserToken(b, devkeys.JWTSecret, "bench-user")
	anon := map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + devkeys.AnonKey}
	cases := []struct {
		name string
		srv  *Server
		hdr  map[string]string
	}{
		{"anon", one, anon},
		{"anon_2_replicas", two, anon},
		{"publishable", one, map[string]string{"apikey": devkeys.PublishableKey}},
		{"user_jwt", one, map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + user}},
	}
	for _, bc := range cases {
		srv := bc.srv
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, "/rest/v1/properties?select=id,title,price&price=lte.70000", nil)
				req.RemoteAddr = "192.0.2.1:40000"
				req.Header.Set("Origin", "http://localhost:5173")
				for k, v := range bc.hdr {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
