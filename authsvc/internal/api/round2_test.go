package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/kejanest/kejanest/authsvc/internal/oidc"
)

// idToken signs claims (over iss, aud "cid", exp) with the provider's key,
// as Google's SDK would hand them to an app.
func (o *oidcServer) idToken(t *testing.T, claims map[string]any) string {
	t.Helper()
	m := map[string]any{"iss": o.URL, "aud": "cid", "exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix()}
	for k, v := range claims {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	payload, _ := json.Marshal(m)
	hdr := jws.NewHeaders()
	_ = hdr.Set(jws.KeyIDKey, "g1")
	tok, err := jws.Sign(payload, jws.WithKey(jwa.RS256(), o.key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

func hashNonce(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// wantOAuthErr checks GoTrue's OAuth error body.
func wantOAuthErr(t *testing.T, r resp, name, desc string) {
	t.Helper()
	if r.status != 400 || r.body["error"] != name || r.body["error_description"] != desc || r.header.Get("x-sb-error-code") != "" {
		t.Fatalf("= %d %s (x-sb-error-code %q), want 400 {error:%q, error_description:%q}", r.status, r.raw, r.header.Get("x-sb-error-code"), name, desc)
	}
}

func TestDisabledFeatures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	user := str(e.signUpConfirmed("d@example.com", "password-123"), "access_token")
	tests := []struct {
		name, method, target, bearer string
		status                       int
		code, message                string
	}{
		{"sso by domain", "POST", "/sso", "", 404, "saml_provider_disabled", "SAML 2.0 is disabled"},
		{"saml metadata", "GET", "/sso/saml/metadata", "", 404, "saml_provider_disabled", "SAML 2.0 is disabled"},
		{"saml acs", "POST", "/sso/saml/acs", "", 404, "saml_provider_disabled", "SAML 2.0 is disabled"},
		{"admin sso providers, not an admin", "GET", "/admin/sso/providers", user, 403, "not_admin", "User not allowed"},
		{"admin sso providers", "GET", "/admin/sso/providers", e.serviceKey(), 404, "saml_provider_disabled", "SAML 2.0 is disabled"},
		{"web3", "POST", "/token?grant_type=web3", "", 422, "web3_provider_disabled", "Web3 provider is disabled"},
		{"link identity, manual linking off", "GET", "/user/identities/authorize?provider=google", user, 404, "manual_linking_disabled", "Manual linking is disabled"},
		{"unlink identity, manual linking off", "DELETE", "/user/identities/" + "00000000-0000-0000-0000-000000000000", user, 404, "manual_linking_disabled", "Manual linking is disabled"},
		{"id_token grant, google off", "POST", "/token?grant_type=id_token", "", 400, "provider_disabled", `Provider (issuer "https://accounts.google.com") is not enabled`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.method, tt.target, tt.bearer, map[string]any{"domain": "example.com", "chain": "solana", "provider": "google", "id_token": "x"})
			wantErr(t, r, tt.status, tt.code)
			if r.body["message"] != tt.message {
				t.Errorf("message %q, want %q", r.body["message"], tt.message)
			}
		})
	}
}

func TestIDTokenGrant(t *testing.T) {
	t.Parallel()
	e, o := newGoogleEnv(t)
	const nonce = "raw-nonce"
	good := map[string]any{"sub": "g-idt", "email": "idt@gmail.example", "email_verified": true, "name": "Wanjiru", "nonce": hashNonce(nonce)}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range good {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	refusals := []struct {
		name   string
		body   map[string]any
		oauth  [2]string // OAuth error, else the coded one below
		status int
		code   string
	}{
		{name: "no id_token", body: map[string]any{"provider": "google"}, oauth: [2]string{"invalid request", "id_token required"}},
		{name: "no provider", body: map[string]any{"id_token": "x"}, oauth: [2]string{"invalid request", "provider or client_id and issuer required"}},
		{name: "another provider", body: map[string]any{"id_token": "x", "provider": "github"}, status: 400, code: "validation_failed"},
		{name: "another issuer", body: map[string]any{"id_token": "x", "client_id": "cid", "issuer": "https://evil.example"}, status: 400, code: "validation_failed"},
		{name: "not a jwt", body: map[string]any{"id_token": "x", "provider": "google"}, oauth: [2]string{"invalid request", "Bad ID token"}},
		{name: "expired", body: map[string]any{"id_token": o.idToken(t, with("exp", time.Now().Add(-time.Minute).Unix())), "provider": "google", "nonce": nonce},
			oauth: [2]string{"invalid request", "Bad ID token"}},
		{name: "other issuer inside", body: map[string]any{"id_token": o.idToken(t, with("iss", "https://accounts.google.com")), "provider": "google", "nonce": nonce},
			oauth: [2]string{"invalid request", "Bad ID token"}},
		{name: "other audience", body: map[string]any{"id_token": o.idToken(t, with("aud", "someone-else")), "provider": "google", "nonce": nonce},
			oauth: [2]string{"invalid request", "Unacceptable audience in id_token"}},
		{name: "nonce not passed", body: map[string]any{"id_token": o.idToken(t, good), "provider": "google"},
			oauth: [2]string{"invalid request", "Passed nonce and nonce in id_token should either both exist or not."}},
		{name: "nonce passed, none in token", body: map[string]any{"id_token": o.idToken(t, with("nonce", nil)), "provider": "google", "nonce": nonce},
			oauth: [2]string{"invalid request", "Passed nonce and nonce in id_token should either both exist or not."}},
		{name: "nonce mismatch", body: map[string]any{"id_token": o.idToken(t, good), "provider": "google", "nonce": "another"},
			oauth: [2]string{"invalid nonce", "Nonces mismatch"}},
		{name: "raw nonce in the token", body: map[string]any{"id_token": o.idToken(t, with("nonce", nonce)), "provider": "google", "nonce": nonce},
			oauth: [2]string{"invalid nonce", "Nonces mismatch"}},
		{name: "link without manual linking", body: map[string]any{"id_token": o.idToken(t, good), "provider": "google", "nonce": nonce, "link_identity": true},
			status: 404, code: "manual_linking_disabled"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/token?grant_type=id_token", "", tt.body)
			if tt.oauth[0] != "" {
				wantOAuthErr(t, r, tt.oauth[0], tt.oauth[1])
			} else {
				wantErr(t, r, tt.status, tt.code)
			}
		})
	}
	if n := e.superQuery(`select count(*) from auth.users`).(int64); n != 0 {
		t.Fatalf("%d users after refusals", n)
	}

	// A good token signs up, then signs in the same user; the issuer
	// may name the provider instead of "provider".
	first := wantOK(t, e.do("POST", "/token?grant_type=id_token", "", map[string]any{"id_token": o.idToken(t, good), "provider": "google", "nonce": nonce}))
	uid := str(first, "user", "id")
	if str(first, "user", "email") != "idt@gmail.example" || str(first, "user", "app_metadata", "provider") != "google" || str(first, "user", "user_metadata", "full_name") != "Wanjiru" {
		t.Errorf("user %v", first["user"])
	}
	if got := wantOK(t, e.do("GET", "/user", str(first, "access_token"), nil)); str(got, "id") != uid {
		t.Errorf("session user %v", got)
	}
	again := wantOK(t, e.do("POST", "/token?grant_type=id_token", "", map[string]any{"id_token": o.idToken(t, with("nonce", nil)), "client_id": "cid", "issuer": o.URL}))
	if str(again, "user", "id") != uid {
		t.Errorf("second sign-in user %s, want %s", str(again, "user", "id"), uid)
	}
	if got := e.identityProviders(uid); !slices.Equal(got, []string{"google"}) {
		t.Errorf("identities %v", got)
	}
}

// TestIDTokenGrantAudiences: every id of GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID is
// an acceptable audience, and GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK lets a
// token whose nonce the client cannot show through.
func TestIDTokenGrantAudiences(t *testing.T) {
	t.Parallel()
	e, o := newGoogleEnvWith(t, map[string]string{"GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "cid,android-cid", "GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK": "true"})
	ids := e.cfg.Auth.Google.ClientIDs()
	g := oidc.New(oidc.Config{Issuer: o.URL, ClientID: ids[0], Audiences: ids, ClientSecret: "csecret", RedirectURI: "http://api.test/auth/v1/callback"})
	e.app = New(Deps{Config: e.cfg, Log: discardLog(), Store: e.store, Mailer: e.mail, SMS: e.sms, Google: g, Now: e.clock.Now})
	tok := o.idToken(t, map[string]any{"sub": "g-android", "aud": "android-cid", "nonce": hashNonce("lost")})
	r := wantOK(t, e.do("POST", "/token?grant_type=id_token", "", map[string]any{"id_token": tok, "provider": "google"}))
	if str(r, "access_token") == "" {
		t.Fatalf("no session: %v", r)
	}
	wantOAuthErr(t, e.do("POST", "/token?grant_type=id_token", "", map[string]any{"id_token": o.idToken(t, map[string]any{"sub": "x", "aud": "ios-cid"}), "provider": "google"}),
		"invalid request", "Unacceptable audience in id_token")
}

func TestManualIdentityLinking(t *testing.T) {
	t.Parallel()
	e, o := newGoogleEnvWith(t, map[string]string{"GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true"})
	sess := e.signUpConfirmed("owner@example.com", "password-123")
	at, uid := str(sess, "access_token"), str(sess, "user", "id")

	wantErr(t, e.do("GET", "/user/identities/authorize?provider=google", "", nil), 401, "no_authorization")

	// Through the provider: the callback links, and signs the user in.
	o.setNext(map[string]any{"sub": "g-owner", "email": "owner.g@gmail.example", "email_verified": true})
	r := e.do("GET", "/user/identities/authorize?provider=google&skip_http_redirect=true&redirect_to="+url.QueryEscape("http://app.test/home"), at, nil)
	target := str(wantOK(t, r), "url")
	loc := e.googleCallback(e.providerAnswer(target))
	linked := fragmentValues(loc).Get("access_token")
	if got := wantOK(t, e.do("GET", "/user", linked, nil)); str(got, "id") != uid || str(got, "email") != "owner@example.com" {
		t.Fatalf("after linking (landing %s): %v", loc, got)
	}
	if got := e.identityProviders(uid); !slices.Equal(got, []string{"email", "google"}) {
		t.Fatalf("identities %v", got)
	}

	// The same Google account again, for this user or another.
	o.setNext(map[string]any{"sub": "g-owner", "email": "owner.g@gmail.example", "email_verified": true})
	again := e.googleCallback(e.providerAnswer(str(wantOK(t, e.do("GET", "/user/identities/authorize?provider=google&skip_http_redirect=true", at, nil)), "url")))
	if f := fragmentValues(again); f.Get("error_code") != "identity_already_exists" || f.Get("error_description") != "Identity is already linked" {
		t.Errorf("linking twice lands %s", again)
	}
	other := str(e.signUpConfirmed("other@example.com", "password-123"), "access_token")
	tok := o.idToken(t, map[string]any{"sub": "g-owner", "email": "owner.g@gmail.example", "email_verified": true})
	wantErr(t, e.do("POST", "/token?grant_type=id_token", other, map[string]any{"id_token": tok, "provider": "google", "link_identity": true}), 422, "identity_already_exists")
	wantErr(t, e.do("POST", "/token?grant_type=id_token", "", map[string]any{"id_token": tok, "provider": "google", "link_identity": true}), 401, "no_authorization")

	// A second provider account by id_token, a minute later.
	e.clock.Add(time.Minute)
	tok2 := o.idToken(t, map[string]any{"sub": "g-owner-2", "email": "owner.work@gmail.example", "email_verified": true})
	wantOK(t, e.do("POST", "/token?grant_type=id_token", at, map[string]any{"id_token": tok2, "provider": "google", "link_identity": true}))
	user := wantOK(t, e.do("GET", "/user", at, nil))
	ids := user["identities"].([]any)
	if len(ids) != 3 {
		t.Fatalf("identities %v", ids)
	}
	idOf := func(provider, sub string) string {
		for _, i := range ids {
			m := i.(map[string]any)
			if m["provider"] == provider && m["id"] == sub {
				return str(m, "identity_id")
			}
		}
		t.Fatalf("no %s identity %s in %v", provider, sub, ids)
		return ""
	}

	wantErr(t, e.do("DELETE", "/user/identities/not-a-uuid", at, nil), 404, "validation_failed")
	wantErr(t, e.do("DELETE", "/user/identities/00000000-0000-0000-0000-000000000000", at, nil), 422, "identity_not_found")
	// Someone else's identity is not this user's to remove.
	otherUser := wantOK(t, e.do("GET", "/user", other, nil))
	otherEmail := str(otherUser["identities"].([]any)[0].(map[string]any), "identity_id")
	wantErr(t, e.do("DELETE", "/user/identities/"+otherEmail, at, nil), 422, "identity_not_found")

	// Unlinking the email identity: the user's email becomes the oldest
	// verified provider email left, still confirmed.
	if r := e.do("DELETE", "/user/identities/"+idOf("email", uid), at, nil); r.status != 200 || r.raw != "{}" {
		t.Fatalf("unlink email = %d %s", r.status, r.raw)
	}
	u := wantOK(t, e.do("GET", "/user", at, nil))
	if str(u, "email") != "owner.g@gmail.example" || u["email_confirmed_at"] == nil {
		t.Errorf("after unlinking the email identity: email %q confirmed %v", str(u, "email"), u["email_confirmed_at"])
	}
	if got := e.identityProviders(uid); !slices.Equal(got, []string{"google", "google"}) {
		t.Errorf("identities %v", got)
	}
	// Unlinking the identity the email came from moves it to the other one.
	wantOK(t, e.do("DELETE", "/user/identities/"+idOf("google", "g-owner"), at, nil))
	u = wantOK(t, e.do("GET", "/user", at, nil))
	if str(u, "email") != "owner.work@gmail.example" || str(u, "app_metadata", "provider") != "google" {
		t.Errorf("after unlinking g-owner: %v", u)
	}
	wantErr(t, e.do("DELETE", "/user/identities/"+idOf("google", "g-owner-2"), at, nil), 422, "single_identity_not_deletable")
	if n := e.superQuery(`select count(*) from auth.identities where user_id = $1`, uid).(int64); n != 1 {
		t.Errorf("%d identities left", n)
	}
	// The removed Google account is free again, and signs up on its own.
	o.setNext(map[string]any{"sub": "g-owner", "email": "owner.g@gmail.example", "email_verified": true})
	land := e.googleSignIn(o, nil, "")
	if fresh := wantOK(t, e.do("GET", "/user", fragmentValues(land).Get("access_token"), nil)); str(fresh, "id") == uid || strings.TrimSpace(str(fresh, "id")) == "" {
		t.Errorf("unlinked account signed in as %v", fresh)
	}
}
