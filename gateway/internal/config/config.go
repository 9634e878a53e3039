// Package config reads the gateway's settings from the environment once, in
// main, and checks them before anything listens.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/kejanest/kejanest/gateway/internal/proxy"
	"github.com/kejanest/kejanest/gateway/internal/ratelimit"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

// DefaultBodyLimit is the request body limit rest, rpc and authsvc run
// with: platform/fiberserve's DefaultBodyLimit, which the gateway does not
// import (it would pull in Fiber).
const DefaultBodyLimit = 1 << 20

// Config is the gateway's whole configuration. Every field comes from one
// environment variable; the defaults reproduce the Supabase CLI's local
// stack, so `make run` needs no configuration at all.
//
//	variable                  default                                    meaning
//	GATEWAY_LISTEN            127.0.0.1:54321,[::1]:54321                comma list of host:port; a failing IPv6 address is skipped with a warning
//	REST_URL                  http://127.0.0.1:3000                      rest service (/rest/v1/*); a comma list of base URLs runs replicas (below)
//	RPC_URL                   http://127.0.0.1:3001                      rpc service (/rest/v1/rpc/*); comma list: replicas
//	AUTH_URL                  http://127.0.0.1:9999                      authsvc (/auth/v1/*); comma list: replicas
//	REALTIME_URL              http://127.0.0.1:4000                      realtime (/realtime/v1/*); comma list: replicas
//	STORAGE_URL               http://127.0.0.1:5000                      storage (/storage/v1/*); comma list: replicas
//	FUNCTIONS_URL             http://127.0.0.1:8081                      payments (/functions/v1/*, Supabase's Edge Functions path); comma list: replicas
//	GATEWAY_INPROCESS         "" (none)                                  comma list of rest, rpc: serve them inside the gateway process (their PGRST_* settings), ignoring REST_URL/RPC_URL
//	FRONTEND_DIR              frontend/dist                              built frontend, relative to the working directory
//	JWT_SECRET                devkeys.JWTSecret                          HS256 secret that signs legacy keys and user tokens
//	JWT_JWKS                  ""                                         public JWKS (Supabase's JWT_JWKS): asymmetric apikeys and tokens by kid
//	ANON_KEY                  devkeys.AnonKey                            legacy anon apikey (a JWT)
//	SERVICE_ROLE_KEY          devkeys.ServiceRoleKey                     legacy service_role apikey (a JWT)
//	SUPABASE_PUBLISHABLE_KEY  devkeys.PublishableKey                     sb_publishable_… key, role anon
//	SUPABASE_SECRET_KEY       devkeys.SecretKey                          sb_secret_… key, role service_role
//	GATEWAY_REQUIRE_APIKEY    false (true when KEJANEST_ENV=production)  reject API requests that carry no apikey
//	GATEWAY_CORS_ORIGINS      *                                          comma list of allowed origins; * allows any
//	GATEWAY_RATE_LIMIT        "" (off)                                   per-client-IP limit: N/duration (600/1m), or N per second; 0 is off
//	GATEWAY_TRUST_PROXY       false                                      take the client IP from the leftmost X-Forwarded-For
//	GATEWAY_METRICS_PUBLIC    false                                      serve /metrics to any client, not only loopback peers
//	GATEWAY_PPROF             false                                      serve Go's profiles at /debug/pprof/ to loopback peers (CPU and heap profiles of the gateway under real load)
//	GATEWAY_BODY_LIMIT        1048576 (1 MiB, the services' own limit)   largest request body in bytes for rest, rpc, auth and functions; larger is answered 413 in the service's shape; 0 is off
//	KEJANEST_ENV              "" (development)                           production refuses empty or well-known dev secrets
//	LOG_LEVEL                 info                                       debug, info, warn or error
//
// An upstream variable holds one base URL or a comma list of them, one per
// replica of the service: REST_URL=http://10.0.0.5:3000,http://10.0.0.6:3000.
// Every URL is http or https with a host and no query or fragment; the
// replicas of one service share one base path, and none is listed twice
// (by host and port); at most proxy.MaxReplicas. A request goes to the
// replica with the fewest requests in flight; a replica that refuses the
// connection is skipped for 1 s, doubling to 10 s while it keeps refusing,
// and the request moves to the next replica (package proxy). One URL works
// exactly as it always has: no back-off, nothing to move to.
type Config struct {
	// Listen holds the addresses served (GATEWAY_LISTEN).
	Listen []string

	// Upstream base URLs, one per replica of the service (REST_URL,
	// RPC_URL, AUTH_URL, REALTIME_URL, STORAGE_URL, FUNCTIONS_URL, each a
	// comma list).
	RestURLs, RPCURLs, AuthURLs, RealtimeURLs, StorageURLs, FunctionsURLs []string

	// InProcess names the services the gateway serves itself instead of
	// proxying (GATEWAY_INPROCESS; rest and rpc, which share rest's
	// pipeline): one process for the embedded default, no second HTTP hop.
	InProcess []string

	// FrontendDir is the built single-page app (FRONTEND_DIR).
	FrontendDir string

	// JWTSecret verifies legacy API keys and bearer tokens and signs the
	// short-lived tokens minted for sb_ keys (JWT_SECRET).
	JWTSecret string
	// JWKS verifies asymmetric JWT API keys and bearer tokens by kid
	// (JWT_JWKS).
	JWKS string
	// AnonKey and ServiceRoleKey are the legacy JWT API keys (ANON_KEY,
	// SERVICE_ROLE_KEY).
	AnonKey, ServiceRoleKey string
	// PublishableKey and SecretKey are the opaque new-format keys
	// (SUPABASE_PUBLISHABLE_KEY, SUPABASE_SECRET_KEY).
	PublishableKey, SecretKey string

	// RequireAPIKey rejects API requests without an apikey
	// (GATEWAY_REQUIRE_APIKEY). The Supabase CLI does not enforce it, and
	// the upstream client test suites rely on that.
	RequireAPIKey bool
	// CORSOrigins lists allowed browser origins; "*" allows any
	// (GATEWAY_CORS_ORIGINS).
	CORSOrigins []string
	// RateLimit is the raw per-IP limit (GATEWAY_RATE_LIMIT); Rate is its
	// parsed form, filled by Load.
	RateLimit string
	Rate      ratelimit.Rate
	// TrustProxy takes the client IP from X-Forwarded-For
	// (GATEWAY_TRUST_PROXY); only safe behind a proxy that sets it.
	TrustProxy bool
	// MetricsPublic serves /metrics to every client (GATEWAY_METRICS_PUBLIC).
	// By default only loopback peers get it: traffic figures are for the
	// operator's scraper, not for the internet.
	MetricsPublic bool
	// Pprof serves net/http/pprof at /debug/pprof/ to loopback peers
	// (GATEWAY_PPROF), to profile the gateway, and an in-process rest,
	// under real load.
	Pprof bool
	// BodyLimit is the largest request body, in bytes, forwarded to rest,
	// rpc and auth; 0 forwards any size (GATEWAY_BODY_LIMIT). Those
	// services cut a larger upload by closing the connection, which the
	// gateway could only answer 502, so it must not exceed their limit.
	// Storage and realtime are not limited here: storage takes large
	// uploads under its own FILE_SIZE_LIMIT.
	BodyLimit int

	// Production is true when KEJANEST_ENV names production.
	Production bool
	// LogLevel is the slog level name (LOG_LEVEL).
	LogLevel string
}

// InProcessable are the services GATEWAY_INPROCESS may name: the ones
// whose HTTP layer has a net/http form (rest/embedded).
var InProcessable = map[string]bool{proxy.ServiceRest: true, proxy.ServiceRPC: true}

// Serves reports whether the gateway serves service itself.
func (c Config) Serves(service string) bool {
	return slices.Contains(c.InProcess, service)
}

// Load reads the configuration through r. It returns the parse errors of
// malformed values (all of them) alongside the best-effort Config; callers
// still run Validate.
func Load(r *envconf.Reader) (Config, error) {
	prod := devkeys.IsProduction(r.String("", devkeys.EnvVar))
	c := Config{
		Listen:         r.List([]string{"127.0.0.1:54321", "[::1]:54321"}, "GATEWAY_LISTEN"),
		RestURLs:       r.List([]string{"http://127.0.0.1:3000"}, "REST_URL"),
		RPCURLs:        r.List([]string{"http://127.0.0.1:3001"}, "RPC_URL"),
		AuthURLs:       r.List([]string{"http://127.0.0.1:9999"}, "AUTH_URL"),
		RealtimeURLs:   r.List([]string{"http://127.0.0.1:4000"}, "REALTIME_URL"),
		StorageURLs:    r.List([]string{"http://127.0.0.1:5000"}, "STORAGE_URL"),
		FunctionsURLs:  r.List([]string{"http://127.0.0.1:8081"}, "FUNCTIONS_URL"),
		InProcess:      r.List(nil, "GATEWAY_INPROCESS"),
		FrontendDir:    r.String("frontend/dist", "FRONTEND_DIR"),
		JWTSecret:      r.String(devkeys.JWTSecret, "JWT_SECRET"),
		JWKS:           r.String("", "JWT_JWKS"),
		AnonKey:        r.String(devkeys.AnonKey, "ANON_KEY"),
		ServiceRoleKey: r.String(devkeys.ServiceRoleKey, "SERVICE_ROLE_KEY"),
		PublishableKey: r.String(devkeys.PublishableKey, "SUPABASE_PUBLISHABLE_KEY"),
		SecretKey:      r.String(devkeys.SecretKey, "SUPABASE_SECRET_KEY"),
		// Production defaults to enforcement, as hosted Supabase does.
		RequireAPIKey: r.Bool(prod, "GATEWAY_REQUIRE_APIKEY"),
		CORSOrigins:   r.List([]string{"*"}, "GATEWAY_CORS_ORIGINS"),
		RateLimit:     r.String("", "GATEWAY_RATE_LIMIT"),
		TrustProxy:    r.Bool(false, "GATEWAY_TRUST_PROXY"),
		MetricsPublic: r.Bool(false, "GATEWAY_METRICS_PUBLIC"),
		Pprof:         r.Bool(false, "GATEWAY_PPROF"),
		BodyLimit:     r.Int(DefaultBodyLimit, "GATEWAY_BODY_LIMIT"),
		Production:    prod,
		LogLevel:      r.String("info", "LOG_LEVEL"),
	}
	errs := []error{r.Err()}
	rate, err := ratelimit.ParseRate(c.RateLimit)
	if err != nil {
		errs = append(errs, fmt.Errorf("GATEWAY_RATE_LIMIT: %w", err))
	}
	c.Rate = rate
	return c, errors.Join(errs...)
}

// Validate reports every problem that would stop the gateway from serving
// correctly, including dev secrets in production mode.
func (c Config) Validate() error {
	var errs []error
	if len(c.Listen) == 0 {
		errs = append(errs, errors.New("GATEWAY_LISTEN: no address"))
	}
	for _, a := range c.Listen {
		if _, _, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, fmt.Errorf("GATEWAY_LISTEN: %q: %w", a, err))
		}
	}
	for _, s := range c.InProcess {
		if !InProcessable[s] {
			errs = append(errs, fmt.Errorf("GATEWAY_INPROCESS: %q: only rest and rpc can be served in-process", s))
		}
	}
	for _, u := range []struct {
		name string
		urls []string
	}{
		{"REST_URL", c.RestURLs}, {"RPC_URL", c.RPCURLs}, {"AUTH_URL", c.AuthURLs},
		{"REALTIME_URL", c.RealtimeURLs}, {"STORAGE_URL", c.StorageURLs}, {"FUNCTIONS_URL", c.FunctionsURLs},
	} {
		// An in-process service's URL is not used.
		if (u.name == "REST_URL" && c.Serves(proxy.ServiceRest)) || (u.name == "RPC_URL" && c.Serves(proxy.ServiceRPC)) {
			continue
		}
		for _, err := range checkReplicas(u.urls) {
			errs = append(errs, fmt.Errorf("%s: %w", u.name, err))
		}
	}
	if strings.TrimSpace(c.JWKS) != "" {
		if err := jwtverify.CheckConfig("JWT_SECRET", c.JWTSecret, "JWT_JWKS", c.JWKS, 0); err != nil {
			errs = append(errs, err)
		}
	}
	if c.FrontendDir == "" {
		errs = append(errs, errors.New("FRONTEND_DIR: empty"))
	}
	if !strings.HasPrefix(c.PublishableKey, "sb_publishable_") {
		errs = append(errs, errors.New("SUPABASE_PUBLISHABLE_KEY: must start with sb_publishable_"))
	}
	if !strings.HasPrefix(c.SecretKey, "sb_secret_") {
		errs = append(errs, errors.New("SUPABASE_SECRET_KEY: must start with sb_secret_"))
	}
	if _, err := ratelimit.ParseRate(c.RateLimit); err != nil {
		errs = append(errs, fmt.Errorf("GATEWAY_RATE_LIMIT: %w", err))
	}
	if c.BodyLimit < 0 {
		errs = append(errs, fmt.Errorf("GATEWAY_BODY_LIMIT: %d is negative", c.BodyLimit))
	}
	if c.Production {
		if err := devkeys.Refuse(map[string]string{
			"JWT_SECRET":               c.JWTSecret,
			"ANON_KEY":                 c.AnonKey,
			"SERVICE_ROLE_KEY":         c.ServiceRoleKey,
			"SUPABASE_PUBLISHABLE_KEY": c.PublishableKey,
			"SUPABASE_SECRET_KEY":      c.SecretKey,
		}); err != nil {
			errs = append(errs, fmt.Errorf("production mode (%s): %w", devkeys.EnvVar, err))
		}
	}
	return errors.Join(errs...)
}

// checkReplicas reports every problem of one upstream's list: each URL as
// checkUpstream sees it, then what makes the URLs unusable as replicas of
// one service. The proxy keys its per-replica state and metric labels by
// host, and rewrites paths with one base.
func checkReplicas(urls []string) []error {
	if len(urls) == 0 {
		return []error{errors.New("no URL")}
	}
	var errs []error
	if len(urls) > proxy.MaxReplicas {
		errs = append(errs, fmt.Errorf("%d URLs: at most %d replicas", len(urls), proxy.MaxReplicas))
	}
	var firstRaw, firstBase string
	seen := make(map[string]string, len(urls))
	for _, raw := range urls {
		if err := checkUpstream(raw); err != nil {
			errs = append(errs, err)
			continue
		}
		u, _ := url.Parse(raw) // checkUpstream parsed it
		host := strings.ToLower(u.Host)
		if prev, dup := seen[host]; dup {
			errs = append(errs, fmt.Errorf("%q: the same replica as %q", raw, prev))
			continue
		}
		seen[host] = raw
		base := strings.TrimSuffix(u.Path, "/")
		if firstRaw == "" {
			firstRaw, firstBase = raw, base
		} else if base != firstBase {
			errs = append(errs, fmt.Errorf("%q: base path %q differs from %q in %q; replicas of one service share one path", raw, base, firstBase, firstRaw))
		}
	}
	return errs
}

func checkUpstream(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("parse %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%q: no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: must not carry a query or fragment", raw)
	}
	return nil
}
