// Package phx encodes and decodes Phoenix channel frames, the protocol
// Supabase Realtime speaks over its websocket (Phoenix.Socket.V1 and V2
// JSON serializers; @supabase/phoenix on the client).
//
// Version 2.0.0 frames are JSON arrays [join_ref, ref, topic, event,
// payload]; version 1.0.0 frames are objects {"topic", "event", "payload",
// "ref", "join_ref"}. The client picks one with the socket's vsn query
// parameter; Phoenix assumes 1.0.0 when it is absent, and supabase-js sends
// 2.0.0.
package phx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a serializer version.
type Version int

// The two serializers.
const (
	V1 Version = 1 // vsn 1.0.x: JSON objects
	V2 Version = 2 // vsn 2.0.x: JSON arrays
)

// ErrVersion is returned for a vsn neither serializer accepts.
var ErrVersion = errors.New("unsupported vsn")

// ParseVersion maps the vsn query parameter onto a serializer: "" and
// 1.0.x are V1, 2.0.x is V2 (Phoenix's "~> 1.0.0" and "~> 2.0.0").
func ParseVersion(vsn string) (Version, error) {
	if vsn == "" {
		return V1, nil
	}
	parts := strings.Split(vsn, ".")
	if len(parts) != 3 {
		return 0, fmt.Errorf("%w %q", ErrVersion, vsn)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p == "" || (len(p) > 1 && p[0] == '0') {
			return 0, fmt.Errorf("%w %q", ErrVersion, vsn)
		}
		n[i] = v
	}
	switch {
	case n[0] == 1 && n[1] == 0:
		return V1, nil
	case n[0] == 2 && n[1] == 0:
		return V2, nil
	}
	return 0, fmt.Errorf("%w %q", ErrVersion, vsn)
}

// Event names and the socket-level topic.
const (
	TopicPhoenix   = "phoenix"
	EventHeartbeat = "heartbeat"
	EventJoin      = "phx_join"
	EventLeave     = "phx_leave"
	EventReply     = "phx_reply"
	EventClose     = "phx_close"
	EventError     = "phx_error"
)

// Message is one frame. JoinRef and Ref are nil for JSON null; the client
// matches replies to its pushes by them, so replies echo them verbatim.
type Message struct {
	JoinRef *string
	Ref     *string
	Topic   string
	Event   string
	Payload json.RawMessage
}

// ErrFrame is wrapped by every decoding error.
var ErrFrame = errors.New("malformed phoenix frame")

// Decode parses one text frame in version v's format.
func Decode(v Version, data []byte) (Message, error) {
	switch v {
	case V1:
		return decodeV1(data)
	case V2:
		return decodeV2(data)
	}
	return Message{}, fmt.Errorf("%w: unknown version %d", ErrFrame, v)
}

func decodeV2(data []byte) (Message, error) {
	var fields []json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return Message{}, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	if len(fields) != 5 {
		return Message{}, fmt.Errorf("%w: want 5 elements, got %d", ErrFrame, len(fields))
	}
	var m Message
	if err := decodeFields(&m, fields[0], fields[1], fields[2], fields[3], fields[4]); err != nil {
		return Message{}, err
	}
	return m, nil
}

func decodeV1(data []byte) (Message, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Message{}, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	if raw == nil {
		return Message{}, fmt.Errorf("%w: not an object", ErrFrame)
	}
	for _, name := range []string{"topic", "event", "payload"} {
		if raw[name] == nil {
			return Message{}, fmt.Errorf("%w: no %q", ErrFrame, name)
		}
	}
	var m Message
	if err := decodeFields(&m, raw["join_ref"], raw["ref"], raw["topic"], raw["event"], raw["payload"]); err != nil {
		return Message{}, err
	}
	return m, nil
}

// decodeFields fills m from the five raw fields; an absent (nil) ref is
// null.
func decodeFields(m *Message, joinRef, ref, topic, event, payload json.RawMessage) error {
	var err error
	if m.JoinRef, err = decodeRef("join_ref", joinRef); err != nil {
		return err
	}
	if m.Ref, err = decodeRef("ref", ref); err != nil {
		return err
	}
	if err := json.Unmarshal(topic, &m.Topic); err != nil || isNull(topic) {
		return fmt.Errorf("%w: topic must be a string", ErrFrame)
	}
	if err := json.Unmarshal(event, &m.Event); err != nil || isNull(event) {
		return fmt.Errorf("%w: event must be a string", ErrFrame)
	}
	m.Payload = append(json.RawMessage(nil), bytes.TrimSpace(payload)...)
	return nil
}

func decodeRef(name string, raw json.RawMessage) (*string, error) {
	if raw == nil || isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%w: %s must be a string or null", ErrFrame, name)
	}
	return &s, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// Encode writes m as one text frame in version v's format. A nil Payload is
// sent as {}. Version 1 frames carry no join_ref, as Phoenix's V1
// serializer writes them. Payload must be valid JSON; it is copied as is
// (the server only sends payloads it built or decoded), which keeps
// fan-out to many sockets cheap.
func Encode(v Version, m Message) ([]byte, error) {
	payload := bytes.TrimSpace(m.Payload)
	if len(payload) == 0 {
		payload = []byte("{}")
	}
	buf := make([]byte, 0, len(payload)+len(m.Topic)+len(m.Event)+64)
	switch v {
	case V1:
		buf = append(buf, `{"topic":`...)
		buf = appendString(buf, m.Topic)
		buf = append(buf, `,"event":`...)
		buf = appendString(buf, m.Event)
		buf = append(buf, `,"payload":`...)
		buf = append(buf, payload...)
		buf = append(buf, `,"ref":`...)
		buf = appendRef(buf, m.Ref)
		buf = append(buf, '}')
	case V2:
		buf = append(buf, '[')
		buf = appendRef(buf, m.JoinRef)
		buf = append(buf, ',')
		buf = appendRef(buf, m.Ref)
		buf = append(buf, ',')
		buf = appendString(buf, m.Topic)
		buf = append(buf, ',')
		buf = appendString(buf, m.Event)
		buf = append(buf, ',')
		buf = append(buf, payload...)
		buf = append(buf, ']')
	default:
		return nil, fmt.Errorf("encode: unknown version %d", v)
	}
	return buf, nil
}

func appendRef(buf []byte, ref *string) []byte {
	if ref == nil {
		return append(buf, "null"...)
	}
	return appendString(buf, *ref)
}

func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // strings always marshal
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// Reply builds the phx_reply answering req with status ("ok" or "error")
// and response, echoing req's topic and refs.
func Reply(req Message, status string, response any) (Message, error) {
	if response == nil {
		response = struct{}{}
	}
	p, err := json.Marshal(struct {
		Status   string `json:"status"`
		Response any    `json:"response"`
	}{status, response})
	if err != nil {
		return Message{}, fmt.Errorf("encode %s reply: %w", req.Event, err)
	}
	return Message{JoinRef: req.JoinRef, Ref: req.Ref, Topic: req.Topic, Event: EventReply, Payload: p}, nil
}
