package httpapi

import (
	"strings"
	"testing"
)

const (
	noSuchBucket = `{"statusCode":"404","code":"NoSuchBucket","error":"Bucket not found","message":"Bucket not found"}`
	noSuchKey    = `{"statusCode":"404","code":"NoSuchKey","error":"not_found","message":"Object not found"}`
)

// TestObjectReadErrors: the object reads (info, GET and HEAD on the plain and
// authenticated routes) answer NoSuchBucket for a bucket that does not exist,
// as upstream (storage-js's exists() throws on it instead of answering
// false), and NoSuchKey for a missing object or one RLS hides. The public
// info route ignores the Authorization header, like the public download.
func TestObjectReadErrors(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t, 1<<20)
	svc, usr := api.serviceKey, api.userKey
	for _, c := range []call{
		{method: "POST", target: "/bucket", key: svc, contentType: "application/json", body: []byte(`{"name":"priv"}`)},
		{method: "POST", target: "/bucket", key: svc, contentType: "application/json", body: []byte(`{"name":"pub","public":true}`)},
		{method: "POST", target: "/object/priv/a.txt", key: svc, contentType: "text/plain", body: []byte("secret")},
		{method: "POST", target: "/object/pub/a.txt", key: svc, contentType: "text/plain", body: []byte("hello")},
	} {
		if status, _, body := c.do(t, api.app); status != 200 {
			t.Fatalf("setup %s %s: %d %s", c.method, c.target, status, body)
		}
	}
	for _, route := range []string{"/object/info/", "/object/info/authenticated/", "/object/", "/object/authenticated/"} {
		methods := []string{"GET"}
		if !strings.HasPrefix(route, "/object/info/") {
			methods = append(methods, "HEAD")
		}
		for _, method := range methods {
			for _, tt := range []struct {
				who, key, target, want string
			}{
				{"service_role", svc, "nope/a.txt", noSuchBucket},
				{"a user", usr, "nope/a.txt", noSuchBucket},
				{"service_role", svc, "priv/missing.txt", noSuchKey},
				{"a user RLS denies", usr, "priv/a.txt", noSuchKey},
			} {
				status, h, body := call{method: method, target: route + tt.target, key: tt.key}.do(t, api.app)
				want := tt.want
				if method == "HEAD" {
					want = ""
				}
				if status != 400 || body != want {
					t.Errorf("%s %s%s as %s: %d %s\nwant 400 %s", method, route, tt.target, tt.who, status, body, want)
				}
				if h["etag"] != "" {
					t.Errorf("%s %s%s as %s: ETag %q on a refusal", method, route, tt.target, tt.who, h["etag"])
				}
			}
		}
	}

	// The public routes need no token and ignore a bad one.
	for _, target := range []string{"/object/info/public/pub/a.txt", "/object/public/pub/a.txt"} {
		for _, key := range []string{"", "not.a.jwt"} {
			status, _, body := call{method: "GET", target: target, key: key}.do(t, api.app)
			if status != 200 || !strings.Contains(body, "hello") && !strings.Contains(body, `"name":"a.txt"`) {
				t.Errorf("GET %s with token %q: %d %s, want 200", target, key, status, body)
			}
		}
	}
	for _, tt := range []struct{ target, want string }{
		{"/object/info/public/priv/a.txt", noSuchBucket},
		{"/object/info/public/nope/a.txt", noSuchBucket},
		{"/object/info/public/pub/missing.txt", noSuchKey},
	} {
		if status, _, body := (call{method: "GET", target: tt.target, key: "not.a.jwt"}).do(t, api.app); status != 400 || body != tt.want {
			t.Errorf("GET %s: %d %s\nwant 400 %s", tt.target, status, body, tt.want)
		}
	}
	// The authenticated route still refuses a bad token.
	if status, _, body := (call{method: "GET", target: "/object/info/authenticated/pub/a.txt", key: "not.a.jwt"}).do(t, api.app); status != 400 || !strings.Contains(body, `"statusCode":"403","code":"AccessDenied"`) {
		t.Errorf("GET /object/info/authenticated with a bad token: %d %s, want AccessDenied", status, body)
	}
}
