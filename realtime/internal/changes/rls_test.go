package changes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/realtime/internal/auth"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fakeSub records what a subscriber is handed.
type fakeSub struct {
	claims *auth.Claims
	subs   []Subscription

	mu     sync.Mutex
	got    []json.RawMessage
	system []string
}

func (f *fakeSub) Claims() *auth.Claims          { return f.claims }
func (f *fakeSub) Subscriptions() []Subscription { return f.subs }
func (f *fakeSub) DeliverSystem(status, message string) {
	f.mu.Lock()
	f.system = append(f.system, status+": "+message)
	f.mu.Unlock()
}
func (f *fakeSub) DeliverChange(p json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, p)
}

type delivered struct {
	IDs  []uint32 `json:"ids"`
	Data struct {
		Type      string                     `json:"type"`
		Table     string                     `json:"table"`
		Columns   []Column                   `json:"columns"`
		Record    map[string]json.RawMessage `json:"record"`
		OldRecord map[string]json.RawMessage `json:"old_record"`
		Errors    []string                   `json:"errors"`
	} `json:"data"`
}

// summary renders deliveries as "TYPE table body-or-id".
func (f *fakeSub) summary(t *testing.T) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, raw := range f.got {
		var d delivered
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("delivery %s: %v", raw, err)
		}
		rec := d.Data.Record
		if d.Data.Type == Delete {
			rec = d.Data.OldRecord
		}
		label := string(rec["body"])
		if label == "" {
			label = string(rec["id"])
		}
		out = append(out, fmt.Sprintf("%s %s %s", d.Data.Type, d.Data.Table, label))
	}
	return out
}

func userClaims(sub string) *auth.Claims {
	raw, _ := json.Marshal(map[string]any{"sub": sub, "role": "authenticated", "exp": 4102444800})
	return &auth.Claims{Role: "authenticated", Sub: sub, Raw: raw}
}

// sessionClaims are userClaims that also name the auth session, as authsvc
// issues them (an admin's reads ask for a session that passed the access code).
func sessionClaims(sub, session string) *auth.Claims {
	raw, _ := json.Marshal(map[string]any{"sub": sub, "role": "authenticated", "exp": 4102444800, "session_id": session})
	return &auth.Claims{Role: "authenticated", Sub: sub, Raw: raw}
}

var anonClaims = &auth.Claims{Role: "anon", Raw: json.RawMessage(`{"role":"anon"}`)}

// harness runs a listener and dispatcher against a fresh database.
type harness struct {
	db       *pgtest.DB
	admin    *pgx.Conn
	subs     []Subscriber
	gaps     chan struct{}
	ready    chan struct{}
	listener *Listener
}

func newHarness(t *testing.T, subs ...Subscriber) *harness {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{"testdata/rls.sql"}})
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{db: db, admin: admin, subs: subs, gaps: make(chan struct{}, 10), ready: make(chan struct{}, 10)}
	log := slog.New(slog.DiscardHandler)
	d := &Dispatcher{Reader: NewReader(pool), Source: func() []Subscriber { return h.subs }, Log: log, Timeout: 5 * time.Second}
	queue := make(chan Change, 100)
	var wg sync.WaitGroup
	h.listener = &Listener{
		Connect: func(ctx context.Context) (*pgx.Conn, error) {
			cc, err := pgx.ParseConfig(db.URLAs("authenticator"))
			if err != nil {
				return nil, err
			}
			cc.RuntimeParams["application_name"] = "rt-test-listener"
			return pgx.ConnectConfig(ctx, cc)
		},
		Channels: []string{NotifyChannel},
		Handle: func(_ string, payload []byte) {
			c, err := ParseChange(payload)
			if err != nil {
				t.Errorf("parse %s: %v", payload, err)
				return
			}
			queue <- c
		},
		Backlog: func(reconnect bool) {
			if reconnect {
				d.Gap()
				h.gaps <- struct{}{}
			}
		},
		Ready:      func() { h.ready <- struct{}{} },
		Log:        log,
		RetryDelay: 50 * time.Millisecond,
	}
	wg.Add(2)
	go func() { defer wg.Done(); h.listener.Run(ctx) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case c := <-queue:
				d.Dispatch(ctx, &c)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		pool.Close()
		_ = admin.Close(context.Background())
	})
	select {
	case <-h.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("listener not ready")
	}
	return h
}

func (h *harness) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := h.admin.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func waitLen(t *testing.T, f *fakeSub, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		l := len(f.got)
		f.mu.Unlock()
		if l >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("got %d deliveries, want %d", len(f.got), n)
}

func TestRLSDelivery(t *testing.T) {
	t.Parallel()
	alice, bob := "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	all := func(id uint32) []Subscription {
		return []Subscription{{ID: id, Event: "*", Schema: "public", Table: "notes"}}
	}
	a := &fakeSub{claims: userClaims(alice), subs: all(1)}
	b := &fakeSub{claims: userClaims(bob), subs: all(2)}
	a2 := &fakeSub{claims: userClaims(alice), subs: all(3)} // same claims as a: one check serves both
	anon := &fakeSub{claims: anonClaims, subs: all(4)}
	filtered := &fakeSub{claims: userClaims(alice), subs: []Subscription{
		{ID: 5, Event: Insert, Schema: "public", Table: "notes", Filter: mustFilter(t, "score=gte.5")},
		{ID: 6, Event: "*", Schema: "public", Table: "tags"},
	}}
	h := newHarness(t, a, b, a2, anon, filtered)

	h.exec(t, `insert into notes (owner, body, secret) values ($1, 'a-private', 's')`, alice)
	h.exec(t, `insert into notes (owner, body, score) values ($1, 'b-private', 9)`, bob)
	h.exec(t, `insert into notes (owner, body, is_public, score, secret) values ($1, 'a-public', true, 5, 's')`, alice)
	// Rows are re-read after commit (as Supabase's apply_rls checks the
	// table by key), so let the inserts arrive before changing them again.
	waitLen(t, a, 2)
	waitLen(t, b, 2)
	h.exec(t, `update notes set score = 1 where body = 'a-private'`)
	h.exec(t, `delete from notes where body = 'b-private'`)
	h.exec(t, `insert into tags values (1, 'x')`)
	h.exec(t, `insert into notes (body, is_public) values ('end', true)`)
	waitLen(t, anon, 2)
	waitLen(t, filtered, 2)
	waitLen(t, b, 3)
	waitLen(t, a, 4)
	time.Sleep(100 * time.Millisecond)

	// notes has the default replica identity: its DELETE carries only the
	// key, so the policy sees no owner and nobody gets it, not even bob
	// (delete_test.go covers DELETE visibility).
	want := map[*fakeSub][]string{
		a:        {`INSERT notes "a-private"`, `INSERT notes "a-public"`, `UPDATE notes "a-private"`, `INSERT notes "end"`},
		a2:       {`INSERT notes "a-private"`, `INSERT notes "a-public"`, `UPDATE notes "a-private"`, `INSERT notes "end"`},
		b:        {`INSERT notes "b-private"`, `INSERT notes "a-public"`, `INSERT notes "end"`},
		anon:     {`INSERT notes "a-public"`, `INSERT notes "end"`},
		filtered: {`INSERT notes "a-public"`, "INSERT tags 1"},
	}
	for s, w := range want {
		if got := s.summary(t); !slices.Equal(got, w) {
			t.Errorf("%s deliveries:\n got %q\nwant %q", s.claims.Sub+s.claims.Role, got, w)
		}
	}
	// anon's columns and record omit the column it may not select.
	var d delivered
	_ = json.Unmarshal(anon.got[0], &d)
	if _, ok := d.Data.Record["secret"]; ok {
		t.Errorf("anon sees secret: %s", anon.got[0])
	}
	for _, c := range d.Data.Columns {
		if c.Name == "secret" {
			t.Errorf("anon columns list secret")
		}
	}
	if !slices.Equal(d.IDs, []uint32{4}) {
		t.Errorf("ids = %v", d.IDs)
	}
	_ = json.Unmarshal(a.got[0], &d)
	if string(d.Data.Record["secret"]) != `"s"` {
		t.Errorf("alice's record lacks secret: %s", a.got[0])
	}
	_ = json.Unmarshal(a.got[2], &d)
	if string(d.Data.OldRecord["id"]) != "1" || len(d.Data.OldRecord) != 1 {
		t.Errorf("update old_record = %v", d.Data.OldRecord)
	}
}

// TestPoliciesSeeOnlyTheClaimsJSON checks that a subscriber's policies run
// under what Supabase Realtime sets, the role and request.jwt.claims, and
// not the legacy request.jwt.claim.sub: claimed's policy admits its owner
// only while that setting is unset, and auth.uid() finds the owner in the
// JSON. Both the re-read of an insert and the check of a deleted row's old
// values run under it.
func TestPoliciesSeeOnlyTheClaimsJSON(t *testing.T) {
	t.Parallel()
	alice, bob := "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	on := func(id uint32) []Subscription {
		return []Subscription{{ID: id, Event: "*", Schema: "public", Table: "claimed"}}
	}
	a := &fakeSub{claims: userClaims(alice), subs: on(1)}
	b := &fakeSub{claims: userClaims(bob), subs: on(2)}
	h := newHarness(t, a, b)
	h.exec(t, `insert into claimed values (1, $1)`, alice)
	waitLen(t, a, 1)
	h.exec(t, `delete from claimed where id = 1`)
	h.exec(t, `insert into claimed values (2, $1)`, bob)
	waitLen(t, b, 1)
	waitLen(t, a, 2)
	time.Sleep(100 * time.Millisecond)
	want := map[*fakeSub][]string{
		a: {"INSERT claimed 1", "DELETE claimed 1"},
		b: {"INSERT claimed 2"},
	}
	for s, w := range want {
		if got := s.summary(t); !slices.Equal(got, w) {
			t.Errorf("%s deliveries:\n got %q\nwant %q", s.claims.Sub, got, w)
		}
	}
}

func TestNoPrimaryKeyReportsAnError(t *testing.T) {
	t.Parallel()
	s := &fakeSub{claims: anonClaims, subs: []Subscription{{ID: 1, Event: "*", Schema: "public", Table: "nokey"}}}
	h := newHarness(t, s)
	h.exec(t, `insert into nokey values ('x')`)
	waitLen(t, s, 1)
	var d delivered
	_ = json.Unmarshal(s.got[0], &d)
	if !slices.Equal(d.Data.Errors, []string{ErrTextNoPrimaryKey}) {
		t.Fatalf("errors = %v", d.Data.Errors)
	}
}

func TestListenerReconnectReportsAGap(t *testing.T) {
	t.Parallel()
	s := &fakeSub{claims: anonClaims, subs: []Subscription{{ID: 1, Event: "*", Schema: "public", Table: "tags"}}}
	h := newHarness(t, s)
	h.exec(t, `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'rt-test-listener' and datname = current_database()`)
	select {
	case <-h.gaps:
	case <-time.After(10 * time.Second):
		t.Fatal("no gap reported after the listener lost its connection")
	}
	s.mu.Lock()
	sys := slices.Clone(s.system)
	s.mu.Unlock()
	if len(sys) != 1 || sys[0] != "error: "+GapMessage {
		t.Fatalf("system messages = %q", sys)
	}
	// And it streams again.
	h.exec(t, `insert into tags values (7, 'back')`)
	waitLen(t, s, 1)
}

func mustFilter(t *testing.T, s string) *Filter {
	t.Helper()
	f, err := ParseFilter(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCheckRole(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	pool, err := pgxpool.New(context.Background(), db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	r := NewReader(pool)
	for role, ok := range map[string]bool{"anon": true, "authenticated": true, "service_role": true, "postgres": false, "no_such_role": false} {
		err := r.CheckRole(context.Background(), &auth.Claims{Role: role})
		if ok && err != nil || !ok && !errors.Is(err, ErrRole) {
			t.Errorf("CheckRole(%s) = %v, want ok=%v", role, err, ok)
		}
	}
	var role string
	if err := pool.QueryRow(context.Background(), "select current_user").Scan(&role); err != nil || role != "authenticator" {
		t.Fatalf("role leaked: %q %v", role, err)
	}
}

// A policy that raises for one subscriber's claims does not cost the others
// the change, whether it re-reads a row or checks a deleted one.
func TestFailingGroupDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	alice := "11111111-1111-1111-1111-111111111111"
	tests := []struct {
		event string
		table string
		sql   []string // each run with alice's id as $1
		want  []string // what alice gets
	}{
		{Insert, "notes", []string{`insert into notes (owner, body) values ($1, 'mine')`}, []string{`INSERT notes "mine"`}},
		{Delete, "docs", []string{`insert into docs (id, owner) values (1, $1)`, `delete from docs where owner = $1`}, []string{"DELETE docs 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			t.Parallel()
			good := &fakeSub{claims: userClaims(alice), subs: []Subscription{{ID: 1, Event: tt.event, Schema: "public", Table: tt.table}}}
			// auth.uid() casts sub to uuid: a non-uuid sub makes the policies fail.
			raw, _ := json.Marshal(map[string]any{"sub": "not-a-uuid", "role": "authenticated"})
			bad := &fakeSub{claims: &auth.Claims{Role: "authenticated", Sub: "not-a-uuid", Raw: raw}, subs: good.subs}
			h := newHarness(t, bad, good)
			for _, sql := range tt.sql {
				h.exec(t, sql, alice)
			}
			waitLen(t, good, len(tt.want))
			if got := good.summary(t); !slices.Equal(got, tt.want) {
				t.Fatalf("good claims got %q, want %q", got, tt.want)
			}
			if len(bad.summary(t)) != 0 {
				t.Fatalf("bad claims got %v", bad.summary(t))
			}
		})
	}
}
