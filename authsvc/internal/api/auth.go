package api

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

// caller is the verified bearer of a request.
type caller struct {
	claims  map[string]any
	user    *store.User
	session *store.Session // nil when the token names none
}

func (c *caller) aal() string {
	if c.session != nil {
		return c.session.AAL
	}
	return "aal1"
}

// bearerClaims verifies the Authorization bearer token.
func (a *API) bearerClaims(c fiber.Ctx) (map[string]any, error) {
	h := c.Get(fiber.HeaderAuthorization)
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(tok) == "" {
		return nil, apierr.Unauthorized(apierr.CodeNoAuthorization, "This endpoint requires a valid Bearer token")
	}
	m, err := a.signer.Verify(strings.TrimSpace(tok), a.now())
	if errors.Is(err, tokens.ErrExpired) {
		return nil, apierr.Forbidden(apierr.CodeBadJWT, "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired")
	} else if err != nil {
		return nil, apierr.Forbidden(apierr.CodeBadJWT, "invalid JWT: unable to parse or verify signature, signature is invalid")
	}
	return m, nil
}

// requireUser verifies the bearer and loads its user and session.
func (a *API) requireUser(c fiber.Ctx) (*caller, error) {
	m, err := a.bearerClaims(c)
	if err != nil {
		return nil, err
	}
	sub, _ := m["sub"].(string)
	if sub == "" {
		return nil, apierr.Forbidden(apierr.CodeBadJWT, "invalid claim: missing sub claim")
	}
	ctx := c.Context()
	u, err := a.store.UserByID(ctx, sub)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.Forbidden(apierr.CodeUserNotFound, "User from sub claim in JWT does not exist")
	} else if err != nil {
		return nil, apierr.Internal(err)
	}
	cl := &caller{claims: m, user: u}
	if sid, _ := m["session_id"].(string); sid != "" {
		s, err := a.store.SessionByID(ctx, sid)
		if errors.Is(err, store.ErrNotFound) || (err == nil && s.UserID != u.ID) {
			return nil, apierr.Forbidden(apierr.CodeSessionNotFound, "Session from session_id claim in JWT does not exist")
		} else if err != nil {
			return nil, apierr.Internal(err)
		}
		cl.session = s
	}
	return cl, nil
}

// requireAdmin verifies the bearer and checks its role is an admin role
// (service_role).
func (a *API) requireAdmin(c fiber.Ctx) error {
	m, err := a.bearerClaims(c)
	if err != nil {
		return err
	}
	role, _ := m["role"].(string)
	if !slices.Contains(a.cfg.Auth.JWTAdminRoles, role) {
		return apierr.Forbidden(apierr.CodeNotAdmin, "User not allowed")
	}
	return nil
}

// bind decodes a JSON body into v; an empty body leaves v alone. Unknown
// fields are ignored.
func bind(c fiber.Ctx, v any) error {
	body := c.Body()
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return apierr.BadRequest(apierr.CodeBadJSON, "Could not parse request body as JSON: %v", err)
	}
	return nil
}
