package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// identityProviders lists the providers of a user's identities, sorted,
// as the admin API reports them.
func (e *env) identityProviders(userID string) []string {
	e.t.Helper()
	r := e.do("GET", "/admin/users/"+userID, e.serviceKey(), nil)
	if r.status != 200 {
		e.t.Fatalf("admin get user: %d %s", r.status, r.raw)
	}
	var out []string
	ids, _ := r.body["identities"].([]any)
	for _, i := range ids {
		out = append(out, str(i.(map[string]any), "provider"))
	}
	slices.Sort(out)
	return out
}

// passwordSignIn is the error code of a password sign-in, "" on success.
func (e *env) passwordSignIn(email, password string) string {
	e.t.Helper()
	r := e.do("POST", "/token?grant_type=password", "", map[string]any{"email": email, "password": password})
	if r.status == 200 {
		return ""
	}
	return r.code()
}

// TestGoogleLinksByEmail covers a Google sign-in whose email belongs to an
// existing password user: who ends up owning the account, and with which
// credentials.
func TestGoogleLinksByEmail(t *testing.T) {
	t.Parallel()
	const addr, password = "victim@gmail.example", "attacker-pw1"
	tests := []struct {
		name      string
		confirmed bool // the existing user's email is confirmed
		verified  bool // Google says email_verified
		// wantError is the error_code the callback redirects with, "" when
		// the sign-in succeeds.
		wantError string
		// wantProviders are the existing user's identities afterwards.
		wantProviders []string
		// wantPassword is the outcome of the old password: "" signs in.
		wantPassword string
		// wantFullName is the user_metadata full_name afterwards.
		wantFullName string
	}{
		{
			// The pre-account takeover: someone signed up first with the
			// owner's address; the owner's Google sign-in evicts them.
			name: "unconfirmed user, verified email", verified: true,
			wantProviders: []string{"google"}, wantPassword: "invalid_credentials", wantFullName: "Google Owner",
		},
		{
			name: "confirmed user, verified email", confirmed: true, verified: true,
			wantProviders: []string{"email", "google"}, wantFullName: "First Owner",
		},
		{
			name: "unconfirmed user, unverified email", wantError: "provider_email_needs_verification",
			wantProviders: []string{"email"}, wantPassword: "email_not_confirmed", wantFullName: "First Owner",
		},
		{
			name: "confirmed user, unverified email", confirmed: true, wantError: "provider_email_needs_verification",
			wantProviders: []string{"email"}, wantFullName: "First Owner",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, o := newGoogleEnv(t)
			meta := map[string]any{"full_name": "First Owner"}
			var first map[string]any
			if tc.confirmed {
				first = wantOK(t, e.do("POST", "/admin/users", e.serviceKey(),
					map[string]any{"email": addr, "password": password, "email_confirm": true, "user_metadata": meta}))
			} else {
				first = wantOK(t, e.do("POST", "/signup", "", map[string]any{"email": addr, "password": password, "data": meta}))
			}
			uid := str(first, "id")

			loc := e.googleSignIn(o, map[string]any{"sub": "google-owner", "email": addr, "email_verified": tc.verified, "name": "Google Owner"}, "")
			frag := fragmentValues(loc)
			if tc.wantError != "" {
				if frag.Get("error_code") != tc.wantError || frag.Get("access_token") != "" {
					t.Fatalf("callback landing %s, want error_code %s", loc, tc.wantError)
				}
			} else {
				u := wantOK(t, e.do("GET", "/user", frag.Get("access_token"), nil))
				if str(u, "id") != uid || str(u, "email_confirmed_at") == "" {
					t.Fatalf("google session user %v, want confirmed %s", u, uid)
				}
			}

			if got := e.identityProviders(uid); !slices.Equal(got, tc.wantProviders) {
				t.Errorf("identities %v, want %v", got, tc.wantProviders)
			}
			if got := e.passwordSignIn(addr, password); got != tc.wantPassword {
				t.Errorf("old password sign-in = %q, want %q", got, tc.wantPassword)
			}
			u, err := e.store.UserByID(context.Background(), uid)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := u.UserMetaData["full_name"].(string); got != tc.wantFullName {
				t.Errorf("full_name %q, want %q", got, tc.wantFullName)
			}
			if wantHash := tc.wantPassword != "invalid_credentials"; (u.EncryptedPassword != "") != wantHash {
				t.Errorf("encrypted_password set = %v, want %v", u.EncryptedPassword != "", wantHash)
			}
		})
	}
}

// TestGoogleEvictsUnconfirmedSquatter follows an attacker who holds
// everything an unconfirmed account lets them hold: a Google identity
// claiming the victim's address unverified, a password set by signing up
// again, and the pending confirmation mails. The victim's verified Google
// sign-in must leave them none of it.
func TestGoogleEvictsUnconfirmedSquatter(t *testing.T) {
	t.Parallel()
	const addr = "victim@gmail.example"
	ctx := context.Background()
	e, o := newGoogleEnv(t)
	attacker := map[string]any{"sub": "attacker", "email": addr, "email_verified": false, "name": "Mallory"}

	// The unverified address gets a user of its own, unconfirmed, but no
	// session: the confirmation mail goes to the address's owner.
	if loc := e.googleSignIn(o, attacker, ""); fragmentValues(loc).Get("error_code") != "provider_email_needs_verification" {
		t.Fatalf("unverified google sign-in landing %s", loc)
	}
	squat, err := e.store.UserByEmail(ctx, addr)
	if err != nil || squat.EmailConfirmedAt != nil {
		t.Fatalf("unverified google user %+v, %v: want it unconfirmed", squat, err)
	}
	uid := squat.ID
	_, googleLink := e.lastMail(addr)
	// Signing up again sets a password on the unconfirmed user and mails
	// the owner another confirmation link.
	wantOK(t, e.do("POST", "/signup", "", map[string]any{"email": addr, "password": "attacker-pw1"}))
	_, signupLink := e.lastMail(addr)

	frag := fragmentValues(e.googleSignIn(o, map[string]any{"sub": "owner", "email": addr, "email_verified": true, "name": "Owner"}, ""))
	owner := wantOK(t, e.do("GET", "/user", frag.Get("access_token"), nil))
	if str(owner, "id") != uid || str(owner, "email_confirmed_at") == "" {
		t.Fatalf("owner session user %v, want confirmed %s", owner, uid)
	}
	ids, _ := owner["identities"].([]any)
	if len(ids) != 1 || str(ids[0].(map[string]any), "id") != "owner" {
		t.Errorf("identities %v, want only the owner's google identity", owner["identities"])
	}

	if got := e.passwordSignIn(addr, "attacker-pw1"); got != "invalid_credentials" {
		t.Errorf("attacker password sign-in = %q, want invalid_credentials", got)
	}
	for _, link := range []string{googleLink, signupLink} {
		lu, _ := url.Parse(link)
		if r := e.do("GET", "/verify?"+lu.RawQuery, "", nil); strings.Contains(r.header.Get("Location"), "access_token=") {
			t.Errorf("an old confirmation link still signs in: %s", r.header.Get("Location"))
		}
	}
	// The attacker's Google account is no longer linked, and an unverified
	// address cannot link again.
	if loc := e.googleSignIn(o, attacker, ""); fragmentValues(loc).Get("error_code") != "provider_email_needs_verification" {
		t.Errorf("attacker google sign-in landing %s", loc)
	}
	wantOK(t, e.do("GET", "/user", frag.Get("access_token"), nil))
}

// TestGoogleFirstSignIn covers a Google account whose address (if any) no
// user has yet. GoTrue creates the user either way, but an address the
// provider has not verified must be confirmed by mail before anyone signs
// in with it.
func TestGoogleFirstSignIn(t *testing.T) {
	t.Parallel()
	const addr = "new@gmail.example"
	const needsVerification = "Unverified email with google. A confirmation email has been sent to your google email"
	verifier := strings.Repeat("v", 50)
	pkce := "&code_challenge=" + pkceS256(verifier) + "&code_challenge_method=s256"
	tests := []struct {
		name   string
		claims map[string]any
		query  string
		// wantRefused: the callback lands with provider_email_needs_verification
		// and a confirmation mail goes out; otherwise a session.
		wantRefused   bool
		wantConfirmed bool
	}{
		{name: "verified email", claims: map[string]any{"email": addr, "email_verified": true}, wantConfirmed: true},
		{name: "verified email as a string", claims: map[string]any{"email": addr, "email_verified": "true"}, wantConfirmed: true},
		{name: "unverified email", claims: map[string]any{"email": addr, "email_verified": false}, wantRefused: true},
		{name: "email_verified missing", claims: map[string]any{"email": addr}, wantRefused: true},
		{name: "unverified email, pkce", claims: map[string]any{"email": addr, "email_verified": false}, query: pkce, wantRefused: true},
		// Nothing to confirm: the account has no address.
		{name: "no email", claims: map[string]any{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, o := newGoogleEnv(t)
			ctx := context.Background()
			claims := map[string]any{"sub": "g-new", "name": "New User"}
			for k, v := range tc.claims {
				claims[k] = v
			}
			loc := e.googleSignIn(o, claims, tc.query)

			ident, err := e.store.IdentityByProvider(ctx, "google", "g-new")
			if err != nil {
				t.Fatalf("the google identity was not kept: %v", err)
			}
			u, err := e.store.UserByID(ctx, ident.UserID)
			if err != nil {
				t.Fatal(err)
			}
			if (u.EmailConfirmedAt != nil) != tc.wantConfirmed {
				t.Errorf("email_confirmed_at = %v, want set %v", u.EmailConfirmedAt, tc.wantConfirmed)
			}
			_, mailed := e.mail.Last(addr)
			if mailed != tc.wantRefused {
				t.Errorf("confirmation mailed = %v, want %v", mailed, tc.wantRefused)
			}
			frag := fragmentValues(loc)
			if tc.wantRefused {
				if lu, _ := url.Parse(loc); lu.Query().Get("code") != "" || !strings.HasPrefix(loc, "http://app.test/home#") ||
					frag.Get("error") != "access_denied" || frag.Get("error_code") != "provider_email_needs_verification" ||
					frag.Get("error_description") != needsVerification || frag.Get("access_token") != "" {
					t.Errorf("callback landing %s, want the provider_email_needs_verification error", loc)
				}
				if u.LastSignInAt != nil || u.ConfirmationSentAt == nil {
					t.Errorf("last_sign_in_at %v, confirmation_sent_at %v: want never signed in, mail sent", u.LastSignInAt, u.ConfirmationSentAt)
				}
				return
			}
			at := frag.Get("access_token")
			if tc.query != "" {
				lu, _ := url.Parse(loc)
				at = str(wantOK(t, e.do("POST", "/token?grant_type=pkce", "", map[string]any{"auth_code": lu.Query().Get("code"), "code_verifier": verifier})), "access_token")
			}
			if got := wantOK(t, e.do("GET", "/user", at, nil)); str(got, "id") != u.ID {
				t.Errorf("session user %v, want %s (landing %s)", got, u.ID, loc)
			}
		})
	}
}

// TestGoogleUnverifiedEmailSignsInOnceConfirmed follows the owner of an
// address Google has not verified: refused until they follow the mail,
// which GOTRUE_SMTP_MAX_FREQUENCY paces, then signed in by Google as usual.
func TestGoogleUnverifiedEmailSignsInOnceConfirmed(t *testing.T) {
	t.Parallel()
	const addr = "slow@gmail.example"
	e, o := newGoogleEnvWith(t, map[string]string{"GOTRUE_SMTP_MAX_FREQUENCY": "1m"})
	claims := map[string]any{"sub": "g-slow", "email": addr, "email_verified": false, "name": "Slow"}
	landing := func() url.Values { return fragmentValues(e.googleSignIn(o, claims, "")) }

	if got := landing().Get("error_code"); got != "provider_email_needs_verification" {
		t.Fatalf("first sign-in error_code %q", got)
	}
	_, firstLink := e.lastMail(addr)
	// Again within the minute: no second mail, GoTrue's frequency error.
	if got := landing().Get("error_code"); got != "over_email_send_rate_limit" {
		t.Errorf("second sign-in error_code %q, want over_email_send_rate_limit", got)
	}
	if n := len(e.mail.Messages()); n != 1 {
		t.Errorf("%d mails, want 1", n)
	}
	e.clock.Add(61 * time.Second)
	if got := landing().Get("error_code"); got != "provider_email_needs_verification" {
		t.Errorf("third sign-in error_code %q", got)
	}
	_, link := e.lastMail(addr)
	if link == firstLink {
		t.Fatal("no new confirmation link")
	}

	lu, _ := url.Parse(link)
	r := e.do("GET", "/verify?"+lu.RawQuery, "", nil)
	loc := r.header.Get("Location")
	if r.status != 303 || !strings.HasPrefix(loc, "http://app.test/home#access_token=") {
		t.Fatalf("confirmation link: %d %s", r.status, loc)
	}
	confirmed := wantOK(t, e.do("GET", "/user", fragmentValues(loc).Get("access_token"), nil))
	if str(confirmed, "email_confirmed_at") == "" {
		t.Fatalf("user after confirming %v", confirmed)
	}

	frag := landing()
	u := wantOK(t, e.do("GET", "/user", frag.Get("access_token"), nil))
	if str(u, "id") != str(confirmed, "id") || str(u, "email") != addr {
		t.Errorf("google session user %v, want %s", u, str(confirmed, "id"))
	}
	if got := e.identityProviders(str(u, "id")); !slices.Equal(got, []string{"google"}) {
		t.Errorf("identities %v, want [google]", got)
	}
}

// superQuery runs sql on e's database as the superuser and returns the
// first column of its one row, if it has one.
func (e *env) superQuery(sql string, args ...any) any {
	e.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.dbURL)
	if err != nil {
		e.t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var v any
	if rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			e.t.Fatal(err)
		}
		v = vals[0]
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return v
}

// pendingSignIns counts the oauth_client_states rows.
func (e *env) pendingSignIns() int64 {
	e.t.Helper()
	n, _ := e.superQuery(`select count(*) from auth.oauth_client_states`).(int64)
	return n
}

// jwtClaims decodes a JWT's payload, unverified.
func jwtClaims(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	var m map[string]any
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatalf("JWT payload: %v", err)
	}
	return m
}

// TestGoogleSendsPKCEAndNonce follows what binds a sign-in at the provider:
// a fresh S256 challenge and nonce in every authorization request, the
// challenge's verifier with the code, and a state that carries none of it,
// only the id of the row that holds the verifier.
func TestGoogleSendsPKCEAndNonce(t *testing.T) {
	t.Parallel()
	e, o := newGoogleEnv(t)
	seen := map[string]bool{}
	for i := range 2 {
		sub := fmt.Sprintf("g-bound-%d", i)
		at := e.googleAtCallback(o, map[string]any{"sub": sub, "email": sub + "@gmail.example", "email_verified": true}, "")
		authz := o.lastAuthorization()
		challenge, nonce := authz.Get("code_challenge"), authz.Get("nonce")
		if len(challenge) != 43 || authz.Get("code_challenge_method") != "S256" || len(nonce) < 43 {
			t.Fatalf("authorization request %v: want an S256 code_challenge and a nonce", authz)
		}
		state := at.callback.Get("state")
		claims := jwtClaims(t, state)
		keys := slices.Sorted(maps.Keys(claims))
		if want := []string{"exp", "oauth_client_state_id", "provider", "referrer", "site_url"}; !slices.Equal(keys, want) {
			t.Errorf("state claims %v, want %v", keys, want)
		}
		if n := e.pendingSignIns(); n != 1 {
			t.Errorf("%d pending sign-ins, want 1", n)
		}

		loc := e.googleCallback(at.callback)
		if fragmentValues(loc).Get("access_token") == "" {
			t.Fatalf("sign-in %d landing %s", i, loc)
		}
		verifier := o.lastExchange().Get("code_verifier")
		if len(verifier) < 43 || pkceS256(verifier) != challenge {
			t.Fatalf("code_verifier %q does not match the challenge %q", verifier, challenge)
		}
		if strings.Contains(toJSON(claims), verifier) || strings.Contains(at.authURL, verifier) {
			t.Errorf("the verifier travels through the browser: state %v, authorization %s", claims, at.authURL)
		}
		for _, v := range []string{challenge, nonce, verifier, claims["oauth_client_state_id"].(string)} {
			if seen[v] {
				t.Errorf("%q repeated across sign-ins", v)
			}
			seen[v] = true
		}
		if n := e.pendingSignIns(); n != 0 {
			t.Errorf("%d pending sign-ins after the callback, want 0", n)
		}
	}

	// A sign-in abandoned at the provider is cleared by a later one, once
	// its state has expired.
	e.googleAtCallback(o, nil, "")
	e.clock.Add(oauthStateTTL + time.Second)
	e.googleAtCallback(o, nil, "")
	if n := e.pendingSignIns(); n != 1 {
		t.Errorf("%d pending sign-ins, want only the fresh one", n)
	}
}

// TestGoogleCallbackRefusals covers callbacks that must not sign anyone in:
// a code or an id_token from another sign-in, and a state used twice or
// kept too long. Each lands on the app with the error and no session.
func TestGoogleCallbackRefusals(t *testing.T) {
	t.Parallel()
	victim := map[string]any{"sub": "g-victim", "email": "victim@gmail.example", "email_verified": true, "name": "Victim"}
	attacker := map[string]any{"sub": "g-attacker", "email": "attacker@gmail.example", "email_verified": true, "name": "Attacker"}
	with := func(m map[string]any, k string, v any) map[string]any {
		c := maps.Clone(m)
		c[k] = v
		return c
	}
	const notThisSignIn = "OAuth callback does not belong to this sign-in"
	const exchangeFailed = "Error getting user profile from external provider"
	const stateNotFound = "OAuth state not found"
	// injectVictimCode is the attack: the victim's code with the attacker's
	// valid state.
	injectVictimCode := func(t *testing.T, e *env, o *oidcServer) url.Values {
		v := e.googleAtCallback(o, victim, "")
		q := e.googleAtCallback(o, attacker, "").callback
		q.Set("code", v.callback.Get("code"))
		return q
	}
	// signedIn completes a sign-in, which must succeed.
	signedIn := func(t *testing.T, e *env, q url.Values) {
		if loc := e.googleCallback(q); fragmentValues(loc).Get("access_token") == "" {
			t.Fatalf("first callback landing %s, want a session", loc)
		}
	}
	tests := []struct {
		name string
		// lax: the provider does not enforce PKCE, so only the nonce binds
		// its codes.
		lax bool
		// callback returns the /callback query under test, after the
		// sign-ins it needs.
		callback           func(t *testing.T, e *env, o *oidcServer) url.Values
		wantCode, wantDesc string
		// wantNoUser is a provider subject left without a user.
		wantNoUser string
	}{
		{
			name: "id_token with the nonce of another sign-in",
			callback: func(t *testing.T, e *env, o *oidcServer) url.Values {
				return e.googleAtCallback(o, with(victim, "nonce", "another-sign-in"), "").callback
			},
			wantCode: "bad_oauth_callback", wantDesc: notThisSignIn, wantNoUser: "g-victim",
		},
		{
			name: "id_token without a nonce",
			callback: func(t *testing.T, e *env, o *oidcServer) url.Values {
				return e.googleAtCallback(o, with(victim, "nonce", nil), "").callback
			},
			wantCode: "bad_oauth_callback", wantDesc: notThisSignIn, wantNoUser: "g-victim",
		},
		{
			// The provider refuses the attacker's verifier for a code
			// issued for the victim's challenge.
			name:     "code injected into another sign-in",
			callback: injectVictimCode,
			wantCode: "bad_oauth_callback", wantDesc: exchangeFailed, wantNoUser: "g-victim",
		},
		{
			name: "code injected into another sign-in, provider without PKCE", lax: true,
			callback: injectVictimCode,
			wantCode: "bad_oauth_callback", wantDesc: notThisSignIn, wantNoUser: "g-victim",
		},
		{
			name: "state used twice",
			callback: func(t *testing.T, e *env, o *oidcServer) url.Values {
				at := e.googleAtCallback(o, victim, "")
				signedIn(t, e, at.callback)
				return at.callback
			},
			wantCode: "oauth_client_state_not_found", wantDesc: stateNotFound,
		},
		{
			// The provider answers the same authorization request again
			// with a new code, bound to the same challenge and nonce: only
			// authsvc's own record can refuse it.
			name: "state used twice, with a new code for its authorization",
			callback: func(t *testing.T, e *env, o *oidcServer) url.Values {
				at := e.googleAtCallback(o, victim, "")
				signedIn(t, e, at.callback)
				return e.providerAnswer(at.authURL)
			},
			wantCode: "oauth_client_state_not_found", wantDesc: stateNotFound,
		},
		{
			name: "state used twice, the first time refused",
			callback: func(t *testing.T, e *env, o *oidcServer) url.Values {
				at := e.googleAtCallback(o, with(victim, "nonce", "another-sign-in"), "")
				if got := fragmentValues(e.googleCallback(at.callback)).Get("error_code"); got != "bad_oauth_callback" {
					t.Fatalf("first callback error_code %q", got)
				}
				o.setNext(victim)
				return e.providerAnswer(at.authURL)
			},
			wantCode: "oauth_client_state_not_found", wantDesc: stateNotFound, wantNoUser: "g-victim",
		},
		{
			// The state's JWT is still valid; its row is not.
			name: "state kept past its lifetime",
			callback: func(t *testing.T, e *env, o *oidcServer) url.Values {
				at := e.googleAtCallback(o, victim, "")
				e.superQuery(`update auth.oauth_client_states set created_at = created_at - make_interval(secs => $1)`, oauthStateTTL.Seconds())
				return at.callback
			},
			wantCode: "oauth_client_state_expired", wantDesc: "OAuth state expired", wantNoUser: "g-victim",
		},
		{
			name: "state of another provider",
			callback: func(t *testing.T, e *env, o *oidcServer) url.Values {
				at := e.googleAtCallback(o, victim, "")
				e.superQuery(`update auth.oauth_client_states set provider_type = 'github'`)
				return at.callback
			},
			wantCode: "oauth_invalid_state", wantDesc: "OAuth provider mismatch", wantNoUser: "g-victim",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, o := newGoogleEnv(t)
			o.setLax(tc.lax)
			q := tc.callback(t, e, o)
			loc := e.googleCallback(q)
			frag := fragmentValues(loc)
			if lu, _ := url.Parse(loc); !strings.HasPrefix(loc, "http://app.test/home#") || lu.Query().Get("code") != "" ||
				frag.Get("access_token") != "" || frag.Get("error_code") != tc.wantCode || frag.Get("error_description") != tc.wantDesc {
				t.Errorf("callback landing %s, want error_code %s (%s) and no session", loc, tc.wantCode, tc.wantDesc)
			}
			if tc.wantNoUser != "" {
				if _, err := e.store.IdentityByProvider(context.Background(), "google", tc.wantNoUser); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("identity %s: %v, want none", tc.wantNoUser, err)
				}
			}
		})
	}
}

func TestOAuthErrorName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *apierr.Error
		want string
	}{
		{"banned user", apierr.BadRequest(apierr.CodeUserBanned, "User is banned"), "access_denied"},
		{"signups off", apierr.Unprocessable(apierr.CodeSignupDisabled, "Signups not allowed for this instance"), "access_denied"},
		{"unverified provider email", apierr.Unprocessable(apierr.CodeProviderEmailNeedsVerification, "Unverified email with google"), "access_denied"},
		{"bad request", apierr.BadRequest(apierr.CodeValidationFailed, "bad"), "invalid_request"},
		{"unauthorized", apierr.Unauthorized(apierr.CodeBadJWT, "bad"), "unauthorized_client"},
		{"forbidden", apierr.Forbidden(apierr.CodeNotAdmin, "no"), "access_denied"},
		{"flow state gone (404)", apierr.NotFound(apierr.CodeFlowStateNotFound, "invalid flow state"), "server_error"},
		{"other 422", apierr.Unprocessable(apierr.CodeValidationFailed, "no"), "server_error"},
		{"unavailable", apierr.New(503, apierr.CodeUnexpectedFailure, "down"), "temporarily_unavailable"},
		{"internal", apierr.Internal(errors.New("boom")), "server_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := oauthErrorName(tt.err); got != tt.want {
				t.Errorf("oauthErrorName(%d %s) = %q, want %q", tt.err.HTTPStatus, tt.err.Code, got, tt.want)
			}
		})
	}
}
