package broadcast

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MessagesChannel is the LISTEN channel on which migration 0030's trigger
// announces each broadcast inserted into realtime.messages (by
// realtime.send, send_binary, broadcast_changes or a plain insert), with
// the message id as payload.
const MessagesChannel = "realtime_messages"

// Retention of realtime.messages, as Supabase keeps about three days, and
// how often a replica prunes older rows.
const (
	messageRetention = 72 * time.Hour
	pruneEvery       = time.Hour
)

// Store reads realtime.messages through migration 0030's
// security-definer functions (the service's login has no table
// privileges).
type Store struct {
	Pool *pgxpool.Pool
}

// The SQL the store runs.
const (
	sqlMessage = `select id::text, topic, coalesce(event, ''), private, payload, binary_payload
		from realtime.broadcast_message($1::uuid)`
	sqlReplay = `select id::text, coalesce(event, ''), payload, binary_payload
		from realtime.replay_messages($1, to_timestamp($2::float8 / 1000), $3)`
	sqlPrune = `select realtime.prune_messages(make_interval(secs => $1))`
)

// Message returns the broadcast with id; ok is false when there is none
// (pruned, or not a broadcast).
func (s *Store) Message(ctx context.Context, id string) (Message, bool, error) {
	var m Message
	var payload, bin []byte
	err := s.Pool.QueryRow(ctx, sqlMessage, id).Scan(&m.ID, &m.Topic, &m.Event, &m.Private, &payload, &bin)
	if errors.Is(err, pgx.ErrNoRows) {
		return Message{}, false, nil
	}
	if err != nil {
		return Message{}, false, fmt.Errorf("read message %s: %w", id, err)
	}
	setPayload(&m, payload, bin)
	return m, true, nil
}

// setPayload fills a message's payload: a binary one when the row has
// binary_payload, else the JSON one.
func setPayload(m *Message, payload, bin []byte) {
	if bin != nil {
		m.IsBinary, m.Binary = true, bin
		return
	}
	m.Payload = json.RawMessage(payload)
}

// Replay returns a private topic's broadcasts inserted since (a Unix time
// in milliseconds), at most limit of the newest, oldest first.
func (s *Store) Replay(ctx context.Context, topic string, sinceMillis int64, limit int) ([]Message, error) {
	rows, err := s.Pool.Query(ctx, sqlReplay, topic, sinceMillis, limit)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", topic, err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m := Message{Topic: topic, Private: true}
		var payload, bin []byte
		if err := rows.Scan(&m.ID, &m.Event, &payload, &bin); err != nil {
			return nil, fmt.Errorf("replay %s: %w", topic, err)
		}
		setPayload(&m, payload, bin)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("replay %s: %w", topic, err)
	}
	return out, nil
}

// Prune deletes messages older than keep.
func (s *Store) Prune(ctx context.Context, keep time.Duration) (int64, error) {
	var n int64
	if err := s.Pool.QueryRow(ctx, sqlPrune, keep.Seconds()).Scan(&n); err != nil {
		return 0, fmt.Errorf("prune messages: %w", err)
	}
	return n, nil
}

// Feed delivers the database's broadcasts to this replica's channels. Every
// replica LISTENs on MessagesChannel and reads each announced message
// itself, so nothing is relayed between replicas; one goroutine reads them
// in announcement (commit) order.
type Feed struct {
	Store *Store
	Hub   *Hub
	Log   *slog.Logger

	ids chan string
}

// feedQueue bounds the announced ids waiting to be read.
const feedQueue = 4096

// NewFeed returns a Feed; call Run to start it.
func NewFeed(store *Store, hub *Hub, log *slog.Logger) *Feed {
	return &Feed{Store: store, Hub: hub, Log: log, ids: make(chan string, feedQueue)}
}

// Notify queues an announced message id; it never blocks (a full queue
// drops the message, logged).
func (f *Feed) Notify(payload []byte) {
	select {
	case f.ids <- string(payload):
	default:
		f.Log.Warn("database broadcast queue full; message not delivered", "id", string(payload))
	}
}

// Run reads and delivers announced messages, and prunes old ones, until
// ctx ends.
func (f *Feed) Run(ctx context.Context) {
	prune := time.NewTicker(pruneEvery)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-prune.C:
			if _, err := f.Store.Prune(ctx, messageRetention); err != nil && ctx.Err() == nil {
				f.Log.Warn("prune realtime.messages", "error", err.Error())
			}
		case id := <-f.ids:
			f.deliver(ctx, id)
		}
	}
}

func (f *Feed) deliver(ctx context.Context, id string) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, ok, err := f.Store.Message(rctx, id)
	if err != nil {
		if ctx.Err() == nil {
			f.Log.Warn("read database broadcast", "id", id, "error", err.Error())
		}
		return
	}
	if ok {
		f.Hub.Deliver(m)
	}
}
