// Package schematest gives the pipeline's tests a database built from one
// of the compat fixtures and its schema cache.
package schematest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// Load creates a database from compat/fixtures/<fixture>, connects to it
// as authenticator (the pool is closed when t ends) and reads the schema
// cache of schemas.
func Load(t testing.TB, fixture string, schemas []string) (*pgxpool.Pool, *schemacache.Cache) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", fixture)}})
	pool, err := pgxpool.New(context.Background(), db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	h := schemacache.NewHolder(pool, schemas, nil)
	if err := h.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	return pool, h.Get()
}
