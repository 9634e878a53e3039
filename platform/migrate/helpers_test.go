package migrate_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func osDirFS(t *testing.T) fs.FS {
	t.Helper()
	return os.DirFS(filepath.Join(pgtest.RepoRoot(), "sql", "migrations"))
}
