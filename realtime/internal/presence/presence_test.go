package presence

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/kejanest/kejanest/realtime/internal/channel"
)

var room = channel.TopicKey{Name: "room"}

func TestTrackUpdateUntrack(t *testing.T) {
	t.Parallel()
	tr := NewTracker()
	d, err := tr.Track(room, 1, "alice", json.RawMessage(`{"status":"online"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Joins["alice"].Metas) != 1 || len(d.Leaves) != 0 {
		t.Fatalf("first track diff = %s", d.JSON())
	}
	var meta map[string]any
	_ = json.Unmarshal(d.Joins["alice"].Metas[0], &meta)
	first, _ := meta["phx_ref"].(string)
	if first == "" || meta["status"] != "online" {
		t.Fatalf("meta = %v", meta)
	}
	if _, err := tr.Track(room, 2, "bob", json.RawMessage(`{"status":"away"}`)); err != nil {
		t.Fatal(err)
	}
	// Re-tracking replaces the meta; the new one points at the old ref.
	d, _ = tr.Track(room, 1, "alice", json.RawMessage(`{"status":"busy"}`))
	_ = json.Unmarshal(d.Joins["alice"].Metas[0], &meta)
	if meta["phx_ref_prev"] != first || len(d.Leaves["alice"].Metas) != 1 {
		t.Fatalf("update diff = %s", d.JSON())
	}
	var state map[string]Metas
	if err := json.Unmarshal(tr.State(room), &state); err != nil {
		t.Fatal(err)
	}
	if len(state) != 2 || len(state["alice"].Metas) != 1 || len(state["bob"].Metas) != 1 {
		t.Fatalf("state = %s", tr.State(room))
	}
	d = tr.Untrack(room, 2)
	if len(d.Leaves["bob"].Metas) != 1 || len(d.Joins) != 0 {
		t.Fatalf("untrack diff = %s", d.JSON())
	}
	if d := tr.Untrack(room, 2); !d.Empty() {
		t.Fatal("second untrack must be empty")
	}
	if string(tr.State(channel.TopicKey{Name: "other"})) != "{}" {
		t.Fatal("unknown topic state must be {}")
	}
	if _, err := tr.Track(room, 3, "x", json.RawMessage(`[1]`)); err == nil {
		t.Fatal("a non-object payload must be refused")
	}
	if got := string(Diff{}.JSON()); got != `{"joins":{},"leaves":{}}` {
		t.Fatalf("empty diff json = %s", got)
	}
}

// Refs never repeat across trackers (replicas), so a meta's phx_ref names
// one presence in the whole cluster.
func TestRefsAreUniqueAcrossTrackers(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 3 {
		tr := NewTracker()
		for owner := Owner(1); owner <= 3; owner++ {
			d, err := tr.Track(room, owner, "k", json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Ref string `json:"phx_ref"`
			}
			_ = json.Unmarshal(d.Joins["k"].Metas[0], &m)
			if m.Ref == "" || seen[m.Ref] {
				t.Fatalf("ref %q repeated or empty", m.Ref)
			}
			seen[m.Ref] = true
		}
	}
}

func remote(replica, ref, key, meta string) Presence {
	return Presence{Ref: ref, Replica: replica, Topic: room, Key: key, Meta: json.RawMessage(meta)}
}

func diffJSON(t *testing.T, ds []TopicDiff) string {
	t.Helper()
	if len(ds) == 0 {
		return ""
	}
	if len(ds) != 1 || ds[0].Topic != room {
		t.Fatalf("diffs = %+v, want one for room", ds)
	}
	return string(ds[0].Diff.JSON())
}

// The mirror of other replicas: applied changes are idempotent, state
// merges local and remote metas, and replacing a replica's (or every
// replica's) presences yields exactly the joins and leaves that differ.
func TestRemoteMirror(t *testing.T) {
	t.Parallel()
	tr := NewTracker()
	if _, err := tr.Track(room, 1, "alice", json.RawMessage(`{"here":1}`)); err != nil {
		t.Fatal(err)
	}
	b1 := remote("B", "b1", "alice", `{"phx_ref":"b1"}`)
	b2 := remote("B", "b2", "bob", `{"phx_ref":"b2"}`)
	c1 := remote("C", "c1", "carol", `{"phx_ref":"c1"}`)
	tests := []struct {
		name  string
		do    func() []TopicDiff
		diff  string
		state string // keys and the refs of remote metas, in order
	}{
		{"joins", func() []TopicDiff { return tr.ApplyRemote(nil, []Presence{b1, b2}) },
			`{"joins":{"alice":{"metas":[{"phx_ref":"b1"}]},"bob":{"metas":[{"phx_ref":"b2"}]}},"leaves":{}}`, "alice:2 bob:1"},
		{"a repeated join changes nothing", func() []TopicDiff { return tr.ApplyRemote(nil, []Presence{b1}) }, "", "alice:2 bob:1"},
		{"leave", func() []TopicDiff { return tr.ApplyRemote([]string{"b1", "nope"}, nil) },
			`{"joins":{},"leaves":{"alice":{"metas":[{"phx_ref":"b1"}]}}}`, "alice:1 bob:1"},
		{"a repeated leave changes nothing", func() []TopicDiff { return tr.ApplyRemote([]string{"b1"}, nil) }, "", "alice:1 bob:1"},
		{"another replica", func() []TopicDiff { return tr.ApplyRemote(nil, []Presence{c1}) },
			`{"joins":{"carol":{"metas":[{"phx_ref":"c1"}]}},"leaves":{}}`, "alice:1 bob:1 carol:1"},
		{"sync of one replica", func() []TopicDiff { return tr.ReplaceRemote("B", []Presence{b1, c1}) },
			`{"joins":{"alice":{"metas":[{"phx_ref":"b1"}]}},"leaves":{"bob":{"metas":[{"phx_ref":"b2"}]}}}`, "alice:2 carol:1"},
		{"replica down", func() []TopicDiff { return tr.ReplaceRemote("C", nil) },
			`{"joins":{},"leaves":{"carol":{"metas":[{"phx_ref":"c1"}]}}}`, "alice:2"},
		{"reload of every replica", func() []TopicDiff { return tr.ReplaceRemote("", []Presence{b2, c1}) },
			`{"joins":{"bob":{"metas":[{"phx_ref":"b2"}]},"carol":{"metas":[{"phx_ref":"c1"}]}},"leaves":{"alice":{"metas":[{"phx_ref":"b1"}]}}}`, "alice:1 bob:1 carol:1"},
		{"remote leaves never touch local presences", func() []TopicDiff { return tr.ReplaceRemote("", nil) },
			`{"joins":{},"leaves":{"bob":{"metas":[{"phx_ref":"b2"}]},"carol":{"metas":[{"phx_ref":"c1"}]}}}`, "alice:1"},
	}
	for _, tt := range tests { // sequential: each step builds on the last
		got := diffJSON(t, tt.do())
		if got != tt.diff {
			t.Fatalf("%s: diff\n got %s\nwant %s", tt.name, got, tt.diff)
		}
		var state map[string]Metas
		if err := json.Unmarshal(tr.State(room), &state); err != nil {
			t.Fatal(err)
		}
		var summary []byte
		for _, k := range []string{"alice", "bob", "carol"} {
			if n := len(state[k].Metas); n > 0 {
				if len(summary) > 0 {
					summary = append(summary, ' ')
				}
				summary = append(summary, []byte(k+":"+string(rune('0'+n)))...)
			}
		}
		if string(summary) != tt.state {
			t.Fatalf("%s: state %s, want %s", tt.name, tr.State(room), tt.state)
		}
	}
	// The local presence is still untracked normally.
	if d := tr.Untrack(room, 1); len(d.Leaves["alice"].Metas) != 1 {
		t.Fatalf("local untrack = %s", d.JSON())
	}
}

// Once a relay is attached, local changes are logged in order; too many
// unpublished ones collapse into a request to republish everything.
func TestReplicationLog(t *testing.T) {
	t.Parallel()
	tr := NewTracker()
	if _, err := tr.Track(room, 1, "a", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if ups, overflow := tr.takePending(); len(ups) != 0 || overflow {
		t.Fatal("no log without a relay")
	}
	tr.startLog()
	if ps := tr.local(); len(ps) != 1 || ps[0].Key != "a" || ps[0].Replica != "" {
		t.Fatalf("local = %+v", ps)
	}
	d, _ := tr.Track(room, 1, "a", json.RawMessage(`{"v":2}`))
	tr.Untrack(room, 1)
	tr.Untrack(room, 1) // nothing left: not logged
	ups, overflow := tr.takePending()
	if overflow || len(ups) != 2 || len(ups[0].Leaves) != 1 || ups[0].Join == nil || ups[1].Join != nil || ups[1].Leaves[0] != ups[0].Join.Ref {
		t.Fatalf("log = %+v (overflow %v)", ups, overflow)
	}
	if string(ups[0].Join.Meta) != string(d.Joins["a"].Metas[0]) {
		t.Fatalf("logged meta %s, diff meta %s", ups[0].Join.Meta, d.Joins["a"].Metas[0])
	}
	for i := range maxPending + 1 {
		_, _ = tr.Track(channel.TopicKey{Name: strconv.Itoa(i)}, 10, "k", json.RawMessage(`{}`))
	}
	if ups, overflow := tr.takePending(); len(ups) != 0 || !overflow {
		t.Fatalf("after %d changes: %d logged, overflow %v", maxPending+1, len(ups), overflow)
	}
}

func TestSplitNotice(t *testing.T) {
	t.Parallel()
	n := notice{Replica: "0123456789abcdef", Op: opDiff}
	for i := range 1000 {
		n.Leaves = append(n.Leaves, "leaveleaveref"+string(rune('a'+i%26)))
		n.Joins = append(n.Joins, "joinjoinjoinref"+string(rune('a'+i%26)))
	}
	parts := splitNotice(n)
	if len(parts) < 2 {
		t.Fatalf("%d parts", len(parts))
	}
	var leaves, joins int
	for _, p := range parts {
		b, _ := json.Marshal(p)
		if len(b) > maxNotify {
			t.Fatalf("part of %d bytes", len(b))
		}
		leaves += len(p.Leaves)
		joins += len(p.Joins)
	}
	if leaves != 1000 || joins != 1000 {
		t.Fatalf("leaves %d joins %d", leaves, joins)
	}
	if got := splitNotice(notice{Replica: "r", Op: opDiff, Leaves: []string{"x"}, Joins: []string{"y"}}); len(got) != 1 {
		t.Fatalf("a small notice was split: %+v", got)
	}
}
