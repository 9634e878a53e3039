package server

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/kejanest/kejanest/gateway/internal/apikey"
	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/cors"
	"github.com/kejanest/kejanest/gateway/internal/gwtest"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

const (
	invalidKeyBody = `{"message":"Invalid API key","hint":"Double check your Supabase ` + "`anon`" + ` or ` + "`service_role`" + ` API key."}`
	noKeyBody      = `{"message":"No API key found in request","hint":"No ` + "`apikey`" + ` request header or url param was found."}`
	badGatewayBody = `{"message":"An invalid response was received from the upstream server"}`
)

func TestRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	tests := []struct {
		name, target          string
		service, path, prefix string
	}{
		{"rpc before rest", "/rest/v1/rpc/get_stats?limit=5", "rpc", "/rpc/get_stats", "/rest/v1"},
		{"rpc bare", "/rest/v1/rpc", "rpc", "/rpc", "/rest/v1"},
		{"rest table", "/rest/v1/properties?select=id,owner:profiles(name)&price=gte.100", "rest", "/properties", "/rest/v1"},
		{"rest root with slash", "/rest/v1/", "rest", "/", "/rest/v1"},
		{"rest root bare", "/rest/v1", "rest", "/", "/rest/v1"},
		{"rest table named rpcx", "/rest/v1/rpcx", "rest", "/rpcx", "/rest/v1"},
		{"auth", "/auth/v1/token?grant_type=password", "auth", "/token", "/auth/v1"},
		{"auth admin", "/auth/v1/admin/users/abc", "auth", "/admin/users/abc", "/auth/v1"},
		{"realtime api", "/realtime/v1/api/broadcast", "realtime", "/api/broadcast", "/realtime/v1"},
		{"storage", "/storage/v1/object/public/avatars/a%20b.png", "storage", "/object/public/avatars/a b.png", "/storage/v1"},
		// PostgREST's grammar: commas, parentheses, quotes, "*", "+", ";",
		// and an escape ReverseProxy would otherwise re-encode.
		{"query byte for byte", `/rest/v1/t?or=(a.eq.1,b.in.(%22x,y%22))&name=like.*a%25*&q=a+b&odd=x;y&bad=%zz`, "rest", "/t", "/rest/v1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, body := h.do(t, http.MethodGet, tc.target, map[string]string{"apikey": devkeys.AnonKey})
			e := echoOf(t, res, body)
			if e.Service != tc.service || e.Path != tc.path {
				t.Errorf("reached %s %q, want %s %q", e.Service, e.Path, tc.service, tc.path)
			}
			wantQuery := ""
			if _, q, ok := strings.Cut(tc.target, "?"); ok {
				wantQuery = q
			}
			if e.RawQuery != wantQuery {
				t.Errorf("query %q, want %q", e.RawQuery, wantQuery)
			}
			if e.XFPrefix != tc.prefix {
				t.Errorf("X-Forwarded-Prefix %q, want %q", e.XFPrefix, tc.prefix)
			}
			gwHost := strings.TrimPrefix(h.gw.URL, "http://")
			if e.XFHost != gwHost || e.XFProto != "http" || e.XFF != "127.0.0.1" {
				t.Errorf("forwarded host/proto/for = %q %q %q", e.XFHost, e.XFProto, e.XFF)
			}
			if e.Host == gwHost {
				t.Errorf("upstream saw the public Host %q", e.Host)
			}
		})
	}
}

func TestUnknownPathsAreNotProxied(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for _, target := range []string{"/rest/v2/x", "/rest/v1x", "/authv1/token", "/functions/v2/hello", "/functionsv1/hello"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			res, body := h.do(t, http.MethodGet, target, nil)
			if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "<title>KejaNest</title>") {
				t.Errorf("%s: status %d body %q, want the SPA index", target, res.StatusCode, body)
			}
		})
	}
	if n := h.hits.Load(); n != 0 {
		t.Errorf("%d requests reached an upstream", n)
	}
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	secret := devkeys.JWTSecret
	user := gwtest.UserToken(t, secret, "5b9a0a4e-1111-4d1e-9f00-000000000001")
	otherRole := gwtest.Token(t, secret, map[string]any{"role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()})
	noRole := gwtest.Token(t, secret, map[string]any{"sub": "x", "exp": time.Now().Add(time.Hour).Unix()})
	expired := gwtest.Expired(t, secret, "anon")
	wrongSig := gwtest.Token(t, "not-the-project-secret-but-long-enough-000", map[string]any{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()})
	algNone := gwtest.AlgNone("service_role")

	open := newHarness(t, nil)
	strict := newHarness(t, map[string]string{"GATEWAY_REQUIRE_APIKEY": "true"})
	verifier, err := jwtverify.New(jwtverify.Options{Secret: secret})
	if err != nil {
		t.Fatal(err)
	}

	const minted = "<minted>"
	tests := []struct {
		name     string
		strict   bool
		target   string
		hdr      map[string]string
		status   int
		body     string // exact body on rejection
		auth     string // forwarded Authorization; minted checks mintRole
		mintRole string
		noAuth   bool // expect no Authorization upstream
	}{
		{name: "anon key only", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, auth: "Bearer " + devkeys.AnonKey},
		{name: "anon key and user jwt", hdr: map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + user}, status: 200, auth: "Bearer " + user},
		{name: "service key", hdr: map[string]string{"apikey": devkeys.ServiceRoleKey}, status: 200, auth: "Bearer " + devkeys.ServiceRoleKey},
		{name: "other jwt signed by the secret", hdr: map[string]string{"apikey": otherRole}, status: 200, auth: "Bearer " + otherRole},
		{name: "publishable key", hdr: map[string]string{"apikey": devkeys.PublishableKey}, status: 200, auth: minted, mintRole: "anon"},
		{name: "secret key", hdr: map[string]string{"apikey": devkeys.SecretKey}, status: 200, auth: minted, mintRole: "service_role"},
		{name: "publishable as bearer too", hdr: map[string]string{"apikey": devkeys.PublishableKey, "Authorization": "Bearer " + devkeys.PublishableKey}, status: 200, auth: minted, mintRole: "anon"},
		{name: "anon key with secret bearer", hdr: map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + devkeys.SecretKey}, status: 200, auth: minted, mintRole: "service_role"},
		{name: "publishable bearer without apikey", hdr: map[string]string{"Authorization": "bearer " + devkeys.PublishableKey}, status: 200, auth: minted, mintRole: "anon"},
		{name: "publishable key with user jwt", hdr: map[string]string{"apikey": devkeys.PublishableKey, "Authorization": "Bearer " + user}, status: 200, auth: "Bearer " + user},
		{name: "apikey in query", target: "/realtime/v1/api/broadcast?apikey=" + url.QueryEscape(devkeys.AnonKey) + "&vsn=1.0.0", status: 200, auth: "Bearer " + devkeys.AnonKey},
		{name: "unknown publishable key", hdr: map[string]string{"apikey": "sb_publishable_unknown"}, status: 401, body: invalidKeyBody},
		{name: "unknown secret bearer", hdr: map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer sb_secret_unknown"}, status: 401, body: invalidKeyBody},
		{name: "unknown sb bearer without apikey", hdr: map[string]string{"Authorization": "Bearer sb_secret_unknown"}, status: 401, body: invalidKeyBody},
		{name: "expired apikey", hdr: map[string]string{"apikey": expired}, status: 401, body: invalidKeyBody},
		{name: "wrong signature apikey", hdr: map[string]string{"apikey": wrongSig}, status: 401, body: invalidKeyBody},
		{name: "alg none apikey", hdr: map[string]string{"apikey": algNone}, status: 401, body: invalidKeyBody},
		{name: "garbage apikey", hdr: map[string]string{"apikey": "hello"}, status: 401, body: invalidKeyBody},
		{name: "apikey jwt without role", hdr: map[string]string{"apikey": noRole}, status: 401, body: invalidKeyBody},
		{name: "expired bearer forwarded", hdr: map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + expired}, status: 200, auth: "Bearer " + expired},
		{name: "wrong signature bearer forwarded", hdr: map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + wrongSig}, status: 200, auth: "Bearer " + wrongSig},
		{name: "alg none bearer forwarded", hdr: map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + algNone}, status: 200, auth: "Bearer " + algNone},
		{name: "nothing proceeds as anon", status: 200, noAuth: true},
		{name: "bearer only proceeds", hdr: map[string]string{"Authorization": "Bearer " + user}, status: 200, auth: "Bearer " + user},
		{name: "nothing when required", strict: true, status: 401, body: noKeyBody},
		{name: "bearer only when required", strict: true, hdr: map[string]string{"Authorization": "Bearer " + user}, status: 401, body: noKeyBody},
		{name: "anon key when required", strict: true, hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, auth: "Bearer " + devkeys.AnonKey},
		{name: "open verify", strict: true, target: "/auth/v1/verify?token=abc&type=signup&redirect_to=x", status: 200, noAuth: true},
		{name: "open callback", strict: true, target: "/auth/v1/callback?code=1&state=2", status: 200, noAuth: true},
		{name: "open authorize", strict: true, target: "/auth/v1/authorize?provider=google", status: 200, noAuth: true},
		{name: "open jwks", strict: true, target: "/auth/v1/.well-known/jwks.json", status: 200, noAuth: true},
		{name: "open auth health", strict: true, target: "/auth/v1/health", status: 200, noAuth: true},
		{name: "open storage public object", strict: true, target: "/storage/v1/object/public/avatars/a.png", status: 200, noAuth: true},
		{name: "open storage with bad key untouched", strict: true, target: "/storage/v1/object/list/b", hdr: map[string]string{"apikey": "junk", "Authorization": "Bearer sb_secret_unknown"}, status: 200, auth: "Bearer sb_secret_unknown"},
		{name: "open storage translates sb bearer", strict: true, target: "/storage/v1/object/list/b", hdr: map[string]string{"apikey": devkeys.PublishableKey, "Authorization": "Bearer " + devkeys.PublishableKey}, status: 200, auth: minted, mintRole: "anon"},
		{name: "auth path beyond open ones needs key", strict: true, target: "/auth/v1/verify/../admin/users", status: 401, body: noKeyBody},
		// GoTrue's requireAuthentication / requireAdminCredentials routes:
		// the apikey never stands in for the caller's own token there.
		{name: "auth user with apikey only", target: "/auth/v1/user", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, noAuth: true},
		{name: "auth user with sb key only", target: "/auth/v1/user", hdr: map[string]string{"apikey": devkeys.PublishableKey}, status: 200, noAuth: true},
		{name: "auth logout with apikey only", target: "/auth/v1/logout", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, noAuth: true},
		{name: "auth reauthenticate with apikey only", target: "/auth/v1/reauthenticate", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, noAuth: true},
		{name: "auth factors with apikey only", target: "/auth/v1/factors/abc/verify", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, noAuth: true},
		{name: "auth identities with apikey only", target: "/auth/v1/user/identities/authorize?provider=google", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, noAuth: true},
		{name: "auth admin with service key only", target: "/auth/v1/admin/users", hdr: map[string]string{"apikey": devkeys.ServiceRoleKey}, status: 200, noAuth: true},
		{name: "auth admin with secret key only", target: "/auth/v1/admin/users", hdr: map[string]string{"apikey": devkeys.SecretKey}, status: 200, noAuth: true},
		{name: "auth invite with service key only", target: "/auth/v1/invite", hdr: map[string]string{"apikey": devkeys.ServiceRoleKey}, status: 200, noAuth: true},
		{name: "auth user with user bearer", target: "/auth/v1/user", hdr: map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + user}, status: 200, auth: "Bearer " + user},
		{name: "auth admin with secret bearer is minted", target: "/auth/v1/admin/users", hdr: map[string]string{"apikey": devkeys.SecretKey, "Authorization": "Bearer " + devkeys.SecretKey}, status: 200, auth: minted, mintRole: "service_role"},
		{name: "auth signup still gets the apikey", target: "/auth/v1/signup", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, auth: "Bearer " + devkeys.AnonKey},
		{name: "auth token still gets the apikey", target: "/auth/v1/token?grant_type=password", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, auth: "Bearer " + devkeys.AnonKey},
		{name: "auth settings still gets the apikey", target: "/auth/v1/settings", hdr: map[string]string{"apikey": devkeys.PublishableKey}, status: 200, auth: minted, mintRole: "anon"},
		{name: "rest user-like path still gets the apikey", target: "/rest/v1/user", hdr: map[string]string{"apikey": devkeys.AnonKey}, status: 200, auth: "Bearer " + devkeys.AnonKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := open
			if tc.strict {
				h = strict
			}
			target := tc.target
			if target == "" {
				target = "/rest/v1/properties?select=*"
			}
			res, body := h.do(t, http.MethodGet, target, tc.hdr)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", res.StatusCode, tc.status, body)
			}
			if tc.status != http.StatusOK {
				if string(body) != tc.body {
					t.Errorf("body %s\nwant %s", body, tc.body)
				}
				if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type %q", ct)
				}
				return
			}
			e := echoOf(t, res, body)
			switch {
			case tc.noAuth:
				if e.HasAuth {
					t.Errorf("upstream got Authorization %q, want none", e.Authorization)
				}
			case tc.auth == minted:
				tok, ok := strings.CutPrefix(e.Authorization, "Bearer ")
				if !ok || strings.HasPrefix(tok, "sb_") {
					t.Fatalf("upstream got %q, want a minted JWT", e.Authorization)
				}
				cl, err := verifier.Verify(tok)
				if err != nil {
					t.Fatalf("minted token does not verify: %v", err)
				}
				if cl.Role != tc.mintRole || cl.Map["iss"] != apikey.Issuer {
					t.Errorf("minted role %q iss %v, want %q %q", cl.Role, cl.Map["iss"], tc.mintRole, apikey.Issuer)
				}
				if life := time.Until(cl.ExpiresAt); life <= 0 || life > apikey.MintedLifetime {
					t.Errorf("minted token lifetime %v", life)
				}
			default:
				if e.Authorization != tc.auth {
					t.Errorf("upstream Authorization %q\nwant %q", e.Authorization, tc.auth)
				}
			}
			if q := tc.hdr["apikey"]; q != "" && e.APIKey != q {
				t.Errorf("apikey header not forwarded unchanged: %q", e.APIKey)
			}
		})
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	anyOrigin := newHarness(t, nil)
	listed := newHarness(t, map[string]string{"GATEWAY_CORS_ORIGINS": "https://kejanest.example, http://localhost:5173"})

	t.Run("preflight from any origin", func(t *testing.T) {
		t.Parallel()
		own := newHarness(t, nil) // its own upstream hit counter
		res, _ := own.do(t, http.MethodOptions, "/rest/v1/properties", map[string]string{
			"Origin":                         "https://other.example",
			"Access-Control-Request-Method":  "PATCH",
			"Access-Control-Request-Headers": "authorization, apikey, x-client-info, prefer",
		})
		want := map[string]string{
			"Access-Control-Allow-Origin":      "https://other.example",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Methods":     "GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS",
			"Access-Control-Allow-Headers":     "authorization, apikey, x-client-info, prefer",
			"Access-Control-Max-Age":           "86400",
			"Vary":                             "Origin",
		}
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("status %d, want 204", res.StatusCode)
		}
		for k, v := range want {
			if got := res.Header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
		if n := own.hits.Load(); n != 0 {
			t.Error("preflight was forwarded upstream")
		}
	})
	t.Run("preflight without requested headers", func(t *testing.T) {
		t.Parallel()
		res, _ := anyOrigin.do(t, http.MethodOptions, "/auth/v1/token", map[string]string{
			"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
		})
		if got := res.Header.Get("Access-Control-Allow-Headers"); got != cors.AllowHeaders {
			t.Errorf("Allow-Headers %q", got)
		}
	})
	t.Run("actual response exposes headers", func(t *testing.T) {
		t.Parallel()
		res, _ := anyOrigin.do(t, http.MethodGet, "/rest/v1/properties", map[string]string{
			"Origin": "https://other.example", "apikey": devkeys.AnonKey,
		})
		if v := res.Header.Values("Access-Control-Allow-Origin"); len(v) != 1 || v[0] != "https://other.example" {
			t.Errorf("Allow-Origin %q (the upstream's * must be gone)", v)
		}
		if got := res.Header.Get("Access-Control-Expose-Headers"); got != cors.ExposeHeaders {
			t.Errorf("Expose-Headers %q", got)
		}
		for _, h := range []string{"Content-Range", "X-Total-Count", "x-sb-error-code", "ETag", "Preference-Applied", "X-Request-Id"} {
			if !strings.Contains(strings.ToLower(cors.ExposeHeaders), strings.ToLower(h)) {
				t.Errorf("%s not exposed", h)
			}
		}
		if res.Header.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Origin") {
			t.Errorf("credentials/vary: %v", res.Header)
		}
	})
	t.Run("error responses carry CORS too", func(t *testing.T) {
		t.Parallel()
		res, _ := anyOrigin.do(t, http.MethodGet, "/rest/v1/x", map[string]string{"Origin": "https://other.example", "apikey": "bad"})
		if res.StatusCode != 401 || res.Header.Get("Access-Control-Allow-Origin") != "https://other.example" {
			t.Errorf("status %d Allow-Origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("no origin no cors", func(t *testing.T) {
		t.Parallel()
		res, _ := anyOrigin.do(t, http.MethodGet, "/rest/v1/properties", map[string]string{"apikey": devkeys.AnonKey})
		for k := range res.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("unexpected %s", k)
			}
		}
	})
	t.Run("listed origin allowed", func(t *testing.T) {
		t.Parallel()
		res, _ := listed.do(t, http.MethodOptions, "/rest/v1/x", map[string]string{
			"Origin": "http://localhost:5173", "Access-Control-Request-Method": "GET",
		})
		if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
			t.Errorf("status %d Allow-Origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("disallowed origin", func(t *testing.T) {
		t.Parallel()
		own := newHarness(t, map[string]string{"GATEWAY_CORS_ORIGINS": "https://kejanest.example"})
		pre, _ := own.do(t, http.MethodOptions, "/rest/v1/x", map[string]string{
			"Origin": "https://evil.example", "Access-Control-Request-Method": "GET",
		})
		act, _ := own.do(t, http.MethodGet, "/rest/v1/x", map[string]string{"Origin": "https://evil.example", "apikey": devkeys.AnonKey})
		for _, res := range []*http.Response{pre, act} {
			for k := range res.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("%s %s: unexpected %s", res.Request.Method, res.Request.URL.Path, k)
				}
			}
		}
		if pre.StatusCode != http.StatusNoContent {
			t.Errorf("preflight status %d", pre.StatusCode)
		}
		if own.hits.Load() != 1 {
			t.Error("want the actual request (only) forwarded")
		}
	})
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	tests := []struct {
		name, incoming string
		keep           bool
	}{
		{"kept", "req-123_abc", true},
		{"kept at 128", strings.Repeat("a", 128), true},
		{"too long", strings.Repeat("a", 129), false},
		{"non ascii", "caf\u00e9", false},
		{"absent", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hdr := map[string]string{"apikey": devkeys.AnonKey}
			if tc.incoming != "" {
				hdr["X-Request-Id"] = tc.incoming
			}
			res, body := h.do(t, http.MethodGet, "/rest/v1/t", hdr)
			e := echoOf(t, res, body)
			got := res.Header.Values("X-Request-Id")
			if len(got) != 1 {
				t.Fatalf("response X-Request-Id %q, want exactly one", got)
			}
			if e.RequestID != got[0] {
				t.Errorf("upstream saw %q, client %q", e.RequestID, got[0])
			}
			if tc.keep && got[0] != tc.incoming {
				t.Errorf("id %q not kept", tc.incoming)
			}
			if !tc.keep && (got[0] == tc.incoming || len(got[0]) != 36) {
				t.Errorf("want a generated uuid, got %q", got[0])
			}
		})
	}
}

func TestAccessLog(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	user := gwtest.UserToken(t, devkeys.JWTSecret, "u1")
	reqs := []struct {
		id, target, role string
		hdr              map[string]string
		status           float64
		upstream         string
	}{
		{"log-anon", "/rest/v1/t?select=*&apikey=" + url.QueryEscape(devkeys.AnonKey), "anon", nil, 200, "rest"},
		{"log-user", "/rest/v1/rpc/f?token=s3cr3t-query-token", "authenticated", map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer " + user}, 200, "rpc"},
		{"log-service", "/storage/v1/object/b/x", "service_role", map[string]string{"apikey": devkeys.SecretKey}, 200, "storage"},
		{"log-bad", "/auth/v1/user", "invalid", map[string]string{"apikey": "not-a-key"}, 401, "auth"},
		{"log-badbearer", "/auth/v1/user", "invalid", map[string]string{"apikey": devkeys.AnonKey, "Authorization": "Bearer x.y.z"}, 200, "auth"},
		{"log-spa", "/listings/42?ref=mail", "", nil, 200, "frontend"},
		{"log-health", "/health", "", nil, 200, "gateway"},
	}
	for _, rq := range reqs {
		hdr := map[string]string{"X-Request-Id": rq.id, "User-Agent": "gw-test/1"}
		for k, v := range rq.hdr {
			hdr[k] = v
		}
		h.do(t, http.MethodGet, rq.target, hdr)
	}
	// The line is written after the response is complete; give the last
	// handler a moment to return.
	deadline := time.Now().Add(2 * time.Second)
	for len(h.logs.requestLines(t)) < len(reqs) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lines := h.logs.requestLines(t)
	byID := map[string][]map[string]any{}
	for _, l := range lines {
		id, _ := l["request_id"].(string)
		byID[id] = append(byID[id], l)
	}
	for _, rq := range reqs {
		t.Run(rq.id, func(t *testing.T) {
			t.Parallel()
			got := byID[rq.id]
			if len(got) != 1 {
				t.Fatalf("%d lines for %s, want 1", len(got), rq.id)
			}
			l := got[0]
			path, _, _ := strings.Cut(rq.target, "?")
			checks := map[string]any{
				"method": "GET", "path": path, "upstream": rq.upstream, "role": rq.role,
				"status": rq.status, "remote_ip": "127.0.0.1", "user_agent": "gw-test/1",
			}
			for k, v := range checks {
				if l[k] != v {
					t.Errorf("%s = %v, want %v", k, l[k], v)
				}
			}
			for _, k := range []string{"duration_ms", "bytes"} {
				if _, ok := l[k].(float64); !ok {
					t.Errorf("%s missing or not a number: %v", k, l[k])
				}
			}
		})
	}
	t.Run("no secrets", func(t *testing.T) {
		t.Parallel()
		all := h.logs.String()
		for _, secret := range []string{devkeys.AnonKey, devkeys.SecretKey, user, "s3cr3t-query-token", "select=", "ref=mail", "not-a-key"} {
			if strings.Contains(all, secret) {
				t.Errorf("log contains %q", secret)
			}
		}
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"GATEWAY_RATE_LIMIT": "3/1h", "GATEWAY_TRUST_PROXY": "true"})
	for i := range 3 {
		res, _ := h.do(t, http.MethodGet, "/rest/v1/t", map[string]string{"apikey": devkeys.AnonKey, "X-Forwarded-For": "203.0.113.7"})
		if res.StatusCode != 200 {
			t.Fatalf("request %d: status %d", i+1, res.StatusCode)
		}
	}
	res, body := h.do(t, http.MethodGet, "/rest/v1/t", map[string]string{"apikey": devkeys.AnonKey, "X-Forwarded-For": "203.0.113.7, 10.0.0.1"})
	if res.StatusCode != http.StatusTooManyRequests || string(body) != `{"message":"API rate limit exceeded"}` {
		t.Fatalf("status %d body %s, want 429", res.StatusCode, body)
	}
	if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 1200 {
		t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	// Another client has its own bucket; the gateway's own endpoints and
	// the frontend are not limited.
	if res, _ := h.do(t, http.MethodGet, "/rest/v1/t", map[string]string{"apikey": devkeys.AnonKey, "X-Forwarded-For": "198.51.100.1"}); res.StatusCode != 200 {
		t.Errorf("other client: status %d", res.StatusCode)
	}
	if res, _ := h.do(t, http.MethodGet, "/health", map[string]string{"X-Forwarded-For": "203.0.113.7"}); res.StatusCode != 200 {
		t.Errorf("health: status %d", res.StatusCode)
	}
	if m := h.metricsEventually(t, `gateway_rate_limited_total{service="rest"} 1`); m != "" {
		t.Errorf("rate-limited counter missing:\n%s", grepLines(m, "gateway_rate_limited"))
	}
}

func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.do(t, http.MethodGet, "/rest/v1/t", map[string]string{"apikey": devkeys.AnonKey})
	tests := []struct {
		name, method, target string
		status               int
		contains             []string
	}{
		{"health", "GET", "/health", 200, []string{`{"status":"ok"}`}},
		{"health post", "POST", "/health", 405, nil},
		{"metrics post", "POST", "/metrics", 405, nil},
		{"metrics", "GET", "/metrics", 200, []string{
			"# TYPE gateway_requests_total counter",
			"gateway_request_duration_seconds_bucket",
			"gateway_requests_in_flight",
			"gateway_rate_limited_total",
		}},
	}
	// The counters move when the handler returns, a moment after the
	// client has the response.
	if m := h.metricsEventually(t, `gateway_requests_total{service="rest",status_class="2xx"} 1`,
		`gateway_request_duration_seconds_count{service="rest"} 1`); m != "" {
		t.Errorf("rest request not counted:\n%s", grepLines(m, "gateway_request"))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, body := h.do(t, tc.method, tc.target, nil)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d", res.StatusCode)
			}
			for _, c := range tc.contains {
				if !strings.Contains(string(body), c) {
					t.Errorf("missing %q", c)
				}
			}
		})
	}
}

// /metrics is for the operator's scraper: loopback peers only, unless made
// public. A request that came through a proxy is not local.
func TestMetricsAccess(t *testing.T) {
	t.Parallel()
	private := newHarness(t, nil)
	public := newHarness(t, map[string]string{"GATEWAY_METRICS_PUBLIC": "true"})
	tests := []struct {
		name   string
		h      *harness
		hdr    map[string]string
		status int
	}{
		{"loopback peer", private, nil, 200},
		{"forwarded request", private, map[string]string{"X-Forwarded-For": "203.0.113.9"}, 403},
		{"forwarded request, public metrics", public, map[string]string{"X-Forwarded-For": "203.0.113.9"}, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, body := tc.h.do(t, http.MethodGet, "/metrics", tc.hdr)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
			}
			if tc.status == 403 && string(body) != `{"message":"Metrics are only served to loopback clients"}` {
				t.Errorf("body %s", body)
			}
		})
	}
}

func TestLoopbackPeer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		remote, xff string
		want        bool
	}{
		{"127.0.0.1:5000", "", true},
		{"[::1]:5000", "", true},
		{"10.0.0.5:5000", "", false},
		{"[2001:db8::1]:80", "", false},
		{"127.0.0.1:5000", "198.51.100.4", false},
		{"not-an-address", "", false},
	}
	for _, tc := range tests {
		r, _ := http.NewRequest(http.MethodGet, "/metrics", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := loopbackPeer(r); got != tc.want {
			t.Errorf("loopbackPeer(%s, xff=%q) = %v, want %v", tc.remote, tc.xff, got, tc.want)
		}
	}
}

// metricsEventually polls /metrics until it contains every want; it
// returns "" on success, else the last exposition seen.
func (h *harness) metricsEventually(t *testing.T, want ...string) string {
	t.Helper()
	var body []byte
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, body = h.do(t, http.MethodGet, "/metrics", nil)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(string(body), w)
		}
		if ok {
			return ""
		}
	}
	return string(body)
}

func grepLines(s, substr string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestUpstreamDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]string{"REST_URL": deadUpstream(t)})
	res, body := h.do(t, http.MethodGet, "/rest/v1/t?token=x-secret", map[string]string{"Origin": "http://localhost:5173", "apikey": devkeys.AnonKey})
	if res.StatusCode != http.StatusBadGateway || string(body) != badGatewayBody {
		t.Fatalf("status %d body %s", res.StatusCode, body)
	}
	if res.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Error("502 lacks CORS headers; the browser would hide it")
	}
	if strings.Contains(h.logs.String(), "x-secret") {
		t.Error("upstream error log leaked the query")
	}
}

// deadUpstream returns the URL of an upstream that accepts connections and
// closes them at once, so every proxied request fails. The listener stays
// open for the whole test: a closed port could be taken by a parallel test's
// server before the request is made, which then answers 200 instead of 502.
func deadUpstream(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestStreaming(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	up := newStreamUpstream(t, release)
	h := newHarness(t, map[string]string{"STORAGE_URL": up})
	res, err := h.gw.Client().Get(h.gw.URL + "/storage/v1/object/b/big")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	close(release)
	if err != nil || line != "first\n" {
		t.Fatalf("first chunk %q, %v: the body was buffered", line, err)
	}
}

// newStreamUpstream writes one line, flushes, and waits for release before
// finishing: a buffering proxy would deadlock the test's read.
func newStreamUpstream(t *testing.T, release chan struct{}) string {
	t.Helper()
	up := echoServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first\n")
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		_, _ = io.WriteString(w, "rest\n")
	}))
	return up
}

func TestWebsocketProxied(t *testing.T) {
	t.Parallel()
	var seen atomic.Value
	up := echoServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.URL.Path + " apikey=" + r.URL.Query().Get("apikey") + " vsn=" + r.URL.Query().Get("vsn") + " auth=" + r.Header.Get("Authorization"))
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if err := c.Write(r.Context(), typ, append([]byte("echo:"), msg...)); err != nil {
				return
			}
		}
	}))
	h := newHarness(t, map[string]string{"REALTIME_URL": up, "GATEWAY_REQUIRE_APIKEY": "true"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	wsURL := "ws" + strings.TrimPrefix(h.gw.URL, "http") + "/realtime/v1/websocket?apikey=" + url.QueryEscape(devkeys.AnonKey) + "&vsn=1.0.0"
	c, res, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"X-Request-Id": {"ws-1"}}})
	if err != nil {
		t.Fatalf("dial through gateway: %v", err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d", res.StatusCode)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"event":"phx_join"}`)); err != nil {
		t.Fatal(err)
	}
	_, msg, err := c.Read(ctx)
	if err != nil || string(msg) != `echo:{"event":"phx_join"}` {
		t.Fatalf("read %q, %v", msg, err)
	}
	want := "/websocket apikey=" + devkeys.AnonKey + " vsn=1.0.0 auth=Bearer " + devkeys.AnonKey
	if got, _ := seen.Load().(string); got != want {
		t.Errorf("upstream saw %q\nwant %q", got, want)
	}
	_ = c.Close(websocket.StatusNormalClosure, "bye")

	// One line, written when the upgraded connection ends.
	var line map[string]any
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, l := range h.logs.requestLines(t) {
			if l["request_id"] == "ws-1" {
				line = l
			}
		}
		if line != nil {
			break
		}
	}
	if line == nil || line["status"] != float64(101) || line["path"] != "/realtime/v1/websocket" || line["role"] != "anon" {
		t.Fatalf("websocket log line %v", line)
	}
	if n := strings.Count(h.logs.String(), `"request_id":"ws-1"`); n != 1 {
		t.Errorf("%d lines for the websocket, want 1", n)
	}

	t.Run("rejected without key when required", func(t *testing.T) {
		_, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.gw.URL, "http")+"/realtime/v1/websocket?vsn=1.0.0", nil)
		if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("want 401, got %v %v", res, err)
		}
	})
}

func echoServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestListenAndServe(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	// 2001:db8::/32 is documentation space, never on this host: it must be
	// skipped with a warning, as ::1 is on a host without IPv6.
	lns, err := Listen(context.Background(), []string{"127.0.0.1:0", "[2001:db8::1]:0"}, log)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	if len(lns) != 1 || !strings.Contains(logs.String(), "2001:db8::1") {
		t.Fatalf("listeners %d, log %s", len(lns), logs.String())
	}
	if _, err := Listen(context.Background(), []string{"[2001:db8::1]:0"}, log); err == nil {
		t.Error("want an error when no address can be opened")
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.srv.Serve(ctx, lns) }()
	res, err := http.Get("http://" + lns[0].Addr().String() + "/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("health on real listener: %d", res.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown did not finish")
	}
}

func TestSPAThroughGateway(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	tests := []struct {
		name, method, target string
		status               int
		cache                string
		body                 string
	}{
		{"index", "GET", "/", 200, "no-cache", "<title>KejaNest</title>"},
		{"client route", "GET", "/properties/42", 200, "no-cache", "<title>KejaNest</title>"},
		{"asset", "GET", "/assets/app-3f9a1c.js", 200, "public, max-age=31536000, immutable", "console.log(1)"},
		{"missing asset", "GET", "/assets/app-000000.js", 404, "", ""},
		{"post", "POST", "/properties", 405, "", ""},
		{"traversal", "GET", "/assets/../../../../etc/passwd", 200, "no-cache", "<title>KejaNest</title>"},
		{"encoded traversal", "GET", "/%2e%2e/%2e%2e/etc/passwd", 200, "no-cache", "<title>KejaNest</title>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, body := h.do(t, tc.method, tc.target, nil)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d", res.StatusCode)
			}
			if tc.cache != "" && res.Header.Get("Cache-Control") != tc.cache {
				t.Errorf("Cache-Control %q", res.Header.Get("Cache-Control"))
			}
			if !strings.Contains(string(body), tc.body) {
				t.Errorf("body %q", body)
			}
		})
	}
}

// TestClientAddressForwarded checks the X-Real-IP the services rate-limit
// by: the peer, or with GATEWAY_TRUST_PROXY the front proxy's client (the
// leftmost X-Forwarded-For entry); never a value the client wrote itself.
func TestClientAddressForwarded(t *testing.T) {
	t.Parallel()
	direct := newHarness(t, nil)
	trusted := newHarness(t, map[string]string{"GATEWAY_TRUST_PROXY": "true"})
	tests := []struct {
		name   string
		h      *harness
		hdr    map[string]string
		realIP string
		xff    string
	}{
		{"direct", direct, nil, "127.0.0.1", "127.0.0.1"},
		{"direct, client claims an address", direct, map[string]string{"X-Real-Ip": "203.0.113.66", "X-Forwarded-For": "203.0.113.66"}, "127.0.0.1", "127.0.0.1"},
		{"behind a trusted proxy", trusted, map[string]string{"X-Forwarded-For": "203.0.113.7, 10.0.0.1"}, "203.0.113.7", "203.0.113.7, 10.0.0.1, 127.0.0.1"},
		{"behind a trusted proxy, forged X-Real-IP", trusted, map[string]string{"X-Forwarded-For": "203.0.113.7", "X-Real-Ip": "198.51.100.99"}, "203.0.113.7", "203.0.113.7, 127.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hdr := map[string]string{"apikey": devkeys.AnonKey}
			for k, v := range tc.hdr {
				hdr[k] = v
			}
			res, body := tc.h.do(t, http.MethodGet, "/auth/v1/token", hdr)
			e := echoOf(t, res, body)
			if e.RealIP != tc.realIP || e.XFF != tc.xff {
				t.Errorf("X-Real-IP %q, X-Forwarded-For %q; want %q, %q", e.RealIP, e.XFF, tc.realIP, tc.xff)
			}
		})
	}
}

// TestAsymmetricKeys: with JWT_JWKS set, JWT apikeys signed by an
// asymmetric key (Supabase's ANON_KEY_ASYMMETRIC) are accepted by kid; the
// legacy HS256 keys still are, and an unknown kid is refused.
func TestAsymmetricKeys(t *testing.T) {
	t.Parallel()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := jwk.Import(priv.Public())
	_ = pub.Set(jwk.KeyIDKey, "ec-1")
	_ = pub.Set(jwk.AlgorithmKey, jwa.ES256())
	set := jwk.NewSet()
	_ = set.AddKey(pub)
	jwks, _ := json.Marshal(set)
	h := newHarness(t, map[string]string{"JWT_JWKS": string(jwks), "GATEWAY_REQUIRE_APIKEY": "true"})
	sign := func(kid string) string {
		hdr := jws.NewHeaders()
		_ = hdr.Set(jws.KeyIDKey, kid)
		payload, _ := json.Marshal(map[string]any{"role": "anon", "iss": "supabase", "exp": time.Now().Add(time.Hour).Unix()})
		out, err := jws.Sign(payload, jws.WithKey(jwa.ES256(), priv, jws.WithProtectedHeaders(hdr)))
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	good, unknown := sign("ec-1"), sign("ec-2")
	tests := []struct {
		name, apikey string
		status       int
	}{
		{"ES256 apikey", good, 200},
		{"legacy HS256 anon key", devkeys.AnonKey, 200},
		{"unknown kid", unknown, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, body := h.do(t, http.MethodGet, "/rest/v1/properties", map[string]string{"apikey": tc.apikey})
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
			}
			if tc.status == 200 {
				if e := echoOf(t, res, body); e.Authorization != "Bearer "+tc.apikey {
					t.Errorf("forwarded %q", e.Authorization)
				}
			}
		})
	}
	cfg, _ := config.Load(envconf.FromMap(map[string]string{"JWT_JWKS": "[{]"}))
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "JWT_JWKS") {
		t.Errorf("a malformed JWT_JWKS: Validate = %v", err)
	}
}
