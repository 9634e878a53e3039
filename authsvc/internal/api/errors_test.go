package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Error paths that need a particular configuration or state, each with its
// GoTrue code and status.
func TestConfiguredRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		env    map[string]string
		method string
		path   string
		body   map[string]any
		status int
		code   string
	}{
		{"signups disabled", map[string]string{"GOTRUE_DISABLE_SIGNUP": "true"}, "POST", "/signup", map[string]any{"email": "a@example.com", "password": "password1"}, 422, "signup_disabled"},
		{"email provider disabled", map[string]string{"GOTRUE_EXTERNAL_EMAIL_ENABLED": "false"}, "POST", "/signup", map[string]any{"email": "a@example.com", "password": "password1"}, 422, "email_provider_disabled"},
		{"phone provider disabled", map[string]string{"GOTRUE_EXTERNAL_PHONE_ENABLED": "false"}, "POST", "/signup", map[string]any{"phone": "+254700000009", "password": "password1"}, 422, "phone_provider_disabled"},
		{"otp signups disabled", map[string]string{"GOTRUE_DISABLE_SIGNUP": "true"}, "POST", "/otp", map[string]any{"email": "a@example.com"}, 422, "signup_disabled"},
		{"google not enabled", nil, "GET", "/authorize?provider=google", nil, 400, "validation_failed"},
		{"bad verify type", nil, "POST", "/verify", map[string]any{"type": "nope", "token": "1"}, 400, "validation_failed"},
		{"verify without token", nil, "POST", "/verify", map[string]any{"type": "email", "email": "a@example.com"}, 400, "validation_failed"},
		{"resend bad type", nil, "POST", "/resend", map[string]any{"type": "nope"}, 400, "validation_failed"},
		{"pkce half", nil, "POST", "/signup", map[string]any{"email": "a@example.com", "password": "password1", "code_challenge": "x"}, 400, "validation_failed"},
		{"otp nothing", nil, "POST", "/otp", map[string]any{}, 400, "validation_failed"},
		{"rate limit 0 disables", map[string]string{"GOTRUE_RATE_LIMIT_OTP": "0"}, "POST", "/recover", map[string]any{"email": "bad"}, 400, "email_address_invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tt.env)
			wantErr(t, e.do(tt.method, tt.path, "", tt.body), tt.status, tt.code)
		})
	}
}

func TestStateRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_MFA_MAX_ENROLLED_FACTORS": "1", "GOTRUE_SESSIONS_TIMEBOX": "1h", "GOTRUE_JWT_EXP": "600"})
	s := e.signUpConfirmed("s@example.com", "password1")
	at := str(s, "access_token")

	// Phone sign-in of an unconfirmed number.
	wantOK(t, e.do("POST", "/signup", "", map[string]any{"phone": "+254700000010", "password": "password1"}))
	wantErr(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"phone": "+254700000010", "password": "password1"}), 400, "phone_not_confirmed")

	// Too many factors.
	wantOK(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "totp", "friendly_name": "one"}))
	wantErr(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "totp", "friendly_name": "two"}), 422, "too_many_enrolled_mfa_factors")

	// Admin routes refuse users.
	wantErr(t, e.do("POST", "/admin/generate_link", at, map[string]any{"type": "magiclink", "email": "s@example.com"}), 403, "not_admin")

	// An expired access token is a bad_jwt.
	e.clock.Add(11 * time.Minute)
	wantErr(t, e.do("GET", "/user", at, nil), 403, "bad_jwt")
	// The session timebox ends refreshes.
	e.clock.Add(time.Hour)
	wantErr(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": str(s, "refresh_token")}), 400, "session_expired")

	// A token whose user is gone.
	s = wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "s@example.com", "password": "password1"}))
	wantOK(t, e.do("DELETE", "/admin/users/"+str(s, "user", "id"), e.serviceKey(), nil))
	wantErr(t, e.do("GET", "/user", str(s, "access_token"), nil), 403, "user_not_found")

	// The anon key has no subject.
	wantErr(t, e.do("GET", "/user", e.anonKey(), nil), 403, "bad_jwt")
}

func TestPKCEExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	verifier := "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	wantOK(t, e.do("POST", "/otp", "", map[string]any{"email": "px@example.com", "code_challenge": pkceS256(verifier), "code_challenge_method": "s256"}))
	code, _ := e.lastMail("px@example.com")
	_ = code
	_, link := e.lastMail("px@example.com")
	r := e.do("GET", "/verify?"+link[len("http://api.test/auth/v1/verify?"):], "", nil)
	if r.status != 303 {
		t.Fatalf("verify %d", r.status)
	}
	loc := r.header.Get("Location")
	authCode := loc[len("http://app.test?code="):]
	e.clock.Add(6 * time.Minute)
	wantErr(t, e.do("POST", "/token?grant_type=pkce", "", map[string]any{"auth_code": authCode, "code_verifier": verifier}), 422, "flow_state_expired")
}

func TestLeakedPasswordCheck(t *testing.T) {
	t.Parallel()
	// SHA-1("password1") = E38AD214943DAAD1D64C102FAEC29DE4AFE9DA3D.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/range/E38AD" {
			_, _ = w.Write([]byte("214943DAAD1D64C102FAEC29DE4AFE9DA3D:2413945\r\n"))
			return
		}
		_, _ = w.Write([]byte("00000000000000000000000000000000000:1\r\n"))
	}))
	defer srv.Close()
	e := newEnv(t, map[string]string{"GOTRUE_PASSWORD_HIBP_ENABLED": "true", "GOTRUE_PASSWORD_HIBP_URL": srv.URL, "GOTRUE_MAILER_AUTOCONFIRM": "true"})
	r := e.do("POST", "/signup", "", map[string]any{"email": "h@example.com", "password": "password1"})
	wantErr(t, r, 422, "weak_password")
	if !strings.Contains(r.raw, `"reasons":["pwned"]`) {
		t.Errorf("body %s", r.raw)
	}
	wantOK(t, e.do("POST", "/signup", "", map[string]any{"email": "h@example.com", "password": "unusual-passphrase-77"}))
}
