package sqlgen_test

import (
	"slices"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// TestWithSetting checks that a setting added to a preamble gives the
// statement a preamble of all the settings would be, and leaves the
// original (kept by the caller for other connections) as it was.
func TestWithSetting(t *testing.T) {
	tests := []struct {
		name     string
		settings [][2]string
	}{
		{"empty", nil},
		{"one", [][2]string{{"role", "anon"}}},
		{"several", [][2]string{{"search_path", `"public"`}, {"role", "anon"}, {"request.headers", `{"a":"b"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sqlgen.Preamble(tt.settings)
			before := slices.Clone(p.Params)
			got := sqlgen.WithSetting(p, "plan_cache_mode", "force_custom_plan")
			want := sqlgen.Preamble(append(slices.Clone(tt.settings), [2]string{"plan_cache_mode", "force_custom_plan"}))
			if got.SQL != want.SQL {
				t.Errorf("SQL = %q, want %q", got.SQL, want.SQL)
			}
			if len(got.Params) != len(want.Params) {
				t.Fatalf("%d params, want %d", len(got.Params), len(want.Params))
			}
			for i := range want.Params {
				if string(got.Params[i]) != string(want.Params[i]) {
					t.Errorf("param %d = %q, want %q", i+1, got.Params[i], want.Params[i])
				}
			}
			if len(p.Params) != len(before) {
				t.Errorf("the original preamble changed: %d params, had %d", len(p.Params), len(before))
			}
		})
	}
}
