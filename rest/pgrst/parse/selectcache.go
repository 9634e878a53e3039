package parse

import "sync"

// selectCacheSize bounds the select= lists kept; the cache is emptied
// when it fills.
const selectCacheSize = 256

// maxCachedSelect bounds the select= lists worth keeping: a long one is
// rarely repeated.
const maxCachedSelect = 4096

// SelectCache keeps select= lists parsed. A screen asks for the same
// columns with every request (the app's listing screens for 19 of them),
// and parsing that list was most of parse's time for a read not asked
// before. The trees are shared between requests: nothing after parse may
// change them (the golden tests check that plan does not). The zero value
// is ready; a nil *SelectCache parses every time. Safe for concurrent use.
type SelectCache struct {
	mu sync.RWMutex
	m  map[string][]*SelectItem
}

// parse is ParseSelect, answered from c when s was parsed before. Errors
// are not kept.
func (c *SelectCache) parse(s string) ([]*SelectItem, error) {
	if c == nil || len(s) > maxCachedSelect {
		return ParseSelect(s)
	}
	c.mu.RLock()
	items, ok := c.m[s]
	c.mu.RUnlock()
	if ok {
		return items, nil
	}
	items, err := ParseSelect(s)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= selectCacheSize {
		c.m = make(map[string][]*SelectItem, 16)
	}
	c.m[s] = items
	return items, nil
}
