package pgcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"
)

// MachineServer is the PostgreSQL server a development machine usually has.
const MachineServer = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Server is a PostgreSQL server to create databases on.
type Server struct {
	// AdminURL connects as a superuser to the maintenance database.
	AdminURL string
	// Private is the cluster started for this process, nil when an existing
	// server is used.
	Private *Cluster
	dir     string
}

// Close stops and removes a private cluster; it does nothing otherwise.
func (s *Server) Close(ctx context.Context) error {
	if s.Private == nil {
		return nil
	}
	err := s.Private.Stop(ctx)
	_ = os.RemoveAll(s.dir)
	return err
}

// FindServer returns the first usable server: the URL in envVar (if that
// variable is set), the machine's server on 127.0.0.1:5432, or else a private
// throwaway cluster in a temporary directory on a free port. nodeRoots are
// searched for the npm package's binaries when the system has none.
func FindServer(ctx context.Context, envVar string, nodeRoots ...string) (*Server, error) {
	if u := os.Getenv(envVar); envVar != "" && u != "" {
		return &Server{AdminURL: u}, nil
	}
	if conn, err := pgx.Connect(ctx, MachineServer); err == nil {
		conn.Close(ctx)
		return &Server{AdminURL: MachineServer}, nil
	}
	bin, err := FindBinaries(nodeRoots...)
	if err != nil {
		return nil, fmt.Errorf("no PostgreSQL server reachable and none can be started: %w", err)
	}
	dir, err := os.MkdirTemp("", "kejanest-pg-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	c, err := New(filepath.Join(dir, "data"), port, bin)
	if err != nil {
		return nil, err
	}
	if err := c.Init(ctx); err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return &Server{AdminURL: c.URL("postgres"), Private: c, dir: dir}, nil
}
