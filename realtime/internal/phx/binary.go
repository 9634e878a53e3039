package phx

import (
	"fmt"
	"unicode/utf8"
)

// Binary frame kinds of the 2.0.0 serializer used for user broadcasts.
const (
	KindUserBroadcastPush byte = 3 // client → server
	KindUserBroadcast     byte = 4 // server → client
)

// Payload encodings of a binary user broadcast.
const (
	EncodingBinary byte = 0
	EncodingJSON   byte = 1
)

// UserBroadcastPush is a decoded kind-3 frame: a client's broadcast push
// whose user payload is either JSON text or raw bytes.
type UserBroadcastPush struct {
	JoinRef  *string
	Ref      *string
	Topic    string
	Event    string // the user event
	Metadata []byte // JSON object or empty
	Encoding byte
	Payload  []byte
}

// DecodeUserBroadcastPush parses a kind-3 binary frame:
//
//	kind:u8=3 join_ref_len:u8 ref_len:u8 topic_len:u8 event_len:u8
//	meta_len:u8 encoding:u8 join_ref ref topic event meta payload
func DecodeUserBroadcastPush(data []byte) (UserBroadcastPush, error) {
	const header = 7
	if len(data) < header || data[0] != KindUserBroadcastPush {
		return UserBroadcastPush{}, fmt.Errorf("%w: not a user broadcast push", ErrFrame)
	}
	sizes := []int{int(data[1]), int(data[2]), int(data[3]), int(data[4]), int(data[5])}
	enc := data[6]
	if enc != EncodingBinary && enc != EncodingJSON {
		return UserBroadcastPush{}, fmt.Errorf("%w: payload encoding %d", ErrFrame, enc)
	}
	off := header
	fields := make([][]byte, len(sizes))
	for i, n := range sizes {
		if off+n > len(data) {
			return UserBroadcastPush{}, fmt.Errorf("%w: truncated binary frame", ErrFrame)
		}
		fields[i] = data[off : off+n]
		off += n
	}
	for _, f := range fields {
		if !utf8.Valid(f) {
			return UserBroadcastPush{}, fmt.Errorf("%w: header field is not UTF-8", ErrFrame)
		}
	}
	m := UserBroadcastPush{
		Topic:    string(fields[2]),
		Event:    string(fields[3]),
		Metadata: append([]byte(nil), fields[4]...),
		Encoding: enc,
		Payload:  append([]byte(nil), data[off:]...),
	}
	if len(fields[0]) > 0 {
		s := string(fields[0])
		m.JoinRef = &s
	}
	if len(fields[1]) > 0 {
		s := string(fields[1])
		m.Ref = &s
	}
	return m, nil
}

// EncodeUserBroadcastPush is the inverse of DecodeUserBroadcastPush (for
// tests and benchmarks acting as clients).
func EncodeUserBroadcastPush(m UserBroadcastPush) ([]byte, error) {
	jr, ref := "", ""
	if m.JoinRef != nil {
		jr = *m.JoinRef
	}
	if m.Ref != nil {
		ref = *m.Ref
	}
	parts := [][]byte{[]byte(jr), []byte(ref), []byte(m.Topic), []byte(m.Event), m.Metadata}
	out := []byte{KindUserBroadcastPush}
	for _, p := range parts {
		if len(p) > 255 {
			return nil, fmt.Errorf("encode user broadcast push: field longer than 255 bytes")
		}
		out = append(out, byte(len(p)))
	}
	out = append(out, m.Encoding)
	for _, p := range parts {
		out = append(out, p...)
	}
	return append(out, m.Payload...), nil
}

// EncodeUserBroadcast builds a kind-4 frame for a server broadcast:
//
//	kind:u8=4 topic_len:u8 event_len:u8 meta_len:u8 encoding:u8 topic event meta payload
func EncodeUserBroadcast(topic, event string, meta []byte, encoding byte, payload []byte) ([]byte, error) {
	if len(topic) > 255 || len(event) > 255 || len(meta) > 255 {
		return nil, fmt.Errorf("encode user broadcast: field longer than 255 bytes")
	}
	out := make([]byte, 0, 5+len(topic)+len(event)+len(meta)+len(payload))
	out = append(out, KindUserBroadcast, byte(len(topic)), byte(len(event)), byte(len(meta)), encoding)
	out = append(out, topic...)
	out = append(out, event...)
	out = append(out, meta...)
	return append(out, payload...), nil
}
