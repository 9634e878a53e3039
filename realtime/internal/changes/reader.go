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

// metaTTL bounds how long a table's column list and privileges are cached.
const metaTTL = 30 * time.Second

// Reader re-reads changed rows under subscribers' roles. It is safe for
// concurrent use.
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
	visible bool   // the role may SELECT it
	pk      bool
}

// tableMeta is a table's columns as one role sees them.
type tableMeta struct {
	loaded  time.Time
	exists  bool
	cols    []metaColumn
	visible []Column // columns the role may select, in order
}

// table returns the (cached) metadata of schema.table for role.
func (r *Reader) table(ctx context.Context, schema, table, role string) (*tableMeta, error) {
	k := metaKey{schema, table, role}
	r.mu.Lock()
	m := r.meta[k]
	r.mu.Unlock()
	if m != nil && time.Since(m.loaded) < metaTTL {
		return m, nil
	}
	rows, err := r.pool.Query(ctx, `
select a.attname::text, t.typname::text, format_type(a.atttypid, a.atttypmod),
       has_column_privilege($3, c.oid, a.attnum, 'SELECT'),
       coalesce(a.attnum = any(i.indkey), false)
from pg_catalog.pg_class c
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
join pg_catalog.pg_type t on t.oid = a.atttypid
left join pg_catalog.pg_index i on i.indrelid = c.oid and i.indisprimary
where n.nspname = $1 and c.relname = $2
order by a.attnum`, schema, table, role)
	if err != nil {
		return nil, fmt.Errorf("load columns of %s.%s: %w", schema, table, err)
	}
	m = &tableMeta{loaded: time.Now()}
	for rows.Next() {
		var c metaColumn
		if err := rows.Scan(&c.Name, &c.Type, &c.sqlType, &c.visible, &c.pk); err != nil {
			rows.Close()
			return nil, fmt.Errorf("load columns of %s.%s: %w", schema, table, err)
		}
		m.cols = append(m.cols, c)
		if c.visible {
			m.visible = append(m.visible, c.Column)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load columns of %s.%s: %w", schema, table, err)
	}
	m.exists = len(m.cols) > 0
	r.mu.Lock()
	r.meta[k] = m
	r.mu.Unlock()
	return m, nil
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
	// Record is nil when the row is not visible (RLS, privileges, or it no
	// longer exists).
	Record map[string]json.RawMessage
}

// ReadRows re-reads the row c names once per claims set, each under SET
// LOCAL ROLE and request.jwt.claims, in one read-only transaction sent as a
// single batch. rows[i] answers claims[i].
func (r *Reader) ReadRows(ctx context.Context, c *Change, claims []*auth.Claims) ([]Row, error) {
	out := make([]Row, len(claims))
	type plan struct {
		idx  int
		sql  string
		args []any
	}
	var plans []plan
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
		plans = append(plans, plan{i, sql, args})
	}
	if len(plans) == 0 {
		return out, nil
	}
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	read := func(batch []plan) error {
		b := &pgx.Batch{}
		b.Queue("begin isolation level read committed read only")
		for _, p := range batch {
			cl := claims[p.idx]
			b.Queue(`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
			        set_config('request.jwt.claim.sub', $3, true), set_config('request.jwt.claim.role', $1, true)`,
				cl.Role, string(cl.Raw), cl.Sub)
			b.Queue(p.sql, p.args...)
		}
		// Rolling back also resets the role for the next user of the connection.
		b.Queue("rollback")
		res := conn.SendBatch(ctx, b)
		err := func() error {
			if _, err := res.Exec(); err != nil {
				return err
			}
			for _, p := range batch {
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
				var rec map[string]json.RawMessage
				if err := json.Unmarshal(txt, &rec); err != nil {
					return fmt.Errorf("decode row: %w", err)
				}
				out[p.idx].Record = rec
			}
			_, err := res.Exec()
			return err
		}()
		if closeErr := res.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			// The connection may be left in an aborted transaction: end it.
			_, _ = conn.Exec(ctx, "rollback")
		}
		return err
	}
	if err := read(plans); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read %s.%s row: %w", c.Schema, c.Table, err)
		}
		// One group's failure (a policy raising for its claims, a column
		// dropped meanwhile) must not cost every other group the change:
		// retry each group on its own and leave failed ones without a row.
		r.forget(c.Schema, c.Table)
		for i := range out {
			out[i].Record = nil
		}
		failed := 0
		for _, p := range plans {
			if err := read([]plan{p}); err != nil {
				failed++
				out[p.idx].Record = nil
			}
		}
		if failed == len(plans) {
			return nil, fmt.Errorf("read %s.%s row: %w", c.Schema, c.Table, err)
		}
	}
	return out, nil
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
