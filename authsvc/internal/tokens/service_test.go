package tokens

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newService(t *testing.T) (*Service, *clock, *store.User) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	pool, err := pgxpool.New(context.Background(), db.URLAs("supabase_auth_admin"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st := store.New(pool)
	signer, _ := New(secret, "")
	clk := &clock{t: time.Now().Truncate(time.Second)}
	s := &Service{Store: st, Signer: signer, Issuer: "http://x/auth/v1", Exp: time.Hour, ReuseInterval: 10 * time.Second, Rotation: true, Now: clk.Now}
	now := clk.Now()
	u := &store.User{ID: uuid.NewString(), Aud: "authenticated", Role: "authenticated", Email: "t@example.com", EmailConfirmedAt: &now,
		AppMetaData: map[string]any{"provider": "email", "providers": []any{"email"}}, UserMetaData: map[string]any{"full_name": "T"}, CreatedAt: now}
	if err := st.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return s, clk, u
}

func TestIssueAndRefresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, u := newService(t)
	first, err := s.IssueSession(ctx, s.Store.Q, u, MethodPassword, Client{IP: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Signer.Verify(first.AccessToken, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if m["sub"] != u.ID || m["session_id"] != first.Session.ID || m["aal"] != "aal1" || m["email"] != "t@example.com" || m["role"] != "authenticated" {
		t.Errorf("claims %v", m)
	}
	amr, _ := m["amr"].([]any)
	if len(amr) != 1 || amr[0].(map[string]any)["method"] != "password" {
		t.Errorf("amr %v", m["amr"])
	}

	clk.Add(time.Second)
	second, err := s.Refresh(ctx, first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken == first.RefreshToken || second.Session.ID != first.Session.ID {
		t.Fatalf("not rotated: %+v", second)
	}
	// Reuse inside the interval: the same successor.
	clk.Add(5 * time.Second)
	again, err := s.Refresh(ctx, first.RefreshToken)
	if err != nil || again.RefreshToken != second.RefreshToken {
		t.Fatalf("reuse inside interval = %v, %v; want %s", again, err, second.RefreshToken)
	}
	// The successor still rotates normally.
	third, err := s.Refresh(ctx, second.RefreshToken)
	if err != nil || third.RefreshToken == second.RefreshToken {
		t.Fatalf("successor refresh = %v, %v", third, err)
	}
	// Reuse of the first token outside the interval revokes the session.
	clk.Add(time.Minute)
	if _, err := s.Refresh(ctx, first.RefreshToken); !errors.Is(err, ErrRefreshReused) {
		t.Fatalf("reuse outside interval = %v", err)
	}
	if _, err := s.Refresh(ctx, third.RefreshToken); !errors.Is(err, ErrRefreshNotFound) {
		t.Fatalf("session should be gone: %v", err)
	}
	if _, err := s.Refresh(ctx, "nope"); !errors.Is(err, ErrRefreshNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
}

func TestRefreshRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, u := newService(t)
	s.Timebox = time.Hour
	a, err := s.IssueSession(ctx, s.Store.Q, u, MethodPassword, Client{})
	if err != nil {
		t.Fatal(err)
	}
	until := clk.Now().Add(time.Minute)
	u.BannedUntil = &until
	if err := s.Store.SaveUser(ctx, u, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(ctx, a.RefreshToken); !errors.Is(err, ErrUserBanned) {
		t.Fatalf("banned: %v", err)
	}
	clk.Add(2 * time.Minute) // ban over
	b, err := s.Refresh(ctx, a.RefreshToken)
	if err != nil {
		t.Fatalf("after ban: %v", err)
	}
	clk.Add(2 * time.Hour) // session timebox over
	if _, err := s.Refresh(ctx, b.RefreshToken); !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("timebox: %v", err)
	}
}

func TestConcurrentRefreshGivesOneSuccessor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, u := newService(t)
	a, err := s.IssueSession(ctx, s.Store.Q, u, MethodPassword, Client{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]string, 4)
	for i := range got {
		wg.Go(func() {
			r, err := s.Refresh(ctx, a.RefreshToken)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = r.RefreshToken
		})
	}
	wg.Wait()
	for _, g := range got[1:] {
		if g != got[0] {
			t.Errorf("successors differ: %v", got)
		}
	}
}
