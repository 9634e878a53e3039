package pgrst

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"time"

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
	return &Handler{cfg: cfg, pool: pool, cache: cache, jwt: jwt, log: log}
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
		return &auth{role: h.cfg.AnonRole, claims: []byte(`{"role":` + strconv.Quote(h.cfg.AnonRole) + `}`)}, nil
	}
	scheme, token, _ := strings.Cut(hdr, " ")
	if !strings.EqualFold(scheme, "bearer") {
		return &auth{role: h.cfg.AnonRole, claims: []byte(`{"role":` + strconv.Quote(h.cfg.AnonRole) + `}`)}, nil
	}
	if h.jwt == nil {
		return nil, pgrsterr.JWT("PGRST300", "Server lacks JWT secret")
	}
	c, err := h.jwt.Verify(strings.TrimSpace(token))
	if err != nil {
		var je *jwtverify.Error
		if e, ok := err.(*jwtverify.Error); ok {
			je = e
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
	x := &call{ctx: ctx, h: h, c: c, r: r, req: req, a: a, tm: tm}
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
	tm.mark("response")
	if len(h.cfg.Schemas) > 1 {
		resp.set("Content-Profile", req.Schema)
	}
	if h.cfg.ServerTiming {
		resp.set("Server-Timing", strings.Join(tm.parts, ", "))
	}
	return resp, nil
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

// preamble builds the set_config statement.
func (x *call) preamble(extra [][2]string) sqlgen.Query {
	h := x.h
	path := append([]string{x.req.Schema}, h.cfg.ExtraSearchPath...)
	var sp []string
	for _, s := range path {
		sp = append(sp, `"`+strings.ReplaceAll(s, `"`, `""`)+`"`)
	}
	hdrs := map[string]string{}
	cookies := map[string]string{}
	for _, kv := range x.r.Headers {
		k := strings.ToLower(kv[0])
		if _, ok := hdrs[k]; !ok {
			hdrs[k] = kv[1]
		}
		if k == "cookie" {
			for _, ck := range strings.Split(kv[1], ";") {
				if n, v, ok := strings.Cut(strings.TrimSpace(ck), "="); ok {
					cookies[n] = v
				}
			}
		}
	}
	hj, _ := json.Marshal(hdrs)
	cj, _ := json.Marshal(cookies)
	settings := [][2]string{
		{"search_path", strings.Join(sp, ", ")},
		{"role", x.a.role},
		{"request.jwt.claims", string(x.a.claims)},
		{"request.jwt.claim.sub", x.a.sub},
		{"request.jwt.claim.role", x.a.role},
		{"request.method", x.req.Method},
		{"request.path", x.req.Path},
		{"request.headers", string(hj)},
		{"request.cookies", string(cj)},
	}
	settings = append(settings, x.c.RoleSettings(x.a.role)...)
	if tz := x.req.Prefs.Timezone; tz != "" {
		settings = append(settings, [2]string{"timezone", tz})
	}
	settings = append(settings, extra...)
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
	pre, err := x.preRequest()
	if err != nil {
		return nil, err
	}
	res, err := x.run(exec.Tx{ReadOnly: true, Preamble: x.preamble(nil), PreRequest: pre, Planned: planned, Main: main, After: x.estimated(root)})
	if err != nil {
		return nil, err
	}
	return x.readResponse(res, mt, root.Range, true)
}
