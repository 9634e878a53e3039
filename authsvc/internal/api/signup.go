package api

import (
	"context"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

type signupParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	Password            string         `json:"password"`
	Data                map[string]any `json:"data"`
	Channel             string         `json:"channel"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// pkceParams checks that a PKCE challenge comes whole.
func pkceParams(challenge, method string) (bool, error) {
	if challenge == "" && method == "" {
		return false, nil
	}
	if challenge == "" || method == "" {
		return false, apierr.BadRequest(apierr.CodeValidationFailed, "PKCE flow requires code_challenge_method and code_challenge")
	}
	m := strings.ToLower(method)
	if m != "s256" && m != "plain" {
		return false, apierr.BadRequest(apierr.CodeValidationFailed, "code challenge method not supported")
	}
	if len(challenge) < 43 || len(challenge) > 128 {
		return false, apierr.BadRequest(apierr.CodeValidationFailed, "code challenge has to be between 43 and 128 characters")
	}
	return true, nil
}

// createFlowState records a PKCE flow for a user and method.
func (a *API) createFlowState(ctx context.Context, q *store.Q, userID, provider, method, challenge, challengeMethod string) (*store.FlowState, error) {
	f := &store.FlowState{ID: uuid.NewString(), UserID: userID, AuthCode: uuid.NewString(), CodeChallengeMethod: strings.ToLower(challengeMethod),
		CodeChallenge: challenge, ProviderType: provider, AuthenticationMethod: method, CreatedAt: a.now()}
	return f, q.CreateFlowState(ctx, f)
}

// signup is POST /signup: email or phone sign-up, or an anonymous sign-in
// when neither is given.
func (a *API) signup(c fiber.Ctx) error {
	var p signupParams
	if err := bind(c, &p); err != nil {
		return err
	}
	if a.cfg.Auth.DisableSignup {
		return apierr.Unprocessable(apierr.CodeSignupDisabled, "Signups not allowed for this instance")
	}
	if p.Email == "" && p.Phone == "" {
		return a.signupAnonymous(c, p)
	}
	if p.Password == "" {
		return apierr.Unprocessable(apierr.CodeValidationFailed, "Signup requires a valid password")
	}
	if err := a.checkPassword(c.Context(), p.Password); err != nil {
		return err
	}
	pkce, err := pkceParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	redirect := a.redirectURL(strings.Clone(c.Query("redirect_to")))
	if p.Email != "" {
		if !a.cfg.Auth.EmailEnabled {
			return apierr.Unprocessable(apierr.CodeEmailProviderDisabled, "Email signups are disabled")
		}
		email, err := validateEmail(p.Email)
		if err != nil {
			return err
		}
		return a.signupEmail(c, email, p, redirect, pkce)
	}
	if !a.cfg.Auth.PhoneEnabled {
		return apierr.Unprocessable(apierr.CodePhoneProviderDisabled, "Phone signups are disabled")
	}
	phone, err := validatePhone(p.Phone)
	if err != nil {
		return err
	}
	return a.signupPhone(c, phone, p)
}

func (a *API) signupEmail(c fiber.Ctx, email string, p signupParams, redirect string, pkce bool) error {
	ctx := c.Context()
	autoconfirm := a.cfg.Auth.MailerAutoconfirm
	var out any
	var created *store.User
	err := a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByEmail(ctx, email)
		switch {
		case err == nil && u.EmailConfirmedAt != nil:
			if autoconfirm {
				return apierr.Unprocessable(apierr.CodeUserAlreadyExists, "User already registered")
			}
			// Do not reveal that the address is taken: an obfuscated user.
			fake := a.newUser(email, "", "email", p.Data)
			fake.ConfirmationSentAt = ptr(a.now())
			out, err = a.renderUser(ctx, q, fake)
			return err
		case err == nil:
			// Unconfirmed: send the confirmation again with the new password.
			if err := a.checkFrequency(u.ConfirmationSentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
				return err
			}
		case errors.Is(err, store.ErrNotFound):
			u = a.newUser(email, "", "email", p.Data)
			if autoconfirm {
				u.EmailConfirmedAt = ptr(a.now())
				u.UserMetaData["email_verified"] = true
			}
			if err := q.CreateUser(ctx, u); err != nil {
				return err
			}
			created = u
			if err := a.createIdentity(ctx, q, u, "email"); err != nil {
				return err
			}
		default:
			return err
		}
		hash, err := a.hashPassword(p.Password)
		if err != nil {
			return err
		}
		u.EncryptedPassword = hash
		if autoconfirm {
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
		}
		if pkce {
			if _, err := a.createFlowState(ctx, q, u.ID, "email", tokens.MethodEmailSignup, p.CodeChallenge, p.CodeChallengeMethod); err != nil {
				return err
			}
		}
		if err := a.sendConfirmation(ctx, q, u, email, redirect, pkce, a.now()); err != nil {
			return err
		}
		if err := q.SaveUser(ctx, u, a.now()); err != nil {
			return err
		}
		out, err = a.renderUser(ctx, q, u)
		return err
	})
	if err != nil {
		return err
	}
	if created != nil {
		a.audit(ctx, a.store.Q, created, auditSignup, "team", clientIP(c), map[string]any{"provider": "email"})
	}
	return c.JSON(out)
}

func (a *API) signupPhone(c fiber.Ctx, phone string, p signupParams) error {
	ctx := c.Context()
	autoconfirm := a.cfg.Auth.SMS.Autoconfirm
	var out any
	err := a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByPhone(ctx, phone)
		switch {
		case err == nil && u.PhoneConfirmedAt != nil:
			return apierr.Unprocessable(apierr.CodeUserAlreadyExists, "User already registered")
		case err == nil:
			if err := a.checkFrequency(u.ConfirmationSentAt, a.cfg.Auth.SMS.MaxFrequency); err != nil {
				return apierr.TooManyRequests(apierr.CodeOverSMSSendRateLimit, "%s", err.(*apierr.Error).Message)
			}
		case errors.Is(err, store.ErrNotFound):
			u = a.newUser("", phone, "phone", p.Data)
			if autoconfirm {
				u.PhoneConfirmedAt = ptr(a.now())
				u.UserMetaData["phone_verified"] = true
			}
			if err := q.CreateUser(ctx, u); err != nil {
				return err
			}
			if err := a.createIdentity(ctx, q, u, "phone"); err != nil {
				return err
			}
		default:
			return err
		}
		hash, err := a.hashPassword(p.Password)
		if err != nil {
			return err
		}
		u.EncryptedPassword = hash
		if autoconfirm {
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
		}
		if err := a.sendCodeSMS(ctx, q, u, store.OTTConfirmation, phone, p.Channel); err != nil {
			return err
		}
		u.ConfirmationSentAt = ptr(a.now())
		if err := q.SaveUser(ctx, u, a.now()); err != nil {
			return err
		}
		out, err = a.renderUser(ctx, q, u)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (a *API) signupAnonymous(c fiber.Ctx, p signupParams) error {
	if !a.cfg.Auth.AnonymousEnabled {
		return apierr.Unprocessable(apierr.CodeAnonymousProviderDisabled, "Anonymous sign-ins are disabled")
	}
	ctx := c.Context()
	if err := allow(ctx, a.limits.anonymous, clientIP(c), errRateLimited()); err != nil {
		return err
	}
	var out any
	err := a.tx(ctx, func(q *store.Q) error {
		u := a.newUser("", "", "", p.Data)
		u.AppMetaData = map[string]any{}
		u.IsAnonymous = true
		u.LastSignInAt = ptr(a.now())
		if err := q.CreateUser(ctx, u); err != nil {
			return err
		}
		s, err := a.tokens.IssueSession(ctx, q, u, tokens.MethodAnonymous, a.client(c))
		if err != nil {
			return err
		}
		out, err = a.renderSession(ctx, q, s)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func ptr[T any](v T) *T { return &v }
