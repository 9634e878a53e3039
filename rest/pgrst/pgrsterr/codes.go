package pgrsterr

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The constructors below carry PostgREST's exact codes, statuses and strings
// (src/library/PostgREST/Error/ApiRequestError.hs and SchemaCacheError.hs).

// QueryParam is PGRST100, answered 400: a query parameter does not parse.
// message names what failed ("failed to parse filter (x)"), details says
// where and what was expected.
func QueryParam(message, details string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST100", Message: message, Details: details}
}

// RangeNegativeLimit is PGRST103, answered 416.
func RangeNegativeLimit() *Error {
	return &Error{Status: http.StatusRequestedRangeNotSatisfiable, Code: "PGRST103", Message: "Requested range not satisfiable", Details: "Limit should be greater than or equal to zero."}
}

// RangeLowerGTUpper is PGRST103, answered 416: a Range header whose first
// position is after its last.
func RangeLowerGTUpper() *Error {
	return &Error{Status: http.StatusRequestedRangeNotSatisfiable, Code: "PGRST103", Message: "Requested range not satisfiable", Details: "The lower boundary must be lower than or equal to the upper boundary in the Range header."}
}

// RangeOutOfBounds is PGRST103, answered 416: an offset past the last row.
// Like PostgREST (and RFC 9110 §15.5.17) it says the total in
// Content-Range: */total.
func RangeOutOfBounds(lower, total int64) *Error {
	return &Error{Status: http.StatusRequestedRangeNotSatisfiable, Code: "PGRST103", Message: "Requested range not satisfiable",
		Details: fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", lower, total),
		Headers: [][2]string{{"Content-Range", "*/" + strconv.FormatInt(total, 10)}}}
}

// InvalidFilters is PGRST105, answered 405: PUT filters must be eq on every
// primary key column and nothing else.
func InvalidFilters() *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: "PGRST105", Message: "Filters must include all and only primary key columns with 'eq' operators"}
}

// UnacceptableSchema is PGRST106, answered 406.
func UnacceptableSchema(schema string, exposed []string) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: "PGRST106", Message: "Invalid schema: " + schema,
		Hint: "Only the following schemas are exposed: " + strings.Join(exposed, ", ")}
}

// MediaType is PGRST107, answered 406: nothing acceptable can be produced.
func MediaType(accepted []string) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: "PGRST107", Message: "None of these media types are available: " + strings.Join(accepted, ", ")}
}

// NotEmbedded is PGRST108, answered 400: a filter or order names an
// embedded resource that is not in select.
func NotEmbedded(resource string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST108", Message: "'" + resource + "' is not an embedded resource in this request",
		Hint: "Verify that '" + resource + "' is included in the 'select' query parameter."}
}

// GucHeaders is PGRST111, answered 500.
func GucHeaders() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRST111", Message: "response.headers guc must be a JSON array composed of objects with a single key and a string value"}
}

// GucStatus is PGRST112, answered 500.
func GucStatus() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRST112", Message: "response.status guc must be a valid status code"}
}

// PutLimitNotAllowed is PGRST114, answered 400.
func PutLimitNotAllowed() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST114", Message: "limit/offset querystring parameters are not allowed for PUT"}
}

// PutMatchingPK is PGRST115, answered 400.
func PutMatchingPK() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST115", Message: "Payload values do not match URL in primary key column(s)"}
}

// Singularity is PGRST116, answered 406: vnd.pgrst.object was requested
// but the result has n rows.
func Singularity(n int64) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: "PGRST116", Message: "Cannot coerce the result to a single JSON object",
		Details: "The result contains " + strconv.FormatInt(n, 10) + " rows"}
}

// RelatedOrderNotToOne is PGRST118, answered 400.
func RelatedOrderNotToOne(origin, target string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST118", Message: "A related order on '" + target + "' is not possible",
		Details: "'" + origin + "' and '" + target + "' do not form a many-to-one or one-to-one relationship"}
}

// UnacceptableFilter is PGRST120, answered 400: only is.null / not.is.null
// apply to an embedded resource itself.
func UnacceptableFilter(target string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST120", Message: "Bad operator on the '" + target + "' embedded resource",
		Details: "Only is null or not is null filters are allowed on embedded resources"}
}

// RaiseParse is PGRST121, answered 500: a RAISE SQLSTATE 'PGRST' whose
// message or detail is not the expected JSON.
func RaiseParse(details, hint string) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRST121", Message: `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`, Details: details, Hint: hint}
}

// InvalidPreferences is PGRST122, answered 400 (handling=strict only).
func InvalidPreferences(prefs []string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST122", Message: "Invalid preferences given with handling=strict",
		Details: "Invalid preferences: " + strings.Join(prefs, ", ")}
}

// AggregatesNotAllowed is PGRST123, answered 400.
func AggregatesNotAllowed() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST123", Message: "Use of aggregate functions is not allowed"}
}

// MaxAffected is PGRST124, answered 400.
func MaxAffected(n int64) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST124", Message: "Query result exceeds max-affected preference constraint",
		Details: "The query affects " + strconv.FormatInt(n, 10) + " rows"}
}

// OpenAPIDisabled is PGRST126, answered 404.
func OpenAPIDisabled() *Error {
	return &Error{Status: http.StatusNotFound, Code: "PGRST126", Message: "Root endpoint metadata is disabled"}
}

// MaxAffectedRPC is PGRST128, answered 400.
func MaxAffectedRPC() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST128", Message: "Function must return SETOF or TABLE when max-affected preference is used with handling=strict"}
}

// NoRelationship is PGRST200, answered 400.
func NoRelationship(parent, child, hint, schema, suggestion string) *Error {
	d := "Searched for a foreign key relationship between '" + parent + "' and '" + child
	if hint != "" {
		d += "' using the hint '" + hint
	}
	d += "' in the schema '" + schema + "', but no matches were found."
	return &Error{Status: http.StatusBadRequest, Code: "PGRST200", Message: "Could not find a relationship between '" + parent + "' and '" + child + "' in the schema cache",
		Details: d, Hint: suggestion}
}

// AmbiguousRelationship is PGRST201, answered 300. details lists the
// candidates ({cardinality, embedding, relationship}); hint names the
// disambiguated forms.
func AmbiguousRelationship(parent, child string, details any, hint string) *Error {
	return &Error{Status: http.StatusMultipleChoices, Code: "PGRST201", Message: "Could not embed because more than one relationship was found for '" + parent + "' and '" + child + "'",
		Details: details, Hint: hint}
}

// NoFunction is PGRST202, answered 404.
func NoFunction(message, details, hint string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "PGRST202", Message: message, Details: details, Hint: hint}
}

// AmbiguousFunction is PGRST203, answered 300.
func AmbiguousFunction(candidates []string) *Error {
	return &Error{Status: http.StatusMultipleChoices, Code: "PGRST203", Message: "Could not choose the best candidate function between: " + strings.Join(candidates, ", "),
		Hint: "Try renaming the parameters or the function itself in the database so function overloading can be resolved"}
}

// ColumnNotFound is PGRST204, answered 400.
func ColumnNotFound(relation, column string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST204", Message: "Could not find the '" + column + "' column of '" + relation + "' in the schema cache"}
}

// TableNotFound is PGRST205, answered 404; suggestion is the closest
// table name in the schema, or "".
func TableNotFound(schema, table, suggestion string) *Error {
	e := &Error{Status: http.StatusNotFound, Code: "PGRST205", Message: "Could not find the table '" + schema + "." + table + "' in the schema cache"}
	if suggestion != "" {
		e.Hint = "Perhaps you meant the table '" + schema + "." + suggestion + "'"
	}
	return e
}

// UndefinedColumn mirrors PostgreSQL's 42703, answered 400: a request names
// a column the schema cache does not know, so no SQL is ever built with it.
func UndefinedColumn(relation, column string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "42703", Message: "column " + relation + "." + column + " does not exist"}
}

// SafeUpdate mirrors pg-safeupdate's 21000, answered 400: UPDATE and DELETE
// need a filter unless the service is configured otherwise.
func SafeUpdate(verb string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "21000", Message: verb + " requires a WHERE clause"}
}

// JWT is a PGRST3xx error: 500 for PGRST300, else 401 with the
// WWW-Authenticate header PostgREST sends.
func JWT(code, message string) *Error {
	if code == "PGRST300" {
		return &Error{Status: http.StatusInternalServerError, Code: code, Message: message}
	}
	return &Error{Status: http.StatusUnauthorized, Code: code, Message: message,
		Headers: [][2]string{{"WWW-Authenticate", `Bearer error="invalid_token", error_description=` + strconv.Quote(message)}}}
}

// Unavailable is PGRST001/PGRST003-style: the database cannot be reached.
func Unavailable(message string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "PGRST001", Message: "Database client error. Retrying the connection.", Details: message}
}

// SchemaCacheNotReady is PGRST002, answered 503.
func SchemaCacheNotReady() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "PGRST002", Message: "Could not query the database for the schema cache. Retrying."}
}

// Timeout is PGRST003, answered 504: no connection freed up in time.
func Timeout() *Error {
	return &Error{Status: http.StatusGatewayTimeout, Code: "PGRST003", Message: "Timed out acquiring connection from connection pool."}
}
