package plan

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// Call resolves the function a request calls (PostgREST's findProc): the
// overload whose parameters match the argument names, falling back to a
// function with a single unnamed json/jsonb parameter that receives the
// whole body.
func Call(c *schemacache.Cache, req *parse.ApiRequest) (*CallPlan, error) {
	qi := schemacache.QI{Schema: req.Schema, Name: req.Resource}
	overloads := c.Functions(qi)
	post := req.Method == "POST"

	var keys []string
	body := bytes.TrimSpace(req.RawBody)
	singleObject := req.Prefs.Params == "single-object"
	rawBody := post && (req.ContentType.Type == parse.MTTextPlain || req.ContentType.Type == parse.MTXML || req.ContentType.Type == parse.MTOctet)
	switch {
	case rawBody:
		// The body is the argument of a single unnamed parameter, not
		// JSON: it names no argument.
		body = req.RawBody
	case post:
		if len(body) == 0 {
			body = []byte("{}")
		}
		if body[0] == '{' {
			var ok bool
			if keys, ok = parse.ObjectKeys(body); !ok {
				return nil, pgrsterr.InvalidBody(400, "Empty or invalid json")
			}
		} else if !json.Valid(body) {
			return nil, pgrsterr.InvalidBody(400, "Empty or invalid json")
		}
	default:
		for _, a := range req.Query.RPCArgs {
			if !slices.Contains(keys, a[0]) {
				keys = append(keys, a[0])
			}
		}
		sort.Strings(keys) // ObjectKeys' come sorted
	}

	if singleObject && post {
		for _, f := range overloads {
			if len(f.Params) == 1 && (f.Params[0].BaseType == "json" || f.Params[0].BaseType == "jsonb") {
				return &CallPlan{Func: f, Params: f.Params, SingleParam: true, Body: body}, nil
			}
		}
	}

	var matches, fallback []*schemacache.Function
	for _, f := range overloads {
		switch {
		case matchesParams(f, keys, post, req.ContentType):
			matches = append(matches, f)
		case post && len(f.Params) == 1 && f.Params[0].Name == "" && singleUnnamedOK(f.Params[0], req.ContentType):
			fallback = append(fallback, f)
		}
	}
	var f *schemacache.Function
	switch {
	case len(matches) == 1:
		f = matches[0]
	case len(matches) > 1:
		return nil, ambiguous(matches)
	case len(fallback) == 1:
		return &CallPlan{Func: fallback[0], Params: fallback[0].Params, SingleParam: true, Body: body}, nil
	case len(fallback) > 1:
		return nil, ambiguous(fallback)
	default:
		return nil, noFunction(c, qi, keys, overloads, post, req.ContentType)
	}

	cp := &CallPlan{Func: f}
	for _, p := range f.Params {
		if slices.Contains(keys, p.Name) {
			cp.Params = append(cp.Params, p)
		}
	}
	if post {
		cp.JSONArgs = body
		return cp, nil
	}
	for _, p := range cp.Params {
		var vals []string
		for _, a := range req.Query.RPCArgs {
			if a[0] == p.Name {
				vals = append(vals, a[1])
			}
		}
		if p.Variadic && (len(vals) > 1 || !strings.HasPrefix(strings.TrimSpace(vals[0]), "{")) {
			cp.Args = append(cp.Args, arrayLiteral(vals))
		} else {
			cp.Args = append(cp.Args, vals[len(vals)-1])
		}
	}
	return cp, nil
}

func singleUnnamedOK(p schemacache.Param, ct parse.MediaType) bool {
	switch ct.Type {
	case parse.MTJSON:
		return p.BaseType == "json" || p.BaseType == "jsonb"
	case parse.MTTextPlain:
		return p.BaseType == "text"
	case parse.MTXML:
		return p.BaseType == "xml"
	case parse.MTOctet:
		return p.BaseType == "bytea"
	}
	return false
}

func matchesParams(f *schemacache.Function, keys []string, post bool, ct parse.MediaType) bool {
	if len(f.Params) == 0 {
		return len(keys) == 0 && !(post && (ct.Type == parse.MTOctet || ct.Type == parse.MTTextPlain || ct.Type == parse.MTXML))
	}
	var req, opt []string
	for _, p := range f.Params {
		if p.Required {
			req = append(req, p.Name)
		} else {
			opt = append(opt, p.Name)
		}
	}
	for _, r := range req {
		if !slices.Contains(keys, r) {
			return false
		}
	}
	for _, k := range keys {
		if !slices.Contains(req, k) && !slices.Contains(opt, k) {
			return false
		}
	}
	return true
}

func signature(f *schemacache.Function) string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Name+" => "+p.Type)
	}
	return f.Schema + "." + f.Name + "(" + strings.Join(ps, ", ") + ")"
}

func ambiguous(fs []*schemacache.Function) error {
	var sigs []string
	for _, f := range fs {
		sigs = append(sigs, signature(f))
	}
	return pgrsterr.AmbiguousFunction(sigs)
}

func noFunction(c *schemacache.Cache, qi schemacache.QI, keys []string, overloads []*schemacache.Function, post bool, ct parse.MediaType) error {
	fn := qi.Schema + "." + qi.Name
	onlySingle := post && (ct.Type == parse.MTTextPlain || ct.Type == parse.MTXML || ct.Type == parse.MTOctet)
	prms := strings.Join(keys, ", ")
	msg := "Could not find the function " + fn
	if !onlySingle {
		if len(keys) == 0 {
			msg += " without parameters"
		} else {
			msg += "(" + prms + ")"
		}
	}
	msg += " in the schema cache"
	withPrms := " without parameters"
	if len(keys) > 0 {
		withPrms = " with parameter "
		if len(keys) > 1 {
			withPrms = " with parameters "
		}
		withPrms += prms
	}
	det := "Searched for the function " + fn
	switch {
	case post && ct.Type == parse.MTTextPlain:
		det += " with a single unnamed text parameter"
	case post && ct.Type == parse.MTXML:
		det += " with a single unnamed xml parameter"
	case post && ct.Type == parse.MTOctet:
		det += " with a single unnamed bytea parameter"
	case post && ct.Type == parse.MTJSON:
		det += withPrms + " or with a single unnamed json/jsonb parameter"
	default:
		det += withPrms
	}
	det += ", but no matches were found in the schema cache."
	hint := ""
	if !onlySingle {
		if len(overloads) == 0 {
			if s := schemacache.Suggest(qi.Name, c.FunctionNames(qi.Schema)); s != "" {
				hint = "Perhaps you meant to call the function " + qi.Schema + "." + s
			}
		} else {
			var cands []string
			for _, f := range overloads {
				cands = append(cands, paramList(f))
			}
			if s := schemacache.Suggest("("+strings.Join(keys, ", ")+")", cands); s != "" {
				hint = "Perhaps you meant to call the function " + qi.Schema + "." + qi.Name + s
			}
		}
	}
	return pgrsterr.NoFunction(msg, det, hint)
}

func paramList(f *schemacache.Function) string {
	var names []string
	for _, p := range f.Params {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return "(" + strings.Join(names, ", ") + ")"
}

// arrayLiteral builds a PostgreSQL array literal from text values.
func arrayLiteral(vals []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		v = strings.ReplaceAll(v, `\`, `\\`)
		b.WriteString(strings.ReplaceAll(v, `"`, `\"`))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}
