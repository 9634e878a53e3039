package schemacache

import (
	"strconv"
	"strings"
)

// TargetEntry is one output column of a view's top-level query, as the
// rewrite rule's node tree (pg_rewrite.ev_action) records it.
type TargetEntry struct {
	Name string
	// OrigTable and OrigCol name the base table column the value is taken
	// from unchanged (resorigtbl, resorigcol); zero when it is computed.
	OrigTable uint32
	OrigCol   int
	Junk      bool
}

// ParseTargetList reads the top-level query's target list from a node tree
// printed by PostgreSQL's outfuncs ("({QUERY … :targetList ({TARGETENTRY
// … :resname id … :resorigtbl 16385 :resorigcol 1 :resjunk false}) …})").
// Anything it cannot read is skipped: a view it does not understand merely
// has no relationships.
func ParseTargetList(tree string) []TargetEntry {
	toks := tokenize(tree)
	var out []TargetEntry
	depth := 0
	inList := false
	var cur *TargetEntry
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t {
		case "{":
			depth++
			if inList && depth == 2 && i+1 < len(toks) && toks[i+1] == "TARGETENTRY" {
				out = append(out, TargetEntry{})
				cur = &out[len(out)-1]
			}
			continue
		case "}":
			depth--
			if depth < 2 {
				cur = nil
			}
			continue
		case ")":
			if inList && depth == 1 {
				return out
			}
			continue
		case "(":
			continue
		}
		if depth == 1 && t == ":targetList" {
			inList = true
			continue
		}
		if cur == nil || depth != 2 || i+1 >= len(toks) {
			continue
		}
		val := toks[i+1]
		switch t {
		case ":resname":
			if val != "<>" {
				cur.Name = unescapeToken(val)
			}
		case ":resorigtbl":
			n, _ := strconv.ParseUint(val, 10, 32)
			cur.OrigTable = uint32(n)
		case ":resorigcol":
			cur.OrigCol, _ = strconv.Atoi(val)
		case ":resjunk":
			cur.Junk = val == "true"
		}
	}
	return out
}

// tokenize splits a node tree into brackets and words, keeping backslash
// escapes inside words.
func tokenize(s string) []string {
	var out []string
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == '{' || c == '}' || c == '(' || c == ')':
			out = append(out, s[i:i+1])
			i++
		default:
			j := i
			for j < len(s) {
				d := s[j]
				if d == '\\' && j+1 < len(s) {
					j += 2
					continue
				}
				if d == ' ' || d == '\n' || d == '\t' || d == '{' || d == '}' || d == '(' || d == ')' {
					break
				}
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}

func unescapeToken(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
