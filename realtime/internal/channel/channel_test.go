package channel

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/phx"
)

type outbox struct {
	mu  sync.Mutex
	got []phx.Message
	bin [][]byte
}

func (o *outbox) Send(m phx.Message)  { o.mu.Lock(); o.got = append(o.got, m); o.mu.Unlock() }
func (o *outbox) SendBinary(b []byte) { o.mu.Lock(); o.bin = append(o.bin, b); o.mu.Unlock() }

func str(s string) *string { return &s }

func TestStateMachine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []State
		ok    []bool
	}{
		{"join then close", []State{Joined, Closed}, []bool{true, true}},
		{"refused join", []State{Closed}, []bool{true}},
		{"no rejoin after close", []State{Joined, Closed, Joined}, []bool{true, true, false}},
		{"no double join", []State{Joined, Joined}, []bool{true, false}},
		{"no back to joining", []State{Joining}, []bool{false}},
		{"close twice", []State{Closed, Closed}, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := New("realtime:room", str("1"), JoinConfig{}, nil, &outbox{})
			for i, s := range tt.steps {
				err := c.Transition(s)
				if (err == nil) != tt.ok[i] {
					t.Fatalf("step %d to %s: err = %v, want ok=%v", i, s, err, tt.ok[i])
				}
				if err != nil && !errors.Is(err, ErrTransition) {
					t.Fatalf("error %v is not ErrTransition", err)
				}
			}
		})
	}
}

func TestPushOnlyWhenJoined(t *testing.T) {
	t.Parallel()
	o := &outbox{}
	c := New("realtime:room", str("1"), JoinConfig{}, nil, o)
	c.SetSubscriptions([]changes.Subscription{{ID: 1, Event: "*", Schema: "public"}})
	c.Push("broadcast", json.RawMessage(`{}`))
	if len(c.Subscriptions()) != 0 {
		t.Fatal("a joining channel must not receive changes")
	}
	_ = c.Transition(Joined)
	c.Push("broadcast", json.RawMessage(`{}`))
	c.DeliverSystem("ok", "Subscribed to PostgreSQL")
	if len(c.Subscriptions()) != 1 {
		t.Fatal("joined channel lists its subscriptions")
	}
	_ = c.Transition(Closed)
	c.Push("broadcast", json.RawMessage(`{}`))
	if len(o.got) != 2 {
		t.Fatalf("sent %d frames, want 2 (only while joined)", len(o.got))
	}
	if o.got[0].JoinRef != nil || o.got[0].Ref != nil || o.got[0].Topic != "realtime:room" {
		t.Fatalf("push frame = %+v, want null refs on the topic", o.got[0])
	}
	if string(o.got[1].Payload) != `{"extension":"postgres_changes","status":"ok","message":"Subscribed to PostgreSQL","channel":"room"}` {
		t.Fatalf("system payload = %s", o.got[1].Payload)
	}
}

func TestJoinConfigSubscriptions(t *testing.T) {
	t.Parallel()
	p, err := ParseJoin(json.RawMessage(`{"config":{"broadcast":{"ack":true,"self":true},"presence":{"key":"k","enabled":true},
		"postgres_changes":[{"event":"*","schema":"public","table":"properties"},{"event":"insert","schema":"public","table":"t","filter":"id=eq.5"},
		{"event":"UPDATE","schema":"public","table":"x","filter":"id=fts.5"},{"event":"DELETE"}],"private":true},"access_token":"tok"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Token() != "tok" || !p.Config.Broadcast.Ack || !p.Config.Broadcast.Self || p.Config.Presence.Key != "k" || !p.Config.Private {
		t.Fatalf("config = %+v", p)
	}
	subs, reply, errs := p.Config.Subscriptions()
	if len(reply) != 4 || len(subs) != 2 || len(errs) != 2 {
		t.Fatalf("subs %d reply %d errs %d", len(subs), len(reply), len(errs))
	}
	got, _ := json.Marshal(reply[:2])
	want := `[{"id":` + jsonID(changes.SubscriptionID("*", "public", "properties", "")) + `,"event":"*","schema":"public","table":"properties"},` +
		`{"id":` + jsonID(changes.SubscriptionID("INSERT", "public", "t", "id=eq.5")) + `,"event":"insert","schema":"public","table":"t","filter":"id=eq.5"}]`
	if string(got) != want {
		t.Fatalf("reply\n got %s\nwant %s", got, want)
	}
	if subs[1].Event != changes.Insert || subs[1].Filter == nil || subs[1].Table != "t" {
		t.Fatalf("sub = %+v", subs[1])
	}
	if reply[0].ID == reply[1].ID {
		t.Fatal("different bindings need different ids")
	}
	// an empty payload is the zero config
	if p, err := ParseJoin(nil); err != nil || p.Token() != "" {
		t.Fatalf("empty join: %v", err)
	}
	if _, err := ParseJoin(json.RawMessage(`{"config":[]}`)); err == nil {
		t.Fatal("want an error for a non-object config")
	}
}

// Bindings are read as Supabase's parse_subscription_params reads them,
// and refused with its messages.
func TestSubscriptionsAsSupabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		binding, schema, table, event, err string
		sel                                []string
	}{
		{binding: `{"event":"*","schema":"public","table":"t"}`, schema: "public", table: "t", event: "*"},
		{binding: `{"event":"bogus","schema":"public","table":"t"}`, schema: "public", table: "t", event: "*"},
		{binding: `{"schema":"public"}`, schema: "public", table: "*", event: "*"},
		{binding: `{"table":"t","event":"insert"}`, schema: "public", table: "t", event: "INSERT"},
		{binding: `{"schema":"public","table":"t","select":["id","name",3]}`, schema: "public", table: "t", event: "*", sel: []string{"id", "name"}},
		{binding: `{"schema":"public","table":"t","select":[]}`, schema: "public", table: "t", event: "*"},
		{binding: `{"schema":"public","table":"t","filter":""}`, schema: "public", table: "t", event: "*"},
		{binding: `{"schema":"public","filter":"id=eq.1"}`, err: "No subscription params provided. Please provide at least a `schema` or `table` to subscribe to"},
		{binding: `{"event":"*"}`, err: "No subscription params provided. Please provide at least a `schema` or `table` to subscribe to"},
		{binding: `{"schema":"public","table":"t","select":"id,name"}`, err: "Error parsing `select` params: expected a list of column name strings, e.g. select: [\"col1\", \"col2\"]"},
		{binding: `{"schema":"public","select":["id"]}`, err: "Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name."},
		{binding: `{"schema":"public","table":"t","filter":"id=foo.1"}`, err: "Error parsing `filter` params: [\"foo\", \"1\"]"},
		{binding: `{"schema":"public","table":"t","filter":"ok=is.maybe"}`, err: "Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [event: *, schema: public, table: t, filters: [{\"ok\", \"is\", \"maybe\", false}], select: nil]. Exception: ERROR P0001 (raise_exception) invalid value for is filter: must be null, true, false, or unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.binding, func(t *testing.T) {
			t.Parallel()
			p, err := ParseJoin(json.RawMessage(`{"config":{"postgres_changes":[` + tt.binding + `]}}`))
			if err != nil {
				t.Fatal(err)
			}
			subs, reply, errs := p.Config.Subscriptions()
			if len(reply) != 1 {
				t.Fatalf("reply %d", len(reply))
			}
			if tt.err != "" {
				if len(errs) != 1 || errs[0].Error() != tt.err || len(subs) != 0 {
					t.Fatalf("errs %v subs %d, want %q", errs, len(subs), tt.err)
				}
				return
			}
			if len(errs) != 0 || len(subs) != 1 {
				t.Fatalf("errs %v subs %d", errs, len(subs))
			}
			s := subs[0]
			if s.Schema != tt.schema || s.Table != tt.table || s.Event != tt.event || fmt.Sprint(s.Select) != fmt.Sprint(tt.sel) || (s.Select == nil) != (tt.sel == nil) {
				t.Fatalf("sub %+v", s)
			}
		})
	}
}

func TestReplayRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		config string
		want   Replay
		ok     bool
		err    string
	}{
		{config: `{"private":true}`},
		{config: `{"private":true,"broadcast":{"replay":{"since":1700000000000,"limit":5}}}`, want: Replay{Since: 1700000000000, Limit: 5}, ok: true},
		{config: `{"private":true,"broadcast":{"replay":{}}}`, want: Replay{Limit: 10}, ok: true},
		{config: `{"private":true,"broadcast":{"replay":{"limit":25}}}`, want: Replay{Limit: 25}, ok: true},
		{config: `{"private":true,"broadcast":{"replay":"yes"}}`},
		{config: `{"broadcast":{"replay":{"since":1}}}`, err: MsgReplayPublic},
		{config: `{"private":true,"broadcast":{"replay":{"limit":26}}}`, err: MsgReplayInvalid},
		{config: `{"private":true,"broadcast":{"replay":{"limit":0}}}`, err: MsgReplayInvalid},
		{config: `{"private":true,"broadcast":{"replay":{"since":"yesterday"}}}`, err: MsgReplayInvalid},
		{config: `{"private":true,"broadcast":{"replay":{"since":-1}}}`, err: MsgReplayInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.config, func(t *testing.T) {
			t.Parallel()
			p, err := ParseJoin(json.RawMessage(`{"config":` + tt.config + `}`))
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := p.Config.ReplayRequest()
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || ok != tt.ok || got != tt.want {
				t.Fatalf("got %+v %v %v, want %+v %v", got, ok, err, tt.want, tt.ok)
			}
		})
	}
}

func jsonID(id uint32) string { b, _ := json.Marshal(id); return string(b) }

func TestRegistry(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	pub := New("realtime:room", str("1"), JoinConfig{}, nil, &outbox{})
	var pcfg JoinConfig
	pcfg.Private = true
	priv := New("realtime:room", str("2"), pcfg, &auth.Claims{Role: "anon"}, &outbox{})
	priv.SetSubscriptions([]changes.Subscription{{ID: 1, Event: "*", Schema: "public"}})
	r.Add(pub)
	r.Add(priv)
	r.Add(pub)
	if r.Len() != 2 || len(r.Members(TopicKey{false, "room"})) != 1 || len(r.Members(TopicKey{true, "room"})) != 1 {
		t.Fatalf("public and private rooms must be separate: len %d", r.Len())
	}
	if len(r.Subscribers()) != 1 {
		t.Fatal("only the channel with bindings is a subscriber")
	}
	r.Remove(priv)
	r.Remove(priv)
	if r.Len() != 1 || len(r.Subscribers()) != 0 || len(r.Members(TopicKey{true, "room"})) != 0 {
		t.Fatal("remove")
	}
}

func FuzzParseJoin(f *testing.F) {
	for _, s := range []string{
		`{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":"","enabled":false},"postgres_changes":[{"event":"*","schema":"public","table":"properties"}],"private":false},"access_token":"eyJ"}`,
		`{"config":{"postgres_changes":[{"event":"UPDATE","schema":"public","table":"t","filter":"id=in.(1,\"2,3\")"},null]}}`,
		`{"config":null}`, `null`, `{}`, `[]`, `{"config":{"postgres_changes":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseJoin(data)
		if err != nil {
			return
		}
		subs, reply, errs := p.Config.Subscriptions()
		if len(reply) != len(p.Config.PostgresChanges) || len(subs)+len(errs) != len(reply) {
			t.Fatalf("subs %d + errs %d != bindings %d", len(subs), len(errs), len(reply))
		}
		if _, err := json.Marshal(reply); err != nil {
			t.Fatal(err)
		}
	})
}
