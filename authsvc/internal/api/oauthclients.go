package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// The OAuth 2.1 server's admin API (GoTrue's oauthserver handlers, auth-js
// auth.admin.oauth.*): GET|POST /admin/oauth/clients,
// GET|PUT|DELETE /admin/oauth/clients/{client_id},
// POST /admin/oauth/clients/{client_id}/regenerate_secret. Behind the admin
// check, then GOTRUE_OAUTH_SERVER_ENABLED.

// oauthClientJSON is GoTrue's OAuthServerClientResponse.
type oauthClientJSON struct {
	ClientID                string    `json:"client_id"`
	ClientSecret            string    `json:"client_secret,omitempty"`
	ClientType              string    `json:"client_type"`
	RedirectURIs            []string  `json:"redirect_uris,omitempty"`
	TokenEndpointAuthMethod string    `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string  `json:"grant_types,omitempty"`
	ResponseTypes           []string  `json:"response_types,omitempty"`
	ClientName              string    `json:"client_name,omitempty"`
	ClientURI               string    `json:"client_uri,omitempty"`
	LogoURI                 string    `json:"logo_uri,omitempty"`
	RegistrationType        string    `json:"registration_type,omitempty"`
	CreatedAt               time.Time `json:"created_at"`
	UpdatedAt               time.Time `json:"updated_at"`
}

func renderOAuthClient(c *store.OAuthClient, secret string) oauthClientJSON {
	return oauthClientJSON{ClientID: c.ID, ClientSecret: secret, ClientType: c.ClientType, RedirectURIs: c.RedirectURIs,
		TokenEndpointAuthMethod: c.TokenEndpointAuthMethod, GrantTypes: c.GrantTypes, ResponseTypes: []string{"code"}, ClientName: c.ClientName,
		ClientURI: c.ClientURI, LogoURI: c.LogoURI, RegistrationType: c.RegistrationType, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

// requireOAuthServer is the admin check, then GoTrue's
// requireOAuthServerEnabled.
func (a *API) requireOAuthServer(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	if !a.cfg.Auth.OAuthServerEnabled {
		return apierr.NotFound(apierr.CodeFeatureDisabled, "OAuth server is disabled")
	}
	return nil
}

// oauthClientParams is the body of POST and PUT (GoTrue's
// OAuthServerClientRegisterParams and OAuthServerClientUpdateParams): a nil
// field is one the request did not send.
type oauthClientParams struct {
	RedirectURIs            *[]string `json:"redirect_uris"`
	ClientType              string    `json:"client_type"`
	TokenEndpointAuthMethod string    `json:"token_endpoint_auth_method"`
	GrantTypes              *[]string `json:"grant_types"`
	ClientName              *string   `json:"client_name"`
	ClientURI               *string   `json:"client_uri"`
	LogoURI                 *string   `json:"logo_uri"`
}

func bindOAuthClient(c fiber.Ctx) (oauthClientParams, error) {
	var p oauthClientParams
	if err := json.Unmarshal(c.Body(), &p); err != nil {
		return p, apierr.BadRequest(apierr.CodeBadJSON, "Invalid JSON body")
	}
	return p, nil
}

func validationFailed(format string, args ...any) error {
	return apierr.BadRequest(apierr.CodeValidationFailed, format, args...)
}

// validate checks every field the request sent; creating also requires
// redirect_uris.
func (p oauthClientParams) validate(creating bool) error {
	if p.RedirectURIs != nil || creating {
		var uris []string
		if p.RedirectURIs != nil {
			uris = *p.RedirectURIs
		}
		if err := validateRedirectURIs(uris, creating); err != nil {
			return err
		}
	}
	if p.GrantTypes != nil && (creating && len(*p.GrantTypes) > 0 || !creating) {
		if len(*p.GrantTypes) == 0 {
			return validationFailed("grant_types cannot be empty")
		}
		for _, g := range *p.GrantTypes {
			if g != "authorization_code" && g != "refresh_token" {
				return validationFailed("grant_types must only contain 'authorization_code' and/or 'refresh_token'")
			}
		}
	}
	if p.ClientName != nil && len(*p.ClientName) > 1024 {
		return validationFailed("client_name cannot exceed 1024 characters")
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"client_uri", p.ClientURI}, {"logo_uri", p.LogoURI}} {
		if f.v == nil || *f.v == "" {
			continue
		}
		if len(*f.v) > 2048 {
			return validationFailed("%s cannot exceed 2048 characters", f.name)
		}
		if _, err := url.ParseRequestURI(*f.v); err != nil {
			return validationFailed("%s must be a valid URL", f.name)
		}
	}
	if !creating {
		return nil
	}
	if p.ClientType != "" && p.ClientType != "public" && p.ClientType != "confidential" {
		return validationFailed("client_type must be 'public' or 'confidential'")
	}
	methods := []string{"none", "client_secret_basic", "client_secret_post"}
	if p.TokenEndpointAuthMethod != "" && !slices.Contains(methods, p.TokenEndpointAuthMethod) {
		return validationFailed("token_endpoint_auth_method must be one of: %v", methods)
	}
	switch {
	case p.ClientType == "public" && p.TokenEndpointAuthMethod != "" && p.TokenEndpointAuthMethod != "none":
		return validationFailed("public clients must use token_endpoint_auth_method 'none'")
	case p.ClientType == "confidential" && p.TokenEndpointAuthMethod == "none":
		return validationFailed("confidential clients cannot use token_endpoint_auth_method 'none'")
	}
	return nil
}

// clientType is GoTrue's DetermineClientType: the explicit type, else
// public exactly when the client authenticates with "none".
func (p oauthClientParams) clientType() string {
	switch {
	case p.ClientType != "":
		return p.ClientType
	case p.TokenEndpointAuthMethod == "none":
		return "public"
	}
	return "confidential"
}

func validateRedirectURIs(uris []string, required bool) error {
	switch {
	case required && len(uris) == 0:
		return validationFailed("redirect_uris is required")
	case len(uris) == 0:
		return validationFailed("redirect_uris cannot be empty")
	case len(uris) > 10:
		return validationFailed("redirect_uris cannot exceed 10 items")
	}
	for _, u := range uris {
		if err := validateRedirectURI(u); err != nil {
			return validationFailed("invalid redirect_uri '%s': %v", u, err)
		}
	}
	return nil
}

// validateRedirectURI is OAuth 2.1's rule as GoTrue applies it: an absolute
// https URL without a fragment, or http on localhost / 127.0.0.1 only.
// (GoTrue also admits one IDE's custom scheme, which is not carried over.)
func validateRedirectURI(raw string) error {
	if raw == "" {
		return errors.New("redirect URI cannot be empty")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("invalid URL format")
	case u.Scheme == "":
		return errors.New("must have scheme")
	case u.Host == "":
		return errors.New("must have scheme and host")
	case u.Fragment != "":
		return errors.New("fragment not allowed in redirect URI")
	case strings.Contains(raw, ","):
		// KejaNest's own: the list is stored comma-separated, as GoTrue
		// stores it, so a comma would split one URI into two.
		return errors.New("comma not allowed in redirect URI")
	case u.Scheme == "http":
		if h := u.Hostname(); h != "localhost" && h != "127.0.0.1" {
			return errors.New("HTTP scheme only allowed for localhost")
		}
	case u.Scheme != "https":
		return errors.New("scheme must be HTTPS or HTTP (localhost only)")
	}
	return nil
}

// newClientSecret returns a secret and its stored form, GoTrue's: 32 random
// bytes base64url, kept as the base64url SHA-256.
func newClientSecret() (secret, hash string) {
	secret = crypto.SecureToken(32)
	sum := sha256.Sum256([]byte(secret))
	return secret, base64.RawURLEncoding.EncodeToString(sum[:])
}

// adminListOAuthClients is GET /admin/oauth/clients: {"clients":[…]},
// newest first. GoTrue returns every client; page and per_page, when sent,
// page the list as /admin/users does (X-Total-Count, Link).
func (a *API) adminListOAuthClients(c fiber.Ctx) error {
	if err := a.requireOAuthServer(c); err != nil {
		return err
	}
	page, perPage := 1, 0
	if v := c.Query("page"); v != "" {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return apierr.BadRequest(apierr.CodeValidationFailed, "Bad Pagination Parameters: %v", err)
		}
		page = max(int(n), 1)
	}
	if v := c.Query("per_page"); v != "" {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return apierr.BadRequest(apierr.CodeValidationFailed, "Bad Pagination Parameters: %v", err)
		}
		perPage = int(min(n, 1000))
	}
	clients, total, err := a.store.OAuthClients(c.Context(), page, perPage)
	if err != nil {
		return apierr.Internal(err)
	}
	out := make([]oauthClientJSON, 0, len(clients))
	for _, cl := range clients {
		out = append(out, renderOAuthClient(cl, ""))
	}
	c.Set("X-Total-Count", strconv.Itoa(total))
	if perPage > 0 {
		c.Set("Link", paginationLinks(a.issuer()+"/admin/oauth/clients", page, perPage, total))
	}
	return c.JSON(fiber.Map{"clients": out})
}

// adminCreateOAuthClient is POST /admin/oauth/clients: 201 with the client,
// and the secret of a confidential one, shown this once.
func (a *API) adminCreateOAuthClient(c fiber.Ctx) error {
	if err := a.requireOAuthServer(c); err != nil {
		return err
	}
	p, err := bindOAuthClient(c)
	if err != nil {
		return err
	}
	if err := p.validate(true); err != nil {
		return err
	}
	now := a.now()
	cl := &store.OAuthClient{ID: uuid.NewString(), RegistrationType: "manual", ClientType: p.clientType(),
		RedirectURIs: *p.RedirectURIs, GrantTypes: []string{"authorization_code", "refresh_token"}, CreatedAt: now, UpdatedAt: now}
	if p.GrantTypes != nil && len(*p.GrantTypes) > 0 {
		cl.GrantTypes = *p.GrantTypes
	}
	// The method asked for, else the one the type implies (GoTrue's
	// default: client_secret_basic for a confidential client).
	cl.TokenEndpointAuthMethod = p.TokenEndpointAuthMethod
	if cl.TokenEndpointAuthMethod == "" {
		cl.TokenEndpointAuthMethod = "client_secret_basic"
		if cl.ClientType == "public" {
			cl.TokenEndpointAuthMethod = "none"
		}
	}
	for _, f := range []struct {
		dst *string
		v   *string
	}{{&cl.ClientName, p.ClientName}, {&cl.ClientURI, p.ClientURI}, {&cl.LogoURI, p.LogoURI}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	var secret string
	if cl.ClientType == "confidential" {
		secret, cl.SecretHash = newClientSecret()
	}
	if err := a.store.CreateOAuthClient(c.Context(), cl); err != nil {
		return apierr.Internal(err)
	}
	return c.Status(fiber.StatusCreated).JSON(renderOAuthClient(cl, secret))
}

// oauthClientFromPath is GoTrue's LoadOAuthServerClient.
func (a *API) oauthClientFromPath(c fiber.Ctx) (*store.OAuthClient, error) {
	id := strings.Clone(c.Params("client_id"))
	if uuid.Validate(id) != nil {
		return nil, validationFailed("invalid client_id format")
	}
	cl, err := a.store.OAuthClientByID(c.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFound(apierr.CodeOAuthClientNotFound, "OAuth client not found")
	} else if err != nil {
		return nil, apierr.Internal(err)
	}
	return cl, nil
}

// adminGetOAuthClient is GET /admin/oauth/clients/{client_id}.
func (a *API) adminGetOAuthClient(c fiber.Ctx) error {
	if err := a.requireOAuthServer(c); err != nil {
		return err
	}
	cl, err := a.oauthClientFromPath(c)
	if err != nil {
		return err
	}
	return c.JSON(renderOAuthClient(cl, ""))
}

// adminUpdateOAuthClient is PUT /admin/oauth/clients/{client_id}: only the
// fields sent change.
func (a *API) adminUpdateOAuthClient(c fiber.Ctx) error {
	if err := a.requireOAuthServer(c); err != nil {
		return err
	}
	cl, err := a.oauthClientFromPath(c)
	if err != nil {
		return err
	}
	p, err := bindOAuthClient(c)
	if err != nil {
		return err
	}
	if p.RedirectURIs == nil && p.GrantTypes == nil && p.ClientName == nil && p.ClientURI == nil && p.LogoURI == nil {
		return validationFailed("No fields provided for update")
	}
	if err := p.validate(false); err != nil {
		return err
	}
	if p.RedirectURIs != nil {
		cl.RedirectURIs = *p.RedirectURIs
	}
	if p.GrantTypes != nil {
		cl.GrantTypes = *p.GrantTypes
	}
	for _, f := range []struct {
		dst *string
		v   *string
	}{{&cl.ClientName, p.ClientName}, {&cl.ClientURI, p.ClientURI}, {&cl.LogoURI, p.LogoURI}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if err := a.store.SaveOAuthClient(c.Context(), cl, a.now()); err != nil {
		return oauthClientWriteErr(err)
	}
	return c.JSON(renderOAuthClient(cl, ""))
}

// adminDeleteOAuthClient is DELETE /admin/oauth/clients/{client_id}: 204.
func (a *API) adminDeleteOAuthClient(c fiber.Ctx) error {
	if err := a.requireOAuthServer(c); err != nil {
		return err
	}
	cl, err := a.oauthClientFromPath(c)
	if err != nil {
		return err
	}
	if err := a.store.DeleteOAuthClient(c.Context(), cl.ID, a.now()); err != nil {
		return oauthClientWriteErr(err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// adminRegenerateOAuthClientSecret is
// POST /admin/oauth/clients/{client_id}/regenerate_secret: a new secret for
// a confidential client, shown this once; the old one stops working.
func (a *API) adminRegenerateOAuthClientSecret(c fiber.Ctx) error {
	if err := a.requireOAuthServer(c); err != nil {
		return err
	}
	cl, err := a.oauthClientFromPath(c)
	if err != nil {
		return err
	}
	if cl.ClientType != "confidential" {
		return validationFailed("Cannot regenerate secret for public client")
	}
	var secret string
	secret, cl.SecretHash = newClientSecret()
	if err := a.store.SaveOAuthClient(c.Context(), cl, a.now()); err != nil {
		return oauthClientWriteErr(err)
	}
	return c.JSON(renderOAuthClient(cl, secret))
}

// oauthClientWriteErr maps a client deleted between its load and the write.
func oauthClientWriteErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound(apierr.CodeOAuthClientNotFound, "OAuth client not found")
	}
	return apierr.Internal(fmt.Errorf("oauth client: %w", err))
}
