package pgrst

import (
	"fmt"
	"strconv"
	"strings"
)

// jsPath is a parsed jwt_role_claim_key (PostgREST Config/JSPath.hs): the
// steps that lead from a JWT's claims to its role.
type jsPath []jsStep

// jsStep is one step: an object key, an array index, or a filter picking
// the first string element of an array that matches.
type jsStep struct {
	key    string
	index  int
	kind   byte // 'k' key, 'i' index, 'f' filter
	op     string
	filter string
}

// defaultRoleClaimKey is PostgREST's default jwt_role_claim_key.
const defaultRoleClaimKey = ".role"

// maxJSPathLen bounds a jwt_role_claim_key.
const maxJSPathLen = 1024

// parseJSPath parses ".a.b[0]", `."a b"`, and filters as PostgREST accepts
// them: [?(@ == "x")] with ==, !=, ^== (starts with), ==^ (ends with) and
// *== (contains).
func parseJSPath(s string) (jsPath, error) {
	if s == "" || len(s) > maxJSPathLen {
		return nil, fmt.Errorf("jwt role claim key %q: want .key, .\"key\", [n] or [?(@ == \"value\")] steps", s)
	}
	var out jsPath
	rest := s
	bad := func() (jsPath, error) {
		return nil, fmt.Errorf("jwt role claim key %q: cannot parse at %q", s, rest)
	}
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, `."`):
			end := strings.IndexByte(rest[2:], '"')
			if end < 0 {
				return bad()
			}
			out = append(out, jsStep{kind: 'k', key: rest[2 : 2+end]})
			rest = rest[3+end:]
		case rest[0] == '.':
			n := 1
			for n < len(rest) && isKeyChar(rest[n]) {
				n++
			}
			if n == 1 {
				return bad()
			}
			out = append(out, jsStep{kind: 'k', key: rest[1:n]})
			rest = rest[n:]
		case strings.HasPrefix(rest, "[?(@"):
			step, n, ok := parseFilter(rest)
			if !ok {
				return bad()
			}
			out = append(out, step)
			rest = rest[n:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 2 {
				return bad()
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 {
				return bad()
			}
			out = append(out, jsStep{kind: 'i', index: i})
			rest = rest[end+1:]
		default:
			return bad()
		}
	}
	return out, nil
}

func isKeyChar(c byte) bool {
	return c == '_' || c == '$' || c == '@' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// parseFilter reads `[?(@ op "value")]` at the start of s.
func parseFilter(s string) (jsStep, int, bool) {
	i := len("[?(@")
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	skip()
	var op string
	for _, o := range []string{"==^", "^==", "*==", "==", "!="} {
		if strings.HasPrefix(s[i:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return jsStep{}, 0, false
	}
	i += len(op)
	skip()
	if i >= len(s) || s[i] != '"' {
		return jsStep{}, 0, false
	}
	end := strings.IndexByte(s[i+1:], '"')
	if end < 0 {
		return jsStep{}, 0, false
	}
	val := s[i+1 : i+1+end]
	i += end + 2
	skip()
	if !strings.HasPrefix(s[i:], ")]") {
		return jsStep{}, 0, false
	}
	return jsStep{kind: 'f', op: op, filter: val}, i + 2, true
}

// walk follows the path through decoded JSON claims; ok is false when a
// step finds nothing.
func (p jsPath) walk(v any) (any, bool) {
	for _, st := range p {
		switch st.kind {
		case 'k':
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[st.key]; !ok {
				return nil, false
			}
		case 'i':
			a, ok := v.([]any)
			if !ok || st.index >= len(a) {
				return nil, false
			}
			v = a[st.index]
		case 'f':
			a, ok := v.([]any)
			if !ok {
				return nil, false
			}
			found := false
			for _, e := range a {
				if s, ok := e.(string); ok && st.match(s) {
					v, found = s, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
	}
	return v, true
}

func (st jsStep) match(s string) bool {
	switch st.op {
	case "==":
		return s == st.filter
	case "!=":
		return s != st.filter
	case "^==":
		return strings.HasPrefix(s, st.filter)
	case "==^":
		return strings.HasSuffix(s, st.filter)
	}
	return strings.Contains(s, st.filter)
}

// CheckRoleClaimKey reports whether s is a jwt_role_claim_key PostgREST
// accepts.
func CheckRoleClaimKey(s string) error {
	_, err := parseJSPath(s)
	return err
}

// isDefault reports the path .role, which the verifier reads itself.
func (p jsPath) isDefault() bool { return len(p) == 1 && p[0].kind == 'k' && p[0].key == "role" }
