package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Factor is one auth.mfa_factors row.
type Factor struct {
	ID               string
	UserID           string
	FriendlyName     string
	FactorType       string
	Status           string
	CreatedAt        time.Time
	UpdatedAt        time.Time
	Secret           string
	Phone            string
	LastChallengedAt *time.Time
	// WebAuthnAAGUID names a WebAuthn factor's authenticator model; "" when
	// none is stored (other factor types, or before registration).
	WebAuthnAAGUID string
}

const factorCols = `id::text, user_id::text, coalesce(friendly_name,''), factor_type::text, status::text, created_at, updated_at,
 coalesce(secret,''), coalesce(phone,''), last_challenged_at, coalesce(web_authn_aaguid::text,'')`

func scanFactor(row pgx.Row) (*Factor, error) {
	f := &Factor{}
	err := row.Scan(&f.ID, &f.UserID, &f.FriendlyName, &f.FactorType, &f.Status, &f.CreatedAt, &f.UpdatedAt, &f.Secret, &f.Phone, &f.LastChallengedAt, &f.WebAuthnAAGUID)
	return f, err
}

// FactorsByUser lists a user's factors, oldest first.
func (q *Q) FactorsByUser(ctx context.Context, userID string) ([]*Factor, error) {
	rows, err := q.db.Query(ctx, `select `+factorCols+` from auth.mfa_factors where user_id::text = $1 order by created_at, id`, userID)
	if err != nil {
		return nil, wrap("list factors", err)
	}
	defer rows.Close()
	var out []*Factor
	for rows.Next() {
		f, err := scanFactor(rows)
		if err != nil {
			return nil, wrap("list factors", err)
		}
		out = append(out, f)
	}
	return out, wrap("list factors", rows.Err())
}

// FactorByID loads a factor.
func (q *Q) FactorByID(ctx context.Context, id string) (*Factor, error) {
	f, err := scanFactor(q.db.QueryRow(ctx, `select `+factorCols+` from auth.mfa_factors where id::text = $1`, id))
	return f, wrap("load factor", err)
}

// CreateFactor inserts f (ID chosen by the caller).
func (q *Q) CreateFactor(ctx context.Context, f *Factor) error {
	_, err := q.db.Exec(ctx, `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret, phone)
		values ($1, $2::uuid, $3, $4::auth.factor_type, $5::auth.factor_status, $6, $6, nullif($7,''), nullif($8,''))`,
		f.ID, f.UserID, f.FriendlyName, f.FactorType, f.Status, f.CreatedAt, f.Secret, f.Phone)
	return wrap("create factor", err)
}

// SetFactorVerified marks a factor verified.
func (q *Q) SetFactorVerified(ctx context.Context, id string, now time.Time) error {
	_, err := q.db.Exec(ctx, `update auth.mfa_factors set status='verified', updated_at=$2 where id::text=$1`, id, now)
	return wrap("verify factor", err)
}

// TouchFactorChallenged records a challenge time.
func (q *Q) TouchFactorChallenged(ctx context.Context, id string, now time.Time) error {
	_, err := q.db.Exec(ctx, `update auth.mfa_factors set last_challenged_at=$2, updated_at=$2 where id::text=$1`, id, now)
	return wrap("touch factor", err)
}

// DeleteFactor removes a factor and its challenges.
func (q *Q) DeleteFactor(ctx context.Context, id string) error {
	_, err := q.db.Exec(ctx, `delete from auth.mfa_factors where id::text = $1`, id)
	return wrap("delete factor", err)
}

// DeleteUnverifiedFactors removes a user's unverified factors except keep,
// or only those created before olderThan when it is non-zero.
func (q *Q) DeleteUnverifiedFactors(ctx context.Context, userID, keep string, olderThan time.Time) error {
	_, err := q.db.Exec(ctx, `delete from auth.mfa_factors where user_id::text = $1 and status = 'unverified'
		and id::text <> $2 and ($3::timestamptz is null or created_at < $3)`, userID, keep, nilTime(olderThan))
	return wrap("delete unverified factors", err)
}

func nilTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// Challenge is one auth.mfa_challenges row.
type Challenge struct {
	ID         string
	FactorID   string
	CreatedAt  time.Time
	VerifiedAt *time.Time
	IP         string
	OTPCode    string
}

// CreateChallenge inserts c.
func (q *Q) CreateChallenge(ctx context.Context, c *Challenge) error {
	_, err := q.db.Exec(ctx, `insert into auth.mfa_challenges (id, factor_id, created_at, ip_address, otp_code)
		values ($1, $2::uuid, $3, $4::inet, nullif($5,''))`, c.ID, c.FactorID, c.CreatedAt, c.IP, c.OTPCode)
	return wrap("create challenge", err)
}

// ChallengeByID loads a challenge.
func (q *Q) ChallengeByID(ctx context.Context, id string) (*Challenge, error) {
	c := &Challenge{}
	err := q.db.QueryRow(ctx, `select id::text, factor_id::text, created_at, verified_at, host(ip_address), coalesce(otp_code,'')
		from auth.mfa_challenges where id::text = $1`, id).Scan(&c.ID, &c.FactorID, &c.CreatedAt, &c.VerifiedAt, &c.IP, &c.OTPCode)
	return c, wrap("load challenge", err)
}

// VerifyChallenge marks a challenge used; false when it already was.
func (q *Q) VerifyChallenge(ctx context.Context, id string, now time.Time) (bool, error) {
	tag, err := q.db.Exec(ctx, `update auth.mfa_challenges set verified_at=$2, otp_code=null where id::text=$1 and verified_at is null`, id, now)
	if err != nil {
		return false, wrap("verify challenge", err)
	}
	return tag.RowsAffected() == 1, nil
}

// DeleteChallenge removes a challenge.
func (q *Q) DeleteChallenge(ctx context.Context, id string) error {
	_, err := q.db.Exec(ctx, `delete from auth.mfa_challenges where id::text = $1`, id)
	return wrap("delete challenge", err)
}
