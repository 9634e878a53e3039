package api

import (
	"strings"
	"testing"
)

// TestAdminCreateKeepsUserMetadata: GoTrue's adminUserCreate stores
// user_metadata exactly as given; sub, email and the *_verified flags are
// the identity's, never copied into user_metadata.
func TestAdminCreateKeepsUserMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		name string
		body map[string]any
		want map[string]any
	}{
		{"email confirmed", map[string]any{"email": "meta1@example.com", "password": "password1", "email_confirm": true}, map[string]any{}},
		{"phone confirmed with data", map[string]any{"phone": "+254700000071", "phone_confirm": true, "user_metadata": map[string]any{"name": "Wanjiku"}}, map[string]any{"name": "Wanjiku"}},
		{"own id", map[string]any{"id": "6f1c1d9e-1c1b-4b8e-9a3c-1d7e2f0a5b01", "email": "meta2@example.com"}, map[string]any{}},
		{"given keys kept", map[string]any{"email": "meta3@example.com", "user_metadata": map[string]any{"email": "shown@example.com"}}, map[string]any{"email": "shown@example.com"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := wantOK(t, e.do("POST", "/admin/users", e.serviceKey(), tc.body))
			meta, _ := u["user_metadata"].(map[string]any)
			if len(meta) != len(tc.want) {
				t.Fatalf("user_metadata %v, want %v", meta, tc.want)
			}
			for k, v := range tc.want {
				if meta[k] != v {
					t.Errorf("user_metadata[%s] = %v, want %v", k, meta[k], v)
				}
			}
			ids, _ := u["identities"].([]any)
			if len(ids) != 1 {
				t.Fatalf("identities %v", u["identities"])
			}
			data := ids[0].(map[string]any)["identity_data"].(map[string]any)
			if data["sub"] != u["id"] {
				t.Errorf("identity_data %v", data)
			}
		})
	}
}

// TestAdminListUsersPagination: GoTrue parses page and per_page as
// unsigned integers and answers 400 validation_failed with the parse error.
func TestAdminListUsersPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		query, wantMsg string
	}{
		{"page=-1", `Bad Pagination Parameters: strconv.ParseUint: parsing "-1": invalid syntax`},
		{"per_page=-5", `Bad Pagination Parameters: strconv.ParseUint: parsing "-5": invalid syntax`},
		{"page=abc", `Bad Pagination Parameters: strconv.ParseUint: parsing "abc": invalid syntax`},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := e.do("GET", "/admin/users?"+tc.query, e.serviceKey(), nil)
			wantErr(t, r, 400, "validation_failed")
			if !strings.Contains(r.raw, strings.ReplaceAll(tc.wantMsg, `"`, `\"`)) {
				t.Errorf("body %s, want %s", r.raw, tc.wantMsg)
			}
		})
	}
	wantOK(t, e.do("GET", "/admin/users?page=0&per_page=0", e.serviceKey(), nil))
}

// TestGenerateLinkParameterOrder: the action link is GoTrue's
// /verify?token=…&type=…&redirect_to=… in that order, redirect_to escaped
// only when it holds &, = or #.
func TestGenerateLinkParameterOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"GOTRUE_URI_ALLOW_LIST": "http://localhost:3000/**"})
	tests := []struct {
		name, redirect, wantTail string
	}{
		{"plain redirect", "http://localhost:3000/welcome", "&type=magiclink&redirect_to=http://localhost:3000/welcome"},
		{"redirect with a query", "http://localhost:3000/cb?next=/a&b=1", "&type=magiclink&redirect_to=" + "http%3A%2F%2Flocalhost%3A3000%2Fcb%3Fnext%3D%2Fa%26b%3D1"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			email := "gl" + string(rune('a'+i)) + "@example.com"
			wantOK(t, e.do("POST", "/admin/users", e.serviceKey(), map[string]any{"email": email, "email_confirm": true}))
			gl := wantOK(t, e.do("POST", "/admin/generate_link", e.serviceKey(), map[string]any{
				"type": "magiclink", "email": email, "redirect_to": tc.redirect,
			}))
			link := str(gl, "action_link")
			prefix := "/verify?token=" + str(gl, "hashed_token")
			if !strings.Contains(link, prefix+tc.wantTail) || !strings.HasSuffix(link, tc.wantTail) {
				t.Errorf("action_link %s\nwant …%s%s", link, prefix, tc.wantTail)
			}
		})
	}
}
