package api

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/oidc"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

// oauthStateTTL bounds the round trip through the provider.
const oauthStateTTL = 10 * time.Minute

// authorize is GET /authorize?provider=google&redirect_to=…: a flow state
// for PKCE, then 302 to the provider (or {"url"} with skip_http_redirect).
func (a *API) authorize(c fiber.Ctx) error { return a.startOAuth(c, "") }

// startOAuth sends the browser to the provider. linkTo, when set, is the
// signed-in user the provider identity is to be linked to
// (GET /user/identities/authorize); the state carries it to the callback,
// signed, as GoTrue's linking_target_id.
func (a *API) startOAuth(c fiber.Ctx, linkTo string) error {
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
	cs, err := a.newOAuthClientState(ctx, provider, now)
	if err != nil {
		return apierr.Internal(err)
	}
	state := map[string]any{"exp": now.Add(oauthStateTTL).Unix(), "provider": provider, "referrer": redirect, "site_url": a.cfg.SiteURL,
		"oauth_client_state_id": cs.ID}
	if linkTo != "" {
		state["linking_target_id"] = linkTo
	}
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
	target, err := a.google.AuthCodeURL(ctx, st, cs.CodeVerifier, scopes, extra)
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
	// Every state /authorize issues names its oauth_client_states row; a
	// JWT without one (an access token, signed with the same key) is none.
	stateID, _ := claims["oauth_client_state_id"].(string)
	if err != nil || uuid.Validate(stateID) != nil {
		return apierr.BadRequest(apierr.CodeBadOAuthState, "OAuth state parameter is invalid")
	}
	redirect, _ := claims["referrer"].(string)
	redirect = a.redirectURL(redirect)
	provider, _ := claims["provider"].(string)
	// Taken before anything else, in a statement of its own: the state is
	// spent even when the sign-in fails below, and a rollback there cannot
	// bring it back.
	cs, err := a.store.TakeOAuthClientState(ctx, stateID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return redirectErrorFound(c, redirect, "invalid_request", apierr.CodeOAuthClientStateNotFound, "OAuth state not found")
	case err != nil:
		return apierr.Internal(err)
	case cs.ProviderType != provider:
		return redirectErrorFound(c, redirect, "invalid_request", apierr.CodeOAuthInvalidState, "OAuth provider mismatch")
	case !a.now().Before(cs.CreatedAt.Add(oauthStateTTL)):
		return redirectErrorFound(c, redirect, "invalid_request", apierr.CodeOAuthClientStateExpired, "OAuth state expired")
	}
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
	res, err := a.google.Exchange(ctx, code, cs.CodeVerifier)
	if errors.Is(err, oidc.ErrMismatch) {
		// A code or token from another sign-in: an injection attempt, or a
		// provider that answers for the wrong request.
		a.log.WarnContext(ctx, "oauth callback refused", "provider", "google", "error", err.Error())
		return redirectErrorFound(c, redirect, "invalid_request", apierr.CodeBadOAuthCallback, "OAuth callback does not belong to this sign-in")
	} else if err != nil {
		// A code issued for another sign-in's PKCE challenge ends here too:
		// the provider refuses this sign-in's verifier for it.
		a.log.WarnContext(ctx, "oauth exchange failed", "provider", "google", "error", err.Error())
		return redirectErrorFound(c, redirect, "server_error", apierr.CodeBadOAuthCallback, "Error getting user profile from external provider")
	}
	flowID, _ := claims["flow_state_id"].(string)
	var issued *tokens.Issued
	var authCode string
	var refused error
	err = a.tx(ctx, func(q *store.Q) error {
		linkTo, _ := claims["linking_target_id"].(string)
		u, r, err := a.externalUser(ctx, q, linkTo, "google", res.Claims, redirect)
		if err != nil || r != nil {
			refused = r
			return err
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
	if err == nil {
		err = refused
	}
	if err != nil {
		// As in GoTrue, the browser goes back to the app with the error
		// rather than stopping on a JSON page; a server fault is logged
		// here and described only generically there.
		ae := new(apierr.Error)
		if !errors.As(err, &ae) || ae.HTTPStatus >= 500 {
			a.log.ErrorContext(ctx, "oauth callback failed", "provider", "google", "error", err.Error())
			ae = apierr.Internal(err)
		}
		return redirectErrorFound(c, redirect, oauthErrorName(ae), ae.Code, ae.Message)
	}
	if authCode != "" {
		return c.Redirect().Status(fiber.StatusFound).To(withQuery(redirect, "code", authCode))
	}
	return c.Redirect().Status(fiber.StatusFound).To(sessionFragment(redirect, issued, "", res.AccessToken, res.RefreshToken))
}

// newOAuthClientState starts a sign-in with provider: a fresh PKCE verifier,
// stored under a random id that the state names.
//
// Stored, not carried in the state, even encrypted: the state travels
// through the browser and the provider, and only a row can be spent, which
// makes each state single use. GoTrue keeps the same row, in the same table.
func (a *API) newOAuthClientState(ctx context.Context, provider string, now time.Time) (*store.OAuthClientState, error) {
	verifier := oidc.NewVerifier()
	// Sign-ins abandoned at the provider leave their row behind; each new
	// one clears those past the state's lifetime. Failing that is no reason
	// to refuse the sign-in.
	if err := a.store.DeleteOAuthClientStatesBefore(ctx, now.Add(-oauthStateTTL)); err != nil {
		a.log.WarnContext(ctx, "oauth client state cleanup failed", "error", err.Error())
	}
	cs := &store.OAuthClientState{ID: uuid.NewString(), ProviderType: provider, CodeVerifier: verifier, CreatedAt: now}
	if err := a.store.CreateOAuthClientState(ctx, cs); err != nil {
		return nil, fmt.Errorf("start oauth sign-in: %w", err)
	}
	return cs, nil
}

// oauthErrorName is the OAuth 2.0 error name a refused callback reports,
// as GoTrue's getErrorQueryString chooses it: a refusal of the account
// itself is access_denied, anything else follows the HTTP status (so a
// 404 or 422 is server_error there too).
func oauthErrorName(e *apierr.Error) string {
	switch e.Code {
	case apierr.CodeSignupDisabled, apierr.CodeUserBanned, apierr.CodeProviderEmailNeedsVerification:
		return "access_denied"
	}
	switch e.HTTPStatus {
	case fiber.StatusBadRequest:
		return "invalid_request"
	case fiber.StatusUnauthorized:
		return "unauthorized_client"
	case fiber.StatusForbidden:
		return "access_denied"
	case fiber.StatusServiceUnavailable:
		return "temporarily_unavailable"
	}
	return "server_error"
}

func redirectErrorFound(c fiber.Ctx, redirect, errName, code, desc string) error {
	target := stripFragment(redirect) + "#error=" + url.QueryEscape(errName) + "&error_code=" + url.QueryEscape(code) +
		"&error_description=" + url.QueryEscape(desc) + "&sb="
	return c.Redirect().Status(fiber.StatusFound).To(target)
}

// externalUser finds or creates the user of a provider's verified claims,
// or with linkTo links them to that signed-in user, inside q's transaction.
// A refusal that must still commit (commitThenFail) comes back as refused,
// with no user; a banned user is an error.
func (a *API) externalUser(ctx context.Context, q *store.Q, linkTo, provider string, claims map[string]any, redirect string) (u *store.User, refused, err error) {
	if linkTo != "" {
		u, err = a.linkIdentity(ctx, q, linkTo, provider, claims, redirect)
	} else {
		u, err = a.oauthUser(ctx, q, provider, claims, redirect)
	}
	var cf *commitThenFail
	if errors.As(err, &cf) {
		return nil, cf.err, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if u.IsBanned(a.now()) {
		return nil, nil, apierr.BadRequest(apierr.CodeUserBanned, "User is banned")
	}
	return u, nil, nil
}

// commitThenFail is an error the callback reports only after committing
// its transaction (GoTrue's storage.NewCommitWithError): what was written
// before the refusal, a new user and its confirmation code, must persist.
type commitThenFail struct{ err error }

func (e *commitThenFail) Error() string { return e.err.Error() }
func (e *commitThenFail) Unwrap() error { return e.err }

// oauthUser finds the user of a provider identity (by subject, then by
// verified email) or creates one, and refreshes the identity data. An
// account whose address neither the provider nor its owner has verified
// gets a confirmation mail (linking to redirect) and a *commitThenFail.
func (a *API) oauthUser(ctx context.Context, q *store.Q, provider string, claims map[string]any, redirect string) (*store.User, error) {
	sub, email, verified, data := providerIdentity(claims)
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
		if u, err = oauthLinkTarget(ctx, q, provider, email, verified); err != nil {
			return nil, err
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
		ident = &store.Identity{ProviderID: sub, UserID: u.ID, IdentityData: data, Provider: provider, LastSignInAt: ptr(now), CreatedAt: now}
		if err := q.CreateIdentity(ctx, ident); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if verified && u.EmailConfirmedAt == nil && strings.EqualFold(u.Email, email) {
		if err := revokeUnprovenAccess(ctx, q, u, ident); err != nil {
			return nil, err
		}
		u.EmailConfirmedAt = ptr(now)
	}
	providers, _ := u.AppMetaData["providers"].([]any)
	if !slices.Contains(providers, any(provider)) {
		u.AppMetaData["providers"] = append(providers, provider)
	}
	if _, ok := u.AppMetaData["provider"]; !ok {
		u.AppMetaData["provider"] = provider
	}
	// GoTrue's createAccountFromExternalIdentity (with
	// GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS off, its default): an
	// address the provider has not verified may be someone else's, so the
	// account waits until its owner follows the confirmation mail, and
	// nobody signs in with it before. A provider that gives no address
	// has nothing to confirm and signs in as before.
	needsConfirmation := !verified && email != "" && u.Email != "" &&
		u.EmailConfirmedAt == nil && u.PhoneConfirmedAt == nil && !a.cfg.Auth.MailerAutoconfirm
	if needsConfirmation {
		if err := a.checkFrequency(u.ConfirmationSentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
			return nil, err
		}
		if err := a.sendConfirmation(ctx, q, u, u.Email, redirect, false, now); err != nil {
			return nil, err
		}
	} else {
		u.LastSignInAt = ptr(now)
	}
	if err := q.SaveUser(ctx, u, now); err != nil {
		return nil, err
	}
	if needsConfirmation {
		return nil, &commitThenFail{apierr.Unprocessable(apierr.CodeProviderEmailNeedsVerification,
			"Unverified email with %s. A confirmation email has been sent to your %s email", provider, provider)}
	}
	return u, nil
}

// providerIdentity reads a verified id_token's claims as GoTrue stores a
// provider identity: the subject, the lower-cased email, whether the
// provider verified it, and the identity_data.
func providerIdentity(claims map[string]any) (sub, email string, verified bool, data map[string]any) {
	str := func(k string) string { s, _ := claims[k].(string); return s }
	sub = str("sub")
	email = strings.ToLower(str("email"))
	verified, _ = claims["email_verified"].(bool)
	if s, ok := claims["email_verified"].(string); ok {
		verified = s == "true"
	}
	data = map[string]any{"iss": str("iss"), "sub": sub, "provider_id": sub, "email": email, "email_verified": verified, "phone_verified": false}
	if n := str("name"); n != "" {
		data["name"], data["full_name"] = n, n
	}
	if p := str("picture"); p != "" {
		data["picture"], data["avatar_url"] = p, p
	}
	return sub, email, verified, data
}

// oauthLinkTarget returns the existing user a new provider identity with
// this email joins, or nil when it needs a user of its own.
func oauthLinkTarget(ctx context.Context, q *store.Q, provider, email string, verified bool) (*store.User, error) {
	if email == "" {
		return nil, nil
	}
	u, err := q.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if !verified {
		// An address the provider has not verified proves nothing about
		// who owns it, so it must not open someone's account. A user of
		// its own cannot have it either: the address is taken.
		return nil, apierr.Unprocessable(apierr.CodeProviderEmailNeedsVerification,
			"Unverified email with %s. Verify the email with %s in order to sign in", provider, provider)
	}
	// Locked: the caller may strip the user's credentials below.
	return q.UserByIDForUpdate(ctx, u.ID)
}

// revokeUnprovenAccess runs when a provider's verified email is about to
// confirm u, whose address nobody has confirmed yet (GoTrue's
// RemoveUnconfirmedIdentities). Whoever set the account up so far never
// proved they own the address: it may be an attacker who signed up first
// with the victim's email and a password of their choosing. Everything
// they could hold is removed, so that keep (the identity signing in now)
// is the only way in: the other identities, the password, the sessions,
// outstanding codes and pending changes, and the user_metadata they wrote.
// u is saved by the caller.
func revokeUnprovenAccess(ctx context.Context, q *store.Q, u *store.User, keep *store.Identity) error {
	if err := q.DeleteIdentitiesExcept(ctx, u.ID, keep.ID); err != nil {
		return fmt.Errorf("remove unconfirmed identities: %w", err)
	}
	// Sessions too: an unconfirmed account signed into while
	// GOTRUE_MAILER_AUTOCONFIRM was on, or before unverified provider
	// emails were refused, may hold some.
	if err := q.DeleteUserSessions(ctx, u.ID, ""); err != nil {
		return fmt.Errorf("remove unconfirmed sessions: %w", err)
	}
	if err := q.DeleteOneTimeTokens(ctx, u.ID); err != nil {
		return fmt.Errorf("remove unconfirmed one-time tokens: %w", err)
	}
	u.EncryptedPassword = ""
	u.ConfirmationToken, u.RecoveryToken, u.ReauthenticationToken = "", "", ""
	u.EmailChange, u.EmailChangeTokenNew, u.EmailChangeTokenCurrent, u.EmailChangeSentAt, u.EmailChangeConfirmStatus = "", "", "", nil, 0
	u.PhoneChange, u.PhoneChangeToken, u.PhoneChangeSentAt = "", "", nil
	u.UserMetaData = maps.Clone(keep.IdentityData)
	u.AppMetaData["provider"] = keep.Provider
	u.AppMetaData["providers"] = []any{keep.Provider}
	return nil
}
