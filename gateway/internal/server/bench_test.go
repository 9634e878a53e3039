package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/gwtest"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

// benchGateway builds a gateway (JSON access log to io.Discard, as in
// production minus the I/O) in front of a small JSON upstream.
func benchGateway(b *testing.B) *Server {
	b.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Range", "0-0/*")
		_, _ = io.WriteString(w, `[{"id":1,"title":"2BR apartment, Kilimani","price":65000}]`)
	}))
	b.Cleanup(up.Close)
	cfg, err := config.Load(envconf.FromMap(map[string]string{"REST_URL": up.URL, "FRONTEND_DIR": b.TempDir()}))
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
// upstream server's and net/http's transport, which run in-process.
func BenchmarkProxyGET(b *testing.B) {
	srv := benchGateway(b)
	user := gwtest.UserToken(b, devkeys.JWTSecret, "bench-user")
	cases := []struct {
		name string
		hdr  map[string]string
	}{
		{"anon", map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + devkeys.AnonKey}},
		{"publishable", map[string]string{"apikey": devkeys.PublishableKey}},
		{"user_jwt", map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + user}},
	}
	for _, bc := range cases {
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
