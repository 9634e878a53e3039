package api

import (
	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
)

// Features GoTrue has and authsvc does not offer answer as GoTrue does with
// them switched off, so that a client sees "disabled", not a missing route.

// errWeb3Disabled is GoTrue's web3 grant with every chain off
// (GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED and _ETHEREUM_ENABLED false).
var errWeb3Disabled = apierr.Unprocessable(apierr.CodeWeb3ProviderDisabled, "Web3 provider is disabled")

// samlDisabled is GoTrue's requireSAMLEnabled with GOTRUE_SAML_ENABLED off:
// 404 on POST /sso (auth-js signInWithSSO) and every /sso/saml route.
func samlDisabled(fiber.Ctx) error {
	return apierr.NotFound(apierr.CodeSAMLProviderDisabled, "SAML 2.0 is disabled")
}

// adminSAMLDisabled is /admin/sso/providers…: the admin check first, as in
// GoTrue's router, then the SAML one.
func (a *API) adminSAMLDisabled(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	return samlDisabled(c)
}
