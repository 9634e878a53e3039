package changes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/realtime/internal/auth"
)

// metaTTL bounds how long a table's column list, privileges and SELECT
// policies are cached.
const metaTTL = 30 * time.Second

// Reader re-reads changed rows, and checks deleted ones against the SELECT
// policies, under subscribers' roles and claims. It is safe for concurrent
// use.
type Reader struct {
	pool *pgxpool.Pool

	mu   sync.Mutex
	meta map[metaKey]*tableMeta
}

// NewReader returns a Reader using pool (connected as authenticator).
func NewReader(pool *pgxpool.Pool) *Reader {
	return &Reader{pool: pool, meta: map[metaKey]*tableMeta{}}
}

type metaKey struct{ schema, table, role string }

type metaColumn struct {
	Column
	sqlType string // format_type, for casting key literals
	// regType is the type's name without modifiers, as atttypid::regtype
	// prints it: what Supabase's subscription check casts filter values to
	// and names in its messages.
	regType string
	visible bool // the role may SELECT it
	pk      bool
}

// tableMeta is a table's columns and row security as one role sees them.
type tableMeta struct {
	loaded  time.Time
	exists  bool
	cols    []metaColumn
	visible []Column // columns the role may select, in order
	// rls is set when row security applies to the role: the table has it
	// enabled and the role neither has BYPASSRLS nor owns the table (unless
	// the table forces row security on its owner).
	rls bool
	// oldCheck answers whether the role could have read a row given as
	// jsonb in $1 (see oldCheckSQL); "" when no permissive SELECT policy
	// applies to the role, so it can read no row at all.
	oldCheck string
}

// columnsSQL lists a table's columns, whether the role ($3) may select each
// and whether it belongs to the primary key.
const columnsSQL = `
select a.attname::text, t.typname::text, format_type(a.atttypid, a.atttypmod), format_type(a.atttypid, null),
       has_column_privilege($3, c.oid, a.attnum, 'SELECT'),
       coalesce(a.attnum = any(i.indkey), false)
from pg_catalog.pg_class c
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
join pg_catalog.pg_type t on t.oid = a.atttypid
left join pg_catalog.pg_index i on i.indrelid = c.oid and i.indisprimary
where n.nspname = $1 and c.relname = $2
order by a.attnum`

// policiesSQL tells whether row security applies to the role ($3) on the
// table and lists the USING expressions of the SELECT policies that apply
// to it, permissive and restrictive, as PostgreSQL picks them
// (check_enable_rls, get_policies_for_relation): superusers and BYPASSRLS
// roles skip row security, and so do the owner and the roles with its
// privileges unless the table forces it; a policy applies when it is for
// SELECT or ALL and names PUBLIC or a role whose privileges the role has.
// Policies without a USING expression add nothing, as in add_security_quals.
// It runs with an empty search_path, so pg_get_expr qualifies every name
// outside pg_catalog.
const policiesSQL = `
select c.relrowsecurity
         and not coalesce(r.rolsuper or r.rolbypassrls, false)
         and (c.relforcerowsecurity or not coalesce(pg_catalog.pg_has_role(r.oid, c.relowner, 'USAGE'), false)),
       array(select pg_catalog.pg_get_expr(p.polqual, p.polrelid) from pg_catalog.pg_policy p
             where p.polrelid = c.oid and p.polpermissive and p.polcmd in ('r', '*') and p.polqual is not null
               and (0 = any(p.polroles) or exists (select from pg_catalog.unnest(p.polroles) as pr(oid)
                                                   where pg_catalog.pg_has_role(r.oid, pr.oid, 'USAGE')))
             order by p.polname),
       array(select pg_catalog.pg_get_expr(p.polqual, p.polrelid) from pg_catalog.pg_policy p
             where p.polrelid = c.oid and not p.polpermissive and p.polcmd in ('r', '*') and p.polqual is not null
               and (0 = any(p.polroles) or exists (select from pg_catalog.unnest(p.polroles) as pr(oid)
                                                   where pg_catalog.pg_has_role(r.oid, pr.oid, 'USAGE')))
             order by p.polname)
from pg_catalog.pg_class c
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
left join pg_catalog.pg_roles r on r.rolname = $3
where n.nspname = $1 and c.relname = $2`

// table returns the (cached) metadata of schema.table for role.
func (r *Reader) table(ctx context.Context, schema, table, role string) (*tableMeta, error) {
	k := metaKey{schema, table, role}
	r.mu.Lock()
	m := r.meta[k]
	r.mu.Unlock()
	if m != nil && time.Since(m.loaded) < metaTTL {
		return m, nil
	}
	m, err := r.loadTable(ctx, schema, table, role)
	if err != nil {
		return nil, fmt.Errorf("load metadata of %s.%s: %w", schema, table, err)
	}
	r.mu.Lock()
	r.meta[k] = m
	r.mu.Unlock()
	return m, nil
}

// loadTable reads the columns and the SELECT policies of schema.table for
// role in one round trip.
func (r *Reader) loadTable(ctx context.Context, schema, table, role string) (*tableMeta, error) {
	b := &pgx.Batch{}
	b.Queue("begin isolation level read committed read only")
	b.Queue(columnsSQL, schema, table, role)
	b.Queue("select set_config('search_path', '', true)")
	b.Queue(policiesSQL, schema, table, role)
	b.Queue("rollback")
	res := r.pool.SendBatch(ctx, b)
	m, err := readTable(res, schema, table)
	if closeErr := res.Close(); err == nil {
		err = closeErr
	}
	return m, err
}

func readTable(res pgx.BatchResults, schema, table string) (*tableMeta, error) {
	if _, err := res.Exec(); err != nil {
		return nil, err
	}
	rows, err := res.Query()
	if err != nil {
		return nil, err
	}
	m := &tableMeta{loaded: time.Now()}
	for rows.Next() {
		var c metaColumn
		if err := rows.Scan(&c.Name, &c.Type, &c.sqlType, &c.regType, &c.visible, &c.pk); err != nil {
			rows.Close()
			return nil, err
		}
		m.cols = append(m.cols, c)
		if c.visible {
			m.visible = append(m.visible, c.Column)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	m.exists = len(m.cols) > 0
	if _, err := res.Exec(); err != nil {
		return nil, err
	}
	var permissive, restrictive []string
	err = res.QueryRow().Scan(&m.rls, &permissive, &restrictive)
	switch {
	case errors.Is(err, pgx.ErrNoRows): // no such table
	case err != nil:
		return nil, err
	default:
		m.oldCheck = oldCheckSQL(schema, table, permissive, restrictive)
	}
	_, err = res.Exec()
	return m, err
}

// oldCheckSQL builds the query that tells whether the current role and
// claims could have read a row of schema.table, given as jsonb in $1 (keys
// missing from it read as NULL): the row passes when it satisfies one of
// the permissive USING expressions and all the restrictive ones, as
// PostgreSQL combines them. The row is a function call in FROM aliased with
// the table's name, so the expressions' column references, whole-row
// references and correlated subqueries (which pg_get_expr writes as
// table.column) resolve as they do on the table. The expressions were
// deparsed with an empty search_path and must run under one. It returns ""
// when there is no permissive expression: no row is visible then.
func oldCheckSQL(schema, table string, permissive, restrictive []string) string {
	if len(permissive) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("select exists (select 1 from pg_catalog.jsonb_populate_record(null::")
	b.WriteString(pgx.Identifier{schema, table}.Sanitize())
	b.WriteString(", $1::jsonb) as ")
	b.WriteString(pgx.Identifier{table}.Sanitize())
	b.WriteString(" where (")
	for i, p := range permissive {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("(")
		b.WriteString(p)
		b.WriteString(")")
	}
	b.WriteString(")")
	for _, p := range restrictive {
		b.WriteString(" and (")
		b.WriteString(p)
		b.WriteString(")")
	}
	b.WriteString(")")
	return b.String()
}

// forget drops the cached metadata of a table (after a query on it failed,
// e.g. because a column was dropped).
func (r *Reader) forget(schema, table string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.meta {
		if k.schema == schema && k.table == table {
			delete(r.meta, k)
		}
	}
}

// Columns returns the columns role may select from schema.table.
func (r *Reader) Columns(ctx context.Context, schema, table, role string) ([]Column, error) {
	m, err := r.table(ctx, schema, table, role)
	if err != nil {
		return nil, err
	}
	return m.visible, nil
}

// Row is one claims group's view of a changed row.
type Row struct {
	Columns []Column
	// Record is the row (the old record, for ReadOld) restricted to Columns;
	// nil when the row is not visible (RLS, privileges, or it no longer
	// exists).
	Record map[string]json.RawMessage
}

// claimsSQL sets a claims group's role and JWT claims for the rest of the
// transaction, as Supabase Realtime's apply_rls does: the role and
// request.jwt.claims only. The legacy one-setting-per-claim names
// (request.jwt.claim.sub, …) are not set there, nor by PostgREST since
// version 10, so a policy reading them sees here what it sees on Supabase;
// auth.uid() and the other auth helpers read request.jwt.claims.
const claimsSQL = `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`

// groupQuery is one claims group's single-row query.
type groupQuery struct {
	idx  int // index into the claims
	sql  string
	args []any
}

// queryAs runs qs through send, which runs them in one read-only
// transaction, each under its group's role and claims, and stores each
// one's answer in vals at the same index. If that fails, each query is run
// again on its own, so that one group's failure (a policy raising for its
// claims, a column dropped meanwhile) does not cost every other group the
// change: a query that fails alone is left at T's zero value. It fails only
// when every query does.
func queryAs[T any](ctx context.Context, r *Reader, c *Change, qs []groupQuery,
	send func(conn *pgxpool.Conn, qs []groupQuery, vals []T) error) ([]T, error) {
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	run := func(qs []groupQuery, vals []T) error {
		err := send(conn, qs, vals)
		if err != nil {
			// The connection may be left in an aborted transaction: end it.
			_, _ = conn.Exec(ctx, "rollback")
		}
		return err
	}
	vals := make([]T, len(qs))
	err = run(qs, vals)
	if err == nil {
		return vals, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("read %s.%s row: %w", c.Schema, c.Table, err)
	}
	r.forget(c.Schema, c.Table)
	clear(vals)
	failed := 0
	for j := range qs {
		if run(qs[j:j+1], vals[j:j+1]) != nil {
			failed++
			var zero T
			vals[j] = zero
		}
	}
	if failed == len(qs) {
		return nil, fmt.Errorf("read %s.%s row: %w", c.Schema, c.Table, err)
	}
	return vals, nil
}

// ReadRows re-reads the row c names once per claims set, each under SET
// LOCAL ROLE and request.jwt.claims, in one read-only transaction sent as a
// single batch. rows[i] answers claims[i].
func (r *Reader) ReadRows(ctx context.Context, c *Change, claims []*auth.Claims) ([]Row, error) {
	out := make([]Row, len(claims))
	var qs []groupQuery
	for i, cl := range claims {
		m, err := r.table(ctx, c.Schema, c.Table, cl.Role)
		if err != nil {
			return nil, err
		}
		out[i].Columns = m.visible
		if len(m.visible) == 0 {
			continue
		}
		sql, args, ok := rowQuery(c, m)
		if !ok {
			continue
		}
		qs = append(qs, groupQuery{i, sql, args})
	}
	if len(qs) == 0 {
		return out, nil
	}
	recs, err := queryAs(ctx, r, c, qs, func(conn *pgxpool.Conn, qs []groupQuery, recs []map[string]json.RawMessage) error {
		return readRows(ctx, conn, claims, qs, recs)
	})
	if err != nil {
		return nil, err
	}
	for j, q := range qs {
		out[q.idx].Record = recs[j]
	}
	return out, nil
}

// readRows sends qs, row selects, as one batch of (cached) prepared
// statements and rolls back, which also resets the role for the next user
// of the connection. recs[j] is nil when qs[j] found no row.
func readRows(ctx context.Context, conn *pgxpool.Conn, claims []*auth.Claims, qs []groupQuery, recs []map[string]json.RawMessage) error {
	b := &pgx.Batch{}
	b.Queue("begin isolation level read committed read only")
	for _, q := range qs {
		cl := claims[q.idx]
		b.Queue(claimsSQL, cl.Role, string(cl.Raw))
		b.Queue(q.sql, q.args...)
	}
	b.Queue("rollback")
	res := conn.SendBatch(ctx, b)
	err := func() error {
		if _, err := res.Exec(); err != nil {
			return err
		}
		for j := range qs {
			if _, err := res.Exec(); err != nil {
				return err
			}
			var txt []byte
			err := res.QueryRow().Scan(&txt)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				continue
			case err != nil:
				return err
			}
			if err := json.Unmarshal(txt, &recs[j]); err != nil {
				return fmt.Errorf("decode row: %w", err)
			}
		}
		_, err := res.Exec()
		return err
	}()
	if closeErr := res.Close(); err == nil {
		err = closeErr
	}
	return err
}

// ReadOld decides once per claims set whether the row c deleted was
// visible: rows[i].Record is c's old record, restricted to the columns
// claims[i]'s role may select, when that role and claims could have read
// the row, and nil when they could not. Where row security applies to the
// role, that takes a column it may select and its SELECT policies passing
// on the old record under its claims (see oldCheckSQL); the checks of all
// claims sets go in one read-only transaction sent as one pipeline.
// Elsewhere every role gets the record. The old record is the whole row
// only under REPLICA IDENTITY FULL: otherwise it holds just the primary
// key, the policies see NULL in every other column, and they normally
// refuse the row.
func (r *Reader) ReadOld(ctx context.Context, c *Change, claims []*auth.Claims) ([]Row, error) {
	out := make([]Row, len(claims))
	var qs []groupQuery
	for i, cl := range claims {
		m, err := r.table(ctx, c.Schema, c.Table, cl.Role)
		if err != nil {
			return nil, err
		}
		out[i].Columns = m.visible
		switch {
		case !m.rls:
			out[i].Record = oldRecord(c, m.visible)
		case len(m.visible) == 0 || m.oldCheck == "":
			// It may read no column, or no policy lets it read any row.
		default:
			qs = append(qs, groupQuery{idx: i, sql: m.oldCheck})
		}
	}
	if len(qs) == 0 {
		return out, nil
	}
	old := []byte("{}")
	if c.Old != nil {
		var err error
		if old, err = json.Marshal(c.Old); err != nil {
			return nil, fmt.Errorf("encode old record: %w", err)
		}
	}
	seen, err := queryAs(ctx, r, c, qs, func(conn *pgxpool.Conn, qs []groupQuery, seen []bool) error {
		return checkOld(ctx, conn, claims, qs, old, seen)
	})
	if err != nil {
		return nil, err
	}
	for j, q := range qs {
		if seen[j] {
			out[q.idx].Record = oldRecord(c, out[q.idx].Columns)
		}
	}
	return out, nil
}

// pinnedClaimsSQL is claimsSQL that also empties search_path, under which
// policiesSQL deparsed the policy expressions the oldCheck queries run.
const pinnedClaimsSQL = claimsSQL + `, set_config('search_path', '', true)`

// checkOld runs the oldCheck queries qs on old (the jsonb $1) and rolls
// back. They are sent as one pipeline of unnamed statements, each parsed
// only once its group's role is set: the policy text names objects the
// service's own login may not use (auth.uid()), and pgx would prepare its
// statements first, as that login. seen[j] is qs[j]'s answer.
func checkOld(ctx context.Context, conn *pgxpool.Conn, claims []*auth.Claims, qs []groupQuery, old []byte, seen []bool) error {
	b := &pgconn.Batch{}
	b.ExecParams("begin isolation level read committed read only", nil, nil, nil, nil)
	for _, q := range qs {
		cl := claims[q.idx]
		raw := cl.Raw
		if raw == nil {
			raw = []byte{}
		}
		b.ExecParams(pinnedClaimsSQL, [][]byte{[]byte(cl.Role), raw}, nil, nil, nil)
		b.ExecParams(q.sql, [][]byte{old}, nil, nil, nil)
	}
	b.ExecParams("rollback", nil, nil, nil, nil)
	mrr := conn.Conn().PgConn().ExecBatch(ctx, b)
	// Results: begin, then a set_config and a check per query, then rollback.
	for n := 0; mrr.NextResult(); n++ {
		rr := mrr.ResultReader()
		if j := n/2 - 1; n%2 == 0 && j >= 0 && j < len(qs) {
			seen[j] = rr.NextRow() && string(rr.Values()[0]) == "t"
		}
		if _, err := rr.Close(); err != nil {
			_ = mrr.Close()
			return err
		}
	}
	return mrr.Close()
}

// oldRecord is c's old record restricted to cols; never nil.
func oldRecord(c *Change, cols []Column) map[string]json.RawMessage {
	if rec := visible(c.Old, cols); rec != nil {
		return rec
	}
	return map[string]json.RawMessage{}
}

// rowQuery builds the select of c's row restricted to m's visible columns.
// ok is false when the change carries no key (no primary key, or too big).
func rowQuery(c *Change, m *tableMeta) (string, []any, bool) {
	if len(c.PK) == 0 {
		return "", nil, false
	}
	var sel, where []string
	var args []any
	for _, col := range m.cols {
		if col.visible {
			sel = append(sel, pgx.Identifier{col.Name}.Sanitize())
		}
		if !col.pk {
			continue
		}
		raw, ok := c.PK[col.Name]
		if !ok {
			return "", nil, false
		}
		args = append(args, literal(raw))
		where = append(where, fmt.Sprintf("%s = $%d::text::%s", pgx.Identifier{col.Name}.Sanitize(), len(args), col.sqlType))
	}
	if len(where) == 0 {
		return "", nil, false
	}
	sql := fmt.Sprintf("select to_jsonb(x)::text from (select %s from %s where %s) x",
		strings.Join(sel, ", "), pgx.Identifier{c.Schema, c.Table}.Sanitize(), strings.Join(where, " and "))
	return sql, args, true
}

// literal turns a JSON key value into the text Postgres casts: strings
// unquoted, everything else as written.
func literal(raw json.RawMessage) any {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return nil
	}
	return string(raw)
}

// ErrRole is returned by CheckRole when the service may not act as the
// claims' role (no such role, or authenticator is not a member).
var ErrRole = errors.New("role not allowed")

// CheckRole verifies that the service may act as claims' role, so a later
// batch cannot fail on it. Errors other than ErrRole are database trouble.
func (r *Reader) CheckRole(ctx context.Context, claims *auth.Claims) error {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("check role: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	_, err = tx.Exec(ctx, `select set_config('role', $1, true)`, claims.Role)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42501" || pgErr.Code == "22023" || pgErr.Code == "42704") {
		return fmt.Errorf("%w: %s", ErrRole, pgErr.Message)
	}
	if err != nil {
		return fmt.Errorf("check role: %w", err)
	}
	return nil
}
