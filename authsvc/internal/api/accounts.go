package api

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/mailer"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// validateEmail normalises an address (trimmed, lower-case) or answers
// GoTrue's 400.
func validateEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return "", apierr.BadRequest(apierr.CodeValidationFailed, "An email address is required")
	}
	if len(email) > 255 {
		return "", apierr.BadRequest(apierr.CodeValidationFailed, "An email address is too long")
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		return "", apierr.BadRequest(apierr.CodeEmailAddressInvalid, "Unable to validate email address: invalid format")
	}
	return email, nil
}

var phoneRE = regexp.MustCompile(`^[1-9][0-9]{7,14}$`)

// validatePhone normalises a phone number to E.164 digits without "+".
func validatePhone(phone string) (string, error) {
	p := strings.NewReplacer(" ", "", "-", "", "(", "", ")", "").Replace(strings.TrimSpace(phone))
	p = strings.TrimPrefix(p, "+")
	if !phoneRE.MatchString(p) {
		return "", apierr.BadRequest(apierr.CodeValidationFailed, "Invalid phone number format (E.164 required)")
	}
	return p, nil
}

// checkPassword enforces the length rules: at most 72 bytes (bcrypt's
// limit, never truncated), at least GOTRUE_PASSWORD_MIN_LENGTH characters.
func (a *API) checkPassword(ctx context.Context, pw string) error {
	if len(pw) > crypto.MaxPasswordBytes {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Password cannot be longer than %d characters", crypto.MaxPasswordBytes)
	}
	if n := a.cfg.Auth.PasswordMinLength; len([]rune(pw)) < n {
		e := apierr.Unprocessable(apierr.CodeWeakPassword, "Password should be at least %d characters.", n)
		e.WeakPasswordReasons = []string{"length"}
		return e
	}
	if a.pwned != nil {
		pwned, err := a.pwned.Pwned(ctx, pw)
		if err != nil {
			a.log.WarnContext(ctx, "leaked-password check failed", "error", err.Error())
			if a.cfg.Auth.HIBPFailClosed {
				return apierr.Internal(err)
			}
		}
		if pwned {
			e := apierr.Unprocessable(apierr.CodeWeakPassword, "Password is known to be weak and easy to guess, please choose a different one.")
			e.WeakPasswordReasons = []string{"pwned"}
			return e
		}
	}
	return nil
}

func (a *API) hashPassword(pw string) (string, error) {
	h, err := crypto.HashPassword(pw, a.cfg.Auth.PasswordHashCost)
	if err != nil {
		return "", apierr.Internal(err)
	}
	return h, nil
}

// newUser builds an unsaved user with an identity-shaped user_metadata.
func (a *API) newUser(email, phone, provider string, data map[string]any) *store.User {
	now := a.now()
	id := uuid.NewString()
	meta := map[string]any{}
	for k, v := range data {
		if v != nil {
			meta[k] = v
		}
	}
	u := &store.User{ID: id, Aud: a.cfg.Auth.JWTAud, Role: "authenticated", Email: email, Phone: phone, CreatedAt: now, UpdatedAt: now,
		AppMetaData: map[string]any{"provider": provider, "providers": []any{provider}}, UserMetaData: meta}
	if provider != "" {
		meta["sub"] = id
		if email != "" {
			meta["email"] = email
		}
		meta["email_verified"] = false
		meta["phone_verified"] = false
	}
	return u
}

// verifyLink is the /verify link of a mail or generate_link, with GoTrue's
// parameter order (mailer getPath): token, type, redirect_to. As there,
// redirect_to is escaped only when it holds "&", "=" or "#"
// (encodeRedirectURL).
func (a *API) verifyLink(token, verifyType, redirectTo string) string {
	if strings.ContainsAny(redirectTo, "&=#") {
		redirectTo = url.QueryEscape(redirectTo)
	}
	return a.issuer() + "/verify?token=" + url.QueryEscape(token) + "&type=" + url.QueryEscape(verifyType) + "&redirect_to=" + redirectTo
}

// identityFor creates the user's email or phone identity.
func (a *API) createIdentity(ctx context.Context, q *store.Q, u *store.User, provider string) error {
	data := map[string]any{"sub": u.ID, "email_verified": u.EmailConfirmedAt != nil, "phone_verified": u.PhoneConfirmedAt != nil}
	if u.Email != "" {
		data["email"] = u.Email
	}
	if u.Phone != "" {
		data["phone"] = u.Phone
	}
	return q.CreateIdentity(ctx, &store.Identity{ProviderID: u.ID, UserID: u.ID, IdentityData: data, Provider: provider, CreatedAt: a.now()})
}

// markVerified records a confirmed email or phone in the user's identities
// and user_metadata.
func (a *API) markVerified(ctx context.Context, q *store.Q, u *store.User, field string) error {
	now := a.now()
	if _, ok := u.UserMetaData["sub"]; ok {
		u.UserMetaData[field] = true
	}
	ids, err := q.IdentitiesByUser(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, i := range ids {
		if i.Provider == "email" || i.Provider == "phone" {
			i.IdentityData[field] = true
			if err := q.UpdateIdentity(ctx, i, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// redirectURL returns redirect if it is the site URL's origin or matches
// GOTRUE_URI_ALLOW_LIST (glob, ** across slashes), else the site URL.
func (a *API) redirectURL(redirect string) string {
	site := a.cfg.SiteURL
	if redirect == "" {
		return site
	}
	ru, err := url.Parse(redirect)
	if err != nil || ru.Scheme == "" || ru.Host == "" {
		return site
	}
	su, _ := url.Parse(site)
	if su != nil && strings.EqualFold(su.Scheme, ru.Scheme) && strings.EqualFold(su.Host, ru.Host) {
		return redirect
	}
	for _, pat := range a.cfg.Auth.URIAllowList {
		if pat == redirect || globMatch(pat, redirect) {
			return redirect
		}
	}
	return site
}

func globMatch(pat, s string) bool {
	if !strings.Contains(pat, "*") {
		return strings.TrimRight(pat, "/") == strings.TrimRight(s, "/")
	}
	re := "^" + strings.ReplaceAll(strings.ReplaceAll(regexp.QuoteMeta(pat), `\*\*`, ".*"), `\*`, "[^/]*") + "$"
	ok, _ := regexp.MatchString(re, s)
	if !ok {
		ok, _ = path.Match(pat, s)
	}
	return ok
}

// otpMail is one mail carrying a code.
type otpMail struct {
	kind       string // mailer kind
	ottType    string // one_time_tokens type
	verifyType string // /verify?type=
	address    string // where it goes (and what the hash binds)
	redirectTo string
	pkce       bool
	newEmail   string
}

// errMailFrequency builds GoTrue's max-frequency 429.
func errMailFrequency(wait time.Duration) error {
	return apierr.TooManyRequests(apierr.CodeOverEmailSendRateLimit, "For security purposes, you can only request this after %d seconds.", int(wait.Seconds()+0.999))
}

// checkFrequency refuses a new code within GOTRUE_SMTP_MAX_FREQUENCY of the
// previous one.
func (a *API) checkFrequency(sentAt *time.Time, every time.Duration) error {
	if sentAt == nil || every <= 0 {
		return nil
	}
	if next := sentAt.Add(every); a.now().Before(next) {
		return errMailFrequency(next.Sub(a.now()))
	}
	return nil
}

// sendConfirmation mails u the sign-up confirmation (a code, and a link
// that returns to redirect) at address and records when it was sent; the
// caller saves u.
func (a *API) sendConfirmation(ctx context.Context, q *store.Q, u *store.User, address, redirect string, pkce bool, now time.Time) error {
	err := a.sendCodeMail(ctx, q, u, otpMail{kind: "confirmation", ottType: store.OTTConfirmation, verifyType: "signup",
		address: address, redirectTo: redirect, pkce: pkce})
	if err != nil {
		return err
	}
	u.ConfirmationSentAt = ptr(now)
	return nil
}

// sendCodeMail creates the code, stores its hash and mails it with the
// link. The caller saves u's *_sent_at afterwards.
func (a *API) sendCodeMail(ctx context.Context, q *store.Q, u *store.User, m otpMail) error {
	if err := allow(ctx, a.limits.email, m.address, apierr.TooManyRequests(apierr.CodeOverEmailSendRateLimit, "Email rate limit exceeded")); err != nil {
		return err
	}
	otp := crypto.OTP(a.cfg.Auth.MailerOTPLength)
	hash := crypto.TokenHash(m.address, otp)
	if err := q.SetOneTimeToken(ctx, &store.OneTimeToken{UserID: u.ID, Type: m.ottType, TokenHash: hash, RelatesTo: m.address, CreatedAt: a.now()}); err != nil {
		return apierr.Internal(err)
	}
	d := mailer.Data{SiteURL: a.cfg.SiteURL, Token: otp, TokenHash: hash, Email: u.Email, NewEmail: m.newEmail, RedirectTo: m.redirectTo}
	if m.verifyType != "" {
		tok := hash
		if m.pkce {
			tok = pkcePrefix + hash
		}
		d.ConfirmationURL = a.verifyLink(tok, m.verifyType, m.redirectTo)
	}
	msg, err := mailer.Render(m.kind, m.address, d)
	if err != nil {
		return apierr.Internal(err)
	}
	if err := a.mail.Send(ctx, msg); err != nil {
		return apierr.Internal(fmt.Errorf("send %s mail: %w", m.kind, err))
	}
	return nil
}

// pkcePrefix marks a link token whose verification answers with ?code=.
const pkcePrefix = "pkce_"

// errSMSRateLimited is GoTrue's answer once a number has had its texts.
func errSMSRateLimited() error {
	return apierr.TooManyRequests(apierr.CodeOverSMSSendRateLimit, "SMS rate limit exceeded")
}

// sendCodeSMS creates a phone code, stores its hash and texts it.
func (a *API) sendCodeSMS(ctx context.Context, q *store.Q, u *store.User, ottType, phone, channel string) error {
	if err := allow(ctx, a.limits.sms, phone, errSMSRateLimited()); err != nil {
		return err
	}
	otp := crypto.OTP(a.cfg.Auth.SMS.OTPLength)
	if err := q.SetOneTimeToken(ctx, &store.OneTimeToken{UserID: u.ID, Type: ottType, TokenHash: crypto.TokenHash(phone, otp), RelatesTo: phone, CreatedAt: a.now()}); err != nil {
		return apierr.Internal(err)
	}
	text := strings.ReplaceAll(a.cfg.Auth.SMS.Template, "{{ .Code }}", otp)
	if channel == "" {
		channel = "sms"
	}
	if err := a.sms.Send(ctx, phone, text, channel); err != nil {
		return apierr.New(500, apierr.CodeSMSSendFailed, "Error sending %s OTP to provider: %v", channel, "provider error")
	}
	return nil
}

// storeErr maps store errors for a handler.
func storeErr(err error) error {
	if err == nil {
		return nil
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return err
	}
	return apierr.Internal(err)
}

// tx runs fn in a transaction, mapping unexpected errors.
func (a *API) tx(ctx context.Context, fn func(q *store.Q) error) error {
	return storeErr(a.store.Tx(ctx, fn))
}
