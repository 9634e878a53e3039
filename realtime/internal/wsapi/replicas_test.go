package wsapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/realtime/internal/broadcast"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/channel"
	"github.com/kejanest/kejanest/realtime/internal/presence"
)

// pgProxy forwards TCP connections to PostgreSQL. cut drops every
// connection and refuses new ones, which is what the database sees of a
// replica killed with kill -9 (or cut off by the network); restore lets
// connections through again.
type pgProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{}
}

func newPGProxy(t *testing.T, target string) *pgProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	return p
}

func (p *pgProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *pgProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *pgProxy) forward(c net.Conn) {
	if !p.track(c) {
		_ = c.Close()
		return
	}
	s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil || !p.track(s) {
		_ = c.Close()
		if s != nil {
			_ = s.Close()
		}
		return
	}
	go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
	_, _ = io.Copy(c, s)
	_ = c.Close()
}

func (p *pgProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

func (p *pgProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// replica is one realtime process, wired as cmd/realtime does (pool,
// broadcast hub, presence tracker and relay, one LISTEN connection),
// reaching the shared test database through its own proxy.
type replica struct {
	URL   string
	proxy *pgProxy
	relay *presence.Relay
	stop  func() // clean shutdown: the relay announces this replica's leaves
}

func startReplica(t *testing.T, db *pgtest.DB, timeout time.Duration) *replica {
	t.Helper()
	u, err := url.Parse(db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newPGProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	dbURL := u.String()

	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	reg := channel.NewRegistry()
	hub := broadcast.NewHub(reg, pool, log)
	tracker := presence.NewTracker()
	relay := presence.NewRelay(tracker, reg, pool, log, timeout)
	l := &changes.Listener{
		Connect:  func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dbURL) },
		Channels: []string{broadcast.NotifyChannel, presence.NotifyChannel},
		Handle: func(ch string, p []byte) {
			switch ch {
			case broadcast.NotifyChannel:
				hub.HandleNotify(p)
			case presence.NotifyChannel:
				relay.HandleNotify(p)
			}
		},
		Backlog:       func(bool) { relay.Resync() },
		Log:           log,
		RetryDelay:    50 * time.Millisecond,
		MaxRetryDelay: 200 * time.Millisecond,
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); l.Run(ctx) }()
	go func() { defer wg.Done(); hub.Run(ctx) }()
	go func() { defer wg.Done(); relay.Run(ctx) }()
	srv := httptest.NewServer(New(Options{Log: log, Registry: reg, Hub: hub, Presence: tracker,
		Authorizer: &broadcast.Authorizer{Pool: pool}}).Handler())
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(func() {
		srv.Close()
		stop()
		pool.Close()
	})
	select {
	case <-relay.Synced():
	case <-time.After(10 * time.Second):
		t.Fatal("replica did not load the presence state")
	}
	return &replica{URL: srv.URL, proxy: proxy, relay: relay, stop: stop}
}

// waitPublished waits until some replica's row for key is in
// realtime.presences, where a replica starting later loads it from.
func waitPublished(t *testing.T, db *pgtest.DB, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for {
		var n int
		if err := conn.QueryRow(ctx, `select count(*) from realtime.presences where key = $1`, key).Scan(&n); err != nil {
			t.Fatalf("wait for %s's presence row: %v", key, err)
		}
		if n > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s's presence was never published", key)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// payload is a frame's payload re-encoded (object keys sorted), so equal
// payloads compare equal as strings.
func payload(f []any) string {
	b, _ := json.Marshal(f[4])
	return string(b)
}

func reply(ref string) func(f []any) bool {
	return func(f []any) bool { return f[3] == "phx_reply" && f[1] == ref }
}

// joinPresence joins realtime:room with presence under key and returns the
// presence_state it got.
func joinPresence(t *testing.T, base, key string) (*websocket.Conn, map[string]presence.Metas) {
	t.Helper()
	c := dial(t, base, "?vsn=2.0.0")
	send(t, c, joinFrame("1", "realtime:room", `{"presence":{"key":"`+key+`","enabled":true}}`))
	expect(t, c, "join reply", reply("1"))
	st := expect(t, c, "presence_state", event("presence_state"))
	var state map[string]presence.Metas
	if err := json.Unmarshal([]byte(payload(st)), &state); err != nil {
		t.Fatal(err)
	}
	return c, state
}

func track(t *testing.T, c *websocket.Conn, ref, meta string) {
	t.Helper()
	send(t, c, `["1","`+ref+`","realtime:room","presence",{"type":"presence","event":"track","payload":`+meta+`}]`)
	expect(t, c, "track reply", reply(ref))
}

func metaRef(t *testing.T, meta json.RawMessage) (ref, prev string) {
	t.Helper()
	var m struct {
		Ref  string `json:"phx_ref"`
		Prev string `json:"phx_ref_prev"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	return m.Ref, m.Prev
}

// Two replicas behind one database: tracks, re-tracks, untracks and leaves
// on either produce the same presence_diff on both; a client joining on
// either gets the same presence_state, holding every replica's presences;
// broadcasts cross too.
func TestPresenceAcrossReplicas(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ra, rb := startReplica(t, db, 5*time.Second), startReplica(t, db, 5*time.Second)
	a, state := joinPresence(t, ra.URL, "alice")
	if len(state) != 0 {
		t.Fatalf("first state = %v", state)
	}
	b, _ := joinPresence(t, rb.URL, "bob")

	// A track on A: the same diff on A and B.
	track(t, a, "2", `{"n":1}`)
	da := payload(expect(t, a, "alice's join on A", event("presence_diff")))
	db1 := payload(expect(t, b, "alice's join on B", event("presence_diff")))
	if da != db1 || !strings.Contains(da, `"joins":{"alice":{"metas":[{"n":1,"phx_ref":"`) || !strings.Contains(da, `"leaves":{}`) {
		t.Fatalf("diff on A %s\n    on B %s", da, db1)
	}
	// And on B: the same diff on both.
	track(t, b, "2", `{"n":"b"}`)
	if x, y := payload(expect(t, b, "bob's join on B", event("presence_diff"))), payload(expect(t, a, "bob's join on A", event("presence_diff"))); x != y {
		t.Fatalf("diff on B %s\n    on A %s", x, y)
	}

	// Late joiners on either replica get the same state: both presences,
	// with refs unique across the replicas.
	_, sb := joinPresence(t, rb.URL, "carol")
	c2, sa := joinPresence(t, ra.URL, "dave")
	jb, _ := json.Marshal(sb)
	ja, _ := json.Marshal(sa)
	if string(ja) != string(jb) || len(sa) != 2 || len(sa["alice"].Metas) != 1 || len(sa["bob"].Metas) != 1 {
		t.Fatalf("state on A %s\n      on B %s", ja, jb)
	}
	aliceRef, _ := metaRef(t, sa["alice"].Metas[0])
	bobRef, _ := metaRef(t, sa["bob"].Metas[0])
	if aliceRef == "" || aliceRef == bobRef {
		t.Fatalf("refs %q and %q", aliceRef, bobRef)
	}

	// A re-track on A: one diff leaving the old meta and joining the new
	// one (phx_ref_prev), the same everywhere.
	track(t, a, "3", `{"n":2}`)
	da = payload(expect(t, a, "re-track on A", event("presence_diff")))
	if x := payload(expect(t, b, "re-track on B", event("presence_diff"))); x != da {
		t.Fatalf("re-track diff on A %s\n             on B %s", da, x)
	}
	var diff presence.Diff
	_ = json.Unmarshal([]byte(da), &diff)
	if len(diff.Joins["alice"].Metas) != 1 || len(diff.Leaves["alice"].Metas) != 1 {
		t.Fatalf("re-track diff = %s", da)
	}
	if ref, prev := metaRef(t, diff.Joins["alice"].Metas[0]); prev != aliceRef || ref == aliceRef {
		t.Fatalf("re-track meta ref %q prev %q, want prev %q", ref, prev, aliceRef)
	}

	// Broadcasts cross as well.
	send(t, a, `["1","4","realtime:room","broadcast",{"type":"broadcast","event":"hi","payload":{"x":1}}]`)
	if p := payload(expect(t, b, "broadcast from A", event("broadcast"))); p != `{"event":"hi","payload":{"x":1},"type":"broadcast"}` {
		t.Fatalf("broadcast = %s", p)
	}

	// Untrack on A: alice leaves on both.
	send(t, a, `["1","5","realtime:room","presence",{"type":"presence","event":"untrack"}]`)
	da = payload(expect(t, a, "untrack on A", event("presence_diff")))
	if x := payload(expect(t, b, "untrack on B", event("presence_diff"))); x != da || !strings.Contains(da, `"joins":{},"leaves":{"alice":`) {
		t.Fatalf("untrack diff on A %s\n            on B %s", da, x)
	}
	// Leaving the channel on B untracks bob: dave on A sees it.
	send(t, b, `["1","6","realtime:room","phx_leave",{}]`)
	expect(t, c2, "bob's leave on A", func(f []any) bool {
		return f[3] == "presence_diff" && strings.Contains(payload(f), `"joins":{},"leaves":{"bob":`)
	})
	if _, s := joinPresence(t, ra.URL, "eve"); len(s) != 0 {
		t.Fatalf("state after everyone left = %v", s)
	}
}

// A replica that starts late gets the state; a replica that dies without a
// clean shutdown has its presences leave on the others after the timeout;
// when it comes back, its LISTEN connection reconnects and reloads what it
// missed, and its presences join again.
func TestPresenceReplicaLateStartCrashAndReturn(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	db := pgtest.New(t, pgtest.Options{})
	ra := startReplica(t, db, timeout)
	a, _ := joinPresence(t, ra.URL, "alice")
	track(t, a, "2", `{"big":"`+strings.Repeat("x", 9000)+`"}`) // a meta larger than any NOTIFY
	expect(t, a, "alice's join", event("presence_diff"))

	// B starts after alice was tracked and A has published her (the relay
	// writes asynchronously; the track reply only says A holds her).
	waitPublished(t, db, "alice")
	rb := startReplica(t, db, timeout)
	b, state := joinPresence(t, rb.URL, "bob")
	if len(state) != 1 || len(state["alice"].Metas) != 1 || !strings.Contains(string(state["alice"].Metas[0]), strings.Repeat("x", 9000)) {
		t.Fatalf("late replica's state = %v", state)
	}
	track(t, b, "2", `{"n":"b"}`)
	expect(t, b, "bob's join on B", event("presence_diff"))
	expect(t, a, "bob's join on A", event("presence_diff"))

	// A is killed: its database connections drop and its heartbeats stop.
	cut := time.Now()
	ra.proxy.cut()
	if p := payload(expect(t, b, "alice's leave after the timeout", event("presence_diff"))); !strings.Contains(p, `"joins":{},"leaves":{"alice":`) {
		t.Fatalf("leave diff = %s", p)
	}
	// Not at once (the dropped connections say nothing), and within a
	// heartbeat period of the timeout plus the database rounds of B's reap
	// and of the notice, which on a loaded machine (go test ./... runs the
	// 100k-row seeds beside this) have taken seconds. That reap applies
	// exactly the timeout it is given is presence's TestReapHonoursTheTimeout.
	if took := time.Since(cut); took < timeout/2 || took > timeout+timeout/3+5*time.Second {
		t.Fatalf("alice left %v after A died, want about the timeout (%v)", took, timeout)
	}
	if _, s := joinPresence(t, rb.URL, "carol"); len(s) != 1 || len(s["bob"].Metas) != 1 {
		t.Fatalf("state on B without A = %v", s)
	}

	// While A is cut off, bob untracks: A misses the notification.
	send(t, b, `["1","3","realtime:room","presence",{"type":"presence","event":"untrack"}]`)
	expect(t, b, "bob's leave on B", event("presence_diff"))

	// A comes back: its listener reconnects and reloads (bob leaves on A),
	// and, declared down meanwhile, it republishes (alice joins on B).
	ra.proxy.restore()
	if p := payload(expect(t, a, "bob's leave on A after the reconnect", event("presence_diff"))); !strings.Contains(p, `"joins":{},"leaves":{"bob":`) {
		t.Fatalf("A's reload diff = %s", p)
	}
	if p := payload(expect(t, b, "alice back on B", event("presence_diff"))); !strings.Contains(p, `"joins":{"alice":`) || !strings.Contains(p, `"leaves":{}`) {
		t.Fatalf("B's diff when A returns = %s", p)
	}
}

// A clean shutdown announces the replica's leaves at once, long before the
// heartbeat timeout.
func TestPresenceReplicaCleanShutdown(t *testing.T) {
	t.Parallel()
	const timeout = 30 * time.Second
	db := pgtest.New(t, pgtest.Options{})
	ra, rb := startReplica(t, db, timeout), startReplica(t, db, timeout)
	a, _ := joinPresence(t, ra.URL, "alice")
	b, _ := joinPresence(t, rb.URL, "bob")
	track(t, a, "2", `{}`)
	expect(t, b, "alice's join on B", event("presence_diff"))

	start := time.Now()
	ra.stop()
	if p := payload(expect(t, b, "alice's leave", event("presence_diff"))); !strings.Contains(p, `"joins":{},"leaves":{"alice":`) {
		t.Fatalf("leave diff = %s", p)
	}
	if took := time.Since(start); took > timeout/6 {
		t.Fatalf("alice left %v after A stopped", took)
	}
}
