package pgrst

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/rest/pgrst/exec"
	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// Request is one HTTP request, free of framework types. Headers lists
// every header (names in any case) in arrival order.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Headers  [][2]string
	Body     []byte
}

// Header returns the first value of name (case-insensitive).
func (r *Request) Header(name string) string {
	for _, h := range r.Headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

// HeaderValues returns every value of name.
func (r *Request) HeaderValues(name string) []string {
	var out []string
	for _, h := range r.Headers {
		if strings.EqualFold(h[0], name) {
			out = append(out, h[1])
		}
	}
	return out
}

// Response is what the HTTP layer writes.
type Response struct {
	Status  int
	Headers [][2]string
	Body    []byte
}

func (r *Response) set(k, v string) { r.Headers = append(r.Headers, [2]string{k, v}) }

// Handler runs the pipeline. It is safe for concurrent use.
type Handler struct {
	cfg   Config
	pool  *pgxpool.Pool
	cache *schemacache.Holder
	jwt   *jwtverify.Verifier
	log   *slog.Logger
	// jwts caches verified tokens; anonAuth is the auth of requests
	// without one.
	jwts     jwtCache
	anonAuth *auth
	reads    readCache
}

// New returns a Handler. cache must be loaded (or loading) elsewhere.
func New(cfg Config, pool *pgxpool.Pool, cache *schemacache.Holder, jwt *jwtverify.Verifier, log *slog.Logger) *Handler {
	if cfg.AnonRole == "" {
		cfg.AnonRole = "anon"
	}
	if cfg.TxEnd == "" {
		cfg.TxEnd = TxCommit
	}
	if cfg.OpenAPIMode == "" {
		cfg.OpenAPIMode = OpenAPIFollowPrivileges
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	anon := &auth{role: cfg.AnonRole, claims: []byte(`{"role":` + strconv.Quote(cfg.AnonRole) + `}`)}
	return &Handler{cfg: cfg, pool: pool, cache: cache, jwt: jwt, log: log, anonAuth: anon}
}

// auth is who the request runs as.
type auth struct {
	role   string
	claims []byte
	sub    string
	// authenticated is a role other than the anonymous one (42501 is 403
	// then, 401 for anonymous requests).
	authenticated bool
}

func (h *Handler) authenticate(r *Request) (*auth, error) {
	hdr := strings.TrimSpace(r.Header("Authorization"))
	if hdr == "" {
		return h.anonAuth, nil
	}
	scheme, token, _ := strings.Cut(hdr, " ")
	if !strings.EqualFold(scheme, "bearer") {
		return h.anonAuth, nil
	}
	if h.jwt == nil {
		return nil, pgrsterr.JWT("PGRST300", "Server lacks JWT secret")
	}
	token = strings.TrimSpace(token)
	now := time.Now()
	if a := h.jwts.get(token, now); a != nil {
		return a, nil
	}
	c, err := h.jwt.Verify(token)
	if err != nil {
		if je, ok := err.(*jwtverify.Error); ok {
			return nil, pgrsterr.JWT(je.Code, je.Message)
		}
		return nil, pgrsterr.JWT("PGRST301", err.Error())
	}
	a := &auth{role: c.Role, claims: c.Raw, sub: c.Subject}
	if a.role == "" {
		a.role = h.cfg.AnonRole
		m := c.Map
		m["role"] = a.role
		a.claims, _ = json.Marshal(m)
	}
	a.authenticated = a.role != h.cfg.AnonRole
	// Keep it until it expires (allowing for the verifier's skew), or a
	// minute for tokens without exp.
	exp := now.Add(time.Minute)
	if !c.ExpiresAt.IsZero() {
		exp = c.ExpiresAt.Add(jwtverify.DefaultSkew)
	}
	h.jwts.put(token, a, exp)
	return a, nil
}

// timing collects Server-Timing entries.
type timing struct {
	last  time.Time
	parts []string
}

func (t *timing) mark(name string) {
	now := time.Now()
	t.parts = append(t.parts, name+";dur="+strconv.FormatFloat(float64(now.Sub(t.last).Microseconds())/1000, 'f', 1, 64))
	t.last = now
}

// Serve runs the pipeline for r. Errors are *pgrsterr.Error values (or
// unexpected failures for the HTTP layer to log and answer 500).
func (h *Handler) Serve(ctx context.Context, r *Request) (*Response, error) {
	tm := &timing{last: time.Now()}
	a, err := h.authenticate(r)
	if err != nil {
		return nil, err
	}
	tm.mark("jwt")
	key := readKey(r)
	if e := h.reads.get(key, h.cache.Get()); e != nil {
		x := &call{ctx: ctx, h: h, c: e.snapshot, r: r, req: e.req, a: a, tm: tm}
		tm.mark("parse")
		resp, err := x.runRead(e)
		if err != nil {
			return nil, err
		}
		return h.finish(x, resp), nil
	}
	req, err := parse.Parse(parse.Input{Method: r.Method, Path: r.Path, RawQuery: r.RawQuery, Header: r.Header, HeaderValues: r.HeaderValues, Body: r.Body},
		parse.Options{Schemas: h.cfg.Schemas})
	if err != nil {
		return nil, err
	}
	tm.mark("parse")
	c := h.cache.Get()
	if c == nil {
		return nil, pgrsterr.SchemaCacheNotReady()
	}
	if req.Prefs.Strict() && len(req.Prefs.Invalid) > 0 {
		return nil, pgrsterr.InvalidPreferences(req.Prefs.Invalid)
	}
	x := &call{ctx: ctx, h: h, c: c, r: r, req: req, a: a, tm: tm, key: key}
	var resp *Response
	switch req.Action {
	case parse.ActSchemaRead:
		resp, err = x.openAPI()
	case parse.ActInfo:
		resp, err = x.info()
	case parse.ActRead:
		resp, err = x.read()
	case parse.ActCall:
		resp, err = x.call()
	default:
		resp, err = x.mutate()
	}
	if err != nil {
		return nil, err
	}
	return h.finish(x, resp), nil
}

// finish adds the headers every response carries.
func (h *Handler) finish(x *call, resp *Response) *Response {
	x.tm.mark("response")
	if len(h.cfg.Schemas) > 1 {
		resp.set("Content-Profile", x.req.Schema)
	}
	if h.cfg.ServerTiming {
		resp.set("Server-Timing", strings.Join(x.tm.parts, ", "))
	}
	return resp
}

// call is one request going through the pipeline.
type call struct {
	ctx context.Context
	h   *Handler
	c   *schemacache.Cache
	r   *Request
	req *parse.ApiRequest
	a   *auth
	tm  *timing
	// key is the read cache key of the request ("" when not cacheable).
	key string
}

func (x *call) table() (*schemacache.Table, error) {
	q := schemacache.QI{Schema: x.req.Schema, Name: x.req.Resource}
	t := x.c.Table(q)
	if t == nil {
		var names []string
		for _, t := range x.c.Tables(q.Schema) {
			names = append(names, t.Name)
		}
		return nil, pgrsterr.TableNotFound(q.Schema, q.Name, schemacache.Suggest(q.Name, names))
	}
	return t, nil
}

// preamble builds the set_config statement; readOnly makes the
// transaction read-only.
func (x *call) preamble(readOnly bool, extra [][2]string) sqlgen.Query {
	h := x.h
	path := append([]string{x.req.Schema}, h.cfg.ExtraSearchPath...)
	var sp []string
	for _, s := range path {
		sp = append(sp, `"`+strings.ReplaceAll(s, `"`, `""`)+`"`)
	}
	hj, cj := requestJSON(x.r.Headers)
	settings := [][2]string{
		{"search_path", strings.Join(sp, ", ")},
		{"role", x.a.role},
		{"request.jwt.claims", string(x.a.claims)},
		{"request.jwt.claim.sub", x.a.sub},
		{"request.jwt.claim.role", x.a.role},
		{"request.method", x.req.Method},
		{"request.path", x.req.Path},
		{"request.headers", hj},
		{"request.cookies", cj},
	}
	settings = append(settings, x.c.RoleSettings(x.a.role)...)
	if tz := x.req.Prefs.Timezone; tz != "" {
		settings = append(settings, [2]string{"timezone", tz})
	}
	settings = append(settings, extra...)
	if readOnly {
		settings = append(settings, exec.ReadOnlySetting)
	}
	return sqlgen.Preamble(settings)
}

func (x *call) preRequest() (*sqlgen.Query, error) {
	q := x.h.cfg.preRequest()
	if q == nil {
		return nil, nil
	}
	s, err := sqlgen.PreRequest(*q)
	return &s, err
}

// txRollback reports whether this transaction ends in ROLLBACK.
func (x *call) txRollback() (rollback, applied bool) {
	switch x.h.cfg.TxEnd {
	case TxRollback:
		return true, false
	case TxCommitAllowOverride:
		return x.req.Prefs.Tx == "rollback", x.req.Prefs.Tx != ""
	case TxRollbackAllowOverride:
		return x.req.Prefs.Tx != "commit", x.req.Prefs.Tx != ""
	}
	return false, false
}

func (x *call) planOptions() plan.Options {
	return plan.Options{MaxRows: x.h.cfg.MaxRows, Aggregates: x.h.cfg.Aggregates}
}

func (x *call) run(tx exec.Tx) (*exec.Result, error) {
	x.tm.mark("plan")
	tx.Authenticated = x.a.authenticated
	res, err := exec.Run(x.ctx, x.h.pool, tx)
	x.tm.mark("transaction")
	return res, err
}

// counting returns whether the main statement counts exactly, and the
// planned-count statement to pipeline before it.
func (x *call) counting(root *plan.ReadPlan) (exact bool, planned *sqlgen.Query, err error) {
	switch x.req.Prefs.Count {
	case "exact", "estimated":
		return true, nil, nil
	case "planned":
		q, err := sqlgen.PlannedCount(root)
		return false, &q, err
	}
	return false, nil, nil
}

// estimated replaces a count above max-rows by the planner's estimate
// (Prefer: count=estimated).
func (x *call) estimated(root *plan.ReadPlan) func(ctx context.Context, q exec.Querier, r *exec.Result) error {
	if x.req.Prefs.Count != "estimated" || x.h.cfg.MaxRows <= 0 {
		return nil
	}
	return func(ctx context.Context, q exec.Querier, r *exec.Result) error {
		if r.Total == nil || *r.Total <= x.h.cfg.MaxRows {
			return nil
		}
		pq, err := sqlgen.PlannedCount(root)
		if err != nil {
			return err
		}
		n, err := exec.Planned(ctx, q, pq)
		if err != nil {
			return err
		}
		n = max(n, x.h.cfg.MaxRows)
		r.Total = &n
		return nil
	}
}

func (x *call) read() (*Response, error) {
	t, err := x.table()
	if err != nil {
		return nil, err
	}
	mt, err := negotiate(x.req.Accept, false)
	if err != nil {
		return nil, err
	}
	root, err := plan.Read(x.c, t, x.req, plan.RootTable, x.planOptions())
	if err != nil {
		return nil, err
	}
	exact, planned, err := x.counting(root)
	if err != nil {
		return nil, err
	}
	out := outputFor(mt, x.req.HeadersOnly)
	main, err := sqlgen.Read(root, exact, out)
	if err != nil {
		return nil, err
	}
	e := &readEntry{snapshot: x.c, req: x.req, mt: mt, root: root, main: main, planned: planned}
	x.h.reads.put(x.key, e)
	return x.runRead(e)
}

// runRead runs a planned read and answers it.
func (x *call) runRead(e *readEntry) (*Response, error) {
	pre, err := x.preRequest()
	if err != nil {
		return nil, err
	}
	res, err := x.run(exec.Tx{ReadOnly: true, Preamble: x.preamble(true, nil), PreRequest: pre, Planned: e.planned, Main: e.main, After: x.estimated(e.root)})
	if err != nil {
		return nil, err
	}
	return x.readResponse(res, e.mt, e.root.Range, true)
}

// requestJSON renders request.headers (lower-cased names, first value
// wins) and request.cookies as JSON objects.
func requestJSON(headers [][2]string) (hdrs, cookies string) {
	var hb, cb []byte
	hb = append(hb, '{')
	cb = append(cb, '{')
	seen := make([]string, 0, len(headers))
	for _, kv := range headers {
		k := strings.ToLower(kv[0])
		if slices.Contains(seen, k) {
			continue
		}
		seen = append(seen, k)
		if len(hb) > 1 {
			hb = append(hb, ',')
		}
		hb = appendJSONString(hb, k)
		hb = append(hb, ':')
		hb = appendJSONString(hb, kv[1])
		if k == "cookie" {
			for _, ck := range strings.Split(kv[1], ";") {
				if n, v, ok := strings.Cut(strings.TrimSpace(ck), "="); ok {
					if len(cb) > 1 {
						cb = append(cb, ',')
					}
					cb = appendJSONString(cb, n)
					cb = append(cb, ':')
					cb = appendJSONString(cb, v)
				}
			}
		}
	}
	return string(append(hb, '}')), string(append(cb, '}'))
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
