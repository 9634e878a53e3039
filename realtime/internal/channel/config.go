// Package channel holds realtime's channels: the phx_join configuration a
// client sends, each joined channel's state machine, claims and bindings,
// and the registry that finds channels by topic (broadcast, presence) or
// by postgres_changes interest.
package channel

import (
	"encoding/json"
	"errors"
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
		// Replay asks for a private topic's recent database messages.
		Replay json.RawMessage `json:"replay"`
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
	// Select is Supabase's column selection: a list of column names.
	Select json.RawMessage `json:"select,omitempty"`
}

// ReplyBinding is a binding in the join reply: the request plus its id.
type ReplyBinding struct {
	ID     uint32          `json:"id"`
	Event  *string         `json:"event,omitempty"`
	Schema *string         `json:"schema,omitempty"`
	Table  *string         `json:"table,omitempty"`
	Filter *string         `json:"filter,omitempty"`
	Select json.RawMessage `json:"select,omitempty"`
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

// Supabase Realtime's messages for bindings it cannot subscribe.
const (
	msgNoParams        = "No subscription params provided. Please provide at least a `schema` or `table` to subscribe to"
	msgSelectNotList   = "Error parsing `select` params: expected a list of column name strings, e.g. select: [\"col1\", \"col2\"]"
	msgSelectWildcard  = "Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name."
	msgSubscribeFailed = "Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: "
)

// Subscriptions turns the bindings into subscriptions, in request order,
// and the join reply's list, as Supabase reads them: an event other than
// INSERT, UPDATE or DELETE is "*"; a table without a schema is in
// "public"; a schema without table (and filter) means every table. A
// binding that Supabase refuses yields an error whose text is Supabase's
// message for the client, and no subscription.
func (c JoinConfig) Subscriptions() ([]changes.Subscription, []ReplyBinding, []error) {
	var subs []changes.Subscription
	reply := make([]ReplyBinding, 0, len(c.PostgresChanges))
	var errs []error
	for _, b := range c.PostgresChanges {
		event := strings.ToUpper(deref(b.Event))
		switch event {
		case changes.Insert, changes.Update, changes.Delete:
		default:
			event = "*"
		}
		sel, selErr := parseSelect(b.Select)
		id := changes.SubscriptionID(event, deref(b.Schema), deref(b.Table), deref(b.Filter), sel...)
		reply = append(reply, ReplyBinding{ID: id, Event: b.Event, Schema: b.Schema, Table: b.Table, Filter: b.Filter, Select: b.Select})
		if selErr != nil {
			errs = append(errs, selErr)
			continue
		}
		var schema, table string
		switch {
		case b.Schema != nil && b.Table != nil:
			schema, table = *b.Schema, *b.Table
		case b.Schema != nil && b.Filter == nil:
			schema, table = *b.Schema, "*"
		case b.Table != nil && b.Filter == nil:
			schema, table = "public", *b.Table
		default:
			errs = append(errs, errors.New(msgNoParams))
			continue
		}
		if sel != nil && (schema == "*" || table == "*") {
			errs = append(errs, errors.New(msgSelectWildcard))
			continue
		}
		f, err := changes.ParseFilter(deref(b.Filter))
		if err != nil {
			var fe *changes.FilterError
			if errors.As(err, &fe) && !strings.HasPrefix(fe.Message, "Error parsing") {
				// Supabase finds these when it inserts the subscription.
				err = SubscribeFailed(event, schema, table, changes.InspectFilter(deref(b.Filter)), sel, "ERROR P0001 (raise_exception) "+fe.Message)
			}
			errs = append(errs, err)
			continue
		}
		subs = append(subs, changes.Subscription{ID: id, Event: event, Schema: schema, Table: table, Filter: f, Select: sel})
	}
	return subs, reply, errs
}

// SubscribeFailed is Supabase's message for a binding whose insert into
// realtime.subscription raised exception (as Postgrex prints it); filters
// is the binding's filter as Filter.Inspect renders it.
func SubscribeFailed(event, schema, table, filters string, sel []string, exception string) error {
	return fmt.Errorf("%s[event: %s, schema: %s, table: %s, filters: %s, select: %s]. Exception: %s",
		msgSubscribeFailed, event, schema, table, filters, selectText(sel), exception)
}

// parseSelect reads a binding's select as Supabase does: a list keeps its
// strings (none: no selection), a string is refused, anything else is
// ignored.
func parseSelect(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var list []any
	if json.Unmarshal(raw, &list) == nil {
		var cols []string
		for _, v := range list {
			if s, ok := v.(string); ok {
				cols = append(cols, s)
			}
		}
		return cols, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil, errors.New(msgSelectNotList)
	}
	return nil, nil
}

func selectText(sel []string) string {
	if sel == nil {
		return "nil"
	}
	return changes.InspectStrings(sel)
}

// Replay is a join's config.broadcast.replay.
type Replay struct {
	// Since is a Unix time in milliseconds.
	Since int64
	Limit int
}

// Supabase's replay bounds and messages.
const (
	replayDefaultLimit = 10
	replayMaxLimit     = 25

	MsgReplayPublic  = "UnableToReplayMessages: Replay is not allowed for public channels"
	MsgReplayInvalid = "UnableToReplayMessages: Replay params are not valid"
)

// ReplayRequest reads config.broadcast.replay: ok is false without one (or
// when it is not an object, which Supabase ignores on a private channel);
// a public channel asking for replay, a limit outside 1..25 or a since
// that is not a non-negative integer is an error with Supabase's reason.
func (c JoinConfig) ReplayRequest() (r Replay, ok bool, err error) {
	raw := c.Broadcast.Replay
	if len(raw) == 0 {
		return Replay{}, false, nil
	}
	if !c.Private {
		return Replay{}, false, errors.New(MsgReplayPublic)
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(raw, &p) != nil || p == nil {
		return Replay{}, false, nil
	}
	r = Replay{Limit: replayDefaultLimit}
	if v, present := p["since"]; present && string(v) != "null" {
		if json.Unmarshal(v, &r.Since) != nil || r.Since < 0 {
			return Replay{}, false, errors.New(MsgReplayInvalid)
		}
	}
	if v, present := p["limit"]; present && string(v) != "null" {
		if json.Unmarshal(v, &r.Limit) != nil || r.Limit < 1 || r.Limit > replayMaxLimit {
			return Replay{}, false, errors.New(MsgReplayInvalid)
		}
	}
	return r, true, nil
}
