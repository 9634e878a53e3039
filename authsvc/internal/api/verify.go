package api

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

// verifyKind describes one /verify type.
type verifyKind struct {
	ottTypes []string
	method   string // amr and PKCE flow method
	phone    bool
}

var verifyKinds = map[string]verifyKind{
	"signup":       {[]string{store.OTTConfirmation}, tokens.MethodEmailSignup, false},
	"invite":       {[]string{store.OTTConfirmation}, tokens.MethodInvite, false},
	"recovery":     {[]string{store.OTTRecovery}, tokens.MethodRecovery, false},
	"magiclink":    {[]string{store.OTTRecovery, store.OTTConfirmation}, tokens.MethodMagicLink, false},
	"email":        {[]string{store.OTTConfirmation, store.OTTRecovery}, tokens.MethodOTP, false},
	"email_change": {[]string{store.OTTEmailChangeNew, store.OTTEmailChangeCurrent}, tokens.MethodEmailChange, false},
	"sms":          {[]string{store.OTTConfirmation, store.OTTRecovery}, tokens.MethodOTP, true},
	"phone_change": {[]string{store.OTTPhoneChange}, tokens.MethodOTP, true},
}

// errVerifyFailed is /verify's answer to an unknown, used or expired code.
var errVerifyFailed = apierr.Forbidden(apierr.CodeOTPExpired, "Token has expired or is invalid")

// emailChangePending is returned when one of two email-change links was
// confirmed and the other is still outstanding.
const emailChangePending = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

// verifyOutcome is what a successful verification produced.
type verifyOutcome struct {
	session  *tokens.Issued
	authCode string // PKCE: redirect with ?code=
	message  string // email change half-done
}

// verifyCode checks and consumes a code by its hash, applies its effect
// and starts a session (or issues a PKCE auth code when pkce).
func (a *API) verifyCode(ctx context.Context, typ, hash string, pkce bool, cl tokens.Client) (*verifyOutcome, error) {
	kind, ok := verifyKinds[typ]
	if !ok {
		return nil, apierr.BadRequest(apierr.CodeValidationFailed, "Verify requires a verification type")
	}
	var out verifyOutcome
	err := a.tx(ctx, func(q *store.Q) error {
		t, err := q.OneTimeTokenByHash(ctx, hash, kind.ottTypes...)
		if errors.Is(err, store.ErrNotFound) {
			return errVerifyFailed
		} else if err != nil {
			return err
		}
		u, err := q.UserByIDForUpdate(ctx, t.UserID)
		if err != nil {
			return err
		}
		exp := a.cfg.Auth.MailerOTPExp
		if kind.phone {
			exp = a.cfg.Auth.SMS.OTPExp
		}
		now := a.now()
		if now.After(t.CreatedAt.Add(exp)) {
			if err := q.DeleteOneTimeTokens(ctx, u.ID, t.Type); err != nil {
				return err
			}
			return errExpiredCommit
		}
		if !crypto.Equal(t.TokenHash, hash) {
			return errVerifyFailed
		}
		if u.IsBanned(now) {
			return apierr.BadRequest(apierr.CodeUserBanned, "User is banned")
		}
		if err := q.DeleteOneTimeTokens(ctx, u.ID, t.Type); err != nil {
			return err
		}
		switch t.Type {
		case store.OTTConfirmation, store.OTTRecovery:
			if kind.phone {
				if u.PhoneConfirmedAt == nil {
					u.PhoneConfirmedAt = ptr(now)
					if err := a.markVerified(ctx, q, u, "phone_verified"); err != nil {
						return err
					}
				}
			} else if u.EmailConfirmedAt == nil {
				u.EmailConfirmedAt = ptr(now)
				if err := a.markVerified(ctx, q, u, "email_verified"); err != nil {
					return err
				}
			}
			if t.Type == store.OTTConfirmation {
				u.ConfirmationToken = ""
			} else {
				u.RecoveryToken = ""
			}
		case store.OTTEmailChangeNew, store.OTTEmailChangeCurrent:
			if u.EmailChange == "" {
				return errVerifyFailed
			}
			other := store.OTTEmailChangeCurrent
			if t.Type == other {
				other = store.OTTEmailChangeNew
			}
			if _, err := q.OneTimeTokenOfUser(ctx, u.ID, other); err == nil {
				u.EmailChangeConfirmStatus = 1
				out.message = emailChangePending
				return q.SaveUser(ctx, u, now)
			}
			u.Email, u.EmailChange, u.EmailChangeSentAt, u.EmailChangeConfirmStatus = u.EmailChange, "", nil, 0
			if u.EmailConfirmedAt == nil {
				u.EmailConfirmedAt = ptr(now)
			}
			if _, ok := u.UserMetaData["email"]; ok {
				u.UserMetaData["email"] = u.Email
			}
			if err := a.updateEmailIdentity(ctx, q, u); err != nil {
				return err
			}
			if err := a.makePermanent(ctx, q, u); err != nil {
				return err
			}
		case store.OTTPhoneChange:
			if u.PhoneChange == "" {
				return errVerifyFailed
			}
			u.Phone, u.PhoneChange, u.PhoneChangeSentAt = u.PhoneChange, "", nil
			u.PhoneConfirmedAt = ptr(now)
		}
		u.LastSignInAt = ptr(now)
		if err := q.SaveUser(ctx, u, now); err != nil {
			return err
		}
		if pkce {
			f, err := q.FlowStateForUser(ctx, u.ID, kind.method)
			if errors.Is(err, store.ErrNotFound) {
				return apierr.NotFound(apierr.CodeFlowStateNotFound, "invalid flow state, no valid flow state found")
			} else if err != nil {
				return err
			}
			f.AuthCode = uuid.NewString()
			if err := q.IssueFlowAuthCode(ctx, f, now); err != nil {
				return err
			}
			out.authCode = f.AuthCode
			return nil
		}
		out.session, err = a.tokens.IssueSession(ctx, q, u, kind.method, cl)
		return err
	})
	if errors.Is(err, errExpiredCommit) {
		return nil, errVerifyFailed
	}
	return &out, err
}

// errExpiredCommit would roll back the deletion of an expired code; the
// code is dead either way, so the rollback is harmless.
var errExpiredCommit = errors.New("expired")

// makePermanent turns an anonymous user whose email was just confirmed into
// an email user with an email identity.
func (a *API) makePermanent(ctx context.Context, q *store.Q, u *store.User) error {
	if !u.IsAnonymous {
		return nil
	}
	u.IsAnonymous = false
	u.AppMetaData["provider"] = "email"
	u.AppMetaData["providers"] = []any{"email"}
	return a.createIdentity(ctx, q, u, "email")
}

func (a *API) updateEmailIdentity(ctx context.Context, q *store.Q, u *store.User) error {
	ids, err := q.IdentitiesByUser(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, i := range ids {
		if i.Provider == "email" {
			i.IdentityData["email"] = u.Email
			if err := q.UpdateIdentity(ctx, i, a.now()); err != nil {
				return err
			}
		}
	}
	return nil
}

// verifyGet is GET /verify?token=&type=&redirect_to= (the mail link): 303
// to redirect_to with the session (or error) in the fragment, or ?code=
// for PKCE.
func (a *API) verifyGet(c fiber.Ctx) error {
	typ := strings.Clone(c.Query("type"))
	token := strings.Clone(c.Query("token"))
	redirect := a.redirectURL(strings.Clone(c.Query("redirect_to")))
	if _, ok := verifyKinds[typ]; !ok || typ == "email" || typ == "sms" || typ == "phone_change" {
		return redirectError(c, redirect, "invalid_request", apierr.CodeValidationFailed, "Verify requires a verification type")
	}
	pkce := strings.HasPrefix(token, pkcePrefix)
	hash := strings.TrimPrefix(token, pkcePrefix)
	out, err := a.verifyCode(c.Context(), typ, hash, pkce, a.client(c))
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.HTTPStatus < 500 {
			desc := ae.Message
			if ae.Code == apierr.CodeOTPExpired {
				desc = "Email link is invalid or has expired"
			}
			return redirectError(c, redirect, "access_denied", ae.Code, desc)
		}
		return err
	}
	switch {
	case out.message != "":
		return c.Redirect().Status(fiber.StatusSeeOther).To(withFragment(redirect, url.Values{"message": {out.message}}))
	case out.authCode != "":
		return c.Redirect().Status(fiber.StatusSeeOther).To(withQuery(redirect, "code", out.authCode))
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To(sessionFragment(redirect, out.session, typ, "", ""))
}

// sessionFragment is redirect#access_token=…&…&sb= in GoTrue's order.
func sessionFragment(redirect string, s *tokens.Issued, typ, providerToken, providerRefresh string) string {
	var b strings.Builder
	b.WriteString(stripFragment(redirect))
	b.WriteString("#access_token=" + url.QueryEscape(s.AccessToken))
	b.WriteString("&expires_at=" + strconv.FormatInt(s.ExpiresAt, 10))
	b.WriteString("&expires_in=" + strconv.FormatInt(s.ExpiresIn, 10))
	if providerToken != "" {
		b.WriteString("&provider_token=" + url.QueryEscape(providerToken))
	}
	if providerRefresh != "" {
		b.WriteString("&provider_refresh_token=" + url.QueryEscape(providerRefresh))
	}
	b.WriteString("&refresh_token=" + url.QueryEscape(s.RefreshToken))
	b.WriteString("&token_type=bearer")
	if typ != "" {
		b.WriteString("&type=" + url.QueryEscape(typ))
	}
	b.WriteString("&sb=")
	return b.String()
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

func withFragment(redirect string, v url.Values) string {
	return stripFragment(redirect) + "#" + v.Encode() + "&sb="
}

func withQuery(redirect, k, v string) string {
	base := stripFragment(redirect)
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + url.QueryEscape(k) + "=" + url.QueryEscape(v)
}

// redirectError sends the browser to redirect#error=…&error_code=…&error_description=….
func redirectError(c fiber.Ctx, redirect, errName, code, desc string) error {
	target := stripFragment(redirect) + "#error=" + url.QueryEscape(errName) + "&error_code=" + url.QueryEscape(code) +
		"&error_description=" + url.QueryEscape(desc) + "&sb="
	return c.Redirect().Status(fiber.StatusSeeOther).To(target)
}

type verifyParams struct {
	Type       string `json:"type"`
	Token      string `json:"token"`
	TokenHash  string `json:"token_hash"`
	Email      string `json:"email"`
	Phone      string `json:"phone"`
	RedirectTo string `json:"redirect_to"`
}

// verifyPost is POST /verify: a code (with its email or phone) or a
// token_hash; 200 Session.
func (a *API) verifyPost(c fiber.Ctx) error {
	var p verifyParams
	if err := bind(c, &p); err != nil {
		return err
	}
	kind, ok := verifyKinds[p.Type]
	if !ok {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Verify requires a verification type")
	}
	hash := strings.TrimPrefix(p.TokenHash, pkcePrefix)
	if hash == "" {
		if p.Token == "" {
			return apierr.BadRequest(apierr.CodeValidationFailed, "Verify requires either a token or a token hash")
		}
		var addr string
		if kind.phone {
			phone, err := validatePhone(p.Phone)
			if err != nil {
				return err
			}
			addr = phone
			if p.Type == "phone_change" {
				addr = phone
			}
		} else {
			email, err := validateEmail(p.Email)
			if err != nil {
				return err
			}
			addr = email
		}
		hash = crypto.TokenHash(addr, strings.TrimSpace(p.Token))
	}
	ctx := c.Context()
	out, err := a.verifyCode(ctx, p.Type, hash, false, a.client(c))
	if err != nil {
		return err
	}
	if out.message != "" {
		return c.JSON(fiber.Map{"msg": out.message, "code": 200})
	}
	s, err := a.renderSession(ctx, a.store.Q, out.session)
	if err != nil {
		return apierr.Internal(err)
	}
	return c.JSON(s)
}

var _ = time.Second
