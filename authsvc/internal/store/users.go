package store

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// User is one auth.users row. Nullable text columns read as "".
type User struct {
	ID                       string
	Aud                      string
	Role                     string
	Email                    string
	EncryptedPassword        string
	EmailConfirmedAt         *time.Time
	InvitedAt                *time.Time
	ConfirmationToken        string
	ConfirmationSentAt       *time.Time
	RecoveryToken            string
	RecoverySentAt           *time.Time
	EmailChangeTokenNew      string
	EmailChange              string
	EmailChangeSentAt        *time.Time
	EmailChangeTokenCurrent  string
	EmailChangeConfirmStatus int16
	LastSignInAt             *time.Time
	AppMetaData              map[string]any
	UserMetaData             map[string]any
	IsSuperAdmin             bool
	CreatedAt                time.Time
	UpdatedAt                time.Time
	Phone                    string
	PhoneConfirmedAt         *time.Time
	PhoneChange              string
	PhoneChangeToken         string
	PhoneChangeSentAt        *time.Time
	ConfirmedAt              *time.Time
	BannedUntil              *time.Time
	ReauthenticationToken    string
	ReauthenticationSentAt   *time.Time
	IsSSOUser                bool
	DeletedAt                *time.Time
	IsAnonymous              bool
}

// IsBanned reports whether banned_until lies after now.
func (u *User) IsBanned(now time.Time) bool {
	return u.BannedUntil != nil && u.BannedUntil.After(now)
}

const userCols = `id::text, coalesce(aud,''), coalesce(role,''), coalesce(email,''), coalesce(encrypted_password,''),
 email_confirmed_at, invited_at, coalesce(confirmation_token,''), confirmation_sent_at, coalesce(recovery_token,''), recovery_sent_at,
 coalesce(email_change_token_new,''), coalesce(email_change,''), email_change_sent_at, coalesce(email_change_token_current,''),
 coalesce(email_change_confirm_status,0), last_sign_in_at, coalesce(raw_app_meta_data,'{}'), coalesce(raw_user_meta_data,'{}'),
 coalesce(is_super_admin,false), coalesce(created_at, now()), coalesce(updated_at, now()), coalesce(phone,''), phone_confirmed_at,
 coalesce(phone_change,''), coalesce(phone_change_token,''), phone_change_sent_at, confirmed_at, banned_until,
 coalesce(reauthentication_token,''), reauthentication_sent_at, is_sso_user, deleted_at, is_anonymous`

func scanUser(row pgx.Row) (*User, error) {
	u := &User{}
	err := row.Scan(&u.ID, &u.Aud, &u.Role, &u.Email, &u.EncryptedPassword,
		&u.EmailConfirmedAt, &u.InvitedAt, &u.ConfirmationToken, &u.ConfirmationSentAt, &u.RecoveryToken, &u.RecoverySentAt,
		&u.EmailChangeTokenNew, &u.EmailChange, &u.EmailChangeSentAt, &u.EmailChangeTokenCurrent,
		&u.EmailChangeConfirmStatus, &u.LastSignInAt, &u.AppMetaData, &u.UserMetaData,
		&u.IsSuperAdmin, &u.CreatedAt, &u.UpdatedAt, &u.Phone, &u.PhoneConfirmedAt,
		&u.PhoneChange, &u.PhoneChangeToken, &u.PhoneChangeSentAt, &u.ConfirmedAt, &u.BannedUntil,
		&u.ReauthenticationToken, &u.ReauthenticationSentAt, &u.IsSSOUser, &u.DeletedAt, &u.IsAnonymous)
	if err != nil {
		return nil, err
	}
	if u.AppMetaData == nil {
		u.AppMetaData = map[string]any{}
	}
	if u.UserMetaData == nil {
		u.UserMetaData = map[string]any{}
	}
	return u, nil
}

// UserByID loads a user.
func (q *Q) UserByID(ctx context.Context, id string) (*User, error) {
	u, err := scanUser(q.db.QueryRow(ctx, `select `+userCols+` from auth.users where id::text = $1`, id))
	return u, wrap("load user", err)
}

// UserByIDForUpdate loads and locks a user inside a transaction.
func (q *Q) UserByIDForUpdate(ctx context.Context, id string) (*User, error) {
	u, err := scanUser(q.db.QueryRow(ctx, `select `+userCols+` from auth.users where id::text = $1 for update`, id))
	return u, wrap("lock user", err)
}

// UserByEmail finds the (non-SSO) user with that address, case-insensitively.
func (q *Q) UserByEmail(ctx context.Context, email string) (*User, error) {
	u, err := scanUser(q.db.QueryRow(ctx, `select `+userCols+` from auth.users
		where lower(email) = lower($1) and is_sso_user = false order by created_at limit 1`, email))
	return u, wrap("load user by email", err)
}

// UserByPhone finds the user with that phone number.
func (q *Q) UserByPhone(ctx context.Context, phone string) (*User, error) {
	u, err := scanUser(q.db.QueryRow(ctx, `select `+userCols+` from auth.users where phone = $1 and is_sso_user = false limit 1`, phone))
	return u, wrap("load user by phone", err)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateUser inserts u (whose ID the caller chose).
func (q *Q) CreateUser(ctx context.Context, u *User) error {
	_, err := q.db.Exec(ctx, `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
		invited_at, confirmation_token, confirmation_sent_at, raw_app_meta_data, raw_user_meta_data, is_super_admin,
		created_at, updated_at, phone, phone_confirmed_at, banned_until, is_anonymous, last_sign_in_at)
		values ('00000000-0000-0000-0000-000000000000', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, false, $12, $12, $13, $14, $15, $16, $17)`,
		u.ID, u.Aud, u.Role, nullIfEmpty(u.Email), nullIfEmpty(u.EncryptedPassword), u.EmailConfirmedAt,
		u.InvitedAt, u.ConfirmationToken, u.ConfirmationSentAt, u.AppMetaData, u.UserMetaData,
		u.CreatedAt, nullIfEmpty(u.Phone), u.PhoneConfirmedAt, u.BannedUntil, u.IsAnonymous, u.LastSignInAt)
	return wrap("create user", err)
}

// SaveUser writes every mutable column of u and sets updated_at.
func (q *Q) SaveUser(ctx context.Context, u *User, now time.Time) error {
	u.UpdatedAt = now
	_, err := q.db.Exec(ctx, `update auth.users set aud=$2, role=$3, email=$4, encrypted_password=$5, email_confirmed_at=$6,
		invited_at=$7, confirmation_token=$8, confirmation_sent_at=$9, recovery_token=$10, recovery_sent_at=$11,
		email_change_token_new=$12, email_change=$13, email_change_sent_at=$14, email_change_token_current=$15,
		email_change_confirm_status=$16, last_sign_in_at=$17, raw_app_meta_data=$18, raw_user_meta_data=$19,
		updated_at=$20, phone=$21, phone_confirmed_at=$22, phone_change=$23, phone_change_token=$24, phone_change_sent_at=$25,
		banned_until=$26, reauthentication_token=$27, reauthentication_sent_at=$28, is_anonymous=$29
		where id::text = $1`,
		u.ID, u.Aud, u.Role, nullIfEmpty(u.Email), nullIfEmpty(u.EncryptedPassword), u.EmailConfirmedAt,
		u.InvitedAt, u.ConfirmationToken, u.ConfirmationSentAt, u.RecoveryToken, u.RecoverySentAt,
		u.EmailChangeTokenNew, u.EmailChange, u.EmailChangeSentAt, u.EmailChangeTokenCurrent,
		u.EmailChangeConfirmStatus, u.LastSignInAt, u.AppMetaData, u.UserMetaData,
		now, nullIfEmpty(u.Phone), u.PhoneConfirmedAt, u.PhoneChange, u.PhoneChangeToken, u.PhoneChangeSentAt,
		u.BannedUntil, u.ReauthenticationToken, u.ReauthenticationSentAt, u.IsAnonymous)
	return wrap("save user", err)
}

// DeleteUser removes a user and, by cascade, its identities and sessions.
func (q *Q) DeleteUser(ctx context.Context, id string) error {
	tag, err := q.db.Exec(ctx, `delete from auth.users where id::text = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return wrap("delete user", err)
}

// SoftDeleteUser is Supabase Auth's soft delete (auth.admin.deleteUser(id,
// true)): the row and its id stay for whatever references them; e-mail,
// phone and identities are obfuscated so the address can sign up again;
// password, tokens, metadata, factors, passkeys and sessions go; deleted_at
// is set. The work is app_private.anonymise_auth_user's, the same the admin
// panel's own deletion (public.admin_delete_user) does.
func (q *Q) SoftDeleteUser(ctx context.Context, id string) error {
	_, err := q.db.Exec(ctx, `select app_private.anonymise_auth_user($1::uuid)`, id)
	return wrap("soft delete user", err)
}

// ListUsers returns one page of users (page from 1), newest first, and the
// total count; filter matches email or user_metadata full_name.
func (q *Q) ListUsers(ctx context.Context, page, perPage int, filter string) ([]*User, int, error) {
	like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(filter) + "%"
	var total int
	if err := q.db.QueryRow(ctx, `select count(*) from auth.users where $1 = '%%' or email ilike $1
		or raw_user_meta_data->>'full_name' ilike $1`, like).Scan(&total); err != nil {
		return nil, 0, wrap("count users", err)
	}
	rows, err := q.db.Query(ctx, `select `+userCols+` from auth.users where $1 = '%%' or email ilike $1
		or raw_user_meta_data->>'full_name' ilike $1 order by created_at desc, id limit $2 offset $3`,
		like, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, wrap("list users", err)
	}
	defer rows.Close()
	var out []*User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, 0, wrap("list users", err)
		}
		out = append(out, u)
	}
	return out, total, wrap("list users", rows.Err())
}

// Identity is one auth.identities row.
type Identity struct {
	ID           string
	ProviderID   string
	UserID       string
	IdentityData map[string]any
	Provider     string
	LastSignInAt *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Email        string
}

const identityCols = `id::text, provider_id, user_id::text, identity_data, provider, last_sign_in_at,
 coalesce(created_at, now()), coalesce(updated_at, now()), coalesce(email,'')`

func scanIdentity(row pgx.Row) (*Identity, error) {
	i := &Identity{}
	err := row.Scan(&i.ID, &i.ProviderID, &i.UserID, &i.IdentityData, &i.Provider, &i.LastSignInAt, &i.CreatedAt, &i.UpdatedAt, &i.Email)
	return i, err
}

// CreateIdentity inserts i and fills its ID.
func (q *Q) CreateIdentity(ctx context.Context, i *Identity) error {
	err := q.db.QueryRow(ctx, `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
		values ($1, $2::uuid, $3, $4, $5, $6, $6) returning id::text, coalesce(email,'')`,
		i.ProviderID, i.UserID, i.IdentityData, i.Provider, i.LastSignInAt, i.CreatedAt).Scan(&i.ID, &i.Email)
	return wrap("create identity", err)
}

// UpdateIdentity rewrites identity_data and last_sign_in_at.
func (q *Q) UpdateIdentity(ctx context.Context, i *Identity, now time.Time) error {
	_, err := q.db.Exec(ctx, `update auth.identities set identity_data=$2, last_sign_in_at=$3, updated_at=$4 where id::text=$1`,
		i.ID, i.IdentityData, i.LastSignInAt, now)
	return wrap("update identity", err)
}

// DeleteIdentitiesExcept removes every identity of a user but keep.
func (q *Q) DeleteIdentitiesExcept(ctx context.Context, userID, keep string) error {
	_, err := q.db.Exec(ctx, `delete from auth.identities where user_id::text = $1 and id::text <> $2`, userID, keep)
	return wrap("delete identities", err)
}

// IdentitiesByUser lists a user's identities, oldest first.
func (q *Q) IdentitiesByUser(ctx context.Context, userID string) ([]*Identity, error) {
	rows, err := q.db.Query(ctx, `select `+identityCols+` from auth.identities where user_id::text = $1 order by created_at, id`, userID)
	if err != nil {
		return nil, wrap("list identities", err)
	}
	defer rows.Close()
	var out []*Identity
	for rows.Next() {
		i, err := scanIdentity(rows)
		if err != nil {
			return nil, wrap("list identities", err)
		}
		out = append(out, i)
	}
	return out, wrap("list identities", rows.Err())
}

// IdentityByProvider finds the identity for a provider's subject.
func (q *Q) IdentityByProvider(ctx context.Context, provider, providerID string) (*Identity, error) {
	i, err := scanIdentity(q.db.QueryRow(ctx, `select `+identityCols+` from auth.identities where provider = $1 and provider_id = $2`, provider, providerID))
	return i, wrap("load identity", err)
}

// DeleteIdentity removes one identity of a user; ErrNotFound when the user
// has no identity with that id.
func (q *Q) DeleteIdentity(ctx context.Context, userID, id string) error {
	tag, err := q.db.Exec(ctx, `delete from auth.identities where user_id::text = $1 and id::text = $2`, userID, id)
	if err != nil {
		return wrap("delete identity", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}
