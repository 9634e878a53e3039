package pgrst

import (
	"strings"
	"sync"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// readCacheSize bounds the planned reads kept; the cache is emptied when it
// fills.
const readCacheSize = 1024

// maxCachedKey bounds the requests worth caching (long query strings are
// rarely repeated).
const maxCachedKey = 2048

// readCache keeps the outcome of parse, plan and sqlgen for GET/HEAD
// requests on tables: what they produce depends only on the request line,
// the headers in the key and the schema snapshot, never on who asks, so a
// repeated read (a listing page, a dashboard count) skips straight to the
// database. Entries from an older snapshot are ignored.
type readCache struct {
	mu sync.RWMutex
	m  map[string]*readEntry
}

type readEntry struct {
	snapshot *schemacache.Cache
	req      *parse.ApiRequest
	mt       parse.MediaType
	root     *plan.ReadPlan
	main     sqlgen.Query
	planned  *sqlgen.Query
}

// readKey identifies a read, or returns "" for requests not cached.
func readKey(r *Request) string {
	if r.Method != "GET" && r.Method != "HEAD" {
		return ""
	}
	if strings.HasPrefix(r.Path, "/rpc/") || strings.Trim(r.Path, "/") == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(r.Path) + len(r.RawQuery) + 64)
	b.WriteString(r.Method)
	b.WriteByte(0)
	b.WriteString(r.Path)
	b.WriteByte(0)
	b.WriteString(r.RawQuery)
	for _, h := range [...]string{"Accept", "Accept-Profile", "Range"} {
		b.WriteByte(0)
		b.WriteString(r.Header(h))
	}
	for _, v := range r.HeaderValues("Prefer") {
		b.WriteByte(0)
		b.WriteString(v)
	}
	if b.Len() > maxCachedKey {
		return ""
	}
	return b.String()
}

func (c *readCache) get(key string, snap *schemacache.Cache) *readEntry {
	if key == "" {
		return nil
	}
	c.mu.RLock()
	e := c.m[key]
	c.mu.RUnlock()
	if e == nil || e.snapshot != snap {
		return nil
	}
	return e
}

func (c *readCache) put(key string, e *readEntry) {
	if key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= readCacheSize {
		c.m = make(map[string]*readEntry, 64)
	}
	c.m[key] = e
}
