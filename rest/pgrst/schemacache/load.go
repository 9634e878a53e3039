package schemacache

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Querier is what Load reads the catalog through (a pgx.Tx, *pgx.Conn or
// pool).
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// roleSettingNames are the ALTER ROLE … SET settings applied per request
// when the request switches to that role (set_config('role') does not apply
// them, unlike a login).
var roleSettingNames = []string{"idle_in_transaction_session_timeout", "lock_timeout", "statement_timeout"}

const tablesSQL = `
select c.oid, n.nspname, c.relname, c.relkind::text, coalesce(obj_description(c.oid, 'pg_class'), ''),
  c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and (pg_relation_is_updatable(c.oid::regclass, true) & 8) = 8),
  c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and (pg_relation_is_updatable(c.oid::regclass, true) & 4) = 4),
  c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and (pg_relation_is_updatable(c.oid::regclass, true) & 16) = 16),
  c.relkind = 'r' and c.relhassubclass
from pg_catalog.pg_class c
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'v', 'm', 'f', 'p') and n.nspname = any($1) and not c.relispartition
order by n.nspname, c.relname`

// columnsSQL reads the columns of the given relations (tables, views and
// the composite types functions return).
const columnsSQL = `
select a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod),
  coalesce(bt.typname, t.typname)::text,
  coalesce(bt.typcategory, t.typcategory) = 'A',
  not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)),
  coalesce(pg_get_expr(d.adbin, d.adrelid), ''),
  a.attgenerated <> '', a.attidentity <> '',
  case when a.atttypmod > 4 and coalesce(bt.typname, t.typname) in ('varchar', 'bpchar') then a.atttypmod - 4 else 0 end,
  coalesce(array(select e.enumlabel::text from pg_catalog.pg_enum e where e.enumtypid = coalesce(bt.oid, t.oid) order by e.enumsortorder), '{}'),
  coalesce(col_description(a.attrelid, a.attnum), '')
from pg_catalog.pg_attribute a
join pg_catalog.pg_type t on t.oid = a.atttypid
left join pg_catalog.pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where a.attrelid = any($1::oid[]) and a.attnum > 0 and not a.attisdropped
order by a.attrelid, a.attnum`

const constraintsSQL = `
select con.conrelid, con.contype::text, con.conname::text,
  array(select a.attname::text from unnest(con.conkey) with ordinality k(n, o)
        join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n order by k.o),
  con.confrelid,
  coalesce(array(select a.attname::text from unnest(con.confkey) with ordinality k(n, o)
        join pg_catalog.pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n order by k.o), '{}')
from pg_catalog.pg_constraint con
where con.contype in ('p', 'u', 'f') and con.conrelid = any($1::oid[])
order by con.conrelid, con.contype, con.conname`

const viewsSQL = `
select r.ev_class, r.ev_action::text
from pg_catalog.pg_rewrite r
where r.ev_class = any($1::oid[]) and r.rulename = '_RETURN'
order by r.ev_class`

const functionsSQL = `
select p.oid, n.nspname, p.proname, coalesce(obj_description(p.oid, 'pg_proc'), ''),
  coalesce(p.proargnames, '{}'), coalesce(p.proargmodes::text[], '{}'),
  array(select format_type(x, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(x, o) order by o),
  array(select t.typname::text from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(x, o)
        join pg_catalog.pg_type t on t.oid = u.x order by o),
  p.pronargdefaults, p.provariadic <> 0,
  format_type(p.prorettype, null), rt.typname::text, rt.typtype::text, rt.typrelid, rt.typnamespace::regnamespace::text,
  p.proretset, p.provolatile::text, coalesce(p.proconfig, '{}'),
  case when p.pronargs = 1 then (select t.typrelid from pg_catalog.pg_type t where t.oid = p.proargtypes[0]) else 0 end,
  p.prorows::float8
from pg_catalog.pg_proc p
join pg_catalog.pg_namespace n on n.oid = p.pronamespace
join pg_catalog.pg_type rt on rt.oid = p.prorettype
where n.nspname = any($1) and p.prokind = 'f'
  and not exists (select 1 from pg_catalog.pg_depend d where d.objid = p.oid and d.deptype = 'e')
order by n.nspname, p.proname, p.oid`

const roleSettingsSQL = `
select r.rolname::text, s.setconfig
from pg_catalog.pg_db_role_setting s
join pg_catalog.pg_roles r on r.oid = s.setrole
where s.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = current_database()))
order by s.setdatabase, r.rolname`

type oid = uint32

// Load reads a snapshot of schemas from q. Run it in one REPEATABLE READ
// transaction for a consistent picture.
func Load(ctx context.Context, q Querier, schemas []string) (*Cache, error) {
	c := &Cache{Schemas: slices.Clone(schemas), tables: map[QI]*Table{}, rels: map[QI][]*Relationship{}, funcs: map[QI][]*Function{}, computed: map[QI]map[string]*Function{}, roleSets: map[string][][2]string{}, LoadedAt: time.Now()}
	byOID := map[oid]*Table{}
	var oids []oid

	rows, err := q.Query(ctx, tablesSQL, schemas)
	if err != nil {
		return nil, fmt.Errorf("load tables: %w", err)
	}
	for rows.Next() {
		var o oid
		var kind string
		t := &Table{}
		if err := rows.Scan(&o, &t.Schema, &t.Name, &kind, &t.Description, &t.Insertable, &t.Updatable, &t.Deletable, &t.HasChildren); err != nil {
			return nil, fmt.Errorf("load tables: %w", err)
		}
		t.Kind = kind[0]
		byOID[o] = t
		oids = append(oids, o)
		c.tables[t.QI()] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load tables: %w", err)
	}

	funcs, compositeRels, err := loadFunctions(ctx, q, schemas)
	if err != nil {
		return nil, err
	}
	// Composite types functions return (other than exposed tables) need
	// their columns too.
	composite := map[oid]*Table{}
	var compOIDs []oid
	for _, r := range compositeRels {
		if _, ok := byOID[r]; !ok {
			if _, ok := composite[r]; !ok {
				composite[r] = &Table{Kind: 'c'}
				compOIDs = append(compOIDs, r)
			}
		}
	}
	if err := loadColumns(ctx, q, append(slices.Clone(oids), compOIDs...), func(o oid) *Table {
		if t := byOID[o]; t != nil {
			return t
		}
		return composite[o]
	}); err != nil {
		return nil, err
	}
	for _, t := range byOID {
		t.index()
	}

	fks, err := loadConstraints(ctx, q, oids, byOID)
	if err != nil {
		return nil, err
	}
	viewCols, err := loadViewColumns(ctx, q, byOID, oids)
	if err != nil {
		return nil, err
	}
	inferViewKeys(byOID, viewCols)
	c.buildRelationships(fks, viewCols, byOID)

	for _, f := range funcs {
		if f.retRel != 0 {
			if t := byOID[f.retRel]; t != nil {
				f.ReturnTable = t.QI()
				f.Columns = t.Columns
			} else if t := composite[f.retRel]; t != nil {
				f.Columns = t.Columns
			}
		}
		c.funcs[f.QI()] = append(c.funcs[f.QI()], f.Function)
		// A function of one table row returning one scalar is a computed
		// field of that table (PostgREST's computed fields: PostgreSQL
		// reads t.f as f(t)).
		if t := byOID[f.argRel]; t != nil && f.ReturnsScalar() && !f.ReturnsVoid() && f.Schema == t.Schema && t.Column(f.Name) == nil {
			if c.computed[t.QI()] == nil {
				c.computed[t.QI()] = map[string]*Function{}
			}
			if _, dup := c.computed[t.QI()][f.Name]; !dup {
				c.computed[t.QI()][f.Name] = f.Function
			}
		}
		c.addComputedRel(f, byOID)
	}
	for _, fs := range c.funcs {
		slices.SortStableFunc(fs, compareOverloads)
	}

	if err := c.loadRoleSettings(ctx, q); err != nil {
		return nil, err
	}
	return c, nil
}

// addComputedRel records f as a computed relationship when it takes one
// cached relation's row and returns rows of another (PostgREST's
// allComputedRels): to-one when it returns a single row or is declared
// ROWS 1. Only a function in its origin's schema can be embedded (requests
// name relationships within their schema), and it replaces the detected
// relationships to the table of the same name, as PostgREST's
// getOverrideRelationshipsMap does.
func (c *Cache) addComputedRel(f loadedFunc, byOID map[oid]*Table) {
	origin, target := byOID[f.argRel], byOID[f.retRel]
	if origin == nil || target == nil || f.Schema != origin.Schema {
		return
	}
	card := O2M
	if !f.RetSet || f.rows == 1 {
		card = M2O
	}
	fq := f.QI()
	rels := c.rels[origin.QI()]
	kept := rels[:0]
	for _, r := range rels {
		// One computed relationship per (table, function name); a
		// detected one to a table named like the function gives way.
		if r.IsComputed() && r.Function == fq || !r.IsComputed() && r.ForeignTable == fq {
			continue
		}
		kept = append(kept, r)
	}
	c.rels[origin.QI()] = append(kept, &Relationship{Table: origin.QI(), ForeignTable: target.QI(), Cardinality: card,
		Function: fq, IsSelf: origin == target, FTableIsView: target.IsView()})
}

func loadColumns(ctx context.Context, q Querier, oids []oid, table func(oid) *Table) error {
	rows, err := q.Query(ctx, columnsSQL, oids)
	if err != nil {
		return fmt.Errorf("load columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var o oid
		col := &Column{}
		if err := rows.Scan(&o, &col.Name, &col.Type, &col.BaseType, &col.IsArray, &col.Nullable, &col.Default,
			&col.Generated, &col.Identity, &col.MaxLength, &col.Enum, &col.Description); err != nil {
			return fmt.Errorf("load columns: %w", err)
		}
		if t := table(o); t != nil {
			t.Columns = append(t.Columns, col)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load columns: %w", err)
	}
	return nil
}

// fk is one foreign key between two cached relations.
type fk struct {
	name          string
	table, ftable oid
	cols, fcols   []string
}

func loadConstraints(ctx context.Context, q Querier, oids []oid, byOID map[oid]*Table) ([]fk, error) {
	rows, err := q.Query(ctx, constraintsSQL, oids)
	if err != nil {
		return nil, fmt.Errorf("load constraints: %w", err)
	}
	defer rows.Close()
	var fks []fk
	for rows.Next() {
		var rel, frel oid
		var typ, name string
		var cols, fcols []string
		if err := rows.Scan(&rel, &typ, &name, &cols, &frel, &fcols); err != nil {
			return nil, fmt.Errorf("load constraints: %w", err)
		}
		t := byOID[rel]
		switch typ {
		case "p":
			t.PK = cols
		case "u":
			t.Uniques = append(t.Uniques, cols)
		case "f":
			if byOID[frel] != nil {
				fks = append(fks, fk{name: name, table: rel, ftable: frel, cols: cols, fcols: fcols})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load constraints: %w", err)
	}
	return fks, nil
}

// viewColumn is where a view's column comes from.
type viewColumn struct {
	name    string
	table   oid
	attnum  int
	baseCol string
}

func loadViewColumns(ctx context.Context, q Querier, byOID map[oid]*Table, oids []oid) (map[oid][]viewColumn, error) {
	var views []oid
	for _, o := range oids {
		if byOID[o].IsView() {
			views = append(views, o)
		}
	}
	out := map[oid][]viewColumn{}
	if len(views) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, viewsSQL, views)
	if err != nil {
		return nil, fmt.Errorf("load view definitions: %w", err)
	}
	type raw struct {
		view oid
		tree string
	}
	var defs []raw
	for rows.Next() {
		var r raw
		if err := rows.Scan(&r.view, &r.tree); err != nil {
			rows.Close()
			return nil, fmt.Errorf("load view definitions: %w", err)
		}
		defs = append(defs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load view definitions: %w", err)
	}
	// Base columns are named by number in the tree; map them to names.
	attnames := map[oid]map[int]string{}
	for _, d := range defs {
		for _, te := range ParseTargetList(d.tree) {
			if te.OrigTable == 0 || te.Junk {
				continue
			}
			bt := byOID[te.OrigTable]
			if bt == nil {
				continue
			}
			if attnames[te.OrigTable] == nil {
				attnames[te.OrigTable] = map[int]string{}
			}
			out[d.view] = append(out[d.view], viewColumn{name: te.Name, table: te.OrigTable, attnum: te.OrigCol})
		}
	}
	if len(attnames) == 0 {
		return out, nil
	}
	var tabs []oid
	for o := range attnames {
		tabs = append(tabs, o)
	}
	slices.Sort(tabs)
	rows, err = q.Query(ctx, `select attrelid, attnum::int, attname::text from pg_catalog.pg_attribute where attrelid = any($1::oid[]) and attnum > 0`, tabs)
	if err != nil {
		return nil, fmt.Errorf("load view base columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var o oid
		var n int
		var name string
		if err := rows.Scan(&o, &n, &name); err != nil {
			return nil, fmt.Errorf("load view base columns: %w", err)
		}
		attnames[o][n] = name
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load view base columns: %w", err)
	}
	for v, cols := range out {
		for i := range cols {
			cols[i].baseCol = attnames[cols[i].table][cols[i].attnum]
		}
		out[v] = cols
	}
	return out, nil
}

// viewColFor returns the view column exposing base table column col, or "".
func viewColFor(cols []viewColumn, table oid, col string) string {
	for _, c := range cols {
		if c.table == table && c.baseCol == col {
			return c.name
		}
	}
	return ""
}

// mapCols maps base table columns to the view's, or returns false when the
// view does not expose all of them.
func mapCols(cols []viewColumn, table oid, base []string) ([]string, bool) {
	out := make([]string, len(base))
	for i, b := range base {
		out[i] = viewColFor(cols, table, b)
		if out[i] == "" {
			return nil, false
		}
	}
	return out, true
}

// inferViewKeys gives a view its base table's primary key when it exposes
// every key column.
func inferViewKeys(byOID map[oid]*Table, viewCols map[oid][]viewColumn) {
	views := sortedOIDs(viewCols)
	for _, v := range views {
		cols := viewCols[v]
		seen := map[oid]bool{}
		for _, c := range cols {
			if seen[c.table] {
				continue
			}
			seen[c.table] = true
			bt := byOID[c.table]
			if bt == nil || len(bt.PK) == 0 {
				continue
			}
			if pk, ok := mapCols(cols, c.table, bt.PK); ok {
				byOID[v].PK = pk
				break
			}
		}
	}
}

func sortedOIDs[V any](m map[oid]V) []oid {
	out := make([]oid, 0, len(m))
	for o := range m {
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}

// endpoint is one side of a foreign key as some relation sees it: the table
// itself or a view exposing all the key's columns.
type endpoint struct {
	t    *Table
	cols []string
}

func endpoints(byOID map[oid]*Table, viewCols map[oid][]viewColumn, table oid, cols []string) []endpoint {
	out := []endpoint{{byOID[table], cols}}
	for _, v := range sortedOIDs(viewCols) {
		if mapped, ok := mapCols(viewCols[v], table, cols); ok {
			out = append(out, endpoint{byOID[v], mapped})
		}
	}
	return out
}

func (c *Cache) addRel(r *Relationship) { c.rels[r.Table] = append(c.rels[r.Table], r) }

func pairs(a, b []string) []ColPair {
	out := make([]ColPair, len(a))
	for i := range a {
		out[i] = ColPair{a[i], b[i]}
	}
	return out
}

func (c *Cache) buildRelationships(fks []fk, viewCols map[oid][]viewColumn, byOID map[oid]*Table) {
	type m2o struct {
		rel      *Relationship
		junction *Table // origin of the M2O (a candidate junction)
	}
	var direct []m2o
	for _, k := range fks {
		for _, src := range endpoints(byOID, viewCols, k.table, k.cols) {
			for _, dst := range endpoints(byOID, viewCols, k.ftable, k.fcols) {
				self := src.t == dst.t
				o2o := byOID[k.table].isKey(k.cols)
				fwd := &Relationship{Table: src.t.QI(), ForeignTable: dst.t.QI(), Constraint: k.name, Columns: pairs(src.cols, dst.cols),
					IsSelf: self, FTableIsView: dst.t.IsView(), Cardinality: M2O}
				rev := &Relationship{Table: dst.t.QI(), ForeignTable: src.t.QI(), Constraint: k.name, Columns: pairs(dst.cols, src.cols),
					IsSelf: self, FTableIsView: src.t.IsView(), Cardinality: O2M}
				if o2o {
					fwd.Cardinality, rev.Cardinality, rev.O2OParent = O2O, O2O, true
				}
				c.addRel(fwd)
				c.addRel(rev)
				if !src.t.IsView() && !dst.t.IsView() {
					direct = append(direct, m2o{fwd, src.t})
				}
			}
		}
	}
	// Many-to-many: two foreign keys of one junction table whose columns
	// are all part of its primary key (or of one unique key).
	for i, a := range direct {
		for j, b := range direct {
			if i == j || a.junction != b.junction || a.rel.Constraint == b.rel.Constraint {
				continue
			}
			jt := a.junction
			var jcols []string
			for _, p := range a.rel.Columns {
				jcols = append(jcols, p.Col)
			}
			for _, p := range b.rel.Columns {
				jcols = append(jcols, p.Col)
			}
			keyed := len(jt.PK) > 0 && subset(jcols, jt.PK)
			for _, u := range jt.Uniques {
				keyed = keyed || subset(jcols, u)
			}
			if !keyed {
				continue
			}
			junc := &Junction{Table: jt.QI(), Constraint1: a.rel.Constraint, Constraint2: b.rel.Constraint}
			for _, p := range a.rel.Columns {
				junc.ColsSource = append(junc.ColsSource, ColPair{p.FCol, p.Col})
			}
			for _, p := range b.rel.Columns {
				junc.ColsTarget = append(junc.ColsTarget, ColPair{p.FCol, p.Col})
			}
			origin, target := a.rel.ForeignTable, b.rel.ForeignTable
			for _, o := range endpointsQI(c, viewCols, byOID, origin, junc.ColsSource) {
				for _, t := range endpointsQI(c, viewCols, byOID, target, junc.ColsTarget) {
					jj := *junc
					jj.ColsSource = o.pairs
					jj.ColsTarget = t.pairs
					c.addRel(&Relationship{Table: o.t.QI(), ForeignTable: t.t.QI(), Cardinality: M2M, Junction: &jj,
						IsSelf: o.t == t.t, FTableIsView: t.t.IsView()})
				}
			}
		}
	}
	for q := range c.rels {
		rs := c.rels[q]
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].ForeignTable != rs[j].ForeignTable {
				return rs[i].ForeignTable.String() < rs[j].ForeignTable.String()
			}
			return rs[i].Cardinality < rs[j].Cardinality
		})
	}
}

type m2mEnd struct {
	t     *Table
	pairs []ColPair
}

// endpointsQI returns a table and the views exposing the columns of ps
// (their Col side), with ps rewritten to each one's column names.
func endpointsQI(c *Cache, viewCols map[oid][]viewColumn, byOID map[oid]*Table, q QI, ps []ColPair) []m2mEnd {
	base := c.tables[q]
	out := []m2mEnd{{base, ps}}
	var baseOID oid
	for o, t := range byOID {
		if t == base {
			baseOID = o
		}
	}
	cols := make([]string, len(ps))
	for i, p := range ps {
		cols[i] = p.Col
	}
	for _, v := range sortedOIDs(viewCols) {
		if mapped, ok := mapCols(viewCols[v], baseOID, cols); ok {
			np := make([]ColPair, len(ps))
			for i, p := range ps {
				np[i] = ColPair{mapped[i], p.FCol}
			}
			out = append(out, m2mEnd{byOID[v], np})
		}
	}
	return out
}

type loadedFunc struct {
	*Function
	retRel oid
	// argRel is the relation whose row type the one parameter is, or 0.
	argRel oid
	// rows is the planner's row estimate (ROWS n); 1 makes a set-returning
	// computed relationship to-one.
	rows float64
}

func loadFunctions(ctx context.Context, q Querier, schemas []string) ([]loadedFunc, []oid, error) {
	rows, err := q.Query(ctx, functionsSQL, schemas)
	if err != nil {
		return nil, nil, fmt.Errorf("load functions: %w", err)
	}
	defer rows.Close()
	var out []loadedFunc
	var rels []oid
	for rows.Next() {
		var (
			o                          oid
			names, modes, types, bases []string
			ndefaults                  int16
			variadic, retset           bool
			typtype, vol               string
			relid, argRel              oid
			config                     []string
			estRows                    float64
		)
		f := &Function{}
		if err := rows.Scan(&o, &f.Schema, &f.Name, &f.Description, &names, &modes, &types, &bases, &ndefaults, &variadic,
			&f.ReturnType, &f.ReturnTypeName, &typtype, &relid, &f.ReturnTypeSchema, &retset, &vol, &config, &argRel, &estRows); err != nil {
			return nil, nil, fmt.Errorf("load functions: %w", err)
		}
		f.RetSet, f.Volatility = retset, vol[0]
		var outCols []*Column
		for i, typ := range types {
			mode := "i"
			if i < len(modes) {
				mode = modes[i]
			}
			name := ""
			if i < len(names) {
				name = names[i]
			}
			switch mode {
			case "i", "b", "v":
				f.Params = append(f.Params, Param{Name: name, Type: typ, BaseType: bases[i], Variadic: mode == "v"})
			}
			switch mode {
			case "o", "b", "t":
				outCols = append(outCols, &Column{Name: name, Type: typ, BaseType: bases[i], Nullable: true, IsArray: strings.HasSuffix(typ, "[]")})
			}
		}
		for i := range f.Params {
			f.Params[i].Required = i < len(f.Params)-int(ndefaults)
		}
		for _, s := range config {
			if k, v, ok := strings.Cut(s, "="); ok {
				f.Settings = append(f.Settings, [2]string{k, v})
			}
		}
		lf := loadedFunc{Function: f, argRel: argRel, rows: estRows}
		switch {
		case typtype == "c" && relid != 0:
			f.Composite = true
			lf.retRel = relid
			rels = append(rels, relid)
		case f.ReturnTypeName == "record" && len(outCols) > 0:
			f.Composite = true
			f.Columns = outCols
		case len(outCols) == 1 && typtype != "c":
			// A single OUT parameter returns a scalar.
		}
		out = append(out, lf)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("load functions: %w", err)
	}
	return out, rels, nil
}

func (c *Cache) loadRoleSettings(ctx context.Context, q Querier) error {
	rows, err := q.Query(ctx, roleSettingsSQL)
	if err != nil {
		return fmt.Errorf("load role settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var role string
		var cfg []string
		if err := rows.Scan(&role, &cfg); err != nil {
			return fmt.Errorf("load role settings: %w", err)
		}
		for _, s := range cfg {
			k, v, ok := strings.Cut(s, "=")
			if !ok || !slices.Contains(roleSettingNames, k) {
				continue
			}
			// Database-specific settings (read last) override global ones.
			set := c.roleSets[role]
			if i := slices.IndexFunc(set, func(p [2]string) bool { return p[0] == k }); i >= 0 {
				set[i][1] = v
			} else {
				set = append(set, [2]string{k, v})
			}
			sort.Slice(set, func(i, j int) bool { return set[i][0] < set[j][0] })
			c.roleSets[role] = set
		}
	}
	return rows.Err()
}
