package channel

import (
	"sync"
	"sync/atomic"

	"github.com/kejanest/kejanest/realtime/internal/changes"
)

// TopicKey names a topic's audience: public and private channels of the
// same name are separate, as in Supabase.
type TopicKey struct {
	Private bool
	Name    string
}

// Key returns the channel's TopicKey.
func (c *Channel) Key() TopicKey { return TopicKey{c.Private, c.Name} }

// Registry finds joined channels. It is safe for concurrent use; change
// dispatch reads a snapshot without locking.
type Registry struct {
	mu     sync.Mutex
	topics map[TopicKey]map[*Channel]struct{}
	pg     map[*Channel]struct{}
	snap   atomic.Pointer[[]changes.Subscriber]
	count  atomic.Int64
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	r := &Registry{topics: map[TopicKey]map[*Channel]struct{}{}, pg: map[*Channel]struct{}{}}
	r.snap.Store(&[]changes.Subscriber{})
	return r
}

// Add registers c.
func (r *Registry) Add(c *Channel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := c.Key()
	m := r.topics[k]
	if m == nil {
		m = map[*Channel]struct{}{}
		r.topics[k] = m
	}
	if _, dup := m[c]; dup {
		return
	}
	m[c] = struct{}{}
	r.count.Add(1)
	if c.HasSubscriptions() {
		r.pg[c] = struct{}{}
		r.rebuild()
	}
}

// Remove unregisters c (no-op if absent).
func (r *Registry) Remove(c *Channel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := c.Key()
	if m := r.topics[k]; m != nil {
		if _, ok := m[c]; ok {
			delete(m, c)
			r.count.Add(-1)
		}
		if len(m) == 0 {
			delete(r.topics, k)
		}
	}
	if _, ok := r.pg[c]; ok {
		delete(r.pg, c)
		r.rebuild()
	}
}

func (r *Registry) rebuild() {
	s := make([]changes.Subscriber, 0, len(r.pg))
	for c := range r.pg {
		s = append(s, c)
	}
	r.snap.Store(&s)
}

// Members returns the channels joined to k.
func (r *Registry) Members(k TopicKey) []*Channel {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.topics[k]
	out := make([]*Channel, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	return out
}

// Subscribers returns the channels with postgres_changes bindings.
func (r *Registry) Subscribers() []changes.Subscriber { return *r.snap.Load() }

// Len is the number of registered channels.
func (r *Registry) Len() int { return int(r.count.Load()) }
