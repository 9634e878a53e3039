package api

import "github.com/gofiber/fiber/v3"

// providerSettings is GoTrue's "external" object: which sign-in methods are
// enabled (supabase/auth internal/api/settings.go).
type providerSettings struct {
	AnonymousUsers bool `json:"anonymous_users"`
	Apple          bool `json:"apple"`
	Azure          bool `json:"azure"`
	Bitbucket      bool `json:"bitbucket"`
	Discord        bool `json:"discord"`
	Facebook       bool `json:"facebook"`
	Figma          bool `json:"figma"`
	Fly            bool `json:"fly"`
	GitHub         bool `json:"github"`
	GitLab         bool `json:"gitlab"`
	Google         bool `json:"google"`
	Keycloak       bool `json:"keycloak"`
	Kakao          bool `json:"kakao"`
	Linkedin       bool `json:"linkedin"`
	LinkedinOIDC   bool `json:"linkedin_oidc"`
	Notion         bool `json:"notion"`
	Spotify        bool `json:"spotify"`
	Slack          bool `json:"slack"`
	SlackOIDC      bool `json:"slack_oidc"`
	WorkOS         bool `json:"workos"`
	Twitch         bool `json:"twitch"`
	Twitter        bool `json:"twitter"`
	Email          bool `json:"email"`
	Phone          bool `json:"phone"`
	Zoom           bool `json:"zoom"`
}

// settingsResponse is GoTrue's GET /settings body.
type settingsResponse struct {
	External          providerSettings `json:"external"`
	DisableSignup     bool             `json:"disable_signup"`
	MailerAutoconfirm bool             `json:"mailer_autoconfirm"`
	PhoneAutoconfirm  bool             `json:"phone_autoconfirm"`
	SMSProvider       string           `json:"sms_provider"`
	SAMLEnabled       bool             `json:"saml_enabled"`
}

// settings reports the enabled sign-in methods from the configuration.
func (a *API) settings(c fiber.Ctx) error {
	au := a.cfg.Auth
	provider := ""
	if au.PhoneEnabled {
		provider = au.SMS.Provider
	}
	return c.JSON(settingsResponse{
		External:          providerSettings{Email: au.EmailEnabled, Phone: au.PhoneEnabled, Google: au.Google.Enabled, AnonymousUsers: au.AnonymousEnabled},
		DisableSignup:     au.DisableSignup,
		MailerAutoconfirm: au.MailerAutoconfirm,
		PhoneAutoconfirm:  au.SMS.Autoconfirm,
		SMSProvider:       provider,
	})
}
