package pgrst

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/exec"
	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// negotiate picks the response media type from Accept, in the client's
// order of preference (PostgREST Plan/Negotiate.hs).
func negotiate(accept []parse.MediaType, root, plan bool) (parse.MediaType, error) {
	for _, m := range accept {
		switch m.Type {
		case parse.MTPlanJSON, parse.MTPlanText:
			// Only when enabled; the explained type must be one a
			// resource answers (PostgREST's mtPlanToNothing).
			if plan && !root {
				if _, err := negotiate([]parse.MediaType{m.PlanTarget()}, false, false); err == nil {
					return m, nil
				}
			}
		case parse.MTAny, parse.MTJSON:
			if root {
				return parse.MediaType{Type: parse.MTOpenAPI}, nil
			}
			return parse.MediaType{Type: parse.MTJSON, NullsStripped: m.NullsStripped}, nil
		case parse.MTOpenAPI:
			if root {
				return m, nil
			}
		case parse.MTObject, parse.MTArray, parse.MTCSV, parse.MTGeoJSON:
			if !root {
				return m, nil
			}
		}
	}
	names := make([]string, len(accept))
	for i, m := range accept {
		names[i] = m.String()
	}
	return parse.MediaType{}, pgrsterr.MediaType(names)
}

func outputFor(mt parse.MediaType, headersOnly bool) sqlgen.Output {
	if mt.IsPlan() {
		// The statement explained is the one the explained type runs.
		mt = mt.PlanTarget()
	}
	o := sqlgen.Output{StripNulls: mt.NullsStripped}
	switch {
	case headersOnly:
		o.Handler = sqlgen.HandlerNone
	case mt.Type == parse.MTObject:
		o.Handler = sqlgen.HandlerSingle
	case mt.Type == parse.MTCSV:
		o.Handler = sqlgen.HandlerCSV
	case mt.Type == parse.MTGeoJSON:
		o.Handler = sqlgen.HandlerGeoJSON
	}
	return o
}

func contentType(mt parse.MediaType) string {
	switch mt.Type {
	case parse.MTObject:
		if mt.NullsStripped {
			return "application/vnd.pgrst.object+json; nulls=stripped; charset=utf-8"
		}
		return "application/vnd.pgrst.object+json; charset=utf-8"
	case parse.MTArray:
		if mt.NullsStripped {
			return "application/vnd.pgrst.array+json; nulls=stripped; charset=utf-8"
		}
		return "application/vnd.pgrst.array+json; charset=utf-8"
	case parse.MTCSV:
		return "text/csv; charset=utf-8"
	case parse.MTGeoJSON:
		return "application/geo+json; charset=utf-8"
	case parse.MTOpenAPI:
		return "application/openapi+json; charset=utf-8"
	}
	return "application/json; charset=utf-8"
}

// contentRange is PostgREST's contentRangeH.
func contentRange(lower, upper int64, total *int64) string {
	b := make([]byte, 0, 48)
	if (total == nil || *total != 0) && lower <= upper {
		b = strconv.AppendInt(b, lower, 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, upper, 10)
	} else {
		b = append(b, '*')
	}
	b = append(b, '/')
	if total != nil {
		b = strconv.AppendInt(b, *total, 10)
	} else {
		b = append(b, '*')
	}
	return string(b)
}

// applyGUCs applies response.headers and response.status set by the
// statement (PostgREST GucHeader.hs).
func applyGUCs(resp *Response, res *exec.Result) error {
	if res.GUCHeaders != nil {
		var hs []map[string]string
		if err := json.Unmarshal([]byte(*res.GUCHeaders), &hs); err != nil {
			return pgrsterr.GucHeaders()
		}
		for _, h := range hs {
			if len(h) != 1 {
				return pgrsterr.GucHeaders()
			}
			for k, v := range h {
				resp.Headers = replaceHeader(resp.Headers, k, v)
			}
		}
	}
	if res.GUCStatus != nil {
		n, err := strconv.Atoi(strings.TrimSpace(*res.GUCStatus))
		if err != nil || n < 100 || n > 599 {
			return pgrsterr.GucStatus()
		}
		resp.Status = n
	}
	return nil
}

func replaceHeader(hs [][2]string, k, v string) [][2]string {
	for i := range hs {
		if strings.EqualFold(hs[i][0], k) {
			hs[i][1] = v
			return hs
		}
	}
	return append(hs, [2]string{k, v})
}

// readResponse answers a read or a call: range status (200, 206, 416),
// Content-Range, Content-Location (location, given for table reads), the
// singular check, and the body unless HEAD.
func (x *call) readResponse(res *exec.Result, mt parse.MediaType, rng parse.Range, countable bool, location string) (*Response, error) {
	total := res.Total
	if res.PlannedRows != nil {
		total = res.PlannedRows
	}
	if x.req.Prefs.Count == "" {
		total = nil
	}
	lower := rng.Offset
	upper := lower + res.PageTotal - 1
	status := http.StatusOK
	if countable && total != nil {
		if lower > *total {
			return nil, pgrsterr.RangeOutOfBounds(lower, *total)
		}
		if 1+upper-lower < *total {
			status = http.StatusPartialContent
		}
	}
	if mt.Type == parse.MTObject && res.PageTotal != 1 {
		return nil, pgrsterr.Singularity(res.PageTotal)
	}
	resp := &Response{Status: status, Headers: make([][2]string, 0, 5)}
	resp.set("Content-Range", contentRange(lower, upper, total))
	if location != "" {
		resp.set("Content-Location", location)
	}
	resp.set("Content-Type", contentType(mt))
	x.preferenceApplied(resp, false)
	if err := applyGUCs(resp, res); err != nil {
		return nil, err
	}
	if !x.req.HeadersOnly {
		resp.Body = res.Body
	}
	return resp, nil
}

// preferenceApplied echoes the preferences the response honours.
func (x *call) preferenceApplied(resp *Response, write bool) {
	p := x.req.Prefs
	var applied []string
	if write && p.Resolution != "" && x.req.Action == parse.ActInsert {
		applied = append(applied, "resolution="+p.Resolution)
	}
	if write && p.Missing != "" {
		applied = append(applied, "missing="+p.Missing)
	}
	if write && p.Return != "" {
		applied = append(applied, "return="+p.Return)
	}
	if p.Params != "" && x.req.IsRPC {
		applied = append(applied, "params="+p.Params)
	}
	if p.Count != "" {
		applied = append(applied, "count="+p.Count)
	}
	if _, ok := x.txRollback(); ok {
		applied = append(applied, "tx="+p.Tx)
	}
	if p.Handling != "" {
		applied = append(applied, "handling="+p.Handling)
	}
	if p.Timezone != "" {
		applied = append(applied, "timezone="+p.Timezone)
	}
	if p.HasMax && p.Strict() {
		applied = append(applied, "max-affected="+strconv.FormatInt(p.MaxAffected, 10))
	}
	if len(applied) > 0 {
		resp.set("Preference-Applied", strings.Join(applied, ", "))
	}
}

// contentLocation is the Content-Location of a read of table (PostgREST
// sends the name as it is; control characters are escaped here so that
// no name can break the header): /table?canonical query.
func contentLocation(table, rawQuery string) string {
	// Sized for the worst case (every byte of the query percent-encoded),
	// so the query is appended in place.
	b := make([]byte, 0, 2+3*len(table)+3*len(rawQuery))
	b = append(b, '/')
	for i := 0; i < len(table); i++ {
		if c := table[i]; c < 0x20 || c == 0x7f {
			b = fmt.Appendf(b, "%%%02X", c)
		} else {
			b = append(b, c)
		}
	}
	n := len(b)
	if b = parse.AppendCanonicalQuery(append(b, '?'), rawQuery); len(b) == n+1 {
		b = b[:n] // no parameters: no "?"
	}
	return string(b)
}

// locationHeader renders Location: /table?pk=eq.value.
func locationHeader(table string, loc []string) string {
	var parts []string
	for _, kv := range loc {
		k, v, _ := strings.Cut(kv, "=")
		parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(v))
	}
	return "/" + url.PathEscape(table) + "?" + strings.Join(parts, "&")
}
