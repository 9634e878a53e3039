package phx

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func ref(s string) *string { return &s }

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		vsn     string
		want    Version
		wantErr bool
	}{
		{"", V1, false},
		{"1.0.0", V1, false},
		{"1.0.7", V1, false},
		{"2.0.0", V2, false},
		{"2.0.12", V2, false},
		{"2.1.0", 0, true},
		{"3.0.0", 0, true},
		{"2", 0, true},
		{"2.0", 0, true},
		{"2.0.x", 0, true},
		{"02.0.0", 0, true},
		{"2.0.-1", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.vsn, func(t *testing.T) {
			t.Parallel()
			got, err := ParseVersion(tt.vsn)
			if got != tt.want || (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrVersion)) {
				t.Errorf("ParseVersion(%q) = %v, %v; want %v, error %v", tt.vsn, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		v       Version
		frame   string
		want    Message
		wantErr bool
	}{
		{
			name: "v2 heartbeat", v: V2, frame: `[null,"7","phoenix","heartbeat",{}]`,
			want: Message{Ref: ref("7"), Topic: "phoenix", Event: "heartbeat", Payload: json.RawMessage(`{}`)},
		},
		{
			name: "v2 join", v: V2, frame: ` ["1", "1", "realtime:room", "phx_join", {"config": {"private": false}}] `,
			want: Message{JoinRef: ref("1"), Ref: ref("1"), Topic: "realtime:room", Event: "phx_join", Payload: json.RawMessage(`{"config": {"private": false}}`)},
		},
		{
			name: "v1 join", v: V1, frame: `{"topic":"realtime:room","event":"phx_join","payload":{},"ref":"3","join_ref":"3"}`,
			want: Message{JoinRef: ref("3"), Ref: ref("3"), Topic: "realtime:room", Event: "phx_join", Payload: json.RawMessage(`{}`)},
		},
		{
			name: "v1 without join_ref", v: V1, frame: `{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"9"}`,
			want: Message{Ref: ref("9"), Topic: "phoenix", Event: "heartbeat", Payload: json.RawMessage(`{}`)},
		},
		{name: "v2 with four elements", v: V2, frame: `[null,"1","phoenix","heartbeat"]`, wantErr: true},
		{name: "v2 with six elements", v: V2, frame: `[null,"1","phoenix","heartbeat",{},1]`, wantErr: true},
		{name: "v2 numeric ref", v: V2, frame: `[null,7,"phoenix","heartbeat",{}]`, wantErr: true},
		{name: "v2 null topic", v: V2, frame: `[null,"7",null,"heartbeat",{}]`, wantErr: true},
		{name: "v2 numeric event", v: V2, frame: `[null,"7","phoenix",1,{}]`, wantErr: true},
		{name: "v2 object frame", v: V2, frame: `{"topic":"phoenix"}`, wantErr: true},
		{name: "v1 array frame", v: V1, frame: `[null,"7","phoenix","heartbeat",{}]`, wantErr: true},
		{name: "v1 without payload", v: V1, frame: `{"topic":"phoenix","event":"heartbeat","ref":"1"}`, wantErr: true},
		{name: "v1 null", v: V1, frame: `null`, wantErr: true},
		{name: "not json", v: V2, frame: `heartbeat`, wantErr: true},
		{name: "unknown version", v: 3, frame: `[]`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode(tt.v, []byte(tt.frame))
			if tt.wantErr {
				if err == nil || (tt.v != 3 && !errors.Is(err, ErrFrame)) {
					t.Fatalf("Decode = %+v, %v; want an ErrFrame", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode = %s\nwant     %s", show(got), show(tt.want))
			}
		})
	}
}

func show(m Message) string {
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	return s(m.JoinRef) + " " + s(m.Ref) + " " + m.Topic + " " + m.Event + " " + string(m.Payload)
}

func TestEncodeReply(t *testing.T) {
	t.Parallel()
	join := Message{JoinRef: ref("1"), Ref: ref("2"), Topic: "realtime:room", Event: EventJoin}
	heartbeat := Message{Ref: ref("7"), Topic: TopicPhoenix, Event: EventHeartbeat}
	tests := []struct {
		name     string
		v        Version
		req      Message
		status   string
		response any
		want     string
	}{
		{"v2 heartbeat reply", V2, heartbeat, "ok", nil, `[null,"7","phoenix","phx_reply",{"status":"ok","response":{}}]`},
		{"v2 join error", V2, join, "error", map[string]string{"reason": "no"}, `["1","2","realtime:room","phx_reply",{"status":"error","response":{"reason":"no"}}]`},
		{"v1 join error has no join_ref", V1, join, "error", map[string]string{"reason": "no"}, `{"topic":"realtime:room","event":"phx_reply","payload":{"status":"error","response":{"reason":"no"}},"ref":"2"}`},
		{"v1 heartbeat reply", V1, heartbeat, "ok", nil, `{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"7"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := Reply(tt.req, tt.status, tt.response)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Encode(tt.v, m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("Encode = %s\nwant     %s", b, tt.want)
			}
		})
	}
}

func TestEncodeNilPayloadAndBadVersion(t *testing.T) {
	t.Parallel()
	b, err := Encode(V2, Message{Topic: "t", Event: "e"})
	if err != nil || string(b) != `[null,null,"t","e",{}]` {
		t.Errorf("Encode = %s, %v", b, err)
	}
	if _, err := Encode(0, Message{}); err == nil {
		t.Error("Encode with version 0 succeeded")
	}
}

// FuzzDecode feeds untrusted frames to both decoders: they must never
// panic, and whatever they accept must survive an encode/decode round trip.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		`[null,"7","phoenix","heartbeat",{}]`,
		`["1","1","realtime:room","phx_join",{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":""},"postgres_changes":[{"event":"*","schema":"public","table":"properties"}],"private":false},"access_token":"eyJ"}]`,
		`["1","3","realtime:room","access_token",{"access_token":"x"}]`,
		`["1","4","realtime:room","broadcast",{"type":"broadcast","event":"e","payload":{"n":1e400}}]`,
		`["1","5","realtime:room","phx_leave",{}]`,
		`{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"1"}`,
		`{"topic":"realtime:room","event":"phx_join","payload":{"config":{}},"ref":"2","join_ref":"2"}`,
		`{"topic":"a","event":"b","payload":null,"ref":null,"join_ref":null}`,
		`[null,null,"\u0000<>&\ud800","e",[1,"two",null,true]]`,
		`{"topic":"t","topic":"u","event":"e","payload":"p"}`,
		`[1,2,3,4,5]`,
		`[]`,
		`{}`,
		`null`,
		``,
		"\xff\xfe",
		`[null,"1","phoenix","heartbeat",{"a":[[[[[[[[[[]]]]]]]]]]}]`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []Version{V1, V2} {
			m, err := Decode(v, data)
			if err != nil {
				continue
			}
			b, err := Encode(v, m)
			if err != nil {
				t.Fatalf("v%d: decoded %q but cannot encode it: %v", v, data, err)
			}
			m2, err := Decode(v, b)
			if err != nil {
				t.Fatalf("v%d: cannot decode own encoding %s of %q: %v", v, b, data, err)
			}
			if v == V1 {
				m.JoinRef = nil // the V1 serializer does not send join_ref
			}
			if !sameRef(m.JoinRef, m2.JoinRef) || !sameRef(m.Ref, m2.Ref) || m.Topic != m2.Topic || m.Event != m2.Event {
				t.Fatalf("v%d: round trip of %q changed the frame: %s -> %s", v, data, show(m), show(m2))
			}
			p1, err := decodeAny(m.Payload)
			if err != nil {
				t.Fatalf("v%d: payload %s is not JSON: %v", v, m.Payload, err)
			}
			if p2, err := decodeAny(m2.Payload); err != nil || !reflect.DeepEqual(p1, p2) {
				t.Fatalf("v%d: payload changed: %s -> %s", v, m.Payload, m2.Payload)
			}
		}
	})
}

// decodeAny decodes JSON keeping numbers as text, so 1e400 compares too.
func decodeAny(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func sameRef(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
