package changes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// CheckError is a subscription that Supabase's subscription check
// (realtime.subscription_check_filters, run when a binding is inserted into
// realtime.subscription) refuses. Index is the subscription's position in
// the list given to CheckSubscriptions; Message is the exception as Supabase
// prints it to the client, e.g.
// `ERROR P0001 (raise_exception) invalid column for filter nope`.
type CheckError struct {
	Index   int
	Message string
}

func (e *CheckError) Error() string { return e.Message }

// checkStep is one check of a binding, in the order Supabase's trigger makes
// them: either a refusal known without the database (fail), or a probe
// statement whose error refuses the binding (wrap turns the database's
// message into the client's; nil passes the error through as it is).
type checkStep struct {
	index int
	fail  string
	sql   string
	arg   string // the probe's one text parameter
	wrap  func(msg string) string
}

// raise renders a message as a plpgsql "raise exception" reaches the client.
func raise(msg string) string { return "ERROR P0001 (raise_exception) " + msg }

// CheckSubscriptions checks subs as Supabase's subscription trigger does
// when role subscribes: every filter column and every selected column must
// be one the role may SELECT; a value of eq, neq, lt, lte, gt, gte,
// isdistinct and in must be valid input for the column's type; is
// true/false/unknown needs a boolean column; and the operator must apply to
// the column's type (like on an integer column does not). Casts and
// operators are PostgreSQL's own, probed in one batch per join: the value is
// cast with the type's input function and the operator evaluated on it, as
// the trigger does. Bindings on every table of a schema, and on a table that
// does not exist, are not checked. It returns a *CheckError for the first
// refusal, in binding and filter order, or an error for database trouble.
// The column lists come from the Reader's cache, re-read before a column
// is refused on a cached list.
func (r *Reader) CheckSubscriptions(ctx context.Context, role string, subs []Subscription) error {
	var steps []checkStep
	for i, s := range subs {
		if s.Table == "" || s.Table == "*" || s.Schema == "*" || (s.Filter == nil && s.Select == nil) {
			continue
		}
		m, err := r.table(ctx, s.Schema, s.Table, role)
		if err != nil {
			return fmt.Errorf("check subscription: %w", err)
		}
		if !m.exists {
			continue
		}
		ss := subscriptionSteps(i, s, m)
		if refused(ss) && time.Since(m.loaded) > time.Second {
			// The cache may predate a new column or grant: refuse only on
			// what the catalog says now.
			r.forget(s.Schema, s.Table)
			if m, err = r.table(ctx, s.Schema, s.Table, role); err != nil {
				return fmt.Errorf("check subscription: %w", err)
			}
			ss = subscriptionSteps(i, s, m)
		}
		steps = append(steps, ss...)
	}
	return r.runChecks(ctx, steps)
}

// refused reports whether steps end in a refusal known without probing.
func refused(steps []checkStep) bool {
	return len(steps) > 0 && steps[len(steps)-1].fail != ""
}

func subscriptionSteps(i int, s Subscription, m *tableMeta) []checkStep {
	cols := make(map[string]metaColumn, len(m.cols))
	for _, c := range m.cols {
		if c.visible {
			cols[c.Name] = c
		}
	}
	var steps []checkStep
	if s.Filter != nil {
		for _, c := range s.Filter.Conds {
			col, ok := cols[c.Column]
			if !ok {
				return append(steps, checkStep{index: i, fail: raise("invalid column for filter " + c.Column)})
			}
			steps = append(steps, condSteps(i, c, col)...)
			if len(steps) > 0 && steps[len(steps)-1].fail != "" {
				return steps
			}
		}
	}
	for _, name := range s.Select {
		if _, ok := cols[name]; !ok {
			return append(steps, checkStep{index: i, fail: raise("invalid column for select " + name)})
		}
	}
	return steps
}

// sqlOps are the SQL operators of Supabase's realtime.check_equality_op.
var sqlOps = map[Op]string{OpEq: "=", OpNeq: "!=", OpLt: "<", OpLte: "<=", OpGt: ">", OpGte: ">=",
	OpLike: "like", OpILike: "ilike", OpMatch: "~", OpIMatch: "~*", OpIsDistinct: "is distinct from"}

// condSteps are the checks of one condition on col. The type name comes
// from format_type, which quotes and qualifies it as SQL needs, so it can be
// spliced into the probe; the value is always a bound text parameter, cast
// to the type (the type's input function, as realtime.cast does).
func condSteps(i int, c *Cond, col metaColumn) []checkStep {
	typ := col.regType
	v := c.Values[0]
	unsupported := func(msg string) string {
		return raise(fmt.Sprintf("operator %s is not supported on column %s of type %s: %s", c.Op, c.Column, typ, msg))
	}
	cast := fmt.Sprintf("select $1::text::%s", typ)
	// Supabase's realtime.check_equality_op evaluates the operator on the
	// value cast twice, as literals: the casts fail before the operator is
	// looked up.
	opProbes := []checkStep{
		{index: i, sql: cast, arg: v, wrap: unsupported},
		{index: i, sql: fmt.Sprintf("select $1::text::%s %s ($1::text::%s)", typ, sqlOps[c.Op], typ), arg: v, wrap: unsupported},
	}
	switch c.Op {
	case OpIn:
		return []checkStep{{index: i, sql: fmt.Sprintf("select $1::text[]::%s[]", typ), arg: arrayLiteral(c.Values)}}
	case OpIs:
		if v != "null" && typ != "boolean" {
			return []checkStep{{index: i, fail: raise(fmt.Sprintf("is %s filter requires a boolean column, got %s", v, typ))}}
		}
		return nil
	case OpMatch, OpIMatch:
		return append([]checkStep{{index: i, sql: "select '' ~ $1::text", arg: v,
			wrap: func(msg string) string {
				return raise(fmt.Sprintf("invalid regular expression for %s filter: %s", c.Op, msg))
			}}}, opProbes...)
	case OpLike, OpILike:
		return opProbes
	}
	// realtime.cast's error first, as it is: the value must be valid input
	// (so the operator's own cast cannot fail).
	return []checkStep{{index: i, sql: cast, arg: v}, opProbes[1]}
}

// runChecks sends the probes up to the first refusal known without the
// database in one pipeline (one implicit transaction, which an error ends)
// and returns the first refusal. The probes go through pgconn's ExecParams,
// so each is parsed only when its turn comes: with pgx's statement cache a
// batch is prepared as a whole first, and an operator that does not exist
// in a later probe would be reported before an earlier probe's cast.
func (r *Reader) runChecks(ctx context.Context, steps []checkStep) error {
	b := &pgconn.Batch{}
	var probes []checkStep
	var fail *checkStep
	for k := range steps {
		if steps[k].fail != "" {
			fail = &steps[k]
			break
		}
		probes = append(probes, steps[k])
		b.ExecParams(steps[k].sql, [][]byte{[]byte(steps[k].arg)}, nil, nil, nil)
	}
	if len(probes) > 0 {
		conn, err := r.pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("check subscription: %w", err)
		}
		results, err := conn.Conn().PgConn().ExecBatch(ctx, b).ReadAll()
		conn.Release()
		failed := len(results)
		for i, res := range results {
			if res.Err != nil {
				failed, err = i, res.Err
				break
			}
		}
		var pgErr *pgconn.PgError
		switch {
		case err == nil:
		case !errors.As(err, &pgErr) || failed >= len(probes):
			return fmt.Errorf("check subscription: %w", err)
		case probes[failed].wrap != nil:
			return &CheckError{Index: probes[failed].index, Message: probes[failed].wrap(pgErr.Message)}
		default:
			return &CheckError{Index: probes[failed].index, Message: postgrexText(pgErr)}
		}
	}
	if fail != nil {
		return &CheckError{Index: fail.index, Message: fail.fail}
	}
	return nil
}

// arrayLiteral writes values as a PostgreSQL array literal, every element
// quoted, so that the array input function reads them back unchanged.
func arrayLiteral(values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, c := range []byte(v) {
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// conditionNames are the SQLSTATE condition names of the errors a cast or
// an operator probe raises, as Postgrex prints them.
var conditionNames = map[string]string{
	"22001": "string_data_right_truncation",
	"22003": "numeric_value_out_of_range",
	"22007": "invalid_datetime_format",
	"22008": "datetime_field_overflow",
	"22009": "invalid_time_zone_displacement_value",
	"2200N": "invalid_xml_content",
	"22021": "character_not_in_repertoire",
	"22023": "invalid_parameter_value",
	"2201B": "invalid_regular_expression",
	"22P02": "invalid_text_representation",
	"22P05": "untranslatable_character",
	"42704": "undefined_object",
	"42804": "datatype_mismatch",
	"42846": "cannot_coerce",
	"42883": "undefined_function",
	"P0001": "raise_exception",
}

// postgrexText renders a database error as Postgrex's Exception.message
// does: "ERROR 22P02 (invalid_text_representation) invalid input syntax …".
func postgrexText(e *pgconn.PgError) string {
	if name, ok := conditionNames[e.Code]; ok {
		return fmt.Sprintf("%s %s (%s) %s", e.Severity, e.Code, name, e.Message)
	}
	return fmt.Sprintf("%s %s %s", e.Severity, e.Code, e.Message)
}
