package wsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/realtime/internal/phx"
)

func joinFrame(ref, topic, config string) string {
	return fmt.Sprintf(`[%q,%q,%q,"phx_join",{"config":%s,"access_token":%q}]`, ref, ref, topic, config, devkeys.AnonKey)
}

// expect reads frames until one satisfies ok (skipping others), or fails.
func expect(t *testing.T, c *websocket.Conn, what string, ok func(f []any) bool) []any {
	t.Helper()
	for i := 0; i < 50; i++ {
		f, _ := receive(t, c).([]any)
		if len(f) == 5 && ok(f) {
			return f
		}
	}
	t.Fatalf("no frame: %s", what)
	return nil
}

func event(name string) func(f []any) bool { return func(f []any) bool { return f[3] == name } }

func TestJoinBroadcastPresenceAndLimits(t *testing.T) {
	t.Parallel()
	srv := newServer(t, Options{Limits: Limits{MaxChannels: 2, MaxEventsPerSecond: 5}})
	a := dial(t, srv.URL, "?vsn=2.0.0")
	b := dial(t, srv.URL, "?vsn=2.0.0")
	send(t, a, joinFrame("1", "realtime:room", `{"broadcast":{"self":true,"ack":true},"presence":{"key":"alice","enabled":true}}`))
	reply := expect(t, a, "join reply", event("phx_reply"))
	if got, _ := json.Marshal(reply[4]); string(got) != `{"response":{"postgres_changes":[]},"status":"ok"}` {
		t.Fatalf("join reply = %s", got)
	}
	expect(t, a, "presence_state", event("presence_state"))
	send(t, b, joinFrame("1", "realtime:room", `{}`))
	expect(t, b, "join reply", event("phx_reply"))

	// JSON broadcast with ack and self.
	send(t, a, `["1","2","realtime:room","broadcast",{"type":"broadcast","event":"e","payload":{"n":1}}]`)
	expect(t, a, "self echo", event("broadcast"))
	ack := expect(t, a, "ack", event("phx_reply"))
	if ack[1] != "2" {
		t.Fatalf("ack = %v", ack)
	}
	got := expect(t, b, "broadcast", event("broadcast"))
	if p, _ := json.Marshal(got[4]); string(p) != `{"event":"e","payload":{"n":1},"type":"broadcast"}` || got[0] != nil {
		t.Fatalf("broadcast = %v", got)
	}

	// Binary (kind 3) push with a binary payload reaches b as kind 4.
	frame, _ := phx.EncodeUserBroadcastPush(phx.UserBroadcastPush{JoinRef: ref("1"), Ref: ref("3"), Topic: "realtime:room", Event: "bin", Encoding: phx.EncodingBinary, Payload: []byte{1, 2, 3}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Write(ctx, websocket.MessageBinary, frame); err != nil {
		t.Fatal(err)
	}
	typ, data, err := b.Read(ctx)
	if err != nil || typ != websocket.MessageBinary {
		t.Fatalf("read binary: %v %v", typ, err)
	}
	want, _ := phx.EncodeUserBroadcast("realtime:room", "bin", nil, phx.EncodingBinary, []byte{1, 2, 3})
	if string(data) != string(want) {
		t.Fatalf("kind 4 frame = %v, want %v", data, want)
	}
	if typ, data, err := a.Read(ctx); err != nil || typ != websocket.MessageBinary || string(data) != string(want) {
		t.Fatalf("self echo of the binary broadcast: %v %v", typ, err)
	}

	// Presence track: reply ok and a diff to everyone.
	send(t, a, `["1","4","realtime:room","presence",{"type":"presence","event":"track","payload":{"online":true}}]`)
	expect(t, a, "track reply", func(f []any) bool { return f[3] == "phx_reply" && f[1] == "4" })
	diff := expect(t, b, "presence_diff", event("presence_diff"))
	if p, _ := json.Marshal(diff[4]); !strings.Contains(string(p), `"alice":{"metas":[{"online":true,"phx_ref":`) {
		t.Fatalf("diff = %s", p)
	}

	// Channel limit: a third channel is refused.
	send(t, a, joinFrame("5", "realtime:two", `{}`))
	expect(t, a, "second join", func(f []any) bool { return f[3] == "phx_reply" && f[1] == "5" })
	send(t, a, joinFrame("6", "realtime:three", `{}`))
	r := expect(t, a, "third join", func(f []any) bool { return f[3] == "phx_reply" && f[1] == "6" })
	if p, _ := json.Marshal(r[4]); string(p) != `{"response":{"reason":"ChannelRateLimitReached: Too many channels"},"status":"error"}` {
		t.Fatalf("limit reply = %s", p)
	}

	// Leaving untracks: b sees the leave.
	send(t, a, `["1","7","realtime:room","phx_leave",{}]`)
	leave := expect(t, b, "leave diff", event("presence_diff"))
	if p, _ := json.Marshal(leave[4]); !strings.Contains(string(p), `"leaves":{"alice"`) {
		t.Fatalf("leave diff = %s", p)
	}

	// Message rate: b floods and is shut down with Supabase's message.
	for i := 0; i < 30; i++ {
		send(t, b, `["1","9","realtime:room","broadcast",{"type":"broadcast","event":"e","payload":{}}]`)
	}
	sys := expect(t, b, "rate system message", event("system"))
	if p, _ := json.Marshal(sys[4]); string(p) != `{"channel":"room","extension":"system","message":"Too many messages per second","status":"error"}` {
		t.Fatalf("system = %s", p)
	}
	expect(t, b, "phx_close", event("phx_close"))
}

func TestPostgresChangesNeedADatabase(t *testing.T) {
	t.Parallel()
	srv := newServer(t, Options{})
	c := dial(t, srv.URL, "?vsn=2.0.0")
	send(t, c, joinFrame("1", "realtime:db", `{"postgres_changes":[{"event":"*","schema":"public","table":"t"}]}`))
	r := expect(t, c, "reply", event("phx_reply"))
	if p, _ := json.Marshal(r[4]); string(p) != `{"response":{"reason":"Realtime was unable to connect to the project database"},"status":"error"}` {
		t.Fatalf("reply = %s", p)
	}
}

// A client that stops reading is disconnected with 1013 once its queue
// fills, while another subscriber of the same topic keeps receiving
// everything without delay.
func TestSlowConsumerIsDisconnected(t *testing.T) {
	t.Parallel()
	// The queue is small next to the traffic (400 x 32 KiB), but large
	// enough that a reader that keeps reading (even under -race on a busy
	// machine) never falls that far behind.
	srv := newServer(t, Options{Limits: Limits{QueueSize: 64, MaxEventsPerSecond: 100000}})
	slow := dial(t, srv.URL, "?vsn=2.0.0")
	fast := dial(t, srv.URL, "?vsn=2.0.0")
	sender := dial(t, srv.URL, "?vsn=2.0.0")
	for _, c := range []*websocket.Conn{slow, fast, sender} {
		send(t, c, joinFrame("1", "realtime:firehose", `{}`))
		expect(t, c, "join", event("phx_reply"))
	}
	fast.SetReadLimit(1 << 22)
	const n = 400
	payload := strings.Repeat("x", 32<<10) // 12.5 MiB overflows the kernel buffers and the queue
	received := make(chan int, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		count := 0
		for count < n {
			_, _, err := fast.Read(ctx)
			if err != nil {
				t.Logf("fast consumer: %v", err)
				break
			}
			count++
		}
		received <- count
	}()
	for i := 0; i < n; i++ {
		send(t, sender, fmt.Sprintf(`["1","%d","realtime:firehose","broadcast",{"type":"broadcast","event":"e","payload":{"s":%q}}]`, i, payload))
	}
	select {
	case got := <-received:
		if got != n {
			t.Fatalf("fast consumer got %d of %d", got, n)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("fast consumer was held up")
	}
	// The slow one finds its socket closed after the queued frames: with
	// 1013 when the close frame fits its (full) TCP buffer, else by EOF.
	slow.SetReadLimit(1 << 22)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, _, err := slow.Read(ctx)
		if err != nil {
			if code := websocket.CloseStatus(err); code != websocket.StatusTryAgainLater && (code != -1 || ctx.Err() != nil) {
				t.Fatalf("slow consumer: %v, want it disconnected", err)
			}
			return
		}
	}
}

func ref(s string) *string { return &s }
