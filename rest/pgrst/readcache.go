package pgrst

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// snapCacheSize bounds the entries a snapCache keeps; it is emptied when
// it fills.
const snapCacheSize = 1024

// onceSize bounds the keys a snapCache remembers as offered once (a hash
// each); it is emptied when it fills.
const onceSize = 4 * snapCacheSize

// maxCachedKey bounds the requests worth caching (long query strings are
// rarely repeated).
const maxCachedKey = 2048

// snapCache keeps what was built under one schema snapshot and
// configuration: an entry made under others is ignored. It holds the read
// cache and the shape cache (shapecache.go). Safe for concurrent use.
//
// A key is kept only when it comes a second time (admit). Most requests
// not asked before are asked once (another listing's detail page, another
// word), and kept at once they filled the map and emptied it, taking the
// requests that do repeat (a screen's list) with them; the shape cache
// also spent a second build learning each shape it then never saw again.
type snapCache[V any] struct {
	mu sync.RWMutex
	m  map[string]snapEntry[V]
	// once holds the hashes of keys offered once and not yet kept.
	once map[uint64]struct{}
	seed maphash.Seed
}

// admit reports whether key was offered before, and notes it otherwise.
// A hash collision admits a key early, which costs only the entry.
func (c *snapCache[V]) admit(key []byte) bool {
	if len(key) == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.once == nil || len(c.once) >= onceSize {
		if c.once == nil {
			c.seed = maphash.MakeSeed()
		}
		c.once = make(map[uint64]struct{}, 64)
	}
	h := maphash.Bytes(c.seed, key)
	if _, ok := c.once[h]; ok {
		delete(c.once, h)
		return true
	}
	c.once[h] = struct{}{}
	return false
}

type snapEntry[V any] struct {
	snapshot *schemacache.Cache
	cfg      *liveConfig
	v        V
}

// get returns the value of key made from snap under cfg.
func (c *snapCache[V]) get(key []byte, snap *schemacache.Cache, cfg *liveConfig) (v V, ok bool) {
	c.mu.RLock()
	e, ok := c.m[string(key)]
	c.mu.RUnlock()
	if !ok || e.snapshot != snap || e.cfg != cfg {
		return v, false
	}
	return e.v, true
}

// put keeps v for key, made from snap under cfg; the empty key is never
// kept (the requests not worth keeping have it).
func (c *snapCache[V]) put(key string, snap *schemacache.Cache, cfg *liveConfig, v V) {
	if key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= snapCacheSize {
		c.m = make(map[string]snapEntry[V], 64)
	}
	c.m[key] = snapEntry[V]{snapshot: snap, cfg: cfg, v: v}
}

// readCache keeps the outcome of parse, plan and sqlgen for GET/HEAD
// requests on tables: what they produce depends only on the request line,
// the headers in the key and the schema snapshot, never on who asks, so a
// repeated read (a listing page, a dashboard count) skips straight to the
// database.
type readCache = snapCache[*readEntry]

type readEntry struct {
	req  *parse.ApiRequest
	mt   parse.MediaType
	root *plan.ReadPlan
	// main and planned carry their arguments encoded.
	main    sqlgen.Query
	planned *sqlgen.Query
	// location is the Content-Location of the answer.
	location string
	// customPlan is the root's plan.CustomPlan; estimate the count's
	// EXPLAIN for count=estimated (nil otherwise), and along whether to
	// send it with the read (readStmts.along).
	customPlan bool
	estimate   *sqlgen.Query
	along      *atomic.Bool
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
	// Every Prefer header, as parse reads them (Request.HeaderValues),
	// without the slice.
	for _, h := range r.Headers {
		if equalFoldASCII(h[0], "Prefer") {
			b = append(b, 0)
			b = append(b, h[1]...)
		}
	}
	if len(b) > maxCachedKey {
		return nil
	}
	return b
}
