package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/authsvc/internal/mailer"
	"github.com/kejanest/kejanest/authsvc/internal/sms"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// env is one test's running authsvc against its own database.
type env struct {
	t     testing.TB
	app   *fiber.App
	cfg   config.Config
	mail  *mailer.Memory
	sms   *sms.Memory
	clock *testClock
	store *store.Store
	// limits keeps the rate limits' buckets, on a pool of its own as in
	// main.
	limits *store.Store
	// dbURL connects as the superuser; authURL as authsvc does.
	dbURL, authURL string
}

// newEnv starts authsvc on a fresh database; vars override the
// configuration (GOTRUE_* names).
func newEnv(t testing.TB, vars map[string]string) *env {
	t.Helper()
	m := map[string]string{"GOTRUE_PASSWORD_HASH_COST": "4", "GOTRUE_SMTP_MAX_FREQUENCY": "0", "API_EXTERNAL_URL": "http://api.test",
		"GOTRUE_SITE_URL": "http://app.test", "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_MAX_FREQUENCY": "0"}
	for k, v := range vars {
		m[k] = v
	}
	cfg, err := config.Load(envconf.FromMap(m))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	db := pgtest.New(t, pgtest.Options{})
	e := &env{t: t, cfg: cfg, mail: &mailer.Memory{}, sms: &sms.Memory{}, clock: &testClock{t: time.Now().Truncate(time.Second)},
		dbURL: db.URL, authURL: db.URLAs("supabase_auth_admin")}
	e.start()
	return e
}

// start opens e's pools on e.authURL and builds its app.
func (e *env) start() {
	e.t.Helper()
	open := func() *store.Store {
		pool, err := pgxpool.New(context.Background(), e.authURL)
		if err != nil {
			e.t.Fatal(err)
		}
		e.t.Cleanup(pool.Close)
		return store.New(pool)
	}
	e.store, e.limits = open(), open()
	e.app = New(Deps{Config: e.cfg, Log: slog.New(slog.DiscardHandler), Store: e.store, RateLimits: e.limits, Mailer: e.mail, SMS: e.sms, Now: e.clock.Now})
}

// replica is a second authsvc over e's database, as a second process
// behind the gateway would be: its own pools and app, the same
// configuration, clock, mail and SMS boxes.
func (e *env) replica() *env {
	e.t.Helper()
	r := *e
	r.start()
	return &r
}

type resp struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (r resp) code() string { s, _ := r.body["code"].(string); return s }

// do sends a request with the auth-js headers; bearer may be "".
func (e *env) do(method, target, bearer string, body any) resp {
	e.t.Helper()
	return e.doH(method, target, bearer, body, nil)
}

// doH is do with extra request headers.
func (e *env) doH(method, target, bearer string, body any, headers map[string]string) resp {
	e.t.Helper()
	r, err := e.send(request(method, target, bearer, body, headers))
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, target, err)
	}
	return r
}

// request builds a request with the auth-js headers.
func request(method, target, bearer string, body any, headers map[string]string) *http.Request {
	var rd io.Reader
	if raw, ok := body.([]byte); ok {
		rd = bytes.NewReader(raw)
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, target, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Supabase-Api-Version", "2024-01-01")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req
}

// send runs req through the app; unlike do it never stops the test, so
// other goroutines may call it.
func (e *env) send(req *http.Request) (resp, error) {
	res, err := e.app.Test(req, fiber.TestConfig{Timeout: 20 * time.Second, FailOnTimeout: true})
	if err != nil {
		return resp{}, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := resp{status: res.StatusCode, header: res.Header, raw: string(b)}
	if len(b) > 0 && b[0] == '{' {
		_ = json.Unmarshal(b, &r.body)
	}
	return r, nil
}

// serviceKey is a service_role JWT like the stack's.
func (e *env) serviceKey() string {
	tok, err := jwtverify.SignHS256(map[string]any{"role": "service_role", "iss": "supabase-demo", "exp": e.clock.Now().Add(time.Hour).Unix()}, []byte(e.cfg.JWTSecret))
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

var codeRE = regexp.MustCompile(`(?i)enter the code: (\d+)`)
var linkRE = regexp.MustCompile(`href="([^"]+)"`)

// lastCode returns the code and link of the newest mail to addr.
func (e *env) lastMail(addr string) (code, link string) {
	e.t.Helper()
	m, ok := e.mail.Last(addr)
	if !ok {
		e.t.Fatalf("no mail to %s", addr)
	}
	if c := codeRE.FindStringSubmatch(m.HTML); c != nil {
		code = c[1]
	}
	if l := linkRE.FindStringSubmatch(m.HTML); l != nil {
		link = htmlUnescape(l[1])
	}
	return code, link
}

func htmlUnescape(s string) string {
	return regexp.MustCompile(`&amp;`).ReplaceAllString(s, "&")
}

// signUpConfirmed creates a confirmed password user through the admin API
// and signs in; it returns the session body.
func (e *env) signUpConfirmed(email, password string) map[string]any {
	e.t.Helper()
	r := e.do("POST", "/admin/users", e.serviceKey(), map[string]any{"email": email, "password": password, "email_confirm": true})
	if r.status != 200 {
		e.t.Fatalf("admin create: %d %s", r.status, r.raw)
	}
	r = e.do("POST", "/token?grant_type=password", "", map[string]any{"email": email, "password": password})
	if r.status != 200 {
		e.t.Fatalf("sign in: %d %s", r.status, r.raw)
	}
	return r.body
}

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func pkceS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// anonKey is an anon JWT like the stack's.
func (e *env) anonKey() string {
	tok, err := jwtverify.SignHS256(map[string]any{"role": "anon", "iss": "supabase-demo", "exp": e.clock.Now().Add(time.Hour).Unix()}, []byte(e.cfg.JWTSecret))
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}
