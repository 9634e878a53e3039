package spa

import (
	"strings"
	"testing"
)

func TestAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header, coding string
		want           bool
	}{
		{"", "gzip", false},
		{"gzip", "gzip", true},
		{"GZIP", "gzip", true},
		{"gzip, deflate, br, zstd", "br", true},
		{"deflate", "gzip", false},
		{"gzip;q=0", "gzip", false},
		{"gzip; q=0.0", "gzip", false},
		{"gzip;q=0.001", "gzip", true},
		{"gzip;q=1", "gzip", true},
		{"gzip;q=2", "gzip", false},
		{"gzip;q=abc", "gzip", false},
		{"*", "br", true},
		{"*;q=0", "br", false},
		{"*, br;q=0", "br", false},
		{"br;q=0, *", "br", false},
		{"identity", "gzip", false},
		{" br ; q=0.5 ", "br", true},
		{"gzipx", "gzip", false},
		{",,;;,", "gzip", false},
	}
	for _, tc := range tests {
		if got := accepts(tc.header, tc.coding); got != tc.want {
			t.Errorf("accepts(%q, %q) = %v, want %v", tc.header, tc.coding, got, tc.want)
		}
	}
}

// FuzzAccepts checks that any header is read without a panic, that a
// coding the header never names (and no "*") is refused, and that an
// explicit refusal always wins.
func FuzzAccepts(f *testing.F) {
	for _, s := range []string{"gzip, br", "*;q=0", "br;q=0.5, *", "gzip;q=", ";;,", "br;q=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		for _, e := range encodings {
			got := accepts(header, e.coding)
			if got && !containsFold(header, e.coding) && !containsFold(header, "*") {
				t.Fatalf("accepts(%q, %q) without naming it", header, e.coding)
			}
			if accepts(header+", "+e.coding+";q=0", e.coding) && !accepts(header, e.coding) {
				t.Fatalf("a later refusal turned %q into acceptance", header)
			}
		}
	})
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}
