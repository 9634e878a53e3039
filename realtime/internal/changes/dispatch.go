package changes

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/kejanest/kejanest/realtime/internal/auth"
)

// Error texts Supabase puts in data.errors.
const (
	ErrTextNoPrimaryKey = "Error 400: Bad Request, no primary key"
	ErrTextTooLarge     = "Error 413: Payload Too Large"
	ErrTextUnauthorized = "Error 401: Unauthorized"
)

// GapMessage is the system message subscribers get when changes may have
// been missed (the listener reconnected or fell behind).
const GapMessage = "Realtime lost changes from PostgreSQL (the change listener reconnected or fell behind); reload to catch up"

// RowReader is what the Dispatcher needs from a Reader: ReadRows for
// INSERT and UPDATE, ReadOld for DELETE, Columns for changes that carry an
// error instead of a row.
type RowReader interface {
	ReadRows(ctx context.Context, c *Change, claims []*auth.Claims) ([]Row, error)
	ReadOld(ctx context.Context, c *Change, claims []*auth.Claims) ([]Row, error)
	Columns(ctx context.Context, schema, table, role string) ([]Column, error)
}

// Dispatcher delivers changes to the subscribers Source lists.
type Dispatcher struct {
	Reader RowReader
	Source func() []Subscriber
	Log    *slog.Logger
	// Timeout bounds the database work for one change.
	Timeout time.Duration
}

type candidate struct {
	sub  Subscriber
	subs []Subscription
}

type group struct {
	claims  *auth.Claims
	members []candidate
}

// Dispatch delivers c to every subscriber whose bindings match it and whose
// role may see it. INSERT and UPDATE are delivered only if the row, re-read
// under the subscriber's role and claims, is visible. DELETE is delivered
// only if the subscriber could have read the deleted row: on a table under
// row security for its role, its SELECT policies must pass on the old
// record under its role and claims (stricter than Supabase, which sends
// every DELETE to every subscriber). Unless the table has REPLICA IDENTITY
// FULL the old record is just the primary key, so policies reading other
// columns see NULL there and normally refuse the row. Filters apply to the
// old record.
func (d *Dispatcher) Dispatch(ctx context.Context, c *Change) {
	var groups []*group
	byKey := map[string]*group{}
	for _, s := range d.Source() {
		var matched []Subscription
		for _, b := range s.Subscriptions() {
			if b.Matches(c) {
				matched = append(matched, b)
			}
		}
		if len(matched) == 0 {
			continue
		}
		cl := s.Claims()
		if cl == nil {
			continue
		}
		g := byKey[cl.Key()]
		if g == nil {
			g = &group{claims: cl}
			byKey[cl.Key()] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, candidate{s, matched})
	}
	if len(groups) == 0 {
		return
	}
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}

	rows := make([]Row, len(groups))
	var errs []string
	switch {
	case c.Big:
		errs = []string{ErrTextTooLarge}
	case len(c.PK) == 0:
		errs = []string{ErrTextNoPrimaryKey}
	}
	if errs != nil {
		for i, g := range groups {
			cols, err := d.Reader.Columns(ctx, c.Schema, c.Table, g.claims.Role)
			if err != nil {
				d.Log.Warn("load columns", "schema", c.Schema, "table", c.Table, "error", err.Error())
				return
			}
			rows[i].Columns = cols
		}
	} else {
		claims := make([]*auth.Claims, len(groups))
		for i, g := range groups {
			claims[i] = g.claims
		}
		var err error
		if c.Type == Delete {
			rows, err = d.Reader.ReadOld(ctx, c, claims)
		} else {
			rows, err = d.Reader.ReadRows(ctx, c, claims)
		}
		if err != nil {
			d.Log.Warn("re-read changed row", "schema", c.Schema, "table", c.Table, "type", c.Type, "error", err.Error())
			return
		}
	}

	for i, g := range groups {
		row := rows[i]
		data := Data{Schema: c.Schema, Table: c.Table, CommitTimestamp: c.CommitTimestamp, Type: c.Type, Columns: row.Columns, Errors: errs}
		var match map[string]json.RawMessage
		switch {
		case errs != nil:
			data.Record = map[string]json.RawMessage{}
		case c.Type == Delete:
			if row.Record == nil {
				continue // this role and claims could not have read the row
			}
			data.OldRecord = row.Record
			match = row.Record
		default:
			if row.Record == nil {
				continue // not visible to this role and claims
			}
			data.Record = row.Record
			match = row.Record
			if c.Type == Update {
				data.OldRecord = visible(c.Old, row.Columns)
			}
		}
		if data.OldRecord == nil && c.Type == Delete {
			data.OldRecord = map[string]json.RawMessage{}
		}
		// Members usually share their binding ids (equal bindings get equal
		// ids), so each message is built once per selection and distinct
		// id list. Bindings with a select get the chosen columns only, in
		// a message of their own (as Supabase groups subscriptions by
		// role and selected columns).
		encoded := map[string]json.RawMessage{}
		messages := map[string]json.RawMessage{}
		for _, m := range g.members {
			var groups []selectGroup
			for _, b := range m.subs {
				if errs == nil && !b.Filter.Match(match, row.Columns) {
					continue
				}
				groups = addToGroup(groups, b)
			}
			for _, sg := range groups {
				enc, ok := encoded[sg.key]
				if !ok {
					sd := data.selected(sg.cols)
					enc = sd.Encode()
					encoded[sg.key] = enc
				}
				key := sg.key + "\x00" + idsKey(sg.ids)
				msg, ok := messages[key]
				if !ok {
					msg = Message(sg.ids, enc)
					messages[key] = msg
				}
				m.sub.DeliverChange(msg)
			}
		}
	}
}

// selectGroup is the matching bindings of one subscriber that share a
// column selection.
type selectGroup struct {
	key  string
	cols []string
	ids  []uint32
}

func addToGroup(groups []selectGroup, b Subscription) []selectGroup {
	key := ""
	if b.Select != nil {
		key = "\x01" + strings.Join(b.Select, "\x00")
	}
	for i := range groups {
		if groups[i].key == key {
			if !containsID(groups[i].ids, b.ID) {
				groups[i].ids = append(groups[i].ids, b.ID)
			}
			return groups
		}
	}
	return append(groups, selectGroup{key: key, cols: b.Select, ids: []uint32{b.ID}})
}

// selected is d with only the chosen columns (all of them for nil), in
// columns, record and old_record.
func (d Data) selected(cols []string) Data {
	if cols == nil {
		return d
	}
	keep := func(name string) bool {
		for _, c := range cols {
			if c == name {
				return true
			}
		}
		return false
	}
	out := d
	out.Columns = nil
	for _, c := range d.Columns {
		if keep(c.Name) {
			out.Columns = append(out.Columns, c)
		}
	}
	pick := func(rec map[string]json.RawMessage) map[string]json.RawMessage {
		if rec == nil {
			return nil
		}
		r := make(map[string]json.RawMessage, len(cols))
		for k, v := range rec {
			if keep(k) {
				r[k] = v
			}
		}
		return r
	}
	out.Record = pick(d.Record)
	out.OldRecord = pick(d.OldRecord)
	if out.Columns == nil {
		out.Columns = []Column{}
	}
	return out
}

func idsKey(ids []uint32) string {
	b := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		b = append(b, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
	}
	return string(b)
}

func containsID(ids []uint32, id uint32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// visible keeps the entries of rec whose column the role may select.
func visible(rec map[string]json.RawMessage, cols []Column) map[string]json.RawMessage {
	if rec == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(rec))
	for _, c := range cols {
		if v, ok := rec[c.Name]; ok {
			out[c.Name] = v
		}
	}
	return out
}

// Gap tells every subscriber that changes may have been missed.
func (d *Dispatcher) Gap() {
	for _, s := range d.Source() {
		s.DeliverSystem("error", GapMessage)
	}
}
