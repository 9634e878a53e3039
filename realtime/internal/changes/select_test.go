package changes

import (
	"encoding/json"
	"testing"
)

// A binding's select keeps only the chosen columns in columns, record and
// old_record; bindings of one subscriber are grouped by selection.
func TestDataSelected(t *testing.T) {
	t.Parallel()
	d := Data{Schema: "public", Table: "t", Type: Update,
		Columns:   []Column{{"id", "int4"}, {"name", "text"}, {"secret", "text"}},
		Record:    map[string]json.RawMessage{"id": json.RawMessage(`1`), "name": json.RawMessage(`"n"`), "secret": json.RawMessage(`"s"`)},
		OldRecord: map[string]json.RawMessage{"id": json.RawMessage(`1`)}}
	all := d.selected(nil)
	if g := string(all.Encode()); g != string(d.Encode()) {
		t.Fatalf("nil selection changed the data: %s", g)
	}
	sel := d.selected([]string{"name", "missing"})
	want := `{"schema":"public","table":"t","commit_timestamp":"","type":"UPDATE","columns":[{"name":"name","type":"text"}],"record":{"name":"n"},"old_record":{},"errors":null}`
	if g := string(sel.Encode()); g != want {
		t.Fatalf("got  %s\nwant %s", g, want)
	}
	if len(d.Record) != 3 {
		t.Fatal("selected modified the original record")
	}

	var groups []selectGroup
	groups = addToGroup(groups, Subscription{ID: 1})
	groups = addToGroup(groups, Subscription{ID: 2, Select: []string{"name"}})
	groups = addToGroup(groups, Subscription{ID: 3})
	groups = addToGroup(groups, Subscription{ID: 4, Select: []string{"name"}})
	groups = addToGroup(groups, Subscription{ID: 4, Select: []string{"name"}})
	groups = addToGroup(groups, Subscription{ID: 5, Select: []string{"id"}})
	if len(groups) != 3 || len(groups[0].ids) != 2 || len(groups[1].ids) != 2 || groups[2].ids[0] != 5 {
		t.Fatalf("groups %+v", groups)
	}
}
