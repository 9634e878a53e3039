// Package presence keeps Phoenix Presence state per topic: who tracks what
// under which key, with one meta per tracking channel, and the
// presence_state / presence_diff payloads the client's RealtimePresence
// syncs from. State is per process (replicas do not share presence).
package presence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// Owner identifies the tracking channel.
type Owner uint64

type entry struct {
	owner Owner
	key   string
	meta  json.RawMessage // object including phx_ref
}

// Tracker holds the state of every topic. It is safe for concurrent use.
type Tracker struct {
	mu     sync.Mutex
	topics map[string][]entry // topic id -> entries in tracking order
	ref    atomic.Uint64
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker { return &Tracker{topics: map[string][]entry{}} }

// Diff is a presence_diff payload; empty when nothing changed.
type Diff struct {
	Joins  map[string]Metas `json:"joins"`
	Leaves map[string]Metas `json:"leaves"`
}

// Metas is one key's list of metas.
type Metas struct {
	Metas []json.RawMessage `json:"metas"`
}

// Empty reports whether d changes nothing.
func (d Diff) Empty() bool { return len(d.Joins) == 0 && len(d.Leaves) == 0 }

// JSON encodes d.
func (d Diff) JSON() json.RawMessage {
	if d.Joins == nil {
		d.Joins = map[string]Metas{}
	}
	if d.Leaves == nil {
		d.Leaves = map[string]Metas{}
	}
	b, _ := json.Marshal(d)
	return b
}

func (t *Tracker) newRef() string { return fmt.Sprintf("F%x", t.ref.Add(1)) }

// withRef adds phx_ref (and phx_ref_prev) to a payload object.
func withRef(payload json.RawMessage, ref, prev string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(payload, &m); err != nil || m == nil {
		return nil, fmt.Errorf("presence payload must be an object")
	}
	r, _ := json.Marshal(ref)
	m["phx_ref"] = r
	if prev != "" {
		p, _ := json.Marshal(prev)
		m["phx_ref_prev"] = p
	} else {
		delete(m, "phx_ref_prev")
	}
	return json.Marshal(m)
}

// Track records owner's presence under key with payload (a JSON object),
// replacing what owner tracked before on the topic, and returns the diff.
func (t *Tracker) Track(topic string, owner Owner, key string, payload json.RawMessage) (Diff, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := Diff{Joins: map[string]Metas{}, Leaves: map[string]Metas{}}
	entries := t.topics[topic]
	prev := ""
	kept := entries[:0:0]
	for _, e := range entries {
		if e.owner == owner {
			d.Leaves[e.key] = Metas{append(d.Leaves[e.key].Metas, e.meta)}
			if e.key == key {
				var m struct {
					Ref string `json:"phx_ref"`
				}
				_ = json.Unmarshal(e.meta, &m)
				prev = m.Ref
			}
			continue
		}
		kept = append(kept, e)
	}
	meta, err := withRef(payload, t.newRef(), prev)
	if err != nil {
		return Diff{}, err
	}
	kept = append(kept, entry{owner, key, meta})
	t.topics[topic] = kept
	d.Joins[key] = Metas{[]json.RawMessage{meta}}
	return d, nil
}

// Untrack removes owner's presence from topic and returns the diff.
func (t *Tracker) Untrack(topic string, owner Owner) Diff {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := Diff{Leaves: map[string]Metas{}}
	entries := t.topics[topic]
	kept := entries[:0:0]
	for _, e := range entries {
		if e.owner == owner {
			d.Leaves[e.key] = Metas{append(d.Leaves[e.key].Metas, e.meta)}
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		delete(t.topics, topic)
	} else {
		t.topics[topic] = kept
	}
	return d
}

// State is the presence_state payload of topic: {key: {metas: […]}}.
func (t *Tracker) State(topic string) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	byKey := map[string][]json.RawMessage{}
	var keys []string
	for _, e := range t.topics[topic] {
		if _, ok := byKey[e.key]; !ok {
			keys = append(keys, e.key)
		}
		byKey[e.key] = append(byKey[e.key], e.meta)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		mb, _ := json.Marshal(Metas{byKey[k]})
		buf.Write(mb)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}
