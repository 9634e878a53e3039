package channel

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/phx"
)

// Outbox is the socket a channel writes to. Its methods never block: a
// socket whose queue is full drops the frame and is disconnected (see
// wsapi).
type Outbox interface {
	// Send queues m, encoded for the socket's serializer version.
	Send(m phx.Message)
	// SendBinary queues a kind-4 user broadcast frame; sockets speaking
	// vsn 1.0.0 cannot carry it and drop it.
	SendBinary(frame []byte)
}

// State is a channel's place in its lifecycle:
//
//	Joining --joined--> Joined --leave/close/error--> Closed
//	Joining --refused--> Closed
type State int32

// The states.
const (
	Joining State = iota
	Joined
	Closed
)

func (s State) String() string {
	switch s {
	case Joining:
		return "joining"
	case Joined:
		return "joined"
	case Closed:
		return "closed"
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// ErrTransition is returned for a transition the state machine forbids.
var ErrTransition = errors.New("invalid channel state transition")

var nextID atomic.Uint64

// Channel is one joined (or joining) topic of one socket.
type Channel struct {
	// ID is unique in the process, to tell senders apart.
	ID uint64
	// Topic is the full topic ("realtime:room"); Name is without prefix.
	Topic string
	Name  string
	// JoinRef is the client's join_ref, echoed on replies and phx_close.
	JoinRef *string
	Private bool
	// Ack and Self are the broadcast options.
	Ack, Self bool
	// PresenceKey is the key this channel tracks presence under.
	PresenceKey     string
	PresenceEnabled bool

	out Outbox

	mu       sync.Mutex
	state    State
	claims   *auth.Claims
	subs     []changes.Subscription
	canWrite *bool // private broadcast write permission, evaluated lazily
	// replayed holds the ids of the database messages replayed on join, so
	// that a message both replayed and delivered live arrives once.
	replayed map[string]struct{}
}

// New returns a Joining channel writing to out.
func New(topic string, joinRef *string, cfg JoinConfig, claims *auth.Claims, out Outbox) *Channel {
	return &Channel{
		ID:              nextID.Add(1),
		Topic:           topic,
		Name:            SubTopic(topic),
		JoinRef:         joinRef,
		Private:         cfg.Private,
		Ack:             cfg.Broadcast.Ack,
		Self:            cfg.Broadcast.Self,
		PresenceKey:     cfg.Presence.Key,
		PresenceEnabled: cfg.Presence.Enabled,
		out:             out,
		claims:          claims,
	}
}

// SubTopic strips the "realtime:" prefix.
func SubTopic(topic string) string {
	if len(topic) >= len(TopicPrefix) && topic[:len(TopicPrefix)] == TopicPrefix {
		return topic[len(TopicPrefix):]
	}
	return topic
}

// State returns the current state.
func (c *Channel) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Transition moves the channel to state to, or returns ErrTransition.
func (c *Channel) Transition(to State) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok := (c.state == Joining && (to == Joined || to == Closed)) || (c.state == Joined && to == Closed)
	if !ok {
		return fmt.Errorf("%w: %s to %s", ErrTransition, c.state, to)
	}
	c.state = to
	return nil
}

// SetSubscriptions sets the postgres_changes bindings.
func (c *Channel) SetSubscriptions(subs []changes.Subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs = subs
}

// SetClaims replaces the claims (after an access_token push) and forgets
// the cached write permission.
func (c *Channel) SetClaims(cl *auth.Claims) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.claims = cl
	c.canWrite = nil
}

// Claims returns the current claims.
func (c *Channel) Claims() *auth.Claims {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claims
}

// Subscriptions returns the bindings of a Joined channel, none otherwise.
func (c *Channel) Subscriptions() []changes.Subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != Joined {
		return nil
	}
	return c.subs
}

// HasSubscriptions reports whether the channel has postgres_changes bindings.
func (c *Channel) HasSubscriptions() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.subs) > 0
}

// CanWrite returns the cached private write permission.
func (c *Channel) CanWrite() (allowed, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.canWrite == nil {
		return false, false
	}
	return *c.canWrite, true
}

// SetCanWrite caches the private write permission.
func (c *Channel) SetCanWrite(v bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.canWrite = &v
}

// SetReplayed records the ids of the messages replayed on join.
func (c *Channel) SetReplayed(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replayed = make(map[string]struct{}, len(ids))
	for _, id := range ids {
		c.replayed[id] = struct{}{}
	}
}

// Replayed reports whether the message id was replayed on join.
func (c *Channel) Replayed(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.replayed[id]
	return ok
}

// Push sends event with payload on the channel's topic, join_ref null (as
// Supabase's fastlane does), if the channel is joined.
func (c *Channel) Push(event string, payload json.RawMessage) {
	if c.State() != Joined {
		return
	}
	c.out.Send(phx.Message{Topic: c.Topic, Event: event, Payload: payload})
}

// PushBinary sends a kind-4 frame if the channel is joined.
func (c *Channel) PushBinary(frame []byte) {
	if c.State() != Joined {
		return
	}
	c.out.SendBinary(frame)
}

// DeliverChange implements changes.Subscriber.
func (c *Channel) DeliverChange(payload json.RawMessage) { c.Push("postgres_changes", payload) }

// DeliverSystem implements changes.Subscriber: a system message from the
// postgres_changes extension.
func (c *Channel) DeliverSystem(status, message string) {
	c.Push("system", SystemPayload("postgres_changes", status, message, c.Name))
}

// SystemPayload builds a system message payload.
func SystemPayload(extension, status, message, channel string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Extension string `json:"extension"`
		Status    string `json:"status"`
		Message   string `json:"message"`
		Channel   string `json:"channel"`
	}{extension, status, message, channel})
	return b
}
