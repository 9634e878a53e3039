package api

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"
)

// softAuthenticator is a WebAuthn authenticator in software: one ES256
// key, "none" attestation, CBOR written by hand so that the test checks
// the server against bytes it did not produce with the same library.
type softAuthenticator struct {
	key    *ecdsa.PrivateKey
	credID []byte
	count  uint32
	// aaguid names the authenticator's model; nil sends the all-zero one
	// ("none").
	aaguid []byte
}

func newSoftAuthenticator(t *testing.T) *softAuthenticator {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		t.Fatal(err)
	}
	return &softAuthenticator{key: k, credID: id}
}

func cborHead(major byte, n int) []byte {
	switch {
	case n < 24:
		return []byte{major<<5 | byte(n)}
	case n < 256:
		return []byte{major<<5 | 24, byte(n)}
	default:
		return []byte{major<<5 | 25, byte(n >> 8), byte(n)}
	}
}

func cborInt(n int) []byte {
	if n < 0 {
		return cborHead(1, -1-n)
	}
	return cborHead(0, n)
}

func cborBytes(b []byte) []byte { return append(cborHead(2, len(b)), b...) }
func cborText(s string) []byte  { return append(cborHead(3, len(s)), s...) }

// coseKey is the credential's public key as a COSE_Key (EC2, P-256, ES256).
func (a *softAuthenticator) coseKey() []byte {
	pub, err := a.key.PublicKey.ECDH()
	if err != nil {
		panic(err)
	}
	raw := pub.Bytes() // 0x04 || x || y
	out := cborHead(5, 5)
	out = append(append(out, cborInt(1)...), cborInt(2)...)  // kty: EC2
	out = append(append(out, cborInt(3)...), cborInt(-7)...) // alg: ES256
	out = append(append(out, cborInt(-1)...), cborInt(1)...) // crv: P-256
	out = append(append(out, cborInt(-2)...), cborBytes(raw[1:33])...)
	return append(append(out, cborInt(-3)...), cborBytes(raw[33:])...)
}

func (a *softAuthenticator) authData(rpID string, attested bool) []byte {
	h := sha256.Sum256([]byte(rpID))
	flags := byte(0x01 | 0x04) // user present, user verified
	if attested {
		flags |= 0x40
	}
	a.count++
	out := append(h[:], flags)
	out = binary.BigEndian.AppendUint32(out, a.count)
	if attested {
		aaguid := a.aaguid
		if aaguid == nil {
			aaguid = make([]byte, 16)
		}
		out = append(out, aaguid...)
		out = binary.BigEndian.AppendUint16(out, uint16(len(a.credID)))
		out = append(append(out, a.credID...), a.coseKey()...)
	}
	return out
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func clientData(kind, challenge, origin string) []byte {
	b, _ := json.Marshal(map[string]any{"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": false})
	return b
}

// create answers creation options with a "none" attestation.
func (a *softAuthenticator) create(challenge, rpID, origin string) map[string]any {
	att := cborHead(5, 3)
	att = append(append(att, cborText("fmt")...), cborText("none")...)
	att = append(append(att, cborText("attStmt")...), cborHead(5, 0)...)
	att = append(append(att, cborText("authData")...), cborBytes(a.authData(rpID, true))...)
	return map[string]any{"id": b64(a.credID), "rawId": b64(a.credID), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64(clientData("webauthn.create", challenge, origin)), "attestationObject": b64(att)}}
}

// get answers request options; tamper corrupts the signature.
func (a *softAuthenticator) get(t *testing.T, challenge, rpID, origin string, userHandle []byte, tamper bool) map[string]any {
	t.Helper()
	cd := clientData("webauthn.get", challenge, origin)
	ad := a.authData(rpID, false)
	h := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	if tamper {
		digest[0] ^= 0xff
		if sig, err = ecdsa.SignASN1(rand.Reader, a.key, digest[:]); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]any{"id": b64(a.credID), "rawId": b64(a.credID), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64(cd), "authenticatorData": b64(ad), "signature": b64(sig), "userHandle": b64(userHandle)}}
}

// webAuthnOn enables WebAuthn factors, off by default as in GoTrue.
var webAuthnOn = map[string]string{"GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true"}

func TestMFAWebAuthn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webAuthnOn)
	s := e.signUpConfirmed("wa@example.com", "password1")
	at := str(s, "access_token")
	rp := map[string]any{"rp_id": "app.test", "rp_origins": []string{"http://app.test"}}
	f := wantOK(t, e.do("POST", "/factors", at, map[string]any{"factor_type": "webauthn", "friendly_name": "laptop"}))
	if f["type"] != "webauthn" || f["friendly_name"] != "laptop" || f["totp"] != nil {
		t.Fatalf("enroll %v", f)
	}
	fid := str(f, "id")
	ch := wantOK(t, e.do("POST", "/factors/"+fid+"/challenge", at, map[string]any{"webauthn": rp}))
	if str(ch, "type") != "webauthn" || str(ch, "webauthn", "type") != "create" {
		t.Fatalf("challenge %v", ch)
	}
	pk := ch["webauthn"].(map[string]any)["credential_options"].(map[string]any)["publicKey"].(map[string]any)
	if pk["rp"].(map[string]any)["id"] != "app.test" || pk["user"].(map[string]any)["name"] != "wa@example.com" {
		t.Fatalf("creation options %v", pk)
	}
	auth := newSoftAuthenticator(t)
	auth.aaguid = []byte{0xea, 0x9b, 0x8d, 0x66, 0x4d, 0x01, 0x1d, 0x21, 0x3c, 0xe4, 0xb6, 0xb4, 0x8c, 0xb5, 0x75, 0xd4}
	// The wrong ceremony type and a response from another origin fail.
	wantErr(t, e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"),
		"webauthn": map[string]any{"type": "request", "credential_response": map[string]any{}}}), 400, "validation_failed")
	wantErr(t, e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"),
		"webauthn": map[string]any{"type": "create", "credential_response": auth.create(pk["challenge"].(string), "app.test", "http://evil.test")}}), 422, "mfa_verification_failed")
	v := wantOK(t, e.do("POST", "/factors/"+fid+"/verify", at, map[string]any{"challenge_id": str(ch, "id"),
		"webauthn": map[string]any{"type": "create", "credential_response": auth.create(pk["challenge"].(string), "app.test", "http://app.test")}}))
	claims, err := newAPI(Deps{Config: e.cfg, Store: e.store}).signer.Verify(str(v, "access_token"), time.Now())
	if err != nil || claims["aal"] != "aal2" || !strings.Contains(toJSON(claims["amr"]), `"mfa/webauthn"`) {
		t.Fatalf("aal2 claims %v %v", claims, err)
	}

	// The factor names its authenticator's model, as GoTrue's
	// web_authn_aaguid does.
	me := wantOK(t, e.do("GET", "/user", str(v, "access_token"), nil))
	factors, _ := me["factors"].([]any)
	if len(factors) != 1 || factors[0].(map[string]any)["web_authn_aaguid"] != "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4" {
		t.Fatalf("factors %v", me["factors"])
	}

	// A new sign-in steps up with a request ceremony.
	s2 := wantOK(t, e.do("POST", "/token?grant_type=password", "", map[string]any{"email": "wa@example.com", "password": "password1"}))
	at2 := str(s2, "access_token")
	ch2 := wantOK(t, e.do("POST", "/factors/"+fid+"/challenge", at2, map[string]any{"webauthn": map[string]any{"rpId": "app.test", "rpOrigins": []string{"http://app.test"}}}))
	if str(ch2, "webauthn", "type") != "request" {
		t.Fatalf("challenge %v", ch2)
	}
	rk := ch2["webauthn"].(map[string]any)["credential_options"].(map[string]any)["publicKey"].(map[string]any)
	allow, _ := rk["allowCredentials"].([]any)
	if len(allow) != 1 || allow[0].(map[string]any)["id"] != b64(auth.credID) {
		t.Fatalf("request options %v", rk)
	}
	uid, _ := claims["sub"].(string)
	handle := uuidBytes(t, uid)
	verify := func(tamper bool) resp {
		return e.do("POST", "/factors/"+fid+"/verify", at2, map[string]any{"challenge_id": str(ch2, "id"),
			"webauthn": map[string]any{"type": "request", "credential_response": auth.get(t, rk["challenge"].(string), "app.test", "http://app.test", handle, tamper)}})
	}
	wantErr(t, verify(true), 422, "mfa_verification_failed")
	v2 := wantOK(t, verify(false))
	claims2, err := newAPI(Deps{Config: e.cfg, Store: e.store}).signer.Verify(str(v2, "access_token"), time.Now())
	if err != nil || claims2["aal"] != "aal2" {
		t.Fatalf("aal2 claims %v %v", claims2, err)
	}
	// The challenge is spent.
	wantErr(t, verify(false), 422, "mfa_challenge_expired")
}

func uuidBytes(t *testing.T, s string) []byte {
	t.Helper()
	var out []byte
	for _, part := range strings.Split(s, "-") {
		for i := 0; i+1 < len(part); i += 2 {
			var b byte
			for _, c := range part[i : i+2] {
				b <<= 4
				switch {
				case c >= '0' && c <= '9':
					b |= byte(c - '0')
				default:
					b |= byte(c-'a') + 10
				}
			}
			out = append(out, b)
		}
	}
	if len(out) != 16 {
		t.Fatalf("user id %q", s)
	}
	return out
}

func TestMFAWebAuthnDisabled(t *testing.T) {
	t.Parallel()
	off := newEnv(t, nil)
	at := str(off.signUpConfirmed("wd@example.com", "password1"), "access_token")
	wantErr(t, off.do("POST", "/factors", at, map[string]any{"factor_type": "webauthn"}), 422, "mfa_webauthn_enroll_not_enabled")

	noVerify := newEnv(t, map[string]string{"GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true"})
	at = str(noVerify.signUpConfirmed("wv@example.com", "password1"), "access_token")
	f := wantOK(t, noVerify.do("POST", "/factors", at, map[string]any{"factor_type": "webauthn"}))
	wantErr(t, noVerify.do("POST", "/factors/"+str(f, "id")+"/challenge", at, nil), 422, "mfa_webauthn_verify_not_enabled")
	wantErr(t, noVerify.do("POST", "/factors/"+str(f, "id")+"/verify", at, map[string]any{"challenge_id": "x",
		"webauthn": map[string]any{"type": "create", "credential_response": map[string]any{}}}), 422, "mfa_webauthn_verify_not_enabled")
}

func TestRelyingParty(t *testing.T) {
	t.Parallel()
	a := &API{}
	a.cfg.SiteURL = "https://app.example.com:8443/x"
	cases := []struct {
		name    string
		p       *webAuthnParams
		rpID    string
		origins []string
		bad     bool
	}{
		{"site url", nil, "app.example.com", []string{"https://app.example.com:8443"}, false},
		{"gotrue names", &webAuthnParams{RPID: "example.com", RPOrigins: []string{"https://www.example.com"}}, "example.com", []string{"https://www.example.com"}, false},
		{"auth-js names", &webAuthnParams{RPIDJS: "Example.com", RPOriginsJS: []string{"https://example.com"}}, "example.com", []string{"https://example.com"}, false},
		{"origin outside rp", &webAuthnParams{RPID: "example.com", RPOrigins: []string{"https://badexample.com"}}, "", nil, true},
		{"not http", &webAuthnParams{RPID: "example.com", RPOrigins: []string{"ftp://example.com"}}, "", nil, true},
		{"not an origin", &webAuthnParams{RPID: "example.com", RPOrigins: []string{"https://u@example.com/p"}}, "", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id, origins, err := a.relyingParty(tc.p)
			if (err != nil) != tc.bad || id != tc.rpID || strings.Join(origins, ",") != strings.Join(tc.origins, ",") {
				t.Fatalf("= %q %v %v", id, origins, err)
			}
		})
	}
}

// FuzzRelyingParty feeds client-chosen RP IDs and origins: they are either
// refused or every origin lies within the RP ID.
func FuzzRelyingParty(f *testing.F) {
	f.Add("example.com", "https://example.com")
	f.Add("example.com", "https://a.example.com:8443")
	f.Add("example.com", "https://evilexample.com")
	f.Add("", "")
	f.Add("EXAMPLE.com", "http://[::1]")
	a := &API{}
	a.cfg.SiteURL = "https://app.example.com"
	f.Fuzz(func(t *testing.T, rpID, origin string) {
		p := &webAuthnParams{RPID: rpID}
		if origin != "" {
			p.RPOrigins = []string{origin}
		}
		id, origins, err := a.relyingParty(p)
		if err != nil {
			return
		}
		for _, o := range origins {
			u, err := url.Parse(o)
			if err != nil || u.User != nil {
				t.Fatalf("origin %q accepted: %v", o, err)
			}
			if h := strings.ToLower(u.Hostname()); h != id && !strings.HasSuffix(h, "."+id) {
				t.Fatalf("origin %q accepted outside rp %q", o, id)
			}
		}
	})
}
