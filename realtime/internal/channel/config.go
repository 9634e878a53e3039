// Package channel holds realtime's channels: the phx_join configuration a
// client sends, each joined channel's state machine, claims and bindings,
// and the registry that finds channels by topic (broadcast, presence) or
// by postgres_changes interest.
package channel

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kejanest/kejanest/realtime/internal/changes"
)

// TopicPrefix starts every channel topic.
const TopicPrefix = "realtime:"

// JoinPayload is a phx_join payload.
type JoinPayload struct {
	Config      JoinConfig `json:"config"`
	AccessToken *string    `json:"access_token"`
	UserToken   *string    `json:"user_token"`
}

// JoinConfig is the join payload's "config".
type JoinConfig struct {
	Broadcast struct {
		Ack  bool `json:"ack"`
		Self bool `json:"self"`
	} `json:"broadcast"`
	Presence struct {
		Key     string `json:"key"`
		Enabled bool   `json:"enabled"`
	} `json:"presence"`
	PostgresChanges []Binding `json:"postgres_changes"`
	Private         bool      `json:"private"`
}

// Binding is one requested postgres_changes binding, with its fields as
// the client sent them (null and absent are kept apart from "" so the join
// reply echoes them faithfully).
type Binding struct {
	Event  *string `json:"event,omitempty"`
	Schema *string `json:"schema,omitempty"`
	Table  *string `json:"table,omitempty"`
	Filter *string `json:"filter,omitempty"`
}

// ReplyBinding is a binding in the join reply: the request plus its id.
type ReplyBinding struct {
	ID     uint32  `json:"id"`
	Event  *string `json:"event,omitempty"`
	Schema *string `json:"schema,omitempty"`
	Table  *string `json:"table,omitempty"`
	Filter *string `json:"filter,omitempty"`
}

// ParseJoin decodes a phx_join payload. A missing or null config is the
// zero config.
func ParseJoin(payload json.RawMessage) (JoinPayload, error) {
	var p JoinPayload
	if len(payload) == 0 || string(payload) == "null" {
		return p, nil
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return JoinPayload{}, fmt.Errorf("invalid join payload: %w", err)
	}
	return p, nil
}

// Token is the token the join payload carries (access_token, else
// user_token), "" if none.
func (p JoinPayload) Token() string {
	if p.AccessToken != nil && *p.AccessToken != "" {
		return *p.AccessToken
	}
	if p.UserToken != nil {
		return *p.UserToken
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Subscriptions turns the bindings into subscriptions, in request order,
// and the join reply's list. A binding whose filter does not parse or that
// names no schema yields an error (reported to the client as a system
// message) and no subscription.
func (c JoinConfig) Subscriptions() ([]changes.Subscription, []ReplyBinding, []error) {
	var subs []changes.Subscription
	reply := make([]ReplyBinding, 0, len(c.PostgresChanges))
	var errs []error
	for _, b := range c.PostgresChanges {
		event := strings.ToUpper(deref(b.Event))
		if event == "" {
			event = "*"
		}
		id := changes.SubscriptionID(event, deref(b.Schema), deref(b.Table), deref(b.Filter))
		reply = append(reply, ReplyBinding{ID: id, Event: b.Event, Schema: b.Schema, Table: b.Table, Filter: b.Filter})
		switch event {
		case "*", changes.Insert, changes.Update, changes.Delete:
		default:
			errs = append(errs, fmt.Errorf("invalid event %q", event))
			continue
		}
		if deref(b.Schema) == "" {
			errs = append(errs, fmt.Errorf("schema is required"))
			continue
		}
		f, err := changes.ParseFilter(deref(b.Filter))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		subs = append(subs, changes.Subscription{ID: id, Event: event, Schema: deref(b.Schema), Table: deref(b.Table), Filter: f})
	}
	return subs, reply, errs
}
