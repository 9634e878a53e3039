package httpapi

import (
	"context"
	"io"
	"log/slog"
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

const secret = "rpc-test-secret-that-is-at-least-32-characters"

// TestPipeline checks the rpc service's routing over the shared pipeline:
// /rpc/{fn} calls with GET, HEAD, POST and OPTIONS, 405 PGRST101 for other
// verbs, 404 PGRST125 for every other path. The calls' semantics are
// covered by rest's tests of the same pipeline.
func TestPipeline(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", "rest.sql")}})
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cache := schemacache.NewHolder(pool, []string{"library"}, nil)
	if err := cache.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := jwtverify.New(jwtverify.Options{Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	app := New(Deps{Log: log, Pipeline: pgrst.New(pgrst.Config{Schemas: []string{"library"}, AnonRole: "anon", MaxRows: 1000}, pool, cache, v, log)})
	user, _ := jwtverify.SignHS256(map[string]any{"role": "authenticated", "sub": "11111111-1111-1111-1111-111111111111", "exp": time.Now().Add(time.Hour).Unix()}, []byte(secret))

	tests := []struct {
		method, target, body, auth string
		status                     int
		want                       string
	}{
		{"GET", "/rpc/add?a=1&b=2", "", "", 200, "3"},
		{"POST", "/rpc/add", `{"a":2,"b":2}`, "", 200, "4"},
		{"HEAD", "/rpc/book_count", "", "", 200, ""},
		{"POST", "/rpc/books_by?select=id&order=id", `{"author":1}`, "", 200, `[{"id":1}, 
 {"id":2}]`},
		{"GET", "/rpc/my_reviews?select=id", "", user, 200, `[{"id":1}, 
 {"id":3}]`},
		{"POST", "/rpc/noop", "", "", 204, ""},
		{"OPTIONS", "/rpc/noop", "", "", 200, ""},
		{"PUT", "/rpc/add", "", "", 405, `"code":"PGRST101"`},
		{"DELETE", "/rpc/add", "", "", 405, `"message":"Cannot use the DELETE method on RPC"`},
		{"GET", "/rpc/nope", "", "", 404, `"code":"PGRST202"`},
		{"GET", "/authors", "", "", 404, `"code":"PGRST125"`},
		{"GET", "/rpc/add?a=1&b=2", "", "Bearer x.y", 401, `"code":"PGRST301"`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			t.Parallel()
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, tt.target, body)
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if tt.auth != "" {
				if !strings.HasPrefix(tt.auth, "Bearer") {
					tt.auth = "Bearer " + tt.auth
				}
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := app.Test(req, fiber.TestConfig{Timeout: 20 * time.Second, FailOnTimeout: true})
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
				t.Errorf("%s %s = %d %s, want %d containing %s", tt.method, tt.target, resp.StatusCode, b, tt.status, tt.want)
			}
		})
	}
}
