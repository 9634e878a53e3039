package api

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/ratelimit"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

// flowStateExpiry is how long a PKCE auth code can be exchanged.
const flowStateExpiry = 5 * time.Minute

type tokenParams struct {
	Email        string `json:"email"`
	Phone        string `json:"phone"`
	Password     string `json:"password"`
	RefreshToken string `json:"refresh_token"`
	AuthCode     string `json:"auth_code"`
	CodeVerifier string `json:"code_verifier"`
	// The id_token grant's (GoTrue's IdTokenGrantParams).
	IDToken      string `json:"id_token"`
	AccessToken  string `json:"access_token"`
	Nonce        string `json:"nonce"`
	Provider     string `json:"provider"`
	ClientID     string `json:"client_id"`
	Issuer       string `json:"issuer"`
	LinkIdentity bool   `json:"link_identity"`
}

// token is POST /token?grant_type=password|refresh_token|pkce|id_token
// (and web3, which answers that it is disabled).
func (a *API) token(c fiber.Ctx) error {
	var p tokenParams
	if err := bind(c, &p); err != nil {
		return err
	}
	switch c.Query("grant_type") {
	case "password":
		return a.passwordGrant(c, p)
	case "refresh_token":
		return a.refreshGrant(c, p)
	case "pkce":
		return a.pkceGrant(c, p)
	case "id_token":
		return a.idTokenGrant(c, p)
	case "web3":
		return errWeb3Disabled
	}
	return apierr.BadRequest(apierr.CodeInvalidCredentials, "unsupported_grant_type")
}

var errInvalidCredentials = apierr.BadRequest(apierr.CodeInvalidCredentials, "Invalid login credentials")

func (a *API) passwordGrant(c fiber.Ctx, p tokenParams) error {
	ctx := c.Context()
	var account, phone string
	switch {
	case p.Email != "":
		if !a.cfg.Auth.EmailEnabled {
			return apierr.BadRequest(apierr.CodeEmailProviderDisabled, "Email logins are disabled")
		}
		// Keyed as the lookup matches (case-insensitively), so that
		// changing the case does not open a fresh budget.
		account = "email:" + strings.ToLower(strings.TrimSpace(p.Email))
	case p.Phone != "":
		if !a.cfg.Auth.PhoneEnabled {
			return apierr.BadRequest(apierr.CodePhoneProviderDisabled, "Phone logins are disabled")
		}
		var err error
		if phone, err = validatePhone(p.Phone); err != nil {
			return err
		}
		account = "phone:" + phone
	default:
		return apierr.BadRequest(apierr.CodeValidationFailed, "missing email or phone")
	}
	// Counted as a failure unless the password turns out right; decided
	// before the lookup, so unknown addresses answer alike. A guard that
	// cannot count (the database is unreachable) refuses: fail closed.
	attempt, ok, err := a.limits.passwordSignIn.Begin(ctx, account, ratelimit.Source(clientIP(c)))
	if err != nil {
		return apierr.Internal(err)
	}
	if !ok {
		return errRateLimited()
	}
	var u *store.User
	if p.Email != "" {
		u, err = a.store.UserByEmail(ctx, p.Email)
	} else {
		u, err = a.store.UserByPhone(ctx, phone)
	}
	if errors.Is(err, store.ErrNotFound) {
		crypto.CheckPassword("", p.Password) // same time as a real check
		return errInvalidCredentials
	} else if err != nil {
		return apierr.Internal(err)
	}
	if u.IsBanned(a.now()) {
		return apierr.BadRequest(apierr.CodeUserBanned, "User is banned")
	}
	if !crypto.CheckPassword(u.EncryptedPassword, p.Password) {
		return errInvalidCredentials
	}
	if err := attempt.Succeeded(ctx); err != nil {
		// The attempt stays counted as a failure; the sign-in goes on.
		a.log.WarnContext(ctx, "password sign-in limit", "error", err.Error())
	}
	if p.Email != "" && u.EmailConfirmedAt == nil && !a.cfg.Auth.MailerAutoconfirm {
		return apierr.BadRequest(apierr.CodeEmailNotConfirmed, "Email not confirmed")
	}
	if p.Phone != "" && u.PhoneConfirmedAt == nil && !a.cfg.Auth.SMS.Autoconfirm {
		return apierr.BadRequest(apierr.CodePhoneNotConfirmed, "Phone not confirmed")
	}
	var out *sessionJSON
	err = a.tx(ctx, func(q *store.Q) error {
		u.LastSignInAt = ptr(a.now())
		if err := q.SaveUser(ctx, u, a.now()); err != nil {
			return err
		}
		s, err := a.tokens.IssueSession(ctx, q, u, tokens.MethodPassword, a.client(c))
		if err != nil {
			return err
		}
		out, err = a.renderSession(ctx, q, s)
		return err
	})
	if err != nil {
		return err
	}
	a.audit(ctx, a.store.Q, u, auditLogin, "account", clientIP(c), map[string]any{"provider": u.AppMetaData["provider"]})
	if n := a.cfg.Auth.PasswordMinLength; len([]rune(p.Password)) < n {
		out.WeakPassword = map[string]any{"reasons": []string{"length"}, "message": "Password should be at least " + itoa(n) + " characters."}
	}
	return c.JSON(out)
}

func (a *API) refreshGrant(c fiber.Ctx, p tokenParams) error {
	if p.RefreshToken == "" {
		return apierr.BadRequest(apierr.CodeValidationFailed, "refresh_token required")
	}
	ctx := c.Context()
	s, err := a.tokens.Refresh(ctx, p.RefreshToken)
	switch {
	case errors.Is(err, tokens.ErrRefreshNotFound):
		return apierr.BadRequest(apierr.CodeRefreshTokenNotFound, "Invalid Refresh Token: Refresh Token Not Found")
	case errors.Is(err, tokens.ErrRefreshReused):
		return apierr.BadRequest(apierr.CodeRefreshTokenAlreadyUsed, "Invalid Refresh Token: Already Used")
	case errors.Is(err, tokens.ErrSessionExpired):
		return apierr.BadRequest(apierr.CodeSessionExpired, "Invalid Refresh Token: Session Expired")
	case errors.Is(err, tokens.ErrUserBanned):
		return apierr.BadRequest(apierr.CodeUserBanned, "Invalid Refresh Token: User Banned")
	case err != nil:
		return apierr.Internal(err)
	}
	out, err := a.renderSession(ctx, a.store.Q, s)
	if err != nil {
		return apierr.Internal(err)
	}
	return c.JSON(out)
}

func (a *API) pkceGrant(c fiber.Ctx, p tokenParams) error {
	if p.AuthCode == "" || p.CodeVerifier == "" {
		return apierr.BadRequest(apierr.CodeValidationFailed, "invalid request: both auth code and code verifier should be non-empty")
	}
	ctx := c.Context()
	var out *sessionJSON
	err := a.tx(ctx, func(q *store.Q) error {
		f, err := q.FlowStateByAuthCode(ctx, p.AuthCode)
		if errors.Is(err, store.ErrNotFound) {
			return apierr.NotFound(apierr.CodeFlowStateNotFound, "invalid flow state, no valid flow state found")
		} else if err != nil {
			return err
		}
		if f.AuthCodeIssuedAt == nil || a.now().After(f.AuthCodeIssuedAt.Add(flowStateExpiry)) || f.UserID == "" {
			return apierr.Unprocessable(apierr.CodeFlowStateExpired, "invalid flow state, flow state has expired")
		}
		if !crypto.CheckPKCE(f.CodeChallengeMethod, f.CodeChallenge, p.CodeVerifier) {
			return apierr.BadRequest(apierr.CodeBadCodeVerifier, "code challenge does not match previously saved code verifier")
		}
		if err := q.DeleteFlowState(ctx, f.ID); err != nil {
			return err
		}
		u, err := q.UserByID(ctx, f.UserID)
		if err != nil {
			return err
		}
		if u.IsBanned(a.now()) {
			return apierr.BadRequest(apierr.CodeUserBanned, "User is banned")
		}
		s, err := a.tokens.IssueSession(ctx, q, u, f.AuthenticationMethod, a.client(c))
		if err != nil {
			return err
		}
		out, err = a.renderSession(ctx, q, s)
		if err == nil {
			out.ProviderToken, out.ProviderRefreshToken = f.ProviderAccessToken, f.ProviderRefreshToken
		}
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}
