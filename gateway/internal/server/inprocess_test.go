package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A service served in-process (GATEWAY_INPROCESS) gets the request as the
// proxied one arrives upstream: prefix stripped, query byte for byte, the
// key turned into the bearer, the request id, X-Real-Ip and X-Forwarded-*;
// and the client sees the gateway's CORS headers and request id.
func TestInProcessServiceSeesWhatAProxiedOneSees(t *testing.T) {
	t.Run("direct", func(t *testing.T) { inProcessParity(t, nil, nil) })
	// Behind a trusted front proxy both take its client list and its
	// public host and scheme.
	t.Run("behind a trusted proxy", func(t *testing.T) {
		inProcessParity(t, map[string]string{"GATEWAY_TRUST_PROXY": "true"}, map[string]string{
			"X-Forwarded-For": "203.0.113.7, 10.0.0.1", "X-Forwarded-Host": "kejanest.example", "X-Forwarded-Proto": "https",
		})
	})
}

func inProcessParity(t *testing.T, env, forwarded map[string]string) {
	local := &atomic.Int64{}
	proxied := newHarness(t, env)
	inprocEnv := map[string]string{"GATEWAY_INPROCESS": "rest,rpc"}
	for k, v := range env {
		inprocEnv[k] = v
	}
	inproc := newHarnessWith(t, inprocEnv, Options{InProcess: map[string]http.Handler{
		"rest": echoHandler("rest", local, false),
		"rpc":  echoHandler("rpc", local, false),
	}})
	hdr := map[string]string{"apikey": proxied.cfg.AnonKey, "Origin": "http://localhost:5173", "X-Request-Id": "req-1"}
	for k, v := range forwarded {
		hdr[k] = v
	}
	cases := []struct{ target, service, path string }{
		{"/rest/v1/properties?select=id,title&location=ilike.*nai%25robi*&order=created_at.desc", "rest", "/properties"},
		{"/rest/v1/rpc/get_p2p_board?p_limit=20", "rpc", "/rpc/get_p2p_board"},
		{"/rest/v1/", "rest", "/"},
		{"/rest/v1", "rest", "/"},
	}
	for _, c := range cases {
		t.Run(c.target, func(t *testing.T) {
			before := proxied.hits.Load()
			pres, pbody := proxied.do(t, "GET", c.target, hdr)
			want := echoOf(t, pres, pbody)
			if proxied.hits.Load() != before+1 {
				t.Fatal("the proxied request did not reach its upstream")
			}
			res, body := inproc.do(t, "GET", c.target, hdr)
			got := echoOf(t, res, body)
			if got.Service != c.service || got.Path != c.path {
				t.Errorf("served by %s at %q, want %s at %q", got.Service, got.Path, c.service, c.path)
			}
			// Host differs by design: the proxied upstream sees its own,
			// the in-process one the public host (also X-Forwarded-Host).
			got.Host, want.Host = "", ""
			// Each gateway names its own public host, or the front
			// proxy's.
			gotHost, wantHost := strings.TrimPrefix(inproc.gw.URL, "http://"), strings.TrimPrefix(proxied.gw.URL, "http://")
			if h := forwarded["X-Forwarded-Host"]; h != "" {
				gotHost, wantHost = h, h
			}
			if got.XFHost != gotHost || want.XFHost != wantHost {
				t.Errorf("X-Forwarded-Host %q and %q, want %q and %q", got.XFHost, want.XFHost, gotHost, wantHost)
			}
			if p := forwarded["X-Forwarded-Proto"]; p != "" && (got.XFProto != p || want.XFProto != p) {
				t.Errorf("X-Forwarded-Proto %q and %q, want the front proxy's %q", got.XFProto, want.XFProto, p)
			}
			if f := forwarded["X-Forwarded-For"]; f != "" && !strings.HasPrefix(got.XFF, f+", ") {
				t.Errorf("X-Forwarded-For %q, want the front proxy's %q and then the peer", got.XFF, f)
			}
			got.XFHost, want.XFHost = "", ""
			if got != want {
				t.Errorf("in-process service saw\n%+v\nproxied one saw\n%+v", got, want)
			}
			if v := res.Header.Get("Access-Control-Allow-Origin"); v != "http://localhost:5173" && v != "*" {
				t.Errorf("Access-Control-Allow-Origin %q", v)
			}
			if v := res.Header.Get("X-Request-Id"); v != "req-1" {
				t.Errorf("X-Request-Id %q, want the gateway's req-1", v)
			}
		})
	}
	if inproc.hits.Load() != 0 {
		t.Errorf("%d requests reached the URL upstreams of in-process services", inproc.hits.Load())
	}
	if local.Load() != int64(len(cases)) {
		t.Errorf("in-process handlers served %d requests, want %d", local.Load(), len(cases))
	}
}

// The body limit holds in-process too: a body announced larger is refused
// in rest's words before the service sees it.
func TestInProcessBodyLimit(t *testing.T) {
	local := &atomic.Int64{}
	h := newHarnessWith(t, map[string]string{"GATEWAY_INPROCESS": "rest", "GATEWAY_BODY_LIMIT": "16"}, Options{InProcess: map[string]http.Handler{
		"rest": echoHandler("rest", local, false),
	}})
	req, err := http.NewRequest("POST", h.gw.URL+"/rest/v1/properties", strings.NewReader(strings.Repeat("x", 17)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", h.cfg.AnonKey)
	res, err := h.gw.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge || local.Load() != 0 {
		t.Errorf("status %d with %d requests served, want 413 before the service", res.StatusCode, local.Load())
	}
}

// GATEWAY_PPROF serves Go's profiles to loopback peers only; without it
// the path is the frontend's like any other.
func TestPprof(t *testing.T) {
	on := newHarness(t, map[string]string{"GATEWAY_PPROF": "true"})
	res, body := on.do(t, "GET", "/debug/pprof/", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Errorf("loopback peer: %d %.200s, want the profile index", res.StatusCode, body)
	}
	req := httptest.NewRequest("GET", "/debug/pprof/", nil)
	req.RemoteAddr = "192.0.2.1:40000"
	rec := httptest.NewRecorder()
	on.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("remote peer: %d, want 403", rec.Code)
	}
	off := newHarness(t, nil)
	res, body = off.do(t, "GET", "/debug/pprof/", nil)
	if strings.Contains(string(body), "goroutine") || !strings.Contains(string(body), "KejaNest") {
		t.Errorf("without GATEWAY_PPROF: %d %.200s, want the frontend", res.StatusCode, body)
	}
}
