package api

import (
	"context"
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

func itoa(n int) string { return strconv.Itoa(n) }

// getUser is GET /user.
func (a *API) getUser(c fiber.Ctx) error {
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	out, err := a.renderUser(c.Context(), a.store.Q, cl.user)
	if err != nil {
		return apierr.Internal(err)
	}
	return c.JSON(out)
}

type updateUserParams struct {
	Email               *string        `json:"email"`
	Phone               *string        `json:"phone"`
	Password            *string        `json:"password"`
	Nonce               string         `json:"nonce"`
	CurrentPassword     string         `json:"current_password"`
	Data                map[string]any `json:"data"`
	Channel             string         `json:"channel"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// mergeMetadata merges data into meta key by key; a null deletes the key.
func mergeMetadata(meta, data map[string]any) map[string]any {
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range data {
		if v == nil {
			delete(meta, k)
		} else {
			meta[k] = v
		}
	}
	return meta
}

// updateUser is PUT /user: metadata merge, password change, email and
// phone change with confirmation.
func (a *API) updateUser(c fiber.Ctx) error {
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	var p updateUserParams
	if err := bind(c, &p); err != nil {
		return err
	}
	pkce, err := pkceParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	redirect := a.redirectURL(c.Query("redirect_to"))
	ctx := c.Context()
	var out *userJSON
	err = a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByIDForUpdate(ctx, cl.user.ID)
		if err != nil {
			return err
		}
		now := a.now()
		if p.Data != nil {
			u.UserMetaData = mergeMetadata(u.UserMetaData, p.Data)
		}
		if p.Password != nil {
			if err := a.changePassword(ctx, q, cl, u, *p.Password, p.Nonce, p.CurrentPassword); err != nil {
				return err
			}
		}
		if p.Email != nil && *p.Email != "" {
			if err := a.changeEmail(ctx, q, u, *p.Email, redirect, pkce, p.CodeChallenge, p.CodeChallengeMethod); err != nil {
				return err
			}
		}
		if p.Phone != nil && *p.Phone != "" {
			if err := a.changePhone(ctx, q, u, *p.Phone, p.Channel); err != nil {
				return err
			}
		}
		if err := q.SaveUser(ctx, u, now); err != nil {
			return err
		}
		out, err = a.renderUser(ctx, q, u)
		return err
	})
	if err != nil {
		return err
	}
	if p.Password != nil {
		a.audit(ctx, a.store.Q, cl.user, auditPasswordUpdated, "user", clientIP(c), nil)
	} else {
		a.audit(ctx, a.store.Q, cl.user, auditUserModified, "user", clientIP(c), nil)
	}
	return c.JSON(out)
}

func (a *API) changePassword(ctx context.Context, q *store.Q, cl *caller, u *store.User, pw, nonce, current string) error {
	if err := a.checkPassword(ctx, pw); err != nil {
		return err
	}
	if u.EncryptedPassword != "" && crypto.CheckPassword(u.EncryptedPassword, pw) {
		return apierr.Unprocessable(apierr.CodeSamePassword, "New password should be different from the old password.")
	}
	if a.cfg.Auth.UpdatePasswordRequireReauth && cl.aal() != "aal2" {
		if nonce == "" {
			return apierr.BadRequest(apierr.CodeReauthenticationNeeded, "Password update requires reauthentication")
		}
		if err := a.verifyReauthNonce(ctx, q, u, nonce); err != nil {
			return err
		}
	}
	h, err := a.hashPassword(pw)
	if err != nil {
		return err
	}
	u.EncryptedPassword = h
	return nil
}

// verifyReauthNonce checks and consumes the code sent by GET /reauthenticate.
func (a *API) verifyReauthNonce(ctx context.Context, q *store.Q, u *store.User, nonce string) error {
	bad := apierr.BadRequest(apierr.CodeReauthenticationNotValid, "Requires reauthentication")
	t, err := q.OneTimeTokenOfUser(ctx, u.ID, store.OTTReauthentication)
	if errors.Is(err, store.ErrNotFound) {
		return bad
	} else if err != nil {
		return err
	}
	if a.now().After(t.CreatedAt.Add(a.cfg.Auth.MailerOTPExp)) || !crypto.Equal(t.TokenHash, crypto.TokenHash(t.RelatesTo, nonce)) {
		return bad
	}
	u.ReauthenticationToken, u.ReauthenticationSentAt = "", nil
	return q.DeleteOneTimeTokens(ctx, u.ID, store.OTTReauthentication)
}

func (a *API) changeEmail(ctx context.Context, q *store.Q, u *store.User, raw, redirect string, pkce bool, challenge, method string) error {
	email, err := validateEmail(raw)
	if err != nil {
		return err
	}
	if email == u.Email {
		return nil
	}
	if other, err := q.UserByEmail(ctx, email); err == nil && other.ID != u.ID {
		return apierr.Unprocessable(apierr.CodeEmailExists, "A user with this email address has already been registered")
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if a.cfg.Auth.MailerAutoconfirm {
		u.Email, u.EmailConfirmedAt = email, ptr(a.now())
		if err := a.updateEmailIdentity(ctx, q, u); err != nil {
			return err
		}
		return a.makePermanent(ctx, q, u)
	}
	if err := a.checkFrequency(u.EmailChangeSentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
		return err
	}
	if pkce {
		if _, err := a.createFlowState(ctx, q, u.ID, "email", "email_change", challenge, method); err != nil {
			return err
		}
	}
	if err := a.sendCodeMail(ctx, q, u, otpMail{kind: "email_change", ottType: store.OTTEmailChangeNew, verifyType: "email_change",
		address: email, redirectTo: redirect, pkce: pkce, newEmail: email}); err != nil {
		return err
	}
	u.EmailChangeConfirmStatus = 0
	if a.cfg.Auth.SecureEmailChange && u.Email != "" {
		if err := a.sendCodeMail(ctx, q, u, otpMail{kind: "email_change", ottType: store.OTTEmailChangeCurrent, verifyType: "email_change",
			address: u.Email, redirectTo: redirect, pkce: pkce, newEmail: email}); err != nil {
			return err
		}
	}
	u.EmailChange = email
	u.EmailChangeSentAt = ptr(a.now())
	return nil
}

func (a *API) changePhone(ctx context.Context, q *store.Q, u *store.User, raw, channel string) error {
	phone, err := validatePhone(raw)
	if err != nil {
		return err
	}
	if phone == u.Phone {
		return nil
	}
	if other, err := q.UserByPhone(ctx, phone); err == nil && other.ID != u.ID {
		return apierr.Unprocessable(apierr.CodePhoneExists, "A user with this phone number has already been registered")
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if a.cfg.Auth.SMS.Autoconfirm {
		u.Phone, u.PhoneConfirmedAt = phone, ptr(a.now())
		return nil
	}
	if err := a.checkFrequency(u.PhoneChangeSentAt, a.cfg.Auth.SMS.MaxFrequency); err != nil {
		return apierr.TooManyRequests(apierr.CodeOverSMSSendRateLimit, "%s", err.(*apierr.Error).Message)
	}
	if err := a.sendCodeSMS(ctx, q, u, store.OTTPhoneChange, phone, channel); err != nil {
		return err
	}
	u.PhoneChange = phone
	u.PhoneChangeSentAt = ptr(a.now())
	return nil
}

// reauthenticate is GET /reauthenticate: a code to the user's email (or
// phone) that PUT /user accepts as nonce.
func (a *API) reauthenticate(c fiber.Ctx) error {
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	ctx := c.Context()
	err = a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByIDForUpdate(ctx, cl.user.ID)
		if err != nil {
			return err
		}
		switch {
		case u.Email != "":
			if err := a.checkFrequency(u.ReauthenticationSentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
				return err
			}
			if err := a.sendCodeMail(ctx, q, u, otpMail{kind: "reauthentication", ottType: store.OTTReauthentication, address: u.Email}); err != nil {
				return err
			}
		case u.Phone != "":
			if err := a.sendCodeSMS(ctx, q, u, store.OTTReauthentication, u.Phone, "sms"); err != nil {
				return err
			}
		default:
			return apierr.Unprocessable(apierr.CodeValidationFailed, "Reauthentication requires the user to have an email or a phone number")
		}
		u.ReauthenticationSentAt = ptr(a.now())
		return q.SaveUser(ctx, u, a.now())
	})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{})
}

// logout is POST /logout?scope=global|local|others; 204.
func (a *API) logout(c fiber.Ctx) error {
	scope := c.Query("scope", "global")
	if scope != "global" && scope != "local" && scope != "others" {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Unsupported logout scope %q", scope)
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	ctx := c.Context()
	sid := ""
	if cl.session != nil {
		sid = cl.session.ID
	}
	switch scope {
	case "global":
		err = a.store.DeleteUserSessions(ctx, cl.user.ID, "")
	case "local":
		if sid != "" {
			err = a.store.DeleteSession(ctx, sid)
		}
	case "others":
		err = a.store.DeleteUserSessions(ctx, cl.user.ID, sid)
	}
	if err != nil {
		return apierr.Internal(err)
	}
	a.audit(ctx, a.store.Q, cl.user, auditLogout, "account", clientIP(c), nil)
	return c.SendStatus(fiber.StatusNoContent)
}
