package broadcast

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kejanest/kejanest/platform/pgtest"
)

// newStore is a Store on a fresh database, connected as the service's own
// login, and a superuser pool beside it.
func newStore(t *testing.T) (*Store, *pgxpool.Pool) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	open := func(url string) *pgxpool.Pool {
		pool, err := pgxpool.New(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return pool
	}
	return &Store{Pool: open(db.URLAs("authenticator"))}, open(db.URL)
}

// TestStore drives the store against migration 0030's functions as the
// service's own login: what realtime.send and send_binary insert is read
// back by id, replayed per topic (private only, newest `limit`, oldest
// first, from `since`), and pruned by age.
func TestStore(t *testing.T) {
	ctx := context.Background()
	store, super := newStore(t)

	start := time.Now().Add(-time.Second).UnixMilli()
	// Each send is its own transaction, so inserted_at orders them.
	sends := []string{
		`select realtime.send('{"n":1}', 'e1', 'room:a', true)`,
		`select realtime.send('{"n":2}', 'e2', 'room:a', true)`,
		`select realtime.send('{"n":3}', 'e3', 'room:a', false)`,
		`select realtime.send_binary('\x0102'::bytea, 'bin', 'room:a', true)`,
		`select realtime.send('{"n":5}', 'e5', 'room:b', true)`,
	}
	for _, q := range sends {
		if _, err := super.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	var publicID string
	if err := super.QueryRow(ctx, `select id::text from realtime.messages where event = 'e3'`).Scan(&publicID); err != nil {
		t.Fatal(err)
	}
	m, ok, err := store.Message(ctx, publicID)
	if err != nil || !ok {
		t.Fatalf("Message(%s) = ok %v, err %v", publicID, ok, err)
	}
	var body struct {
		N  int    `json:"n"`
		ID string `json:"id"`
	}
	if err := json.Unmarshal(m.Payload, &body); err != nil {
		t.Fatalf("payload %s: %v", m.Payload, err)
	}
	// realtime.send adds the message id to the payload, as Supabase's does.
	if m.Topic != "room:a" || m.Event != "e3" || m.Private || body.N != 3 || body.ID != m.ID || m.ID != publicID {
		t.Errorf("Message = %+v, payload %s", m, m.Payload)
	}
	if _, ok, err := store.Message(ctx, "00000000-0000-0000-0000-000000000000"); ok || err != nil {
		t.Errorf("unknown id: ok %v, err %v; want not found", ok, err)
	}

	cases := []struct {
		name   string
		topic  string
		since  int64
		limit  int
		events []string
	}{
		{"private only, oldest first", "room:a", start, 10, []string{"e1", "e2", "bin"}},
		{"the newest limit", "room:a", start, 2, []string{"e2", "bin"}},
		{"since after every send", "room:a", time.Now().Add(time.Hour).UnixMilli(), 10, nil},
		{"another topic", "room:b", start, 10, []string{"e5"}},
		{"no such topic", "room:c", start, 10, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := store.Replay(ctx, c.topic, c.since, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			var events []string
			for _, m := range got {
				events = append(events, m.Event)
				if !m.Private || m.Topic != c.topic || m.ID == "" {
					t.Errorf("replayed %+v: want a private message of %s with an id", m, c.topic)
				}
				if m.Event == "bin" && (!m.IsBinary || string(m.Binary) != "\x01\x02") {
					t.Errorf("binary message = %+v", m)
				}
				if m.Event != "bin" && !json.Valid(m.Payload) {
					t.Errorf("payload %q is not JSON", m.Payload)
				}
			}
			if len(events) != len(c.events) {
				t.Fatalf("events = %v, want %v", events, c.events)
			}
			for i := range events {
				if events[i] != c.events[i] {
					t.Fatalf("events = %v, want %v", events, c.events)
				}
			}
		})
	}

	// Age two messages past retention; Prune deletes exactly those.
	if _, err := super.Exec(ctx, `update realtime.messages set inserted_at = now() - interval '4 days' where event in ('e1', 'e5')`); err != nil {
		t.Fatal(err)
	}
	n, err := store.Prune(ctx, messageRetention)
	if err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want 2", n, err)
	}
	var left int
	if err := super.QueryRow(ctx, `select count(*) from realtime.messages where extension = 'broadcast'`).Scan(&left); err != nil || left != 3 {
		t.Errorf("messages left = %d, %v; want 3", left, err)
	}
}

// TestReplayOrderWithinTransaction sends five broadcasts in one
// transaction, where they share inserted_at, then moves the first one's
// row to the end of the table (two updates of its topic, which no HOT
// update can absorb), so the table's own order is no longer the sending
// order. Replay still gives them as they were sent, and its limit keeps
// the last ones sent.
func TestReplayOrderWithinTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, super := newStore(t)

	start := time.Now().Add(-time.Second).UnixMilli()
	if _, err := super.Exec(ctx, `select realtime.send(jsonb_build_object('n', n), 'e' || n, 'room:tx', true) from generate_series(1, 5) n`); err != nil {
		t.Fatal(err)
	}
	var distinct int
	if err := super.QueryRow(ctx, `select count(distinct inserted_at) from realtime.messages where topic = 'room:tx'`).Scan(&distinct); err != nil || distinct != 1 {
		t.Fatalf("the five sends carry %d distinct inserted_at (%v); the test needs them to share one", distinct, err)
	}
	for _, topic := range []string{"room:moved", "room:tx"} {
		if _, err := super.Exec(ctx, `update realtime.messages set topic = $1 where event = 'e1'`, topic); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		limit  int
		events []string
	}{
		{10, []string{"e1", "e2", "e3", "e4", "e5"}},
		{3, []string{"e3", "e4", "e5"}},
	} {
		got, err := store.Replay(ctx, "room:tx", start, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, m := range got {
			events = append(events, m.Event)
		}
		if strings.Join(events, ",") != strings.Join(c.events, ",") {
			t.Errorf("replay of %d = %v, want %v (the sending order)", c.limit, events, c.events)
		}
	}
}
