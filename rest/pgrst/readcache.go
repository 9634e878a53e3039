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
// database. Entries from an older snapshot or configuration are ignored.
type readCache struct {
	mu sync.RWMutex
	m  map[string]*readEntry
}

type readEntry struct {
	snapshot *schemacache.Cache
	// cfg is the configuration the entry was planned under.
	cfg  *liveConfig
	req  *parse.ApiRequest
	mt   parse.MediaType
	root *plan.ReadPlan
	// main and planned carry their arguments encoded.
	main    sqlgen.Query
	planned *sqlgen.Query
	// location is the Content-Location of the answer.
	location string
	// customPlan is the root's plan.CustomPlan; estimate the count's
	// EXPLAIN for count=estimated (nil otherwise).
	customPlan bool
	estimate   *sqlgen.Query
}

// appendReadKey appends what identifies a read to b, or returns nil for
// requests not cached.
func appendReadKey(b []byte, r *Request) []byte {
	if r.Method != "GET" && r.Method != "HEAD" {
		return nil
	}
	if strings.HasPrefix(r.Path, "/rpc/") || strings.Trim(r.Path, "/") == "" {
		return nil
	}
	b = append(b, r.Method...)
	b = append(b, 0)
	b = append(b, r.Path...)
	b = append(b, 0)
	b = append(b, r.RawQuery...)
	for _, h := range [...]string{"Accept", "Accept-Profile", "Range"} {
		b = append(b, 0)
		b = append(b, r.Header(h)...)
	}
	for _, h := range r.Headers {
		if strings.EqualFold(h[0], "Prefer") {
			b = append(b, 0)
			b = append(b, h[1]...)
		}
	}
	if len(b) > maxCachedKey {
		return nil
	}
	return b
}

// get returns the entry of key made from snap under cfg, or nil.
func (c *readCache) get(key []byte, snap *schemacache.Cache, cfg *liveConfig) *readEntry {
	if key == nil {
		return nil
	}
	c.mu.RLock()
	e := c.m[string(key)]
	c.mu.RUnlock()
	if e == nil || e.snapshot != snap || e.cfg != cfg {
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
