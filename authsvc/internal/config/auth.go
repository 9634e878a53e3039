package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kejanest/kejanest/platform/envconf"
)

// Rate is a rate limit in supabase/auth's conf/rate.go syntax: "N/duration"
// ("10/1h", "30/5m"), or a bare number of events per the limit's default
// window. Events <= 0 disables the limit.
type Rate struct {
	Events   float64
	OverTime time.Duration
}

// ParseRate reads "N/duration" or "N" (events per def).
func ParseRate(s string, def time.Duration) (Rate, error) {
	s = strings.TrimSpace(s)
	num, per, found := strings.Cut(s, "/")
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil {
		return Rate{}, fmt.Errorf("%q: not a rate (N or N/duration)", s)
	}
	r := Rate{Events: n, OverTime: def}
	if found {
		d, err := time.ParseDuration(strings.TrimSpace(per))
		if err != nil || d <= 0 {
			return Rate{}, fmt.Errorf("%q: bad duration after /", s)
		}
		r.OverTime = d
	}
	return r, nil
}

// String writes the rate back in N/duration form.
func (r Rate) String() string {
	return strconv.FormatFloat(r.Events, 'f', -1, 64) + "/" + r.OverTime.String()
}

// RateLimits are GoTrue's GOTRUE_RATE_LIMIT_* settings.
type RateLimits struct {
	// EmailSent limits mails per recipient address (GOTRUE_RATE_LIMIT_EMAIL_SENT, default 30/1h).
	EmailSent Rate
	// SMSSent limits SMS per phone number (GOTRUE_RATE_LIMIT_SMS_SENT, default 30/1h).
	SMSSent Rate
	// TokenRefresh limits POST /token per IP (GOTRUE_RATE_LIMIT_TOKEN_REFRESH, default 150/5m).
	TokenRefresh Rate
	// Verify limits /verify per IP (GOTRUE_RATE_LIMIT_VERIFY, default 30/5m).
	Verify Rate
	// OTP limits /signup, /otp, /recover, /resend per IP (GOTRUE_RATE_LIMIT_OTP, default 30/5m).
	OTP Rate
	// MFA limits /factors/* challenge and verify per IP (GOTRUE_RATE_LIMIT_MFA, default 15/1m).
	MFA Rate
	// AnonymousUsers limits anonymous sign-ins per IP (GOTRUE_RATE_LIMIT_ANONYMOUS_USERS, default 30/1h).
	AnonymousUsers Rate
	// PasswordSignIn limits FAILED password sign-ins (POST
	// /token?grant_type=password) at one email or phone from one source
	// address (GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN, default 30/5m); a
	// successful sign-in from that source resets its count. KejaNest's
	// own, like PasswordSignInAccount: GoTrue limits that grant per IP
	// only.
	PasswordSignIn Rate
	// PasswordSignInAccount caps failed password sign-ins at one email or
	// phone from all sources together
	// (GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN_ACCOUNT, default 100/1h). Once
	// it is spent, a source that has failed at that account recently is
	// refused until the cap refills, while one that has not may still try
	// (see ratelimit.Failures), so many addresses taking turns cannot guess
	// without bound and cannot lock the owner out either.
	PasswordSignInAccount Rate
}

// VerificationOutbox drives the sender of contact-verification codes
// (app_private.verification_outbox, see package outbox).
type VerificationOutbox struct {
	// PollInterval is how often due rows are looked for besides the
	// notifications (GOTRUE_VERIFICATION_OUTBOX_POLL_INTERVAL, default 5s):
	// a retry, which nobody notifies, goes out at most this long after it
	// falls due.
	PollInterval time.Duration
	// MaxAttempts is how many sends of one code are tried before it is
	// dropped (GOTRUE_VERIFICATION_OUTBOX_MAX_ATTEMPTS, default 5).
	MaxAttempts int
}

// SMTP is the outgoing mail server (GOTRUE_SMTP_*). An empty Host means mail
// is only logged (the fact that it was sent, never its content).
type SMTP struct {
	Host         string
	Port         int
	User         string
	Pass         string
	AdminEmail   string
	SenderName   string
	MaxFrequency time.Duration
}

// SMS is the SMS provider (GOTRUE_SMS_*). Provider "" or "log" writes each
// text to the service log, code included, except in production (KEJANEST_ENV)
// where only "SMS sent" is written; "twilio" and "africastalking" post to
// their HTTP APIs (the URL is overridable for tests). OTPExp defaults to
// ten minutes, the code expiry (GoTrue's own default is 60 s).
type SMS struct {
	Provider     string
	Autoconfirm  bool
	OTPExp       time.Duration
	OTPLength    int
	MaxFrequency time.Duration
	Template     string
	// Twilio: GOTRUE_SMS_TWILIO_ACCOUNT_SID, _AUTH_TOKEN, _MESSAGE_SERVICE_SID.
	TwilioAccountSID, TwilioAuthToken, TwilioMessageServiceSID string
	// Africa's Talking: GOTRUE_SMS_AFRICASTALKING_USERNAME, _API_KEY, _SENDER_ID.
	ATUsername, ATAPIKey, ATSenderID string
	// APIURL overrides the provider's endpoint (GOTRUE_SMS_API_URL).
	APIURL string
}

// ClientIDs splits ClientID's comma-separated list.
func (p OAuthProvider) ClientIDs() []string {
	var out []string
	for _, id := range strings.Split(p.ClientID, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// OAuthProvider is an OpenID Connect provider (GOTRUE_EXTERNAL_GOOGLE_*).
type OAuthProvider struct {
	Enabled bool
	// ClientID is GoTrue's comma-separated list: the first id signs in
	// through /authorize, and an id_token naming any of them is accepted
	// by the id_token grant (the web, Android and iOS clients of one app).
	ClientID string
	// SkipNonceCheck lets the id_token grant accept a token whose nonce
	// the client cannot show (GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK).
	SkipNonceCheck bool
	Secret         string
	RedirectURI    string
	// Issuer is discovered at Issuer/.well-known/openid-configuration
	// (GOTRUE_EXTERNAL_GOOGLE_ISSUER, default https://accounts.google.com).
	Issuer string
}

// MFA holds GOTRUE_MFA_* settings.
type MFA struct {
	MaxEnrolledFactors int
	ChallengeExpiry    time.Duration
	FactorExpiry       time.Duration
	TOTPEnrollEnabled  bool
	TOTPVerifyEnabled  bool
	PhoneEnrollEnabled bool
	PhoneVerifyEnabled bool
	PhoneMaxFrequency  time.Duration
	PhoneOTPLength     int
	// WebAuthnEnrollEnabled and WebAuthnVerifyEnabled open WebAuthn factors
	// (GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED, GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED);
	// off by default, as in GoTrue, so they are opt-in.
	WebAuthnEnrollEnabled bool
	WebAuthnVerifyEnabled bool
}

// Passkey holds the passkey (passwordless WebAuthn sign-in) settings.
type Passkey struct {
	// Enabled opens /passkeys/* (GOTRUE_PASSKEY_ENABLED); off by default
	// so that a deployment opts in, as a hosted project does.
	Enabled bool
	// RPID, RPOrigins and RPDisplayName name the relying party
	// (GOTRUE_WEBAUTHN_RP_ID, GOTRUE_WEBAUTHN_RP_ORIGINS comma-separated,
	// GOTRUE_WEBAUTHN_RP_DISPLAY_NAME); empty: the site URL's host and
	// origin.
	RPID          string
	RPOrigins     []string
	RPDisplayName string
	// ChallengeExpiry bounds a ceremony (GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION,
	// default 5m, the value auth-js documents).
	ChallengeExpiry time.Duration
}

// Auth is everything about accounts and sessions.
type Auth struct {
	DisableSignup     bool
	EmailEnabled      bool
	PhoneEnabled      bool
	AnonymousEnabled  bool
	MailerAutoconfirm bool
	MailerOTPExp      time.Duration
	MailerOTPLength   int
	SecureEmailChange bool
	PasswordMinLength int
	PasswordHashCost  int
	// HIBPEnabled refuses passwords found in Have I Been Pwned
	// (GOTRUE_PASSWORD_HIBP_ENABLED); HIBPFailClosed refuses them too when
	// the service cannot be reached; HIBPURL overrides its address.
	HIBPEnabled                 bool
	HIBPFailClosed              bool
	HIBPURL                     string
	UpdatePasswordRequireReauth bool
	// ManualLinkingEnabled opens linkIdentity and unlinkIdentity
	// (GOTRUE_SECURITY_MANUAL_LINKING_ENABLED).
	ManualLinkingEnabled bool
	// OAuthServerEnabled opens the OAuth 2.1 server's admin API
	// (GOTRUE_OAUTH_SERVER_ENABLED).
	OAuthServerEnabled   bool
	RefreshTokenRotation bool
	RefreshReuseInterval time.Duration
	// SessionTimebox ends sessions this long after creation (0: never).
	SessionTimebox time.Duration
	URIAllowList   []string
	// JWTKeys is a JSON array (or JWK set) of private JWKs
	// (GOTRUE_JWT_KEYS); the first RS256/ES256 key signs, all are published.
	JWTKeys       string
	JWTAud        string
	JWTAdminRoles []string
	RateLimits    RateLimits
	SMTP          SMTP
	SMS           SMS
	MFA           MFA
	Passkey       Passkey
	Google        OAuthProvider
	// VerificationOutbox sends the codes public.request_verification_code
	// queues.
	VerificationOutbox VerificationOutbox
}

func loadAuth(r *envconf.Reader) (Auth, error) {
	var errs []error
	rate := func(def string, per time.Duration, key string) Rate {
		raw := r.String(def, key)
		rt, err := ParseRate(raw, per)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", key, err))
		}
		return rt
	}
	a := Auth{
		DisableSignup:               r.Bool(false, "GOTRUE_DISABLE_SIGNUP"),
		EmailEnabled:                r.Bool(true, "GOTRUE_EXTERNAL_EMAIL_ENABLED"),
		PhoneEnabled:                r.Bool(false, "GOTRUE_EXTERNAL_PHONE_ENABLED"),
		AnonymousEnabled:            r.Bool(false, "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED"),
		MailerAutoconfirm:           r.Bool(false, "GOTRUE_MAILER_AUTOCONFIRM"),
		MailerOTPExp:                r.Duration(10*time.Minute, "GOTRUE_MAILER_OTP_EXP"),
		MailerOTPLength:             r.Int(6, "GOTRUE_MAILER_OTP_LENGTH"),
		SecureEmailChange:           r.Bool(true, "GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED"),
		PasswordMinLength:           r.Int(8, "GOTRUE_PASSWORD_MIN_LENGTH"),
		PasswordHashCost:            r.Int(10, "GOTRUE_PASSWORD_HASH_COST"),
		HIBPEnabled:                 r.Bool(false, "GOTRUE_PASSWORD_HIBP_ENABLED"),
		HIBPFailClosed:              r.Bool(false, "GOTRUE_PASSWORD_HIBP_FAIL_CLOSED"),
		HIBPURL:                     r.String("https://api.pwnedpasswords.com", "GOTRUE_PASSWORD_HIBP_URL"),
		UpdatePasswordRequireReauth: r.Bool(false, "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION"),
		ManualLinkingEnabled:        r.Bool(false, "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED"),
		OAuthServerEnabled:          r.Bool(false, "GOTRUE_OAUTH_SERVER_ENABLED"),
		RefreshTokenRotation:        r.Bool(true, "GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED"),
		RefreshReuseInterval:        r.Duration(10*time.Second, "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL"),
		SessionTimebox:              r.Duration(0, "GOTRUE_SESSIONS_TIMEBOX"),
		URIAllowList:                r.List(nil, "GOTRUE_URI_ALLOW_LIST"),
		JWTKeys:                     r.String("", "GOTRUE_JWT_KEYS"),
		JWTAud:                      r.String("authenticated", "GOTRUE_JWT_AUD"),
		JWTAdminRoles:               r.List([]string{"service_role", "supabase_admin"}, "GOTRUE_JWT_ADMIN_ROLES"),
		RateLimits: RateLimits{
			EmailSent:             rate("30/1h", time.Hour, "GOTRUE_RATE_LIMIT_EMAIL_SENT"),
			SMSSent:               rate("30/1h", time.Hour, "GOTRUE_RATE_LIMIT_SMS_SENT"),
			TokenRefresh:          rate("150/5m", 5*time.Minute, "GOTRUE_RATE_LIMIT_TOKEN_REFRESH"),
			Verify:                rate("30/5m", 5*time.Minute, "GOTRUE_RATE_LIMIT_VERIFY"),
			OTP:                   rate("30/5m", 5*time.Minute, "GOTRUE_RATE_LIMIT_OTP"),
			MFA:                   rate("15/1m", time.Minute, "GOTRUE_RATE_LIMIT_MFA"),
			AnonymousUsers:        rate("30/1h", time.Hour, "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS"),
			PasswordSignIn:        rate("30/5m", 5*time.Minute, "GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN"),
			PasswordSignInAccount: rate("100/1h", time.Hour, "GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN_ACCOUNT"),
		},
		SMTP: SMTP{
			Host:         r.String("", "GOTRUE_SMTP_HOST"),
			Port:         r.Int(25, "GOTRUE_SMTP_PORT"),
			User:         r.String("", "GOTRUE_SMTP_USER"),
			Pass:         r.String("", "GOTRUE_SMTP_PASS"),
			AdminEmail:   r.String("admin@kejanest.local", "GOTRUE_SMTP_ADMIN_EMAIL"),
			SenderName:   r.String("KejaNest", "GOTRUE_SMTP_SENDER_NAME"),
			MaxFrequency: r.Duration(time.Minute, "GOTRUE_SMTP_MAX_FREQUENCY"),
		},
		SMS: SMS{
			Provider:                r.String("log", "GOTRUE_SMS_PROVIDER"),
			Autoconfirm:             r.Bool(false, "GOTRUE_SMS_AUTOCONFIRM"),
			OTPExp:                  r.Duration(10*time.Minute, "GOTRUE_SMS_OTP_EXP"),
			OTPLength:               r.Int(6, "GOTRUE_SMS_OTP_LENGTH"),
			MaxFrequency:            r.Duration(time.Minute, "GOTRUE_SMS_MAX_FREQUENCY"),
			Template:                r.String("Your code is {{ .Code }}", "GOTRUE_SMS_TEMPLATE"),
			TwilioAccountSID:        r.String("", "GOTRUE_SMS_TWILIO_ACCOUNT_SID"),
			TwilioAuthToken:         r.String("", "GOTRUE_SMS_TWILIO_AUTH_TOKEN"),
			TwilioMessageServiceSID: r.String("", "GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID"),
			ATUsername:              r.String("", "GOTRUE_SMS_AFRICASTALKING_USERNAME"),
			ATAPIKey:                r.String("", "GOTRUE_SMS_AFRICASTALKING_API_KEY"),
			ATSenderID:              r.String("", "GOTRUE_SMS_AFRICASTALKING_SENDER_ID"),
			APIURL:                  r.String("", "GOTRUE_SMS_API_URL"),
		},
		MFA: MFA{
			MaxEnrolledFactors:    r.Int(10, "GOTRUE_MFA_MAX_ENROLLED_FACTORS"),
			ChallengeExpiry:       r.Duration(300*time.Second, "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION"),
			FactorExpiry:          r.Duration(300*time.Second, "GOTRUE_MFA_FACTOR_EXPIRY_DURATION"),
			TOTPEnrollEnabled:     r.Bool(true, "GOTRUE_MFA_TOTP_ENROLL_ENABLED"),
			TOTPVerifyEnabled:     r.Bool(true, "GOTRUE_MFA_TOTP_VERIFY_ENABLED"),
			PhoneEnrollEnabled:    r.Bool(true, "GOTRUE_MFA_PHONE_ENROLL_ENABLED"),
			PhoneVerifyEnabled:    r.Bool(true, "GOTRUE_MFA_PHONE_VERIFY_ENABLED"),
			PhoneMaxFrequency:     r.Duration(5*time.Second, "GOTRUE_MFA_PHONE_MAX_FREQUENCY"),
			PhoneOTPLength:        r.Int(6, "GOTRUE_MFA_PHONE_OTP_LENGTH"),
			WebAuthnEnrollEnabled: r.Bool(false, "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED"),
			WebAuthnVerifyEnabled: r.Bool(false, "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED"),
		},
		Passkey: Passkey{
			Enabled:         r.Bool(false, "GOTRUE_PASSKEY_ENABLED"),
			RPID:            r.String("", "GOTRUE_WEBAUTHN_RP_ID"),
			RPOrigins:       r.List(nil, "GOTRUE_WEBAUTHN_RP_ORIGINS"),
			RPDisplayName:   r.String("", "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME"),
			ChallengeExpiry: r.Duration(5*time.Minute, "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION"),
		},
		Google: OAuthProvider{
			Enabled:        r.Bool(false, "GOTRUE_EXTERNAL_GOOGLE_ENABLED"),
			ClientID:       r.String("", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID"),
			SkipNonceCheck: r.Bool(false, "GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK"),
			Secret:         r.String("", "GOTRUE_EXTERNAL_GOOGLE_SECRET"),
			RedirectURI:    r.String("", "GOTRUE_EXTERNAL_GOOGLE_REDIRECT_URI"),
			Issuer:         r.String("https://accounts.google.com", "GOTRUE_EXTERNAL_GOOGLE_ISSUER"),
		},
		VerificationOutbox: VerificationOutbox{
			PollInterval: r.Duration(5*time.Second, "GOTRUE_VERIFICATION_OUTBOX_POLL_INTERVAL"),
			MaxAttempts:  r.Int(5, "GOTRUE_VERIFICATION_OUTBOX_MAX_ATTEMPTS"),
		},
	}
	return a, errors.Join(errs...)
}

func (a Auth) validate() []error {
	var errs []error
	if a.PasswordMinLength < 1 || a.PasswordMinLength > 72 {
		errs = append(errs, fmt.Errorf("GOTRUE_PASSWORD_MIN_LENGTH: %d, want 1-72", a.PasswordMinLength))
	}
	if a.PasswordHashCost < 4 || a.PasswordHashCost > 31 {
		errs = append(errs, fmt.Errorf("GOTRUE_PASSWORD_HASH_COST: %d, want 4-31", a.PasswordHashCost))
	}
	if a.MailerOTPExp < time.Second {
		errs = append(errs, errors.New("GOTRUE_MAILER_OTP_EXP: want at least one second"))
	}
	if a.MailerOTPLength < 6 || a.MailerOTPLength > 10 {
		errs = append(errs, fmt.Errorf("GOTRUE_MAILER_OTP_LENGTH: %d, want 6-10", a.MailerOTPLength))
	}
	switch a.SMS.Provider {
	case "", "log", "twilio", "africastalking":
	default:
		errs = append(errs, fmt.Errorf("GOTRUE_SMS_PROVIDER: %q, want log, twilio or africastalking", a.SMS.Provider))
	}
	if a.VerificationOutbox.PollInterval < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("GOTRUE_VERIFICATION_OUTBOX_POLL_INTERVAL: %s, want at least 100ms", a.VerificationOutbox.PollInterval))
	}
	if a.VerificationOutbox.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("GOTRUE_VERIFICATION_OUTBOX_MAX_ATTEMPTS: %d, want at least 1", a.VerificationOutbox.MaxAttempts))
	}
	if a.Google.Enabled && (len(a.Google.ClientIDs()) == 0 || a.Google.Issuer == "") {
		errs = append(errs, errors.New("GOTRUE_EXTERNAL_GOOGLE_ENABLED: needs GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID and _ISSUER"))
	}
	return errs
}
