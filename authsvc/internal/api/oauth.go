package api

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

// oauthStateTTL bounds the round trip through the provider.
const oauthStateTTL = 10 * time.Minute

// authorize is GET /authorize?provider=google&redirect_to=…: a flow state
// for PKCE, then 302 to the provider (or {"url"} with skip_http_redirect).
func (a *API) authorize(c fiber.Ctx) error {
	provider := strings.Clone(c.Query("provider"))
	if provider != "google" {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Unsupported provider: provider %s could not be found", provider)
	}
	if a.google == nil || !a.cfg.Auth.Google.Enabled {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Unsupported provider: provider is not enabled")
	}
	redirect := a.redirectURL(strings.Clone(c.Query("redirect_to")))
	challenge, method := strings.Clone(c.Query("code_challenge")), strings.Clone(c.Query("code_challenge_method"))
	pkce, err := pkceParams(challenge, method)
	if err != nil {
		return err
	}
	ctx := c.Context()
	now := a.now()
	state := map[string]any{"exp": now.Add(oauthStateTTL).Unix(), "provider": provider, "referrer": redirect, "site_url": a.cfg.SiteURL}
	if pkce {
		f, err := a.createFlowState(ctx, a.store.Q, "", provider, tokens.MethodOAuth, challenge, method)
		if err != nil {
			return apierr.Internal(err)
		}
		state["flow_state_id"] = f.ID
	}
	st, err := a.signer.SignMap(state)
	if err != nil {
		return apierr.Internal(err)
	}
	extra := url.Values{}
	for k, v := range c.Queries() {
		extra.Set(strings.Clone(k), strings.Clone(v))
	}
	scopes := strings.FieldsFunc(strings.Clone(c.Query("scopes")), func(r rune) bool { return r == ' ' || r == ',' })
	target, err := a.google.AuthCodeURL(ctx, st, scopes, extra)
	if err != nil {
		return apierr.Internal(err)
	}
	if c.Query("skip_http_redirect") == "true" {
		return c.JSON(fiber.Map{"url": target})
	}
	return c.Redirect().Status(fiber.StatusFound).To(target)
}

// callback is GET|POST /callback?code&state from the provider: find or
// create the user, then 302 to the app with the session in the fragment
// (implicit) or ?code= (PKCE).
func (a *API) callback(c fiber.Ctx) error {
	get := func(k string) string {
		if v := c.Query(k); v != "" {
			return strings.Clone(v)
		}
		return strings.Clone(c.FormValue(k))
	}
	ctx := c.Context()
	claims, err := a.signer.Verify(get("state"), a.now())
	if err != nil {
		return apierr.BadRequest(apierr.CodeBadOAuthState, "OAuth state parameter is invalid")
	}
	redirect, _ := claims["referrer"].(string)
	redirect = a.redirectURL(redirect)
	if e := get("error"); e != "" {
		desc := get("error_description")
		if desc == "" {
			desc = e
		}
		return redirectErrorFound(c, redirect, e, apierr.CodeBadOAuthCallback, desc)
	}
	code := get("code")
	if code == "" || a.google == nil {
		return redirectErrorFound(c, redirect, "invalid_request", apierr.CodeBadOAuthCallback, "OAuth callback with missing authorization code")
	}
	res, err := a.google.Exchange(ctx, code)
	if err != nil {
		a.log.WarnContext(ctx, "oauth exchange failed", "provider", "google", "error", err.Error())
		return redirectErrorFound(c, redirect, "server_error", apierr.CodeBadOAuthCallback, "Error getting user profile from external provider")
	}
	flowID, _ := claims["flow_state_id"].(string)
	var issued *tokens.Issued
	var authCode string
	err = a.tx(ctx, func(q *store.Q) error {
		u, err := a.oauthUser(ctx, q, "google", res.Claims)
		if err != nil {
			return err
		}
		if u.IsBanned(a.now()) {
			return apierr.BadRequest(apierr.CodeUserBanned, "User is banned")
		}
		if flowID != "" {
			f, err := q.FlowStateByID(ctx, flowID)
			if errors.Is(err, store.ErrNotFound) {
				return apierr.NotFound(apierr.CodeFlowStateNotFound, "invalid flow state, no valid flow state found")
			} else if err != nil {
				return err
			}
			f.UserID, f.AuthCode = u.ID, uuid.NewString()
			f.ProviderAccessToken, f.ProviderRefreshToken = res.AccessToken, res.RefreshToken
			authCode = f.AuthCode
			return q.IssueFlowAuthCode(ctx, f, a.now())
		}
		issued, err = a.tokens.IssueSession(ctx, q, u, tokens.MethodOAuth, a.client(c))
		return err
	})
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.HTTPStatus < 500 {
			return redirectErrorFound(c, redirect, "access_denied", ae.Code, ae.Message)
		}
		return err
	}
	if authCode != "" {
		return c.Redirect().Status(fiber.StatusFound).To(withQuery(redirect, "code", authCode))
	}
	return c.Redirect().Status(fiber.StatusFound).To(sessionFragment(redirect, issued, "", res.AccessToken, res.RefreshToken))
}

func redirectErrorFound(c fiber.Ctx, redirect, errName, code, desc string) error {
	target := stripFragment(redirect) + "#error=" + url.QueryEscape(errName) + "&error_code=" + url.QueryEscape(code) +
		"&error_description=" + url.QueryEscape(desc) + "&sb="
	return c.Redirect().Status(fiber.StatusFound).To(target)
}

// oauthUser finds the user of a provider identity (by subject, then by
// verified email) or creates one, and refreshes the identity data.
func (a *API) oauthUser(ctx context.Context, q *store.Q, provider string, claims map[string]any) (*store.User, error) {
	str := func(k string) string { s, _ := claims[k].(string); return s }
	sub := str("sub")
	email := strings.ToLower(str("email"))
	verified, _ := claims["email_verified"].(bool)
	if s, ok := claims["email_verified"].(string); ok {
		verified = s == "true"
	}
	data := map[string]any{"iss": str("iss"), "sub": sub, "provider_id": sub, "email": email, "email_verified": verified, "phone_verified": false}
	if n := str("name"); n != "" {
		data["name"], data["full_name"] = n, n
	}
	if p := str("picture"); p != "" {
		data["picture"], data["avatar_url"] = p, p
	}
	now := a.now()
	ident, err := q.IdentityByProvider(ctx, provider, sub)
	var u *store.User
	switch {
	case err == nil:
		if u, err = q.UserByIDForUpdate(ctx, ident.UserID); err != nil {
			return nil, err
		}
		ident.IdentityData, ident.LastSignInAt = data, ptr(now)
		if err := q.UpdateIdentity(ctx, ident, now); err != nil {
			return nil, err
		}
	case errors.Is(err, store.ErrNotFound):
		if email != "" && verified {
			u, err = q.UserByEmail(ctx, email)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
		}
		if u == nil {
			if a.cfg.Auth.DisableSignup {
				return nil, apierr.Unprocessable(apierr.CodeSignupDisabled, "Signups not allowed for this instance")
			}
			u = a.newUser(email, "", provider, nil)
			for k, v := range data {
				u.UserMetaData[k] = v
			}
			if err := q.CreateUser(ctx, u); err != nil {
				return nil, err
			}
		}
		if err := q.CreateIdentity(ctx, &store.Identity{ProviderID: sub, UserID: u.ID, IdentityData: data, Provider: provider,
			LastSignInAt: ptr(now), CreatedAt: now}); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if verified && u.EmailConfirmedAt == nil && strings.EqualFold(u.Email, email) {
		u.EmailConfirmedAt = ptr(now)
	}
	providers, _ := u.AppMetaData["providers"].([]any)
	if !slices.Contains(providers, any(provider)) {
		u.AppMetaData["providers"] = append(providers, provider)
	}
	if _, ok := u.AppMetaData["provider"]; !ok {
		u.AppMetaData["provider"] = provider
	}
	u.LastSignInAt = ptr(now)
	return u, q.SaveUser(ctx, u, now)
}
