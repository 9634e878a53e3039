package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kejanest/kejanest/platform/migrate"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func files(m map[string]string) fstest.MapFS {
	fs := fstest.MapFS{}
	for k, v := range m {
		fs[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fs
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		want    []string
		wantErr error
	}{
		{"ordered", map[string]string{"0002_b.sql": "select 2", "0001_a.sql": "select 1", "README.md": "x"}, []string{"0001_a.sql", "0002_b.sql"}, nil},
		{"gap", map[string]string{"0001_a.sql": "", "0003_c.sql": ""}, nil, migrate.ErrGap},
		{"not starting at one", map[string]string{"0002_b.sql": ""}, nil, migrate.ErrGap},
		{"duplicate", map[string]string{"0001_a.sql": "", "0001_b.sql": ""}, nil, migrate.ErrDuplicate},
		{"bad name", map[string]string{"0001_a.sql": "", "2_Weird Name.sql": ""}, nil, migrate.ErrBadName},
		{"empty", map[string]string{}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			migs, err := migrate.Load(files(tc.files))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			var got []string
			for _, m := range migs {
				got = append(got, m.Name)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func load(t *testing.T, m map[string]string) []migrate.Migration {
	t.Helper()
	migs, err := migrate.Load(files(m))
	if err != nil {
		t.Fatal(err)
	}
	return migs
}

func TestApplyFreshThenNoop(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmpty(t)
	ctx := context.Background()
	conn := connect(t, db.URL)
	migs := load(t, map[string]string{
		"0001_t.sql": "create table t (x int primary key); insert into t values (1);",
		"0002_u.sql": "insert into t values (2); insert into t values (3);",
	})
	res, err := migrate.Apply(ctx, conn, migs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 2 || res.Current != 2 {
		t.Fatalf("first run: %+v", res)
	}
	res, err = migrate.Apply(ctx, conn, migs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 0 || res.Current != 2 {
		t.Fatalf("second run should be a no-op: %+v", res)
	}
	var n int
	if err := conn.QueryRow(ctx, "select count(*) from t").Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows = %d (%v), want 3", n, err)
	}

	// A third file applies alone; an edited old file is refused.
	more := load(t, map[string]string{
		"0001_t.sql": "create table t (x int primary key); insert into t values (1);",
		"0002_u.sql": "insert into t values (2); insert into t values (3);",
		"0003_v.sql": "insert into t values (4);",
	})
	if res, err = migrate.Apply(ctx, conn, more); err != nil || len(res.Applied) != 1 || res.Applied[0] != "0003_v.sql" {
		t.Fatalf("incremental run: %+v %v", res, err)
	}
	edited := load(t, map[string]string{
		"0001_t.sql": "create table t (x bigint primary key);",
		"0002_u.sql": "insert into t values (2); insert into t values (3);",
		"0003_v.sql": "insert into t values (4);",
	})
	if _, err := migrate.Apply(ctx, conn, edited); !errors.Is(err, migrate.ErrEdited) {
		t.Fatalf("edited migration: err = %v", err)
	}
	// Files behind the database (a migration deleted) are refused too.
	if _, err := migrate.Apply(ctx, conn, migs); !errors.Is(err, migrate.ErrUnknown) {
		t.Fatalf("missing file: err = %v", err)
	}
}

func TestApplyFailureLeavesNoTrace(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmpty(t)
	ctx := context.Background()
	conn := connect(t, db.URL)
	migs := load(t, map[string]string{
		"0001_ok.sql":  "create table a (x int);",
		"0002_bad.sql": "create table b (x int); select * from no_such_table;",
	})
	res, err := migrate.Apply(ctx, conn, migs)
	if err == nil {
		t.Fatal("expected the broken migration to fail")
	}
	if len(res.Applied) != 1 {
		t.Fatalf("applied %v, want only the first", res.Applied)
	}
	var b *string
	if err := conn.QueryRow(ctx, "select to_regclass('public.b')::text").Scan(&b); err != nil || b != nil {
		t.Fatalf("table b exists after a failed migration: %v %v", b, err)
	}
	var recorded int
	_ = conn.QueryRow(ctx, "select count(*) from supabase_migrations.schema_migrations").Scan(&recorded)
	if recorded != 1 {
		t.Fatalf("recorded %d migrations, want 1", recorded)
	}
}

func TestConcurrentMigratorsApplyOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmpty(t)
	ctx := context.Background()
	migs := load(t, map[string]string{
		"0001_t.sql": "create table t (x int);",
		// Without the lock, both would insert (and the second create would fail).
		"0002_slow.sql": "insert into t values (1); select pg_sleep(0.3);",
	})
	const workers = 4
	var wg sync.WaitGroup
	results := make([]migrate.Result, workers)
	errs := make([]error, workers)
	for i := range workers {
		conn := connect(t, db.URL)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = migrate.Apply(ctx, conn, migs)
		}()
	}
	wg.Wait()
	total := 0
	for i := range workers {
		if errs[i] != nil {
			t.Fatalf("migrator %d: %v", i, errs[i])
		}
		total += len(results[i].Applied)
	}
	if total != 2 {
		t.Fatalf("migrations applied %d times in total, want 2", total)
	}
	conn := connect(t, db.URL)
	var n int
	if err := conn.QueryRow(ctx, "select count(*) from t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows = %d (%v), want 1", n, err)
	}
}

// The real migrations apply to an empty database, and again as a no-op; the
// roles and helpers the services rely on exist afterwards.
func TestRepositoryMigrations(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	conn := connect(t, db.URL)
	checks := []struct {
		name, sql string
	}{
		{"roles", `select count(*) = 5 from pg_roles where rolname in ('anon','authenticated','service_role','authenticator','supabase_admin')`},
		{"service_role bypasses rls", `select rolbypassrls and not rolcanlogin from pg_roles where rolname = 'service_role'`},
		{"authenticator noinherit login", `select rolcanlogin and not rolinherit from pg_roles where rolname = 'authenticator'`},
		{"authenticator may become anon", `select pg_has_role('authenticator', 'anon', 'member')`},
		{"extensions", `select count(*) = 2 from pg_extension e join pg_namespace n on n.oid = e.extnamespace where n.nspname = 'extensions' and extname in ('pgcrypto','uuid-ossp')`},
		{"publication", `select exists (select 1 from pg_publication where pubname = 'supabase_realtime')`},
		{"schemas", `select count(*) = 4 from pg_namespace where nspname in ('auth','storage','realtime','extensions')`},
		{"uid from claims", `select set_config('request.jwt.claims', '{"sub":"6b1c2f3e-0000-4000-8000-000000000001","role":"authenticated","email":"a@b.ke"}', true) is not null
			and auth.uid() = '6b1c2f3e-0000-4000-8000-000000000001' and auth.role() = 'authenticated' and auth.email() = 'a@b.ke' and auth.jwt()->>'role' = 'authenticated'`},
		{"uid null on empty claims", `select set_config('request.jwt.claims', '', true) is not null and auth.uid() is null and auth.role() is null`},
		{"anon may read public by default", `select has_schema_privilege('anon', 'public', 'usage')`},
	}
	for _, c := range checks {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		if err := tx.QueryRow(ctx, c.sql).Scan(&ok); err != nil || !ok {
			t.Errorf("%s: ok=%v err=%v", c.name, ok, err)
		}
		_ = tx.Rollback(ctx)
	}
	// A table created later is granted to the API roles by default privileges.
	if _, err := conn.Exec(ctx, "create table public.later (id int)"); err != nil {
		t.Fatal(err)
	}
	var granted bool
	if err := conn.QueryRow(ctx, "select has_table_privilege('authenticated', 'public.later', 'select')").Scan(&granted); err != nil || !granted {
		t.Errorf("default privileges not applied: %v %v", granted, err)
	}
	// Re-running the repository migrations is a no-op.
	migs, err := migrate.Load(osDirFS(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := migrate.Apply(ctx, conn, migs)
	if err != nil || len(res.Applied) != 0 {
		t.Fatalf("re-run: %+v %v", res, err)
	}
}

func TestSetPasswords(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	conn := connect(t, db.URL)
	// A quote in the password must not break out of the literal.
	role := "kejanest_pw_test_" + db.Name[len(db.Name)-6:]
	if _, err := conn.Exec(ctx, "create role "+pgx.Identifier{role}.Sanitize()+" login"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = conn.Exec(context.Background(), "drop role if exists "+pgx.Identifier{role}.Sanitize()) })
	if err := migrate.SetPasswords(ctx, conn, map[string]string{role: "it's; drop table x; --", "authenticator": ""}); err != nil {
		t.Fatal(err)
	}
	var has bool
	if err := conn.QueryRow(ctx, "select rolpassword is not null from pg_authid where rolname = $1", role).Scan(&has); err != nil || !has {
		t.Fatalf("password not set: %v %v", has, err)
	}
}

func TestIsCatalogConflict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"tuple concurrently updated", &pgconn.PgError{Code: "XX000", Message: "tuple concurrently updated"}, true},
		{"wrapped", fmt.Errorf("apply 0001_roles.sql: %w", &pgconn.PgError{Code: "XX000", Message: "tuple concurrently updated"}), true},
		{"other internal error", &pgconn.PgError{Code: "XX000", Message: "cache lookup failed for relation 1"}, false},
		{"role created twice", &pgconn.PgError{Code: "23505", SchemaName: "pg_catalog", ConstraintName: "pg_authid_rolname_index"}, true},
		{"membership granted twice", &pgconn.PgError{Code: "23505", ConstraintName: "pg_auth_members_role_member_index"}, true},
		{"a user table's unique key", &pgconn.PgError{Code: "23505", SchemaName: "public", ConstraintName: "users_email_key"}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"not a Postgres error", errors.New("connection reset"), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := migrate.IsCatalogConflict(tc.err); got != tc.want {
			t.Errorf("%s: IsCatalogConflict = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Migrators of different databases in one cluster share the role catalogs,
// which the per-database advisory lock does not serialize: each must still
// finish (a collision is retried), as when test stacks start side by side.
func TestMigratorsOfSeveralDatabasesShareRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const role = "kejanest_migrate_share_test"
	roleSQL := `do $$ begin create role ` + role + ` nologin; exception when duplicate_object then null; end $$;
		alter role ` + role + ` set statement_timeout = '3s';
		alter role ` + role + ` nologin;
		grant ` + role + ` to postgres;
		alter role ` + role + ` set lock_timeout = '2s';`
	migs := load(t, map[string]string{"0001_roles.sql": roleSQL, "0002_t.sql": "create table t (x int);"})
	const databases = 6
	var wg sync.WaitGroup
	errs := make([]error, databases)
	conns := make([]*pgx.Conn, databases)
	for i := range databases {
		conns[i] = connect(t, pgtest.NewEmpty(t).URL)
	}
	t.Cleanup(func() {
		_, _ = conns[0].Exec(context.Background(), "revoke "+role+" from postgres; drop role if exists "+role)
	})
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				// A fresh tracking table each round, so the role file runs again.
				if _, errs[i] = conn.Exec(ctx, "drop schema if exists supabase_migrations cascade; drop table if exists t"); errs[i] != nil {
					return
				}
				if _, errs[i] = migrate.Apply(ctx, conn, migs); errs[i] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("database %d: %v", i, err)
		}
	}
}
