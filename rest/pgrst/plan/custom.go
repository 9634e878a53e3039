package plan

import (
	"strings"
	"unicode/utf8"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
)

// CustomPlan reports whether a statement filtering by where should be
// planned for its values on every execution (exec.Tx.CustomPlan) rather
// than left to PostgreSQL's choice of a generic plan. A value-sensitive
// filter (ValueSensitive) decides the plan by its value: a generic plan
// guesses full-text search, patterns, ranges, lists and containment with
// a fixed fraction, so one planned for a common word walks an index over
// most of the table for a rare one. sqlgen writes such a value into the
// statement's text when the planner marked it so (Filter.Inline: it can
// be written, and it is asked for often), which gives the value its own kept
// statement, planned once for it; any other value is bound and needs a
// custom plan on every execution. Equality and is are left to
// PostgreSQL: their generic estimate is the column's average frequency,
// and auto mode keeps custom plans where the value changes the cost (a
// partial index's predicate).
func CustomPlan(where []Logic) bool {
	for i := range where {
		if customLogic(&where[i]) {
			return true
		}
	}
	return false
}

func customLogic(l *Logic) bool {
	if l.Filter != nil && l.Filter.NullEmbed == "" && ValueSensitive(l.Filter.Expr.Op) && !l.Filter.Inline {
		return true
	}
	return CustomPlan(l.Children)
}

// ValueSensitive reports whether the best plan for a filter with op
// depends on the filter's value.
func ValueSensitive(op string) bool {
	switch op {
	case parse.OpEq, parse.OpNeq, parse.OpIs, parse.OpIsDistinct:
		return false
	}
	return true
}

// MaxInlined bounds the bytes of values sqlgen writes into a statement's
// text: every distinct value is a statement of its own, kept prepared on
// each connection, and a long list would keep its length there too.
const MaxInlined = 1024

// Inlinable reports whether e's values can be written into a statement as
// literals: text PostgreSQL accepts in a query string (valid UTF-8, no
// NUL, which would end it) and at most MaxInlined bytes in all. Others
// are bound as parameters.
func Inlinable(e parse.OpExpr) bool {
	n := len(e.Value) + len(e.Lang)
	ok := inlinableText(e.Value) && inlinableText(e.Lang)
	for _, v := range e.List {
		n += len(v) + 3 // quotes and separator in the array literal
		ok = ok && inlinableText(v)
	}
	return ok && n <= MaxInlined
}

func inlinableText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// CustomPlan reports whether any node of the read filters as CustomPlan
// describes.
func (r *ReadPlan) CustomPlan() bool {
	if r == nil {
		return false
	}
	if CustomPlan(r.Where) {
		return true
	}
	for _, c := range r.Children {
		if c.CustomPlan() {
			return true
		}
	}
	return false
}
