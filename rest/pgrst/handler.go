package pgrst

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/jsonstring"
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

// Header returns the first value of name. Names compare as HTTP compares
// them: ASCII letters in either case, and nothing else folded (Unicode
// folding would let a name with the Kelvin sign stand for one with "k").
// The length settles most names at once; a scan with strings.EqualFold
// showed in the profile of the detail pages.
func (r *Request) Header(name string) string {
	for _, h := range r.Headers {
		if equalFoldASCII(h[0], name) {
			return h[1]
		}
	}
	return ""
}

// HeaderValues returns every value of name, compared as in Header.
func (r *Request) HeaderValues(name string) []string {
	var out []string
	for _, h := range r.Headers {
		if equalFoldASCII(h[0], name) {
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
	// base is the configuration the service started with (its
	// environment); live is base with the in-database settings applied,
	// swapped whole by ReloadConfig.
	base  Config
	live  atomic.Pointer[liveConfig]
	pool  *pgxpool.Pool
	cache *schemacache.Holder
	jwt   *jwtverify.Verifier
	log   *slog.Logger
	reads readCache
	// shapes has a new value of a known request shape skip sqlgen.
	shapes shapeCache
	// selects keeps parsed select= lists, which every request of a
	// screen repeats.
	selects parse.SelectCache
	// seen has value-sensitive filter values written into statements
	// once they are asked for often (plan.Sightings).
	seen *plan.Sightings
	// reloadMu serializes ReloadConfig.
	reloadMu sync.Mutex
}

// liveConfig is one configuration in force and what is derived from it.
type liveConfig struct {
	Config
	// anonAuth is the auth of requests without a token.
	anonAuth *auth
	// searchPaths holds the search_path setting of each exposed schema.
	searchPaths map[string]string
	// jwt verifies tokens when the in-database jwt_secret or jwt_aud
	// differ from the environment's (nil: the Handler's verifier).
	jwt *jwtverify.Verifier
	// roleKey is the parsed JWTRoleClaimKey; nil reads the role claim.
	roleKey jsPath
	// jwts caches the tokens verified under this configuration.
	jwts *jwtCache
}

func newLiveConfig(cfg Config) *liveConfig {
	if cfg.AnonRole == "" {
		cfg.AnonRole = "anon"
	}
	if cfg.TxEnd == "" {
		cfg.TxEnd = TxCommit
	}
	if cfg.OpenAPIMode == "" {
		cfg.OpenAPIMode = OpenAPIFollowPrivileges
	}
	anon := &auth{role: cfg.AnonRole, claims: []byte(`{"role":` + strconv.Quote(cfg.AnonRole) + `}`)}
	paths := make(map[string]string, len(cfg.Schemas))
	for _, s := range cfg.Schemas {
		paths[s] = SearchPath(s, cfg.ExtraSearchPath)
	}
	lc := &liveConfig{Config: cfg, anonAuth: anon, searchPaths: paths, jwts: &jwtCache{}}
	if cfg.JWTRoleClaimKey != "" && cfg.JWTRoleClaimKey != defaultRoleClaimKey {
		// Validated by the services' config and by ApplyDBSettings.
		if p, err := parseJSPath(cfg.JWTRoleClaimKey); err == nil && !p.isDefault() {
			lc.roleKey = p
		}
	}
	return lc
}

// New returns a Handler. cache must be loaded (or loading) elsewhere; with
// cfg.DBConfig, call ReloadConfig before serving (the schema cache's
// listener does, through OnConfigReload).
func New(cfg Config, pool *pgxpool.Pool, cache *schemacache.Holder, jwt *jwtverify.Verifier, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{base: cfg, pool: pool, cache: cache, jwt: jwt, log: log, seen: plan.NewSightings()}
	h.live.Store(newLiveConfig(cfg))
	return h
}

// Config returns the configuration in force (the environment's, with the
// in-database settings applied).
func (h *Handler) Config() Config { return h.live.Load().Config }

// ReloadConfig reads the in-database configuration (when Config.DBConfig is
// set) and puts the result in force for the requests that start after it
// returns (PostgREST's readInDbConfig, run at start and on NOTIFY pgrst,
// 'reload config'). When it changes the exposed schemas it reloads the
// schema cache first. On failure the configuration in force stays.
func (h *Handler) ReloadConfig(ctx context.Context) error {
	if !h.base.DBConfig {
		return nil
	}
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	var settings map[string]string
	err := pgx.BeginTxFunc(ctx, h.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		settings, err = LoadDBSettings(ctx, tx, h.base.PreConfig)
		return err
	})
	if err != nil {
		return err
	}
	lc, err := liveFromDB(h.base, settings)
	if err != nil {
		return err
	}
	if old := h.live.Load().Schemas; h.cache != nil && !slices.Equal(lc.Schemas, old) {
		// A newly exposed schema (db_schemas) must be in the snapshot
		// before the configuration exposing it is in force: otherwise its
		// requests find no table until a later reload lands, or for good
		// if that reload fails.
		h.cache.SetSchemas(lc.Schemas)
		if err := h.cache.Reload(ctx); err != nil {
			h.cache.SetSchemas(old)
			return fmt.Errorf("load the schemas of the new configuration: %w", err)
		}
	}
	h.live.Store(lc)
	h.log.Info("configuration loaded", "in_database_settings", len(settings))
	return nil
}

// liveFromDB is base with the in-database settings applied, with its own
// verifier when they change the JWT secret or audience.
func liveFromDB(base Config, settings map[string]string) (*liveConfig, error) {
	cfg, err := base.ApplyDBSettings(settings)
	if err != nil {
		return nil, fmt.Errorf("apply in-database configuration: %w", err)
	}
	lc := newLiveConfig(cfg)
	if cfg.JWTSecret != base.JWTSecret || cfg.JWKS != base.JWKS || cfg.JWTAud != base.JWTAud {
		if lc.jwt, err = jwtverify.New(jwtverify.Options{Secret: cfg.JWTSecret, JWKS: []byte(cfg.JWKS), Audience: cfg.JWTAud}); err != nil {
			return nil, fmt.Errorf("apply in-database configuration: jwt: %w", err)
		}
	}
	return lc, nil
}

// SearchPath is the search_path of a request on schema: the schema, then
// the extra ones, each quoted.
func SearchPath(schema string, extra []string) string {
	var b strings.Builder
	for i, s := range append([]string{schema}, extra...) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + strings.ReplaceAll(s, `"`, `""`) + `"`)
	}
	return b.String()
}

// auth is who the request runs as.
type auth struct {
	role   string
	claims []byte
	// authenticated is a role other than the anonymous one (42501 is 403
	// then, 401 for anonymous requests).
	authenticated bool
}

func (h *Handler) authenticate(r *Request, lc *liveConfig) (*auth, error) {
	hdr := strings.TrimSpace(r.Header("Authorization"))
	if hdr == "" {
		return lc.anonAuth, nil
	}
	scheme, token, _ := strings.Cut(hdr, " ")
	if !strings.EqualFold(scheme, "bearer") {
		return lc.anonAuth, nil
	}
	verifier := h.jwt
	if lc.jwt != nil {
		verifier = lc.jwt
	}
	if verifier == nil {
		return nil, pgrsterr.JWT("PGRST300", "Server lacks JWT secret")
	}
	token = strings.TrimSpace(token)
	now := time.Now()
	if a := lc.jwts.get(token, now); a != nil {
		return a, nil
	}
	c, err := verifier.Verify(token)
	if err != nil {
		if je, ok := err.(*jwtverify.Error); ok {
			return nil, pgrsterr.JWT(je.Code, je.Message)
		}
		return nil, pgrsterr.JWT("PGRST301", err.Error())
	}
	a := &auth{role: c.Role, claims: c.Raw}
	if lc.roleKey != nil {
		// jwt_role_claim_key: a string found there, else the anonymous
		// role (PostgREST's walkJSPath); the claims are passed unchanged.
		a.role = lc.AnonRole
		if v, ok := lc.roleKey.walk(c.Map); ok {
			if s, ok := v.(string); ok {
				a.role = s
			}
		}
	} else if a.role == "" {
		a.role = lc.AnonRole
		m := c.Map
		m["role"] = a.role
		a.claims, _ = json.Marshal(m)
	}
	a.authenticated = a.role != lc.AnonRole
	// Keep it until it expires (allowing for the verifier's skew), or a
	// minute for tokens without exp.
	exp := now.Add(time.Minute)
	if !c.ExpiresAt.IsZero() {
		exp = c.ExpiresAt.Add(jwtverify.DefaultSkew)
	}
	lc.jwts.put(token, a, exp)
	return a, nil
}

// timing collects Server-Timing entries.
type timing struct {
	last  time.Time
	n     int
	parts [8]struct {
		name string
		dur  time.Duration
	}
}

func (t *timing) mark(name string) {
	now := time.Now()
	if t.n < len(t.parts) {
		t.parts[t.n].name, t.parts[t.n].dur = name, now.Sub(t.last)
		t.n++
	}
	t.last = now
}

// header renders the entries as "name;dur=1.2, …" (milliseconds).
func (t *timing) header() string {
	// Built on the stack and copied out once: one allocation.
	var buf [8 * 32]byte
	b := buf[:0]
	for i, p := range t.parts[:t.n] {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, p.name...)
		b = append(b, ";dur="...)
		b = strconv.AppendFloat(b, float64(p.dur.Microseconds())/1000, 'f', 1, 64)
	}
	return string(b)
}

// Serve runs the pipeline for r. Errors are *pgrsterr.Error values (or
// unexpected failures for the HTTP layer to log and answer 500).
func (h *Handler) Serve(ctx context.Context, r *Request) (*Response, error) {
	tm := &timing{last: time.Now()}
	lc := h.live.Load()
	a, err := h.authenticate(r, lc)
	if err != nil {
		return nil, err
	}
	tm.mark("jwt")
	var kb [512]byte
	key := appendReadKey(kb[:0], r)
	// An entry is kept only under a loaded snapshot, so none matches
	// before the schema cache is ready.
	snap := h.cache.Get()
	if e, ok := h.reads.get(key, snap, lc); ok {
		x := &call{ctx: ctx, h: h, cfg: lc, c: snap, r: r, req: e.req, a: a, tm: tm}
		tm.mark("parse")
		resp, err := x.runRead(e)
		if err != nil {
			return nil, err
		}
		return h.finish(x, resp), nil
	}
	req, err := parse.Parse(parse.Input{Method: r.Method, Path: r.Path, RawQuery: r.RawQuery, Header: r.Header, HeaderValues: r.HeaderValues, Body: r.Body},
		parse.Options{Schemas: lc.Schemas, Selects: &h.selects})
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
	x := &call{ctx: ctx, h: h, cfg: lc, c: c, r: r, req: req, a: a, tm: tm}
	if key != nil {
		x.key = string(key)
	}
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
	if len(x.cfg.Schemas) > 1 {
		resp.set("Content-Profile", x.req.Schema)
	}
	if x.cfg.ServerTiming {
		resp.set("Server-Timing", x.tm.header())
	}
	return resp
}

// call is one request going through the pipeline.
type call struct {
	ctx context.Context
	h   *Handler
	// cfg is the configuration in force when the request started.
	cfg *liveConfig
	c   *schemacache.Cache
	r   *Request
	req *parse.ApiRequest
	a   *auth
	tm  *timing
	// key is the read cache key of the request ("" when not cacheable).
	key string
	// plan is the negotiated EXPLAIN media type, when the request asks
	// for its statement's plan instead of running it for its rows.
	plan *parse.MediaType
}

// negotiate picks the response media type and notes a plan type.
func (x *call) negotiate() (parse.MediaType, error) {
	mt, err := negotiate(x.req.Accept, false, x.cfg.PlanEnabled)
	if err == nil && mt.IsPlan() {
		x.plan = &mt
	}
	return mt, err
}

// explainSQL is PostgREST's EXPLAIN prefix for a plan media type
// (SqlFragment.hs explainF).
func explainSQL(mt parse.MediaType) string {
	parts := []string{"FORMAT TEXT"}
	if mt.Type == parse.MTPlanJSON {
		parts[0] = "FORMAT JSON"
	}
	for _, o := range mt.PlanOptions {
		parts = append(parts, strings.ToUpper(o))
	}
	return "EXPLAIN (" + strings.Join(parts, ", ") + ") "
}

// planResponse answers a plan media type: the EXPLAIN output, 200.
func planResponse(mt parse.MediaType, res *exec.Result) *Response {
	resp := &Response{Status: 200, Body: res.Body}
	resp.set("Content-Type", mt.String()+"; charset=utf-8")
	return resp
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
	sp, ok := x.cfg.searchPaths[x.req.Schema]
	if !ok {
		sp = SearchPath(x.req.Schema, x.cfg.ExtraSearchPath)
	}
	p := Preamble{
		SearchPath:   sp,
		Role:         x.a.role,
		Claims:       x.a.claims,
		Method:       x.req.Method,
		Path:         x.req.Path,
		Headers:      x.r.Headers,
		RoleSettings: x.c.RoleSettings(x.a.role),
		Timezone:     x.req.Prefs.Timezone,
		Extra:        extra,
		ReadOnly:     readOnly,
	}
	return p.Query()
}

// Preamble is what a request's transaction sets before its statement, as
// PostgREST sets it: the search path and role, the request.* settings a
// policy or function reads, the settings ALTER ROLE … SET gave the role
// (SET ROLE does not apply them), the Prefer timezone, and a read-only
// transaction for reads. cmd/restbench's floor-tx sends the same.
//
// The claims go in request.jwt.claims only. The legacy one-setting-per-claim
// names (request.jwt.claim.sub, …) left PostgREST in version 10 (Supabase
// runs 12 and later), so a function reading them sees what it would see
// there; auth.uid() and the other auth helpers fall back to the JSON.
type Preamble struct {
	SearchPath   string // quoted, as SearchPath writes it
	Role         string
	Claims       []byte // the JWT's claims as JSON
	Method       string
	Path         string
	Headers      [][2]string // as the request carries them (request.headers and request.cookies)
	RoleSettings [][2]string // schemacache.Cache.RoleSettings(Role)
	Timezone     string      // Prefer: timezone=…, or ""
	Extra        [][2]string // after all the others (a function's SET, say)
	ReadOnly     bool
}

// Query is the preamble's set_config statement.
func (p *Preamble) Query() sqlgen.Query {
	var s sqlgen.Settings
	s.Grow(10+len(p.RoleSettings)+len(p.Extra), 256+len(p.Claims)+len(p.Path)+headersSize(p.Headers))
	s.Add("search_path", p.SearchPath)
	s.Add("role", p.Role)
	s.AddFunc("request.jwt.claims", func(b []byte) []byte { return append(b, p.Claims...) })
	s.Add("request.method", p.Method)
	s.Add("request.path", p.Path)
	s.AddFunc("request.headers", func(b []byte) []byte { return appendHeadersJSON(b, p.Headers) })
	s.AddFunc("request.cookies", func(b []byte) []byte { return appendCookiesJSON(b, p.Headers) })
	for _, kv := range p.RoleSettings {
		s.Add(kv[0], kv[1])
	}
	if p.Timezone != "" {
		s.Add("timezone", p.Timezone)
	}
	for _, kv := range p.Extra {
		s.Add(kv[0], kv[1])
	}
	if p.ReadOnly {
		s.Add(exec.ReadOnlySetting[0], exec.ReadOnlySetting[1])
	}
	return s.Query()
}

func (x *call) preRequest() (*sqlgen.Query, error) {
	q := x.cfg.preRequest()
	if q == nil {
		return nil, nil
	}
	s, err := sqlgen.PreRequest(*q)
	return &s, err
}

// txRollback reports whether this transaction ends in ROLLBACK.
func (x *call) txRollback() (rollback, applied bool) {
	switch x.cfg.TxEnd {
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
	return plan.Options{MaxRows: x.cfg.MaxRows, Aggregates: x.cfg.Aggregates, Seen: x.h.seen}
}

func (x *call) run(tx exec.Tx) (*exec.Result, error) {
	x.tm.mark("plan")
	tx.Authenticated = x.a.authenticated
	if x.plan != nil {
		tx.Main.SQL = explainSQL(*x.plan) + tx.Main.SQL
		tx.Explain, tx.Planned, tx.After, tx.Estimate = true, nil, nil, nil
	}
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

// estimating reports whether a read's count is estimated above max-rows;
// without max-rows, count=estimated counts exactly (as PostgREST does).
func (x *call) estimating() bool {
	return x.req.Prefs.Count == "estimated" && x.cfg.MaxRows > 0
}

// estimated replaces a count above max-rows by the planner's estimate
// (Prefer: count=estimated).
func (x *call) estimated(root *plan.ReadPlan) func(ctx context.Context, q exec.Querier, r *exec.Result) error {
	if !x.estimating() {
		return nil
	}
	return func(ctx context.Context, q exec.Querier, r *exec.Result) error {
		if r.Total == nil || *r.Total <= x.cfg.MaxRows {
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
		n = max(n, x.cfg.MaxRows)
		r.Total = &n
		return nil
	}
}

func (x *call) read() (*Response, error) {
	t, err := x.table()
	if err != nil {
		return nil, err
	}
	mt, err := x.negotiate()
	if err != nil {
		return nil, err
	}
	root, err := plan.Read(x.c, t, x.req, plan.RootTable, x.planOptions())
	if err != nil {
		return nil, err
	}
	stmts, err := x.readStatements(t, root, mt)
	if err != nil {
		return nil, err
	}
	e := &readEntry{req: x.req, mt: mt, root: root, main: stmts.main, planned: stmts.planned,
		location: contentLocation(x.req.Resource, x.r.RawQuery), customPlan: root.CustomPlan(), estimate: stmts.estimate, along: stmts.along}
	if !root.Unseen && x.h.reads.admit([]byte(x.key)) {
		x.h.reads.put(x.key, x.c, x.cfg, e)
	}
	return x.runRead(e)
}

// readStatements returns the statements of a read planned as root: from
// its shape's templates when the shape is known (shapecache.go), else
// built, and the shape learnt.
func (x *call) readStatements(t *schemacache.Table, root *plan.ReadPlan, mt parse.MediaType) (readStmts, error) {
	build := func() (readStmts, error) { return x.buildRead(root, mt) }
	// A read without slotted values gains nothing here: the read cache
	// answers it when it is asked again.
	vals := slotValues(x.req)
	if len(vals) == 0 || anyInline(root) {
		return build()
	}
	return x.viaShape(shapeKey(x.req), vals, build, func(got readStmts) *readTemplates {
		probes := sentinels(len(vals))
		root := x.probeRead(t, plan.RootTable, probes)
		if root == nil {
			return nil
		}
		// The probe differs from x's request only by the values, so x's
		// counting and output apply to it.
		probe, err := x.buildRead(root, mt)
		if err != nil {
			return nil
		}
		return learnTemplates(got, probe, vals, boundProbes(x.req, probes))
	})
}

// viaShape returns the statements of the shape key with vals: filled in
// from the shape's templates when it is known, else built (build), and
// the shape learnt (learn gets them, and returns nil for a shape to
// build in full) once it has come a second time. A nil key (a request
// that cannot be written out) is built.
func (x *call) viaShape(key []byte, vals []string, build func() (readStmts, error), learn func(got readStmts) *readTemplates) (readStmts, error) {
	if key == nil {
		return build()
	}
	if t, known := x.h.shapes.get(key, x.c, x.cfg); known {
		if t == nil {
			return build()
		}
		return t.fill(vals), nil
	}
	got, err := build()
	if err != nil || !x.h.shapes.admit(key) {
		return got, err
	}
	x.h.shapes.put(string(key), x.c, x.cfg, learn(got))
	return got, nil
}

// probeRead plans x's read over t once more, with probes in place of its
// slotted filters' values, every one bound (plan.Options.BindAll), as the
// requests its shape stands for are until a value is asked for often: such
// a request is built in full (anyInline). nil when planning refuses it or
// writes a value into the text.
func (x *call) probeRead(t *schemacache.Table, kind plan.RootKind, probes []string) *plan.ReadPlan {
	opt := x.planOptions()
	opt.BindAll = true
	root, err := plan.Read(x.c, t, withValues(x.req, probes), kind, opt)
	if err != nil || anyInline(root) {
		return nil
	}
	return root
}

// buildRead builds the statements of a read planned as root.
func (x *call) buildRead(root *plan.ReadPlan, mt parse.MediaType) (readStmts, error) {
	var s readStmts
	exact, planned, err := x.counting(root)
	if err != nil {
		return s, err
	}
	if planned != nil {
		q := planned.Encoded()
		s.planned = &q
	}
	out := outputFor(mt, x.req.HeadersOnly)
	if x.estimating() {
		// Only whether the total passes max-rows matters (estimated).
		s.main, err = sqlgen.ReadCountUpTo(root, x.cfg.MaxRows+1, out)
	} else {
		s.main, err = sqlgen.Read(root, exact, out)
	}
	if err != nil {
		return s, err
	}
	s.main = s.main.Encoded()
	if x.estimating() {
		q, err := sqlgen.PlannedCount(root)
		if err != nil {
			return s, err
		}
		q = q.Encoded()
		s.estimate, s.along = &q, new(atomic.Bool)
	}
	return s, nil
}

// runRead runs a planned read and answers it.
func (x *call) runRead(e *readEntry) (*Response, error) {
	pre, err := x.preRequest()
	if err != nil {
		return nil, err
	}
	if e.mt.IsPlan() {
		x.plan = &e.mt
	}
	tx := exec.Tx{ReadOnly: true, Preamble: x.preamble(true, nil), PreRequest: pre, Planned: e.planned, Main: e.main, CustomPlan: e.customPlan}
	if e.estimate != nil && pre == nil {
		tx.Estimate, tx.EstimateAbove, tx.EstimateAlong = e.estimate, x.cfg.MaxRows, e.along.Load()
	} else {
		// A pre-request function may set what the policies read, so the
		// estimate runs in the read's own transaction, after it.
		tx.After = x.estimated(e.root)
	}
	res, err := x.run(tx)
	if err != nil {
		return nil, err
	}
	if x.plan != nil {
		return planResponse(*x.plan, res), nil
	}
	if tx.Estimate != nil && tx.EstimateAlong != res.Estimated {
		e.along.Store(res.Estimated)
	}
	return x.readResponse(res, e.mt, e.root.Range, true, e.location)
}

// headersSize is the length of every header name and value.
func headersSize(headers [][2]string) int {
	n := 0
	for _, kv := range headers {
		n += len(kv[0]) + len(kv[1]) + 6
	}
	return n
}

// appendHeadersJSON appends request.headers: a JSON object of the headers
// with lower-cased names, where the first value of a name wins.
func appendHeadersJSON(b []byte, headers [][2]string) []byte {
	// Two ASCII names (as HTTP's are) are equal once lower-cased only if
	// their lengths are, which settles nearly every pair without a look
	// at their bytes. A non-ASCII name can match one of another length
	// (the Kelvin sign lower-cases to "k").
	ascii := true
	for _, kv := range headers {
		if !isASCII(kv[0]) {
			ascii = false
			break
		}
	}
	b = append(b, '{')
	first := true
	for i, kv := range headers {
		if slices.ContainsFunc(headers[:i], func(p [2]string) bool {
			return (!ascii || len(p[0]) == len(kv[0])) && equalLower(p[0], kv[0])
		}) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonstring.AppendLower(b, kv[0])
		b = append(b, ':')
		b = jsonstring.Append(b, kv[1])
	}
	return append(b, '}')
}

// appendCookiesJSON appends request.cookies: a JSON object of the cookies
// in the first Cookie header.
func appendCookiesJSON(b []byte, headers [][2]string) []byte {
	b = append(b, '{')
	for _, kv := range headers {
		if !equalLower(kv[0], "cookie") {
			continue
		}
		first := true
		for ck := range strings.SplitSeq(kv[1], ";") {
			if n, v, ok := strings.Cut(strings.TrimSpace(ck), "="); ok {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = jsonstring.Append(b, n)
				b = append(b, ':')
				b = jsonstring.Append(b, v)
			}
		}
		break
	}
	return append(b, '}')
}

// equalLower reports whether a and b are equal once lower-cased (as
// strings.ToLower does it), without allocating.
func equalLower(a, b string) bool {
	for a != "" && b != "" {
		if a[0] < utf8.RuneSelf && b[0] < utf8.RuneSelf {
			if lowerASCII(a[0]) != lowerASCII(b[0]) {
				return false
			}
			a, b = a[1:], b[1:]
			continue
		}
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb && unicode.ToLower(ra) != unicode.ToLower(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b == ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// equalFoldASCII reports whether a and b are equal once their ASCII
// letters are lower-cased.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
