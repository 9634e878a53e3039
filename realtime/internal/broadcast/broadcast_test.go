package broadcast

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/channel"
	"github.com/kejanest/kejanest/realtime/internal/phx"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type outbox struct {
	mu   sync.Mutex
	text []phx.Message
	bin  [][]byte
}

func (o *outbox) Send(m phx.Message)  { o.mu.Lock(); o.text = append(o.text, m); o.mu.Unlock() }
func (o *outbox) SendBinary(b []byte) { o.mu.Lock(); o.bin = append(o.bin, b); o.mu.Unlock() }
func (o *outbox) count() int          { o.mu.Lock(); defer o.mu.Unlock(); return len(o.text) + len(o.bin) }

func joined(t *testing.T, reg *channel.Registry, topic string, cfg channel.JoinConfig) (*channel.Channel, *outbox) {
	t.Helper()
	o := &outbox{}
	c := channel.New(topic, nil, cfg, nil, o)
	if err := c.Transition(channel.Joined); err != nil {
		t.Fatal(err)
	}
	reg.Add(c)
	return c, o
}

func TestDeliverSelfAndPrivacy(t *testing.T) {
	t.Parallel()
	reg := channel.NewRegistry()
	h := NewHub(reg, nil, slog.New(slog.DiscardHandler))
	var selfCfg channel.JoinConfig
	selfCfg.Broadcast.Self = true
	sender, so := joined(t, reg, "realtime:room", channel.JoinConfig{})
	selfer, selfo := joined(t, reg, "realtime:room", selfCfg)
	_, other := joined(t, reg, "realtime:room", channel.JoinConfig{})
	var priv channel.JoinConfig
	priv.Private = true
	_, privo := joined(t, reg, "realtime:room", priv)

	h.Publish(Message{Topic: "room", Event: "e", Payload: json.RawMessage(`{"n":1}`), Sender: sender.ID})
	h.Publish(Message{Topic: "room", Event: "e", Payload: json.RawMessage(`{"n":2}`), Sender: selfer.ID})
	h.Publish(Message{Topic: "room", Event: "b", Binary: []byte{9}, IsBinary: true})
	if so.count() != 2 || selfo.count() != 3 || other.count() != 3 || privo.count() != 0 {
		t.Fatalf("sender %d self %d other %d private %d", so.count(), selfo.count(), other.count(), privo.count())
	}
	if got := string(other.text[0].Payload); got != `{"type":"broadcast","event":"e","payload":{"n":1}}` {
		t.Fatalf("payload = %s", got)
	}
	want, _ := phx.EncodeUserBroadcast("realtime:room", "b", nil, phx.EncodingBinary, []byte{9})
	if string(other.bin[0]) != string(want) {
		t.Fatalf("binary frame = %v", other.bin[0])
	}
}

func TestParseREST(t *testing.T) {
	t.Parallel()
	msgs, err := ParseREST([]byte(`{"messages":[{"topic":"realtime:room","event":"e","payload":{"a":1},"private":true},{"topic":"x","event":"f"}]}`))
	if err != nil || len(msgs) != 2 || msgs[0].Topic != "room" || !msgs[0].Private || msgs[1].Topic != "x" {
		t.Fatalf("= %+v, %v", msgs, err)
	}
	for _, body := range []string{`{`, `{"messages":[{"topic":"x"}]}`, `{"messages":[{"event":"e"}]}`} {
		if _, err := ParseREST([]byte(body)); err == nil {
			t.Errorf("%s: want an error", body)
		}
	}
}

// Two replicas share nothing but the database: a broadcast published on
// one reaches the other's channels through NOTIFY, once.
func TestRelayAcrossReplicas(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	log := slog.New(slog.DiscardHandler)
	reg1, reg2 := channel.NewRegistry(), channel.NewRegistry()
	h1, h2 := NewHub(reg1, pool, log), NewHub(reg2, pool, log)
	_, o1 := joined(t, reg1, "realtime:room", channel.JoinConfig{})
	_, o2 := joined(t, reg2, "realtime:room", channel.JoinConfig{})
	var wg sync.WaitGroup
	ready := make(chan struct{}, 2)
	for _, h := range []*Hub{h1, h2} {
		l := &changes.Listener{
			Connect:  func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, db.URLAs("authenticator")) },
			Channels: []string{NotifyChannel},
			Handle:   func(_ string, p []byte) { h.HandleNotify(p) },
			Ready:    func() { ready <- struct{}{} },
			Log:      log,
		}
		wg.Add(2)
		go func() { defer wg.Done(); l.Run(ctx) }()
		go func() { defer wg.Done(); h.Run(ctx) }()
	}
	defer wg.Wait()
	defer cancel()
	<-ready
	<-ready
	h1.Publish(Message{Topic: "room", Event: "e", Payload: json.RawMessage(`{"from":1}`)})
	h2.Publish(Message{Topic: "room", Event: "b", Binary: []byte{1, 2}, IsBinary: true})
	deadline := time.Now().Add(10 * time.Second)
	for (o1.count() < 2 || o2.count() < 2) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if o1.count() != 2 || o2.count() != 2 {
		t.Fatalf("replica 1 got %d, replica 2 got %d; want 2 each (local + relayed, no duplicates)", o1.count(), o2.count())
	}
	if string(o2.text[0].Payload) != `{"type":"broadcast","event":"e","payload":{"from":1}}` || len(o1.bin) != 1 {
		t.Fatalf("relayed: %s / %d binary", o2.text[0].Payload, len(o1.bin))
	}
}

func TestAuthorizerPolicies(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{"testdata/policies.sql"}})
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	a := &Authorizer{Pool: pool}
	uid := "33333333-3333-3333-3333-333333333333"
	user := &auth.Claims{Role: "authenticated", Sub: uid, Raw: json.RawMessage(`{"role":"authenticated","sub":"` + uid + `"}`)}
	anon := &auth.Claims{Role: "anon", Raw: json.RawMessage(`{"role":"anon"}`)}
	tests := []struct {
		name             string
		claims           *auth.Claims
		headers          string
		topic, ext       string
		wantRead, wantWr bool
	}{
		{"user room", user, "", "room-1", ExtBroadcast, true, true},
		{"user closed room", user, "", "room-closed", ExtBroadcast, true, false},
		{"user other topic", user, "", "lobby", ExtBroadcast, false, false},
		{"user own presence", user, "", "user-" + uid, ExtPresence, true, false},
		{"user other presence", user, "", "user-x", ExtPresence, false, false},
		{"anon room", anon, "", "room-1", ExtBroadcast, false, false},
		{"user without legacy claim", user, "", "claims-json", ExtBroadcast, true, false},
		{"header the policy asks for", user, `{"x-room-key":"k1"}`, "header-room", ExtBroadcast, true, true},
		{"header with another value", user, `{"x-room-key":"k2"}`, "header-room", ExtBroadcast, false, false},
		{"no headers", user, "", "header-room", ExtBroadcast, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Caller{Claims: tt.claims}
			if tt.headers != "" {
				c.Headers = json.RawMessage(tt.headers)
			}
			r, err := a.CanRead(ctx, c, tt.topic, tt.ext)
			if err != nil || r != tt.wantRead {
				t.Errorf("CanRead = %v, %v; want %v", r, err, tt.wantRead)
			}
			w, err := a.CanWrite(ctx, c, tt.topic, tt.ext)
			if err != nil || w != tt.wantWr {
				t.Errorf("CanWrite = %v, %v; want %v", w, err, tt.wantWr)
			}
		})
	}
	// Nothing was stored, and the pool's connections are back to authenticator.
	var n int
	var role string
	if err := pool.QueryRow(ctx, "select (select count(*) from realtime.messages), current_user").Scan(&n, &role); err == nil {
		t.Errorf("authenticator should not read realtime.messages directly (count %d)", n)
	}
	if err := pool.QueryRow(ctx, "select current_user").Scan(&role); err != nil || role != "authenticator" {
		t.Fatalf("role leaked: %q %v", role, err)
	}
}
