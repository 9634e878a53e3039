// Package broadcast fans user broadcasts out to the channels joined to a
// topic, relays them to the other realtime replicas through Postgres
// NOTIFY (so scaling out needs no new infrastructure), authorizes private
// channels through RLS policies on realtime.messages with realtime.topic(),
// and parses the REST broadcast endpoint's body.
package broadcast

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/channel"
	"github.com/kejanest/kejanest/realtime/internal/phx"
)

// NotifyChannel is the LISTEN channel replicas relay broadcasts on.
const NotifyChannel = "realtime_broadcast"

// maxNotify is the largest relay payload; Postgres refuses 8000 bytes.
const maxNotify = 7900

// Message is one user broadcast.
type Message struct {
	Private bool
	// Topic is the sub-topic (without "realtime:").
	Topic string
	Event string
	// Payload is the JSON payload; Binary holds a binary one instead.
	Payload  json.RawMessage
	Binary   []byte
	IsBinary bool
	// Sender is the sending channel's ID (0 for REST and relayed messages).
	Sender uint64
	// ID is the realtime.messages id of a message sent from the database
	// ("" otherwise); clients get it as meta.id, as from Supabase.
	ID string
}

// Hub delivers broadcasts locally and relays them to other replicas.
type Hub struct {
	Registry *channel.Registry
	Pool     *pgxpool.Pool // nil: no relay (tests)
	Log      *slog.Logger

	origin string
	relay  chan []byte
}

// NewHub returns a Hub; call Run to start relaying.
func NewHub(reg *channel.Registry, pool *pgxpool.Pool, log *slog.Logger) *Hub {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &Hub{Registry: reg, Pool: pool, Log: log, origin: hex.EncodeToString(b), relay: make(chan []byte, 1024)}
}

// Run sends relayed broadcasts until ctx ends.
func (h *Hub) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-h.relay:
			if h.Pool == nil {
				continue
			}
			if _, err := h.Pool.Exec(ctx, "select pg_notify($1, $2)", NotifyChannel, string(p)); err != nil && ctx.Err() == nil {
				h.Log.Warn("relay broadcast", "error", err.Error())
			}
		}
	}
}

type relayed struct {
	Origin  string          `json:"o"`
	Private bool            `json:"p"`
	Topic   string          `json:"t"`
	Event   string          `json:"e"`
	Payload json.RawMessage `json:"d,omitempty"`
	Binary  string          `json:"b,omitempty"`
	IsBin   bool            `json:"bin,omitempty"`
}

// Publish delivers m to this replica's channels and queues it for the
// others. Messages too large for NOTIFY stay on this replica (logged).
func (h *Hub) Publish(m Message) {
	h.Deliver(m)
	if h.Pool == nil {
		return
	}
	r := relayed{Origin: h.origin, Private: m.Private, Topic: m.Topic, Event: m.Event, Payload: m.Payload, IsBin: m.IsBinary}
	if m.IsBinary {
		r.Payload = nil
		r.Binary = base64.StdEncoding.EncodeToString(m.Binary)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	if len(b) > maxNotify {
		h.Log.Warn("broadcast too large to relay to other replicas", "topic", m.Topic, "bytes", len(b))
		return
	}
	select {
	case h.relay <- b:
	default:
		h.Log.Warn("broadcast relay queue full; message not relayed", "topic", m.Topic)
	}
}

// HandleNotify delivers a broadcast relayed by another replica.
func (h *Hub) HandleNotify(payload []byte) {
	var r relayed
	if err := json.Unmarshal(payload, &r); err != nil || r.Origin == h.origin {
		return
	}
	m := Message{Private: r.Private, Topic: r.Topic, Event: r.Event, Payload: r.Payload, IsBinary: r.IsBin}
	if r.IsBin {
		b, err := base64.StdEncoding.DecodeString(r.Binary)
		if err != nil {
			return
		}
		m.Binary = b
	}
	h.Deliver(m)
}

// Deliver sends m to the channels joined to its topic on this replica,
// skipping the sender unless it asked for self.
func (h *Hub) Deliver(m Message) {
	members := h.Registry.Members(channel.TopicKey{Private: m.Private, Name: m.Topic})
	if len(members) == 0 {
		return
	}
	var meta json.RawMessage
	if m.ID != "" {
		meta, _ = json.Marshal(map[string]string{"id": m.ID})
	}
	var text json.RawMessage
	var bin []byte
	for _, c := range members {
		if c.ID == m.Sender && !c.Self {
			continue
		}
		if m.ID != "" && c.Replayed(m.ID) {
			continue
		}
		if m.IsBinary {
			if bin == nil {
				var err error
				bin, err = phx.EncodeUserBroadcast(channel.TopicPrefix+m.Topic, m.Event, meta, phx.EncodingBinary, m.Binary)
				if err != nil {
					return
				}
			}
			c.PushBinary(bin)
			continue
		}
		if text == nil {
			text = PayloadMeta(m.Event, m.Payload, meta)
		}
		c.Push("broadcast", text)
	}
}

// Payload builds {"type":"broadcast","event":…,"payload":…}.
func Payload(event string, payload json.RawMessage) json.RawMessage {
	return PayloadMeta(event, payload, nil)
}

// PayloadMeta is Payload with a "meta" object (omitted when nil).
func PayloadMeta(event string, payload, meta json.RawMessage) json.RawMessage {
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	b, _ := json.Marshal(struct {
		Type    string          `json:"type"`
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
		Meta    json.RawMessage `json:"meta,omitempty"`
	}{"broadcast", event, payload, meta})
	return b
}

// RESTMessage is one message of POST /api/broadcast.
type RESTMessage struct {
	Topic   string          `json:"topic"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Private bool            `json:"private"`
}

// ErrBody is returned for a REST body that does not parse.
var ErrBody = errors.New("invalid broadcast body")

// ParseREST decodes {"messages":[…]}.
func ParseREST(body []byte) ([]RESTMessage, error) {
	var b struct {
		Messages []RESTMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBody, err)
	}
	for i, m := range b.Messages {
		if m.Topic == "" || m.Event == "" {
			return nil, fmt.Errorf("%w: messages[%d] needs topic and event", ErrBody, i)
		}
		b.Messages[i].Topic = channel.SubTopic(m.Topic)
	}
	return b.Messages, nil
}

// Extensions authorized on realtime.messages.
const (
	ExtBroadcast = "broadcast"
	ExtPresence  = "presence"
)

// Authorizer evaluates realtime.messages policies for private channels.
type Authorizer struct {
	Pool *pgxpool.Pool
}

func (a *Authorizer) begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := a.Pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("authorize channel: %w", err)
	}
	return tx, nil
}

// Caller is who asks a private channel's policies: the token's claims and
// the request headers they see as request.headers.
type Caller struct {
	Claims *auth.Claims
	// Headers is a JSON object of header names (lower case) to values;
	// nil reads as {}.
	Headers json.RawMessage
}

// setClaims sets what Supabase Realtime's authorization sets before it
// asks the realtime.messages policies (Authorization.set_conn_config): the
// role, realtime.topic (realtime.topic() reads it), request.jwt.claims and
// request.headers. The legacy per-claim names (request.jwt.claim.sub, …)
// are not among them.
func setClaims(ctx context.Context, tx pgx.Tx, c Caller, topic string) error {
	headers := string(c.Headers)
	if headers == "" {
		headers = "{}"
	}
	_, err := tx.Exec(ctx, `select set_config('role', $1, true), set_config('realtime.topic', $2, true),
	        set_config('request.jwt.claims', $3, true), set_config('request.headers', $4, true)`,
		c.Claims.Role, topic, string(c.Claims.Raw), headers)
	return err
}

// CanRead reports whether c may read topic's extension messages: a probe
// row is inserted (as the function owner) and selected back under the
// role, inside a transaction that is always rolled back (which also resets
// the role).
func (a *Authorizer) CanRead(ctx context.Context, c Caller, topic, extension string) (bool, error) {
	tx, err := a.begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var id string
	if err := tx.QueryRow(ctx, "select realtime.authorization_probe($1, $2)::text", topic, extension).Scan(&id); err != nil {
		return false, fmt.Errorf("authorization probe: %w", err)
	}
	if err := setClaims(ctx, tx, c, topic); err != nil {
		return false, fmt.Errorf("set claims: %w", err)
	}
	var ok bool
	err = tx.QueryRow(ctx, "select exists (select 1 from realtime.messages where id = $1::uuid and topic = realtime.topic() and extension = $2)", id, extension).Scan(&ok)
	if err != nil {
		if isPolicyError(err) {
			return false, nil
		}
		return false, fmt.Errorf("read check: %w", err)
	}
	return ok, nil
}

// CanWrite reports whether c may insert a message for topic's extension
// (the INSERT policy), rolled back.
func (a *Authorizer) CanWrite(ctx context.Context, c Caller, topic, extension string) (bool, error) {
	tx, err := a.begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := setClaims(ctx, tx, c, topic); err != nil {
		return false, fmt.Errorf("set claims: %w", err)
	}
	_, err = tx.Exec(ctx, "insert into realtime.messages (topic, extension, private) values (realtime.topic(), $1, true)", extension)
	if err != nil {
		if isPolicyError(err) {
			return false, nil
		}
		return false, fmt.Errorf("write check: %w", err)
	}
	return true, nil
}

// isPolicyError is true for insufficient privilege (42501), which covers
// RLS violations and missing grants.
func isPolicyError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42501"
}
