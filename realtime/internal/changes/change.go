// Package changes delivers row changes of the supabase_realtime publication
// to postgres_changes subscribers: it parses the capture trigger's NOTIFY
// payloads, matches them against subscriptions (schema, table, event,
// filter), re-reads each changed row under every distinct subscriber role
// and claims (one batched round trip per change) and hands each subscriber
// the Supabase payload {"ids": […], "data": {…}}.
package changes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/kejanest/kejanest/realtime/internal/auth"
)

// NotifyChannel is the LISTEN channel the capture trigger notifies.
const NotifyChannel = "realtime_changes"

// Change types.
const (
	Insert = "INSERT"
	Update = "UPDATE"
	Delete = "DELETE"
)

// Change is one captured row change, as realtime.capture_change() sends it.
type Change struct {
	Schema string `json:"s"`
	Table  string `json:"t"`
	Type   string `json:"op"`
	// PK holds the primary key values of the row (new row for INSERT and
	// UPDATE, old row for DELETE); empty for a table without one.
	PK map[string]json.RawMessage `json:"pk"`
	// Old is the old row's key (or whole row with REPLICA IDENTITY FULL)
	// for UPDATE and DELETE.
	Old map[string]json.RawMessage `json:"old"`
	// CommitTimestamp is the transaction timestamp, UTC, millisecond
	// precision, as Supabase formats it.
	CommitTimestamp string `json:"ts"`
	// Big is set when the keys did not fit a NOTIFY payload.
	Big bool `json:"big"`
}

// ErrChange wraps every payload parse error.
var ErrChange = errors.New("invalid change notification")

// ParseChange decodes a NOTIFY payload.
func ParseChange(payload []byte) (Change, error) {
	var c Change
	if err := json.Unmarshal(payload, &c); err != nil {
		return Change{}, fmt.Errorf("%w: %v", ErrChange, err)
	}
	switch c.Type {
	case Insert, Update, Delete:
	default:
		return Change{}, fmt.Errorf("%w: operation %q", ErrChange, c.Type)
	}
	if c.Schema == "" || c.Table == "" {
		return Change{}, fmt.Errorf("%w: no schema or table", ErrChange)
	}
	return c, nil
}

// Subscription is one postgres_changes binding of a channel.
type Subscription struct {
	// ID is what the join reply and change messages carry.
	ID uint32
	// Event is "*", INSERT, UPDATE or DELETE.
	Event string
	// Schema is required; Table "" or "*" means every table in it.
	Schema string
	Table  string
	// Filter is nil for none.
	Filter *Filter
	// Select lists the columns the subscriber asked for (Supabase's
	// "select"); nil means every column it may read.
	Select []string
}

// SubscriptionID derives a binding's id from its parameters, so equal
// bindings get equal ids, as Supabase's :erlang.phash2(params) does. It
// fits in 27 bits, like phash2's default range.
func SubscriptionID(event, schema, table, filter string, selected ...string) uint32 {
	h := fnv.New32a()
	for _, s := range []string{event, schema, table, filter} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	// A selection makes a different binding (and message); without one
	// the id is what it always was.
	for _, s := range selected {
		h.Write([]byte{1})
		h.Write([]byte(s))
	}
	return h.Sum32() & (1<<27 - 1)
}

// Matches reports whether c is of the subscription's schema, table and
// event; filters are checked against the row later.
func (s *Subscription) Matches(c *Change) bool {
	if s.Schema != "*" && s.Schema != c.Schema {
		return false
	}
	if s.Table != "" && s.Table != "*" && s.Table != c.Table {
		return false
	}
	return s.Event == "*" || s.Event == c.Type
}

// Subscriber is a joined channel with postgres_changes bindings.
type Subscriber interface {
	// Claims are the channel's current role and claims.
	Claims() *auth.Claims
	// Subscriptions are its active bindings.
	Subscriptions() []Subscription
	// DeliverChange queues one postgres_changes payload; it must not block.
	DeliverChange(payload json.RawMessage)
	// DeliverSystem queues a system message about the postgres_changes
	// extension (status "error" for gaps); it must not block.
	DeliverSystem(status, message string)
}

// Column is one column of a change's "columns" list.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Data is a change message's "data" object.
type Data struct {
	Schema          string                     `json:"schema"`
	Table           string                     `json:"table"`
	CommitTimestamp string                     `json:"commit_timestamp"`
	Type            string                     `json:"type"`
	Columns         []Column                   `json:"columns"`
	Record          map[string]json.RawMessage `json:"record,omitempty"`
	OldRecord       map[string]json.RawMessage `json:"old_record,omitempty"`
	Errors          []string                   `json:"errors"`
}

// encodeRecord writes a record in column order (map iteration is random).
func encodeRecord(buf *bytes.Buffer, cols []Column, rec map[string]json.RawMessage) {
	buf.WriteByte('{')
	first := true
	for _, c := range cols {
		v, ok := rec[c.Name]
		if !ok {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(c.Name)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
}

// Encode renders d as Supabase's data object, with record keys in column
// order; record is present for INSERT/UPDATE, old_record for
// UPDATE/DELETE (when known).
func (d *Data) Encode() json.RawMessage {
	var buf bytes.Buffer
	str := func(s string) []byte { b, _ := json.Marshal(s); return b }
	buf.WriteString(`{"schema":`)
	buf.Write(str(d.Schema))
	buf.WriteString(`,"table":`)
	buf.Write(str(d.Table))
	buf.WriteString(`,"commit_timestamp":`)
	buf.Write(str(d.CommitTimestamp))
	buf.WriteString(`,"type":`)
	buf.Write(str(d.Type))
	buf.WriteString(`,"columns":`)
	cols, _ := json.Marshal(d.Columns)
	if d.Columns == nil {
		cols = []byte("[]")
	}
	buf.Write(cols)
	if d.Type != Delete {
		buf.WriteString(`,"record":`)
		encodeRecord(&buf, d.Columns, d.Record)
	}
	if d.Type != Insert && d.OldRecord != nil {
		buf.WriteString(`,"old_record":`)
		encodeRecord(&buf, d.Columns, d.OldRecord)
	}
	buf.WriteString(`,"errors":`)
	if len(d.Errors) == 0 {
		buf.WriteString("null")
	} else {
		e, _ := json.Marshal(d.Errors)
		buf.Write(e)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// Message wraps data for a subscriber: {"ids": ids, "data": data}.
func Message(ids []uint32, data json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteString(`{"ids":`)
	b, _ := json.Marshal(ids)
	buf.Write(b)
	buf.WriteString(`,"data":`)
	buf.Write(data)
	buf.WriteByte('}')
	return buf.Bytes()
}
