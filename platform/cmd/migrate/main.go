// Command migrate applies sql/migrations to DATABASE_URL: the production
// counterpart of what `make run` does before starting the services.
//
//	DATABASE_URL=postgres://... migrate [-dir sql/migrations]
//
// AUTHENTICATOR_PASSWORD, AUTH_ADMIN_PASSWORD and STORAGE_ADMIN_PASSWORD, when
// set, become the login passwords of the services' roles.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/migrate"
)

func main() {
	dir := flag.String("dir", "sql/migrations", "folder of NNNN_name.sql files")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long (waiting for the lock included)")
	flag.Parse()
	log := logging.New(os.Stderr, "migrate", os.Getenv("LOG_LEVEL"))

	url := os.Getenv("DATABASE_URL")
	if url == "" {
		fmt.Fprintln(os.Stderr, "migrate: DATABASE_URL is not set")
		os.Exit(2)
	}
	migs, err := migrate.Load(os.DirFS(*dir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate:", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate: connect:", err)
		os.Exit(1)
	}
	defer conn.Close(context.Background())
	res, err := migrate.Apply(ctx, conn, migs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate:", err)
		os.Exit(1)
	}
	if err := migrate.SetPasswords(ctx, conn, map[string]string{
		"authenticator":          os.Getenv("AUTHENTICATOR_PASSWORD"),
		"supabase_auth_admin":    os.Getenv("AUTH_ADMIN_PASSWORD"),
		"supabase_storage_admin": os.Getenv("STORAGE_ADMIN_PASSWORD"),
	}); err != nil {
		fmt.Fprintln(os.Stderr, "migrate:", err)
		os.Exit(1)
	}
	log.Info("database is up to date", "applied", res.Applied, "version", res.Current)
}
