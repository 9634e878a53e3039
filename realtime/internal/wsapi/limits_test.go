package wsapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/platform/devkeys"
)

// TestPayloadLimits checks MAX_PAYLOAD_SIZE_IN_KB on every way in: a socket
// broadcast over the limit is refused (with Supabase's reason when acked)
// and reaches nobody, an oversized presence track closes the channel with
// its system message, and the REST endpoints answer 413.
func TestPayloadLimits(t *testing.T) {
	t.Parallel()
	const limit = 64
	srv := newServer(t, Options{Limits: Limits{MaxPayloadBytes: limit}})
	a := dial(t, srv.URL, "?vsn=2.0.0")
	b := dial(t, srv.URL, "?vsn=2.0.0")
	send(t, a, joinFrame("1", "realtime:big", `{"broadcast":{"ack":true},"presence":{"key":"a","enabled":true}}`))
	expect(t, a, "join reply", event("phx_reply"))
	send(t, b, joinFrame("1", "realtime:big", `{}`))
	expect(t, b, "join reply", event("phx_reply"))

	big := `"` + strings.Repeat("x", limit) + `"`
	send(t, a, `["1","2","realtime:big","broadcast",{"type":"broadcast","event":"e","payload":{"s":`+big+`}}]`)
	r := expect(t, a, "refusal", func(f []any) bool { return f[3] == "phx_reply" && f[1] == "2" })
	if p, _ := json.Marshal(r[4]); string(p) != `{"response":{"reason":"Payload size exceeded"},"status":"error"}` {
		t.Fatalf("oversized broadcast reply = %s", p)
	}
	// A small one after it is delivered, and is the first thing b sees.
	send(t, a, `["1","3","realtime:big","broadcast",{"type":"broadcast","event":"e","payload":{"n":1}}]`)
	expect(t, a, "ack", func(f []any) bool { return f[3] == "phx_reply" && f[1] == "3" })
	got := expect(t, b, "small broadcast", event("broadcast"))
	if p, _ := json.Marshal(got[4]); string(p) != `{"event":"e","payload":{"n":1},"type":"broadcast"}` {
		t.Fatalf("b received %s first; the oversized broadcast leaked", p)
	}

	// Presence: an oversized track closes the channel.
	send(t, a, `["1","4","realtime:big","presence",{"type":"presence","event":"track","payload":{"s":`+big+`}}]`)
	sys := expect(t, a, "system message", event("system"))
	if p, _ := json.Marshal(sys[4]); string(p) != `{"channel":"big","extension":"system","message":"Track message size exceeded","status":"error"}` {
		t.Fatalf("system = %s", p)
	}
	expect(t, a, "phx_close", event("phx_close"))

	post := func(path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+devkeys.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	tests := []struct {
		name, path, body string
		status           int
		resp             string
	}{
		{"messages over the limit", "/api/broadcast", `{"messages":[{"topic":"big","event":"e","payload":{"s":` + big + `}}]}`, 413, `{"message":"Payload size exceeded"}`},
		{"messages within the limit", "/api/broadcast", `{"messages":[{"topic":"big","event":"e","payload":{"n":2}}]}`, 202, ``},
		{"event body over the limit", "/api/broadcast/big/events/e", big, 413, `{"message":"Payload size exceeded"}`},
		{"event body within the limit", "/api/broadcast/big/events/e", `{"n":3}`, 202, ``},
	}
	for _, tc := range tests {
		if status, body := post(tc.path, tc.body); status != tc.status || body != tc.resp {
			t.Errorf("%s: %d %s, want %d %s", tc.name, status, body, tc.status, tc.resp)
		}
	}
	// Only the two accepted REST messages reach b, in order.
	for _, want := range []string{`{"n":2}`, `{"n":3}`} {
		f := expect(t, b, "REST broadcast", event("broadcast"))
		m, _ := f[4].(map[string]any)
		if p, _ := json.Marshal(m["payload"]); string(p) != want {
			t.Fatalf("REST broadcast payload %s, want %s", p, want)
		}
	}
}
