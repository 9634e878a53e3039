package pgpool

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// OnConnect runs on every connection the pool opens, before it is handed
// out; a connection whose set-up fails is not handed out.
func TestOnConnect(t *testing.T) {
	db := pgtest.NewEmpty(t)
	ctx := context.Background()
	tests := []struct {
		name      string
		onConnect string
		want      string // the session's kejanest.set_up, or the error's text
		wantErr   bool
	}{
		{"none", "", "", false},
		{"a statement", "select set_config('kejanest.set_up', 'yes', false)", "yes", false},
		{"a failing statement", "select 1/0", "set up connection", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool, err := New(ctx, db.URL, Options{MaxConns: 2, OnConnect: tt.onConnect})
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
