package tokens

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kejanest/kejanest/authsvc/internal/crypto"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// Authentication methods recorded in amr.
const (
	MethodPassword    = "password"
	MethodOTP         = "otp"
	MethodOAuth       = "oauth"
	MethodTOTP        = "totp"
	MethodPhone       = "mfa/phone"
	MethodAnonymous   = "anonymous"
	MethodMagicLink   = "magiclink"
	MethodEmailSignup = "email/signup"
	MethodRecovery    = "recovery"
	MethodInvite      = "invite"
	MethodEmailChange = "email_change"
)

// Refresh failures; the api package maps them to GoTrue's codes.
var (
	ErrRefreshNotFound = errors.New("refresh token not found")
	ErrRefreshReused   = errors.New("refresh token already used")
	ErrSessionExpired  = errors.New("session expired")
	ErrSessionNotFound = errors.New("session not found")
	ErrUserBanned      = errors.New("user banned")
)

// Service issues sessions and rotates refresh tokens (GoTrue's
// tokens/service.go). Refreshing never hashes a password.
type Service struct {
	Store  *store.Store
	Signer *Signer
	// Issuer is the iss claim, <API_EXTERNAL_URL>/auth/v1.
	Issuer string
	// Exp is the access-token lifetime.
	Exp time.Duration
	// ReuseInterval is how long a rotated refresh token still returns the
	// session's current token instead of revoking the session.
	ReuseInterval time.Duration
	// Rotation turns rotation-reuse detection on (GoTrue default: on).
	Rotation bool
	// Timebox ends sessions this long after they start (0: never).
	Timebox time.Duration
	Now     func() time.Time
}

// Issued is a new or refreshed session: what GoTrue calls
// AccessTokenResponse, minus the rendering.
type Issued struct {
	AccessToken  string
	RefreshToken string
	ExpiresIn    int64
	ExpiresAt    int64
	User         *store.User
	Session      *store.Session
}

// Client describes the caller for the session row.
type Client struct {
	UserAgent string
	IP        string
}

// IssueSession starts a session for u (recording method as its first amr
// entry, with aal1) and returns its tokens. q may be a transaction.
func (s *Service) IssueSession(ctx context.Context, q *store.Q, u *store.User, method string, cl Client) (*Issued, error) {
	now := s.Now()
	sess := &store.Session{ID: uuid.NewString(), UserID: u.ID, CreatedAt: now, UpdatedAt: now, AAL: "aal1", UserAgent: cl.UserAgent, IP: cl.IP}
	if s.Timebox > 0 {
		na := now.Add(s.Timebox)
		sess.NotAfter = &na
	}
	if err := q.CreateSession(ctx, sess, method); err != nil {
		return nil, err
	}
	rt := &store.RefreshToken{Token: crypto.RefreshToken(), UserID: u.ID, SessionID: sess.ID, CreatedAt: now}
	if err := q.CreateRefreshToken(ctx, rt); err != nil {
		return nil, err
	}
	return s.issue(ctx, q, u, sess, rt.Token)
}

// Reissue returns new tokens for an existing session (after its aal or
// amr changed): the current refresh token is rotated.
func (s *Service) Reissue(ctx context.Context, q *store.Q, u *store.User, sess *store.Session) (*Issued, error) {
	now := s.Now()
	parent := ""
	if cur, err := q.ActiveRefreshToken(ctx, sess.ID); err == nil {
		parent = cur.Token
		if err := q.RevokeRefreshToken(ctx, cur.ID, now); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	rt := &store.RefreshToken{Token: crypto.RefreshToken(), UserID: u.ID, SessionID: sess.ID, Parent: parent, CreatedAt: now}
	if err := q.CreateRefreshToken(ctx, rt); err != nil {
		return nil, err
	}
	return s.issue(ctx, q, u, sess, rt.Token)
}

func (s *Service) issue(ctx context.Context, q *store.Q, u *store.User, sess *store.Session, refresh string) (*Issued, error) {
	now := s.Now()
	claims, err := s.Claims(ctx, q, u, sess, now)
	if err != nil {
		return nil, err
	}
	at, err := s.Signer.Sign(claims)
	if err != nil {
		return nil, err
	}
	return &Issued{AccessToken: at, RefreshToken: refresh, ExpiresIn: int64(s.Exp / time.Second), ExpiresAt: claims.ExpiresAt, User: u, Session: sess}, nil
}

// Claims builds the access-token claims of u in sess.
func (s *Service) Claims(ctx context.Context, q *store.Q, u *store.User, sess *store.Session, now time.Time) (Claims, error) {
	amrs, err := q.AMRs(ctx, sess.ID)
	if err != nil {
		return Claims{}, err
	}
	amr := make([]AMR, 0, len(amrs))
	for _, a := range amrs {
		amr = append(amr, AMR{Method: a.Method, Timestamp: a.UpdatedAt.Unix()})
	}
	aud := u.Aud
	if aud == "" {
		aud = "authenticated"
	}
	role := u.Role
	if role == "" {
		role = "authenticated"
	}
	return Claims{
		Issuer: s.Issuer, Subject: u.ID, Audience: aud,
		IssuedAt: now.Unix(), ExpiresAt: now.Add(s.Exp).Unix(),
		Email: u.Email, Phone: u.Phone,
		AppMetadata: u.AppMetaData, UserMetadata: u.UserMetaData,
		Role: role, AAL: sess.AAL, AMR: amr, SessionID: sess.ID, IsAnonymous: u.IsAnonymous,
	}, nil
}

// Refresh exchanges a refresh token for a new session token pair. A token
// used before gets the session's current token back while it was rotated
// less than ReuseInterval ago; after that the whole session is revoked.
func (s *Service) Refresh(ctx context.Context, token string) (*Issued, error) {
	var out *Issued
	reused := false
	err := s.Store.Tx(ctx, func(q *store.Q) error {
		rt, err := q.RefreshTokenByToken(ctx, token)
		if errors.Is(err, store.ErrNotFound) {
			return ErrRefreshNotFound
		} else if err != nil {
			return err
		}
		if rt.SessionID == "" {
			return ErrRefreshNotFound
		}
		sess, err := q.SessionByIDForUpdate(ctx, rt.SessionID)
		if errors.Is(err, store.ErrNotFound) {
			return ErrRefreshNotFound
		} else if err != nil {
			return err
		}
		// Re-read under the session lock: a concurrent refresh may have
		// rotated it.
		if rt, err = q.RefreshTokenByToken(ctx, token); err != nil {
			return err
		}
		u, err := q.UserByID(ctx, rt.UserID)
		if errors.Is(err, store.ErrNotFound) {
			return ErrRefreshNotFound
		} else if err != nil {
			return err
		}
		now := s.Now()
		if u.IsBanned(now) {
			return ErrUserBanned
		}
		if sess.NotAfter != nil && !now.Before(*sess.NotAfter) {
			return ErrSessionExpired
		}
		if rt.Revoked && s.Rotation {
			if now.Before(rt.UpdatedAt.Add(s.ReuseInterval)) {
				cur, err := q.ActiveRefreshToken(ctx, sess.ID)
				if err != nil {
					return fmt.Errorf("reuse: %w", err)
				}
				out, err = s.issue(ctx, q, u, sess, cur.Token)
				return err
			}
			// Reuse outside the interval: someone replayed an old token.
			if err := q.DeleteSession(ctx, sess.ID); err != nil {
				return err
			}
			reused = true
			return nil
		}
		if err := q.RevokeRefreshToken(ctx, rt.ID, now); err != nil {
			return err
		}
		next := &store.RefreshToken{Token: crypto.RefreshToken(), UserID: u.ID, SessionID: sess.ID, Parent: rt.Token, CreatedAt: now}
		if err := q.CreateRefreshToken(ctx, next); err != nil {
			return err
		}
		out, err = s.issue(ctx, q, u, sess, next.Token)
		return err
	})
	if err == nil && reused {
		return nil, ErrRefreshReused
	}
	return out, err
}
