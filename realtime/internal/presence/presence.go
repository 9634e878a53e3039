// Package presence keeps Phoenix Presence state per topic: who tracks what
// under which key, with one meta per tracking channel, and the
// presence_state / presence_diff payloads the client's RealtimePresence
// syncs from.
//
// A Tracker holds this replica's own presences and a mirror of the other
// replicas'; presence_state merges both, as Phoenix Presence does across a
// cluster. A Relay (relay.go) keeps the mirror current through PostgreSQL:
// each replica's presences are rows of realtime.presences, changes are
// announced with a small NOTIFY, and a replica that stops heartbeating has
// its presences leave everywhere.
package presence

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kejanest/kejanest/realtime/internal/channel"
)

// Owner identifies the tracking channel.
type Owner uint64

// Presence is one tracked meta as the replicas share it.
type Presence struct {
	// Ref is the meta's phx_ref, unique across replicas.
	Ref string
	// Replica is the replica that tracked it; "" for this replica's own.
	Replica string
	Topic   channel.TopicKey
	Key     string
	// Meta is the tracked object, including phx_ref (and phx_ref_prev).
	Meta json.RawMessage
}

type entry struct {
	owner Owner // 0 for another replica's presence
	Presence
}

// Update is one change to this replica's presences, for the relay to
// replicate: the refs that left and the presence that joined (nil for an
// untrack).
type Update struct {
	Leaves []string
	Join   *Presence
}

// maxPending bounds the updates waiting for the relay; past it they are
// dropped and the relay republishes the whole local state instead.
const maxPending = 10000

// Tracker holds the state of every topic. It is safe for concurrent use.
type Tracker struct {
	mu     sync.Mutex
	topics map[channel.TopicKey][]entry // entries in tracking (or arrival) order
	remote map[string]remoteLoc         // ref of another replica's presence -> where it is

	prefix string // makes refs unique across replicas
	ref    atomic.Uint64

	// The replication log, kept once a Relay is attached.
	logging  bool
	pending  []Update
	overflow bool
	changed  chan struct{} // signalled (capacity 1) when pending grows
}

type remoteLoc struct {
	replica string
	topic   channel.TopicKey
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return &Tracker{
		topics:  map[channel.TopicKey][]entry{},
		remote:  map[string]remoteLoc{},
		prefix:  base64.RawURLEncoding.EncodeToString(b),
		changed: make(chan struct{}, 1),
	}
}

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

func (d *Diff) join(key string, meta json.RawMessage) {
	if d.Joins == nil {
		d.Joins = map[string]Metas{}
	}
	d.Joins[key] = Metas{append(d.Joins[key].Metas, meta)}
}

func (d *Diff) leave(key string, meta json.RawMessage) {
	if d.Leaves == nil {
		d.Leaves = map[string]Metas{}
	}
	d.Leaves[key] = Metas{append(d.Leaves[key].Metas, meta)}
}

// TopicDiff is the presence_diff the channels of one topic get.
type TopicDiff struct {
	Topic channel.TopicKey
	Diff  Diff
}

// newRef returns a phx_ref: a random per-process prefix and a counter, so
// refs never repeat within the cluster.
func (t *Tracker) newRef() string {
	return t.prefix + strconv.FormatUint(t.ref.Add(1), 36)
}

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
func (t *Tracker) Track(topic channel.TopicKey, owner Owner, key string, payload json.RawMessage) (Diff, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := Diff{Joins: map[string]Metas{}, Leaves: map[string]Metas{}}
	entries := t.topics[topic]
	prev := ""
	var left []string
	kept := entries[:0:0]
	for _, e := range entries {
		if e.owner == owner && e.Replica == "" {
			d.leave(e.Key, e.Meta)
			left = append(left, e.Ref)
			if e.Key == key {
				prev = e.Ref
			}
			continue
		}
		kept = append(kept, e)
	}
	ref := t.newRef()
	meta, err := withRef(payload, ref, prev)
	if err != nil {
		return Diff{}, err
	}
	p := Presence{Ref: ref, Topic: topic, Key: key, Meta: meta}
	kept = append(kept, entry{owner, p})
	t.topics[topic] = kept
	d.join(key, meta)
	t.record(Update{Leaves: left, Join: &p})
	return d, nil
}

// Untrack removes owner's presence from topic and returns the diff.
func (t *Tracker) Untrack(topic channel.TopicKey, owner Owner) Diff {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := Diff{Leaves: map[string]Metas{}}
	var left []string
	entries := t.topics[topic]
	kept := entries[:0:0]
	for _, e := range entries {
		if e.owner == owner && e.Replica == "" {
			d.leave(e.Key, e.Meta)
			left = append(left, e.Ref)
			continue
		}
		kept = append(kept, e)
	}
	t.setTopic(topic, kept)
	if len(left) > 0 {
		t.record(Update{Leaves: left})
	}
	return d
}

func (t *Tracker) setTopic(topic channel.TopicKey, entries []entry) {
	if len(entries) == 0 {
		delete(t.topics, topic)
	} else {
		t.topics[topic] = entries
	}
}

// State is the presence_state payload of topic, this replica's presences
// and the other replicas' together: {key: {metas: […]}}.
func (t *Tracker) State(topic channel.TopicKey) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	byKey := map[string][]json.RawMessage{}
	var keys []string
	for _, e := range t.topics[topic] {
		if _, ok := byKey[e.Key]; !ok {
			keys = append(keys, e.Key)
		}
		byKey[e.Key] = append(byKey[e.Key], e.Meta)
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

// record queues u for the relay (with t.mu held).
func (t *Tracker) record(u Update) {
	if !t.logging {
		return
	}
	switch {
	case t.overflow:
	case len(t.pending) >= maxPending:
		t.pending, t.overflow = nil, true
	default:
		t.pending = append(t.pending, u)
	}
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// startLog makes the tracker keep the replication log.
func (t *Tracker) startLog() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.logging = true
	t.overflow = true // nothing is published yet: start with the whole state
}

// takePending returns the updates since the last call; overflow means some
// were dropped and the whole local state must be republished.
func (t *Tracker) takePending() (ups []Update, overflow bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ups, overflow = t.pending, t.overflow
	t.pending, t.overflow = nil, false
	return ups, overflow
}

// local returns this replica's presences and clears the replication log:
// later updates apply on top of this snapshot.
func (t *Tracker) local() []Presence {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending, t.overflow = nil, false
	var ps []Presence
	for _, entries := range t.topics {
		for _, e := range entries {
			if e.Replica == "" {
				ps = append(ps, e.Presence)
			}
		}
	}
	return ps
}

// diffs collects per-topic diffs in the order topics are first touched.
type diffs struct {
	order []channel.TopicKey
	by    map[channel.TopicKey]*Diff
}

func (ds *diffs) get(topic channel.TopicKey) *Diff {
	if ds.by == nil {
		ds.by = map[channel.TopicKey]*Diff{}
	}
	d := ds.by[topic]
	if d == nil {
		d = &Diff{}
		ds.by[topic] = d
		ds.order = append(ds.order, topic)
	}
	return d
}

func (ds *diffs) list() []TopicDiff {
	out := make([]TopicDiff, 0, len(ds.order))
	for _, k := range ds.order {
		if d := ds.by[k]; !d.Empty() {
			out = append(out, TopicDiff{k, *d})
		}
	}
	return out
}

// removeRemote drops the other replicas' presences whose refs are in gone,
// recording their leaves (with t.mu held).
func (t *Tracker) removeRemote(gone map[string]struct{}, ds *diffs) {
	byTopic := map[channel.TopicKey]bool{}
	for ref := range gone {
		loc, ok := t.remote[ref]
		if !ok {
			delete(gone, ref)
			continue
		}
		byTopic[loc.topic] = true
		delete(t.remote, ref)
	}
	// Walk the topics in a fixed order so diffs list their topics, and
	// metas, the same way every time.
	topics := make([]channel.TopicKey, 0, len(byTopic))
	for k := range byTopic {
		topics = append(topics, k)
	}
	sort.Slice(topics, func(i, j int) bool {
		if topics[i].Name != topics[j].Name {
			return topics[i].Name < topics[j].Name
		}
		return !topics[i].Private && topics[j].Private
	})
	for _, topic := range topics {
		entries := t.topics[topic]
		kept := entries[:0:0]
		for _, e := range entries {
			if _, ok := gone[e.Ref]; ok && e.Replica != "" {
				ds.get(topic).leave(e.Key, e.Meta)
				continue
			}
			kept = append(kept, e)
		}
		t.setTopic(topic, kept)
	}
}

// addRemote adds another replica's presence unless it is known (with t.mu
// held).
func (t *Tracker) addRemote(p Presence, ds *diffs) {
	if p.Replica == "" || p.Ref == "" {
		return
	}
	if _, ok := t.remote[p.Ref]; ok {
		return
	}
	t.remote[p.Ref] = remoteLoc{p.Replica, p.Topic}
	t.topics[p.Topic] = append(t.topics[p.Topic], entry{0, p})
	ds.get(p.Topic).join(p.Key, p.Meta)
}

// ApplyRemote applies a change another replica announced: the refs that
// left, then the presences that joined. Leaves of unknown refs and joins of
// known ones are ignored, so a change seen twice changes nothing. It
// returns the diffs for this replica's channels.
func (t *Tracker) ApplyRemote(leaves []string, joins []Presence) []TopicDiff {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ds diffs
	gone := make(map[string]struct{}, len(leaves))
	for _, ref := range leaves {
		gone[ref] = struct{}{}
	}
	t.removeRemote(gone, &ds)
	for _, p := range joins {
		t.addRemote(p, &ds)
	}
	return ds.list()
}

// ReplaceRemote makes the mirror of replica's presences (of every other
// replica's when replica is "") equal to ps, and returns the diffs: leaves
// for what is gone, joins for what is new. ps entries of other replicas are
// ignored.
func (t *Tracker) ReplaceRemote(replica string, ps []Presence) []TopicDiff {
	t.mu.Lock()
	defer t.mu.Unlock()
	want := make(map[string]struct{}, len(ps))
	for _, p := range ps {
		if replica == "" || p.Replica == replica {
			want[p.Ref] = struct{}{}
		}
	}
	gone := map[string]struct{}{}
	for ref, loc := range t.remote {
		if replica != "" && loc.replica != replica {
			continue
		}
		if _, ok := want[ref]; !ok {
			gone[ref] = struct{}{}
		}
	}
	var ds diffs
	t.removeRemote(gone, &ds)
	for _, p := range ps {
		if replica == "" || p.Replica == replica {
			t.addRemote(p, &ds)
		}
	}
	return ds.list()
}
