package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/oidc"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

// idTokenGrant is POST /token?grant_type=id_token (auth-js
// signInWithIdToken, and linkIdentity with a token): the client signed in
// with the provider itself (Google's SDK on Android, One Tap on the web)
// and hands over the provider's id_token. It is verified against the
// provider's keys, then signs in (or links) as the OAuth callback does.
//
// Errors are GoTrue's: a refused token is an OAuth error body
// ({"error","error_description"}), a provider that is not configured a
// coded 400.
func (a *API) idTokenGrant(c fiber.Ctx, p tokenParams) error {
	if p.IDToken == "" {
		return apierr.OAuth("invalid request", "id_token required")
	}
	if p.Provider == "" && (p.ClientID == "" || p.Issuer == "") {
		return apierr.OAuth("invalid request", "provider or client_id and issuer required")
	}
	gcfg := a.cfg.Auth.Google
	if p.Provider != "google" && (p.Issuer == "" || strings.TrimRight(p.Issuer, "/") != strings.TrimRight(gcfg.Issuer, "/")) {
		// GoTrue would also accept an issuer from
		// GOTRUE_EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS here; none is configurable.
		return apierr.BadRequest(apierr.CodeValidationFailed, "Custom OIDC provider %q not allowed", p.Provider)
	}
	if !gcfg.Enabled || a.google == nil {
		return apierr.BadRequest(apierr.CodeProviderDisabled, "Provider (issuer %q) is not enabled", gcfg.Issuer)
	}
	ctx := c.Context()
	claims, err := a.google.VerifyIDToken(ctx, p.IDToken, p.AccessToken)
	if errors.Is(err, oidc.ErrAudience) {
		return apierr.OAuth("invalid request", "Unacceptable audience in id_token")
	} else if err != nil {
		e := apierr.OAuth("invalid request", "Bad ID token")
		e.Cause = err
		return e
	}
	if !gcfg.SkipNonceCheck {
		if err := checkNonce(claims, p.Nonce); err != nil {
			return err
		}
	}
	var link *caller
	if p.LinkIdentity {
		if !a.cfg.Auth.ManualLinkingEnabled {
			return errManualLinkingDisabled
		}
		if link, err = a.requireUser(c); err != nil {
			return err
		}
	}
	var out *sessionJSON
	var refused error
	err = a.tx(ctx, func(q *store.Q) error {
		var linkTo string
		if link != nil {
			linkTo = link.user.ID
		}
		u, r, err := a.externalUser(ctx, q, linkTo, "google", claims, a.cfg.SiteURL)
		if err != nil || r != nil {
			refused = r
			return err
		}
		s, err := a.tokens.IssueSession(ctx, q, u, tokens.MethodOAuth, a.client(c))
		if err != nil {
			return err
		}
		out, err = a.renderSession(ctx, q, s)
		return err
	})
	if err == nil {
		err = refused
	}
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// checkNonce is GoTrue's replay check: the id_token carries the SHA-256
// (hex) of the nonce the client passes in clear; both or neither must be
// present.
func checkNonce(claims map[string]any, raw string) error {
	inToken, _ := claims["nonce"].(string)
	if (inToken != "") != (raw != "") {
		return apierr.OAuth("invalid request", "Passed nonce and nonce in id_token should either both exist or not.")
	}
	if inToken == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(raw))
	if !crypto.Equal(hex.EncodeToString(sum[:]), inToken) {
		return apierr.OAuth("invalid nonce", "Nonces mismatch")
	}
	return nil
}
