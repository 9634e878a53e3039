// Package apikey classifies the credentials on an API request (the apikey
// header or query parameter and the Authorization header) the way Supabase's
// gateway does, and decides what Authorization the upstream service sees.
//
// Two key formats exist:
//   - legacy keys are JWTs signed with the project secret (anon,
//     service_role, or any other token carrying a role);
//   - new keys are opaque strings, sb_publishable_… (role anon) and
//     sb_secret_… (role service_role). The services behind the gateway only
//     understand JWTs, so the gateway swaps an sb_ key for a short-lived JWT
//     of the key's role that it signs itself.
package apikey

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kejanest/kejanest/platform/jwtverify"
)

// Roles reported for logging and metrics besides the JWT's own role claim.
const (
	// RoleAnon is reported when a request carries no credentials, or a
	// valid token with no role claim (the services then use anon).
	RoleAnon = "anon"
	// RoleServiceRole is the role of the secret and service-role keys.
	RoleServiceRole = "service_role"
	// RoleInvalid is reported for credentials that do not verify.
	RoleInvalid = "invalid"
)

// Issuer is the "iss" of the tokens minted for sb_ keys.
const Issuer = "kejanest-gateway"

// MintedLifetime is how long a token minted for an sb_ key is valid.
const MintedLifetime = 5 * time.Minute

// mintedReuse is the least remaining lifetime with which a cached minted
// token is still handed out; signing on every request would cost more than
// the whole proxy hop.
const mintedReuse = time.Minute

const (
	publishablePrefix = "sb_publishable_"
	secretPrefix      = "sb_secret_"
	opaquePrefix      = "sb_"
)

// Outcome is the verdict on a request's credentials.
type Outcome uint8

const (
	// OK means the apikey is valid (or absent but Authorization is usable
	// on an open path) and the request may proceed.
	OK Outcome = iota
	// Missing means no apikey was sent; the caller rejects it only when
	// keys are enforced.
	Missing
	// Invalid means an apikey, or an sb_ bearer, is not one we know.
	Invalid
	// Internal means a token could not be minted; the request fails with
	// 500.
	Internal
)

// Result is what Check decided.
type Result struct {
	Outcome Outcome
	// Authorization, when not empty, replaces the request's Authorization
	// header for the upstream (a full header value, "Bearer …").
	Authorization string
	// Role is the effective role, for logs and metrics only.
	Role string
	// FromAPIKey is true when Authorization stands for the apikey because
	// the request had no Authorization header of its own.
	FromAPIKey bool
}

// Keys are the project's configured credentials.
type Keys struct {
	JWTSecret string
	// JWKS is the shared public key set (JWT_JWKS): JWT apikeys and
	// bearers signed with an asymmetric key verify by kid.
	JWKS           string
	AnonKey        string
	ServiceRoleKey string
	PublishableKey string
	SecretKey      string
}

// legacyKey is a configured JWT key, verified once at start so that the
// common case (supabase-js sends the anon key on every call) is a string
// comparison plus an expiry check.
type legacyKey struct {
	token string
	role  string
	exp   time.Time // zero: no expiry
}

// Checker classifies credentials. It is safe for concurrent use.
type Checker struct {
	verifier    *jwtverify.Verifier
	now         func() time.Time
	anon        legacyKey
	service     legacyKey
	publishable string
	secret      string
	mintAnon    *minter
	mintService *minter
	verified    verifiedTokens
}

// New verifies the configured legacy keys against the secret (a mismatch
// would reject every request, so it is a start-up error) and prepares the
// token minters. now may be nil for time.Now.
func New(k Keys, now func() time.Time) (*Checker, error) {
	if now == nil {
		now = time.Now
	}
	if k.JWTSecret == "" {
		return nil, errors.New("apikey: JWT secret is empty")
	}
	v, err := jwtverify.New(jwtverify.Options{Secret: k.JWTSecret, JWKS: []byte(k.JWKS), Now: now})
	if err != nil {
		return nil, fmt.Errorf("apikey: build verifier: %w", err)
	}
	c := &Checker{
		verifier:    v,
		now:         now,
		publishable: k.PublishableKey,
		secret:      k.SecretKey,
		mintAnon:    &minter{role: RoleAnon, secret: []byte(k.JWTSecret), now: now},
		mintService: &minter{role: RoleServiceRole, secret: []byte(k.JWTSecret), now: now},
	}
	var errs []error
	if c.anon, err = c.legacy("ANON_KEY", k.AnonKey); err != nil {
		errs = append(errs, err)
	}
	if c.service, err = c.legacy("SERVICE_ROLE_KEY", k.ServiceRoleKey); err != nil {
		errs = append(errs, err)
	}
	if !strings.HasPrefix(k.PublishableKey, publishablePrefix) {
		errs = append(errs, fmt.Errorf("apikey: publishable key must start with %s", publishablePrefix))
	}
	if !strings.HasPrefix(k.SecretKey, secretPrefix) {
		errs = append(errs, fmt.Errorf("apikey: secret key must start with %s", secretPrefix))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Mint once now so a signing problem shows at start, not per request.
	if _, err := c.mintAnon.header(); err != nil {
		return nil, fmt.Errorf("apikey: mint anon token: %w", err)
	}
	if _, err := c.mintService.header(); err != nil {
		return nil, fmt.Errorf("apikey: mint service_role token: %w", err)
	}
	return c, nil
}

func (c *Checker) legacy(name, token string) (legacyKey, error) {
	cl, err := c.verifier.Verify(token)
	if err != nil {
		return legacyKey{}, fmt.Errorf("apikey: %s does not verify with JWT_SECRET: %w", name, err)
	}
	if cl.Role == "" {
		return legacyKey{}, fmt.Errorf("apikey: %s has no role claim", name)
	}
	return legacyKey{token: token, role: cl.Role, exp: cl.ExpiresAt}, nil
}

// matches reports whether tok is this configured key and it has not
// expired. The comparison is constant-time: these are secrets.
func (k legacyKey) matches(tok string, now time.Time) bool {
	if len(tok) != len(k.token) || subtle.ConstantTimeCompare([]byte(tok), []byte(k.token)) != 1 {
		return false
	}
	return k.exp.IsZero() || !now.After(k.exp.Add(jwtverify.DefaultSkew))
}

func equalSecret(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// Check classifies a request's apikey (header or query parameter, "" when
// absent) and its Authorization header ("" when absent).
//
//   - An apikey must be a configured key or a JWT signed by the project
//     secret that carries a role; anything else is Invalid.
//   - Without Authorization, the apikey becomes the bearer.
//   - A bearer sb_ key is swapped for a minted JWT of its role; an unknown
//     sb_ key is Invalid.
//   - A bearer JWT is forwarded unchanged even when it does not verify: each
//     service answers with its own Supabase-shaped error. It is verified
//     here only to learn the role.
func (c *Checker) Check(apikey, authorization string) Result {
	now := c.now()
	outcome := OK
	keyRole, keyBearer := "", ""
	if apikey == "" {
		outcome = Missing
	} else {
		var ok bool
		keyRole, keyBearer, ok = c.classifyKey(apikey, now)
		if !ok {
			return Result{Outcome: Invalid, Role: RoleInvalid}
		}
	}

	if authorization == "" {
		if outcome == Missing {
			// Neither header: the services run the request as anon.
			return Result{Outcome: Missing, Role: RoleAnon}
		}
		if strings.HasPrefix(keyBearer, opaquePrefix) {
			h, ok := c.mint(keyBearer)
			if !ok {
				return Result{Outcome: Internal, Role: keyRole}
			}
			return Result{Outcome: outcome, Authorization: h, Role: keyRole, FromAPIKey: true}
		}
		return Result{Outcome: outcome, Authorization: "Bearer " + keyBearer, Role: keyRole, FromAPIKey: true}
	}

	token, isBearer := bearer(authorization)
	switch {
	case !isBearer:
		// Not ours to judge (the service rejects it); forwarded as is.
		return Result{Outcome: outcome, Role: RoleInvalid}
	case strings.HasPrefix(token, opaquePrefix):
		role := c.opaqueRole(token)
		if role == "" {
			return Result{Outcome: Invalid, Role: RoleInvalid}
		}
		h, ok := c.mint(token)
		if !ok {
			return Result{Outcome: Internal, Role: role}
		}
		return Result{Outcome: outcome, Authorization: h, Role: role}
	case c.anon.matches(token, now):
		return Result{Outcome: outcome, Role: c.anon.role}
	case c.service.matches(token, now):
		return Result{Outcome: outcome, Role: c.service.role}
	}
	role, ok := c.verify(token, now)
	if !ok {
		return Result{Outcome: outcome, Role: RoleInvalid}
	}
	if role == "" {
		return Result{Outcome: outcome, Role: RoleAnon}
	}
	return Result{Outcome: outcome, Role: role}
}

// verify returns the role claim of a token that verifies, from the cache
// of tokens that verified before while they have not expired.
func (c *Checker) verify(token string, now time.Time) (role string, ok bool) {
	if role, ok := c.verified.get(token, now); ok {
		return role, true
	}
	cl, err := c.verifier.Verify(token)
	if err != nil {
		return "", false
	}
	c.verified.put(token, cl.Role, cl.ExpiresAt)
	return cl.Role, true
}

// maxVerified bounds the cache of verified tokens; when full it is
// emptied (tokens of active users come back on their next request).
const maxVerified = 4096

// verifiedTokens caches the tokens that verified, keyed by the whole
// token: the same string always verifies the same way against the fixed
// secret and key set, except for time, so only the expiry is checked
// again. A signed-in user sends one token for up to an hour, and checking
// its signature on every request cost about as much as the proxy hop.
// Failures are not cached: a token that fails is not worth remembering.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[string]verifiedToken
}

type verifiedToken struct {
	role string
	exp  time.Time // zero: no expiry
}

func (v *verifiedTokens) get(token string, now time.Time) (string, bool) {
	v.mu.Lock()
	t, ok := v.m[token]
	v.mu.Unlock()
	if !ok || (!t.exp.IsZero() && now.After(t.exp.Add(jwtverify.DefaultSkew))) {
		return "", false
	}
	return t.role, true
}

func (v *verifiedTokens) put(token, role string, exp time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxVerified {
		v.m = make(map[string]verifiedToken, 64)
	}
	v.m[token] = verifiedToken{role: role, exp: exp}
}

// classifyKey validates an apikey and returns its role and the bearer it
// stands for (the key itself).
func (c *Checker) classifyKey(key string, now time.Time) (role, bearerTok string, ok bool) {
	if strings.HasPrefix(key, opaquePrefix) {
		role = c.opaqueRole(key)
		return role, key, role != ""
	}
	if c.anon.matches(key, now) {
		return c.anon.role, key, true
	}
	if c.service.matches(key, now) {
		return c.service.role, key, true
	}
	role, ok = c.verify(key, now)
	if !ok || role == "" {
		return "", "", false
	}
	return role, key, true
}

// opaqueRole maps a configured sb_ key to its role, "" for unknown ones.
func (c *Checker) opaqueRole(key string) string {
	switch {
	case strings.HasPrefix(key, publishablePrefix) && equalSecret(key, c.publishable):
		return RoleAnon
	case strings.HasPrefix(key, secretPrefix) && equalSecret(key, c.secret):
		return RoleServiceRole
	}
	return ""
}

// mint returns the Authorization value for a known sb_ key.
func (c *Checker) mint(key string) (string, bool) {
	m := c.mintAnon
	if c.opaqueRole(key) == RoleServiceRole {
		m = c.mintService
	}
	h, err := m.header()
	return h, err == nil
}

// bearer extracts the token of "Bearer <token>" (scheme case-insensitive,
// as RFC 9110 says).
func bearer(h string) (string, bool) {
	const scheme = "bearer "
	if len(h) < len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", false
	}
	return strings.TrimSpace(h[len(scheme):]), true
}

type mintedToken struct {
	header    string // "Bearer <jwt>"
	refreshAt time.Time
}

// minter signs role tokens for sb_ keys and reuses each until it is close to
// expiring.
type minter struct {
	role   string
	secret []byte
	now    func() time.Time
	cur    atomic.Pointer[mintedToken]
}

func (m *minter) header() (string, error) {
	now := m.now()
	if t := m.cur.Load(); t != nil && now.Before(t.refreshAt) {
		return t.header, nil
	}
	// Concurrent callers may both sign; either result is valid.
	exp := now.Add(MintedLifetime)
	tok, err := jwtverify.SignHS256(map[string]any{
		"role": m.role,
		"iss":  Issuer,
		"iat":  now.Unix(),
		"exp":  exp.Unix(),
	}, m.secret)
	if err != nil {
		return "", fmt.Errorf("sign %s token: %w", m.role, err)
	}
	t := &mintedToken{header: "Bearer " + tok, refreshAt: exp.Add(-mintedReuse)}
	m.cur.Store(t)
	return t.header, nil
}

// FromQuery returns the first "apikey" query parameter of rawQuery, decoded,
// or "". It scans the raw query instead of building url.Values, because
// only websocket upgrades carry the key there.
func FromQuery(rawQuery string) string {
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		name, value, _ := strings.Cut(pair, "=")
		if name != "apikey" {
			continue
		}
		v, err := url.QueryUnescape(value)
		if err != nil {
			return value
		}
		return v
	}
	return ""
}
