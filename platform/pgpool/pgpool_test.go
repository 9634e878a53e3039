package pgpool

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// AfterConnect runs on every connection the pool opens, before it is
// handed out; a connection whose set-up fails is not handed out.
func TestAfterConnect(t *testing.T) {
	db := pgtest.NewEmpty(t)
	ctx := context.Background()
	run := func(sql string) func(context.Context, *pgx.Conn) error {
		return func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, sql)
			return err
		}
	}
	tests := []struct {
		name         string
		afterConnect func(context.Context, *pgx.Conn) error
		want         string // the session's kejanest.set_up, or the error's text
		wantErr      bool
	}{
		{"none", nil, "", false},
		{"a statement", run("select set_config('kejanest.set_up', 'yes', false)"), "yes", false},
		{"a failing statement", run("select 1/0"), "division by zero", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool, err := New(ctx, db.URL, Options{MaxConns: 2, AfterConnect: tt.afterConnect})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			// Two connections held at once, so the pool opens both.
			var wg, held sync.WaitGroup
			got := make([]string, 2)
			errs := make([]error, 2)
			release := make(chan struct{})
			held.Add(2)
			for i := range 2 {
				wg.Go(func() {
					c, err := pool.Acquire(ctx)
					if err != nil {
						errs[i] = err
						held.Done()
						return
					}
					defer c.Release()
					errs[i] = c.QueryRow(ctx, "select coalesce(current_setting('kejanest.set_up', true), '')").Scan(&got[i])
					held.Done()
					<-release
				})
			}
			held.Wait()
			close(release)
			wg.Wait()
			for i := range 2 {
				switch {
				case tt.wantErr && (errs[i] == nil || !strings.Contains(errs[i].Error(), tt.want)):
					t.Errorf("connection %d: error %v, want one containing %q", i, errs[i], tt.want)
				case !tt.wantErr && errs[i] != nil:
					t.Errorf("connection %d: %v", i, errs[i])
				case !tt.wantErr && got[i] != tt.want:
					t.Errorf("connection %d: kejanest.set_up = %q, want %q", i, got[i], tt.want)
				}
			}
		})
	}
}
