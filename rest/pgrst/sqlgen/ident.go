// Package sqlgen is the third stage of the PostgREST pipeline: it turns a
// plan into SQL text and bind arguments (PostgREST Query/QueryBuilder.hs,
// Query/SqlFragment.hs, Query/Statements.hs). Statements are built with
// goqu in prepared mode: every value a request carries becomes a bind
// parameter, and identifiers (which all come from the schema cache, or are
// aliases the request chose) are quoted, with embedded quotes doubled.
package sqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"

	// The postgres dialect renders $n placeholders.
	_ "github.com/doug-martin/goqu/v9/dialect/postgres"

	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

var dialect = goqu.Dialect("postgres")

// Query is a statement and its bind arguments.
type Query struct {
	SQL  string
	Args []any
	// Params, when not nil, are the arguments already rendered in
	// PostgreSQL's text format (nil for NULL), and Args is ignored: a
	// statement kept for reuse, or the preamble, is rendered once.
	Params [][]byte
}

// Encoded returns q with Params rendered from Args (q itself when it has
// them already). The server infers each parameter's type from the
// statement.
func (q Query) Encoded() Query {
	if q.Params != nil || len(q.Args) == 0 {
		return q
	}
	q.Params = make([][]byte, len(q.Args))
	for i, a := range q.Args {
		switch v := a.(type) {
		case nil:
		case string:
			q.Params[i] = []byte(v)
		case []byte:
			q.Params[i] = v
		case int:
			q.Params[i] = strconv.AppendInt(nil, int64(v), 10)
		case int64:
			q.Params[i] = strconv.AppendInt(nil, v, 10)
		case uint:
			q.Params[i] = strconv.AppendUint(nil, uint64(v), 10)
		case uint64:
			q.Params[i] = strconv.AppendUint(nil, v, 10)
		case bool:
			if v {
				q.Params[i] = []byte("t")
			} else {
				q.Params[i] = []byte("f")
			}
		default:
			q.Params[i] = fmt.Append(nil, v)
		}
	}
	return q
}

// esc prepares a name for goqu's identifier quoting, which wraps the name
// in double quotes without escaping: embedded quotes are doubled here, and
// NUL (which PostgreSQL rejects) ends the name, as in PostgREST.
func esc(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return strings.ReplaceAll(s, `"`, `""`)
}

// ident is a single quoted name (a column, an alias, a CTE).
func ident(name string) exp.IdentifierExpression {
	return exp.NewIdentifierExpression("", "", esc(name))
}

// tableIdent is "schema"."table" (schema may be empty).
func tableIdent(q schemacache.QI) exp.IdentifierExpression {
	return exp.NewIdentifierExpression(esc(q.Schema), esc(q.Name), "")
}

// qualified is "schema"."table"."col" or "alias"."col"; col "*" renders a
// bare star.
func qualified(q schemacache.QI, alias, col string) exp.IdentifierExpression {
	var c any = esc(col)
	if col == "*" {
		c = goqu.Star()
	}
	if alias != "" {
		return exp.NewIdentifierExpression("", esc(alias), c)
	}
	return exp.NewIdentifierExpression(esc(q.Schema), esc(q.Name), c)
}

func colRef(r plan.ColRef) exp.IdentifierExpression { return qualified(r.Table, r.Alias, r.Col) }

// nodeCol refers to a column of a read node's FROM item.
func nodeCol(n *plan.ReadPlan, col string) exp.IdentifierExpression {
	if n.FromCTE {
		return qualified(schemacache.QI{Name: plan.SourceCTE}, "", col)
	}
	return qualified(n.From, n.Alias, col)
}

func cols(names []string) exp.ColumnListExpression {
	ids := make([]any, len(names))
	for i, n := range names {
		ids[i] = ident(n)
	}
	return exp.NewColumnListExpression(ids...)
}

// placeholders returns n "?" joined by sep.
func placeholders(n int, sep string) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?"+sep, n-1) + "?"
}
