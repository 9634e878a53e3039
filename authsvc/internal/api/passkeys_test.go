package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// passkeysOn enables passkeys, off by default; the relying party is the
// site URL's (app.test, http://app.test).
var passkeysOn = map[string]string{"GOTRUE_PASSKEY_ENABLED": "true"}

const passkeyOrigin = "http://app.test"

// list decodes a JSON array answer.
func list(t *testing.T, r resp) []map[string]any {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("= %d %s, want 200", r.status, r.raw)
	}
	var out []map[string]any
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil {
		t.Fatalf("%s: %v", r.raw, err)
	}
	return out
}

func publicKeyOptions(t *testing.T, r map[string]any) map[string]any {
	t.Helper()
	o, ok := r["options"].(map[string]any)
	if !ok || str(r, "challenge_id") == "" || r["expires_at"] == nil {
		t.Fatalf("ceremony options %v", r)
	}
	return o
}

// registerPasskey runs a registration ceremony for the bearer at with auth.
func registerPasskey(t *testing.T, e *env, at string, auth *softAuthenticator) map[string]any {
	t.Helper()
	ro := wantOK(t, e.do("POST", "/passkeys/registration/options", at, map[string]any{}))
	opts := publicKeyOptions(t, ro)
	return wantOK(t, e.do("POST", "/passkeys/registration/verify", at, map[string]any{"challenge_id": str(ro, "challenge_id"),
		"credential": auth.create(opts["challenge"].(string), "app.test", passkeyOrigin)}))
}

// signInPasskey runs an authentication ceremony with auth, whose user
// handle is userID's; tamper corrupts the signature.
func signInPasskey(t *testing.T, e *env, auth *softAuthenticator, userID string, tamper bool) resp {
	t.Helper()
	ao := wantOK(t, e.do("POST", "/passkeys/authentication/options", "", map[string]any{"gotrue_meta_security": map[string]any{}}))
	opts := publicKeyOptions(t, ao)
	return e.do("POST", "/passkeys/authentication/verify", "", map[string]any{"challenge_id": str(ao, "challenge_id"),
		"credential": auth.get(t, opts["challenge"].(string), "app.test", passkeyOrigin, uuidBytes(t, userID), tamper)})
}

func TestPasskeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, passkeysOn)
	s := e.signUpConfirmed("pk@example.com", "password1")
	at := str(s, "access_token")
	uid := str(s, "user", "id")

	ro := wantOK(t, e.do("POST", "/passkeys/registration/options", at, map[string]any{}))
	opts := publicKeyOptions(t, ro)
	sel, _ := opts["authenticatorSelection"].(map[string]any)
	if opts["rp"].(map[string]any)["id"] != "app.test" || opts["user"].(map[string]any)["name"] != "pk@example.com" ||
		sel["residentKey"] != "required" || sel["requireResidentKey"] != true {
		t.Fatalf("creation options %v", opts)
	}
	auth := newSoftAuthenticator(t)
	// Another origin's attestation is refused, and spends the challenge
	// only on success (the user may retry it).
	wantErr(t, e.do("POST", "/passkeys/registration/verify", at, map[string]any{"challenge_id": str(ro, "challenge_id"),
		"credential": auth.create(opts["challenge"].(string), "app.test", "http://evil.test")}), 400, "validation_failed")
	reg := registerPasskey(t, e, at, auth)
	if str(reg, "id") == "" || str(reg, "created_at") == "" {
		t.Fatalf("registered %v", reg)
	}
	// Registering the same credential again is excluded and refused.
	ro2 := wantOK(t, e.do("POST", "/passkeys/registration/options", at, nil))
	excl, _ := publicKeyOptions(t, ro2)["excludeCredentials"].([]any)
	if len(excl) != 1 || excl[0].(map[string]any)["id"] != b64(auth.credID) {
		t.Fatalf("excludeCredentials %v", excl)
	}
	wantErr(t, e.do("POST", "/passkeys/registration/verify", at, map[string]any{"challenge_id": str(ro2, "challenge_id"),
		"credential": auth.create(publicKeyOptions(t, ro2)["challenge"].(string), "app.test", passkeyOrigin)}), 422, "validation_failed")

	// Discoverable login: no allowCredentials, a session for the owner.
	ao := wantOK(t, e.do("POST", "/passkeys/authentication/options", "", nil))
	if allow, ok := publicKeyOptions(t, ao)["allowCredentials"]; ok && allow != nil {
		t.Fatalf("allowCredentials %v", allow)
	}
	login := wantOK(t, signInPasskey(t, e, auth, uid, false))
	if str(login, "user", "id") != uid || str(login, "refresh_token") == "" {
		t.Fatalf("session %v", login)
	}
	claims, err := newAPI(Deps{Config: e.cfg, Store: e.store}).signer.Verify(str(login, "access_token"), time.Now())
	if err != nil || claims["aal"] != "aal1" || !strings.Contains(toJSON(claims["amr"]), `"passkey"`) {
		t.Fatalf("claims %v %v", claims, err)
	}
	ps := list(t, e.do("GET", "/passkeys", at, nil))
	if len(ps) != 1 || ps[0]["id"] != str(reg, "id") || ps[0]["last_used_at"] == nil {
		t.Fatalf("list %v", ps)
	}

	// A wrong signature, a user handle of someone else and a replayed
	// challenge are refused.
	wantErr(t, signInPasskey(t, e, auth, uid, true), 400, "invalid_credentials")
	wantErr(t, signInPasskey(t, e, auth, "00000000-0000-4000-8000-000000000001", false), 400, "invalid_credentials")
	ao = wantOK(t, e.do("POST", "/passkeys/authentication/options", "", nil))
	cred := auth.get(t, publicKeyOptions(t, ao)["challenge"].(string), "app.test", passkeyOrigin, uuidBytes(t, uid), false)
	wantOK(t, e.do("POST", "/passkeys/authentication/verify", "", map[string]any{"challenge_id": str(ao, "challenge_id"), "credential": cred}))
	wantErr(t, e.do("POST", "/passkeys/authentication/verify", "", map[string]any{"challenge_id": str(ao, "challenge_id"), "credential": cred}), 422, "webauthn_challenge_expired")

	// A sign count that goes back suggests a cloned authenticator.
	auth.count -= 3
	wantErr(t, signInPasskey(t, e, auth, uid, false), 400, "invalid_credentials")
	auth.count += 10
	wantOK(t, signInPasskey(t, e, auth, uid, false))

	// An expired challenge.
	ao = wantOK(t, e.do("POST", "/passkeys/authentication/options", "", nil))
	e.clock.Add(6 * time.Minute)
	wantErr(t, e.do("POST", "/passkeys/authentication/verify", "", map[string]any{"challenge_id": str(ao, "challenge_id"),
		"credential": auth.get(t, publicKeyOptions(t, ao)["challenge"].(string), "app.test", passkeyOrigin, uuidBytes(t, uid), false)}), 422, "webauthn_challenge_expired")

	// Bad bodies.
	wantErr(t, e.do("POST", "/passkeys/authentication/verify", "", map[string]any{"credential": map[string]any{}}), 400, "validation_failed")
	wantErr(t, e.do("POST", "/passkeys/authentication/verify", "", map[string]any{"challenge_id": "nope", "credential": map[string]any{}}), 422, "webauthn_challenge_expired")
	wantErr(t, e.do("POST", "/passkeys/registration/options", "", nil), 401, "no_authorization")

	// Another user cannot use this user's registration challenge, rename
	// or delete this user's passkey.
	other := str(e.signUpConfirmed("other@example.com", "password1"), "access_token")
	ro3 := wantOK(t, e.do("POST", "/passkeys/registration/options", at, nil))
	wantErr(t, e.do("POST", "/passkeys/registration/verify", other, map[string]any{"challenge_id": str(ro3, "challenge_id"),
		"credential": newSoftAuthenticator(t).create(publicKeyOptions(t, ro3)["challenge"].(string), "app.test", passkeyOrigin)}), 422, "webauthn_challenge_expired")
	pid := str(reg, "id")
	wantErr(t, e.do("PATCH", "/passkeys/"+pid, other, map[string]any{"friendly_name": "mine"}), 404, "passkey_not_found")
	wantErr(t, e.do("DELETE", "/passkeys/"+pid, other, nil), 404, "passkey_not_found")
	if ps := list(t, e.do("GET", "/passkeys", other, nil)); len(ps) != 0 {
		t.Fatalf("other's list %v", ps)
	}

	// Rename and delete.
	wantErr(t, e.do("PATCH", "/passkeys/"+pid, at, map[string]any{}), 400, "validation_failed")
	wantErr(t, e.do("PATCH", "/passkeys/"+pid, at, map[string]any{"friendly_name": strings.Repeat("x", 121)}), 400, "validation_failed")
	up := wantOK(t, e.do("PATCH", "/passkeys/"+pid, at, map[string]any{"friendly_name": " Laptop "}))
	if up["friendly_name"] != "Laptop" || up["id"] != pid {
		t.Fatalf("renamed %v", up)
	}
	if r := e.do("DELETE", "/passkeys/"+pid, at, nil); r.status != 204 {
		t.Fatalf("delete = %d %s", r.status, r.raw)
	}
	wantErr(t, e.do("DELETE", "/passkeys/"+pid, at, nil), 404, "passkey_not_found")
	wantErr(t, signInPasskey(t, e, auth, uid, false), 400, "invalid_credentials")
}

func TestAdminPasskeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, passkeysOn)
	s := e.signUpConfirmed("adm@example.com", "password1")
	uid := str(s, "user", "id")
	reg := registerPasskey(t, e, str(s, "access_token"), newSoftAuthenticator(t))
	key := e.serviceKey()

	wantErr(t, e.do("GET", "/admin/users/"+uid+"/passkeys", str(s, "access_token"), nil), 403, "not_admin")
	ps := list(t, e.do("GET", "/admin/users/"+uid+"/passkeys", key, nil))
	if len(ps) != 1 || ps[0]["id"] != str(reg, "id") {
		t.Fatalf("admin list %v", ps)
	}
	wantErr(t, e.do("GET", "/admin/users/00000000-0000-4000-8000-000000000001/passkeys", key, nil), 404, "user_not_found")
	wantErr(t, e.do("DELETE", "/admin/users/"+uid+"/passkeys/not-a-uuid", key, nil), 404, "passkey_not_found")
	if r := e.do("DELETE", "/admin/users/"+uid+"/passkeys/"+str(reg, "id"), key, nil); r.status != 204 {
		t.Fatalf("admin delete = %d %s", r.status, r.raw)
	}
	if ps := list(t, e.do("GET", "/admin/users/"+uid+"/passkeys", key, nil)); len(ps) != 0 {
		t.Fatalf("after delete %v", ps)
	}
}

func TestPasskeysDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	at := str(e.signUpConfirmed("pd@example.com", "password1"), "access_token")
	for _, tc := range []struct{ method, path, bearer string }{
		{"POST", "/passkeys/registration/options", at},
		{"POST", "/passkeys/registration/verify", at},
		{"POST", "/passkeys/authentication/options", ""},
		{"POST", "/passkeys/authentication/verify", ""},
		{"GET", "/passkeys", at},
		{"PATCH", "/passkeys/00000000-0000-4000-8000-000000000001", at},
		{"DELETE", "/passkeys/00000000-0000-4000-8000-000000000001", at},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			wantErr(t, e.do(tc.method, tc.path, tc.bearer, map[string]any{}), 404, "feature_disabled")
		})
	}
}
