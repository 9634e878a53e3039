package plan

import (
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

func singleCol(r *schemacache.Relationship) (schemacache.ColPair, bool) {
	if r.Cardinality == schemacache.M2M || len(r.Columns) != 1 {
		return schemacache.ColPair{}, false
	}
	return r.Columns[0], true
}

func matchFKSingleCol(x string, r *schemacache.Relationship) bool {
	p, ok := singleCol(r)
	return ok && p.Col == x
}

func matchFKRefSingleCol(x string, r *schemacache.Relationship) bool {
	p, ok := singleCol(r)
	return ok && p.FCol == x
}

func matchConstraint(x string, r *schemacache.Relationship) bool {
	return r.Cardinality != schemacache.M2M && r.Constraint == x
}

func matchJunction(x string, r *schemacache.Relationship) bool {
	return r.Cardinality == schemacache.M2M && r.Junction.Table.Name == x
}

// FindRel finds the relationship that embeds target from origin, following
// PostgREST's findRel: target names the related table (or a foreign key
// constraint or column of origin), hint disambiguates by constraint,
// column or junction table.
func FindRel(c *schemacache.Cache, origin schemacache.QI, target, hint string) (*schemacache.Relationship, error) {
	var found []*schemacache.Relationship
	for _, r := range c.Relationships(origin) {
		ft := r.ForeignTable.Name
		var ok bool
		switch {
		case r.IsComputed():
			// A computed relationship is named by its function; a hint
			// plays no part.
			ok = target == r.Function.Name
		case r.IsSelf && hint == "":
			ok = (target == ft && r.Cardinality == schemacache.O2M) || (matchFKSingleCol(target, r) && r.Cardinality == schemacache.M2O)
		case r.IsSelf:
			ok = target == ft && r.Cardinality == schemacache.O2M && matchFKRefSingleCol(hint, r)
		case hint == "":
			ok = target == ft ||
				(matchConstraint(target, r) && !r.FTableIsView) ||
				(matchFKSingleCol(target, r) && !r.FTableIsView)
		default:
			ok = target == ft && (matchConstraint(hint, r) || matchFKSingleCol(hint, r) || matchFKRefSingleCol(hint, r) || matchJunction(hint, r))
		}
		if ok {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, pgrsterr.NoRelationship(origin.Name, target, hint, origin.Schema, noRelHint(c, origin, target))
	}
	details := make([]map[string]string, len(found))
	var hints []string
	for i, r := range found {
		details[i] = compressedRel(r)
		h := r.Constraint
		if r.Cardinality == schemacache.M2M {
			h = r.Junction.Table.Name
		}
		if r.IsComputed() {
			// PostgREST's hintList gives a computed one no text.
			hints = append(hints, "")
			continue
		}
		hints = append(hints, "'"+r.ForeignTable.Name+"!"+h+"'")
	}
	return nil, pgrsterr.AmbiguousRelationship(origin.Name, target, details,
		"Try changing '"+target+"' to one of the following: "+strings.Join(hints, ", ")+". Find the desired relationship in the 'details' key.")
}

func compressedRel(r *schemacache.Relationship) map[string]string {
	cols := func(ps []schemacache.ColPair, second bool) string {
		var s []string
		for _, p := range ps {
			if second {
				s = append(s, p.FCol)
			} else {
				s = append(s, p.Col)
			}
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	if r.IsComputed() {
		// PostgREST has no description for these (an ambiguity with a
		// computed relationship cannot arise from its cache).
		return map[string]string{}
	}
	m := map[string]string{"cardinality": r.Cardinality.String(), "embedding": r.Table.Name + " with " + r.ForeignTable.Name}
	if r.Cardinality == schemacache.M2M {
		j := r.Junction
		m["relationship"] = j.Table.Name + " using " + j.Constraint1 + cols(j.ColsSource, true) + " and " + j.Constraint2 + cols(j.ColsTarget, true)
	} else {
		m["relationship"] = r.Constraint + " using " + r.Table.Name + cols(r.Columns, false) + " and " + r.ForeignTable.Name + cols(r.Columns, true)
	}
	return m
}

// noRelHint suggests a close child name when the parent has relationships,
// else a close parent name (PostgREST's noRelBetweenHint).
func noRelHint(c *schemacache.Cache, origin schemacache.QI, target string) string {
	rels := c.Relationships(origin)
	if len(rels) > 0 {
		var names []string
		for _, r := range rels {
			if r.ForeignTable.Name == target {
				return ""
			}
			names = append(names, r.ForeignTable.Name)
		}
		if s := schemacache.Suggest(target, names); s != "" {
			return "Perhaps you meant '" + s + "' instead of '" + target + "'."
		}
		return ""
	}
	var names []string
	for _, t := range c.Tables(origin.Schema) {
		if len(c.Relationships(t.QI())) > 0 {
			names = append(names, t.Name)
		}
	}
	if s := schemacache.Suggest(origin.Name, names); s != "" && s != origin.Name {
		return "Perhaps you meant '" + s + "' instead of '" + origin.Name + "'."
	}
	return ""
}
