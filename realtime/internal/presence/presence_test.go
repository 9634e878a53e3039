package presence

import (
	"encoding/json"
	"testing"
)

func TestTrackUpdateUntrack(t *testing.T) {
	t.Parallel()
	tr := NewTracker()
	d, err := tr.Track("room", 1, "alice", json.RawMessage(`{"status":"online"}`))
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
	if _, err := tr.Track("room", 2, "bob", json.RawMessage(`{"status":"away"}`)); err != nil {
		t.Fatal(err)
	}
	// Re-tracking replaces the meta; the new one points at the old ref.
	d, _ = tr.Track("room", 1, "alice", json.RawMessage(`{"status":"busy"}`))
	_ = json.Unmarshal(d.Joins["alice"].Metas[0], &meta)
	if meta["phx_ref_prev"] != first || len(d.Leaves["alice"].Metas) != 1 {
		t.Fatalf("update diff = %s", d.JSON())
	}
	var state map[string]Metas
	if err := json.Unmarshal(tr.State("room"), &state); err != nil {
		t.Fatal(err)
	}
	if len(state) != 2 || len(state["alice"].Metas) != 1 || len(state["bob"].Metas) != 1 {
		t.Fatalf("state = %s", tr.State("room"))
	}
	d = tr.Untrack("room", 2)
	if len(d.Leaves["bob"].Metas) != 1 || len(d.Joins) != 0 {
		t.Fatalf("untrack diff = %s", d.JSON())
	}
	if d := tr.Untrack("room", 2); !d.Empty() {
		t.Fatal("second untrack must be empty")
	}
	if string(tr.State("other")) != "{}" {
		t.Fatal("unknown topic state must be {}")
	}
	if _, err := tr.Track("room", 3, "x", json.RawMessage(`[1]`)); err == nil {
		t.Fatal("a non-object payload must be refused")
	}
	if got := string(Diff{}.JSON()); got != `{"joins":{},"leaves":{}}` {
		t.Fatalf("empty diff json = %s", got)
	}
}
