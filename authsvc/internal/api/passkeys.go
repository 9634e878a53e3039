package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// methodPasskey is the amr entry of a passkey sign-in: a first factor,
// so the session is aal1.
const methodPasskey = "passkey"

// passkeyNameMax bounds a friendly name (the column's check).
const passkeyNameMax = 120

var (
	errPasskeysDisabled = apierr.NotFound(apierr.CodeFeatureDisabled, "Passkeys are disabled")
	errPasskeyNotFound  = apierr.NotFound(apierr.CodePasskeyNotFound, "Passkey not found")
	errPasskeyChallenge = apierr.Unprocessable(apierr.CodeWebAuthnChallengeExpired, "WebAuthn challenge not found or expired")
	// errPasskeyRefused answers every authentication that does not
	// verify alike, so a caller learns nothing about which credentials exist.
	errPasskeyRefused = apierr.BadRequest(apierr.CodeInvalidCredentials, "Invalid passkey credential")
)

// passkeyVerifyParams is the body of both verify endpoints.
type passkeyVerifyParams struct {
	ChallengeID string          `json:"challenge_id"`
	Credential  json.RawMessage `json:"credential"`
}

func (p *passkeyVerifyParams) check() error {
	if strings.TrimSpace(p.ChallengeID) == "" {
		return apierr.BadRequest(apierr.CodeValidationFailed, "challenge_id required")
	}
	if len(p.Credential) == 0 || string(p.Credential) == "null" {
		return apierr.BadRequest(apierr.CodeValidationFailed, "credential required")
	}
	return nil
}

// passkeyJSON is a passkey as GET /passkeys and the admin list show it.
type passkeyJSON struct {
	ID           string     `json:"id"`
	FriendlyName string     `json:"friendly_name,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	LastUsedAt   *time.Time `json:"last_used_at,omitempty"`
}

func renderPasskey(p *store.Passkey) passkeyJSON {
	return passkeyJSON{ID: p.ID, FriendlyName: p.FriendlyName, CreatedAt: p.CreatedAt.UTC(), LastUsedAt: utc(p.LastUsedAt)}
}

func renderPasskeys(ps []*store.Passkey) []passkeyJSON {
	out := make([]passkeyJSON, 0, len(ps))
	for _, p := range ps {
		out = append(out, renderPasskey(p))
	}
	return out
}

// passkeyRelyingParty is the relying party of every passkey ceremony: the
// configured one, else the site URL's, through the same checks as the
// WebAuthn factors'. Unlike those, a client cannot choose it.
func (a *API) passkeyRelyingParty() (*webauthn.WebAuthn, []string, error) {
	pc := a.cfg.Auth.Passkey
	rpID, origins, err := a.relyingParty(&webAuthnParams{RPID: pc.RPID, RPOrigins: pc.RPOrigins})
	if err != nil {
		return nil, nil, err
	}
	wa, err := newRelyingParty(rpID, origins)
	if err != nil {
		return nil, nil, err
	}
	if pc.RPDisplayName != "" {
		wa.Config.RPDisplayName = pc.RPDisplayName
	}
	return wa, origins, nil
}

// beginPasskeyCeremony keeps a ceremony's state as a challenge and answers
// its options, as auth-js reads them: {challenge_id, options, expires_at}.
func (a *API) beginPasskeyCeremony(ctx context.Context, userID, typ string, options any, session *webauthn.SessionData, origins []string) (fiber.Map, error) {
	state, err := json.Marshal(webAuthnSession{SessionData: *session, RPOrigins: origins})
	if err != nil {
		return nil, apierr.Internal(fmt.Errorf("encode webauthn session: %w", err))
	}
	now := a.now()
	ch := &store.PasskeyChallenge{ID: uuid.NewString(), UserID: userID, Type: typ, SessionData: state,
		CreatedAt: now, ExpiresAt: now.Add(a.cfg.Auth.Passkey.ChallengeExpiry)}
	if err := a.store.CreatePasskeyChallenge(ctx, ch); err != nil {
		return nil, apierr.Internal(err)
	}
	return fiber.Map{"challenge_id": ch.ID, "options": options, "expires_at": ch.ExpiresAt.Unix()}, nil
}

// takePasskeyChallenge consumes challenge id of type typ and rebuilds the
// relying party it was begun for. A challenge that is unknown, spent,
// expired or (registration) another user's is webauthn_challenge_expired.
func (a *API) takePasskeyChallenge(ctx context.Context, q *store.Q, id, typ, userID string) (*webauthn.WebAuthn, *webAuthnSession, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, nil, errPasskeyChallenge
	}
	ch, err := q.TakePasskeyChallenge(ctx, id, typ)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errPasskeyChallenge
	} else if err != nil {
		return nil, nil, err
	}
	if ch.UserID != userID || !a.now().Before(ch.ExpiresAt) {
		return nil, nil, errPasskeyChallenge
	}
	var st webAuthnSession
	if err := json.Unmarshal(ch.SessionData, &st); err != nil {
		return nil, nil, fmt.Errorf("decode webauthn session: %w", err)
	}
	wa, err := newRelyingParty(st.RelyingPartyID, st.RPOrigins)
	if err != nil {
		return nil, nil, err
	}
	return wa, &st, nil
}

// passkeyRegistrationOptions is POST /passkeys/registration/options: the
// signed-in user begins registering a discoverable credential; the ones
// they have are excluded.
func (a *API) passkeyRegistrationOptions(c fiber.Ctx) error {
	if !a.cfg.Auth.Passkey.Enabled {
		return errPasskeysDisabled
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	ctx := c.Context()
	wa, origins, err := a.passkeyRelyingParty()
	if err != nil {
		return err
	}
	existing, err := a.store.PasskeysByUser(ctx, cl.user.ID)
	if err != nil {
		return apierr.Internal(err)
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(existing))
	for _, p := range existing {
		exclude = append(exclude, protocol.CredentialDescriptor{Type: protocol.PublicKeyCredentialType, CredentialID: p.CredentialID})
	}
	creation, session, err := wa.BeginRegistration(webAuthnUser{user: cl.user}, webauthn.WithExclusions(exclude),
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired))
	if err != nil {
		return apierr.Internal(fmt.Errorf("begin passkey registration: %w", err))
	}
	out, err := a.beginPasskeyCeremony(ctx, cl.user.ID, "registration", creation.Response, session, origins)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// passkeyRegistrationVerify is POST /passkeys/registration/verify: checks
// the attestation against the user's challenge and stores the passkey.
func (a *API) passkeyRegistrationVerify(c fiber.Ctx) error {
	if !a.cfg.Auth.Passkey.Enabled {
		return errPasskeysDisabled
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	var p passkeyVerifyParams
	if err := bind(c, &p); err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	parsed, perr := protocol.ParseCredentialCreationResponseBytes(p.Credential)
	ctx := c.Context()
	var out passkeyJSON
	err = a.tx(ctx, func(q *store.Q) error {
		wa, st, err := a.takePasskeyChallenge(ctx, q, p.ChallengeID, "registration", cl.user.ID)
		if err != nil {
			return err
		}
		if perr != nil {
			return apierr.BadRequest(apierr.CodeValidationFailed, "Invalid credential")
		}
		cred, err := wa.CreateCredential(webAuthnUser{user: cl.user}, st.SessionData, parsed)
		if err != nil {
			a.log.DebugContext(ctx, "passkey registration refused", "error", err.Error())
			return apierr.BadRequest(apierr.CodeValidationFailed, "Failed to verify passkey registration")
		}
		enc, err := json.Marshal(cred)
		if err != nil {
			return fmt.Errorf("encode webauthn credential: %w", err)
		}
		pk := &store.Passkey{ID: uuid.NewString(), UserID: cl.user.ID, CredentialID: cred.ID, Credential: enc,
			SignCount: cred.Authenticator.SignCount, CreatedAt: a.now()}
		if id, err := uuid.FromBytes(cred.Authenticator.AAGUID); err == nil && id != uuid.Nil {
			pk.AAGUID = id.String()
		}
		if err := q.CreatePasskey(ctx, pk); errors.Is(err, store.ErrConflict) {
			return apierr.Unprocessable(apierr.CodeValidationFailed, "This passkey is already registered")
		} else if err != nil {
			return err
		}
		out = renderPasskey(pk)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// passkeyAuthenticationOptions is POST /passkeys/authentication/options:
// anyone begins a discoverable login (no allowCredentials: the
// authenticator offers the passkeys it holds for the relying party).
func (a *API) passkeyAuthenticationOptions(c fiber.Ctx) error {
	if !a.cfg.Auth.Passkey.Enabled {
		return errPasskeysDisabled
	}
	wa, origins, err := a.passkeyRelyingParty()
	if err != nil {
		return err
	}
	assertion, session, err := wa.BeginDiscoverableLogin()
	if err != nil {
		return apierr.Internal(fmt.Errorf("begin passkey login: %w", err))
	}
	out, err := a.beginPasskeyCeremony(c.Context(), "", "authentication", assertion.Response, session, origins)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// passkeyAuthenticationVerify is POST /passkeys/authentication/verify:
// checks the assertion of a discoverable credential, records its sign
// count and signs its user in (aal1, amr passkey).
func (a *API) passkeyAuthenticationVerify(c fiber.Ctx) error {
	if !a.cfg.Auth.Passkey.Enabled {
		return errPasskeysDisabled
	}
	var p passkeyVerifyParams
	if err := bind(c, &p); err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	parsed, perr := protocol.ParseCredentialRequestResponseBytes(p.Credential)
	ctx := c.Context()
	var (
		out  *sessionJSON
		user *store.User
	)
	// The challenge is consumed even when the assertion fails: a
	// ceremony gets one try.
	var refused error
	err := a.tx(ctx, func(q *store.Q) error {
		wa, st, err := a.takePasskeyChallenge(ctx, q, p.ChallengeID, "authentication", "")
		if err != nil {
			return err
		}
		if perr != nil {
			refused = apierr.BadRequest(apierr.CodeValidationFailed, "Invalid credential")
			return nil
		}
		pk, u, cred, err := a.validatePasskeyLogin(ctx, q, wa, st, parsed)
		if err != nil {
			var ae *apierr.Error
			if errors.As(err, &ae) {
				refused = err
				return nil
			}
			return err
		}
		if u.IsBanned(a.now()) {
			refused = apierr.BadRequest(apierr.CodeUserBanned, "User is banned")
			return nil
		}
		enc, err := json.Marshal(cred)
		if err != nil {
			return fmt.Errorf("encode webauthn credential: %w", err)
		}
		if err := q.RecordPasskeyUse(ctx, pk.ID, enc, cred.Authenticator.SignCount, a.now()); errors.Is(err, store.ErrNotFound) {
			refused = errPasskeyRefused
			return nil
		} else if err != nil {
			return err
		}
		u.LastSignInAt = ptr(a.now())
		if err := q.SaveUser(ctx, u, a.now()); err != nil {
			return err
		}
		s, err := a.tokens.IssueSession(ctx, q, u, methodPasskey, a.client(c))
		if err != nil {
			return err
		}
		out, err = a.renderSession(ctx, q, s)
		user = u
		return err
	})
	if err != nil {
		return err
	}
	if refused != nil {
		return refused
	}
	a.audit(ctx, a.store.Q, user, auditLogin, "account", clientIP(c), map[string]any{"provider": methodPasskey})
	return c.JSON(out)
}

// validatePasskeyLogin finds the passkey the assertion names and checks
// the assertion against it: signature, challenge, origin, RP ID hash, user
// handle, and a sign count that must grow (a regression suggests a cloned
// authenticator, so it is refused rather than only flagged).
func (a *API) validatePasskeyLogin(ctx context.Context, q *store.Q, wa *webauthn.WebAuthn, st *webAuthnSession,
	parsed *protocol.ParsedCredentialAssertionData) (*store.Passkey, *store.User, *webauthn.Credential, error) {
	pk, err := q.PasskeyByCredentialIDForUpdate(ctx, parsed.RawID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, nil, errPasskeyRefused
	} else if err != nil {
		return nil, nil, nil, err
	}
	u, err := q.UserByID(ctx, pk.UserID)
	if err != nil {
		return nil, nil, nil, err
	}
	var stored webauthn.Credential
	if err := json.Unmarshal(pk.Credential, &stored); err != nil {
		return nil, nil, nil, fmt.Errorf("decode webauthn credential: %w", err)
	}
	owner := webAuthnUser{user: u, creds: []webauthn.Credential{stored}}
	cred, err := wa.ValidateDiscoverableLogin(func(rawID, userHandle []byte) (webauthn.User, error) {
		if !bytes.Equal(rawID, pk.CredentialID) || !bytes.Equal(userHandle, owner.WebAuthnID()) {
			return nil, errors.New("credential and user handle do not match")
		}
		return owner, nil
	}, st.SessionData, parsed)
	if err != nil {
		a.log.DebugContext(ctx, "passkey assertion refused", "passkey_id", pk.ID, "error", err.Error())
		return nil, nil, nil, errPasskeyRefused
	}
	if cred.Authenticator.CloneWarning {
		a.log.WarnContext(ctx, "passkey sign count went back", "passkey_id", pk.ID)
		return nil, nil, nil, errPasskeyRefused
	}
	return pk, u, cred, nil
}

// listPasskeys is GET /passkeys: the caller's passkeys.
func (a *API) listPasskeys(c fiber.Ctx) error {
	if !a.cfg.Auth.Passkey.Enabled {
		return errPasskeysDisabled
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	ps, err := a.store.PasskeysByUser(c.Context(), cl.user.ID)
	if err != nil {
		return apierr.Internal(err)
	}
	return c.JSON(renderPasskeys(ps))
}

type passkeyUpdateParams struct {
	FriendlyName *string `json:"friendly_name"`
}

// updatePasskey is PATCH /passkeys/{id}: renames one of the caller's
// passkeys.
func (a *API) updatePasskey(c fiber.Ctx) error {
	if !a.cfg.Auth.Passkey.Enabled {
		return errPasskeysDisabled
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	var p passkeyUpdateParams
	if err := bind(c, &p); err != nil {
		return err
	}
	if p.FriendlyName == nil {
		return apierr.BadRequest(apierr.CodeValidationFailed, "friendly_name required")
	}
	name := strings.TrimSpace(*p.FriendlyName)
	if len([]rune(name)) > passkeyNameMax {
		return apierr.BadRequest(apierr.CodeValidationFailed, "friendly_name must be at most %d characters", passkeyNameMax)
	}
	id := c.Params("id")
	if _, err := uuid.Parse(id); err != nil {
		return errPasskeyNotFound
	}
	pk, err := a.store.RenamePasskey(c.Context(), cl.user.ID, id, name, a.now())
	if errors.Is(err, store.ErrNotFound) {
		return errPasskeyNotFound
	} else if err != nil {
		return apierr.Internal(err)
	}
	return c.JSON(renderPasskey(pk))
}

// deletePasskey is DELETE /passkeys/{id}: removes one of the caller's
// passkeys; its sessions stay, as a password change leaves them.
func (a *API) deletePasskey(c fiber.Ctx) error {
	if !a.cfg.Auth.Passkey.Enabled {
		return errPasskeysDisabled
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	return a.removePasskey(c, cl.user.ID, c.Params("id"))
}

func (a *API) removePasskey(c fiber.Ctx, userID, id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return errPasskeyNotFound
	}
	err := a.store.DeletePasskey(c.Context(), userID, id)
	if errors.Is(err, store.ErrNotFound) {
		return errPasskeyNotFound
	} else if err != nil {
		return apierr.Internal(err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// adminListPasskeys is GET /admin/users/{id}/passkeys.
func (a *API) adminListPasskeys(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c, a.store.Q, false)
	if err != nil {
		return err
	}
	ps, err := a.store.PasskeysByUser(c.Context(), u.ID)
	if err != nil {
		return apierr.Internal(err)
	}
	return c.JSON(renderPasskeys(ps))
}

// adminDeletePasskey is DELETE /admin/users/{id}/passkeys/{passkey_id}.
func (a *API) adminDeletePasskey(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c, a.store.Q, false)
	if err != nil {
		return err
	}
	if err := a.removePasskey(c, u.ID, c.Params("passkey_id")); err != nil {
		return err
	}
	a.auditAdmin(c.Context(), u, "passkey_deleted", clientIP(c))
	return nil
}
