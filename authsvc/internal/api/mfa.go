package api

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/boombuler/barcode/qr"
	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

type enrollParams struct {
	FactorType   string `json:"factor_type"`
	FriendlyName string `json:"friendly_name"`
	Issuer       string `json:"issuer"`
	Phone        string `json:"phone"`
}

// enrollFactor is POST /factors: a TOTP factor (secret, otpauth URI, SVG QR
// code) or a phone factor, unverified until its first verify.
func (a *API) enrollFactor(c fiber.Ctx) error {
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	var p enrollParams
	if err := bind(c, &p); err != nil {
		return err
	}
	mc := a.cfg.Auth.MFA
	switch p.FactorType {
	case "totp":
		if !mc.TOTPEnrollEnabled {
			return apierr.Unprocessable(apierr.CodeMFATOTPEnrollDisabled, "MFA enroll is disabled for TOTP")
		}
	case "phone":
		if !mc.PhoneEnrollEnabled {
			return apierr.Unprocessable(apierr.CodeMFAPhoneEnrollDisabled, "MFA enroll is disabled for Phone")
		}
	case "webauthn":
		if !mc.WebAuthnEnrollEnabled {
			return apierr.Unprocessable(apierr.CodeMFAWebAuthnEnrollDisabled, "MFA enroll is disabled for WebAuthn")
		}
	default:
		return apierr.BadRequest(apierr.CodeValidationFailed, "factor_type needs to be totp, phone, or webauthn")
	}
	ctx := c.Context()
	now := a.now()
	var out fiber.Map
	err = a.tx(ctx, func(q *store.Q) error {
		if err := q.DeleteUnverifiedFactors(ctx, cl.user.ID, "", now.Add(-mc.FactorExpiry)); err != nil {
			return err
		}
		factors, err := q.FactorsByUser(ctx, cl.user.ID)
		if err != nil {
			return err
		}
		verified := 0
		name := strings.TrimSpace(p.FriendlyName)
		for _, f := range factors {
			if f.Status == "verified" {
				verified++
			}
			if strings.TrimSpace(f.FriendlyName) == name {
				return apierr.Unprocessable(apierr.CodeMFAFactorNameConflict, "A factor with the friendly name %q for this user already exists", name)
			}
		}
		if len(factors) >= mc.MaxEnrolledFactors {
			return apierr.Unprocessable(apierr.CodeTooManyEnrolledMFAFactors, "Maximum number of verified factors reached, unenroll to continue")
		}
		if verified > 0 && cl.aal() != "aal2" {
			return apierr.Forbidden(apierr.CodeInsufficientAAL, "AAL2 required to enroll a new factor")
		}
		f := &store.Factor{ID: uuid.NewString(), UserID: cl.user.ID, FriendlyName: name, FactorType: p.FactorType, Status: "unverified", CreatedAt: now}
		if p.FactorType == "phone" {
			phone, err := validatePhone(p.Phone)
			if err != nil {
				return err
			}
			for _, g := range factors {
				if g.Phone == phone {
					return apierr.Unprocessable(apierr.CodePhoneExists, "Phone number already registered for this user")
				}
			}
			f.Phone = phone
			if err := q.CreateFactor(ctx, f); err != nil {
				return err
			}
			out = fiber.Map{"id": f.ID, "type": "phone", "friendly_name": f.FriendlyName, "phone": phone}
			return nil
		}
		if p.FactorType == "webauthn" {
			// The credential itself is created by the first challenge/verify.
			if err := q.CreateFactor(ctx, f); err != nil {
				return err
			}
			out = fiber.Map{"id": f.ID, "type": "webauthn", "friendly_name": f.FriendlyName}
			return nil
		}
		issuer := p.Issuer
		if issuer == "" {
			if su, err := url.Parse(a.cfg.SiteURL); err == nil {
				issuer = su.Hostname()
			}
		}
		account := cl.user.Email
		if account == "" {
			account = cl.user.Phone
		}
		if account == "" {
			account = cl.user.ID
		}
		key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account})
		if err != nil {
			return fmt.Errorf("generate totp: %w", err)
		}
		svg, err := qrSVG(key.URL())
		if err != nil {
			return err
		}
		f.Secret = key.Secret()
		if err := q.CreateFactor(ctx, f); err != nil {
			return err
		}
		out = fiber.Map{"id": f.ID, "type": "totp", "friendly_name": f.FriendlyName,
			"totp": fiber.Map{"qr_code": svg, "secret": key.Secret(), "uri": key.URL()}}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// qrSVG renders text as a QR code in raw SVG (what GoTrue returns).
func qrSVG(text string) (string, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return "", fmt.Errorf("qr encode: %w", err)
	}
	const quiet, scale = 4, 4
	b := code.Bounds()
	n := b.Dx()
	size := (n + 2*quiet) * scale
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, size, size, size, size)
	fmt.Fprintf(&sb, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, size, size)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			r, _, _, _ := code.At(b.Min.X+x, b.Min.Y+y).RGBA()
			if r == 0 {
				fmt.Fprintf(&sb, "M%d %dh%dv%dh-%dz", (x+quiet)*scale, (y+quiet)*scale, scale, scale, scale)
			}
		}
	}
	sb.WriteString(`"/></svg>`)
	return sb.String(), nil
}

// userFactor loads the :id factor of the caller or answers 404.
func (a *API) userFactor(c fiber.Ctx, q *store.Q, cl *caller) (*store.Factor, error) {
	id := c.Params("id")
	if _, err := uuid.Parse(id); err != nil {
		return nil, apierr.NotFound(apierr.CodeMFAFactorNotFound, "Factor not found")
	}
	f, err := q.FactorByID(c.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && f.UserID != cl.user.ID) {
		return nil, apierr.NotFound(apierr.CodeMFAFactorNotFound, "Factor not found")
	}
	return f, storeErr(err)
}

type challengeParams struct {
	Channel  string          `json:"channel"`
	WebAuthn *webAuthnParams `json:"webauthn"`
}

// challengeFactor is POST /factors/{id}/challenge; phone factors get the
// code by SMS.
func (a *API) challengeFactor(c fiber.Ctx) error {
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	var p challengeParams
	if err := bind(c, &p); err != nil {
		return err
	}
	ctx := c.Context()
	now := a.now()
	ip := clientIP(c)
	if ip == "" {
		ip = "0.0.0.0"
	}
	var out fiber.Map
	err = a.tx(ctx, func(q *store.Q) error {
		f, err := a.userFactor(c, q, cl)
		if err != nil {
			return err
		}
		ch := &store.Challenge{ID: uuid.NewString(), FactorID: f.ID, CreatedAt: now, IP: strings.Clone(ip)}
		var webAuthn fiber.Map
		var webAuthnState []byte
		if f.FactorType == "webauthn" {
			if !a.cfg.Auth.MFA.WebAuthnVerifyEnabled {
				return apierr.Unprocessable(apierr.CodeMFAWebAuthnVerifyDisabled, "MFA verification is disabled for WebAuthn")
			}
			if webAuthn, webAuthnState, err = a.beginWebAuthn(ctx, q, cl.user, f, p.WebAuthn); err != nil {
				return err
			}
		}
		if f.FactorType == "phone" {
			if !a.cfg.Auth.MFA.PhoneVerifyEnabled {
				return apierr.Unprocessable(apierr.CodeMFAPhoneVerifyDisabled, "MFA verification is disabled for Phone")
			}
			if f.LastChallengedAt != nil {
				if next := f.LastChallengedAt.Add(a.cfg.Auth.MFA.PhoneMaxFrequency); now.Before(next) {
					return apierr.TooManyRequests(apierr.CodeOverSMSSendRateLimit, "For security purposes, you can only request this after %d seconds.", int(next.Sub(now).Seconds()+0.999))
				}
			}
			if err := allow(ctx, a.limits.sms, f.Phone, errSMSRateLimited()); err != nil {
				return err
			}
			code := crypto.OTP(a.cfg.Auth.MFA.PhoneOTPLength)
			ch.OTPCode = crypto.TokenHash(ch.ID, code)
			channel := p.Channel
			if channel == "" {
				channel = "sms"
			}
			text := strings.ReplaceAll(a.cfg.Auth.SMS.Template, "{{ .Code }}", code)
			if err := a.sms.Send(ctx, f.Phone, text, channel); err != nil {
				return apierr.New(500, apierr.CodeSMSSendFailed, "Error sending %s OTP to provider", channel)
			}
		}
		if err := q.CreateChallenge(ctx, ch); err != nil {
			return err
		}
		if webAuthnState != nil {
			if err := q.SetChallengeWebAuthnSession(ctx, ch.ID, webAuthnState); err != nil {
				return err
			}
		}
		if err := q.TouchFactorChallenged(ctx, f.ID, now); err != nil {
			return err
		}
		out = fiber.Map{"id": ch.ID, "type": f.FactorType, "expires_at": now.Add(a.cfg.Auth.MFA.ChallengeExpiry).Unix()}
		if webAuthn != nil {
			out["webauthn"] = webAuthn
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

type verifyFactorParams struct {
	ChallengeID string          `json:"challenge_id"`
	Code        string          `json:"code"`
	WebAuthn    *webAuthnParams `json:"webauthn"`
}

// verifyFactor is POST /factors/{id}/verify: a correct code upgrades the
// session to aal2 (amr += totp or mfa/phone) and returns new tokens.
func (a *API) verifyFactor(c fiber.Ctx) error {
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	if cl.session == nil {
		return apierr.Forbidden(apierr.CodeSessionNotFound, "Session from session_id claim in JWT does not exist")
	}
	var p verifyFactorParams
	if err := bind(c, &p); err != nil {
		return err
	}
	ctx := c.Context()
	now := a.now()
	var out *sessionJSON
	failed := false
	err = a.tx(ctx, func(q *store.Q) error {
		f, err := a.userFactor(c, q, cl)
		if err != nil {
			return err
		}
		if f.FactorType == "totp" && !a.cfg.Auth.MFA.TOTPVerifyEnabled {
			return apierr.Unprocessable(apierr.CodeMFATOTPVerifyDisabled, "MFA verification is disabled for TOTP")
		}
		if f.FactorType == "webauthn" {
			if !a.cfg.Auth.MFA.WebAuthnVerifyEnabled {
				return apierr.Unprocessable(apierr.CodeMFAWebAuthnVerifyDisabled, "MFA verification is disabled for WebAuthn")
			}
			if err := checkWebAuthnParams(p.WebAuthn); err != nil {
				return err
			}
		}
		ch, err := q.ChallengeByID(ctx, p.ChallengeID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && ch.FactorID != f.ID) {
			return apierr.NotFound(apierr.CodeMFAFactorNotFound, "MFA factor with the provided challenge ID not found")
		} else if err != nil {
			return err
		}
		if ch.VerifiedAt != nil || now.After(ch.CreatedAt.Add(a.cfg.Auth.MFA.ChallengeExpiry)) {
			if err := q.DeleteChallenge(ctx, ch.ID); err != nil {
				return err
			}
			return apierr.Unprocessable(apierr.CodeMFAChallengeExpired, "MFA challenge %s has expired, verify against another challenge or create a new challenge.", ch.ID)
		}
		if ip := clientIP(c); ip != "" && ch.IP != "" && ch.IP != ip {
			return apierr.Unprocessable(apierr.CodeMFAIPAddressMismatch, "Challenge and verify IP addresses mismatch.")
		}
		method := tokens.MethodTOTP
		var ok bool
		switch f.FactorType {
		case "webauthn":
			// A refused response is an error of its own (GoTrue's message),
			// and nothing of the failed attempt is kept.
			method = methodWebAuthn
			if err := a.finishWebAuthn(ctx, q, cl.user, f, ch, p.WebAuthn); err != nil {
				return err
			}
			ok = true
		case "phone":
			method = tokens.MethodPhone
			ok = ch.OTPCode != "" && crypto.Equal(ch.OTPCode, crypto.TokenHash(ch.ID, strings.TrimSpace(p.Code)))
		default:
			ok, _ = totp.ValidateCustom(strings.TrimSpace(p.Code), f.Secret, now, totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		}
		if !ok {
			failed = true
			return nil
		}
		if used, err := q.VerifyChallenge(ctx, ch.ID, now); err != nil {
			return err
		} else if !used {
			return apierr.Unprocessable(apierr.CodeMFAChallengeExpired, "MFA challenge %s has expired, verify against another challenge or create a new challenge.", ch.ID)
		}
		if f.Status != "verified" {
			if err := q.SetFactorVerified(ctx, f.ID, now); err != nil {
				return err
			}
			if err := q.DeleteUnverifiedFactors(ctx, cl.user.ID, f.ID, timeZero); err != nil {
				return err
			}
		}
		if err := q.SetSessionAAL(ctx, cl.session.ID, "aal2", f.ID, now); err != nil {
			return err
		}
		if err := q.AddAMR(ctx, cl.session.ID, method, now); err != nil {
			return err
		}
		sess, err := q.SessionByID(ctx, cl.session.ID)
		if err != nil {
			return err
		}
		s, err := a.tokens.Reissue(ctx, q, cl.user, sess)
		if err != nil {
			return err
		}
		out, err = a.renderSession(ctx, q, s)
		return err
	})
	if err != nil {
		return err
	}
	if failed {
		msg := "Invalid TOTP code entered"
		if c.Params("id") != "" {
			if f, err := a.store.FactorByID(ctx, c.Params("id")); err == nil && f.FactorType == "phone" {
				msg = "Invalid MFA Phone code entered"
			}
		}
		return apierr.Unprocessable(apierr.CodeMFAVerificationFailed, "%s", msg)
	}
	return c.JSON(out)
}

// unenrollFactor is DELETE /factors/{id}: 200 {"id"}; a verified factor
// needs an aal2 session; the sessions it upgraded return to aal1.
func (a *API) unenrollFactor(c fiber.Ctx) error {
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	ctx := c.Context()
	var id string
	err = a.tx(ctx, func(q *store.Q) error {
		f, err := a.userFactor(c, q, cl)
		if err != nil {
			return err
		}
		if f.Status == "verified" && cl.aal() != "aal2" {
			return apierr.Unprocessable(apierr.CodeInsufficientAAL, "AAL2 required to unenroll verified factor")
		}
		if err := q.DowngradeFactorSessions(ctx, f.ID, a.now()); err != nil {
			return err
		}
		id = f.ID
		return q.DeleteFactor(ctx, f.ID)
	})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": id})
}
