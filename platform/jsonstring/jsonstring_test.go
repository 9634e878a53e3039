package jsonstring

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppend(t *testing.T) {
	tests := []struct {
		name, in, want, wantLower string
	}{
		{"plain", "Accept-Profile", `"Accept-Profile"`, `"accept-profile"`},
		{"empty", "", `""`, `""`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"control characters", "\x00\n\x1f", `"\u0000\u000a\u001f"`, `"\u0000\u000a\u001f"`},
		{"non-ASCII", "ÜNÏ ü", `"ÜNÏ ü"`, `"ünï ü"`},
		{"Kelvin sign", "\u212a", "\"\u212a\"", `"k"`},
		{"invalid UTF-8", "a\xffb", "\"a\uFFFDb\"", "\"a\uFFFDb\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Append([]byte("x"), tt.in)); got != "x"+tt.want {
				t.Errorf("Append = %s, want x%s", got, tt.want)
			}
			if got := string(AppendLower(nil, tt.in)); got != tt.wantLower {
				t.Errorf("AppendLower = %s, want %s", got, tt.wantLower)
			}
		})
	}
}

// FuzzAppend checks that whatever the bytes, the output is one JSON
// string holding s (lower-cased by AppendLower), invalid bytes as U+FFFD.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"X-Forwarded-For", "q\"u\\o\x01te ü", "Bad\xff\xfe", "K\u212a", "\u2028\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := string([]rune(s))
		for _, c := range []struct {
			out  []byte
			want string
		}{{Append(nil, s), valid}, {AppendLower(nil, s), strings.ToLower(valid)}} {
			var got string
			if err := json.Unmarshal(c.out, &got); err != nil {
				t.Fatalf("%q: %v", c.out, err)
			}
			if got != c.want {
				t.Errorf("%q decodes to %q, want %q", c.out, got, c.want)
			}
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	token := "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + strings.Repeat("eyJyb2xlIjoiYW5vbiJ9", 8)
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = Append(buf[:0], token)
	}
}
