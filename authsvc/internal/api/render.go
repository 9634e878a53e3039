package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/authsvc/internal/tokens"
)

// userJSON is GoTrue's User object.
type userJSON struct {
	ID                 string         `json:"id"`
	Aud                string         `json:"aud"`
	Role               string         `json:"role"`
	Email              string         `json:"email"`
	EmailConfirmedAt   *time.Time     `json:"email_confirmed_at,omitempty"`
	Phone              string         `json:"phone"`
	PhoneConfirmedAt   *time.Time     `json:"phone_confirmed_at,omitempty"`
	ConfirmationSentAt *time.Time     `json:"confirmation_sent_at,omitempty"`
	ConfirmedAt        *time.Time     `json:"confirmed_at,omitempty"`
	RecoverySentAt     *time.Time     `json:"recovery_sent_at,omitempty"`
	NewEmail           string         `json:"new_email,omitempty"`
	EmailChangeSentAt  *time.Time     `json:"email_change_sent_at,omitempty"`
	NewPhone           string         `json:"new_phone,omitempty"`
	PhoneChangeSentAt  *time.Time     `json:"phone_change_sent_at,omitempty"`
	ReauthSentAt       *time.Time     `json:"reauthentication_sent_at,omitempty"`
	InvitedAt          *time.Time     `json:"invited_at,omitempty"`
	LastSignInAt       *time.Time     `json:"last_sign_in_at,omitempty"`
	AppMetadata        map[string]any `json:"app_metadata"`
	UserMetadata       map[string]any `json:"user_metadata"`
	Identities         []identityJSON `json:"identities"`
	Factors            []factorJSON   `json:"factors,omitempty"`
	CreatedAt          time.Time      `json:"created_at"`
	UpdatedAt          time.Time      `json:"updated_at"`
	BannedUntil        *time.Time     `json:"banned_until,omitempty"`
	DeletedAt          *time.Time     `json:"deleted_at,omitempty"`
	IsAnonymous        bool           `json:"is_anonymous"`
}

type identityJSON struct {
	IdentityID   string         `json:"identity_id"`
	ID           string         `json:"id"`
	UserID       string         `json:"user_id"`
	IdentityData map[string]any `json:"identity_data"`
	Provider     string         `json:"provider"`
	LastSignInAt *time.Time     `json:"last_sign_in_at"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	Email        string         `json:"email,omitempty"`
}

type factorJSON struct {
	ID               string     `json:"id"`
	FriendlyName     string     `json:"friendly_name"`
	FactorType       string     `json:"factor_type"`
	Status           string     `json:"status"`
	Phone            string     `json:"phone,omitempty"`
	LastChallengedAt *time.Time `json:"last_challenged_at,omitempty"`
	// WebAuthnAAGUID is GoTrue's web_authn_aaguid: only WebAuthn factors
	// whose registration named a model carry it.
	WebAuthnAAGUID *string   `json:"web_authn_aaguid,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// sessionJSON is GoTrue's AccessTokenResponse.
type sessionJSON struct {
	AccessToken          string    `json:"access_token"`
	TokenType            string    `json:"token_type"`
	ExpiresIn            int64     `json:"expires_in"`
	ExpiresAt            int64     `json:"expires_at"`
	RefreshToken         string    `json:"refresh_token"`
	User                 *userJSON `json:"user"`
	ProviderToken        string    `json:"provider_token,omitempty"`
	ProviderRefreshToken string    `json:"provider_refresh_token,omitempty"`
	WeakPassword         any       `json:"weak_password,omitempty"`
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// renderUser loads the user's identities and factors and builds the JSON.
func (a *API) renderUser(ctx context.Context, q *store.Q, u *store.User) (*userJSON, error) {
	ids, err := q.IdentitiesByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	fs, err := q.FactorsByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	j := &userJSON{
		ID: u.ID, Aud: u.Aud, Role: u.Role, Email: u.Email, EmailConfirmedAt: utc(u.EmailConfirmedAt),
		Phone: u.Phone, PhoneConfirmedAt: utc(u.PhoneConfirmedAt), ConfirmationSentAt: utc(u.ConfirmationSentAt),
		ConfirmedAt: utc(u.ConfirmedAt), RecoverySentAt: utc(u.RecoverySentAt), NewEmail: u.EmailChange,
		EmailChangeSentAt: utc(u.EmailChangeSentAt), NewPhone: u.PhoneChange, PhoneChangeSentAt: utc(u.PhoneChangeSentAt),
		ReauthSentAt: utc(u.ReauthenticationSentAt), InvitedAt: utc(u.InvitedAt), LastSignInAt: utc(u.LastSignInAt),
		AppMetadata: u.AppMetaData, UserMetadata: u.UserMetaData, Identities: []identityJSON{},
		CreatedAt: u.CreatedAt.UTC(), UpdatedAt: u.UpdatedAt.UTC(), BannedUntil: utc(u.BannedUntil), DeletedAt: utc(u.DeletedAt),
		IsAnonymous: u.IsAnonymous,
	}
	if j.ConfirmedAt == nil {
		// The generated column is read back only after a reload.
		j.ConfirmedAt = utc(earliest(u.EmailConfirmedAt, u.PhoneConfirmedAt))
	}
	for _, i := range ids {
		j.Identities = append(j.Identities, identityJSON{IdentityID: i.ID, ID: i.ProviderID, UserID: i.UserID, IdentityData: i.IdentityData,
			Provider: i.Provider, LastSignInAt: utc(i.LastSignInAt), CreatedAt: i.CreatedAt.UTC(), UpdatedAt: i.UpdatedAt.UTC(), Email: i.Email})
	}
	for _, f := range fs {
		j.Factors = append(j.Factors, renderFactor(f))
	}
	return j, nil
}

func renderFactor(f *store.Factor) factorJSON {
	out := factorJSON{ID: f.ID, FriendlyName: f.FriendlyName, FactorType: f.FactorType, Status: f.Status, Phone: f.Phone,
		LastChallengedAt: utc(f.LastChallengedAt), CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
	if f.WebAuthnAAGUID != "" {
		out.WebAuthnAAGUID = &f.WebAuthnAAGUID
	}
	return out
}

func earliest(a, b *time.Time) *time.Time {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case b.Before(*a):
		return b
	}
	return a
}

func (a *API) renderSession(ctx context.Context, q *store.Q, s *tokens.Issued) (*sessionJSON, error) {
	u, err := a.renderUser(ctx, q, s.User)
	if err != nil {
		return nil, err
	}
	return &sessionJSON{AccessToken: s.AccessToken, TokenType: "bearer", ExpiresIn: s.ExpiresIn, ExpiresAt: s.ExpiresAt,
		RefreshToken: s.RefreshToken, User: u}, nil
}

// timeZero is the "no cut-off" argument of DeleteUnverifiedFactors.
var timeZero time.Time

var jsonMarshal = json.Marshal
