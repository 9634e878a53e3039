package store

import (
	"context"
	"time"
)

// FlowState is one auth.flow_state row: a PKCE exchange waiting for its
// code verifier.
type FlowState struct {
	ID                   string
	UserID               string
	AuthCode             string
	CodeChallengeMethod  string
	CodeChallenge        string
	ProviderType         string
	ProviderAccessToken  string
	ProviderRefreshToken string
	CreatedAt            time.Time
	UpdatedAt            time.Time
	AuthenticationMethod string
	AuthCodeIssuedAt     *time.Time
}

const flowCols = `id::text, coalesce(user_id::text,''), auth_code, code_challenge_method::text, code_challenge, provider_type,
 coalesce(provider_access_token,''), coalesce(provider_refresh_token,''), coalesce(created_at, now()), coalesce(updated_at, now()),
 authentication_method, auth_code_issued_at`

// CreateFlowState inserts f (ID chosen by the caller).
func (q *Q) CreateFlowState(ctx context.Context, f *FlowState) error {
	_, err := q.db.Exec(ctx, `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type,
		provider_access_token, provider_refresh_token, created_at, updated_at, authentication_method, auth_code_issued_at)
		values ($1, nullif($2,'')::uuid, $3, $4::auth.code_challenge_method, $5, $6, nullif($7,''), nullif($8,''), $9, $9, $10, $11)`,
		f.ID, f.UserID, f.AuthCode, f.CodeChallengeMethod, f.CodeChallenge, f.ProviderType,
		f.ProviderAccessToken, f.ProviderRefreshToken, f.CreatedAt, f.AuthenticationMethod, f.AuthCodeIssuedAt)
	return wrap("create flow state", err)
}

func (q *Q) flowState(ctx context.Context, where string, arg any) (*FlowState, error) {
	f := &FlowState{}
	err := q.db.QueryRow(ctx, `select `+flowCols+` from auth.flow_state where `+where, arg).Scan(&f.ID, &f.UserID, &f.AuthCode,
		&f.CodeChallengeMethod, &f.CodeChallenge, &f.ProviderType, &f.ProviderAccessToken, &f.ProviderRefreshToken,
		&f.CreatedAt, &f.UpdatedAt, &f.AuthenticationMethod, &f.AuthCodeIssuedAt)
	return f, wrap("load flow state", err)
}

// FlowStateByID loads a flow state by its id.
func (q *Q) FlowStateByID(ctx context.Context, id string) (*FlowState, error) {
	return q.flowState(ctx, `id::text = $1`, id)
}

// FlowStateByAuthCode loads a flow state by its auth code, locking it.
func (q *Q) FlowStateByAuthCode(ctx context.Context, code string) (*FlowState, error) {
	return q.flowState(ctx, `auth_code = $1 for update`, code)
}

// IssueFlowAuthCode binds a flow to a user and (re)issues its auth code.
func (q *Q) IssueFlowAuthCode(ctx context.Context, f *FlowState, now time.Time) error {
	f.AuthCodeIssuedAt = &now
	_, err := q.db.Exec(ctx, `update auth.flow_state set user_id=nullif($2,'')::uuid, auth_code=$3, auth_code_issued_at=$4,
		provider_access_token=nullif($5,''), provider_refresh_token=nullif($6,''), updated_at=$4 where id::text=$1`,
		f.ID, f.UserID, f.AuthCode, now, f.ProviderAccessToken, f.ProviderRefreshToken)
	return wrap("issue auth code", err)
}

// DeleteFlowState removes a flow state (after use).
func (q *Q) DeleteFlowState(ctx context.Context, id string) error {
	_, err := q.db.Exec(ctx, `delete from auth.flow_state where id::text = $1`, id)
	return wrap("delete flow state", err)
}

// FlowStateForUser returns the user's newest flow state for a method.
func (q *Q) FlowStateForUser(ctx context.Context, userID, method string) (*FlowState, error) {
	f := &FlowState{}
	err := q.db.QueryRow(ctx, `select `+flowCols+` from auth.flow_state where user_id::text = $1 and authentication_method = $2
		order by created_at desc limit 1`, userID, method).Scan(&f.ID, &f.UserID, &f.AuthCode,
		&f.CodeChallengeMethod, &f.CodeChallenge, &f.ProviderType, &f.ProviderAccessToken, &f.ProviderRefreshToken,
		&f.CreatedAt, &f.UpdatedAt, &f.AuthenticationMethod, &f.AuthCodeIssuedAt)
	return f, wrap("load flow state", err)
}
