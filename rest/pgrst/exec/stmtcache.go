package exec

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// maxStatements bounds the statements kept prepared on one connection;
// the oldest is deallocated past it.
const maxStatements = 256

const cacheKey = "kejanest.pgrst.statements"

// stmtCache maps statement text to its prepared name on one connection.
// A connection serves one request at a time; the mutex only guards the
// map against the pool's health checker reading CustomData.
type stmtCache struct {
	mu    sync.Mutex
	names map[string]string // sql → name
	order []string          // sql, oldest first
	// descs holds the result columns of prepared statements, so executing
	// them needs no Describe round of messages.
	descs map[string]*pgconn.StatementDescription // name → description
	// planChecked records that planChoice is known (checkPlanChoice);
	// planChoice that plan_cache_mode is PostgreSQL's default here, so a
	// statement may ask for custom plans. Only the connection's own
	// request touches them.
	planChecked, planChoice bool
}

func statements(pc *pgconn.PgConn) *stmtCache {
	data := pc.CustomData()
	if c, ok := data[cacheKey].(*stmtCache); ok {
		return c
	}
	c := &stmtCache{names: map[string]string{}, descs: map[string]*pgconn.StatementDescription{}}
	data[cacheKey] = c
	return c
}

// lookup returns the statement's name and whether it is prepared already;
// a new one is recorded as prepared, and the names it pushes out are
// returned for deallocation.
func (c *stmtCache) lookup(sql string) (name string, known bool, evicted []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.names[sql]; ok {
		return n, true, nil
	}
	sum := sha256.Sum256([]byte(sql))
	name = "pgrst_" + hex.EncodeToString(sum[:12])
	for len(c.order) >= maxStatements {
		old := c.order[0]
		c.order = c.order[1:]
		evicted = append(evicted, c.names[old])
		delete(c.descs, c.names[old])
		delete(c.names, old)
	}
	c.names[sql] = name
	c.order = append(c.order, sql)
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

func (c *stmtCache) drop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.descs, name)
	for sql, n := range c.names {
		if n == name {
			delete(c.names, sql)
			for i, s := range c.order {
				if s == sql {
					c.order = append(c.order[:i], c.order[i+1:]...)
					break
				}
			}
			return
		}
	}
}

func (c *stmtCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = map[string]string{}
	c.descs = map[string]*pgconn.StatementDescription{}
	c.order = nil
}
