package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Passkey is one auth.webauthn_credentials row: a discoverable WebAuthn
// credential its user signs in with.
type Passkey struct {
	ID     string
	UserID string
	// CredentialID is the authenticator's raw credential id.
	CredentialID []byte
	// Credential is go-webauthn's Credential as JSON (the public key,
	// attestation, flags and sign count).
	Credential   []byte
	SignCount    uint32
	AAGUID       string // "" when the authenticator names none
	FriendlyName string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	LastUsedAt   *time.Time
}

const passkeyCols = `id::text, user_id::text, credential_id, credential::text, sign_count, coalesce(aaguid::text,''),
 coalesce(friendly_name,''), created_at, updated_at, last_used_at`

func scanPasskey(row pgx.Row) (*Passkey, error) {
	p := &Passkey{}
	var cred string
	var count int64
	err := row.Scan(&p.ID, &p.UserID, &p.CredentialID, &cred, &count, &p.AAGUID, &p.FriendlyName, &p.CreatedAt, &p.UpdatedAt, &p.LastUsedAt)
	p.Credential, p.SignCount = []byte(cred), uint32(count)
	return p, err
}

// CreatePasskey inserts p; ErrConflict when its credential id is taken.
func (q *Q) CreatePasskey(ctx context.Context, p *Passkey) error {
	_, err := q.db.Exec(ctx, `insert into auth.webauthn_credentials (id, user_id, credential_id, credential, sign_count, aaguid,
		friendly_name, created_at, updated_at) values ($1::uuid, $2::uuid, $3, $4::jsonb, $5, nullif($6,'')::uuid, nullif($7,''), $8, $8)`,
		p.ID, p.UserID, p.CredentialID, string(p.Credential), int64(p.SignCount), p.AAGUID, p.FriendlyName, p.CreatedAt)
	return wrap("create passkey", err)
}

// PasskeysByUser lists a user's passkeys, oldest first.
func (q *Q) PasskeysByUser(ctx context.Context, userID string) ([]*Passkey, error) {
	rows, err := q.db.Query(ctx, `select `+passkeyCols+` from auth.webauthn_credentials where user_id::text = $1 order by created_at, id`, userID)
	if err != nil {
		return nil, wrap("list passkeys", err)
	}
	defer rows.Close()
	out := []*Passkey{}
	for rows.Next() {
		p, err := scanPasskey(rows)
		if err != nil {
			return nil, wrap("list passkeys", err)
		}
		out = append(out, p)
	}
	return out, wrap("list passkeys", rows.Err())
}

// PasskeyByCredentialIDForUpdate loads and locks the passkey an
// authenticator names, so that two sign-ins with one credential check
// the sign count one after the other.
func (q *Q) PasskeyByCredentialIDForUpdate(ctx context.Context, credentialID []byte) (*Passkey, error) {
	p, err := scanPasskey(q.db.QueryRow(ctx, `select `+passkeyCols+` from auth.webauthn_credentials where credential_id = $1 for update`, credentialID))
	return p, wrap("load passkey", err)
}

// RecordPasskeyUse stores a passkey's credential after a sign-in; the
// sign count may only grow (or stay 0, for authenticators that keep none).
func (q *Q) RecordPasskeyUse(ctx context.Context, id string, credential []byte, signCount uint32, now time.Time) error {
	tag, err := q.db.Exec(ctx, `update auth.webauthn_credentials set credential = $2::jsonb, sign_count = $3, last_used_at = $4, updated_at = $4
		where id::text = $1 and (sign_count < $3 or (sign_count = 0 and $3 = 0))`, id, string(credential), int64(signCount), now)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return wrap("record passkey use", err)
}

// RenamePasskey sets the friendly name of a user's passkey; ErrNotFound
// when the user has no passkey id.
func (q *Q) RenamePasskey(ctx context.Context, userID, id, name string, now time.Time) (*Passkey, error) {
	p, err := scanPasskey(q.db.QueryRow(ctx, `update auth.webauthn_credentials set friendly_name = nullif($3,''), updated_at = $4
		where user_id::text = $1 and id::text = $2 returning `+passkeyCols, userID, id, name, now))
	return p, wrap("rename passkey", err)
}

// DeletePasskey removes a user's passkey; ErrNotFound when the user has
// no passkey id.
func (q *Q) DeletePasskey(ctx context.Context, userID, id string) error {
	tag, err := q.db.Exec(ctx, `delete from auth.webauthn_credentials where user_id::text = $1 and id::text = $2`, userID, id)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return wrap("delete passkey", err)
}

// PasskeyChallenge is one auth.webauthn_challenges row: a begun ceremony.
type PasskeyChallenge struct {
	ID     string
	UserID string // "" for an authentication ceremony
	// Type is "registration" or "authentication".
	Type        string
	SessionData []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// CreatePasskeyChallenge inserts c, dropping expired challenges on the way
// so the table holds only live ceremonies.
func (q *Q) CreatePasskeyChallenge(ctx context.Context, c *PasskeyChallenge) error {
	if _, err := q.db.Exec(ctx, `delete from auth.webauthn_challenges where expires_at < $1`, c.CreatedAt); err != nil {
		return wrap("sweep passkey challenges", err)
	}
	_, err := q.db.Exec(ctx, `insert into auth.webauthn_challenges (id, user_id, challenge_type, session_data, created_at, expires_at)
		values ($1::uuid, nullif($2,'')::uuid, $3, $4::jsonb, $5, $6)`, c.ID, c.UserID, c.Type, string(c.SessionData), c.CreatedAt, c.ExpiresAt)
	return wrap("create passkey challenge", err)
}

// TakePasskeyChallenge deletes and returns challenge id of the given type,
// expired or not: a ceremony is verified at most once. ErrNotFound when
// there is none.
func (q *Q) TakePasskeyChallenge(ctx context.Context, id, typ string) (*PasskeyChallenge, error) {
	c := &PasskeyChallenge{}
	var session string
	err := q.db.QueryRow(ctx, `delete from auth.webauthn_challenges where id::text = $1 and challenge_type = $2
		returning id::text, coalesce(user_id::text,''), challenge_type, session_data::text, created_at, expires_at`, id, typ).
		Scan(&c.ID, &c.UserID, &c.Type, &session, &c.CreatedAt, &c.ExpiresAt)
	c.SessionData = []byte(session)
	return c, wrap("take passkey challenge", err)
}
