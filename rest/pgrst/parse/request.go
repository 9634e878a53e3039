package parse

import (
	"slices"
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// Action is what a request asks for.
type Action int

// The actions.
const (
	ActRead Action = iota
	ActInsert
	ActUpdate
	ActDelete
	ActUpsertPut
	ActCall
	ActSchemaRead
	ActInfo
)

// Input is one HTTP request as the pipeline sees it, already free of any
// framework type. Header looks a header up case-insensitively (first
// value); HeaderValues returns every value of one.
type Input struct {
	Method       string
	Path         string
	RawQuery     string
	Header       func(name string) string
	HeaderValues func(name string) []string
	Body         []byte
}

// Options are the configuration parse needs.
type Options struct {
	// Schemas are the exposed schemas; the first is the default.
	Schemas []string
	// Selects, when set, keeps the select= lists parsed, to share them
	// between requests (nil parses each).
	Selects *SelectCache
}

// ApiRequest is the parsed request.
type ApiRequest struct {
	Method string
	Action Action
	// HeadersOnly is HEAD.
	HeadersOnly bool
	// IsRPC is /rpc/{fn}; Read distinguishes GET/HEAD calls.
	IsRPC bool
	// Schema is the chosen schema; ProfileGiven reports that a profile
	// header chose it.
	Schema       string
	ProfileGiven bool
	// Resource is the table or function name ("" for the root).
	Resource string
	// Path is the request path, for request.path.
	Path  string
	Query QueryParams
	Prefs Preferences
	// TopRange is the top-level window: limit/offset intersected with the
	// Range header.
	TopRange    Range
	RangeHeader bool
	Accept      []MediaType
	ContentType MediaType
	Payload     *Payload
	// RawBody is the unparsed body (rpc single-parameter functions get it
	// whole).
	RawBody []byte
}

// Parse turns in into an ApiRequest.
func Parse(in Input, opt Options) (*ApiRequest, error) {
	r := &ApiRequest{Method: strings.ToUpper(in.Method), Path: in.Path}
	segs := splitPath(in.Path)
	switch {
	case len(segs) == 0:
		switch r.Method {
		case "GET", "HEAD":
			r.Action, r.HeadersOnly = ActSchemaRead, r.Method == "HEAD"
		case "OPTIONS":
			r.Action = ActInfo
		default:
			return nil, pgrsterr.UnsupportedMethod(r.Method)
		}
	case len(segs) == 1:
		r.Resource = segs[0]
		switch r.Method {
		case "GET":
			r.Action = ActRead
		case "HEAD":
			r.Action, r.HeadersOnly = ActRead, true
		case "POST":
			r.Action = ActInsert
		case "PATCH":
			r.Action = ActUpdate
		case "PUT":
			r.Action = ActUpsertPut
		case "DELETE":
			r.Action = ActDelete
		case "OPTIONS":
			r.Action = ActInfo
		default:
			return nil, pgrsterr.UnsupportedMethod(r.Method)
		}
	case len(segs) == 2 && segs[0] == "rpc":
		r.Resource, r.IsRPC = segs[1], true
		switch r.Method {
		case "GET":
			r.Action = ActCall
		case "HEAD":
			r.Action, r.HeadersOnly = ActCall, true
		case "POST":
			r.Action = ActCall
		case "OPTIONS":
			r.Action = ActInfo
		default:
			return nil, pgrsterr.InvalidRPCMethod(r.Method)
		}
	default:
		return nil, pgrsterr.InvalidResourcePath()
	}

	// Schema from the profile headers.
	r.Schema = opt.Schemas[0]
	profileHdr := "Content-Profile"
	if r.Method == "GET" || r.Method == "HEAD" || r.Method == "OPTIONS" {
		profileHdr = "Accept-Profile"
	}
	if p := strings.TrimSpace(in.Header(profileHdr)); p != "" {
		if !slices.Contains(opt.Schemas, p) {
			return nil, pgrsterr.UnacceptableSchema(p, opt.Schemas)
		}
		r.Schema, r.ProfileGiven = p, true
	}

	params, err := SplitQuery(in.RawQuery)
	if err != nil {
		return nil, err
	}
	rpcRead := r.IsRPC && (r.Method == "GET" || r.Method == "HEAD")
	if r.Query, err = parseQuery(params, rpcRead, opt.Selects); err != nil {
		return nil, err
	}
	r.Prefs = ParsePrefer(in.HeaderValues("Prefer"))
	r.Accept = ParseAccept(in.Header("Accept"))
	r.ContentType = ParseContentType(in.Header("Content-Type"))

	r.TopRange = All
	for _, pr := range r.Query.Ranges {
		if len(pr.Path) == 0 {
			r.TopRange = pr.Range
		}
	}
	if r.Method == "GET" || r.Method == "HEAD" {
		if h := in.Header("Range"); h != "" {
			hr, err := ParseRangeHeader(h)
			if err != nil {
				return nil, err
			}
			if !hr.IsAll() {
				r.RangeHeader = true
				r.TopRange = r.TopRange.Intersect(hr)
			}
		}
	}
	if r.Action == ActUpsertPut && !r.TopRange.IsAll() {
		return nil, pgrsterr.PutLimitNotAllowed()
	}

	switch {
	case r.Action == ActInsert || r.Action == ActUpdate || r.Action == ActUpsertPut:
		r.RawBody = in.Body
		if r.Payload, err = ParsePayload(in.Body, r.ContentType, r.Query.Columns != nil); err != nil {
			return nil, err
		}
	case r.Action == ActCall && r.Method == "POST":
		r.RawBody = in.Body
	}
	return r, nil
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
