package plan

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
)

// sightingSlots is how many filter values Sightings remembers: 32 KiB. A
// value's count survives as long as it comes back before about this many
// other values have taken its slot.
const sightingSlots = 4096

// InlineAt is the sighting at which a value is written into its
// statement. Written, a value costs a parse and a plan on each pooled
// connection it meets (and an eviction from that connection's statement
// cache later); bound, a plan on every execution. Writing pays off only
// for a value used again several times per connection, so a value must
// first show that it is asked often. Twice was too eager when many users
// type many words and each comes back now and then: restbench's many rare
// words (9,000 words in turn) wrote about a third of its values and ran at
// 44–57 % of the floor, against 72–86 % with eight.
const InlineAt = 8

// countBits holds a slot's count in its low bits; the rest of the slot
// is the value's hash.
const countBits = 8

// Sightings remembers the filter values asked for recently, and how often,
// so that only a value asked for often is written into its statement's
// text. Such a statement is kept and planned once per connection for its
// value, which pays off for a value that repeats (an estate, a popular
// word) and costs a parse, a plan and an eviction from the statement cache
// for one that does not. Until then the value is bound.
//
// It is a direct-mapped table of hashes and counts: a collision forgets a
// value, which starts counting again; it never inlines a value that was
// not asked for (barring a 56-bit hash collision, which only changes how
// the value is sent, not the answer). Safe for concurrent use: two
// requests counting one value at once may count it once, which only
// delays its inlining.
type Sightings struct {
	seed  maphash.Seed
	slots [sightingSlots]atomic.Uint64
}

// NewSightings returns an empty table.
func NewSightings() *Sightings { return &Sightings{seed: maphash.MakeSeed()} }

// Often records that the filter e on schema.table.column was asked for and
// reports whether it has now been asked for often enough recently
// (InlineAt times) to be written into its statement.
func (s *Sightings) Often(schema, table, column string, e parse.OpExpr) bool {
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
	const countMask = 1<<countBits - 1
	tag := h.Sum64() &^ countMask
	slot := &s.slots[(tag>>countBits)%sightingSlots]
	old := slot.Load()
	n := uint64(1)
	if old&^countMask == tag && old&countMask != 0 {
		n = min(old&countMask+1, countMask)
	}
	slot.Store(tag | n)
	return n >= InlineAt
}
