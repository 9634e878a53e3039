package api

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/platform/pgtest"
)

// limitCase is a request, repeated against a limit, that two replicas take
// turns answering.
type limitCase struct {
	name string
	env  map[string]string
	// setup runs on the first replica before the requests.
	setup func(t *testing.T, e *env)
	// req is the n-th request's path and body (n from 0), sent from
	// 198.51.100.7.
	req func(n int) (string, map[string]any)
	// budget is how many requests the limit lets through; every one after
	// is refused with status 429 and code.
	budget int
	code   string
}

// limitCases cover each kind of limit: per IP, per address and number, and
// failed passwords per (account, source).
var limitCases = []limitCase{
	{
		name:  "failed passwords per account and source (the default 30/5m)",
		setup: func(t *testing.T, e *env) { e.signUpConfirmed("victim@example.com", "password1") },
		req: func(int) (string, map[string]any) {
			return "/token?grant_type=password", map[string]any{"email": "victim@example.com", "password": "guess"}
		},
		budget: 30, code: "over_request_rate_limit",
	},
	{
		name: "sign-ups and OTPs per IP",
		env:  map[string]string{"GOTRUE_RATE_LIMIT_OTP": "4/1h"},
		req: func(n int) (string, map[string]any) {
			if n%3 == 2 {
				return "/otp", map[string]any{"email": fmt.Sprintf("otp%d@example.com", n)}
			}
			return "/signup", map[string]any{"email": fmt.Sprintf("new%d@example.com", n), "password": "password1"}
		},
		budget: 4, code: "over_request_rate_limit",
	},
	{
		name:   "mails per address",
		env:    map[string]string{"GOTRUE_RATE_LIMIT_EMAIL_SENT": "3/1h"},
		req:    func(int) (string, map[string]any) { return "/otp", map[string]any{"email": "inbox@example.com"} },
		budget: 3, code: "over_email_send_rate_limit",
	},
	{
		name:   "texts per number",
		env:    map[string]string{"GOTRUE_RATE_LIMIT_SMS_SENT": "3/1h"},
		req:    func(int) (string, map[string]any) { return "/otp", map[string]any{"phone": "+254700000077"} },
		budget: 3, code: "over_sms_send_rate_limit",
	},
	{
		name: "verifications per IP",
		env:  map[string]string{"GOTRUE_RATE_LIMIT_VERIFY": "4/5m"},
		req: func(int) (string, map[string]any) {
			return "/verify", map[string]any{"type": "email", "email": "nobody@example.com", "token": "123456"}
		},
		budget: 4, code: "over_request_rate_limit",
	},
}

// TestRateLimitsSharedAcrossReplicas (issue 12, "Past one machine"): two
// authsvc processes over one database count against the same budgets, so
// a client alternating between them gets what one process would give it,
// not twice as much.
func TestRateLimitsSharedAcrossReplicas(t *testing.T) {
	t.Parallel()
	for _, tt := range limitCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newEnv(t, tt.env)
			if tt.setup != nil {
				tt.setup(t, a)
			}
			replicas := []*env{a, a.replica()}
			ip := map[string]string{"X-Real-IP": "198.51.100.7"}
			for n := range tt.budget {
				path, body := tt.req(n)
				r := replicas[n%2].doH("POST", path, "", body, ip)
				if r.status == 429 {
					t.Fatalf("request %d of %d, replica %d: %d %s", n+1, tt.budget, n%2+1, r.status, r.raw)
				}
			}
			for i, e := range replicas {
				path, body := tt.req(tt.budget + i)
				wantErr(t, e.doH("POST", path, "", body, ip), 429, tt.code)
			}
		})
	}
}

// TestRateLimitsConcurrentReplicas: parallel requests spread over two
// replicas never get more than the budget, because each check takes its
// token in one statement under the bucket's row lock.
func TestRateLimitsConcurrentReplicas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		env      map[string]string
		path     string
		body     map[string]any
		requests int
		budget   int
	}{
		{
			name:     "failed passwords",
			env:      map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "12/5m"},
			path:     "/token?grant_type=password",
			body:     map[string]any{"email": "victim@example.com", "password": "guess"},
			requests: 40, budget: 12,
		},
		{
			name:     "verifications per IP",
			env:      map[string]string{"GOTRUE_RATE_LIMIT_VERIFY": "15/5m"},
			path:     "/verify",
			body:     map[string]any{"type": "email", "email": "nobody@example.com", "token": "123456"},
			requests: 50, budget: 15,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newEnv(t, tt.env)
			a.signUpConfirmed("victim@example.com", "password1")
			replicas := []*env{a, a.replica()}
			var (
				wg     sync.WaitGroup
				mu     sync.Mutex
				passed int
				errs   []string
			)
			for n := range tt.requests {
				wg.Go(func() {
					r, err := replicas[n%2].send(request("POST", tt.path, "", tt.body, map[string]string{"X-Real-IP": "198.51.100.7"}))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						errs = append(errs, err.Error())
					case r.status == 429 && r.code() == "over_request_rate_limit":
					case r.status >= 400 && r.status < 500:
						passed++
					default:
						errs = append(errs, fmt.Sprintf("%d %s", r.status, r.raw))
					}
				})
			}
			wg.Wait()
			if len(errs) > 0 {
				t.Fatalf("%d unexpected answers, e.g. %s", len(errs), errs[0])
			}
			if passed != tt.budget {
				t.Errorf("%d of %d parallel requests let through, want %d", passed, tt.requests, tt.budget)
			}
		})
	}
}

// TestRateLimitsFailClosed: when the rate limits' database cannot be
// reached, limited requests are refused as an unexpected failure, never
// let through unlimited. The per-IP limits of /token and /otp are off, so
// that the sign-in guard and the mail and SMS limits are reached.
func TestRateLimitsFailClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "0", "GOTRUE_RATE_LIMIT_OTP": "0"})
	e.signUpConfirmed("owner@example.com", "password1")
	port, err := pgtest.FreePort() // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), fmt.Sprintf("postgres://supabase_auth_admin@127.0.0.1:%d/postgres?connect_timeout=5", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e.app = New(Deps{Config: e.cfg, Log: discardLog(), Store: e.store, RateLimits: store.New(pool), Mailer: e.mail, SMS: e.sms, Now: e.clock.Now})
	for _, req := range []struct {
		path string
		body map[string]any
	}{
		{"/token?grant_type=password", map[string]any{"email": "owner@example.com", "password": "password1"}},
		{"/signup", map[string]any{"email": "new@example.com", "password": "password1"}},
		{"/otp", map[string]any{"phone": "+254700000077"}},
		{"/verify", map[string]any{"type": "email", "email": "owner@example.com", "token": "123456"}},
	} {
		wantErr(t, e.do("POST", req.path, "", req.body), 500, "unexpected_failure")
	}
	if _, ok := e.mail.Last("new@example.com"); ok {
		t.Error("mail sent")
	}
	if text := e.sms.Last("+254700000077"); text != "" {
		t.Errorf("text sent: %q", text)
	}
}
