package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testSecret = "test-secret-that-is-at-least-32-characters-long"

// Users of the fixture's reviews.
const (
	user1 = "11111111-1111-1111-1111-111111111111"
	user2 = "22222222-2222-2222-2222-222222222222"
)

func fixture() string { return filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", "rest.sql") }

// stack is an app over its own fixture database.
type stack struct {
	app   *fiber.App
	db    *pgtest.DB
	pool  *pgxpool.Pool
	cache *schemacache.Holder
}

func newStack(t testing.TB, mutate func(*pgrst.Config)) *stack {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{fixture()}})
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	schemas := []string{"library", "public"}
	cache := schemacache.NewHolder(pool, schemas, nil)
	if err := cache.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := jwtverify.New(jwtverify.Options{Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	pc := pgrst.Config{Schemas: schemas, ExtraSearchPath: []string{"public", "extensions"}, AnonRole: "anon", MaxRows: 1000,
		Aggregates: true, TxEnd: pgrst.TxCommitAllowOverride, SafeUpdate: true, OpenAPIMode: pgrst.OpenAPIFollowPrivileges, ServerTiming: true}
	if mutate != nil {
		mutate(&pc)
	}
	log := slog.New(slog.DiscardHandler)
	app := New(Deps{Log: log, Pipeline: pgrst.New(pc, pool, cache, v, log)})
	return &stack{app: app, db: db, pool: pool, cache: cache}
}

func token(t testing.TB, claims map[string]any) string {
	t.Helper()
	if _, ok := claims["exp"]; !ok {
		claims["exp"] = time.Now().Add(time.Hour).Unix()
	}
	s, err := jwtverify.SignHS256(claims, []byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// call sends one request; headers are "Name: value" strings.
func (s *stack) call(t *testing.T, method, target, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.app.Test(req, fiber.TestConfig{Timeout: 20 * time.Second, FailOnTimeout: true})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
