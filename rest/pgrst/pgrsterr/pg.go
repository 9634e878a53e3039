package pgrsterr

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// PG is a PostgreSQL error as it reached us: SQLSTATE and the server's
// message, detail and hint. The exec stage fills it from pgconn.PgError so
// this package needs no driver.
type PG struct {
	Code, Message, Detail, Hint string
}

// FromPG turns a PostgreSQL error into PostgREST's response: the four fields
// pass through and the status follows PostgREST's mapSQLtoHTTP table
// (Error/PgError/ResultError.hs). authenticated reports whether the request
// carried a JWT: 42501 is 403 then, 401 for anonymous requests (with
// WWW-Authenticate: Bearer). RAISE SQLSTATE 'PGRST' sets the whole response
// from its JSON message and detail; SQLSTATE 'PTnnn' sets status nnn.
func FromPG(pg PG, authenticated bool) *Error {
	if pg.Code == "PGRST" {
		return fromRaisePGRST(pg)
	}
	e := &Error{Status: StatusForSQLState(pg.Code, pg.Message, authenticated), Code: pg.Code, Message: pg.Message, Details: pg.Detail, Hint: pg.Hint}
	if e.Status == http.StatusUnauthorized {
		e.Headers = [][2]string{{"WWW-Authenticate", "Bearer"}}
	}
	return e
}

// StatusForSQLState is PostgREST's SQLSTATE → HTTP status table.
func StatusForSQLState(code, message string, authenticated bool) int {
	switch code {
	case "23503", "23505":
		return http.StatusConflict
	case "25006":
		return http.StatusMethodNotAllowed
	case "21000":
		if strings.HasSuffix(message, "requires a WHERE clause") {
			return http.StatusBadRequest
		}
		return http.StatusInternalServerError
	case "22023":
		if strings.HasPrefix(message, "role") && strings.HasSuffix(message, "does not exist") {
			return http.StatusUnauthorized
		}
		return http.StatusBadRequest
	case "53400":
		return http.StatusInternalServerError
	case "57P01":
		return http.StatusServiceUnavailable
	case "P0001":
		return http.StatusBadRequest
	case "42883":
		if strings.HasPrefix(message, "function xmlagg(") {
			return http.StatusNotAcceptable
		}
		return http.StatusNotFound
	case "42P01":
		return http.StatusNotFound
	case "42P17":
		return http.StatusInternalServerError
	case "42501":
		if authenticated {
			return http.StatusForbidden
		}
		return http.StatusUnauthorized
	}
	if len(code) >= 2 {
		switch code[:2] {
		case "08":
			return http.StatusServiceUnavailable
		case "09":
			return http.StatusInternalServerError
		case "0L", "0P":
			return http.StatusForbidden
		case "25":
			return http.StatusInternalServerError
		case "28":
			return http.StatusForbidden
		case "2D", "38", "39", "3B", "40":
			return http.StatusInternalServerError
		case "53":
			return http.StatusServiceUnavailable
		case "54", "55", "57", "58", "F0", "HV", "P0", "XX":
			return http.StatusInternalServerError
		case "PT":
			if n, err := strconv.Atoi(code[2:]); err == nil && n >= 100 && n <= 599 {
				return n
			}
			return http.StatusInternalServerError
		}
	}
	return http.StatusBadRequest
}

type raiseMessage struct {
	Code    *string `json:"code"`
	Message *string `json:"message"`
	Details *string `json:"details"`
	Hint    *string `json:"hint"`
}

type raiseDetail struct {
	Status  *int              `json:"status"`
	Headers map[string]string `json:"headers"`
}

func fromRaisePGRST(pg PG) *Error {
	const msgHint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
	const detHint = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
	var m raiseMessage
	if err := json.Unmarshal([]byte(pg.Message), &m); err != nil || m.Code == nil || m.Message == nil {
		return RaiseParse("Invalid JSON value for MESSAGE: '"+pg.Message+"'", msgHint)
	}
	if pg.Detail == "" {
		return RaiseParse("DETAIL is missing in the RAISE statement", detHint)
	}
	var d raiseDetail
	if err := json.Unmarshal([]byte(pg.Detail), &d); err != nil || d.Status == nil || d.Headers == nil || *d.Status < 100 || *d.Status > 599 {
		return RaiseParse("Invalid JSON value for DETAIL: '"+pg.Detail+"'", detHint)
	}
	e := &Error{Status: *d.Status, Code: *m.Code, Message: *m.Message}
	if m.Details != nil {
		e.Details = *m.Details
	}
	if m.Hint != nil {
		e.Hint = *m.Hint
	}
	keys := make([]string, 0, len(d.Headers))
	for k := range d.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e.Headers = append(e.Headers, [2]string{k, d.Headers[k]})
	}
	return e
}
