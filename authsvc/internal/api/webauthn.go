package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// methodWebAuthn is the amr entry a WebAuthn verification adds (GoTrue's
// models.MFAWebAuthn).
const methodWebAuthn = "mfa/webauthn"

// webAuthnParams is the "webauthn" object of a challenge or verify body.
// GoTrue reads rp_id and rp_origins; auth-js 2.x sends rpId and rpOrigins,
// so both spellings are taken.
type webAuthnParams struct {
	Type               string          `json:"type"`
	RPID               string          `json:"rp_id"`
	RPOrigins          []string        `json:"rp_origins"`
	RPIDJS             string          `json:"rpId"`
	RPOriginsJS        []string        `json:"rpOrigins"`
	CredentialResponse json.RawMessage `json:"credential_response"`
}

// webAuthnSession is what a challenge keeps in web_authn_session_data:
// go-webauthn's SessionData (as GoTrue stores it) plus the origins the
// ceremony was begun for, so verify checks against what challenge chose
// rather than what the verify body claims.
type webAuthnSession struct {
	webauthn.SessionData
	RPOrigins []string `json:"rp_origins,omitempty"`
}

// webAuthnUser adapts a user and the credentials a ceremony may use to
// go-webauthn's User.
type webAuthnUser struct {
	user  *store.User
	creds []webauthn.Credential
}

func (u webAuthnUser) WebAuthnID() []byte {
	id, err := uuid.Parse(u.user.ID)
	if err != nil {
		return []byte(u.user.ID)
	}
	return id[:]
}

func (u webAuthnUser) WebAuthnName() string {
	switch {
	case u.user.Email != "":
		return u.user.Email
	case u.user.Phone != "":
		return u.user.Phone
	}
	return u.user.ID
}

func (u webAuthnUser) WebAuthnDisplayName() string { return u.WebAuthnName() }

func (u webAuthnUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// relyingParty resolves the RP ID and origins of a ceremony: those the
// client names, else the site URL's host and origin. Every origin must be
// the RP ID or one of its subdomains, as WebAuthn requires of the browser.
func (a *API) relyingParty(p *webAuthnParams) (string, []string, error) {
	rpID, origins := "", []string(nil)
	if p != nil {
		rpID, origins = p.RPID, p.RPOrigins
		if rpID == "" {
			rpID = p.RPIDJS
		}
		if len(origins) == 0 {
			origins = p.RPOriginsJS
		}
	}
	if rpID == "" || len(origins) == 0 {
		site, err := url.Parse(a.cfg.SiteURL)
		if err != nil {
			return "", nil, fmt.Errorf("parse site url: %w", err)
		}
		if rpID == "" {
			rpID = site.Hostname()
		}
		if len(origins) == 0 {
			origins = []string{site.Scheme + "://" + site.Host}
		}
	}
	rpID = strings.ToLower(strings.TrimSpace(rpID))
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return "", nil, apierr.BadRequest(apierr.CodeValidationFailed, "Invalid rp_origins: %q is not an http(s) origin", o)
		}
		if h := strings.ToLower(u.Hostname()); h != rpID && !strings.HasSuffix(h, "."+rpID) {
			return "", nil, apierr.BadRequest(apierr.CodeValidationFailed, "Invalid rp_origins: %q is not within rp_id %q", o, rpID)
		}
	}
	return rpID, origins, nil
}

func newRelyingParty(rpID string, origins []string) (*webauthn.WebAuthn, error) {
	wa, err := webauthn.New(&webauthn.Config{RPID: rpID, RPDisplayName: rpID, RPOrigins: origins})
	if err != nil {
		return nil, apierr.BadRequest(apierr.CodeValidationFailed, "Invalid WebAuthn relying party: %v", err)
	}
	return wa, nil
}

func decodeCredentials(raw [][]byte) ([]webauthn.Credential, error) {
	out := make([]webauthn.Credential, 0, len(raw))
	for _, r := range raw {
		var c webauthn.Credential
		if err := json.Unmarshal(r, &c); err != nil {
			return nil, fmt.Errorf("decode webauthn credential: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// beginWebAuthn starts the ceremony of a challenge on factor f: creation
// options ("create") while the factor is unverified, request options
// ("request") once it is. It returns the response's "webauthn" object and
// the state to keep with the challenge.
func (a *API) beginWebAuthn(ctx context.Context, q *store.Q, user *store.User, f *store.Factor, p *webAuthnParams) (fiber.Map, []byte, error) {
	rpID, origins, err := a.relyingParty(p)
	if err != nil {
		return nil, nil, err
	}
	wa, err := newRelyingParty(rpID, origins)
	if err != nil {
		return nil, nil, err
	}
	var (
		kind    string
		options any
		session *webauthn.SessionData
	)
	if f.Status != "verified" {
		raw, err := q.WebAuthnCredentials(ctx, user.ID)
		if err != nil {
			return nil, nil, err
		}
		existing, err := decodeCredentials(raw)
		if err != nil {
			return nil, nil, err
		}
		exclude := make([]protocol.CredentialDescriptor, 0, len(existing))
		for i := range existing {
			exclude = append(exclude, existing[i].Descriptor())
		}
		kind = "create"
		options, session, err = wa.BeginRegistration(webAuthnUser{user: user}, webauthn.WithExclusions(exclude))
		if err != nil {
			return nil, nil, fmt.Errorf("begin webauthn registration: %w", err)
		}
	} else {
		cred, err := factorCredential(ctx, q, f)
		if err != nil {
			return nil, nil, err
		}
		kind = "request"
		options, session, err = wa.BeginLogin(webAuthnUser{user: user, creds: []webauthn.Credential{*cred}})
		if err != nil {
			return nil, nil, fmt.Errorf("begin webauthn login: %w", err)
		}
	}
	state, err := json.Marshal(webAuthnSession{SessionData: *session, RPOrigins: origins})
	if err != nil {
		return nil, nil, fmt.Errorf("encode webauthn session: %w", err)
	}
	return fiber.Map{"type": kind, "credential_options": options}, state, nil
}

func factorCredential(ctx context.Context, q *store.Q, f *store.Factor) (*webauthn.Credential, error) {
	raw, err := q.FactorWebAuthnCredential(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, fmt.Errorf("verified webauthn factor %s has no credential", f.ID)
	}
	var c webauthn.Credential
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("decode webauthn credential: %w", err)
	}
	return &c, nil
}

// checkWebAuthnParams refuses a verify body without a usable webauthn
// object, with GoTrue's messages.
func checkWebAuthnParams(p *webAuthnParams) error {
	switch {
	case p == nil:
		return apierr.BadRequest(apierr.CodeValidationFailed, "WebAuthn config required")
	case p.Type != "create" && p.Type != "request":
		return apierr.BadRequest(apierr.CodeValidationFailed, "WebAuthn type must be create or request")
	case len(p.CredentialResponse) == 0 || string(p.CredentialResponse) == "null":
		return apierr.BadRequest(apierr.CodeValidationFailed, "credential_response required")
	}
	return nil
}

// finishWebAuthn checks the credential response of challenge ch on factor
// f against the ceremony state the challenge kept, and stores the
// credential: a new one on registration, its updated sign count on login.
// A response that does not verify is mfa_verification_failed.
func (a *API) finishWebAuthn(ctx context.Context, q *store.Q, user *store.User, f *store.Factor, ch *store.Challenge, p *webAuthnParams) error {
	if err := checkWebAuthnParams(p); err != nil {
		return err
	}
	want := "request"
	if f.Status != "verified" {
		want = "create"
	}
	if p.Type != want {
		return apierr.BadRequest(apierr.CodeValidationFailed, "WebAuthn type must be %s for this factor", want)
	}
	raw, err := q.ChallengeWebAuthnSession(ctx, ch.ID)
	if err != nil {
		return err
	}
	if raw == nil {
		return apierr.Unprocessable(apierr.CodeMFAFactorNotFound, "MFA factor with the provided challenge ID not found")
	}
	var st webAuthnSession
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("decode webauthn session: %w", err)
	}
	wa, err := newRelyingParty(st.RelyingPartyID, st.RPOrigins)
	if err != nil {
		return err
	}
	var cred *webauthn.Credential
	if p.Type == "create" {
		parsed, perr := protocol.ParseCredentialCreationResponseBytes(p.CredentialResponse)
		if perr != nil {
			return apierr.BadRequest(apierr.CodeValidationFailed, "Invalid credential_response")
		}
		cred, err = wa.CreateCredential(webAuthnUser{user: user}, st.SessionData, parsed)
	} else {
		parsed, perr := protocol.ParseCredentialRequestResponseBytes(p.CredentialResponse)
		if perr != nil {
			return apierr.BadRequest(apierr.CodeValidationFailed, "Invalid credential_response")
		}
		stored, serr := factorCredential(ctx, q, f)
		if serr != nil {
			return serr
		}
		cred, err = wa.ValidateLogin(webAuthnUser{user: user, creds: []webauthn.Credential{*stored}}, st.SessionData, parsed)
	}
	if err != nil {
		a.log.DebugContext(ctx, "webauthn response refused", "factor_id", f.ID, "error", err.Error())
		return apierr.Unprocessable(apierr.CodeMFAVerificationFailed, "Failed to validate WebAuthn MFA response")
	}
	enc, err := json.Marshal(cred)
	if err != nil {
		return fmt.Errorf("encode webauthn credential: %w", err)
	}
	aaguid := ""
	if id, err := uuid.FromBytes(cred.Authenticator.AAGUID); err == nil {
		aaguid = id.String()
	}
	return q.SetFactorWebAuthnCredential(ctx, f.ID, enc, aaguid, a.now())
}
