package embedded

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/internal/httpapi"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testSecret = "embedded-test-secret-that-is-at-least-32-characters"

// startBoth starts one Service over the rest fixture and serves it twice:
// as cmd/rest does (Fiber, internal/httpapi) and through Handler. It
// returns both base URLs.
func startBoth(t *testing.T) (fiberURL, netURL string) {
	t.Helper()
	svc, ctx := startService(t)
	log := slog.New(slog.DiscardHandler)
	app := httpapi.New(httpapi.Deps{Log: log, Ready: svc.Ready, Pipeline: svc.Pipeline})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Its own context: cleanups run last-registered first, before the
	// service's context ends.
	fctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = fiberserve.ServeListener(fctx, app, ln, log); close(done) }()
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(func() {
		srv.Close()
		stop()
		<-done
	})
	return "http://" + ln.Addr().String(), srv.URL
}

// startService starts a Service over the rest fixture; the context ends,
// and the service closes, when the test does.
func startService(t *testing.T) (*Service, context.Context) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", "rest.sql")}})
	cfg, err := LoadConfig(envconf.FromMap(map[string]string{
		"PGRST_DB_URI":                db.URLAs("authenticator"),
		"PGRST_DB_SCHEMAS":            "library,public",
		"PGRST_JWT_SECRET":            testSecret,
		"PGRST_DB_POOL":               "4",
		"PGRST_DB_TX_END":             "commit-allow-override",
		"PGRST_DB_AGGREGATES_ENABLED": "true",
	}), RestPort)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.DiscardHandler)
	svc, err := Start(ctx, cfg, log, "kejanest-test")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := svc.Ready(ctx); err != nil {
		cancel()
		svc.Close()
		t.Fatalf("not ready after Start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		svc.Close()
	})
	return svc, ctx
}

// answer is what a client can tell apart: status, the headers PostgREST's
// clients read, and the body.
type answer struct {
	status  int
	headers map[string]string
	body    string
}

// compared are the response headers that must match; Date and
// Server-Timing (clock readings) and Content-Length of a HEAD answer
// (fasthttp keeps the GET length, net/http may omit it) do not count.
var compared = []string{"Content-Type", "Content-Range", "Content-Location", "Location", "Preference-Applied", "Proxy-Status"}

func send(t *testing.T, base, method, target, body string, headers []string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+target, rd)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: res.StatusCode, headers: map[string]string{}, body: string(b)}
	for _, k := range compared {
		if v := res.Header.Values(k); len(v) > 0 {
			a.headers[k] = strings.Join(v, " | ")
		}
	}
	return a
}

// Every kind of answer the pipeline gives reads the same through Handler
// as through the Fiber app cmd/rest serves: reads, counts, singular
// objects, writes (rolled back), calls, PostgREST errors of each stage and
// the health endpoints. (An oversized body is not compared: Fiber resets
// the connection, which is why the gateway answers it first.)
func TestHandlerAnswersAsTheFiberApp(t *testing.T) {
	fiberURL, netURL := startBoth(t)
	user, err := jwtverify.SignHS256(map[string]any{"role": "authenticated", "sub": "11111111-1111-1111-1111-111111111111",
		"exp": time.Now().Add(time.Hour).Unix()}, []byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	lib := "Accept-Profile: library"
	libWrite := "Content-Profile: library"
	cases := []struct {
		name, method, target, body string
		headers                    []string
		status                     int
	}{
		{"read with filters and order", "GET", "/books?select=id,title,authors!author_id(name)&price=gt.5&order=id.desc&limit=3", "", []string{lib}, 200},
		{"exact count", "GET", "/books?select=id&limit=2", "", []string{lib, "Prefer: count=exact"}, 206},
		{"head with count", "HEAD", "/books?select=id", "", []string{lib, "Prefer: count=exact"}, 200},
		{"singular object", "GET", "/authors?id=eq.1", "", []string{lib, "Accept: application/vnd.pgrst.object+json"}, 200},
		{"singular object of none", "GET", "/authors?id=eq.-1", "", []string{lib, "Accept: application/vnd.pgrst.object+json"}, 406},
		{"csv", "GET", "/authors?select=id,name&order=id&limit=2", "", []string{lib, "Accept: text/csv"}, 200},
		{"aggregate", "GET", "/books?select=count()", "", []string{lib}, 200},
		{"rls as a user", "GET", "/reviews?select=id,private&order=id", "", []string{lib, "Authorization: Bearer " + user}, 200},
		{"insert rolled back", "POST", "/settings?select=key,value", `{"key":"embedded","value":"v"}`,
			[]string{libWrite, "Prefer: return=representation, tx=rollback"}, 201},
		{"upsert rolled back", "POST", "/settings?on_conflict=key&select=key,value", `[{"key":"embedded","value":"v"}]`,
			[]string{libWrite, "Prefer: resolution=merge-duplicates, return=representation, tx=rollback"}, 201},
		{"update without filter", "PATCH", "/books", `{"pages":1}`, []string{libWrite}, 400},
		{"call", "POST", "/rpc/add", `{"a":1,"b":2}`, []string{libWrite}, 200},
		{"call by GET", "GET", "/rpc/greet?name=nairobi", "", []string{lib}, 200},
		{"ambiguous call", "POST", "/rpc/ambiguous", `{"x":1}`, []string{libWrite}, 300},
		{"unknown table", "GET", "/nope", "", []string{lib}, 404},
		{"unknown column", "GET", "/books?select=nope", "", []string{lib}, 400},
		{"bad filter value", "GET", "/books?id=eq.abc", "", []string{lib}, 400},
		{"bad query grammar", "GET", "/books?order=id.sideways", "", []string{lib}, 400},
		{"no privilege", "GET", "/secrets", "", []string{lib}, 401},
		{"bad token", "GET", "/books", "", []string{lib, "Authorization: Bearer not.a.jwt"}, 401},
		{"invalid json", "POST", "/settings", `{"key":`, []string{libWrite}, 400},
		{"unknown schema", "GET", "/books", "", []string{"Accept-Profile: elsewhere"}, 406},
		{"too deep a path", "GET", "/books/1", "", []string{lib}, 404},
		{"unsupported method", "TRACE", "/books", "", []string{lib}, 405},
		{"live", "GET", "/live", "", nil, 200},
		{"ready", "GET", "/ready", "", nil, 200},
		{"ready by HEAD", "HEAD", "/ready", "", nil, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := send(t, fiberURL, c.method, c.target, c.body, c.headers)
			got := send(t, netURL, c.method, c.target, c.body, c.headers)
			if want.status != c.status {
				t.Fatalf("the Fiber app answered %d, the case expects %d: %s", want.status, c.status, want.body)
			}
			if got.status != want.status || got.body != want.body {
				t.Errorf("Handler answered %d %q\nFiber app %d %q", got.status, got.body, want.status, want.body)
			}
			for _, k := range compared {
				if got.headers[k] != want.headers[k] {
					t.Errorf("%s: Handler %q, Fiber app %q", k, got.headers[k], want.headers[k])
				}
			}
		})
	}
}

// A panic below the pipeline is answered 500 in PostgREST's shape with
// the request id, and the server goes on serving.
func TestHandlerRecoversPanics(t *testing.T) {
	h := &handler{log: slog.New(slog.DiscardHandler), bodyLimit: 1 << 20, ready: func(context.Context) error { panic("boom") }}
	req := httptest.NewRequest("GET", "/ready", nil)
	req.Header.Set(fiberserve.HeaderRequestID, "req-7")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), `"PGRSTX00"`) || !strings.Contains(rec.Body.String(), "req-7") {
		t.Errorf("answered %d %s, want 500 PGRSTX00 naming req-7", rec.Code, rec.Body.String())
	}
}

// A body over the limit, announced or streamed, is answered 413 in the
// words the gateway uses for rest (apierr.RestBodyTooLarge) before the
// pipeline sees it.
func TestHandlerBodyLimit(t *testing.T) {
	h := &handler{log: slog.New(slog.DiscardHandler), bodyLimit: 8}
	const want = `{"code":"PGRST102","details":null,"hint":null,"message":"Request body too large"}`
	for _, announced := range []bool{true, false} {
		req := httptest.NewRequest("POST", "/settings", strings.NewReader(`{"key":"0123456789"}`))
		if !announced {
			req.ContentLength = -1
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge || rec.Body.String() != want {
			t.Errorf("announced %v: %d %s, want 413 %s", announced, rec.Code, rec.Body.String(), want)
		}
	}
}

// A client that goes away does not cancel its statement, as under Fiber
// (pgx would close the pooled connection to cancel it, and a search box
// aborting each keystroke's request would churn the pool): a request whose
// context is already cancelled is still answered.
func TestHandlerOutlivesTheClient(t *testing.T) {
	svc, _ := startService(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", "/authors?select=id&id=eq.1", nil).WithContext(ctx)
	req.Header.Set("Accept-Profile", "library")
	rec := httptest.NewRecorder()
	svc.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Body.String() != `[{"id":1}]` {
		t.Errorf("answered %d %s, want 200 [{\"id\":1}]", rec.Code, rec.Body.String())
	}
}

func TestSetHeaders(t *testing.T) {
	h := http.Header{"Vary": {"Origin"}}
	setHeaders(h, [][2]string{
		{"content-type", "application/json"}, {"Set-Cookie", "a=1"}, {"Vary", "Accept"},
		{"Content-Range", "0-0/*"}, {"set-cookie", "b=2"}, {"content-type", "text/csv"},
	})
	want := http.Header{
		"Content-Type": {"text/csv"}, "Set-Cookie": {"a=1", "b=2"}, "Vary": {"Accept"}, "Content-Range": {"0-0/*"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("headers %v, want %v", h, want)
	}
	// The values share an array: appending to one must leave the others.
	h["Vary"] = append(h["Vary"], "Origin")
	if got := h["Content-Range"]; len(got) != 1 || got[0] != "0-0/*" {
		t.Errorf("appending to Vary changed Content-Range to %v", got)
	}
	if got := h["Vary"]; !reflect.DeepEqual(got, []string{"Accept", "Origin"}) {
		t.Errorf("Vary %v", got)
	}
}
