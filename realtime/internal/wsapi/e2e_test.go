package wsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/broadcast"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/channel"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// liveServer wires a Server to a fresh database the way cmd/realtime does.
func liveServer(t *testing.T, now func() time.Time) (*httptest.Server, *pgx.Conn) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{"../changes/testdata/rls.sql"}})
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	authn, err := auth.New(auth.Options{JWTSecret: devkeys.JWTSecret, PublishableKey: devkeys.PublishableKey, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	reg := channel.NewRegistry()
	hub := broadcast.NewHub(reg, pool, log)
	reader := changes.NewReader(pool)
	d := &changes.Dispatcher{Reader: reader, Source: reg.Subscribers, Log: log, Timeout: 5 * time.Second}
	ready := make(chan struct{}, 1)
	queue := make(chan changes.Change, 100)
	l := &changes.Listener{
		Connect:  func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, db.URLAs("authenticator")) },
		Channels: []string{changes.NotifyChannel},
		Handle: func(_ string, p []byte) {
			if c, err := changes.ParseChange(p); err == nil {
				queue <- c
			}
		},
		Ready: func() { ready <- struct{}{} },
		Log:   log,
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); l.Run(ctx) }()
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
	srv := httptest.NewServer(New(Options{Log: log, Auth: authn, Registry: reg, Hub: hub, Roles: reader,
		Authorizer: &broadcast.Authorizer{Pool: pool}}).Handler())
	t.Cleanup(func() {
		srv.Close()
		cancel()
		wg.Wait()
		pool.Close()
		_ = admin.Close(context.Background())
	})
	<-ready
	return srv, admin
}

func userToken(t *testing.T, sub string, exp time.Time) string {
	t.Helper()
	tok, err := jwtverify.SignHS256(map[string]any{"sub": sub, "role": "authenticated", "exp": exp.Unix()}, []byte(devkeys.JWTSecret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// A signed-in socket: join reply with ids, "Subscribed to PostgreSQL", the
// user's rows only, a token refresh that switches user, and expiry closing
// the channel.
func TestLiveChangesRefreshAndExpiry(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	srv, admin := liveServer(t, now)
	alice, bob := "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	c := dial(t, srv.URL, "?vsn=2.0.0&apikey="+devkeys.PublishableKey)
	send(t, c, fmt.Sprintf(`["1","1","realtime:notes","phx_join",{"config":{"postgres_changes":[{"event":"INSERT","schema":"public","table":"notes"},{"event":"*","schema":"public","table":"notes","filter":"score=gt.5"}]},"access_token":%q}]`,
		userToken(t, alice, clock.Add(time.Hour))))
	reply := expect(t, c, "join reply", event("phx_reply"))
	resp, _ := json.Marshal(reply[4])
	id1, id2 := changes.SubscriptionID("INSERT", "public", "notes", ""), changes.SubscriptionID("*", "public", "notes", "score=gt.5")
	want := fmt.Sprintf(`{"response":{"postgres_changes":[{"event":"INSERT","id":%d,"schema":"public","table":"notes"},{"event":"*","filter":"score=gt.5","id":%d,"schema":"public","table":"notes"}]},"status":"ok"}`, id1, id2)
	if string(resp) != want {
		t.Fatalf("join reply\n got %s\nwant %s", resp, want)
	}
	sys := expect(t, c, "system", event("system"))
	if p, _ := json.Marshal(sys[4]); string(p) != `{"channel":"notes","extension":"postgres_changes","message":"Subscribed to PostgreSQL","status":"ok"}` {
		t.Fatalf("system = %s", p)
	}

	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := admin.Exec(context.Background(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`insert into notes (owner, body, score) values ($1, 'bob-1', 9)`, bob)
	exec(`insert into notes (owner, body, score) values ($1, 'alice-1', 9)`, alice)
	ch := expect(t, c, "alice's change", event("postgres_changes"))
	var msg struct {
		IDs  []uint32 `json:"ids"`
		Data struct {
			Type   string          `json:"type"`
			Record map[string]any  `json:"record"`
			Errors json.RawMessage `json:"errors"`
		} `json:"data"`
	}
	b, _ := json.Marshal(ch[4])
	_ = json.Unmarshal(b, &msg)
	if msg.Data.Record["body"] != "alice-1" || len(msg.IDs) != 2 || string(msg.Data.Errors) != "null" || ch[0] != nil {
		t.Fatalf("change = %s", b)
	}

	// Refresh to bob's token: bob's rows now, not alice's.
	send(t, c, fmt.Sprintf(`["1","2","realtime:notes","access_token",{"access_token":%q}]`, userToken(t, bob, clock.Add(time.Minute))))
	send(t, c, `[null,"3","phoenix","heartbeat",{}]`)
	expect(t, c, "heartbeat reply after the refresh", func(f []any) bool { return f[3] == "phx_reply" && f[1] == "3" })
	exec(`insert into notes (owner, body, score) values ($1, 'alice-2', 1)`, alice)
	exec(`insert into notes (owner, body, score) values ($1, 'bob-2', 1)`, bob)
	ch = expect(t, c, "bob's change", event("postgres_changes"))
	b, _ = json.Marshal(ch[4])
	_ = json.Unmarshal(b, &msg)
	if msg.Data.Record["body"] != "bob-2" || len(msg.IDs) != 1 || msg.IDs[0] != id1 {
		t.Fatalf("after refresh: %s", b)
	}

	// The token runs out: system error and phx_close.
	mu.Lock()
	clock = clock.Add(2 * time.Minute)
	mu.Unlock()
	sys = expect(t, c, "expiry system message", event("system"))
	if p, _ := json.Marshal(sys[4]); string(p) != `{"channel":"notes","extension":"system","message":"Token has expired 60 seconds ago","status":"error"}` {
		t.Fatalf("expiry = %s", p)
	}
	closeFrame := expect(t, c, "phx_close", event("phx_close"))
	if closeFrame[0] != "1" {
		t.Fatalf("phx_close = %v", closeFrame)
	}
	// Closed: no more changes, and pushes get "unmatched topic".
	send(t, c, `["1","4","realtime:notes","broadcast",{"type":"broadcast","event":"e","payload":{}}]`)
	r := expect(t, c, "unmatched", func(f []any) bool { return f[3] == "phx_reply" && f[1] == "4" })
	if p, _ := json.Marshal(r[4]); string(p) != `{"response":{"reason":"unmatched topic"},"status":"error"}` {
		t.Fatalf("after close: %s", p)
	}
}

func TestLivePrivateChannelNeedsAPolicy(t *testing.T) {
	t.Parallel()
	srv, _ := liveServer(t, time.Now)
	c := dial(t, srv.URL, "?vsn=1.0.0")
	send(t, c, fmt.Sprintf(`{"topic":"realtime:secret","event":"phx_join","payload":{"config":{"private":true},"access_token":%q},"ref":"1","join_ref":"1"}`,
		userToken(t, "11111111-1111-1111-1111-111111111111", time.Now().Add(time.Hour))))
	got := receive(t, c)
	b, _ := json.Marshal(got)
	if string(b) != `{"event":"phx_reply","payload":{"response":{"reason":"Unauthorized: You do not have permissions to read from this Channel topic: secret"},"status":"error"},"ref":"1","topic":"realtime:secret"}` {
		t.Fatalf("reply = %s", b)
	}
}

// A private channel's policies see the upgrade's x- headers, and a REST
// broadcast's policies all of its request's headers, as request.headers.
func TestLivePrivateChannelPoliciesSeeRequestHeaders(t *testing.T) {
	t.Parallel()
	srv, admin := liveServer(t, time.Now)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, `
		create policy header_room_read on realtime.messages for select to authenticated
		  using (realtime.topic() = 'header-room'
		     and current_setting('request.headers', true)::json ->> 'x-room-key' = 'k1');
		create policy header_room_write on realtime.messages for insert to authenticated
		  with check (realtime.topic() = 'header-room'
		     and current_setting('request.headers', true)::json ->> 'x-room-key' = 'k1'
		     and current_setting('request.headers', true)::json ->> 'x-sender' = 'rest'
		     and current_setting('request.headers', true)::json ->> 'content-type' = 'application/json')`); err != nil {
		t.Fatal(err)
	}
	token := userToken(t, "11111111-1111-1111-1111-111111111111", time.Now().Add(time.Hour))
	join := fmt.Sprintf(`["1","1","realtime:header-room","phx_join",{"config":{"private":true},"access_token":%q}]`, token)
	dialWith := func(key string) *websocket.Conn {
		h := http.Header{}
		if key != "" {
			h.Set("X-Room-Key", key)
		}
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/websocket?vsn=2.0.0", &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		t.Cleanup(func() { _ = c.CloseNow() })
		return c
	}
	for _, key := range []string{"", "k2"} {
		c := dialWith(key)
		send(t, c, join)
		r := expect(t, c, "refused join", event("phx_reply"))
		if p, _ := json.Marshal(r[4]); string(p) != `{"response":{"reason":"Unauthorized: You do not have permissions to read from this Channel topic: header-room"},"status":"error"}` {
			t.Fatalf("x-room-key %q: reply %s", key, p)
		}
	}
	c := dialWith("k1")
	send(t, c, join)
	if r := expect(t, c, "join", event("phx_reply")); r[4].(map[string]any)["status"] != "ok" {
		t.Fatalf("x-room-key k1: reply %v", r[4])
	}
	post := func(sender, event string) {
		req, err := http.NewRequest("POST", srv.URL+"/api/broadcast", strings.NewReader(
			`{"messages":[{"topic":"header-room","event":"`+event+`","payload":{},"private":true}]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Room-Key", "k1")
		req.Header.Set("X-Sender", sender)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusAccepted {
			t.Fatalf("POST: %d", res.StatusCode)
		}
	}
	// Unauthorized REST messages are dropped silently; the authorized one
	// sent after it is the first to arrive.
	post("socket", "refused")
	post("rest", "sent")
	got := expect(t, c, "broadcast", event("broadcast"))
	if ev := got[4].(map[string]any)["event"]; ev != "sent" {
		t.Fatalf("first broadcast = %v, want the authorized one", ev)
	}
}

// A binding Supabase's subscription check refuses (here a value that is no
// integer for an integer column) leaves its channel joined with a system
// error and none of its bindings subscribed, while another channel of the
// socket still gets changes.
func TestLiveJoinChecksFiltersAgainstTheTable(t *testing.T) {
	t.Parallel()
	srv, admin := liveServer(t, time.Now)
	c := dial(t, srv.URL, "?vsn=2.0.0&apikey="+devkeys.PublishableKey)
	send(t, c, joinFrame("1", "realtime:bad", `{"postgres_changes":[{"event":"INSERT","schema":"public","table":"notes"},{"event":"INSERT","schema":"public","table":"notes","filter":"id=gt.0,score=eq.abc"}]}`))
	if r := expect(t, c, "bad join reply", event("phx_reply")); r[4].(map[string]any)["status"] != "ok" {
		t.Fatalf("join reply %v", r)
	}
	sys := expect(t, c, "bad system", event("system"))
	want := `{"channel":"bad","extension":"postgres_changes","message":"Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [event: INSERT, schema: public, table: notes, filters: [{\"id\", \"gt\", \"0\", false}, {\"score\", \"eq\", \"abc\", false}], select: nil]. Exception: ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: \"abc\"","status":"error"}`
	if p, _ := json.Marshal(sys[4]); string(p) != want {
		t.Fatalf("system\n got %s\nwant %s", p, want)
	}
	send(t, c, joinFrame("2", "realtime:good", `{"postgres_changes":[{"event":"INSERT","schema":"public","table":"notes","filter":"score=eq.7"}]}`))
	expect(t, c, "good subscribed", func(f []any) bool {
		return f[2] == "realtime:good" && f[3] == "system" && f[4].(map[string]any)["status"] == "ok"
	})
	if _, err := admin.Exec(context.Background(), `insert into notes (body, score, is_public) values ('seen', 7, true)`); err != nil {
		t.Fatal(err)
	}
	expect(t, c, "change on good", func(f []any) bool { return f[2] == "realtime:good" && f[3] == "postgres_changes" })
	// Both channels' frames of one change are queued together: by the
	// heartbeat's reply, a delivery to the refused channel would have come.
	send(t, c, `[null,"9","phoenix","heartbeat",{}]`)
	for {
		f, _ := receive(t, c).([]any)
		if len(f) == 5 && f[2] == "realtime:bad" && f[3] == "postgres_changes" {
			t.Fatalf("refused channel got a change: %v", f)
		}
		if len(f) == 5 && f[1] == "9" {
			break
		}
	}
}
