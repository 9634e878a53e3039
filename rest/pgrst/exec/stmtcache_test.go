package exec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestStmtCacheEvictsLeastRecentlyUsed fills the cache, touches some of
// its oldest statements, and checks that new statements push out the
// least recently used ones, not the first prepared.
func TestStmtCacheEvictsLeastRecentlyUsed(t *testing.T) {
	sqlOf := func(i int) string { return fmt.Sprintf("select %d", i) }
	tests := []struct {
		name    string
		touch   []int // statements looked up again after the cache is full
		add     int   // new statements then prepared
		evicted []int // statements that must have been pushed out, in order
	}{
		{name: "untouched, oldest first", add: 2, evicted: []int{0, 1}},
		{name: "touched oldest survives", touch: []int{0}, add: 2, evicted: []int{1, 2}},
		{name: "touch order decides", touch: []int{2, 0, 1}, add: 4, evicted: []int{3, 4, 5, 6}},
		{name: "touched then aged out", touch: []int{0}, add: maxStatements, evicted: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newStmtCache()
			names := map[string]int{}
			for i := range maxStatements {
				name, known, ev := c.lookup(sqlOf(i))
				if known || len(ev) > 0 {
					t.Fatalf("filling %d: known %v, evicted %v", i, known, ev)
				}
				names[name] = i
			}
			for _, i := range tt.touch {
				if _, known, ev := c.lookup(sqlOf(i)); !known || len(ev) > 0 {
					t.Fatalf("touching %d: known %v, evicted %v", i, known, ev)
				}
			}
			var got []int
			for j := range tt.add {
				_, known, ev := c.lookup(sqlOf(maxStatements + j))
				if known {
					t.Fatalf("new statement %d reported known", j)
				}
				if len(ev) != 1 {
					t.Fatalf("new statement %d evicted %v, want one", j, ev)
				}
				got = append(got, names[ev[0]])
			}
			if len(c.entries) != maxStatements {
				t.Errorf("cache holds %d, want %d", len(c.entries), maxStatements)
			}
			if tt.evicted != nil && !slices.Equal(got, tt.evicted) {
				t.Errorf("evicted %v, want %v", got, tt.evicted)
			}
			if tt.evicted == nil {
				// Every original statement is out after maxStatements new
				// ones; the touched one went last.
				if got[len(got)-1] != tt.touch[0] {
					t.Errorf("last evicted %d, want the touched %d", got[len(got)-1], tt.touch[0])
				}
			}
			// Looking a statement up re-adds it, so only the first evicted
			// one is checked.
			if _, known, _ := c.lookup(sqlOf(got[0])); known {
				t.Errorf("evicted statement %d still known", got[0])
			}
		})
	}
}

// TestStmtCacheDropAndReset checks that a dropped statement is prepared
// again, that the order stays whole after a drop in its middle, and that a
// reset forgets everything.
func TestStmtCacheDropAndReset(t *testing.T) {
	c := newStmtCache()
	var names []string
	for i := range 3 {
		name, _, _ := c.lookup(fmt.Sprintf("select %d", i))
		names = append(names, name)
	}
	c.describe(names[1], &pgconn.StatementDescription{Fields: []pgconn.FieldDescription{{Name: "x"}}})
	c.drop(names[1])
	if _, known, _ := c.lookup("select 1"); known {
		t.Error("dropped statement still known")
	}
	if sd := c.description(names[1]); len(sd.Fields) != 0 {
		t.Error("dropped statement kept its description")
	}
	var order []string
	for el := c.recent.Front(); el != nil; el = el.Next() {
		order = append(order, el.Value.(*stmtEntry).sql)
	}
	if want := []string{"select 1", "select 2", "select 0"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	c.reset()
	if _, known, _ := c.lookup("select 0"); known || len(c.entries) != 1 {
		t.Errorf("after reset: known %v, %d entries", known, len(c.entries))
	}
}
