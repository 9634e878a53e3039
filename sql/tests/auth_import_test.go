package tests

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A data-only dump of a real project's auth schema (what `pg_dump
// --data-only --schema=auth` writes: session settings, one COPY block per
// table, sequence values) loads unchanged, and its user's bcrypt hash and
// links survive. Every table GoTrue has must exist with its columns, or the
// COPY naming it fails.
func TestAuthDataOnlyDumpLoads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	conn, err := e.super.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if err := loadDump(ctx, conn.Conn().PgConn(), "testdata/auth_data_only.sql"); err != nil {
		t.Fatal(err)
	}

	counts := map[string]int{
		"users": 1, "identities": 1, "sessions": 1, "refresh_tokens": 2, "mfa_factors": 1, "mfa_challenges": 1,
		"mfa_amr_claims": 1, "one_time_tokens": 1, "flow_state": 1, "audit_log_entries": 1, "instances": 0,
		"sso_providers": 1, "sso_domains": 1, "saml_providers": 1, "saml_relay_states": 1, "schema_migrations": 3,
	}
	for table, want := range counts {
		var n int
		if err := e.super.QueryRow(ctx, fmt.Sprintf("select count(*) from auth.%s", table)).Scan(&n); err != nil || n != want {
			t.Errorf("auth.%s: %d rows (%v), want %d", table, n, err, want)
		}
	}
	var ok bool
	var email, name string
	if err := e.super.QueryRow(ctx, `select encrypted_password = extensions.crypt('password123', encrypted_password),
			identities.email, profiles.full_name
		from auth.users join auth.identities on identities.user_id = users.id
		join public.profiles on profiles.id = users.id
		where users.id = 'd0c4a1b2-3e4f-4a5b-8c6d-7e8f9a0b1c2d'`).Scan(&ok, &email, &name); err != nil {
		t.Fatal(err)
	}
	if !ok || email != "wanjiru@example.co.ke" || name != "Wanjiru Kamau" {
		t.Errorf("imported user: password ok %v, identity email %q, profile name %q", ok, email, name)
	}
	// The sequence continues after the dumped ids.
	var next int64
	if err := e.super.QueryRow(ctx, `select nextval('auth.refresh_tokens_id_seq')`).Scan(&next); err != nil || next != 43 {
		t.Errorf("next refresh token id %d (%v), want 43", next, err)
	}
}

// loadDump runs a plain-format pg_dump file the way psql would for what
// such a dump holds: statements ending in ";" at the end of a line, and
// "COPY … FROM stdin;" followed by data lines up to "\.".
func loadDump(ctx context.Context, pc *pgconn.PgConn, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var stmt strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if stmt.Len() == 0 && (line == "" || strings.HasPrefix(line, "--")) {
			continue
		}
		stmt.WriteString(line)
		stmt.WriteByte('\n')
		if !strings.HasSuffix(line, ";") {
			continue
		}
		sql := stmt.String()
		stmt.Reset()
		if strings.HasPrefix(sql, "COPY ") {
			var data bytes.Buffer
			for sc.Scan() && sc.Text() != `\.` {
				data.WriteString(sc.Text())
				data.WriteByte('\n')
			}
			if _, err := pc.CopyFrom(ctx, &data, sql); err != nil {
				return fmt.Errorf("%s: %w", strings.TrimSpace(sql), err)
			}
			continue
		}
		if _, err := pc.Exec(ctx, sql).ReadAll(); err != nil {
			return fmt.Errorf("%s: %w", strings.TrimSpace(sql), err)
		}
	}
	return sc.Err()
}
