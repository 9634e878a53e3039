// Package proxy maps public API paths to the services behind the gateway and
// forwards requests to them, as the Supabase CLI's Kong does: the route
// prefix is stripped, the query string is kept byte for byte, bodies are
// streamed, and websocket upgrades pass through.
//
// Services with a request body limit (rest, rpc, auth, functions) cut an
// upload that passes it by closing the connection with the rest unread; the
// gateway, still streaming, then sees a reset rather than their 413. So the
// gateway enforces the limit first and answers 413 in the service's own
// words.
//
// A service may run as several replicas, one base URL each; balance.go
// spreads requests over them and skips replicas that refuse connections.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/kejanest/kejanest/gateway/internal/apierr"
	"github.com/kejanest/kejanest/gateway/internal/coalesce"
	"github.com/kejanest/kejanest/gateway/internal/cors"
	"github.com/kejanest/kejanest/gateway/internal/requestid"
)

// Service names, used in logs and metric labels.
const (
	ServiceRest     = "rest"
	ServiceRPC      = "rpc"
	ServiceAuth     = "auth"
	ServiceRealtime = "realtime"
	ServiceStorage  = "storage"
	// ServiceFunctions is the payments service (/functions/v1, Supabase's
	// Edge Functions path).
	ServiceFunctions = "functions"
)

// Services lists every upstream service name.
var Services = []string{ServiceRest, ServiceRPC, ServiceAuth, ServiceRealtime, ServiceStorage, ServiceFunctions}

// authOpen are the auth paths (after the prefix) that browsers reach by
// navigation, without headers, so no apikey can be required (Supabase's
// Kong leaves them open too). health is open for probes.
var authOpen = map[string]bool{
	"/verify":                true,
	"/callback":              true,
	"/authorize":             true,
	"/.well-known/jwks.json": true,
	"/health":                true,
}

// authUserOnly are the auth paths (after the prefix; a trailing "/"
// matches the subtree) where GoTrue requires the caller's own bearer token:
// its requireAuthentication and requireAdminCredentials routes. The apikey
// is never turned into their Authorization header, so a request without
// one gets GoTrue's 401 no_authorization "This endpoint requires a valid
// Bearer token", as it does behind Supabase's gateway, rather than a
// claims error about the anon key.
var authUserOnly = []string{"/user", "/user/", "/logout", "/reauthenticate", "/factors", "/factors/", "/admin/", "/invite"}

// needsUserToken reports whether rest (the path after /auth/v1) is one of
// authUserOnly.
func needsUserToken(rest string) bool {
	for _, p := range authUserOnly {
		if rest == p || rest == strings.TrimSuffix(p, "/") || (strings.HasSuffix(p, "/") && strings.HasPrefix(rest, p)) {
			return true
		}
	}
	return false
}

// functionsOpen are the functions (after the prefix) that need no apikey:
// Safaricom posts the M-Pesa result to the callback URL with no headers of
// ours, so it cannot carry one. Like a Supabase Edge Function deployed with
// verify_jwt = false, the function authenticates the call itself (the
// callback URL's per-purchase secret, then the CheckoutRequestID). Every
// other function requires the apikey like the rest of the API.
var functionsOpen = map[string]bool{
	"/mpesa-callback": true,
}

// Upstreams are the base URLs of the services, one per replica. Functions
// may be empty: /functions/v1 then has no route. Local serves a service
// in-process instead (by service name): its handler gets the request with
// the prefix stripped and the X-Forwarded-* headers a proxied request
// carries, and its URLs are ignored.
type Upstreams struct {
	Rest, RPC, Auth, Realtime, Storage, Functions []string
	Local                                         map[string]http.Handler
}

// Options tunes the proxy.
type Options struct {
	// Logger receives upstream failures.
	Logger *slog.Logger
	// TrustProxy keeps the X-Forwarded-* values a fronting proxy set
	// instead of replacing them.
	TrustProxy bool
	// Transport overrides the upstream transport (tests); nil builds one.
	Transport http.RoundTripper
	// BodyLimit is the largest request body, in bytes, forwarded to the
	// services that enforce a limit of their own (rest, rpc, auth); 0
	// forwards any size. It must not exceed theirs.
	BodyLimit int64
	// Now is the clock of the replicas' back-offs (tests); nil is
	// time.Now.
	Now func() time.Time
}

// Route is one public prefix and the service behind it.
type Route struct {
	service string
	match   string // public prefix matched on a path-segment boundary
	strip   string // removed before forwarding; sent as X-Forwarded-Prefix
	open    func(rest string) bool
	// first is the service's first (with one URL, only) replica; base is
	// the replicas' shared base path without its trailing slash.
	first *url.URL
	base  string
	// balancer spreads requests over the replicas; nil with one URL.
	balancer *balancer
	// local serves the route in-process (Upstreams.Local); rp is nil then.
	local http.Handler
	trust bool
	log   *slog.Logger
	rp    *httputil.ReverseProxy
	// limit is the largest body forwarded, 0 for any; tooLarge is the
	// service's own answer to a larger one.
	limit    int64
	tooLarge func(r *http.Request) apierr.Error
}

// Proxy holds the routes in match order (rpc before rest).
type Proxy struct {
	routes []*Route
}

// New parses the upstream URLs and builds one reverse proxy per service,
// balanced over the service's replicas when it has several.
func New(u Upstreams, o Options) (*Proxy, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	tr := o.Transport
	if tr == nil {
		tr = NewTransport()
	}
	specs := []struct {
		service, match, strip string
		targets               []string
		open                  func(string) bool
		// tooLarge, when set, subjects the route to o.BodyLimit.
		tooLarge func(*http.Request) apierr.Error
		// optional routes are left out when they have no URL.
		optional bool
	}{
		// rpc first: /rest/v1/rpc/* would otherwise match rest.
		{ServiceRPC, "/rest/v1/rpc", "/rest/v1", u.RPC, nil, restTooLarge, false},
		{ServiceRest, "/rest/v1", "/rest/v1", u.Rest, nil, restTooLarge, false},
		{ServiceAuth, "/auth/v1", "/auth/v1", u.Auth, func(rest string) bool {
			return authOpen[strings.TrimSuffix(rest, "/")]
		}, authTooLarge, false},
		// realtime reads its REST bodies with net/http, which answers its
		// own 413 without cutting the upload.
		{ServiceRealtime, "/realtime/v1", "/realtime/v1", u.Realtime, nil, nil, false},
		// Storage does its own access control (RLS on storage.objects),
		// and public object URLs must work with no headers at all. Uploads
		// are large; storage has its own limit (FILE_SIZE_LIMIT).
		{ServiceStorage, "/storage/v1", "/storage/v1", u.Storage, func(string) bool { return true }, nil, false},
		// payments is a Fiber service with the same body limit as rest.
		{ServiceFunctions, "/functions/v1", "/functions/v1", u.Functions, func(rest string) bool {
			return functionsOpen[strings.TrimSuffix(rest, "/")]
		}, functionsTooLarge, true},
	}
	p := &Proxy{}
	buffers := newBufferPool()
	for _, s := range specs {
		if h := u.Local[s.service]; h != nil {
			rt := &Route{service: s.service, match: s.match, strip: s.strip, open: s.open, trust: o.TrustProxy, log: o.Logger, local: h}
			if s.tooLarge != nil && o.BodyLimit > 0 {
				rt.limit, rt.tooLarge = o.BodyLimit, s.tooLarge
			}
			p.routes = append(p.routes, rt)
			continue
		}
		if s.optional && len(s.targets) == 0 {
			continue
		}
		targets, err := parseReplicas(s.targets)
		if err != nil {
			return nil, fmt.Errorf("proxy: %s upstream: %w", s.service, err)
		}
		rt := &Route{
			service: s.service, match: s.match, strip: s.strip, open: s.open,
			first: targets[0], base: basePath(targets[0]), trust: o.TrustProxy, log: o.Logger,
		}
		if s.tooLarge != nil && o.BodyLimit > 0 {
			rt.limit, rt.tooLarge = o.BodyLimit, s.tooLarge
		}
		var rtr http.RoundTripper = tr
		if len(targets) > 1 {
			rt.balancer = newBalancer(s.service, targets, tr, o.Logger, o.Now)
			rtr = rt.balancer
		}
		rt.rp = &httputil.ReverseProxy{
			Rewrite:   rt.rewrite,
			Transport: rtr,
			// Flush every write: realtime long-polls, storage downloads and
			// any server-sent stream reach the client as they are produced.
			FlushInterval:  -1,
			ModifyResponse: modifyResponse,
			ErrorHandler:   rt.upstreamError,
			ErrorLog:       slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
			BufferPool:     buffers,
		}
		p.routes = append(p.routes, rt)
	}
	return p, nil
}

// NewTransport returns the upstream transport: pooled keep-alive
// connections (the default of 2 idle per host would churn under load), no
// transparent compression (bodies pass through untouched), and no response
// timeout (long polls and streams are legitimate).
func NewTransport() *http.Transport {
	return &http.Transport{
		Proxy: nil,
		DialContext: (&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// Replicas lists the replicas of every service that has more than one, in
// route order; a single-URL service has none to report.
func (p *Proxy) Replicas() []*Replica {
	var rs []*Replica
	for _, rt := range p.routes {
		if rt.balancer != nil {
			rs = append(rs, rt.balancer.replicas...)
		}
	}
	return rs
}

// Match returns the route serving path, or nil when no API prefix matches.
func (p *Proxy) Match(path string) *Route {
	for _, rt := range p.routes {
		if hasSegmentPrefix(path, rt.match) {
			return rt
		}
	}
	return nil
}

// hasSegmentPrefix reports whether path is prefix or continues it with "/".
func hasSegmentPrefix(path, prefix string) bool {
	return strings.HasPrefix(path, prefix) && (len(path) == len(prefix) || path[len(prefix)] == '/')
}

// Service names the upstream service.
func (rt *Route) Service() string { return rt.service }

// Open reports whether path (the full public path) needs no apikey.
func (rt *Route) Open(path string) bool {
	return rt.open != nil && rt.open(strip(path, rt.strip))
}

// NeedsUserToken reports whether path (the full public path) is an auth
// endpoint that only the caller's own bearer token may authorize, so the
// apikey must not stand in for a missing Authorization header.
func (rt *Route) NeedsUserToken(path string) bool {
	return rt.service == ServiceAuth && needsUserToken(strip(path, rt.strip))
}

// ServeHTTP forwards r to the service. On a route with a body limit, a body
// announced larger is refused before anything is sent, and a body of
// unknown length (chunked) is cut off past the limit, which upstreamError
// answers: 413 either way, never a body over the limit upstream.
func (rt *Route) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rt.limit > 0 && r.Body != nil && r.Body != http.NoBody {
		switch {
		case r.ContentLength > rt.limit:
			rt.refuseBody(w, r)
			return
		case r.ContentLength < 0:
			// A copy: the server's own request keeps its body, whose type
			// net/http inspects after the handler to end the connection.
			// No writer is passed, so the reader, which the transport runs
			// on its own goroutine, never touches the response.
			r = r.WithContext(r.Context())
			r.Body = http.MaxBytesReader(nil, r.Body, rt.limit)
		}
	}
	if rt.local != nil {
		rt.serveLocal(w, r)
		return
	}
	rt.rp.ServeHTTP(w, r)
}

// serveLocal hands r to the in-process service as the reverse proxy would
// forward it: the prefix stripped, the query untouched, X-Forwarded-For,
// -Host, -Proto and -Prefix set. The copy shares r's headers, which the
// gateway already owns and edits (request id, X-Real-Ip); the service
// writes straight to w, so there is no response to copy or strip.
func (rt *Route) serveLocal(w http.ResponseWriter, r *http.Request) {
	out := new(http.Request)
	*out = *r
	u := *r.URL
	u.Path, u.RawPath = strip(r.URL.Path, rt.strip), ""
	out.URL = &u
	rt.setForwarded(r.Header, r)
	c := coalesce.FromContext(r.Context())
	// A client that asked for "100 Continue" waits for it before sending
	// the body, and net/http writes it when the service starts reading:
	// held, it would reach the client only with the response.
	if c == nil || r.Header.Get("Expect") != "" {
		rt.local.ServeHTTP(w, out)
		return
	}
	// The service answers from memory: hold its response and send it in
	// one write (package coalesce). A response of known length is flushed
	// into the hold; one without is finished by net/http after this
	// returns (its length, or its last chunk), and flushing it here would
	// make it chunked.
	c.Hold()
	rt.local.ServeHTTP(w, out)
	if w.Header().Get("Content-Length") != "" {
		_ = http.NewResponseController(w).Flush()
	}
	// A failed write leaves the connection broken; net/http finds that
	// on its next use of it, as it would have on writing.
	_ = c.Release()
}

// setForwarded writes into dst the X-Forwarded-For, -Host, -Proto and
// -Prefix of a request forwarded from in: the client's address after any
// a trusted front proxy listed, and that proxy's host and scheme when it
// gave them, else in's own. The proxied path (rewrite) and the in-process
// one (serveLocal, where dst is in's own header map) both use it, so an
// upstream sees the same either way. It reads in's values before writing.
func (rt *Route) setForwarded(dst http.Header, in *http.Request) {
	client, _, err := net.SplitHostPort(in.RemoteAddr)
	if err != nil {
		client = in.RemoteAddr
	}
	if prior := in.Header["X-Forwarded-For"]; rt.trust && len(prior) > 0 {
		client = strings.Join(prior, ", ") + ", " + client
	}
	host, proto := in.Host, "http"
	if in.TLS != nil {
		proto = "https"
	}
	if rt.trust {
		if v := in.Header.Get("X-Forwarded-Host"); v != "" {
			host = v
		}
		if v := in.Header.Get("X-Forwarded-Proto"); v != "" {
			proto = v
		}
	}
	// One backing array for the four values.
	v := [...]string{client, host, proto, rt.strip}
	dst["X-Forwarded-For"] = v[0:1:1]
	dst["X-Forwarded-Host"] = v[1:2:2]
	dst["X-Forwarded-Proto"] = v[2:3:3]
	dst["X-Forwarded-Prefix"] = v[3:4:4]
}

func restTooLarge(*http.Request) apierr.Error { return apierr.RestBodyTooLarge }

func functionsTooLarge(*http.Request) apierr.Error { return apierr.FunctionsBodyTooLarge }

func authTooLarge(r *http.Request) apierr.Error {
	return apierr.AuthBodyTooLarge(r.Header.Get(apierr.AuthAPIVersionHeader))
}

// refuseBody answers 413 in the service's words, then has net/http close
// the client connection gracefully.
func (rt *Route) refuseBody(w http.ResponseWriter, r *http.Request) {
	closeAfterReply(w)
	apierr.Write(w, rt.tooLarge(r))
}

// closeAfterReply asks net/http to close the client connection once the
// reply is written, and to do it gracefully: half-close, wait a moment,
// then close. A client still uploading thus reads the reply instead of a
// reset; without it, a client that sent Expect: 100-continue (curl does
// for large bodies) gets the reset. The only public way to ask is a
// MaxBytesReader on the server's own writer that trips, so one trips here,
// on a one-byte reader past a limit of zero. It runs on the handler's
// goroutine, where touching the response is safe.
func closeAfterReply(w http.ResponseWriter) {
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	_, _ = http.MaxBytesReader(w, io.NopCloser(strings.NewReader("x")), 0).Read(make([]byte, 1))
}

// strip removes prefix from p; an empty remainder becomes "/".
func strip(p, prefix string) string {
	rest := strings.TrimPrefix(p, prefix)
	if rest == "" || rest[0] != '/' {
		return "/" + rest
	}
	return rest
}

func (rt *Route) rewrite(pr *httputil.ProxyRequest) {
	in, out := pr.In, pr.Out
	// With several replicas the balancer points the request at one of
	// them; they share the base path.
	out.URL.Scheme = rt.first.Scheme
	out.URL.Host = rt.first.Host
	base := rt.base
	out.URL.Path = base + strip(in.URL.Path, rt.strip)
	// Keep an escaped form only when it still carries the prefix; otherwise
	// the decoded path is re-escaped canonically.
	out.URL.RawPath = ""
	if in.URL.RawPath != "" && hasSegmentPrefix(in.URL.RawPath, rt.strip) {
		out.URL.RawPath = base + strip(in.URL.RawPath, rt.strip)
	}
	// ReverseProxy re-encodes queries it finds odd (";" or bad escapes);
	// PostgREST filters must arrive exactly as sent.
	out.URL.RawQuery = in.URL.RawQuery
	out.Host = "" // the upstream sees its own host; the public one is in X-Forwarded-Host
	// ReverseProxy dropped the inbound X-Forwarded-*; a trusted front
	// proxy's values are read from in.
	rt.setForwarded(out.Header, in)
}

// modifyResponse makes the gateway's CORS headers and request id the only
// ones the client sees.
func modifyResponse(res *http.Response) error {
	cors.StripUpstream(res.Header)
	res.Header.Del(requestid.Header)
	return nil
}

// upstreamError answers 502 with Kong's text when the service cannot be
// reached or its response is unusable, and 413 when the body ServeHTTP
// limited ran past the limit (the transport stopped there).
func (rt *Route) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	var overLimit *http.MaxBytesError
	if rt.tooLarge != nil && errors.As(err, &overLimit) {
		rt.refuseBody(w, r)
		return
	}
	// A *url.Error would quote the upstream URL with its query string,
	// which may carry an apikey; log only the cause.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	level := slog.LevelWarn
	if errors.Is(err, context.Canceled) {
		// The client went away; nothing is wrong upstream.
		level = slog.LevelDebug
	}
	attrs := []slog.Attr{
		slog.String("request_id", r.Header.Get(requestid.Header)),
		slog.String("upstream", rt.service),
		slog.String("path", r.URL.Path),
		slog.String("error", err.Error()),
	}
	if rt.balancer != nil {
		// r is the outgoing request, pointed at the last replica tried.
		attrs = append(attrs, slog.String("replica", r.URL.Host))
	}
	rt.log.LogAttrs(r.Context(), level, "upstream error", attrs...)
	apierr.Write(w, apierr.BadGateway)
}
