package apikey

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kejanest/kejanest/gateway/internal/gwtest"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

func devKeys() Keys {
	return Keys{
		JWTSecret: devkeys.JWTSecret, AnonKey: devkeys.AnonKey, ServiceRoleKey: devkeys.ServiceRoleKey,
		PublishableKey: devkeys.PublishableKey, SecretKey: devkeys.SecretKey,
	}
}

func newChecker(tb testing.TB, now func() time.Time) *Checker {
	tb.Helper()
	c, err := New(devKeys(), now)
	if err != nil {
		tb.Fatalf("new checker: %v", err)
	}
	return c
}

func TestNewRejectsMismatchedKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*Keys)
		want   string
	}{
		{"secret does not sign anon key", func(k *Keys) { k.JWTSecret = "another-secret-of-sufficient-length-0123456789" }, "ANON_KEY"},
		{"expired service key", func(k *Keys) { k.ServiceRoleKey = gwtest.Expired(t, devkeys.JWTSecret, "service_role") }, "SERVICE_ROLE_KEY"},
		{"bad publishable prefix", func(k *Keys) { k.PublishableKey = "pk_x" }, "publishable"},
		{"empty secret", func(k *Keys) { k.JWTSecret = "" }, "secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := devKeys()
			tc.mutate(&k)
			_, err := New(k, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	c := newChecker(t, nil)
	user := gwtest.UserToken(t, devkeys.JWTSecret, "u1")
	expired := gwtest.Expired(t, devkeys.JWTSecret, "anon")
	tests := []struct {
		name, apikey, authz string
		outcome             Outcome
		role                string
		auth                string // "" = unchanged; "mint" = a minted token
	}{
		{"nothing", "", "", Missing, RoleAnon, ""},
		{"anon key", devkeys.AnonKey, "", OK, "anon", "Bearer " + devkeys.AnonKey},
		{"anon key and same bearer", devkeys.AnonKey, "Bearer " + devkeys.AnonKey, OK, "anon", ""},
		{"service key", devkeys.ServiceRoleKey, "", OK, "service_role", "Bearer " + devkeys.ServiceRoleKey},
		{"user token", devkeys.AnonKey, "Bearer " + user, OK, "authenticated", ""},
		{"publishable", devkeys.PublishableKey, "", OK, "anon", "mint"},
		{"secret", devkeys.SecretKey, "", OK, "service_role", "mint"},
		{"secret bearer lowercase scheme", "", "bearer " + devkeys.SecretKey, Missing, "service_role", "mint"},
		{"unknown sb apikey", "sb_secret_nope", "", Invalid, RoleInvalid, ""},
		{"unknown sb bearer", devkeys.AnonKey, "Bearer sb_publishable_nope", Invalid, RoleInvalid, ""},
		{"expired apikey", expired, "", Invalid, RoleInvalid, ""},
		{"expired bearer", devkeys.AnonKey, "Bearer " + expired, OK, RoleInvalid, ""},
		{"alg none bearer", devkeys.AnonKey, "Bearer " + gwtest.AlgNone("service_role"), OK, RoleInvalid, ""},
		{"basic auth", devkeys.AnonKey, "Basic dXNlcjpwYXNz", OK, RoleInvalid, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := c.Check(tc.apikey, tc.authz)
			if r.Outcome != tc.outcome || r.Role != tc.role {
				t.Errorf("outcome %d role %q, want %d %q", r.Outcome, r.Role, tc.outcome, tc.role)
			}
			switch tc.auth {
			case "":
				if r.Authorization != "" {
					t.Errorf("Authorization replaced with %q", r.Authorization)
				}
			case "mint":
				if !strings.HasPrefix(r.Authorization, "Bearer eyJ") {
					t.Errorf("Authorization %q, want a minted JWT", r.Authorization)
				}
			default:
				if r.Authorization != tc.auth {
					t.Errorf("Authorization %q, want %q", r.Authorization, tc.auth)
				}
			}
		})
	}
}

func TestMintedTokenReuse(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := newChecker(t, clock)
	v, err := jwtverify.New(jwtverify.Options{Secret: devkeys.JWTSecret, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	first := c.Check(devkeys.PublishableKey, "").Authorization
	advance(3 * time.Minute)
	if again := c.Check(devkeys.PublishableKey, "").Authorization; again != first {
		t.Error("token re-signed while it still had more than a minute to live")
	}
	advance(90 * time.Second)
	renewed := c.Check(devkeys.PublishableKey, "").Authorization
	if renewed == first {
		t.Fatal("token not renewed near expiry")
	}
	cl, err := v.Verify(strings.TrimPrefix(renewed, "Bearer "))
	if err != nil {
		t.Fatalf("renewed token: %v", err)
	}
	iat, _ := cl.Map["iat"].(interface{ Int64() (int64, error) }).Int64()
	if exp := cl.ExpiresAt.Unix(); exp-iat != int64(MintedLifetime/time.Second) || cl.Role != "anon" {
		t.Errorf("claims %s", cl.Raw)
	}
}

func TestFromQuery(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, want string }{
		{"", ""},
		{"apikey=abc&vsn=1.0.0", "abc"},
		{"vsn=1.0.0&apikey=sb_publishable_x%2Dy", "sb_publishable_x-y"},
		{"xapikey=1&apikey=2", "2"},
		{"apikey", ""},
		{"apikey=%zz", "%zz"},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			t.Parallel()
			if got := FromQuery(tc.raw); got != tc.want {
				t.Errorf("FromQuery(%q) = %q, want %q", tc.raw, got, tc.want)
			}
		})
	}
}

// FuzzCheck feeds arbitrary apikey and Authorization values to the
// classifier: it must never panic, always name a role, and only ever
// replace Authorization with a bearer token.
func FuzzCheck(f *testing.F) {
	c := newChecker(f, nil)
	seeds := [][2]string{
		{"", ""},
		{devkeys.AnonKey, ""},
		{devkeys.AnonKey, "Bearer " + devkeys.ServiceRoleKey},
		{devkeys.PublishableKey, "Bearer " + devkeys.PublishableKey},
		{"", "Bearer " + devkeys.SecretKey},
		{"sb_", "Bearer sb_"},
		{"sb_secret_", "bearer"},
		{"eyJ.eyJ.", "Bearer ..."},
		{gwtest.AlgNone("service_role"), "Bearer " + gwtest.AlgNone("anon")},
		{"a.b.c", "BEARER a.b.c"},
		{"\x00\xff", "Bearer \x00"},
		{"eyJhbGciOiJIUzI1NiJ9.e30.", "Basic Zm9vOmJhcg=="},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, key, authz string) {
		r := c.Check(key, authz)
		if r.Role == "" {
			t.Errorf("empty role for %q / %q", key, authz)
		}
		if r.Authorization != "" && !strings.HasPrefix(r.Authorization, "Bearer ") {
			t.Errorf("Authorization %q", r.Authorization)
		}
		if r.Outcome == Invalid && r.Authorization != "" {
			t.Error("an invalid request must not get credentials")
		}
		if strings.HasPrefix(r.Authorization, "Bearer sb_") {
			t.Error("an sb_ key reached the upstream as a bearer")
		}
		_ = FromQuery(key)
	})
}

// TestVerifiedTokenCache checks that a remembered token answers as
// verification would: its role while it lives (as bearer and as apikey),
// invalid once expired beyond the skew, and a token signed with another
// secret is never taken for it.
func TestVerifiedTokenCache(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := newChecker(t, clock)
	user := gwtest.UserToken(t, devkeys.JWTSecret, "cache-user") // expires in an hour
	forged := gwtest.UserToken(t, strings.Repeat("x", 40), "cache-user")
	steps := []struct {
		name     string
		advance  time.Duration
		apikey   string
		auth     string
		wantRole string
		wantOut  Outcome
	}{
		{"first use verifies", 0, devkeys.AnonKey, "Bearer " + user, "authenticated", OK},
		{"again from the cache", time.Minute, devkeys.AnonKey, "Bearer " + user, "authenticated", OK},
		{"as the apikey", 0, user, "", "authenticated", OK},
		{"another secret", 0, devkeys.AnonKey, "Bearer " + forged, RoleInvalid, OK},
		{"within the skew after expiry", time.Hour - time.Minute + jwtverify.DefaultSkew/2, devkeys.AnonKey, "Bearer " + user, "authenticated", OK},
		{"expired beyond the skew", jwtverify.DefaultSkew, devkeys.AnonKey, "Bearer " + user, RoleInvalid, OK},
		{"expired apikey", 0, user, "", RoleInvalid, Invalid},
	}
	for _, s := range steps {
		advance(s.advance)
		res := c.Check(s.apikey, s.auth)
		if res.Role != s.wantRole || res.Outcome != s.wantOut {
			t.Errorf("%s: role %q outcome %d, want %q %d", s.name, res.Role, res.Outcome, s.wantRole, s.wantOut)
		}
	}
}
