package exec

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// maxStatements bounds the statements kept prepared on one connection;
// the least recently used is deallocated past it.
const maxStatements = 256

const cacheKey = "kejanest.pgrst.statements"

// stmtCache maps statement text to its prepared name on one connection.
// A connection serves one request at a time; the mutex only guards the
// map against the pool's health checker reading CustomData.
//
// Eviction is least recently used: the preamble and a hot read run on
// nearly every request, and evicting them in the order they were first
// prepared would deallocate them every maxStatements new statements (each
// a value written into its text, plan.Sightings), only to prepare and plan
// them again on the next request.
type stmtCache struct {
	mu      sync.Mutex
	entries map[string]*list.Element // sql → element of recent
	// recent orders the statements most recently used first; each
	// element's Value is a *stmtEntry.
	recent list.List
	// descs holds the result columns of prepared statements, so executing
	// them needs no Describe round of messages.
	descs map[string]*pgconn.StatementDescription // name → description
	// planChecked records that planChoice is known (checkPlanChoice);
	// planChoice that plan_cache_mode is PostgreSQL's default here, so a
	// statement may ask for custom plans. Only the connection's own
	// request touches them.
	planChecked, planChoice bool
}

type stmtEntry struct{ sql, name string }

func newStmtCache() *stmtCache {
	c := &stmtCache{}
	c.clear()
	return c
}

func statements(pc *pgconn.PgConn) *stmtCache {
	data := pc.CustomData()
	if c, ok := data[cacheKey].(*stmtCache); ok {
		return c
	}
	c := newStmtCache()
	data[cacheKey] = c
	return c
}

// lookup returns the statement's name and whether it is prepared already,
// and marks it most recently used; a new one is recorded as prepared, and
// the names it pushes out are returned for deallocation.
func (c *stmtCache) lookup(sql string) (name string, known bool, evicted []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[sql]; ok {
		c.recent.MoveToFront(el)
		return el.Value.(*stmtEntry).name, true, nil
	}
	sum := sha256.Sum256([]byte(sql))
	name = "pgrst_" + hex.EncodeToString(sum[:12])
	for len(c.entries) >= maxStatements {
		old := c.recent.Remove(c.recent.Back()).(*stmtEntry)
		delete(c.entries, old.sql)
		delete(c.descs, old.name)
		evicted = append(evicted, old.name)
	}
	c.entries[sql] = c.recent.PushFront(&stmtEntry{sql: sql, name: name})
	return name, false, evicted
}

// describe records a prepared statement's description.
func (c *stmtCache) describe(name string, sd *pgconn.StatementDescription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sd.Name = name
	c.descs[name] = sd
}

// description returns what to execute name with: its recorded
// description, or one without fields (which asks the server to describe
// the result).
func (c *stmtCache) description(name string) *pgconn.StatementDescription {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sd := c.descs[name]; sd != nil {
		return sd
	}
	return &pgconn.StatementDescription{Name: name}
}

// drop forgets a statement whose Prepare did not complete. It is rare
// (a failed request), so finding it by name walks the list.
func (c *stmtCache) drop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.descs, name)
	for el := c.recent.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*stmtEntry); e.name == name {
			c.recent.Remove(el)
			delete(c.entries, e.sql)
			return
		}
	}
}

func (c *stmtCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
}

func (c *stmtCache) clear() {
	c.entries = map[string]*list.Element{}
	c.descs = map[string]*pgconn.StatementDescription{}
	c.recent.Init()
}
