package channel

import (
	"encoding/json"
	"errors"
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
		"postgres_changes":[{"event":"*","schema":"public","table":"properties"},{"event":"insert","schema":"public","filter":"id=eq.5"},
		{"event":"UPDATE","schema":"public","table":"x","filter":"id=like.5"},{"event":"DELETE","table":"y"}],"private":true},"access_token":"tok"}`))
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
		`{"id":` + jsonID(changes.SubscriptionID("INSERT", "public", "", "id=eq.5")) + `,"event":"insert","schema":"public","filter":"id=eq.5"}]`
	if string(got) != want {
		t.Fatalf("reply\n got %s\nwant %s", got, want)
	}
	if subs[1].Event != changes.Insert || subs[1].Filter == nil || subs[1].Table != "" {
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
