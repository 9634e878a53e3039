package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/gateway/internal/accesslog"
	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/gwtest"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

// benchUpstream answers every request with one small JSON row.
var benchUpstream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Range", "0-0/*")
	_, _ = io.WriteString(w, `[{"id":1,"title":"2BR apartment, Kilimani","price":65000}]`)
})

// benchGateway builds a gateway (JSON access log to io.Discard, as in
// production minus the I/O) in front of replicas small JSON upstreams,
// all of them rest; with replicas 0, rest is served in-process
// (GATEWAY_INPROCESS) by the same handler.
func benchGateway(b *testing.B, replicas int) *Server {
	b.Helper()
	urls := make([]string, replicas)
	for i := range urls {
		up := httptest.NewServer(benchUpstream)
		b.Cleanup(up.Close)
		urls[i] = up.URL
	}
	env := map[string]string{"REST_URL": strings.Join(urls, ","), "FRONTEND_DIR": b.TempDir()}
	var o Options
	if replicas == 0 {
		env = map[string]string{"GATEWAY_INPROCESS": "rest", "FRONTEND_DIR": b.TempDir()}
		o.InProcess = map[string]http.Handler{"rest": benchUpstream}
	}
	cfg, err := config.Load(envconf.FromMap(env))
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	srv, err := New(cfg, log, accesslog.NewLogger(io.Discard, "gateway", slog.LevelInfo), o)
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
// balancer's cost. The _in_process case serves rest inside the gateway
// (GATEWAY_INPROCESS): what is left is the gateway's own work.
func BenchmarkProxyGET(b *testing.B) {
	one, two, local := benchGateway(b, 1), benchGateway(b, 2), benchGateway(b, 0)
	user := gwtest.UserToken(b, devkeys.JWTSecret, "bench-user")
	anon := map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + devkeys.AnonKey}
	cases := []struct {
		name string
		srv  *Server
		hdr  map[string]string
	}{
		{"anon", one, anon},
		{"anon_2_replicas", two, anon},
		{"anon_in_process", local, anon},
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
