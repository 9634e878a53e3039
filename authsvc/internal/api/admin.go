package api

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// adminListUsers is GET /admin/users?page=&per_page=: {"users":[…],"aud"}
// with X-Total-Count and Link headers.
func (a *API) adminListUsers(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	// GoTrue's paginate parses both as unsigned, so a negative page is
	// refused with ParseUint's own error text.
	page, perPage := 1, 50
	if v, err := strconv.ParseUint(c.Query("page", "1"), 10, 32); err != nil {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Bad Pagination Parameters: %v", err)
	} else if v > 0 {
		page = int(v)
	}
	if v, err := strconv.ParseUint(c.Query("per_page", "50"), 10, 32); err != nil {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Bad Pagination Parameters: %v", err)
	} else if v > 0 {
		perPage = int(min(v, 1000))
	}
	ctx := c.Context()
	users, total, err := a.store.ListUsers(ctx, page, perPage, strings.Clone(c.Query("filter")))
	if err != nil {
		return apierr.Internal(err)
	}
	out := make([]*userJSON, 0, len(users))
	for _, u := range users {
		j, err := a.renderUser(ctx, a.store.Q, u)
		if err != nil {
			return apierr.Internal(err)
		}
		out = append(out, j)
	}
	c.Set("X-Total-Count", strconv.Itoa(total))
	c.Set("Link", paginationLinks(a.issuer()+"/admin/users", page, perPage, total))
	return c.JSON(fiber.Map{"users": out, "aud": a.cfg.Auth.JWTAud})
}

// paginationLinks is GoTrue's Link header: next (when there is one) and last.
func paginationLinks(base string, page, perPage, total int) string {
	last := (total + perPage - 1) / perPage
	if last < 1 {
		last = 1
	}
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s?page=%d&per_page=%d>; rel="%s"`, base, p, perPage, rel)
	}
	var parts []string
	if page < last {
		parts = append(parts, link(page+1, "next"))
	}
	parts = append(parts, link(last, "last"))
	return strings.Join(parts, ", ")
}

type adminUserParams struct {
	ID           string         `json:"id"`
	Email        *string        `json:"email"`
	Phone        *string        `json:"phone"`
	Password     *string        `json:"password"`
	EmailConfirm bool           `json:"email_confirm"`
	PhoneConfirm bool           `json:"phone_confirm"`
	UserMetadata map[string]any `json:"user_metadata"`
	AppMetadata  map[string]any `json:"app_metadata"`
	Role         string         `json:"role"`
	BanDuration  string         `json:"ban_duration"`
}

// applyBan parses ban_duration ("none" lifts a ban).
func (a *API) applyBan(u *store.User, d string) (bool, error) {
	if d == "" {
		return false, nil
	}
	if d == "none" {
		u.BannedUntil = nil
		return false, nil
	}
	dur, err := time.ParseDuration(d)
	if err != nil || dur < 0 {
		return false, apierr.BadRequest(apierr.CodeValidationFailed, "invalid format for ban duration: %s", d)
	}
	u.BannedUntil = ptr(a.now().Add(dur))
	return true, nil
}

// adminCreateUser is POST /admin/users.
func (a *API) adminCreateUser(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	var p adminUserParams
	if err := bind(c, &p); err != nil {
		return err
	}
	var email, phone string
	var err error
	if p.Email != nil && *p.Email != "" {
		if email, err = validateEmail(*p.Email); err != nil {
			return err
		}
	}
	if p.Phone != nil && *p.Phone != "" {
		if phone, err = validatePhone(*p.Phone); err != nil {
			return err
		}
	}
	if email == "" && phone == "" {
		return apierr.BadRequest(apierr.CodeValidationFailed, "Cannot create a user without either an email or phone")
	}
	ctx := c.Context()
	var out *userJSON
	err = a.tx(ctx, func(q *store.Q) error {
		if email != "" {
			if _, err := q.UserByEmail(ctx, email); err == nil {
				return apierr.Unprocessable(apierr.CodeEmailExists, "A user with this email address has already been registered")
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if phone != "" {
			if _, err := q.UserByPhone(ctx, phone); err == nil {
				return apierr.Unprocessable(apierr.CodePhoneExists, "A user with this phone number has already been registered")
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		provider := "email"
		if email == "" {
			provider = "phone"
		}
		u := a.newUser(email, phone, provider, p.UserMetadata)
		// GoTrue's adminUserCreate keeps user_metadata exactly as given:
		// the identity's claims (sub, email, *_verified) go to the
		// identity only, unlike a self sign-up.
		u.UserMetaData = map[string]any{}
		for k, v := range p.UserMetadata {
			if v != nil {
				u.UserMetaData[k] = v
			}
		}
		if p.ID != "" {
			if _, err := uuid.Parse(p.ID); err != nil {
				return apierr.BadRequest(apierr.CodeValidationFailed, "ID must conform to the uuid v4 format")
			}
			u.ID = p.ID
		}
		for k, v := range p.AppMetadata {
			if k != "provider" && k != "providers" {
				u.AppMetaData[k] = v
			}
		}
		if p.Role != "" {
			u.Role = p.Role
		}
		if p.Password != nil && *p.Password != "" {
			if err := a.checkPassword(ctx, *p.Password); err != nil {
				return err
			}
			h, err := a.hashPassword(*p.Password)
			if err != nil {
				return err
			}
			u.EncryptedPassword = h
		}
		if p.EmailConfirm && email != "" {
			u.EmailConfirmedAt = ptr(a.now())
		}
		if p.PhoneConfirm && phone != "" {
			u.PhoneConfirmedAt = ptr(a.now())
		}
		if _, err := a.applyBan(u, p.BanDuration); err != nil {
			return err
		}
		if err := q.CreateUser(ctx, u); err != nil {
			return err
		}
		if err := a.createIdentity(ctx, q, u, provider); err != nil {
			return err
		}
		var err error
		out, err = a.renderUser(ctx, q, u)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// adminUser loads the :id user or answers 404 user_not_found.
func (a *API) adminUser(c fiber.Ctx, q *store.Q, lock bool) (*store.User, error) {
	id := c.Params("id")
	if _, err := uuid.Parse(id); err != nil {
		return nil, apierr.NotFound(apierr.CodeUserNotFound, "User not found")
	}
	var u *store.User
	var err error
	if lock {
		u, err = q.UserByIDForUpdate(c.Context(), id)
	} else {
		u, err = q.UserByID(c.Context(), id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFound(apierr.CodeUserNotFound, "User not found")
	}
	return u, storeErr(err)
}

// adminGetUser is GET /admin/users/{id}.
func (a *API) adminGetUser(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c, a.store.Q, false)
	if err != nil {
		return err
	}
	out, err := a.renderUser(c.Context(), a.store.Q, u)
	if err != nil {
		return apierr.Internal(err)
	}
	return c.JSON(out)
}

// adminUpdateUser is PUT /admin/users/{id}: metadata merges, email, phone,
// password, confirmation, role and ban_duration (a ban ends the sessions).
func (a *API) adminUpdateUser(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	var p adminUserParams
	if err := bind(c, &p); err != nil {
		return err
	}
	ctx := c.Context()
	var out *userJSON
	err := a.tx(ctx, func(q *store.Q) error {
		u, err := a.adminUser(c, q, true)
		if err != nil {
			return err
		}
		now := a.now()
		if p.Email != nil && *p.Email != "" {
			email, err := validateEmail(*p.Email)
			if err != nil {
				return err
			}
			if other, err := q.UserByEmail(ctx, email); err == nil && other.ID != u.ID {
				return apierr.Unprocessable(apierr.CodeEmailExists, "A user with this email address has already been registered")
			}
			if email != u.Email {
				u.Email = email
				if err := a.updateEmailIdentity(ctx, q, u); err != nil {
					return err
				}
			}
		}
		if p.Phone != nil && *p.Phone != "" {
			phone, err := validatePhone(*p.Phone)
			if err != nil {
				return err
			}
			if other, err := q.UserByPhone(ctx, phone); err == nil && other.ID != u.ID {
				return apierr.Unprocessable(apierr.CodePhoneExists, "A user with this phone number has already been registered")
			}
			u.Phone = phone
		}
		if p.Password != nil && *p.Password != "" {
			if err := a.checkPassword(ctx, *p.Password); err != nil {
				return err
			}
			h, err := a.hashPassword(*p.Password)
			if err != nil {
				return err
			}
			u.EncryptedPassword = h
		}
		if p.EmailConfirm && u.EmailConfirmedAt == nil {
			u.EmailConfirmedAt = ptr(now)
		}
		if p.PhoneConfirm && u.PhoneConfirmedAt == nil {
			u.PhoneConfirmedAt = ptr(now)
		}
		if p.UserMetadata != nil {
			u.UserMetaData = mergeMetadata(u.UserMetaData, p.UserMetadata)
		}
		if p.AppMetadata != nil {
			u.AppMetaData = mergeMetadata(u.AppMetaData, p.AppMetadata)
		}
		if p.Role != "" {
			u.Role = p.Role
		}
		banned, err := a.applyBan(u, p.BanDuration)
		if err != nil {
			return err
		}
		if banned {
			if err := q.DeleteUserSessions(ctx, u.ID, ""); err != nil {
				return err
			}
		}
		if err := q.SaveUser(ctx, u, now); err != nil {
			return err
		}
		out, err = a.renderUser(ctx, q, u)
		return err
	})
	if err != nil {
		return err
	}
	a.auditAdmin(ctx, &store.User{ID: out.ID, Email: out.Email, Phone: out.Phone}, auditUserModified, clientIP(c))
	return c.JSON(out)
}

// adminDeleteUser is DELETE /admin/users/{id}: 200 {}. With
// {"should_soft_delete": true} (auth.admin.deleteUser(id, true)) the user
// is soft-deleted instead (store.SoftDeleteUser), and soft-deleting a user
// again changes nothing, as in GoTrue, which loads the user before it reads
// the body.
func (a *API) adminDeleteUser(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c, a.store.Q, false)
	if err != nil {
		return err
	}
	var p struct {
		ShouldSoftDelete bool `json:"should_soft_delete"`
	}
	if err := bind(c, &p); err != nil {
		return err
	}
	switch {
	case p.ShouldSoftDelete && u.DeletedAt != nil:
		return c.JSON(fiber.Map{})
	case p.ShouldSoftDelete:
		err = a.store.SoftDeleteUser(c.Context(), u.ID)
	default:
		err = a.store.DeleteUser(c.Context(), u.ID)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return apierr.Internal(err)
	}
	a.auditAdmin(c.Context(), u, auditUserDeleted, clientIP(c))
	return c.JSON(fiber.Map{})
}

type generateLinkParams struct {
	Type       string         `json:"type"`
	Email      string         `json:"email"`
	NewEmail   string         `json:"new_email"`
	Password   string         `json:"password"`
	Data       map[string]any `json:"data"`
	RedirectTo string         `json:"redirect_to"`
}

// adminGenerateLink is POST /admin/generate_link: the link and code a mail
// would carry, returned instead of mailed.
func (a *API) adminGenerateLink(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	var p generateLinkParams
	if err := bind(c, &p); err != nil {
		return err
	}
	email, err := validateEmail(p.Email)
	if err != nil {
		return err
	}
	redirect := a.redirectURL(p.RedirectTo)
	ctx := c.Context()
	var resp fiber.Map
	err = a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByEmail(ctx, email)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		ottType, verifyType, address := "", p.Type, email
		switch p.Type {
		case "signup", "invite":
			if exists && u.EmailConfirmedAt != nil {
				return apierr.Unprocessable(apierr.CodeEmailExists, "A user with this email address has already been registered")
			}
			if !exists {
				u = a.newUser(email, "", "email", p.Data)
				if p.Type == "signup" {
					if err := a.checkPassword(ctx, p.Password); err != nil {
						return err
					}
					h, err := a.hashPassword(p.Password)
					if err != nil {
						return err
					}
					u.EncryptedPassword = h
				} else {
					u.InvitedAt = ptr(a.now())
				}
				if err := q.CreateUser(ctx, u); err != nil {
					return err
				}
				if err := a.createIdentity(ctx, q, u, "email"); err != nil {
					return err
				}
			}
			ottType = store.OTTConfirmation
			u.ConfirmationSentAt = ptr(a.now())
		case "magiclink", "recovery":
			if !exists {
				return apierr.NotFound(apierr.CodeUserNotFound, "User with this email not found")
			}
			ottType = store.OTTRecovery
			u.RecoverySentAt = ptr(a.now())
		case "email_change_current", "email_change_new":
			if !exists {
				return apierr.NotFound(apierr.CodeUserNotFound, "User with this email not found")
			}
			ne, err := validateEmail(p.NewEmail)
			if err != nil {
				return err
			}
			u.EmailChange, u.EmailChangeSentAt = ne, ptr(a.now())
			verifyType, ottType = "email_change", store.OTTEmailChangeCurrent
			if p.Type == "email_change_new" {
				ottType, address = store.OTTEmailChangeNew, ne
			}
		default:
			return apierr.BadRequest(apierr.CodeValidationFailed, "Invalid email action link type requested: %s", p.Type)
		}
		otp := crypto.OTP(a.cfg.Auth.MailerOTPLength)
		hash := crypto.TokenHash(address, otp)
		if err := q.SetOneTimeToken(ctx, &store.OneTimeToken{UserID: u.ID, Type: ottType, TokenHash: hash, RelatesTo: address, CreatedAt: a.now()}); err != nil {
			return err
		}
		if err := q.SaveUser(ctx, u, a.now()); err != nil {
			return err
		}
		uj, err := a.renderUser(ctx, q, u)
		if err != nil {
			return err
		}
		link := a.verifyLink(hash, verifyType, redirect)
		resp = structToMap(uj)
		resp["action_link"] = link
		resp["email_otp"] = otp
		resp["hashed_token"] = hash
		resp["verification_type"] = verifyType
		resp["redirect_to"] = redirect
		// Also nested, as newer GoTrue versions answer.
		resp["properties"] = fiber.Map{"action_link": link, "email_otp": otp, "hashed_token": hash, "verification_type": verifyType, "redirect_to": redirect}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(resp)
}

type inviteParams struct {
	Email string         `json:"email"`
	Data  map[string]any `json:"data"`
}

// adminInvite is POST /invite (service_role): creates the user if needed and
// mails an invite link (verify type=invite).
func (a *API) adminInvite(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	var p inviteParams
	if err := bind(c, &p); err != nil {
		return err
	}
	email, err := validateEmail(p.Email)
	if err != nil {
		return err
	}
	redirect := a.redirectURL(strings.Clone(c.Query("redirect_to")))
	ctx := c.Context()
	var out *userJSON
	err = a.tx(ctx, func(q *store.Q) error {
		u, err := q.UserByEmail(ctx, email)
		switch {
		case err == nil && u.EmailConfirmedAt != nil:
			return apierr.Unprocessable(apierr.CodeEmailExists, "A user with this email address has already been registered")
		case errors.Is(err, store.ErrNotFound):
			u = a.newUser(email, "", "email", p.Data)
			if err := q.CreateUser(ctx, u); err != nil {
				return err
			}
			if err := a.createIdentity(ctx, q, u, "email"); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if err := a.sendCodeMail(ctx, q, u, otpMail{kind: "invite", ottType: store.OTTConfirmation, verifyType: "invite",
			address: email, redirectTo: redirect}); err != nil {
			return err
		}
		u.InvitedAt, u.ConfirmationSentAt = ptr(a.now()), ptr(a.now())
		a.auditAdmin(ctx, u, auditUserInvited, clientIP(c))
		if err := q.SaveUser(ctx, u, a.now()); err != nil {
			return err
		}
		out, err = a.renderUser(ctx, q, u)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// adminListFactors is GET /admin/users/{id}/factors.
func (a *API) adminListFactors(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c, a.store.Q, false)
	if err != nil {
		return err
	}
	fs, err := a.store.FactorsByUser(c.Context(), u.ID)
	if err != nil {
		return apierr.Internal(err)
	}
	out := make([]factorJSON, 0, len(fs))
	for _, f := range fs {
		out = append(out, renderFactor(f))
	}
	return c.JSON(out)
}

// adminDeleteFactor is DELETE /admin/users/{id}/factors/{factor_id}.
func (a *API) adminDeleteFactor(c fiber.Ctx) error {
	if err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c, a.store.Q, false)
	if err != nil {
		return err
	}
	ctx := c.Context()
	fid := c.Params("factor_id")
	if _, err := uuid.Parse(fid); err != nil {
		return apierr.NotFound(apierr.CodeMFAFactorNotFound, "Factor not found")
	}
	var out factorJSON
	err = a.tx(ctx, func(q *store.Q) error {
		f, err := q.FactorByID(ctx, fid)
		if errors.Is(err, store.ErrNotFound) || (err == nil && f.UserID != u.ID) {
			return apierr.NotFound(apierr.CodeMFAFactorNotFound, "Factor not found")
		} else if err != nil {
			return err
		}
		if err := q.DowngradeFactorSessions(ctx, f.ID, a.now()); err != nil {
			return err
		}
		out = renderFactor(f)
		return q.DeleteFactor(ctx, f.ID)
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}
