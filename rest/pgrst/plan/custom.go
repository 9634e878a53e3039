package plan

import "github.com/kejanest/kejanest/rest/pgrst/parse"

// CustomPlan reports whether a statement filtering by where should be
// planned for its values on every execution (exec.Tx.CustomPlan) rather
// than left to PostgreSQL's choice of a generic plan. It should when an
// operator's selectivity depends on the value itself: full-text search,
// patterns, ranges, lists, containment. A generic plan guesses those with
// a fixed fraction, so one planned for a common word walks an index over
// most of the table for a rare one. Equality and is are left to
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
	if l.Filter != nil && l.Filter.NullEmbed == "" && valueSensitive(l.Filter.Expr.Op) {
		return true
	}
	return CustomPlan(l.Children)
}

func valueSensitive(op string) bool {
	switch op {
	case parse.OpEq, parse.OpNeq, parse.OpIs, parse.OpIsDistinct:
		return false
	}
	return true
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
