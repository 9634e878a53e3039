// Package oidc is a generic OpenID Connect relying party (authorization
// code flow): discovery, the authorization URL, the code exchange and the
// id_token check (signature from the provider's JWKS, iss, aud, exp,
// nonce). Google is configured as one such provider.
//
// Every sign-in is bound to one code verifier, which the caller keeps on the
// server: the authorization request carries its PKCE challenge (RFC 7636)
// and a nonce derived from it, and the exchange sends the verifier and
// checks the nonce. A code or an id_token from another sign-in is then
// refused, by the provider (the code was issued for another challenge) and
// here (the id_token names another nonce).
package oidc

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/kejanest/kejanest/authsvc/internal/crypto"
)

// Config names the provider and this client.
type Config struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// Audiences are the client ids an id_token handed to VerifyIDToken may
	// name (GoTrue takes every id of the comma-separated
	// GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID there: the web, Android and iOS
	// clients of one app). Empty means ClientID alone.
	Audiences []string
	// RedirectURI is <API_EXTERNAL_URL>/auth/v1/callback.
	RedirectURI string
	HTTP        *http.Client
	Now         func() time.Time
}

// Provider talks to one OpenID Connect provider. Discovery runs on first
// use and is cached.
type Provider struct {
	cfg  Config
	mu   sync.Mutex
	meta *metadata
	keys jwk.Set
}

type metadata struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	UserinfoEndpoint      string `json:"userinfo_endpoint"`
	JWKSURI               string `json:"jwks_uri"`
}

// New returns a provider; nothing is fetched yet.
func New(cfg Config) *Provider {
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Provider{cfg: cfg}
}

func (p *Provider) discover(ctx context.Context) (*metadata, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.meta != nil {
		return p.meta, nil
	}
	var m metadata
	if err := p.getJSON(ctx, strings.TrimRight(p.cfg.Issuer, "/")+"/.well-known/openid-configuration", &m); err != nil {
		return nil, fmt.Errorf("oidc discovery: %w", err)
	}
	if m.AuthorizationEndpoint == "" || m.TokenEndpoint == "" || m.JWKSURI == "" {
		return nil, errors.New("oidc discovery: incomplete metadata")
	}
	if strings.TrimRight(m.Issuer, "/") != strings.TrimRight(p.cfg.Issuer, "/") {
		return nil, fmt.Errorf("oidc discovery: issuer %q, want %q", m.Issuer, p.cfg.Issuer)
	}
	p.meta = &m
	return p.meta, nil
}

func (p *Provider) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := p.cfg.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// ErrMismatch marks a token response that belongs to another sign-in: an
// id_token without this sign-in's nonce, or userinfo about another subject.
var ErrMismatch = errors.New("oidc: response does not belong to this sign-in")

// ErrAudience marks an id_token issued to a client other than this one.
var ErrAudience = errors.New("id_token audience mismatch")

// NewVerifier returns a fresh PKCE code verifier: 32 random bytes as 43
// base64url characters, the length and alphabet RFC 7636 section 4.1 asks.
func NewVerifier() string { return crypto.SecureToken(32) }

// nonce is the OpenID Connect nonce of the sign-in bound to verifier. It is
// derived rather than drawn separately so that the one stored secret, the
// verifier, binds both: an HMAC keyed with 256 random bits is as
// unpredictable as a random nonce, and shows nothing of its key, although
// the nonce travels through the browser and comes back in the id_token.
// The label keeps it distinct from the challenge, SHA-256 of the verifier.
func nonce(verifier string) string {
	m := hmac.New(sha256.New, []byte(verifier))
	m.Write([]byte("oidc nonce"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// reserved are the parameters a caller may not override.
var reserved = map[string]bool{"client_id": true, "redirect_uri": true, "response_type": true, "scope": true, "state": true,
	"provider": true, "redirect_to": true, "scopes": true, "code_challenge": true, "code_challenge_method": true,
	"skip_http_redirect": true, "flow_type": true, "nonce": true, "code_verifier": true}

// AuthCodeURL is where the browser goes to sign in: scope "openid email
// profile" plus scopes, state, the PKCE challenge and the nonce of
// verifier (from NewVerifier, kept by the caller for Exchange), and the
// caller's extra parameters except the reserved OAuth ones.
func (p *Provider) AuthCodeURL(ctx context.Context, state, verifier string, scopes []string, extra url.Values) (string, error) {
	if verifier == "" {
		return "", errors.New("oidc authorization: no code verifier")
	}
	m, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	for k, vs := range extra {
		if !reserved[k] {
			q[k] = vs
		}
	}
	sc := []string{"openid", "email", "profile"}
	for _, s := range scopes {
		if s != "" && s != "openid" && s != "email" && s != "profile" {
			sc = append(sc, s)
		}
	}
	q.Set("client_id", p.cfg.ClientID)
	q.Set("redirect_uri", p.cfg.RedirectURI)
	q.Set("response_type", "code")
	q.Set("scope", strings.Join(sc, " "))
	q.Set("state", state)
	q.Set("code_challenge", crypto.S256Challenge(verifier))
	q.Set("code_challenge_method", "S256")
	q.Set("nonce", nonce(verifier))
	sep := "?"
	if strings.Contains(m.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	return m.AuthorizationEndpoint + sep + q.Encode(), nil
}

// Result is a completed code exchange.
type Result struct {
	// Claims are the verified id_token's claims (plus userinfo's when the
	// id_token lacked an email).
	Claims       map[string]any
	AccessToken  string
	RefreshToken string
}

// Exchange trades an authorization code for tokens with verifier, the one
// AuthCodeURL was given for this sign-in, and verifies the id_token,
// including its nonce. A response for another sign-in is an ErrMismatch.
func (p *Provider) Exchange(ctx context.Context, code, verifier string) (*Result, error) {
	if verifier == "" {
		// Without it nothing ties the code to the sign-in.
		return nil, errors.New("oidc token exchange: no code verifier")
	}
	m, err := p.discover(ctx)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {p.cfg.RedirectURI},
		"client_id": {p.cfg.ClientID}, "client_secret": {p.cfg.ClientSecret}, "code_verifier": {verifier}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := p.cfg.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oidc token exchange: %w", err)
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		IDToken      string `json:"id_token"`
		Error        string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tr); err != nil {
		return nil, fmt.Errorf("oidc token exchange: decode: %w", err)
	}
	if resp.StatusCode != http.StatusOK || tr.Error != "" {
		return nil, fmt.Errorf("oidc token exchange: status %d %s", resp.StatusCode, tr.Error)
	}
	if tr.IDToken == "" {
		return nil, errors.New("oidc token exchange: no id_token")
	}
	claims, err := p.verifyIDToken(ctx, m, tr.IDToken)
	if err != nil {
		return nil, err
	}
	// The nonce proves the id_token was issued for this sign-in's
	// authorization request (OpenID Connect Core 3.1.3.7, step 11), even
	// against a provider that does not enforce PKCE.
	if got, _ := claims["nonce"].(string); !crypto.Equal(got, nonce(verifier)) {
		return nil, fmt.Errorf("%w: id_token nonce", ErrMismatch)
	}
	if _, ok := claims["email"]; !ok && m.UserinfoEndpoint != "" && tr.AccessToken != "" {
		if info, err := p.userinfo(ctx, m.UserinfoEndpoint, tr.AccessToken); err == nil {
			// Userinfo about anyone but the id_token's subject must not be
			// used (OpenID Connect Core 5.3.2); an access token that answers
			// for someone else is not this sign-in's.
			if sub, _ := info["sub"].(string); sub != claims["sub"] {
				return nil, fmt.Errorf("%w: userinfo sub %q, id_token sub %q", ErrMismatch, sub, claims["sub"])
			}
			for k, v := range info {
				if _, exists := claims[k]; !exists {
					claims[k] = v
				}
			}
		}
	}
	return &Result{Claims: claims, AccessToken: tr.AccessToken, RefreshToken: tr.RefreshToken}, nil
}

func (p *Provider) userinfo(ctx context.Context, endpoint, token string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := p.cfg.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var m map[string]any
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("userinfo: status %d", resp.StatusCode)
	}
	return m, json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m)
}

func (p *Provider) jwks(ctx context.Context, m *metadata, refresh bool) (jwk.Set, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keys != nil && !refresh {
		return p.keys, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.JWKSURI, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.cfg.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oidc jwks: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	set, err := jwk.Parse(body)
	if err != nil {
		return nil, fmt.Errorf("oidc jwks: %w", err)
	}
	p.keys = set
	return set, nil
}

func (p *Provider) verifyIDToken(ctx context.Context, m *metadata, token string) (map[string]any, error) {
	payload, _, err := p.verifyWithRefresh(ctx, m, token)
	if err != nil {
		return nil, err
	}
	return p.checkClaims(m, payload, []string{p.cfg.ClientID})
}

// verifyWithRefresh checks the signature, refetching the JWKS once when the
// cached keys fail (they may have rotated). It returns the payload and the
// algorithm the token was signed with.
func (p *Provider) verifyWithRefresh(ctx context.Context, m *metadata, token string) ([]byte, string, error) {
	payload, err := p.verifySig(ctx, m, token, false)
	if err != nil {
		if payload, err = p.verifySig(ctx, m, token, true); err != nil {
			return nil, "", err
		}
	}
	msg, err := jws.Parse([]byte(token))
	if err != nil || len(msg.Signatures()) != 1 {
		return nil, "", errors.New("id_token: not a single-signature JWS")
	}
	alg, _ := msg.Signatures()[0].ProtectedHeaders().Algorithm()
	return payload, alg.String(), nil
}

func (p *Provider) checkClaims(m *metadata, payload []byte, audiences []string) (map[string]any, error) {
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, fmt.Errorf("id_token claims: %w", err)
	}
	if iss, _ := claims["iss"].(string); strings.TrimRight(iss, "/") != strings.TrimRight(m.Issuer, "/") {
		return nil, fmt.Errorf("id_token issuer %q", iss)
	}
	if !slices.ContainsFunc(audiences, func(id string) bool { return id != "" && audienceHas(claims["aud"], id) }) {
		return nil, ErrAudience
	}
	exp, _ := claims["exp"].(float64)
	if int64(exp) <= p.cfg.Now().Unix() {
		return nil, errors.New("id_token expired")
	}
	if sub, _ := claims["sub"].(string); sub == "" {
		return nil, errors.New("id_token has no sub")
	}
	return claims, nil
}

func (p *Provider) verifySig(ctx context.Context, m *metadata, token string, refresh bool) ([]byte, error) {
	set, err := p.jwks(ctx, m, refresh)
	if err != nil {
		return nil, err
	}
	payload, err := jws.Verify([]byte(token), jws.WithKeySet(set, jws.WithInferAlgorithmFromKey(true)))
	if err != nil {
		return nil, fmt.Errorf("id_token signature: %w", err)
	}
	return payload, nil
}

// VerifyIDToken checks an id_token the client obtained from the provider
// itself (GoTrue's id_token grant): the signature against the provider's
// JWKS, iss, an audience among Audiences, exp and sub. With accessToken set,
// the token's at_hash must match it (OpenID Connect Core 3.2.2.9). The nonce
// is the caller's to check: the client chose it, not this package.
func (p *Provider) VerifyIDToken(ctx context.Context, token, accessToken string) (map[string]any, error) {
	m, err := p.discover(ctx)
	if err != nil {
		return nil, err
	}
	payload, alg, err := p.verifyWithRefresh(ctx, m, token)
	if err != nil {
		return nil, err
	}
	claims, err := p.checkClaims(m, payload, p.audiences())
	if err != nil {
		return nil, err
	}
	if accessToken != "" {
		if err := checkAccessTokenHash(claims, alg, accessToken); err != nil {
			return nil, err
		}
	}
	return claims, nil
}

func (p *Provider) audiences() []string {
	if len(p.cfg.Audiences) > 0 {
		return p.cfg.Audiences
	}
	return []string{p.cfg.ClientID}
}

// checkAccessTokenHash compares at_hash with the left half of the access
// token's hash under the id_token's algorithm. A token without at_hash
// passes, as in go-oidc: the claim is optional in the code flow.
func checkAccessTokenHash(claims map[string]any, alg, accessToken string) error {
	want, _ := claims["at_hash"].(string)
	if want == "" {
		return nil
	}
	var sum []byte
	switch alg {
	case "RS256", "ES256", "PS256":
		h := sha256.Sum256([]byte(accessToken))
		sum = h[:]
	case "RS384", "ES384", "PS384":
		h := sha512.Sum384([]byte(accessToken))
		sum = h[:]
	case "RS512", "ES512", "PS512":
		h := sha512.Sum512([]byte(accessToken))
		sum = h[:]
	default:
		return fmt.Errorf("id_token at_hash: unsupported algorithm %q", alg)
	}
	if base64.RawURLEncoding.EncodeToString(sum[:len(sum)/2]) != want {
		return errors.New("id_token at_hash does not match the access token")
	}
	return nil
}

func audienceHas(aud any, id string) bool {
	switch v := aud.(type) {
	case string:
		return v == id
	case []any:
		for _, x := range v {
			if s, _ := x.(string); s == id {
				return true
			}
		}
	}
	return false
}
