package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is one auth.sessions row with its amr claims.
type Session struct {
	ID          string
	UserID      string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	FactorID    string
	AAL         string
	NotAfter    *time.Time
	RefreshedAt *time.Time
	UserAgent   string
	IP          string
}

// AMRClaim is one auth.mfa_amr_claims row.
type AMRClaim struct {
	Method    string
	UpdatedAt time.Time
}

const sessionCols = `id::text, user_id::text, coalesce(created_at, now()), coalesce(updated_at, now()), coalesce(factor_id::text,''),
 coalesce(aal::text,'aal1'), not_after, refreshed_at, coalesce(user_agent,''), coalesce(host(ip),'')`

func scanSession(row pgx.Row) (*Session, error) {
	s := &Session{}
	err := row.Scan(&s.ID, &s.UserID, &s.CreatedAt, &s.UpdatedAt, &s.FactorID, &s.AAL, &s.NotAfter, &s.RefreshedAt, &s.UserAgent, &s.IP)
	return s, err
}

// CreateSession inserts s (ID chosen by the caller) and records its first
// authentication method.
func (q *Q) CreateSession(ctx context.Context, s *Session, method string) error {
	_, err := q.db.Exec(ctx, `insert into auth.sessions (id, user_id, created_at, updated_at, aal, not_after, user_agent, ip)
		values ($1, $2::uuid, $3, $3, $4::auth.aal_level, $5, $6, nullif($7,'')::inet)`,
		s.ID, s.UserID, s.CreatedAt, s.AAL, s.NotAfter, s.UserAgent, s.IP)
	if err != nil {
		return wrap("create session", err)
	}
	return q.AddAMR(ctx, s.ID, method, s.CreatedAt)
}

// AddAMR records (or refreshes the time of) an authentication method of a
// session.
func (q *Q) AddAMR(ctx context.Context, sessionID, method string, now time.Time) error {
	_, err := q.db.Exec(ctx, `insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
		values (gen_random_uuid(), $1::uuid, $2, $2, $3)
		on conflict (session_id, authentication_method) do update set updated_at = excluded.updated_at`, sessionID, now, method)
	return wrap("add amr claim", err)
}

// AMRs lists a session's methods, most recent first.
func (q *Q) AMRs(ctx context.Context, sessionID string) ([]AMRClaim, error) {
	rows, err := q.db.Query(ctx, `select authentication_method, updated_at from auth.mfa_amr_claims
		where session_id::text = $1 order by updated_at desc, authentication_method`, sessionID)
	if err != nil {
		return nil, wrap("list amr claims", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AMRClaim, error) {
		var a AMRClaim
		err := r.Scan(&a.Method, &a.UpdatedAt)
		return a, err
	})
	return out, wrap("list amr claims", err)
}

// SessionByID loads a session.
func (q *Q) SessionByID(ctx context.Context, id string) (*Session, error) {
	s, err := scanSession(q.db.QueryRow(ctx, `select `+sessionCols+` from auth.sessions where id::text = $1`, id))
	return s, wrap("load session", err)
}

// SessionByIDForUpdate loads and locks a session.
func (q *Q) SessionByIDForUpdate(ctx context.Context, id string) (*Session, error) {
	s, err := scanSession(q.db.QueryRow(ctx, `select `+sessionCols+` from auth.sessions where id::text = $1 for update`, id))
	return s, wrap("lock session", err)
}

// SetSessionAAL upgrades or downgrades a session.
func (q *Q) SetSessionAAL(ctx context.Context, id, aal, factorID string, now time.Time) error {
	_, err := q.db.Exec(ctx, `update auth.sessions set aal=$2::auth.aal_level, factor_id=nullif($3,'')::uuid, updated_at=$4 where id::text=$1`,
		id, aal, factorID, now)
	return wrap("set session aal", err)
}

// DowngradeFactorSessions sets every aal2 session that a factor upgraded back to aal1.
func (q *Q) DowngradeFactorSessions(ctx context.Context, factorID string, now time.Time) error {
	_, err := q.db.Exec(ctx, `update auth.sessions set aal='aal1', factor_id=null, updated_at=$2 where factor_id::text=$1`, factorID, now)
	return wrap("downgrade sessions", err)
}

// DeleteSession removes a session and its refresh tokens.
func (q *Q) DeleteSession(ctx context.Context, id string) error {
	_, err := q.db.Exec(ctx, `delete from auth.sessions where id::text = $1`, id)
	return wrap("delete session", err)
}

// DeleteUserSessions removes every session of a user except keep ("" keeps none).
func (q *Q) DeleteUserSessions(ctx context.Context, userID, keep string) error {
	_, err := q.db.Exec(ctx, `delete from auth.sessions where user_id::text = $1 and id::text <> $2`, userID, keep)
	return wrap("delete sessions", err)
}

// RefreshToken is one auth.refresh_tokens row.
type RefreshToken struct {
	ID        int64
	Token     string
	UserID    string
	Revoked   bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Parent    string
	SessionID string
}

const refreshCols = `id, token, coalesce(user_id,''), coalesce(revoked,false), coalesce(created_at, now()), coalesce(updated_at, now()),
 coalesce(parent,''), coalesce(session_id::text,'')`

func scanRefresh(row pgx.Row) (*RefreshToken, error) {
	t := &RefreshToken{}
	err := row.Scan(&t.ID, &t.Token, &t.UserID, &t.Revoked, &t.CreatedAt, &t.UpdatedAt, &t.Parent, &t.SessionID)
	return t, err
}

// CreateRefreshToken inserts a token for a session and marks the session
// refreshed.
func (q *Q) CreateRefreshToken(ctx context.Context, t *RefreshToken) error {
	err := q.db.QueryRow(ctx, `insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
		values ('00000000-0000-0000-0000-000000000000', $1, $2, false, $3, $3, nullif($4,''), $5::uuid) returning id`,
		t.Token, t.UserID, t.CreatedAt, t.Parent, t.SessionID).Scan(&t.ID)
	if err != nil {
		return wrap("create refresh token", err)
	}
	_, err = q.db.Exec(ctx, `update auth.sessions set refreshed_at = $2, updated_at = $3 where id::text = $1`,
		t.SessionID, t.CreatedAt.UTC(), t.CreatedAt)
	return wrap("touch session", err)
}

// RefreshTokenByToken loads a refresh token by its value.
func (q *Q) RefreshTokenByToken(ctx context.Context, token string) (*RefreshToken, error) {
	t, err := scanRefresh(q.db.QueryRow(ctx, `select `+refreshCols+` from auth.refresh_tokens where token = $1`, token))
	return t, wrap("load refresh token", err)
}

// ActiveRefreshToken returns the session's newest unrevoked token.
func (q *Q) ActiveRefreshToken(ctx context.Context, sessionID string) (*RefreshToken, error) {
	t, err := scanRefresh(q.db.QueryRow(ctx, `select `+refreshCols+` from auth.refresh_tokens
		where session_id::text = $1 and revoked = false order by id desc limit 1`, sessionID))
	return t, wrap("load active refresh token", err)
}

// RevokeRefreshToken marks a token used.
func (q *Q) RevokeRefreshToken(ctx context.Context, id int64, now time.Time) error {
	_, err := q.db.Exec(ctx, `update auth.refresh_tokens set revoked = true, updated_at = $2 where id = $1`, id, now)
	return wrap("revoke refresh token", err)
}
