// Package server wires the gateway's parts into one http.Handler and runs
// it on several listeners with a graceful shutdown.
//
// Order of work for a request: request id, then CORS preflight (answered
// here, never forwarded), then the gateway's own endpoints, then API routes
// (CORS headers, rate limit, apikey, proxy), and everything else goes to the
// frontend. Exactly one access-log line is written when the request ends.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/kejanest/kejanest/gateway/internal/accesslog"
	"github.com/kejanest/kejanest/gateway/internal/apierr"
	"github.com/kejanest/kejanest/gateway/internal/apikey"
	"github.com/kejanest/kejanest/gateway/internal/coalesce"
	"github.com/kejanest/kejanest/gateway/internal/config"
	"github.com/kejanest/kejanest/gateway/internal/cors"
	"github.com/kejanest/kejanest/gateway/internal/metrics"
	"github.com/kejanest/kejanest/gateway/internal/proxy"
	"github.com/kejanest/kejanest/gateway/internal/ratelimit"
	"github.com/kejanest/kejanest/gateway/internal/requestid"
	"github.com/kejanest/kejanest/gateway/internal/spa"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/listenfd"
)

// Service labels for requests that reach no upstream.
const (
	serviceGateway  = "gateway"
	serviceFrontend = "frontend"
)

var healthBody = []byte(`{"status":"ok"}`)

// Server is the gateway's root handler. It is safe for concurrent use.
type Server struct {
	log        *slog.Logger
	access     *accesslog.Logger
	proxy      *proxy.Proxy
	keys       *apikey.Checker
	cors       *cors.Policy
	limiter    *ratelimit.Limiter
	metrics    *metrics.Metrics
	spa        http.Handler
	metricsH   http.Handler
	requireKey bool
	trustProxy bool
	// metricsPublic serves /metrics beyond loopback peers.
	metricsPublic bool
	// pprof serves Go's profiles (GATEWAY_PPROF) to loopback peers; nil
	// when off.
	pprof http.Handler
}

// pprofPrefix is where GATEWAY_PPROF serves net/http/pprof.
const pprofPrefix = "/debug/pprof/"

// pprofHandler routes net/http/pprof's endpoints, which register on
// http.DefaultServeMux only when imported for effect; this mux is the
// gateway's own.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(pprofPrefix, pprof.Index)
	mux.HandleFunc(pprofPrefix+"cmdline", pprof.Cmdline)
	mux.HandleFunc(pprofPrefix+"profile", pprof.Profile)
	mux.HandleFunc(pprofPrefix+"symbol", pprof.Symbol)
	mux.HandleFunc(pprofPrefix+"trace", pprof.Trace)
	return mux
}

// Options carries what tests replace; the zero value is production use.
type Options struct {
	// Now is the clock for key checks, rate limits and the upstream
	// replicas' back-offs; nil is time.Now.
	Now func() time.Time
	// Transport overrides the upstream transport.
	Transport http.RoundTripper
	// InProcess serves services in-process, by service name
	// (GATEWAY_INPROCESS; main builds the handlers).
	InProcess map[string]http.Handler
}

// New builds the handler from a validated configuration. log takes the
// gateway's own lines, access the one line each request ends with.
func New(cfg config.Config, log *slog.Logger, access *accesslog.Logger, o Options) (*Server, error) {
	keys, err := apikey.New(apikey.Keys{
		JWTSecret:      cfg.JWTSecret,
		JWKS:           cfg.JWKS,
		AnonKey:        cfg.AnonKey,
		ServiceRoleKey: cfg.ServiceRoleKey,
		PublishableKey: cfg.PublishableKey,
		SecretKey:      cfg.SecretKey,
	}, o.Now)
	if err != nil {
		return nil, fmt.Errorf("api keys: %w", err)
	}
	px, err := proxy.New(proxy.Upstreams{
		Rest: cfg.RestURLs, RPC: cfg.RPCURLs, Auth: cfg.AuthURLs,
		Realtime: cfg.RealtimeURLs, Storage: cfg.StorageURLs, Functions: cfg.FunctionsURLs,
		Local: o.InProcess,
	}, proxy.Options{Logger: log, TrustProxy: cfg.TrustProxy, Transport: o.Transport, BodyLimit: int64(cfg.BodyLimit), Now: o.Now})
	if err != nil {
		return nil, fmt.Errorf("routes: %w", err)
	}
	m := metrics.New(append([]string{serviceGateway, serviceFrontend}, proxy.Services...))
	var replicas []metrics.Replica
	for _, r := range px.Replicas() {
		replicas = append(replicas, r)
	}
	m.WatchReplicas(replicas)
	var profiles http.Handler
	if cfg.Pprof {
		profiles = pprofHandler()
	}
	return &Server{
		pprof:         profiles,
		log:           log,
		access:        access,
		proxy:         px,
		keys:          keys,
		cors:          cors.New(cfg.CORSOrigins),
		limiter:       ratelimit.New(cfg.Rate, ratelimit.Options{Now: o.Now}),
		metrics:       m,
		spa:           spa.New(cfg.FrontendDir),
		metricsH:      m.Handler(),
		requireKey:    cfg.RequireAPIKey,
		trustProxy:    cfg.TrustProxy,
		metricsPublic: cfg.MetricsPublic,
	}, nil
}

// Metrics exposes the instruments (tests read them).
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// reqState is what the access log and metrics need once a request ends.
type reqState struct {
	start   time.Time
	id      string
	service string
	role    string
	ip      string
	rec     *accesslog.Recorder
	r       *http.Request
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := reqState{start: time.Now(), rec: accesslog.NewRecorder(w), r: r, ip: s.clientIP(r)}
	s.metrics.Begin()
	// Deferred so a panicking handler (ReverseProxy aborts a broken stream
	// with http.ErrAbortHandler) still gets its log line.
	defer s.finish(&st)

	st.id = requestid.Pick(r.Header.Get(requestid.Header))
	r.Header[requestid.Header] = []string{st.id}
	// The services rate-limit and audit by client address: they get the one
	// the gateway decided on (the peer, or with GATEWAY_TRUST_PROXY the
	// front proxy's client), never one the client wrote itself.
	r.Header[realIPHeader] = []string{st.ip}
	w.Header()[requestid.Header] = []string{st.id}

	route := s.proxy.Match(r.URL.Path)
	switch {
	case route != nil:
		st.service = route.Service()
	case r.URL.Path == "/health" || r.URL.Path == "/metrics" || s.profiling(r):
		st.service = serviceGateway
	default:
		st.service = serviceFrontend
	}

	switch {
	case cors.IsPreflight(r):
		s.cors.Preflight(st.rec, r)
	case route != nil:
		st.role = s.serveAPI(st.rec, r, route, st.ip)
	case r.URL.Path == "/health":
		s.health(st.rec, r)
	case s.profiling(r):
		if !loopbackPeer(r) {
			apierr.Write(st.rec, apierr.ProfilesForbidden)
			return
		}
		s.pprof.ServeHTTP(st.rec, r)
	case r.URL.Path == "/metrics":
		if !getOrHead(r) {
			apierr.Write(st.rec, apierr.MethodNotAllowed)
			return
		}
		if !s.metricsPublic && !loopbackPeer(r) {
			apierr.Write(st.rec, apierr.MetricsForbidden)
			return
		}
		s.metricsH.ServeHTTP(st.rec, r)
	default:
		s.spa.ServeHTTP(st.rec, r)
	}
}

func (s *Server) finish(st *reqState) {
	end := time.Now()
	d := end.Sub(st.start)
	s.metrics.End()
	s.metrics.Observe(st.service, st.rec.Status(), d)
	s.access.Log(accesslog.Entry{
		RequestID: st.id,
		Method:    st.r.Method,
		Path:      st.r.URL.Path,
		Service:   st.service,
		Role:      st.role,
		Status:    st.rec.Status(),
		Duration:  d,
		Bytes:     st.rec.Bytes(),
		RemoteIP:  st.ip,
		UserAgent: st.r.UserAgent(),
		End:       end,
	})
}

// serveAPI applies CORS, the rate limit and the apikey rules, then forwards
// r. It returns the effective role for the log.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, route *proxy.Route, ip string) string {
	s.cors.Decorate(w.Header(), r.Header.Get("Origin"))

	if ok, wait := s.limiter.Allow(ip); !ok {
		s.metrics.RateLimited(route.Service())
		w.Header()["Retry-After"] = []string{strconv.Itoa(ratelimit.RetryAfterSeconds(wait))}
		apierr.Write(w, apierr.RateLimited)
		return ""
	}

	key := r.Header.Get("apikey")
	if key == "" {
		// Browsers cannot set headers on a websocket, so realtime-js puts
		// the key in the query; the query itself is forwarded unchanged.
		key = apikey.FromQuery(r.URL.RawQuery)
	}
	res := s.keys.Check(key, r.Header.Get("Authorization"))

	if route.Open(r.URL.Path) {
		// No key check here, but usable credentials are still translated
		// (storage-js sends "Authorization: Bearer sb_…"); unusable ones
		// are forwarded untouched for the service to judge.
		if res.Outcome == apikey.OK || res.Outcome == apikey.Missing {
			setAuthorization(r, res.Authorization)
		}
		route.ServeHTTP(w, r)
		return res.Role
	}

	switch res.Outcome {
	case apikey.Invalid:
		apierr.Write(w, apierr.InvalidAPIKey)
		return res.Role
	case apikey.Internal:
		id := r.Header.Get(requestid.Header)
		s.log.Error("mint role token failed", "request_id", id)
		apierr.WriteInternal(w, id)
		return res.Role
	case apikey.Missing:
		if s.requireKey {
			apierr.Write(w, apierr.NoAPIKey)
			return res.Role
		}
	}
	if !(res.FromAPIKey && route.NeedsUserToken(r.URL.Path)) {
		setAuthorization(r, res.Authorization)
	}
	route.ServeHTTP(w, r)
	return res.Role
}

func setAuthorization(r *http.Request, v string) {
	if v != "" {
		r.Header["Authorization"] = []string{v}
	}
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if !getOrHead(r) {
		apierr.Write(w, apierr.MethodNotAllowed)
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(healthBody)
	}
}

// profiling reports a request for Go's profiles while GATEWAY_PPROF is on.
func (s *Server) profiling(r *http.Request) bool {
	return s.pprof != nil && strings.HasPrefix(r.URL.Path, pprofPrefix)
}

func getOrHead(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// loopbackPeer reports whether the TCP peer itself is on loopback. It never
// reads X-Forwarded-For: a forwarded request came through a proxy, so it is
// not local however the header reads.
func loopbackPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() && r.Header.Get("X-Forwarded-For") == ""
}

// realIPHeader carries the client address to the upstream services.
const realIPHeader = "X-Real-Ip"

// clientIP is the peer address, or with TrustProxy the leftmost
// X-Forwarded-For entry (the original client as the front proxy saw it).
func (s *Server) clientIP(r *http.Request) string {
	if s.trustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			first, _, _ := strings.Cut(xff, ",")
			if first = strings.TrimSpace(first); first != "" {
				return first
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Listen opens every address, or takes the socket a supervisor handed down
// for it (platform/listenfd). An IPv6 address that cannot be opened (a
// host without ::1) is skipped with a warning as long as another address
// works; any other failure is an error.
func Listen(ctx context.Context, addrs []string, log *slog.Logger) ([]net.Listener, error) {
	var lns []net.Listener
	var skipped []error
	for _, a := range addrs {
		ln, err := listenfd.Listen(ctx, a)
		if err == nil {
			lns = append(lns, ln)
			continue
		}
		if listenfd.IsIPv6(a) {
			log.Warn("listen address unavailable, continuing without it", "addr", a, "error", err.Error())
			skipped = append(skipped, fmt.Errorf("listen %s: %w", a, err))
			continue
		}
		closeAll(lns)
		return nil, fmt.Errorf("listen %s: %w", a, err)
	}
	if len(lns) == 0 {
		return nil, fmt.Errorf("no listen address could be opened: %w", errors.Join(skipped...))
	}
	return lns, nil
}

func closeAll(lns []net.Listener) {
	for _, ln := range lns {
		_ = ln.Close()
	}
}

// Serve runs the handler on lns until ctx is cancelled, then drains: new
// connections are refused, in-flight requests get lifecycle.ShutdownGrace
// to finish, and finally upgraded (websocket) connections, which
// http.Server.Shutdown does not track, are closed by cancelling their
// request contexts.
func (s *Server) Serve(ctx context.Context, lns []net.Listener) error {
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		// No WriteTimeout: downloads, streams and websockets run long.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:    func(net.Listener) context.Context { return base },
		// The in-process routes send a response in one write (coalesce).
		ConnContext: coalesce.WithConn,
	}
	errc := make(chan error, len(lns))
	for _, ln := range lns {
		go func() { errc <- srv.Serve(coalesce.Listener{Listener: ln}) }()
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			serveErr = fmt.Errorf("serve: %w", err)
		}
	}
	s.log.Info("shutting down", "grace", lifecycle.ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), lifecycle.ShutdownGrace)
	defer cancel()
	shutdownErr := srv.Shutdown(sctx)
	cancelBase()
	if shutdownErr != nil {
		shutdownErr = fmt.Errorf("shutdown: %w", shutdownErr)
	}
	return errors.Join(serveErr, shutdownErr)
}
