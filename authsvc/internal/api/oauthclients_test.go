package api

import (
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestOAuthClientsDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wantErr(t, e.do("GET", "/admin/oauth/clients", "", nil), 401, "no_authorization")
	user := str(e.signUpConfirmed("c@example.com", "password-123"), "access_token")
	wantErr(t, e.do("GET", "/admin/oauth/clients", user, nil), 403, "not_admin")
	r := e.do("POST", "/admin/oauth/clients", e.serviceKey(), map[string]any{"redirect_uris": []string{"https://app.example/cb"}})
	wantErr(t, r, 404, "feature_disabled")
	if r.body["message"] != "OAuth server is disabled" {
		t.Errorf("message %v", r.body["message"])
	}
}

func TestOAuthClientsAdmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_OAUTH_SERVER_ENABLED": "true"})
	key := e.serviceKey()
	refusals := []struct {
		name string
		body any
		msg  string
	}{
		{"not json", []byte("{"), ""},
		{"no redirect uris", map[string]any{"client_name": "x"}, "redirect_uris is required"},
		{"empty redirect uris", map[string]any{"redirect_uris": []string{}}, "redirect_uris is required"},
		{"http off localhost", map[string]any{"redirect_uris": []string{"http://app.example/cb"}}, "invalid redirect_uri 'http://app.example/cb': HTTP scheme only allowed for localhost"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://app.example/cb#x"}}, "invalid redirect_uri 'https://app.example/cb#x': fragment not allowed in redirect URI"},
		{"custom scheme", map[string]any{"redirect_uris": []string{"myapp://cb"}}, "invalid redirect_uri 'myapp://cb': scheme must be HTTPS or HTTP (localhost only)"},
		{"eleven uris", map[string]any{"redirect_uris": strings.Split(strings.Repeat("https://a.example/,", 11), ",")[:11]}, "redirect_uris cannot exceed 10 items"},
		{"grant type", map[string]any{"redirect_uris": []string{"https://a.example/"}, "grant_types": []string{"password"}},
			"grant_types must only contain 'authorization_code' and/or 'refresh_token'"},
		{"client type", map[string]any{"redirect_uris": []string{"https://a.example/"}, "client_type": "secret"}, "client_type must be 'public' or 'confidential'"},
		{"public with a secret method", map[string]any{"redirect_uris": []string{"https://a.example/"}, "client_type": "public", "token_endpoint_auth_method": "client_secret_post"},
			"public clients must use token_endpoint_auth_method 'none'"},
		{"client uri", map[string]any{"redirect_uris": []string{"https://a.example/"}, "client_uri": "not a url"}, "client_uri must be a valid URL"},
		{"long name", map[string]any{"redirect_uris": []string{"https://a.example/"}, "client_name": strings.Repeat("n", 1025)}, "client_name cannot exceed 1024 characters"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/admin/oauth/clients", key, tt.body)
			if tt.msg == "" {
				wantErr(t, r, 400, "bad_json")
				return
			}
			wantErr(t, r, 400, "validation_failed")
			if r.body["message"] != tt.msg {
				t.Errorf("message %q, want %q", r.body["message"], tt.msg)
			}
		})
	}

	r := e.do("POST", "/admin/oauth/clients", key, map[string]any{"client_name": "Keja Partner", "redirect_uris": []string{"https://partner.example/cb", "http://localhost:3000/cb"},
		"client_uri": "https://partner.example"})
	if r.status != 201 {
		t.Fatalf("create = %d %s", r.status, r.raw)
	}
	conf := r.body
	id, secret := str(conf, "client_id"), str(conf, "client_secret")
	if conf["client_type"] != "confidential" || conf["token_endpoint_auth_method"] != "client_secret_basic" || conf["registration_type"] != "manual" ||
		len(secret) < 43 || str(conf, "client_name") != "Keja Partner" {
		t.Fatalf("created %v", conf)
	}
	sum := sha256.Sum256([]byte(secret))
	if got := e.superQuery(`select client_secret_hash from auth.oauth_clients where id = $1`, id); got != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Errorf("stored %v, want the SHA-256 of the secret only", got)
	}
	if got := e.superQuery(`select redirect_uris || ' ' || grant_types || ' ' || registration_type || ' ' || client_type from auth.oauth_clients where id = $1`, id); got != "https://partner.example/cb,http://localhost:3000/cb authorization_code,refresh_token manual confidential" {
		t.Errorf("stored as %v, want GoTrue's comma-separated columns", got)
	}
	post := e.do("POST", "/admin/oauth/clients", key, map[string]any{"redirect_uris": []string{"https://b.example/cb"}, "token_endpoint_auth_method": "client_secret_post"})
	if post.status != 201 || post.body["token_endpoint_auth_method"] != "client_secret_post" || post.body["client_type"] != "confidential" {
		t.Fatalf("client_secret_post client %d %s", post.status, post.raw)
	}
	if r := e.do("DELETE", "/admin/oauth/clients/"+str(post.body, "client_id"), key, nil); r.status != 204 {
		t.Fatalf("delete = %d %s", r.status, r.raw)
	}
	e.clock.Add(time.Second) // the list is newest first
	pub := e.do("POST", "/admin/oauth/clients", key, map[string]any{"redirect_uris": []string{"https://spa.example/cb"}, "token_endpoint_auth_method": "none"})
	if pub.status != 201 || pub.body["client_type"] != "public" || pub.body["client_secret"] != nil || pub.body["token_endpoint_auth_method"] != "none" {
		t.Fatalf("public client %d %s", pub.status, pub.raw)
	}
	pubID := str(pub.body, "client_id")

	got := wantOK(t, e.do("GET", "/admin/oauth/clients/"+id, key, nil))
	if got["client_secret"] != nil || str(got, "client_uri") != "https://partner.example" {
		t.Errorf("get %v", got)
	}
	wantErr(t, e.do("GET", "/admin/oauth/clients/nope", key, nil), 400, "validation_failed")
	wantErr(t, e.do("GET", "/admin/oauth/clients/00000000-0000-0000-0000-000000000000", key, nil), 404, "oauth_client_not_found")

	list := wantOK(t, e.do("GET", "/admin/oauth/clients", key, nil))
	if cs := list["clients"].([]any); len(cs) != 2 || str(cs[0].(map[string]any), "client_id") != pubID {
		t.Errorf("list %v, want both, newest first", list)
	}
	paged := e.do("GET", "/admin/oauth/clients?page=2&per_page=1", key, nil)
	if cs := paged.body["clients"].([]any); len(cs) != 1 || str(cs[0].(map[string]any), "client_id") != id || paged.header.Get("X-Total-Count") != "2" {
		t.Errorf("page 2: %s %v", paged.raw, paged.header)
	}

	wantErr(t, e.do("PUT", "/admin/oauth/clients/"+id, key, map[string]any{}), 400, "validation_failed")
	wantErr(t, e.do("PUT", "/admin/oauth/clients/"+id, key, map[string]any{"redirect_uris": []string{}}), 400, "validation_failed")
	up := wantOK(t, e.do("PUT", "/admin/oauth/clients/"+id, key, map[string]any{"client_name": "Renamed", "grant_types": []string{"authorization_code"}}))
	if str(up, "client_name") != "Renamed" || len(up["grant_types"].([]any)) != 1 || len(up["redirect_uris"].([]any)) != 2 {
		t.Errorf("update %v", up)
	}

	wantErr(t, e.do("POST", "/admin/oauth/clients/"+pubID+"/regenerate_secret", key, nil), 400, "validation_failed")
	regen := wantOK(t, e.do("POST", "/admin/oauth/clients/"+id+"/regenerate_secret", key, nil))
	if s := str(regen, "client_secret"); len(s) < 43 || s == secret {
		t.Errorf("regenerated %v", regen)
	}

	if r := e.do("DELETE", "/admin/oauth/clients/"+id, key, nil); r.status != 204 {
		t.Fatalf("delete = %d %s", r.status, r.raw)
	}
	wantErr(t, e.do("GET", "/admin/oauth/clients/"+id, key, nil), 404, "oauth_client_not_found")
	wantErr(t, e.do("DELETE", "/admin/oauth/clients/"+id, key, nil), 404, "oauth_client_not_found")
	if n := e.superQuery(`select count(*) from auth.oauth_clients where deleted_at is not null`).(int64); n != 2 {
		t.Errorf("%d soft-deleted rows, want 2", n)
	}
}

func TestValidateRedirectURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		uri string
		ok  bool
	}{
		{"https://app.example/cb", true},
		{"https://app.example:8443/cb?x=1", true},
		{"http://localhost:3000/cb", true},
		{"http://127.0.0.1/cb", true},
		{"http://localhost.evil.example/cb", false},
		{"http://app.example/cb", false},
		{"https://app.example/cb#frag", false},
		{"javascript:alert(1)", false},
		{"//app.example/cb", false},
		{"/cb", false},
		{"", false},
		{"https://", false},
		{"https://app.example/cb?a=1,2", false},
	}
	for _, tt := range tests {
		if err := validateRedirectURI(tt.uri); (err == nil) != tt.ok {
			t.Errorf("validateRedirectURI(%q) = %v, want ok %v", tt.uri, err, tt.ok)
		}
	}
}

// FuzzValidateRedirectURI: whatever it is given, an accepted URI is https,
// or http on a loopback name, with a host and no fragment.
func FuzzValidateRedirectURI(f *testing.F) {
	for _, s := range []string{"https://a.example/cb", "http://localhost:1/x", "http://127.0.0.1", "https://a#b", "cursor://x", "%zz", "https://[::1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if validateRedirectURI(s) != nil {
			return
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || u.Fragment != "" {
			t.Fatalf("accepted %q", s)
		}
		if strings.Contains(s, ",") {
			t.Fatalf("accepted %q, which the comma-separated list would split", s)
		}
		if u.Scheme != "https" && !(u.Scheme == "http" && (u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1")) {
			t.Fatalf("accepted %q with scheme %q host %q", s, u.Scheme, u.Hostname())
		}
	})
}
