package api

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/kejanest/kejanest/authsvc/internal/oidc"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

func TestLogoutScopesAndReauthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true"})
	a := e.signUpConfirmed("l@example.com", "password1")
	signin := func() map[string]any {
		return wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "l@example.com", "password": "password1"}))
	}
	b, c := signin(), signin()
	if r := e.do("POST", "/logout?scope=others", str(a, "access_token"), nil); r.status != 204 {
		t.Fatalf("others = %d", r.status)
	}
	wantErr(t, e.do("GET", "/user", str(b, "access_token"), nil), 403, "session_not_found")
	wantErr(t, e.do("GET", "/user", str(c, "access_token"), nil), 403, "session_not_found")
	wantOK(t, e.do("GET", "/user", str(a, "access_token"), nil))
	d := signin()
	if r := e.do("POST", "/logout?scope=local", str(d, "access_token"), nil); r.status != 204 {
		t.Fatalf("local = %d", r.status)
	}
	wantOK(t, e.do("GET", "/user", str(a, "access_token"), nil))

	at := str(a, "access_token")
	wantErr(t, e.do("PUT", "/user", at, map[string]any{"password": "password2"}), 400, "reauthentication_needed")
	wantOK(t, e.do("GET", "/reauthenticate", at, nil))
	code, _ := e.lastMail("l@example.com")
	wantErr(t, e.do("PUT", "/user", at, map[string]any{"password": "password2", "nonce": "999999x"}), 400, "reauthentication_not_valid")
	wantOK(t, e.do("PUT", "/user", at, map[string]any{"password": "password2", "nonce": code}))
	wantErr(t, e.do("PUT", "/user", at, map[string]any{"password": "password3", "nonce": code}), 400, "reauthentication_not_valid")
}

func TestSettingsAndJWKS(t *testing.T) {
	t.Parallel()
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	jk, _ := jwk.Import(key)
	_ = jk.Set(jwk.KeyIDKey, "kid-1")
	kb, _ := json.Marshal(jk)
	e := newEnv(t, map[string]string{"GOTRUE_JWT_KEYS": "[" + string(kb) + "]", "GOTRUE_MAILER_AUTOCONFIRM": "true", "GOTRUE_DISABLE_SIGNUP": "false"})
	st := wantOK(t, e.do("GET", "/settings", "", nil))
	if st["mailer_autoconfirm"] != true || st["external"].(map[string]any)["phone"] != true {
		t.Errorf("settings %v", st)
	}
	r := e.do("GET", "/.well-known/jwks.json", "", nil)
	if r.status != 200 || strings.Contains(r.raw, `"d"`) || !strings.Contains(r.raw, "kid-1") {
		t.Fatalf("jwks %s", r.raw)
	}
	s := wantOK(t, e.do("POST", "/signup", "", map[string]any{"email": "k@example.com", "password": "password1"}))
	v, err := jwtverify.New(jwtverify.Options{JWKS: []byte(r.raw)})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := v.Verify(str(s, "access_token")); err != nil || c.Subject != str(s, "user", "id") {
		t.Fatalf("RS256 token: %v %v", c, err)
	}
	// Service-role tokens signed with the shared secret still pass (admin).
	wantOK(t, e.do("GET", "/admin/users", e.serviceKey(), nil))
	wantOK(t, e.do("GET", "/user", str(s, "access_token"), nil))
}

func TestMFAPhone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_MFA_PHONE_MAX_FREQUENCY": "30s"})
	s := e.signUpConfirmed("ph@example.com", "password1")
	at := str(s, "access_token")
	f := wantOK(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "phone", "phone": "+254700000001"}))
	if f["type"] != "phone" || f["phone"] != "254700000001" {
		t.Fatalf("enroll %v", f)
	}
	fid := str(f, "id")
	wantErr(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "phone", "phone": "+254700000002"}), 422, "mfa_factor_name_conflict")
	ch := wantOK(t, e.do("POST", "/factors/"+fid+"/challenge", at, map[string]any{"channel": "sms"}))
	wantErr(t, e.do("POST", "/factors/"+fid+"/challenge", at, map[string]any{"channel": "sms"}), 429, "over_sms_send_rate_limit")
	text := e.sms.Last("254700000001")
	code := text[len(text)-6:]
	r := e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"), "code": "12345x"})
	wantErr(t, r, 422, "mfa_verification_failed")
	if r.body["message"] != "Invalid MFA Phone code entered" {
		t.Errorf("message %v", r.body["message"])
	}
	e.clock.Add(301 * time.Second)
	wantErr(t, e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"), "code": code}), 422, "mfa_challenge_expired")
	ch = wantOK(t, e.do("POST", "/factors/"+fid+"/challenge", at, nil))
	text = e.sms.Last("254700000001")
	wantErr(t, e.doH("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"), "code": text[len(text)-6:]},
		map[string]string{"X-Forwarded-For": "203.0.113.9"}), 422, "mfa_ip_address_mismatch")
	v := wantOK(t, e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"), "code": text[len(text)-6:]}))
	m, _ := newAPI(Deps{Config: e.cfg, Store: e.store}).signer.Verify(str(v, "access_token"), time.Now())
	if m["aal"] != "aal2" || !strings.Contains(toJSON(m["amr"]), "mfa/phone") {
		t.Fatalf("claims %v", m)
	}
	u := wantOK(t, e.do("GET", "/user", str(v, "access_token"), nil))
	if fs, _ := u["factors"].([]any); len(fs) != 1 || fs[0].(map[string]any)["status"] != "verified" {
		t.Errorf("factors %v", u["factors"])
	}
	uid := str(s, "user", "id")
	if r := e.do("GET", "/admin/users/"+uid+"/factors", e.serviceKey(), nil); r.status != 200 || !strings.Contains(r.raw, fid) {
		t.Fatalf("admin factors %d %s", r.status, r.raw)
	}
	wantOK(t, e.do("DELETE", "/admin/users/"+uid+"/factors/"+fid, e.serviceKey(), nil))
	wantErr(t, e.do("DELETE", "/admin/users/"+uid+"/factors/"+fid, e.serviceKey(), nil), 404, "mfa_factor_not_found")
	// The aal2 session went back to aal1.
	rs := wantOK(t, e.do("POST", "/token?grant_type=refresh_token", "", map[string]any{"refresh_token": str(v, "refresh_token")}))
	if m, _ := newAPI(Deps{Config: e.cfg, Store: e.store}).signer.Verify(str(rs, "access_token"), time.Now()); m["aal"] != "aal1" {
		t.Errorf("after factor removal aal = %v", m["aal"])
	}
}

func TestGenerateLinkSignupAndInvite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wantErr(t, e.do("POST", "/admin/generate_link", e.serviceKey(), map[string]any{"type": "bogus", "email": "g@example.com"}), 400, "validation_failed")
	wantErr(t, e.do("POST", "/admin/generate_link", e.serviceKey(), map[string]any{"type": "recovery", "email": "none@example.com"}), 404, "user_not_found")
	gl := wantOK(t, e.do("POST", "/admin/generate_link", e.serviceKey(), map[string]any{"type": "signup", "email": "g@example.com", "password": "password1"}))
	if len(e.mail.Messages()) != 0 {
		t.Error("generate_link must not send mail")
	}
	lu, _ := url.Parse(str(gl, "action_link"))
	if r := e.do("GET", "/verify?"+lu.RawQuery, "", nil); r.status != 303 || !strings.Contains(r.header.Get("Location"), "#access_token=") {
		t.Fatalf("verify %d %s", r.status, r.header.Get("Location"))
	}
	gl = wantOK(t, e.do("POST", "/admin/generate_link", e.serviceKey(), map[string]any{"type": "invite", "email": "inv@example.com"}))
	s := wantOK(t, e.do("POST", "/verify", "", map[string]any{"type": "invite", "token_hash": str(gl, "hashed_token")}))
	if str(s, "user", "invited_at") == "" || str(s, "user", "email_confirmed_at") == "" {
		t.Errorf("invited user %v", s["user"])
	}
}

// oidcServer is a minimal OpenID Connect provider for the Google tests.
// Like a real one it binds each code to its authorization request: the
// token endpoint redeems a code once, only with the verifier of the
// code_challenge it was issued for, and puts the request's nonce in the
// id_token.
type oidcServer struct {
	*httptest.Server
	key  jwk.Key
	mu   sync.Mutex
	next map[string]any
	// lax turns the PKCE check off, as a provider that ignores
	// code_challenge would: only the nonce is left to bind the code.
	lax bool
	// authorizations and exchanges record the requests the provider got:
	// the authorization endpoint's query, the token endpoint's form.
	authorizations []url.Values
	exchanges      []url.Values
}

// grant is what the provider remembers of one issued code.
type grant struct {
	user                     map[string]any
	challenge, method, nonce string
}

func newOIDCServer(t *testing.T, clientID, secret string) *oidcServer {
	raw, _ := rsa.GenerateKey(rand.Reader, 2048)
	key, _ := jwk.Import(raw)
	_ = key.Set(jwk.KeyIDKey, "g1")
	pub, _ := key.PublicKey()
	_ = pub.Set(jwk.AlgorithmKey, jwa.RS256())
	o := &oidcServer{key: key}
	codes := map[string]grant{}
	mux := http.NewServeMux()
	o.Server = httptest.NewServer(mux)
	t.Cleanup(o.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": o.URL, "authorization_endpoint": o.URL + "/auth",
			"token_endpoint": o.URL + "/token", "jwks_uri": o.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		set := jwk.NewSet()
		_ = set.AddKey(pub)
		_ = json.NewEncoder(w).Encode(set)
	})
	mux.HandleFunc("/auth", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		o.mu.Lock()
		o.authorizations = append(o.authorizations, q)
		code := "c" + rand.Text()
		codes[code] = grant{user: o.next, challenge: q.Get("code_challenge"), method: q.Get("code_challenge_method"), nonce: q.Get("nonce")}
		o.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		o.mu.Lock()
		o.exchanges = append(o.exchanges, r.Form)
		g, ok := codes[r.Form.Get("code")]
		delete(codes, r.Form.Get("code"))
		lax := o.lax
		o.mu.Unlock()
		if ok && g.challenge != "" && !lax {
			// RFC 7636 4.6; only S256, as Google and oidc-provider.
			ok = g.method == "S256" && pkceS256(r.Form.Get("code_verifier")) == g.challenge
		}
		if !ok || r.Form.Get("client_secret") != secret || r.Form.Get("client_id") != clientID {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		claims := map[string]any{"iss": o.URL, "aud": clientID, "exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix()}
		if g.nonce != "" {
			claims["nonce"] = g.nonce
		}
		// The user's claims win, so a test can forge the nonce; a nil one
		// drops the claim.
		for k, v := range g.user {
			if v == nil {
				delete(claims, k)
			} else {
				claims[k] = v
			}
		}
		payload, _ := json.Marshal(claims)
		hdr := jws.NewHeaders()
		_ = hdr.Set(jws.KeyIDKey, "g1")
		tok, _ := jws.Sign(payload, jws.WithKey(jwa.RS256(), o.key, jws.WithProtectedHeaders(hdr)))
		_ = json.NewEncoder(w).Encode(map[string]string{"access_token": "gat", "refresh_token": "grt", "id_token": string(tok), "token_type": "Bearer"})
	})
	return o
}

// setNext sets the claims of the provider user who signs in next.
func (o *oidcServer) setNext(claims map[string]any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next = claims
}

// setLax turns the provider's PKCE check off (true) or on.
func (o *oidcServer) setLax(lax bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lax = lax
}

// lastAuthorization and lastExchange are the newest requests the provider
// got at its authorization and token endpoints.
func (o *oidcServer) lastAuthorization() url.Values {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.authorizations[len(o.authorizations)-1]
}

func (o *oidcServer) lastExchange() url.Values {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.exchanges[len(o.exchanges)-1]
}

// newGoogleEnv is newEnv with Google sign-in served by a fresh oidcServer.
func newGoogleEnv(t *testing.T) (*env, *oidcServer) { return newGoogleEnvWith(t, nil) }

// newGoogleEnvWith is newGoogleEnv with more configuration (GOTRUE_* names).
func newGoogleEnvWith(t *testing.T, vars map[string]string) (*env, *oidcServer) {
	o := newOIDCServer(t, "cid", "csecret")
	m := map[string]string{"GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "cid",
		"GOTRUE_EXTERNAL_GOOGLE_SECRET": "csecret", "GOTRUE_EXTERNAL_GOOGLE_ISSUER": o.URL}
	for k, v := range vars {
		m[k] = v
	}
	e := newEnv(t, m)
	g := oidc.New(oidc.Config{Issuer: o.URL, ClientID: "cid", ClientSecret: "csecret", RedirectURI: "http://api.test/auth/v1/callback"})
	e.app = New(Deps{Config: e.cfg, Log: discardLog(), Store: e.store, Mailer: e.mail, SMS: e.sms, Google: g, Now: e.clock.Now})
	return e, o
}

// googleSignIn runs /authorize, the provider and /callback, and returns
// where the callback sends the browser. claims, when not nil, replace the
// provider user's; query is appended to /authorize.
func (e *env) googleSignIn(o *oidcServer, claims map[string]any, query string) string {
	e.t.Helper()
	return e.googleCallback(e.googleAtCallback(o, claims, query).callback)
}

// atCallback is a sign-in stopped where the provider sends the browser
// back: authURL is the authorization request, callback its answer (code
// and state).
type atCallback struct {
	authURL  string
	callback url.Values
}

// googleAtCallback runs /authorize and the provider, not /callback.
func (e *env) googleAtCallback(o *oidcServer, claims map[string]any, query string) atCallback {
	e.t.Helper()
	if claims != nil {
		o.setNext(claims)
	}
	r := e.do("GET", "/authorize?provider=google&redirect_to="+url.QueryEscape("http://app.test/home")+query, "", nil)
	if r.status != 302 {
		e.t.Fatalf("authorize %d %s", r.status, r.raw)
	}
	authURL := r.header.Get("Location")
	return atCallback{authURL: authURL, callback: e.providerAnswer(authURL)}
}

// providerAnswer sends the browser to the provider's authorization URL and
// returns the query of the callback it answers with: a new code each time.
func (e *env) providerAnswer(authURL string) url.Values {
	e.t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(authURL)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	cb, _ := url.Parse(res.Header.Get("Location"))
	return cb.Query()
}

// googleCallback runs /callback with q and returns where it sends the
// browser.
func (e *env) googleCallback(q url.Values) string {
	e.t.Helper()
	r := e.do("GET", "/callback?"+q.Encode(), "", nil)
	if r.status != 302 {
		e.t.Fatalf("callback %d %s", r.status, r.raw)
	}
	return r.header.Get("Location")
}

func TestGoogleOAuth(t *testing.T) {
	t.Parallel()
	e, o := newGoogleEnv(t)

	wantErr(t, e.do("GET", "/authorize?provider=github", "", nil), 400, "validation_failed")
	// An existing password user with the same verified email gets the identity linked.
	e.signUpConfirmed("g@gmail.example", "password1")
	o.setNext(map[string]any{"sub": "g-123", "email": "g@gmail.example", "email_verified": true, "name": "G User", "picture": "http://p/x.png"})

	run := func(query string) string { return e.googleSignIn(o, nil, query) }
	loc := run("")
	frag := fragmentValues(loc)
	if !strings.HasPrefix(loc, "http://app.test/home#access_token=") || frag.Get("provider_token") != "gat" {
		t.Fatalf("implicit landing %s", loc)
	}
	u := wantOK(t, e.do("GET", "/user", frag.Get("access_token"), nil))
	if len(u["identities"].([]any)) != 2 || str(u, "user_metadata", "full_name") == "" && str(u, "app_metadata", "provider") != "email" {
		t.Errorf("linked user %v", u)
	}
	// PKCE.
	verifier := strings.Repeat("v", 50)
	challenge := pkceS256(verifier)
	loc = run("&code_challenge=" + challenge + "&code_challenge_method=s256")
	lu, _ := url.Parse(loc)
	code := lu.Query().Get("code")
	if code == "" {
		t.Fatalf("pkce landing %s", loc)
	}
	s := wantOK(t, e.do("POST", "/token?grant_type=pkce", "", map[string]any{"auth_code": code, "code_verifier": verifier}))
	if s["provider_token"] != "gat" || str(s, "user", "email") != "g@gmail.example" {
		t.Fatalf("pkce session %v", s)
	}
	// A forged state is refused, and so is another JWT signed with the same
	// key: an access token names no sign-in.
	wantErr(t, e.do("GET", "/callback?code=x&state=forged", "", nil), 400, "bad_oauth_state")
	wantErr(t, e.do("GET", "/callback?code=x&state="+url.QueryEscape(frag.Get("access_token")), "", nil), 400, "bad_oauth_state")
}

func fragmentValues(loc string) url.Values {
	v, _ := url.ParseQuery(loc[strings.IndexByte(loc, '#')+1:])
	return v
}
