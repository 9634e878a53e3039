package api

import (
	"testing"
)

// BenchmarkPasswordSignIn measures POST /token?grant_type=password end to
// end (bcrypt at the production cost 10, session and refresh token rows,
// JWT signing). Run: go test -run '^$' -bench . ./internal/api
func BenchmarkPasswordSignIn(b *testing.B) {
	e := newEnv(b, map[string]string{"GOTRUE_PASSWORD_HASH_COST": "10", "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "0", "GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "0"})
	e.signUpConfirmed("bench@example.com", "password1")
	body := map[string]any{"email": "bench@example.com", "password": "password1"}
	b.ReportAllocs()
	for b.Loop() {
		if r := e.do("POST", "/token?grant_type=password", "", body); r.status != 200 {
			b.Fatalf("%d %s", r.status, r.raw)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "signins/s")
}

// BenchmarkRefreshGrant measures POST /token?grant_type=refresh_token: a
// locked rotation in one transaction, no password hashing.
func BenchmarkRefreshGrant(b *testing.B) {
	e := newEnv(b, map[string]string{"GOTRUE_PASSWORD_HASH_COST": "10", "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "0"})
	s := e.signUpConfirmed("bench@example.com", "password1")
	rt := str(s, "refresh_token")
	b.ReportAllocs()
	for b.Loop() {
		r := e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": rt})
		if r.status != 200 {
			b.Fatalf("%d %s", r.status, r.raw)
		}
		rt = str(r.body, "refresh_token")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "refreshes/s")
}

// BenchmarkPasswordSignInParallel is the machine's sign-in throughput with
// every core hashing.
func BenchmarkPasswordSignInParallel(b *testing.B) {
	e := newEnv(b, map[string]string{"GOTRUE_PASSWORD_HASH_COST": "10", "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "0", "GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "0"})
	e.signUpConfirmed("bench@example.com", "password1")
	body := map[string]any{"email": "bench@example.com", "password": "password1"}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if r := e.do("POST", "/token?grant_type=password", "", body); r.status != 200 {
				b.Errorf("%d %s", r.status, r.raw)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "signins/s")
}

// BenchmarkRefreshGrantParallel rotates many sessions' tokens at once.
func BenchmarkRefreshGrantParallel(b *testing.B) {
	e := newEnv(b, map[string]string{"GOTRUE_PASSWORD_HASH_COST": "4", "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "0"})
	e.signUpConfirmed("bench@example.com", "password1")
	body := map[string]any{"email": "bench@example.com", "password": "password1"}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		// One sign-in per goroutine (hash cost 4): a few ms in the total.
		rt := str(e.do("POST", "/token?grant_type=password", "", body).body, "refresh_token")
		for pb.Next() {
			r := e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": rt})
			if r.status != 200 {
				b.Errorf("%d %s", r.status, r.raw)
				return
			}
			rt = str(r.body, "refresh_token")
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "refreshes/s")
}
