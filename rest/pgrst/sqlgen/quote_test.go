package sqlgen_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// quoteCases are values a user can put in a filter that a literal must
// carry unchanged.
var quoteCases = []string{
	"", "plain", "it's", "''", `\`, `\\`, `\'`, `'\`, `E'x'`, "a'; drop table library.books; --",
	`$1`, `$$`, "?", "%o%", "{kenya,\"nairobi\"}", "kilim:* & !k4242", "Nyumba ya vyumba viwili – Ksh 25,000",
	"tab\tnewline\n", "emoji 🏠",
}

// decodeE reads back one escape-string literal as PostgreSQL would for
// the only escapes QuoteLiteral writes, and reports whether the literal
// ends exactly at its last byte.
func decodeE(lit string) (string, bool) {
	if !strings.HasPrefix(lit, "E'") {
		return "", false
	}
	var b strings.Builder
	for i := 2; i < len(lit); i++ {
		switch c := lit[i]; c {
		case '\\', '\'':
			if i+1 < len(lit) && lit[i+1] == c {
				b.WriteByte(c)
				i++
				continue
			}
			if c == '\'' {
				return b.String(), i == len(lit)-1
			}
			return "", false // a lone backslash would escape what follows
		default:
			b.WriteByte(c)
		}
	}
	return "", false // never closed
}

func TestQuoteLiteral(t *testing.T) {
	for _, v := range quoteCases {
		got, whole := decodeE(sqlgen.QuoteLiteral(v))
		if !whole || got != v {
			t.Errorf("QuoteLiteral(%q) = %s: reads back %q (closed at the end: %v)", v, sqlgen.QuoteLiteral(v), got, whole)
		}
	}
}

// TestQuoteLiteralInPostgres has PostgreSQL read every literal back, with
// standard_conforming_strings on and off (an escape string reads the same
// either way; a plain '…' would not).
func TestQuoteLiteralInPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connectEmpty(t)
	for _, scs := range []string{"on", "off"} {
		if _, err := conn.Exec(ctx, "set standard_conforming_strings = "+scs); err != nil {
			t.Fatal(err)
		}
		for _, v := range quoteCases {
			var got string
			// The literal reaches the server inside the statement's text,
			// as rest sends it (extended protocol, no parameters).
			err := conn.QueryRow(ctx, "select "+sqlgen.QuoteLiteral(v)+"::text", pgx.QueryExecModeExec).Scan(&got)
			if err != nil || got != v {
				t.Errorf("standard_conforming_strings %s: %s read back as %q, %v; want %q", scs, sqlgen.QuoteLiteral(v), got, err, v)
			}
		}
	}
}

func FuzzQuoteLiteral(f *testing.F) {
	for _, v := range quoteCases {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
			t.Skip("plan.Inlinable keeps such values bound")
		}
		lit := sqlgen.QuoteLiteral(v)
		if got, whole := decodeE(lit); !whole || got != v {
			t.Fatalf("QuoteLiteral(%q) = %s: reads back %q (closed at the end: %v)", v, lit, got, whole)
		}
	})
}

// connectEmpty connects to a database of its own holding no fixture; the
// connection closes when the test ends.
func connectEmpty(t *testing.T) *pgx.Conn {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(context.Background(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}
