// Package schemacache holds what the PostgREST pipeline knows about the
// database: the tables, views and columns of the exposed schemas, their keys,
// the relationships between them (many-to-one, one-to-many, one-to-one and
// many-to-many through a junction table, including those of views), and the
// functions callable through rpc (PostgREST SchemaCache.hs).
//
// A Cache is immutable once built; a Holder swaps a new one in atomically
// when Listen hears `NOTIFY pgrst, 'reload schema'`. Every identifier the
// SQL generator writes comes from a Cache.
package schemacache

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// QI is a qualified identifier: schema and name.
type QI struct {
	Schema, Name string
}

// String is "schema.name".
func (q QI) String() string { return q.Schema + "." + q.Name }

// Column is one column of a table, view or composite type.
type Column struct {
	Name string
	// Type is the declared type as format_type prints it ("text[]",
	// "character varying(20)", "public.status"): what the generator casts
	// JSON payloads to.
	Type string
	// BaseType is the type's name with domains resolved ("jsonb", "tsvector",
	// "_text" for text[]).
	BaseType string
	// IsArray reports an array type.
	IsArray  bool
	Nullable bool
	// Default is the default expression as pg_get_expr prints it, or "".
	Default     string
	Generated   bool
	Identity    bool
	MaxLength   int
	Enum        []string
	Description string
}

// IsJSON reports a json or jsonb column (JSON paths apply without to_jsonb).
func (c *Column) IsJSON() bool { return c.BaseType == "json" || c.BaseType == "jsonb" }

// IsTSVector reports a tsvector column (full-text filters apply directly).
func (c *Column) IsTSVector() bool { return c.BaseType == "tsvector" }

// Table is a table, view, materialized view or foreign table, or the
// column set a function returns.
type Table struct {
	Schema, Name string
	// Kind is pg_class.relkind ('r', 'v', 'm', 'f', 'p'), or 'c' for a
	// function's composite result.
	Kind        byte
	Description string
	Insertable  bool
	Updatable   bool
	Deletable   bool
	// HasChildren is true for a table with (or that once had) inheritance
	// children, whose rows a read of the table includes; its keys do not
	// bind theirs. A partitioned table's keys span its partitions, so it
	// never has this set.
	HasChildren bool
	// PK lists the primary key columns (for views: the base table's, when
	// the view exposes all of them).
	PK []string
	// Uniques lists the unique constraints' columns.
	Uniques [][]string
	Columns []*Column
	byName  map[string]*Column
}

// QI returns the table's qualified identifier.
func (t *Table) QI() QI { return QI{t.Schema, t.Name} }

// IsView reports a view or materialized view.
func (t *Table) IsView() bool { return t.Kind == 'v' || t.Kind == 'm' }

// Column returns the named column, or nil.
func (t *Table) Column(name string) *Column { return t.byName[name] }

func (t *Table) index() {
	t.byName = make(map[string]*Column, len(t.Columns))
	for _, c := range t.Columns {
		t.byName[c.Name] = c
	}
}

// isKey reports whether cols are exactly the primary key or a unique key.
func (t *Table) isKey(cols []string) bool {
	if sameSet(cols, t.PK) {
		return true
	}
	for _, u := range t.Uniques {
		if sameSet(cols, u) {
			return true
		}
	}
	return false
}

// KeyPinned reports whether pinned holds for every column of the table's
// primary key or of one of its unique constraints: rows that pinned
// columns each hold to one value are then at most one. Only a table's own
// constraints say so (relkind r or p): a view's key is inferred from its
// base table, and the view may repeat a row; an inheritance child may
// repeat its parent's key.
func (t *Table) KeyPinned(pinned func(col string) bool) bool {
	if (t.Kind != 'r' && t.Kind != 'p') || t.HasChildren {
		return false
	}
	all := func(cols []string) bool {
		for _, c := range cols {
			if !pinned(c) {
				return false
			}
		}
		return len(cols) > 0
	}
	if all(t.PK) {
		return true
	}
	for _, u := range t.Uniques {
		if all(u) {
			return true
		}
	}
	return false
}

// Cardinality is a relationship's kind, seen from its origin.
type Cardinality int

// The cardinalities.
const (
	M2O Cardinality = iota
	O2M
	O2O
	M2M
)

// String is PostgREST's name of the cardinality.
func (c Cardinality) String() string {
	switch c {
	case M2O:
		return "many-to-one"
	case O2M:
		return "one-to-many"
	case O2O:
		return "one-to-one"
	default:
		return "many-to-many"
	}
}

// ColPair is one column of a foreign key: the origin's column and the
// target's.
type ColPair struct {
	Col, FCol string
}

// Junction is the table linking a many-to-many relationship.
type Junction struct {
	Table QI
	// Constraint1 links the junction to the origin, Constraint2 to the
	// target.
	Constraint1, Constraint2 string
	// ColsSource pairs origin columns (Col) with junction columns (FCol);
	// ColsTarget pairs target columns (Col) with junction columns (FCol).
	ColsSource, ColsTarget []ColPair
}

// Relationship is one way to embed ForeignTable from Table.
type Relationship struct {
	Table, ForeignTable QI
	Cardinality         Cardinality
	// Constraint is the foreign key's name (for M2M: empty; see Junction).
	Constraint string
	// Columns pair Table's columns with ForeignTable's (M2O, O2M, O2O).
	Columns []ColPair
	// Junction is set for M2M.
	Junction *Junction
	// IsSelf reports a table related to itself.
	IsSelf bool
	// FTableIsView reports that ForeignTable is a view.
	FTableIsView bool
	// O2OParent reports, for O2O, that Table holds the referenced key.
	O2OParent bool
	// Function is, for a computed relationship, the function of Table's
	// row returning ForeignTable's rows (PostgREST's ComputedRelationship):
	// a single row (M2O) or a set (O2M). Zero for a foreign key.
	Function QI
}

// ToOne reports M2O and O2O relationships (embedded as an object).
func (r *Relationship) ToOne() bool { return r.Cardinality == M2O || r.Cardinality == O2O }

// IsComputed reports a computed relationship: its rows come from a
// function of the parent row, with no join condition.
func (r *Relationship) IsComputed() bool { return r.Function.Name != "" }

// Param is one input parameter of a function.
type Param struct {
	Name string
	// Type is format_type of the parameter type; BaseType its type name.
	Type, BaseType string
	Required       bool
	Variadic       bool
}

// Function is one overload of a callable function.
type Function struct {
	Schema, Name, Description string
	Params                    []Param
	// ReturnType is format_type of the return type ("integer", "void",
	// "SETOF"-less), ReturnTypeName its pg_type name.
	ReturnType, ReturnTypeName string
	// ReturnTypeSchema is the schema of the return type.
	ReturnTypeSchema string
	// RetSet reports SETOF/TABLE.
	RetSet bool
	// Composite reports a row result (a table's type, a composite type,
	// OUT/TABLE parameters); Columns are its fields then.
	Composite bool
	Columns   []*Column
	// ReturnTable is the exposed table whose row type the function returns,
	// so its result embeds that table's relationships; empty otherwise.
	ReturnTable QI
	// Volatility is 'v', 's' or 'i'.
	Volatility byte
	// Settings are the function's SET clauses, name and value.
	Settings [][2]string
}

// QI returns the function's qualified identifier.
func (f *Function) QI() QI { return QI{f.Schema, f.Name} }

// ReturnsVoid reports a void function (answered 204).
func (f *Function) ReturnsVoid() bool { return f.ReturnTypeName == "void" && !f.Composite }

// ReturnsScalar reports a single scalar result.
func (f *Function) ReturnsScalar() bool { return !f.RetSet && !f.Composite }

// ReturnsSetOfScalar reports SETOF a scalar type.
func (f *Function) ReturnsSetOfScalar() bool { return f.RetSet && !f.Composite }

// ReturnsSingleComposite reports a single row result.
func (f *Function) ReturnsSingleComposite() bool { return !f.RetSet && f.Composite }

// ResultTable returns the column set the function's rows have, as a Table
// (the exposed table itself when ReturnTable is set).
func (f *Function) ResultTable(c *Cache) *Table {
	if f.ReturnTable.Name != "" {
		if t := c.Table(f.ReturnTable); t != nil {
			return t
		}
	}
	t := &Table{Schema: f.Schema, Name: f.Name, Kind: 'c', Columns: f.Columns}
	t.index()
	return t
}

// Cache is one consistent snapshot of the schema. It is never modified
// after Build returns it.
type Cache struct {
	// Schemas are the exposed schemas, the first being the default.
	Schemas  []string
	tables   map[QI]*Table
	rels     map[QI][]*Relationship
	funcs    map[QI][]*Function
	computed map[QI]map[string]*Function
	roleSets map[string][][2]string
	// LoadedAt is when the snapshot was taken.
	LoadedAt time.Time
}

// Table returns the table or view, or nil.
func (c *Cache) Table(q QI) *Table { return c.tables[q] }

// Tables returns every table of schema, sorted by name.
func (c *Cache) Tables(schema string) []*Table {
	var out []*Table
	for q, t := range c.tables {
		if q.Schema == schema {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Relationships returns the relationships whose origin is q.
func (c *Cache) Relationships(q QI) []*Relationship { return c.rels[q] }

// ComputedField returns the function that computes field name of table q
// (a function in q's schema taking q's row as its only parameter and
// returning a scalar), or nil.
func (c *Cache) ComputedField(q QI, name string) *Function { return c.computed[q][name] }

// Functions returns the overloads named q, in PostgREST's order (see
// compareOverloads).
func (c *Cache) Functions(q QI) []*Function { return c.funcs[q] }

// FunctionNames returns the names of schema's functions, sorted.
func (c *Cache) FunctionNames(schema string) []string {
	var out []string
	for q := range c.funcs {
		if q.Schema == schema {
			out = append(out, q.Name)
		}
	}
	sort.Strings(out)
	return out
}

// AllFunctions returns every function of schema, sorted by name.
func (c *Cache) AllFunctions(schema string) []*Function {
	var out []*Function
	for _, n := range c.FunctionNames(schema) {
		out = append(out, c.funcs[QI{schema, n}]...)
	}
	return out
}

// RoleSettings returns the settings ALTER ROLE … SET gave role that the
// pipeline applies per transaction (statement_timeout and friends), sorted
// by name.
func (c *Cache) RoleSettings(role string) [][2]string { return c.roleSets[role] }

func sameSet(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

// Suggest returns the candidate most similar to name (FuzzySet-like: cosine
// similarity of 2- and 3-grams, at least 0.33), or "".
func Suggest(name string, candidates []string) string {
	best, bestScore := "", 0.33
	g := grams(name)
	for _, c := range candidates {
		if s := cosine(g, grams(c)); s >= bestScore && (s > bestScore || best == "") {
			best, bestScore = c, s
		}
	}
	return best
}

func grams(s string) map[string]int {
	s = "-" + strings.ToLower(s) + "-"
	m := map[string]int{}
	r := []rune(s)
	for n := 2; n <= 3; n++ {
		for i := 0; i+n <= len(r); i++ {
			m[string(r[i:i+n])]++
		}
	}
	return m
}

func cosine(a, b map[string]int) float64 {
	var dot, na, nb float64
	for k, v := range a {
		na += float64(v * v)
		dot += float64(v * b[k])
	}
	for _, v := range b {
		nb += float64(v * v)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
