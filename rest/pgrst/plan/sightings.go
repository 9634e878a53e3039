package plan

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
)

// sightingSlots is how many filter values Sightings remembers: 32 KiB. A
// value is written into a statement when it comes back before about this
// many other values have taken its slot.
const sightingSlots = 4096

// Sightings remembers the filter values asked for recently, so that only
// a value asked for again is written into its statement's text. Such a
// statement is kept and planned once per connection for its value, which
// pays off for a value that repeats (an estate, a popular word) and costs
// a parse, a plan and an eviction from the statement cache for one that
// does not (many users typing many words: measured at half the floor's
// rate, against two thirds with the value bound and planned on each
// execution). The first sighting is therefore bound.
//
// It is a direct-mapped table of hashes: a collision forgets a value, so
// it is bound once more; it never inlines a value that was not asked for
// (barring a 64-bit hash collision, which only changes how the value is
// sent, not the answer). Safe for concurrent use.
type Sightings struct {
	seed  maphash.Seed
	slots [sightingSlots]atomic.Uint64
}

// NewSightings returns an empty table.
func NewSightings() *Sightings { return &Sightings{seed: maphash.MakeSeed()} }

// Again records that the filter e on schema.table.column was asked for and
// reports whether it was asked for recently before.
func (s *Sightings) Again(schema, table, column string, e parse.OpExpr) bool {
	var h maphash.Hash
	h.SetSeed(s.seed)
	for _, part := range [...]string{schema, table, column, e.Op, e.Lang, e.Value} {
		h.WriteString(part)
		h.WriteByte(0)
	}
	for _, v := range e.List {
		h.WriteString(v)
		h.WriteByte(0)
	}
	sum := h.Sum64() | 1 // 0 marks an empty slot
	slot := &s.slots[sum%sightingSlots]
	if slot.Load() == sum {
		return true
	}
	slot.Store(sum)
	return false
}
