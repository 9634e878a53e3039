package phx

import (
	"bytes"
	"testing"
)

func TestUserBroadcastPushRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   UserBroadcastPush
	}{
		{"json", UserBroadcastPush{JoinRef: ref("1"), Ref: ref("2"), Topic: "realtime:room", Event: "cursor", Encoding: EncodingJSON, Payload: []byte(`{"x":1}`)}},
		{"binary with meta", UserBroadcastPush{JoinRef: ref("1"), Topic: "realtime:ü", Event: "e", Metadata: []byte(`{"persist":true}`), Encoding: EncodingBinary, Payload: []byte{0, 1, 2}}},
		{"empty", UserBroadcastPush{Topic: "t", Event: "e", Encoding: EncodingJSON}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := EncodeUserBroadcastPush(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeUserBroadcastPush(b)
			if err != nil {
				t.Fatal(err)
			}
			if got.Topic != tt.in.Topic || got.Event != tt.in.Event || got.Encoding != tt.in.Encoding ||
				!bytes.Equal(got.Payload, tt.in.Payload) || !bytes.Equal(got.Metadata, tt.in.Metadata) ||
				(got.JoinRef == nil) != (tt.in.JoinRef == nil) || (got.Ref == nil) != (tt.in.Ref == nil) {
				t.Fatalf("round trip: got %+v want %+v", got, tt.in)
			}
		})
	}
}

func TestDecodeUserBroadcastPushErrors(t *testing.T) {
	t.Parallel()
	for _, b := range [][]byte{nil, {3}, {4, 0, 0, 0, 0, 0, 1}, {3, 9, 0, 0, 0, 0, 1}, {3, 0, 0, 0, 0, 0, 7}, {3, 1, 0, 0, 0, 0, 1, 0xff}} {
		if _, err := DecodeUserBroadcastPush(b); err == nil {
			t.Errorf("%v: want an error", b)
		}
	}
}

func TestEncodeUserBroadcast(t *testing.T) {
	t.Parallel()
	b, err := EncodeUserBroadcast("realtime:room", "e", nil, EncodingJSON, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte{4, 13, 1, 0, 1}, []byte("realtime:roome{}")...)
	if !bytes.Equal(b, want) {
		t.Fatalf("got %v want %v", b, want)
	}
}

func FuzzDecodeUserBroadcastPush(f *testing.F) {
	seed, _ := EncodeUserBroadcastPush(UserBroadcastPush{JoinRef: ref("1"), Ref: ref("2"), Topic: "realtime:room", Event: "e", Encoding: EncodingJSON, Payload: []byte(`{"a":1}`)})
	f.Add(seed)
	f.Add([]byte{3, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 255, 255, 255, 255, 255, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeUserBroadcastPush(data)
		if err != nil {
			return
		}
		b, err := EncodeUserBroadcastPush(m)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		m2, err := DecodeUserBroadcastPush(b)
		if err != nil || m2.Topic != m.Topic || m2.Event != m.Event || !bytes.Equal(m2.Payload, m.Payload) {
			t.Fatalf("round trip changed the frame: %+v vs %+v (%v)", m, m2, err)
		}
	})
}

func TestEncodeEscapesStrings(t *testing.T) {
	t.Parallel()
	for _, topic := range []string{"realtime:room", "realtime:ü\"<x>\\\n", ""} {
		b, err := Encode(V2, Message{Topic: topic, Event: "e", Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(V2, b)
		if err != nil || m.Topic != topic {
			t.Fatalf("%q: round trip = %q, %v (%s)", topic, m.Topic, err, b)
		}
	}
}
