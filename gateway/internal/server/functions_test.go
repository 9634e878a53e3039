package server

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/gateway/internal/proxy"
	"github.com/kejanest/kejanest/platform/devkeys"
)

// /functions/v1/* reaches the payments service as supabase-js's functions
// client sends it: the function name as the path, the key checked and
// translated like any API call. Only the M-Pesa callback is open, because
// Safaricom cannot send an apikey.
func TestFunctionsRoute(t *testing.T) {
	t.Parallel()
	strict := newHarness(t, map[string]string{"GATEWAY_REQUIRE_APIKEY": "true"})
	tests := []struct {
		name, target string
		hdr          map[string]string
		status       int
		path         string // the path the service sees, for a forwarded request
		authPrefix   string // the Authorization the service sees starts with this
	}{
		{name: "invoke with the anon key and a user token", target: "/functions/v1/mpesa-stk-push",
			hdr:    map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer user.token.here", "x-client-info": "supabase-js/2.119.0", "x-region": "any"},
			status: 200, path: "/mpesa-stk-push", authPrefix: "Bearer user.token.here"},
		{name: "invoke signed out: the anon key is the bearer", target: "/functions/v1/mpesa-stk-push",
			hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, path: "/mpesa-stk-push", authPrefix: "Bearer " + devkeys.AnonKey},
		{name: "a publishable key becomes a minted token", target: "/functions/v1/mpesa-stk-push",
			hdr: map[string]string{"apikey": devkeys.PublishableKey}, status: 200, path: "/mpesa-stk-push", authPrefix: "Bearer ey"},
		{name: "no apikey", target: "/functions/v1/mpesa-stk-push", status: 401},
		{name: "a wrong apikey", target: "/functions/v1/mpesa-stk-push", hdr: map[string]string{"apikey": "nope"}, status: 401},
		{name: "another function needs the key too", target: "/functions/v1/mpesa-callback-x", status: 401},
		{name: "Safaricom's callback: no headers at all", target: "/functions/v1/mpesa-callback?p=1&s=2", status: 200, path: "/mpesa-callback"},
		{name: "the callback with a trailing slash", target: "/functions/v1/mpesa-callback/?p=1", status: 200, path: "/mpesa-callback/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, body := strict.do(t, http.MethodPost, tc.target, tc.hdr)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d %s, want %d", res.StatusCode, body, tc.status)
			}
			if tc.status != 200 {
				return
			}
			e := echoOf(t, res, body)
			if e.Service != proxy.ServiceFunctions || e.Path != tc.path || e.XFPrefix != "/functions/v1" {
				t.Errorf("reached %s %q (prefix %q), want functions %q", e.Service, e.Path, e.XFPrefix, tc.path)
			}
			if _, q, ok := strings.Cut(tc.target, "?"); ok && e.RawQuery != q {
				t.Errorf("query %q, want %q", e.RawQuery, q)
			}
			if !strings.HasPrefix(e.Authorization, tc.authPrefix) || (tc.authPrefix == "" && e.HasAuth) {
				t.Errorf("Authorization %q, want %q…", e.Authorization, tc.authPrefix)
			}
		})
	}
}

// A browser's supabase.functions.invoke preflights with the headers the
// functions client sends; the gateway allows them without forwarding.
func TestFunctionsPreflight(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"GATEWAY_REQUIRE_APIKEY": "true"})
	res, _ := h.do(t, http.MethodOptions, "/functions/v1/mpesa-stk-push", map[string]string{
		"Origin":                         "http://localhost:5173",
		"Access-Control-Request-Method":  "POST",
		"Access-Control-Request-Headers": "apikey,authorization,content-type,x-client-info,x-region",
	})
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight status %d", res.StatusCode)
	}
	allowed := strings.ToLower(res.Header.Get("Access-Control-Allow-Headers"))
	for _, hdr := range []string{"apikey", "authorization", "content-type", "x-client-info", "x-region"} {
		if !strings.Contains(allowed, hdr) {
			t.Errorf("%s not allowed: %q", hdr, allowed)
		}
	}
	if res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || h.hits.Load() != 0 {
		t.Errorf("Allow-Origin %q, forwarded %d", res.Header.Get("Access-Control-Allow-Origin"), h.hits.Load())
	}
	// Without a list the default allows them too.
	res, _ = h.do(t, http.MethodOptions, "/functions/v1/mpesa-stk-push", map[string]string{
		"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
	})
	for _, hdr := range []string{"apikey", "authorization", "content-type", "x-client-info", "x-region"} {
		if !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), hdr) {
			t.Errorf("default Allow-Headers lacks %s", hdr)
		}
	}
	// The actual answer is readable by the page.
	res, _ = h.do(t, http.MethodPost, "/functions/v1/mpesa-stk-push", map[string]string{"Origin": "http://localhost:5173", "apikey": devkeys.AnonKey})
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
		t.Errorf("status %d Allow-Origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
}

// A body over the limit is refused in the payments service's own words.
func TestFunctionsBodyLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"GATEWAY_BODY_LIMIT": "1024"})
	req, err := http.NewRequest(http.MethodPost, h.gw.URL+"/functions/v1/mpesa-callback", bytes.NewReader(make([]byte, 4096)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.gw.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusRequestEntityTooLarge || string(body) != `{"code":"payload_too_large","message":"The request body is too large"}` {
		t.Errorf("got %d %s", res.StatusCode, body)
	}
}

// Without FUNCTIONS_URL's route (a proxy built without it) the prefix is
// not an API path.
func TestFunctionsRouteIsOptionalInTheProxy(t *testing.T) {
	t.Parallel()
	one := []string{"http://x"}
	p, err := proxy.New(proxy.Upstreams{Rest: one, RPC: one, Auth: one, Realtime: one, Storage: one}, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Match("/functions/v1/mpesa-stk-push") != nil {
		t.Error("a proxy without functions routes /functions/v1")
	}
	p, err = proxy.New(proxy.Upstreams{Rest: one, RPC: one, Auth: one, Realtime: one, Storage: one, Functions: one}, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for path, open := range map[string]bool{
		"/functions/v1/mpesa-callback": true, "/functions/v1/mpesa-callback/": true,
		"/functions/v1/mpesa-stk-push": false, "/functions/v1/mpesa-callback/x": false, "/functions/v1": false,
	} {
		rt := p.Match(path)
		if rt == nil || rt.Service() != proxy.ServiceFunctions || rt.Open(path) != open {
			t.Errorf("%s: route %v, want functions open=%v", path, rt, open)
		}
	}
	if p.Match("/functions/v10/x") != nil {
		t.Error("/functions/v10 matched")
	}
}
