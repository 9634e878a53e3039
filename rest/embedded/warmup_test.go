package embedded

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
)

// A connection whose warm-up failed is kept, with a warning: the warm-up
// only saves work.
func TestWarmUp(t *testing.T) {
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	tests := []struct {
		name     string
		before   string // run first, its error ignored
		wantWarn bool
	}{
		{"warmed up", "", false},
		// An aborted transaction refuses every statement until it ends.
		{"a statement refused", "begin; select 1/0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := pgx.Connect(ctx, db.URLAs("authenticator"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if tt.before != "" {
				_, _ = conn.Exec(ctx, tt.before)
			}
			var logged bytes.Buffer
			if err := warmUp(slog.New(slog.NewTextHandler(&logged, nil)))(ctx, conn); err != nil {
				t.Fatalf("warmUp = %v, want the connection kept", err)
			}
			if got := strings.Contains(logged.String(), "warm-up failed"); got != tt.wantWarn {
				t.Errorf("warned = %v, want %v; log: %q", got, tt.wantWarn, logged.String())
			}
			if tt.before != "" {
				if _, err := conn.Exec(ctx, "rollback"); err != nil {
					t.Fatal(err)
				}
			}
			var one int
			if err := conn.QueryRow(ctx, "select 1").Scan(&one); err != nil || one != 1 {
				t.Errorf("the connection after the warm-up: %d, %v", one, err)
			}
		})
	}
}
