package presence

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/realtime/internal/channel"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// reap is what turns a killed replica's silence into leaves on the others,
// so the timeout it is given must be the one it applies: a replica whose
// last heartbeat is older goes (with a "down" notice), a younger one
// stays, and the reaping replica's own row is never its business. The
// database's clock decides, so the ages are set in the database and the
// check is exact, unlike the end-to-end test in wsapi, whose timing rides
// on the load of the machine.
func TestReapHonoursTheTimeout(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	tests := []struct {
		name    string
		timeout time.Duration
		// ages of the other replicas' last heartbeats, in milliseconds
		ages map[string]int
		gone []string
	}{
		{"one second", time.Second, map[string]int{"fresh": 200, "due": 900, "late": 1100, "long dead": 60000}, []string{"late", "long dead"}},
		{"ten seconds", 10 * time.Second, map[string]int{"fresh": 200, "would go at one second": 5000, "late": 10500}, []string{"late"}},
		{"the default", 0, map[string]int{"at one second": 1500, "within": 4000, "late": 5500}, []string{"late"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := pool.Exec(ctx, "delete from realtime.presence_replicas"); err != nil {
				t.Fatal(err)
			}
			// A connection of its own, so no notice of an earlier case is
			// read as this one's.
			listen, err := pgx.Connect(ctx, db.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer listen.Close(context.Background())
			if _, err := listen.Exec(ctx, "listen "+NotifyChannel); err != nil {
				t.Fatal(err)
			}
			r := NewRelay(NewTracker(), channel.NewRegistry(), pool, slog.New(slog.DiscardHandler), tc.timeout)
			// The reaper's own row is older than any timeout: a replica cut
			// off for long finds its row through its heartbeat, not here.
			ages := map[string]int{r.id: 3_600_000}
			for id, ms := range tc.ages {
				ages[id] = ms
			}
			for id, ms := range ages {
				if _, err := pool.Exec(ctx, `insert into realtime.presence_replicas (id, heartbeat_at)
					values ($1, now() - $2::bigint * interval '1 millisecond')`, id, ms); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.reap(ctx); err != nil {
				t.Fatal(err)
			}

			rows, _ := pool.Query(ctx, "select id from realtime.presence_replicas order by id")
			left, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for id := range ages {
				if !slices.Contains(tc.gone, id) {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			if !slices.Equal(left, want) {
				t.Fatalf("replicas left %q, want %q", left, want)
			}

			var down []string
			for range tc.gone {
				wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				n, err := listen.WaitForNotification(wctx)
				cancel()
				if err != nil {
					t.Fatalf("down notices so far %q, want %q: %v", down, tc.gone, err)
				}
				var msg notice
				if err := json.Unmarshal([]byte(n.Payload), &msg); err != nil || msg.Op != opDown {
					t.Fatalf("notice %s, want a down notice", n.Payload)
				}
				down = append(down, msg.Replica)
			}
			slices.Sort(down)
			gone := slices.Sorted(slices.Values(tc.gone))
			if !slices.Equal(down, gone) {
				t.Fatalf("down notices for %q, want %q", down, gone)
			}
			wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			if n, err := listen.WaitForNotification(wctx); err == nil {
				t.Fatalf("extra notice %s", n.Payload)
			}
		})
	}
}
