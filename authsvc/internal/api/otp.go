package api

import (
	"context"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

type otpParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	CreateUser          *bool          `json:"create_user"`
	Data                map[string]any `json:"data"`
	Channel             string         `json:"channel"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// otp is POST /otp (and /magiclink): a magic link and code by email, or a
// code by SMS; new users are created unless create_user is false.
func (a *API) otp(c fiber.Ctx) error {
	var p otpParams
	if err := bind(c, &p); err != nil {
		return err
	}
	pkce, err := pkceParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	create := p.CreateUser == nil || *p.CreateUser
	redirect := a.redirectURL(strings.Clone(c.Query("redirect_to")))
	ctx := c.Context()
	switch {
	case p.Email != "" && p.Phone != "":
		return apierr.BadRequest(apierr.CodeValidationFailed, "Only an email address or phone number should be provided")
	case p.Email != "":
		if !a.cfg.Auth.EmailEnabled {
			return apierr.Unprocessable(apierr.CodeEmailProviderDisabled, "Email logins are disabled")
		}
		email, err := validateEmail(p.Email)
		if err != nil {
			return err
		}
		err = a.tx(ctx, func(q *store.Q) error { return a.emailOTP(ctx, q, email, p, create, redirect, pkce) })
		if err != nil {
			return err
		}
	case p.Phone != "":
		if !a.cfg.Auth.PhoneEnabled {
			return apierr.Unprocessable(apierr.CodePhoneProviderDisabled, "Unsupported phone provider")
		}
		phone, err := validatePhone(p.Phone)
		if err != nil {
			return err
		}
		err = a.tx(ctx, func(q *store.Q) error { return a.phoneOTP(ctx, q, phone, p, create) })
		if err != nil {
			return err
		}
	default:
		return apierr.BadRequest(apierr.CodeValidationFailed, "An email address or phone number is required")
	}
	return c.JSON(fiber.Map{})
}

func (a *API) emailOTP(ctx context.Context, q *store.Q, email string, p otpParams, create bool, redirect string, pkce bool) error {
	u, err := q.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		if !create {
			return apierr.Unprocessable(apierr.CodeOTPDisabled, "Signups not allowed for otp")
		}
		if a.cfg.Auth.DisableSignup {
			return apierr.Unprocessable(apierr.CodeSignupDisabled, "Signups not allowed for this instance")
		}
		u = a.newUser(email, "", "email", p.Data)
		if err := q.CreateUser(ctx, u); err != nil {
			return err
		}
		if err := a.createIdentity(ctx, q, u, "email"); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if u.EmailConfirmedAt == nil {
		if err := a.checkFrequency(u.ConfirmationSentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
			return err
		}
		if pkce {
			if _, err := a.createFlowState(ctx, q, u.ID, "email", tokens.MethodEmailSignup, p.CodeChallenge, p.CodeChallengeMethod); err != nil {
				return err
			}
		}
		if err := a.sendConfirmation(ctx, q, u, email, redirect, pkce, a.now()); err != nil {
			return err
		}
		return q.SaveUser(ctx, u, a.now())
	}
	if err := a.checkFrequency(u.RecoverySentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
		return err
	}
	if pkce {
		if _, err := a.createFlowState(ctx, q, u.ID, "email", tokens.MethodMagicLink, p.CodeChallenge, p.CodeChallengeMethod); err != nil {
			return err
		}
	}
	if err := a.sendCodeMail(ctx, q, u, otpMail{kind: "magic_link", ottType: store.OTTRecovery, verifyType: "magiclink",
		address: email, redirectTo: redirect, pkce: pkce}); err != nil {
		return err
	}
	u.RecoverySentAt = ptr(a.now())
	return q.SaveUser(ctx, u, a.now())
}

func (a *API) phoneOTP(ctx context.Context, q *store.Q, phone string, p otpParams, create bool) error {
	u, err := q.UserByPhone(ctx, phone)
	if errors.Is(err, store.ErrNotFound) {
		if !create {
			return apierr.Unprocessable(apierr.CodeOTPDisabled, "Signups not allowed for otp")
		}
		if a.cfg.Auth.DisableSignup {
			return apierr.Unprocessable(apierr.CodeSignupDisabled, "Signups not allowed for this instance")
		}
		u = a.newUser("", phone, "phone", p.Data)
		if err := q.CreateUser(ctx, u); err != nil {
			return err
		}
		if err := a.createIdentity(ctx, q, u, "phone"); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	typ, sent := store.OTTRecovery, &u.RecoverySentAt
	if u.PhoneConfirmedAt == nil {
		typ, sent = store.OTTConfirmation, &u.ConfirmationSentAt
	}
	if err := a.checkFrequency(*sent, a.cfg.Auth.SMS.MaxFrequency); err != nil {
		return apierr.TooManyRequests(apierr.CodeOverSMSSendRateLimit, "%s", err.(*apierr.Error).Message)
	}
	if err := a.sendCodeSMS(ctx, q, u, typ, phone, p.Channel); err != nil {
		return err
	}
	*sent = ptr(a.now())
	return q.SaveUser(ctx, u, a.now())
}

type recoverParams struct {
	Email               string `json:"email"`
	CodeChallenge       string `json:"code_challenge"`
	CodeChallengeMethod string `json:"code_challenge_method"`
}

// recover is POST /recover: a password-recovery mail; 200 {} whether or not
// the address is known.
func (a *API) recover(c fiber.Ctx) error {
	var p recoverParams
	if err := bind(c, &p); err != nil {
		return err
	}
	email, err := validateEmail(p.Email)
	if err != nil {
		return err
	}
	pkce, err := pkceParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	redirect := a.redirectURL(strings.Clone(c.Query("redirect_to")))
	ctx := c.Context()
	var recovered *store.User
	err = a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByEmail(ctx, email)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if err := a.checkFrequency(u.RecoverySentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
			return err
		}
		if pkce {
			if _, err := a.createFlowState(ctx, q, u.ID, "email", tokens.MethodRecovery, p.CodeChallenge, p.CodeChallengeMethod); err != nil {
				return err
			}
		}
		if err := a.sendCodeMail(ctx, q, u, otpMail{kind: "recovery", ottType: store.OTTRecovery, verifyType: "recovery",
			address: email, redirectTo: redirect, pkce: pkce}); err != nil {
			return err
		}
		recovered = u
		u.RecoverySentAt = ptr(a.now())
		return q.SaveUser(ctx, u, a.now())
	})
	if err != nil {
		return err
	}
	if recovered != nil {
		a.audit(ctx, a.store.Q, recovered, auditRecoveryRequested, "user", clientIP(c), nil)
	}
	return c.JSON(fiber.Map{})
}

type resendParams struct {
	Type  string `json:"type"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// resend is POST /resend: the signup or email-change mail, or the sms or
// phone-change code, again.
func (a *API) resend(c fiber.Ctx) error {
	var p resendParams
	if err := bind(c, &p); err != nil {
		return err
	}
	redirect := a.redirectURL(strings.Clone(c.Query("redirect_to")))
	ctx := c.Context()
	var err error
	switch p.Type {
	case "signup", "email_change":
		email, verr := validateEmail(p.Email)
		if verr != nil {
			return verr
		}
		err = a.tx(ctx, func(q *store.Q) error {
			u, err := q.UserByEmail(ctx, email)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			} else if err != nil {
				return err
			}
			if p.Type == "signup" {
				if u.EmailConfirmedAt != nil {
					return nil
				}
				if err := a.checkFrequency(u.ConfirmationSentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
					return err
				}
				if err := a.sendConfirmation(ctx, q, u, email, redirect, false, a.now()); err != nil {
					return err
				}
				return q.SaveUser(ctx, u, a.now())
			}
			if u.EmailChange == "" {
				return nil
			}
			u.EmailChangeSentAt = nil
			pending := u.EmailChange
			if err := a.changeEmail(ctx, q, u, pending, redirect, false, "", ""); err != nil {
				return err
			}
			return q.SaveUser(ctx, u, a.now())
		})
	case "sms", "phone_change":
		phone, verr := validatePhone(p.Phone)
		if verr != nil {
			return verr
		}
		err = a.tx(ctx, func(q *store.Q) error {
			if p.Type == "sms" {
				u, err := q.UserByPhone(ctx, phone)
				if errors.Is(err, store.ErrNotFound) {
					return nil
				} else if err != nil {
					return err
				}
				if u.PhoneConfirmedAt != nil {
					return nil
				}
				if err := a.checkFrequency(u.ConfirmationSentAt, a.cfg.Auth.SMS.MaxFrequency); err != nil {
					return apierr.TooManyRequests(apierr.CodeOverSMSSendRateLimit, "%s", err.(*apierr.Error).Message)
				}
				if err := a.sendCodeSMS(ctx, q, u, store.OTTConfirmation, phone, "sms"); err != nil {
					return err
				}
				u.ConfirmationSentAt = ptr(a.now())
				return q.SaveUser(ctx, u, a.now())
			}
			cl, err := a.requireUser(c)
			if err != nil {
				return err
			}
			u := cl.user
			if u.PhoneChange != phone {
				return nil
			}
			u.PhoneChange, u.PhoneChangeSentAt = "", nil
			if err := a.changePhone(ctx, q, u, phone, "sms"); err != nil {
				return err
			}
			return q.SaveUser(ctx, u, a.now())
		})
	default:
		return apierr.BadRequest(apierr.CodeValidationFailed, "Missing one of these types: signup, email_change, sms, phone_change")
	}
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{})
}
