package api

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

func wantErr(t *testing.T, r resp, status int, code string) {
	t.Helper()
	if r.status != status || r.code() != code {
		t.Fatalf("= %d %s, want %d %s", r.status, r.raw, status, code)
	}
	if r.header.Get("x-sb-error-code") != code {
		t.Errorf("x-sb-error-code = %q", r.header.Get("x-sb-error-code"))
	}
}

func wantOK(t *testing.T, r resp) map[string]any {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("= %d %s, want 200", r.status, r.raw)
	}
	return r.body
}

func str(m map[string]any, path ...string) string {
	var v any = m
	for _, p := range path {
		mm, _ := v.(map[string]any)
		v = mm[p]
	}
	s, _ := v.(string)
	return s
}

func TestSignupAutoconfirmAndPasswordErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_MAILER_AUTOCONFIRM": "true"})
	r := e.do("POST", "/signup", "", map[string]any{"email": "Ann@Example.com", "password": "password1", "data": map[string]any{"full_name": "Ann", "role": "buyer"}})
	s := wantOK(t, r)
	if r.header.Get("X-Supabase-Api-Version") != "2024-01-01" {
		t.Errorf("X-Supabase-Api-Version = %q", r.header.Get("X-Supabase-Api-Version"))
	}
	if s["token_type"] != "bearer" || s["expires_in"] != float64(3600) || str(s, "user", "email") != "ann@example.com" || str(s, "user", "user_metadata", "full_name") != "Ann" {
		t.Fatalf("session %s", r.raw)
	}
	m, err := newAPI(Deps{Config: e.cfg, Log: nil, Store: e.store}).signer.Verify(str(s, "access_token"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"iss", "sub", "aud", "exp", "iat", "email", "phone", "app_metadata", "user_metadata", "role", "aal", "amr", "session_id", "is_anonymous"} {
		if _, ok := m[k]; !ok {
			t.Errorf("claim %s missing: %v", k, m)
		}
	}
	if m["iss"] != "http://api.test/auth/v1" || m["aud"] != "authenticated" || m["role"] != "authenticated" || m["aal"] != "aal1" {
		t.Errorf("claims %v", m)
	}
	if um, _ := m["user_metadata"].(map[string]any); um["role"] != "buyer" || um["email_verified"] != true {
		t.Errorf("user_metadata claim %v", m["user_metadata"])
	}

	tests := []struct {
		name   string
		path   string
		body   map[string]any
		status int
		code   string
	}{
		{"duplicate", "/signup", map[string]any{"email": "ann@example.com", "password": "password1"}, 422, "user_already_exists"},
		{"weak", "/signup", map[string]any{"email": "b@example.com", "password": "short"}, 422, "weak_password"},
		{"too long", "/signup", map[string]any{"email": "b@example.com", "password": strings.Repeat("x", 73)}, 400, "validation_failed"},
		{"no password", "/signup", map[string]any{"email": "b@example.com"}, 422, "validation_failed"},
		{"bad email", "/signup", map[string]any{"email": "not-an-email", "password": "password1"}, 400, "email_address_invalid"},
		{"anonymous disabled", "/signup", map[string]any{"data": map[string]any{}}, 422, "anonymous_provider_disabled"},
		{"wrong password", "/token?grant_type=password", map[string]any{"email": "ann@example.com", "password": "password2"}, 400, "invalid_credentials"},
		{"unknown user", "/token?grant_type=password", map[string]any{"email": "nobody@example.com", "password": "password1"}, 400, "invalid_credentials"},
		{"bad grant", "/token?grant_type=magic", map[string]any{}, 400, "invalid_credentials"},
		{"refresh missing", "/token?grant_type=refresh_token", map[string]any{"refresh_token": "nope"}, 400, "refresh_token_not_found"},
		{"pkce unknown", "/token?grant_type=pkce", map[string]any{"auth_code": "x", "code_verifier": "y"}, 404, "flow_state_not_found"},
		{"pkce empty", "/token?grant_type=pkce", map[string]any{}, 400, "validation_failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", tt.path, "", tt.body)
			wantErr(t, r, tt.status, tt.code)
			if tt.code == "weak_password" {
				if wp, _ := r.body["weak_password"].(map[string]any); wp == nil {
					t.Errorf("no weak_password reasons: %s", r.raw)
				}
			}
		})
	}
	wantErr(t, e.do("POST", "/signup", "", []byte(`{"email":`)), 400, "bad_json")
}

func TestSignupConfirmationLinkAndPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	r := e.do("POST", "/signup?redirect_to="+url.QueryEscape("http://app.test/welcome"), "", map[string]any{"email": "c@example.com", "password": "password1"})
	u := wantOK(t, r)
	if _, ok := u["access_token"]; ok || u["confirmation_sent_at"] == nil || u["email_confirmed_at"] != nil {
		t.Fatalf("want a bare unconfirmed user: %s", r.raw)
	}
	wantErr(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "c@example.com", "password": "password1"}), 400, "email_not_confirmed")
	code, link := e.lastMail("c@example.com")
	if len(code) != 6 || !strings.HasPrefix(link, "http://api.test/auth/v1/verify?") {
		t.Fatalf("mail code %q link %q", code, link)
	}
	lu, _ := url.Parse(link)
	v := e.do("GET", "/verify?"+lu.RawQuery, "", nil)
	loc := v.header.Get("Location")
	if v.status != 303 || !strings.HasPrefix(loc, "http://app.test/welcome#access_token=") || !strings.Contains(loc, "&type=signup&sb=") {
		t.Fatalf("verify = %d %s", v.status, loc)
	}
	frag, _ := url.ParseQuery(loc[strings.IndexByte(loc, '#')+1:])
	if frag.Get("refresh_token") == "" || frag.Get("expires_in") != "3600" || frag.Get("token_type") != "bearer" {
		t.Errorf("fragment %v", frag)
	}
	// The link is single-use.
	v = e.do("GET", "/verify?"+lu.RawQuery, "", nil)
	if loc := v.header.Get("Location"); v.status != 303 || !strings.Contains(loc, "#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired") {
		t.Fatalf("reused link = %d %s", v.status, loc)
	}
	// Confirmed: user GET shows it and sign-in works.
	me := wantOK(t, e.do("GET", "/user", frag.Get("access_token"), nil))
	if me["email_confirmed_at"] == nil || len(me["identities"].([]any)) != 1 {
		t.Errorf("user %v", me)
	}
	wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "c@example.com", "password": "password1"}))
	// A second sign-up of a confirmed address answers an obfuscated user.
	ob := wantOK(t, e.do("POST", "/signup", "", map[string]any{"email": "c@example.com", "password": "password1"}))
	if ob["id"] == me["id"] {
		t.Error("obfuscated user leaks the id")
	}
}

func TestRefreshLogoutAndUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL": "10"})
	s := e.signUpConfirmed("d@example.com", "password1")
	at, rt := str(s, "access_token"), str(s, "refresh_token")

	wantErr(t, e.do("GET", "/user", "", nil), 401, "no_authorization")
	wantErr(t, e.do("GET", "/user", "garbage", nil), 403, "bad_jwt")

	n := wantOK(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": rt}))
	rt2 := str(n, "refresh_token")
	if rt2 == rt || str(n, "user", "email") != "d@example.com" {
		t.Fatalf("refresh %v", n)
	}
	again := wantOK(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": rt}))
	if str(again, "refresh_token") != rt2 {
		t.Fatalf("reuse inside interval gave %s, want %s", str(again, "refresh_token"), rt2)
	}
	e.clock.Add(time.Minute)
	wantErr(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": rt}), 400, "refresh_token_already_used")
	wantErr(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": rt2}), 400, "refresh_token_not_found")
	wantErr(t, e.do("GET", "/user", at, nil), 403, "session_not_found")

	s = wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "d@example.com", "password": "password1"}))
	at, rt = str(s, "access_token"), str(s, "refresh_token")
	// Metadata merge: null deletes.
	wantOK(t, e.do("PUT", "/user", at, map[string]any{"data": map[string]any{"a": 1, "b": "x"}}))
	u := wantOK(t, e.do("PUT", "/user", at, map[string]any{"data": map[string]any{"a": nil, "c": true}}))
	um := u["user_metadata"].(map[string]any)
	if _, ok := um["a"]; ok || um["b"] != "x" || um["c"] != true {
		t.Errorf("merged metadata %v", um)
	}
	wantErr(t, e.do("PUT", "/user", at, map[string]any{"password": "password1"}), 422, "same_password")
	wantErr(t, e.do("PUT", "/user", at, map[string]any{"password": "x"}), 422, "weak_password")
	wantOK(t, e.do("PUT", "/user", at, map[string]any{"password": "password2"}))
	wantErr(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "d@example.com", "password": "password1"}), 400, "invalid_credentials")

	wantErr(t, e.do("POST", "/logout?scope=everything", at, nil), 400, "validation_failed")
	if r := e.do("POST", "/logout", at, nil); r.status != 204 {
		t.Fatalf("logout = %d %s", r.status, r.raw)
	}
	wantErr(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": rt}), 400, "refresh_token_not_found")
}

func TestRecoveryOTPExpiryAndSingleUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.signUpConfirmed("r@example.com", "password1")
	wantOK(t, e.do("POST", "/recover", "", map[string]any{"email": "r@example.com"}))
	wantOK(t, e.do("POST", "/recover", "", map[string]any{"email": "unknown@example.com"})) // no enumeration
	code, _ := e.lastMail("r@example.com")
	wantErr(t, e.do("POST", "/verify", "", map[string]any{"type": "recovery", "email": "r@example.com", "token": "000000"}), 403, "otp_expired")
	s := wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "recovery", "email": "r@example.com", "token": code}))
	if str(s, "access_token") == "" {
		t.Fatal("no session")
	}
	wantErr(t, e.do("POST", "/verify", "", map[string]any{"type": "recovery", "email": "r@example.com", "token": code}), 403, "otp_expired")

	// Expiry: a code older than GOTRUE_MAILER_OTP_EXP is dead.
	wantOK(t, e.do("POST", "/otp", "", map[string]any{"email": "r@example.com"}))
	code, _ = e.lastMail("r@example.com")
	e.clock.Add(11 * time.Minute)
	wantErr(t, e.do("POST", "/verify", "", map[string]any{"type": "email", "email": "r@example.com", "token": code}), 403, "otp_expired")
	// A fresh magic-link code works as type=email.
	wantOK(t, e.do("POST", "/otp", "", map[string]any{"email": "r@example.com"}))
	code, link := e.lastMail("r@example.com")
	if !strings.Contains(link, "type=magiclink") {
		t.Errorf("magic link %s", link)
	}
	wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "email", "email": "r@example.com", "token": code}))
	wantErr(t, e.do("POST", "/otp", "", map[string]any{"email": "new@example.com", "create_user": false}), 422, "otp_disabled")
	// OTP sign-up of a new address, confirmed by the code.
	wantOK(t, e.do("POST", "/otp", "", map[string]any{"email": "new@example.com", "data": map[string]any{"full_name": "N"}}))
	code, _ = e.lastMail("new@example.com")
	s = wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "email", "email": "new@example.com", "token": code}))
	if str(s, "user", "email_confirmed_at") == "" || str(s, "user", "user_metadata", "full_name") != "N" {
		t.Errorf("otp user %v", s["user"])
	}
}

func TestPhoneOTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wantOK(t, e.do("POST", "/otp", "", map[string]any{"phone": "+254712345678"}))
	text := e.sms.Last("254712345678")
	code := text[len(text)-6:]
	wantErr(t, e.do("POST", "/verify", "", map[string]any{"type": "sms", "phone": "+254712345678", "token": "111111"}), 403, "otp_expired")
	s := wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "sms", "phone": "+254712345678", "token": code}))
	if str(s, "user", "phone") != "254712345678" || str(s, "user", "phone_confirmed_at") == "" {
		t.Errorf("phone user %v", s["user"])
	}
	wantErr(t, e.do("POST", "/otp", "", map[string]any{"phone": "12"}), 400, "validation_failed")

	// Phone change: a code to the new number, then type=phone_change.
	at := str(s, "access_token")
	u := wantOK(t, e.do("PUT", "/user", at, map[string]any{"phone": "+254711111111"}))
	if u["new_phone"] != "254711111111" {
		t.Fatalf("phone change %v", u)
	}
	text = e.sms.Last("254711111111")
	s = wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "phone_change", "phone": "+254711111111", "token": text[len(text)-6:]}))
	if str(s, "user", "phone") != "254711111111" {
		t.Errorf("after phone change %v", s["user"])
	}
}

// TestPhoneOTPExpiry: an SMS code lives GOTRUE_SMS_OTP_EXP, ten minutes
// unless configured, and is refused with otp_expired afterwards.
func TestPhoneOTPExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		age  time.Duration
		// wantExpired: 403 otp_expired; otherwise a session.
		wantExpired bool
	}{
		{name: "default, just inside ten minutes", age: 10*time.Minute - time.Second},
		{name: "default, just past ten minutes", age: 10*time.Minute + time.Second, wantExpired: true},
		{name: "default, an hour", age: time.Hour, wantExpired: true},
		{name: "configured 60 s, inside", env: map[string]string{"GOTRUE_SMS_OTP_EXP": "60"}, age: 59 * time.Second},
		{name: "configured 60 s, past", env: map[string]string{"GOTRUE_SMS_OTP_EXP": "60"}, age: 61 * time.Second, wantExpired: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tc.env)
			const phone = "254712345679"
			wantOK(t, e.do("POST", "/otp", "", map[string]any{"phone": "+" + phone}))
			text := e.sms.Last(phone)
			code := text[len(text)-6:]
			e.clock.Add(tc.age)
			r := e.do("POST", "/verify", "", map[string]any{"type": "sms", "phone": "+" + phone, "token": code})
			if !tc.wantExpired {
				if s := wantOK(t, r); str(s, "user", "phone_confirmed_at") == "" {
					t.Errorf("phone user %v", s["user"])
				}
				return
			}
			wantErr(t, r, 403, "otp_expired")
			if msg, _ := r.body["message"].(string); msg != "Token has expired or is invalid" {
				t.Errorf("message %q", msg)
			}
		})
	}
}

// auth.admin.deleteUser(id, true): the user stays, under obfuscated
// contacts and without a password or sessions; the address can sign up
// again; a second soft delete changes nothing.
func TestAdminSoftDeleteUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	s := e.signUpConfirmed("leaver@example.com", "password1")
	id := str(s, "user", "id")
	soft := map[string]any{"should_soft_delete": true}

	wantErr(t, e.do("DELETE", "/admin/users/"+id, e.serviceKey(), []byte(`{"should_soft_delete":`)), 400, "bad_json")
	wantOK(t, e.do("DELETE", "/admin/users/"+id, e.serviceKey(), soft))
	u := wantOK(t, e.do("GET", "/admin/users/"+id, e.serviceKey(), nil))
	deletedAt := str(u, "deleted_at")
	if deletedAt == "" || str(u, "email") == "leaver@example.com" || str(u, "email") == "" {
		t.Fatalf("after a soft delete: email %q, deleted_at %q", str(u, "email"), deletedAt)
	}
	wantErr(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "leaver@example.com", "password": "password1"}), 400, "invalid_credentials")
	wantErr(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": str(s, "refresh_token")}), 400, "refresh_token_not_found")
	wantOK(t, e.do("POST", "/admin/users", e.serviceKey(), map[string]any{"email": "leaver@example.com", "password": "password2", "email_confirm": true}))

	wantOK(t, e.do("DELETE", "/admin/users/"+id, e.serviceKey(), soft))
	if again := wantOK(t, e.do("GET", "/admin/users/"+id, e.serviceKey(), nil)); str(again, "deleted_at") != deletedAt {
		t.Errorf("a second soft delete moved deleted_at from %s to %s", deletedAt, str(again, "deleted_at"))
	}
	// Without the flag the row goes.
	wantOK(t, e.do("DELETE", "/admin/users/"+id, e.serviceKey(), map[string]any{"should_soft_delete": false}))
	wantErr(t, e.do("GET", "/admin/users/"+id, e.serviceKey(), nil), 404, "user_not_found")
}

func TestAdminAndBan(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	s := e.signUpConfirmed("admin1@example.com", "password1")
	user := str(s, "access_token")
	for i := range 3 {
		wantOK(t, e.do("POST", "/admin/users", e.serviceKey(), map[string]any{"email": "u" + string(rune('a'+i)) + "@example.com", "password": "password1", "email_confirm": true}))
	}
	wantErr(t, e.do("GET", "/admin/users", user, nil), 403, "not_admin")
	wantErr(t, e.do("GET", "/admin/users", "", nil), 401, "no_authorization")
	wantErr(t, e.do("POST", "/admin/users", e.serviceKey(), map[string]any{"email": "ua@example.com"}), 422, "email_exists")
	r := e.do("GET", "/admin/users?page=1&per_page=2", e.serviceKey(), nil)
	body := wantOK(t, r)
	if len(body["users"].([]any)) != 2 || r.header.Get("X-Total-Count") != "4" || !strings.Contains(r.header.Get("Link"), `page=2&per_page=2>; rel="next"`) {
		t.Fatalf("list = %s %v", r.raw, r.header)
	}
	id := str(s, "user", "id")
	wantOK(t, e.do("GET", "/admin/users/"+id, e.serviceKey(), nil))
	wantErr(t, e.do("GET", "/admin/users/00000000-0000-0000-0000-000000000001", e.serviceKey(), nil), 404, "user_not_found")
	wantErr(t, e.do("PUT", "/admin/users/"+id, e.serviceKey(), map[string]any{"ban_duration": "forever"}), 400, "validation_failed")
	u := wantOK(t, e.do("PUT", "/admin/users/"+id, e.serviceKey(), map[string]any{"ban_duration": "24h", "app_metadata": map[string]any{"tier": "gold"}}))
	if u["banned_until"] == nil || str(u, "app_metadata", "tier") != "gold" {
		t.Fatalf("ban %v", u)
	}
	wantErr(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "admin1@example.com", "password": "password1"}), 400, "user_banned")
	wantErr(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": str(s, "refresh_token")}), 400, "refresh_token_not_found")
	wantOK(t, e.do("PUT", "/admin/users/"+id, e.serviceKey(), map[string]any{"ban_duration": "none"}))
	wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "admin1@example.com", "password": "password1"}))
	wantOK(t, e.do("DELETE", "/admin/users/"+id, e.serviceKey(), nil))
	wantErr(t, e.do("GET", "/admin/users/"+id, e.serviceKey(), nil), 404, "user_not_found")

	gl := wantOK(t, e.do("POST", "/admin/generate_link", e.serviceKey(), map[string]any{"type": "magiclink", "email": "ub@example.com"}))
	if !strings.Contains(str(gl, "action_link"), "type=magiclink") || len(str(gl, "email_otp")) != 6 {
		t.Fatalf("generate_link %v", gl)
	}
	wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "magiclink", "token_hash": str(gl, "hashed_token")}))
}

func TestMFATOTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	s := e.signUpConfirmed("m@example.com", "password1")
	at := str(s, "access_token")
	wantErr(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "sms"}), 400, "validation_failed")
	f := wantOK(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "totp", "friendly_name": "phone app", "issuer": "KejaNest"}))
	if !strings.HasPrefix(str(f, "totp", "qr_code"), "<svg") || !strings.HasPrefix(str(f, "totp", "uri"), "otpauth://totp/KejaNest:m@example.com") {
		t.Fatalf("enroll %v", f)
	}
	wantErr(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "totp", "friendly_name": "phone app"}), 422, "mfa_factor_name_conflict")
	fid := str(f, "id")
	ch := wantOK(t, e.do("POST", "/factors/"+fid+"/challenge", at, map[string]any{"factorId": fid}))
	wantErr(t, e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"), "code": "000000"}), 422, "mfa_verification_failed")
	wantErr(t, e.do("POST", "/factors/00000000-0000-0000-0000-000000000009/challenge", at, nil), 404, "mfa_factor_not_found")
	code, _ := totp.GenerateCode(str(f, "totp", "secret"), e.clock.Now())
	v := wantOK(t, e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"), "code": code}))
	m, err := newAPI(Deps{Config: e.cfg, Store: e.store}).signer.Verify(str(v, "access_token"), time.Now())
	if err != nil || m["aal"] != "aal2" || !strings.Contains(toJSON(m["amr"]), `"totp"`) {
		t.Fatalf("aal2 claims %v %v", m, err)
	}
	// The challenge is dead after use.
	wantErr(t, e.do("POST", "/factors/"+fid+"/verify", str(v, "access_token"), map[string]any{"challenge_id": str(ch, "id"), "code": code}), 422, "mfa_challenge_expired")
	// An aal1 session cannot remove a verified factor or enroll another.
	s2 := wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "m@example.com", "password": "password1"}))
	wantErr(t, e.do("DELETE", "/factors/"+fid, str(s2, "access_token"), nil), 422, "insufficient_aal")
	wantErr(t, e.do("POST", "/factors", str(s2, "access_token"), map[string]any{"factor_type": "totp", "friendly_name": "two"}), 403, "insufficient_aal")
	d := wantOK(t, e.do("DELETE", "/factors/"+fid, str(v, "access_token"), nil))
	if d["id"] != fid {
		t.Errorf("unenroll %v", d)
	}
}

func TestPKCESignup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	verifier := "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	challenge := "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	wantOK(t, e.do("POST", "/signup", "", map[string]any{"email": "p@example.com", "password": "password1", "code_challenge": challenge, "code_challenge_method": "s256"}))
	_, link := e.lastMail("p@example.com")
	if !strings.Contains(link, "token=pkce_") {
		t.Fatalf("link %s", link)
	}
	lu, _ := url.Parse(link)
	v := e.do("GET", "/verify?"+lu.RawQuery, "", nil)
	loc, _ := url.Parse(v.header.Get("Location"))
	code := loc.Query().Get("code")
	if v.status != 303 || code == "" {
		t.Fatalf("verify = %d %s", v.status, v.header.Get("Location"))
	}
	wantErr(t, e.do("POST", "/token?grant_type=pkce", "", map[string]any{"auth_code": code, "code_verifier": strings.Repeat("a", 43)}), 400, "bad_code_verifier")
	s := wantOK(t, e.do("POST", "/token?grant_type=pkce", "", map[string]any{"auth_code": code, "code_verifier": verifier}))
	if str(s, "user", "email") != "p@example.com" {
		t.Fatalf("pkce session %v", s)
	}
	wantErr(t, e.do("POST", "/token?grant_type=pkce", "", map[string]any{"auth_code": code, "code_verifier": verifier}), 404, "flow_state_not_found")
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "2/1h", "GOTRUE_SMTP_MAX_FREQUENCY": "60s", "GOTRUE_RATE_LIMIT_EMAIL_SENT": "2/1h"})
	body := map[string]any{"email": "x@example.com", "password": "password1"}
	e.do("POST", "/token?grant_type=password", "", body)
	e.do("POST", "/token?grant_type=password", "", body)
	wantErr(t, e.do("POST", "/token?grant_type=password", "", body), 429, "over_request_rate_limit")

	wantOK(t, e.do("POST", "/signup", "", map[string]any{"email": "y@example.com", "password": "password1"}))
	r := e.do("POST", "/resend", "", map[string]any{"type": "signup", "email": "y@example.com"})
	wantErr(t, r, 429, "over_email_send_rate_limit")
	if !strings.Contains(r.body["message"].(string), "after 60 seconds") {
		t.Errorf("message %s", r.raw)
	}
	e.clock.Add(61 * time.Second)
	wantOK(t, e.do("POST", "/resend", "", map[string]any{"type": "signup", "email": "y@example.com"}))
	e.clock.Add(61 * time.Second)
	wantErr(t, e.do("POST", "/resend", "", map[string]any{"type": "signup", "email": "y@example.com"}), 429, "over_email_send_rate_limit")
}

// signInStep is one or more identical password sign-ins in a lockout
// scenario, from the source address ip (the gateway's X-Real-IP).
type signInStep struct {
	name  string
	wait  time.Duration // clock advance before it
	ip    string
	body  map[string]any
	times int // repetitions; 0 means 1
	// status and code every repetition must get; code "" for 200.
	status int
	code   string
}

// TestPasswordSignInLockout: failed password sign-ins are counted per
// account and source address, with a cap per account over all sources, so
// neither one guesser nor many can lock the owner out, and a guesser meets
// a limit however many addresses it spreads over.
func TestPasswordSignInLockout(t *testing.T) {
	t.Parallel()
	victim := func(pw string) map[string]any { return map[string]any{"email": "victim@example.com", "password": pw} }
	phone := func(number, pw string) map[string]any { return map[string]any{"phone": number, "password": pw} }
	const right = "password1"
	tests := []struct {
		name  string
		env   map[string]string
		steps []signInStep
	}{
		{
			// Issue 12: 30 wrong passwords used to lock the account for
			// everyone. The default limits.
			name: "one guesser cannot lock the owner out",
			steps: []signInStep{
				{name: "guesses", ip: "198.51.100.1", body: victim("guess"), times: 30, status: 400, code: "invalid_credentials"},
				{name: "the guesser's address is limited", ip: "198.51.100.1", body: victim("guess"), times: 5, status: 429, code: "over_request_rate_limit"},
				{name: "there, even with the right password", ip: "198.51.100.1", body: victim(right), status: 429, code: "over_request_rate_limit"},
				{name: "the owner from elsewhere", ip: "203.0.113.9", body: victim(right), status: 200},
				{name: "the owner's address keeps its own budget", ip: "203.0.113.9", body: victim("typo"), times: 2, status: 400, code: "invalid_credentials"},
				{name: "and signs in after typos", ip: "203.0.113.9", body: victim(right), status: 200},
				{name: "another account from the guesser's address", ip: "198.51.100.1", body: map[string]any{"email": "bystander@example.com", "password": right}, status: 200},
				{name: "the guesser, 5 minutes later", wait: 5 * time.Minute, ip: "198.51.100.1", body: victim("guess"), status: 400, code: "invalid_credentials"},
			},
		},
		{
			name: "many guessers spend the account's cap; the owner still signs in",
			env:  map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "5/5m", "GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN_ACCOUNT": "10/1h"},
			steps: []signInStep{
				{name: "guesser 1", ip: "198.51.100.1", body: victim("guess"), times: 5, status: 400, code: "invalid_credentials"},
				{name: "guesser 2, the cap is spent", ip: "198.51.100.2", body: victim("guess"), times: 5, status: 400, code: "invalid_credentials"},
				{name: "guesser 1, its own budget back", wait: 5 * time.Minute, ip: "198.51.100.1", body: victim("guess"), status: 429, code: "over_request_rate_limit"},
				{name: "a fresh guesser gets 3 tries, not 5", ip: "198.51.100.3", body: victim("guess"), times: 3, status: 400, code: "invalid_credentials"},
				{name: "then no more", ip: "198.51.100.3", body: victim("guess"), status: 429, code: "over_request_rate_limit"},
				{name: "an IPv6 guesser gets 3 tries", ip: "2001:db8:0:1::1", body: victim("guess"), times: 3, status: 400, code: "invalid_credentials"},
				{name: "for its whole /64", ip: "2001:db8:0:1::2", body: victim("guess"), status: 429, code: "over_request_rate_limit"},
				{name: "the owner, who has not been guessing", ip: "203.0.113.9", body: victim(right), status: 200},
				{name: "the owner elsewhere mistypes", ip: "203.0.113.10", body: victim("typo"), times: 2, status: 400, code: "invalid_credentials"},
				{name: "and still signs in", ip: "203.0.113.10", body: victim(right), status: 200},
				{name: "other accounts are untouched", ip: "198.51.100.1", body: map[string]any{"email": "bystander@example.com", "password": right}, status: 200},
			},
		},
		{
			name: "a correct sign-in resets the source's count",
			env:  map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "3/5m"},
			steps: []signInStep{
				{name: "typos", ip: "203.0.113.9", body: victim("typo"), times: 2, status: 400, code: "invalid_credentials"},
				{name: "sign-in", ip: "203.0.113.9", body: victim(right), status: 200},
				{name: "typos again, a full budget", ip: "203.0.113.9", body: victim("typo"), times: 3, status: 400, code: "invalid_credentials"},
				{name: "then limited", ip: "203.0.113.9", body: victim("typo"), status: 429, code: "over_request_rate_limit"},
			},
		},
		{
			name: "an address is counted however it is spelled, with or without an account",
			env:  map[string]string{"GOTRUE_RATE_LIMIT_PASSWORD_SIGN_IN": "3/5m"},
			steps: []signInStep{
				{name: "guess 1", ip: "198.51.100.1", body: victim("guess-one"), times: 2, status: 400, code: "invalid_credentials"},
				{name: "guess 3, other case", ip: "198.51.100.1", body: map[string]any{"email": " Victim@Example.COM", "password": "guess-three"}, status: 400, code: "invalid_credentials"},
				{name: "guess 4 refused", ip: "198.51.100.1", body: victim("guess-four"), status: 429, code: "over_request_rate_limit"},
				{name: "phone guesses", ip: "198.51.100.1", body: phone("+254700000042", "guess"), times: 2, status: 400, code: "invalid_credentials"},
				{name: "phone guess, other spelling", ip: "198.51.100.1", body: phone("254 700 000 042", "guess"), status: 400, code: "invalid_credentials"},
				{name: "phone guess refused", ip: "198.51.100.1", body: phone("+254700000042", "guess"), status: 429, code: "over_request_rate_limit"},
				{name: "no such account", ip: "198.51.100.1", body: map[string]any{"email": "nobody@example.com", "password": "guess"}, times: 3, status: 400, code: "invalid_credentials"},
				{name: "no such account, refused alike", ip: "198.51.100.1", body: map[string]any{"email": "nobody@example.com", "password": "guess"}, status: 429, code: "over_request_rate_limit"},
				{name: "the phone's owner from elsewhere", ip: "203.0.113.9", body: phone("+254700000042", right), status: 200},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tt.env)
			e.signUpConfirmed("victim@example.com", right)
			e.signUpConfirmed("bystander@example.com", right)
			wantOK(t, e.do("POST", "/admin/users", e.serviceKey(), map[string]any{"phone": "+254700000042", "password": right, "phone_confirm": true}))
			// Out of every window, so that the scenario starts afresh even
			// where successes count (they did before issue 12).
			e.clock.Add(2 * time.Hour)
			for _, st := range tt.steps {
				e.clock.Add(st.wait)
				for n := range max(st.times, 1) {
					r := e.doH("POST", "/token?grant_type=password", "", st.body, map[string]string{"X-Real-IP": st.ip})
					if r.status != st.status || (st.code != "" && r.code() != st.code) {
						t.Fatalf("%s (%d of %d): %d %s, want %d %s", st.name, n+1, max(st.times, 1), r.status, r.raw, st.status, st.code)
					}
					if st.code != "" && r.header.Get("x-sb-error-code") != st.code {
						t.Errorf("%s: x-sb-error-code = %q", st.name, r.header.Get("x-sb-error-code"))
					}
				}
			}
		})
	}
}

func TestAnonymousAndEmailChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"})
	s := wantOK(t, e.do("POST", "/signup", "", map[string]any{"data": map[string]any{"k": "v"}}))
	if s["user"].(map[string]any)["is_anonymous"] != true {
		t.Fatalf("anonymous %v", s)
	}
	// An anonymous user becomes permanent by confirming an email.
	wantOK(t, e.do("PUT", "/user", str(s, "access_token"), map[string]any{"email": "anon@example.com"}))
	code, _ := e.lastMail("anon@example.com")
	p := wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "email_change", "email": "anon@example.com", "token": code}))
	if pu := p["user"].(map[string]any); pu["is_anonymous"] != false || pu["email"] != "anon@example.com" || len(pu["identities"].([]any)) != 1 {
		t.Fatalf("converted %v", pu)
	}
	wantOK(t, e.do("PUT", "/user", str(p, "access_token"), map[string]any{"password": "password9"}))
	wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "anon@example.com", "password": "password9"}))
	s = e.signUpConfirmed("old@example.com", "password1")
	at := str(s, "access_token")
	u := wantOK(t, e.do("PUT", "/user", at, map[string]any{"email": "new@example.com"}))
	if u["new_email"] != "new@example.com" || u["email"] != "old@example.com" {
		t.Fatalf("email change %v", u)
	}
	newCode, _ := e.lastMail("new@example.com")
	oldCode, _ := e.lastMail("old@example.com")
	r := wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "email_change", "email": "new@example.com", "token": newCode}))
	if r["msg"] == nil {
		t.Fatalf("first half %v", r)
	}
	r = wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "email_change", "email": "old@example.com", "token": oldCode}))
	if str(r, "user", "email") != "new@example.com" {
		t.Fatalf("email change done %v", r)
	}
}

func toJSON(v any) string {
	b, _ := jsonMarshal(v)
	return string(b)
}
