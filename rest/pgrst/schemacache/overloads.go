package schemacache

import (
	"cmp"
	"strings"
)

// compareOverloads orders the overloads of one function as PostgREST's
// Routine Ord instance does (SchemaCache/Routine.hs), which decides the
// order of the candidates PGRST203 lists: fewer parameters first, then by
// description (none first), the parameters (name, type, required,
// variadic), the return type (a single value before a set, a scalar before
// a composite, then its qualified name), the volatility (volatile, stable,
// immutable), VARIADIC, and the SET clauses.
func compareOverloads(a, b *Function) int {
	if c := cmp.Compare(len(a.Params), len(b.Params)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Description, b.Description); c != 0 {
		return c
	}
	for i := range a.Params {
		pa, pb := a.Params[i], b.Params[i]
		if c := strings.Compare(pa.Name, pb.Name); c != 0 {
			return c
		}
		if c := strings.Compare(pa.Type, pb.Type); c != 0 {
			return c
		}
		if c := compareBool(pa.Required, pb.Required); c != 0 {
			return c
		}
		if c := compareBool(pa.Variadic, pb.Variadic); c != 0 {
			return c
		}
	}
	if c := compareBool(a.RetSet, b.RetSet); c != 0 {
		return c
	}
	if c := compareBool(a.Composite, b.Composite); c != 0 {
		return c
	}
	if c := strings.Compare(a.ReturnTypeSchema, b.ReturnTypeSchema); c != 0 {
		return c
	}
	if c := strings.Compare(a.ReturnTypeName, b.ReturnTypeName); c != 0 {
		return c
	}
	if c := cmp.Compare(volatilityRank(a.Volatility), volatilityRank(b.Volatility)); c != 0 {
		return c
	}
	if c := compareBool(a.variadic(), b.variadic()); c != 0 {
		return c
	}
	for i := 0; i < min(len(a.Settings), len(b.Settings)); i++ {
		if c := strings.Compare(a.Settings[i][0], b.Settings[i][0]); c != 0 {
			return c
		}
		if c := strings.Compare(a.Settings[i][1], b.Settings[i][1]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.Settings), len(b.Settings))
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// volatilityRank is the position of a pg_proc.provolatile code in
// PostgREST's FuncVolatility (Volatile, Stable, Immutable).
func volatilityRank(v byte) int {
	switch v {
	case 'v':
		return 0
	case 's':
		return 1
	}
	return 2
}

func (f *Function) variadic() bool {
	for _, p := range f.Params {
		if p.Variadic {
			return true
		}
	}
	return false
}
