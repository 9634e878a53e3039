package store

import (
	"context"
	"time"
)

// WebAuthnCredentials returns the stored credential (web_authn_credential
// jsonb, go-webauthn's Credential as GoTrue keeps it) of each verified
// WebAuthn factor of a user.
func (q *Q) WebAuthnCredentials(ctx context.Context, userID string) ([][]byte, error) {
	rows, err := q.db.Query(ctx, `select web_authn_credential::text from auth.mfa_factors
		where user_id::text = $1 and factor_type = 'webauthn' and status = 'verified' and web_authn_credential is not null
		order by created_at, id`, userID)
	if err != nil {
		return nil, wrap("list webauthn credentials", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, wrap("list webauthn credentials", err)
		}
		out = append(out, []byte(s))
	}
	return out, wrap("list webauthn credentials", rows.Err())
}

// FactorWebAuthnCredential returns one factor's stored credential, nil
// before its registration was verified.
func (q *Q) FactorWebAuthnCredential(ctx context.Context, factorID string) ([]byte, error) {
	var s *string
	err := q.db.QueryRow(ctx, `select web_authn_credential::text from auth.mfa_factors where id::text = $1`, factorID).Scan(&s)
	if err != nil || s == nil {
		return nil, wrap("load webauthn credential", err)
	}
	return []byte(*s), nil
}

// SetFactorWebAuthnCredential stores a factor's credential and its
// authenticator's AAGUID (empty: none).
func (q *Q) SetFactorWebAuthnCredential(ctx context.Context, factorID string, credential []byte, aaguid string, now time.Time) error {
	_, err := q.db.Exec(ctx, `update auth.mfa_factors set web_authn_credential = $2::jsonb, web_authn_aaguid = nullif($3,'')::uuid, updated_at = $4
		where id::text = $1`, factorID, string(credential), aaguid, now)
	return wrap("store webauthn credential", err)
}

// SetChallengeWebAuthnSession stores the ceremony state a WebAuthn
// challenge is verified against.
func (q *Q) SetChallengeWebAuthnSession(ctx context.Context, challengeID string, session []byte) error {
	_, err := q.db.Exec(ctx, `update auth.mfa_challenges set web_authn_session_data = $2::jsonb where id::text = $1`, challengeID, string(session))
	return wrap("store webauthn session", err)
}

// ChallengeWebAuthnSession loads a challenge's ceremony state (nil: none).
func (q *Q) ChallengeWebAuthnSession(ctx context.Context, challengeID string) ([]byte, error) {
	var s *string
	err := q.db.QueryRow(ctx, `select web_authn_session_data::text from auth.mfa_challenges where id::text = $1`, challengeID).Scan(&s)
	if err != nil || s == nil {
		return nil, wrap("load webauthn session", err)
	}
	return []byte(*s), nil
}
