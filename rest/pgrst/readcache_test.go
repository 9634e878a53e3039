package pgrst

import (
	"strconv"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// TestSnapCache: a key is kept when it comes a second time, a flood of
// keys that come once leaves the kept ones alone, and an entry answers
// only under the snapshot and configuration it was made under.
func TestSnapCache(t *testing.T) {
	t.Parallel()
	snap, other := &schemacache.Cache{}, &schemacache.Cache{}
	cfg := newLiveConfig(Config{})
	var c snapCache[int]
	offer := func(key string, v int) bool {
		if !c.admit([]byte(key)) {
			return false
		}
		c.put(key, snap, cfg, v)
		return true
	}

	if offer("hot", 1) {
		t.Fatal("a key offered once was admitted")
	}
	if _, ok := c.get([]byte("hot"), snap, cfg); ok {
		t.Fatal("a key offered once is kept")
	}
	if !offer("hot", 1) {
		t.Fatal("a key offered twice was not admitted")
	}
	if v, ok := c.get([]byte("hot"), snap, cfg); !ok || v != 1 {
		t.Fatalf("hot = %d, %v; want 1, true", v, ok)
	}

	for i := range 10 * onceSize {
		if offer("once "+strconv.Itoa(i), i) {
			t.Fatalf("key %d, offered once, was admitted", i)
		}
	}
	if len(c.once) > onceSize {
		t.Errorf("%d keys remembered as offered once, more than %d", len(c.once), onceSize)
	}
	if _, ok := c.get([]byte("hot"), snap, cfg); !ok {
		t.Error("keys offered once emptied the cache of a kept one")
	}

	if _, ok := c.get([]byte("hot"), other, cfg); ok {
		t.Error("an entry answered under another snapshot")
	}
	if _, ok := c.get([]byte("hot"), snap, newLiveConfig(Config{})); ok {
		t.Error("an entry answered under another configuration")
	}
	if c.admit(nil) || c.admit(nil) {
		t.Error("the empty key was admitted")
	}

	// Kept keys fill the map, which is then emptied.
	for i := range snapCacheSize + 1 {
		k := "kept " + strconv.Itoa(i)
		offer(k, i)
		offer(k, i)
	}
	if len(c.m) > snapCacheSize {
		t.Errorf("%d entries kept, more than %d", len(c.m), snapCacheSize)
	}
}
