package envconf

import (
	"reflect"
	"testing"
	"time"
)

func TestReader(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"PORT": "8080", "BAD_INT": "x1", "FLAG": "yes", "BAD_BOOL": "maybe",
		"SECS": "3600", "DUR": "1m30s", "BAD_DUR": "soon", "LIST": " a, b,,c ",
		"EMPTY": "  ", "DATABASE_URL": "postgres://fallback",
	}
	r := FromMap(env)
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"int set", r.Int(1, "PORT"), 8080},
		{"int default", r.Int(7, "MISSING"), 7},
		{"int malformed falls back", r.Int(9, "BAD_INT"), 9},
		{"bool set", r.Bool(false, "FLAG"), true},
		{"bool malformed", r.Bool(true, "BAD_BOOL"), true},
		{"duration seconds", r.Duration(0, "SECS"), time.Hour},
		{"duration go syntax", r.Duration(0, "DUR"), 90 * time.Second},
		{"duration malformed", r.Duration(time.Second, "BAD_DUR"), time.Second},
		{"list trimmed", r.List(nil, "LIST"), []string{"a", "b", "c"}},
		{"blank counts as unset", r.String("def", "EMPTY"), "def"},
		{"first set key wins", r.String("", "PGRST_DB_URI", "DATABASE_URL"), "postgres://fallback"},
	}
	for _, tc := range tests {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, tc.got, tc.want)
		}
	}
	err := r.Err()
	if err == nil {
		t.Fatal("expected the malformed values to be reported")
	}
	for _, key := range []string{"BAD_INT", "BAD_BOOL", "BAD_DUR"} {
		if !contains(err.Error(), key) {
			t.Errorf("error %q does not name %s", err, key)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
