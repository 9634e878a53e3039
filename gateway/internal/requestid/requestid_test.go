package requestid

import (
	"regexp"
	"strings"
	"testing"
)

func TestPick(t *testing.T) {
	t.Parallel()
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tests := []struct {
		name, in string
		keep     bool
	}{
		{"kept", "abc-123", true},
		{"spaces allowed", "a b", true},
		{"max", strings.Repeat("x", MaxLen), true},
		{"too long", strings.Repeat("x", MaxLen+1), false},
		{"empty", "", false},
		{"newline", "a\nb", false},
		{"tab", "a\tb", false},
		{"utf8", "ñ", false},
		{"del", "a\x7f", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Pick(tc.in)
			if tc.keep != (got == tc.in) {
				t.Errorf("Pick(%q) = %q", tc.in, got)
			}
			if !tc.keep && !uuid.MatchString(got) {
				t.Errorf("generated %q is not a v4 uuid", got)
			}
		})
	}
	if New() == New() {
		t.Error("two generated ids are equal")
	}
}
