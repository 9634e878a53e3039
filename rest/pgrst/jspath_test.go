package pgrst

import (
	"encoding/json"
	"testing"
)

func TestJSPath(t *testing.T) {
	t.Parallel()
	claims := map[string]any{}
	if err := json.Unmarshal([]byte(`{"role":"authenticated","app":{"roles":["viewer","pg_admin","editor"],"my role":"x"},"n":[[1,"deep"]]}`), &claims); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{".role", "authenticated", true},
		{".app.roles[1]", "pg_admin", true},
		{`.app."my role"`, "x", true},
		{".n[0][1]", "deep", true},
		{`.app.roles[?(@ == "editor")]`, "editor", true},
		{`.app.roles[?(@ ^== "pg_")]`, "pg_admin", true},
		{`.app.roles[?(@ ==^ "er")]`, "viewer", true},
		{`.app.roles[?(@ *== "dit")]`, "editor", true},
		{`.app.roles[?(@ != "viewer")]`, "pg_admin", true},
		{`.app.roles[?(@ == "none")]`, nil, false},
		{".app.roles[9]", nil, false},
		{".missing.role", nil, false},
		{".role[0]", nil, false},
	}
	for _, tt := range tests {
		p, err := parseJSPath(tt.path)
		if err != nil {
			t.Errorf("parseJSPath(%q): %v", tt.path, err)
			continue
		}
		got, ok := p.walk(claims)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%q.walk = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
	for _, bad := range []string{"", "role", ".", `."unclosed`, "[x]", "[-1]", "[]", `[?(@ = "x")]`, `[?(@ == x)]`, `[?(@ == "x")`, ".a b"} {
		if _, err := parseJSPath(bad); err == nil {
			t.Errorf("parseJSPath(%q) accepted", bad)
		}
	}
}

func FuzzJSPath(f *testing.F) {
	for _, s := range []string{".role", `.app."a b"[0]`, `.r[?(@ ^== "x")]`, "[", `[?(@ == "`, ".a.b.c[12]"} {
		f.Add(s)
	}
	claims := map[string]any{"role": "a", "r": []any{"x", map[string]any{"y": "z"}}}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseJSPath(s)
		if err != nil {
			return
		}
		if len(p) == 0 {
			t.Fatalf("parseJSPath(%q) gave no steps", s)
		}
		p.walk(claims)
	})
}
