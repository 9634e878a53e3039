package api

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// errManualLinkingDisabled is GoTrue's requireManualLinkingEnabled answer.
var errManualLinkingDisabled = apierr.NotFound(apierr.CodeManualLinkingDisabled, "Manual linking is disabled")

// linkIdentityAuthorize is GET /user/identities/authorize?provider=…: the
// signed-in user starts the provider round trip whose callback links the
// provider identity to them (auth-js linkIdentity).
func (a *API) linkIdentityAuthorize(c fiber.Ctx) error {
	if !a.cfg.Auth.ManualLinkingEnabled {
		return errManualLinkingDisabled
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	return a.startOAuth(c, cl.user.ID)
}

// unlinkIdentity is DELETE /user/identities/{id} (GoTrue's DeleteIdentity).
func (a *API) unlinkIdentity(c fiber.Ctx) error {
	if !a.cfg.Auth.ManualLinkingEnabled {
		return errManualLinkingDisabled
	}
	cl, err := a.requireUser(c)
	if err != nil {
		return err
	}
	id := strings.Clone(c.Params("id"))
	if uuid.Validate(id) != nil {
		return apierr.NotFound(apierr.CodeValidationFailed, "identity_id must be an UUID")
	}
	ctx := c.Context()
	err = a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByIDForUpdate(ctx, cl.user.ID)
		if err != nil {
			return err
		}
		ids, err := q.IdentitiesByUser(ctx, u.ID)
		if err != nil {
			return err
		}
		if len(ids) <= 1 {
			return apierr.Unprocessable(apierr.CodeSingleIdentityNotDeletable, "User must have at least 1 identity after unlinking")
		}
		i := slices.IndexFunc(ids, func(i *store.Identity) bool { return i.ID == id })
		if i < 0 {
			return apierr.Unprocessable(apierr.CodeIdentityNotFound, "Identity doesn't exist")
		}
		gone := ids[i]
		if err := q.DeleteIdentity(ctx, u.ID, gone.ID); err != nil {
			return err
		}
		rest := slices.Delete(ids, i, i+1)
		if gone.Provider == "phone" {
			u.Phone, u.PhoneConfirmedAt = "", nil
		} else if err := a.emailFromIdentities(ctx, q, u, rest); err != nil {
			return err
		}
		setProviders(u, rest)
		err = q.SaveUser(ctx, u, a.now())
		if errors.Is(err, store.ErrConflict) {
			return apierr.Unprocessable(apierr.CodeEmailConflictIdentityNotDeletable, "Unable to unlink identity due to email conflict")
		}
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{})
}

// emailFromIdentities is GoTrue's UpdateUserEmailFromIdentities: once an
// identity is gone, the user keeps its email only while a remaining
// identity carries it; otherwise the email becomes that of the best
// remaining identity (provider-verified first, then unverified, then none;
// oldest first), every pending code is revoked, and the email stays
// confirmed only if that identity's provider verified it (or
// GOTRUE_MAILER_AUTOCONFIRM is on).
func (a *API) emailFromIdentities(ctx context.Context, q *store.Q, u *store.User, rest []*store.Identity) error {
	for _, i := range rest {
		if strings.EqualFold(i.Email, u.Email) {
			return nil
		}
	}
	rank := func(i *store.Identity) int {
		switch {
		case i.Email == "":
			return 2
		case !identityEmailVerified(i):
			return 1
		}
		return 0
	}
	sorted := slices.Clone(rest)
	slices.SortStableFunc(sorted, func(x, y *store.Identity) int {
		return cmp.Or(cmp.Compare(rank(x), rank(y)), x.CreatedAt.Compare(y.CreatedAt), strings.Compare(x.ID, y.ID))
	})
	var primary *store.Identity
	if len(sorted) > 0 {
		primary = sorted[0]
	}
	u.Email = ""
	if primary != nil {
		u.Email = strings.ToLower(primary.Email)
	}
	if err := q.DeleteOneTimeTokens(ctx, u.ID); err != nil {
		return err
	}
	u.ConfirmationToken, u.ConfirmationSentAt, u.RecoveryToken, u.RecoverySentAt = "", nil, "", nil
	u.EmailChange, u.EmailChangeTokenNew, u.EmailChangeTokenCurrent, u.EmailChangeSentAt, u.EmailChangeConfirmStatus = "", "", "", nil, 0
	u.PhoneChange, u.PhoneChangeToken, u.PhoneChangeSentAt = "", "", nil
	u.ReauthenticationToken, u.ReauthenticationSentAt = "", nil
	if primary == nil || primary.Email == "" || (!identityEmailVerified(primary) && !a.cfg.Auth.MailerAutoconfirm) {
		u.EmailConfirmedAt = nil
		if u.UserMetaData == nil {
			u.UserMetaData = map[string]any{}
		}
		u.UserMetaData["email_verified"] = false
	}
	return nil
}

func identityEmailVerified(i *store.Identity) bool {
	switch v := i.IdentityData["email_verified"].(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

// setProviders is GoTrue's UpdateAppMetaDataProviders: app_metadata lists
// the providers of the user's identities, the first as "provider".
func setProviders(u *store.User, ids []*store.Identity) {
	providers := []any{}
	for _, i := range ids {
		if !slices.Contains(providers, any(i.Provider)) {
			providers = append(providers, i.Provider)
		}
	}
	if u.AppMetaData == nil {
		u.AppMetaData = map[string]any{}
	}
	u.AppMetaData["providers"] = providers
	if len(providers) > 0 {
		u.AppMetaData["provider"] = providers[0]
	}
}

// linkIdentity adds the provider identity in claims (already verified) to
// the user userID (GoTrue's linkIdentityToUser). An identity already linked,
// to this user or another, is refused. A user without an email takes the
// provider's: confirmed when the provider verified it, else mailed a
// confirmation and refused for now (after commit), as GoTrue does.
func (a *API) linkIdentity(ctx context.Context, q *store.Q, userID, provider string, claims map[string]any, redirect string) (*store.User, error) {
	u, err := q.UserByIDForUpdate(ctx, userID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFound(apierr.CodeUserNotFound, "User not found")
	} else if err != nil {
		return nil, err
	}
	sub, email, verified, data := providerIdentity(claims)
	existing, err := q.IdentityByProvider(ctx, provider, sub)
	switch {
	case err == nil && existing.UserID == u.ID:
		return nil, apierr.Unprocessable(apierr.CodeIdentityAlreadyExists, "Identity is already linked")
	case err == nil:
		return nil, apierr.Unprocessable(apierr.CodeIdentityAlreadyExists, "Identity is already linked to another user")
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	now := a.now()
	ident := &store.Identity{ProviderID: sub, UserID: u.ID, IdentityData: data, Provider: provider, LastSignInAt: ptr(now), CreatedAt: now}
	if err := q.CreateIdentity(ctx, ident); err != nil {
		return nil, err
	}
	var refused error
	if u.Email == "" && email != "" {
		u.Email = email
		if !verified && !a.cfg.Auth.MailerAutoconfirm {
			if err := a.checkFrequency(u.ConfirmationSentAt, a.cfg.Auth.SMTP.MaxFrequency); err != nil {
				return nil, err
			}
			if err := a.sendConfirmation(ctx, q, u, u.Email, redirect, false, now); err != nil {
				return nil, err
			}
			refused = &commitThenFail{apierr.Unprocessable(apierr.CodeEmailNotConfirmed,
				"Unverified email with %s. A confirmation email has been sent to your %s email", provider, provider)}
		} else {
			u.EmailConfirmedAt = ptr(now)
			u.UserMetaData["email_verified"] = true
			u.IsAnonymous = false
		}
	}
	ids, err := q.IdentitiesByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	setProviders(u, ids)
	u.LastSignInAt = ptr(now)
	if err := q.SaveUser(ctx, u, now); errors.Is(err, store.ErrConflict) {
		return nil, apierr.BadRequest(apierr.CodeEmailExists, "A user with this email address has already been registered")
	} else if err != nil {
		return nil, err
	}
	if refused != nil {
		return nil, refused
	}
	return u, nil
}
