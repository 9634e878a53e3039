package phone

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"0712345678", "254712345678"},
		{"0112345678", "254112345678"},
		{"712345678", "254712345678"},
		{"112345678", "254112345678"},
		{"254712345678", "254712345678"},
		{"+254712345678", "254712345678"},
		{"+254 712 345 678", "254712345678"},
		{"0712-345-678", "254712345678"},
		{"(0712) 345.678", "254712345678"},
		{" 0708374149 ", "254708374149"},
		{"254708374149", "254708374149"},
		{"\t+254-110-000-000", "254110000000"},
		// Refused: not mobile, wrong length, foreign, junk.
		{"0201234567", ""},   // Nairobi landline
		{"254201234567", ""}, // landline, international
		{"071234567", ""},
		{"07123456789", ""},
		{"+255712345678", ""}, // Tanzania
		{"+0712345678", ""},
		{"++254712345678", ""},
		{"2547123456789", ""},
		{"0712345678x", ""},
		{"", ""},
		{"   ", ""},
		{"07１2345678", ""}, // full-width digit
		{strings.Repeat("0", 65), ""},
		{"254 712 345 678 +", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(tc.in)
			if tc.want == "" {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Normalize(%q) = %q, %v; want ErrInvalid", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"254712345678": "2547****5678", "": "****", "0712": "****"} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

var msisdn = regexp.MustCompile(`^254[17][0-9]{8}$`)

// The output is always an M-Pesa MSISDN, normalising it again changes
// nothing, and it keeps the last nine digits of the input.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"0712345678", "+254 712 345 678", "712345678", "254112345678", "0201234567", "+255712345678", "((07))12-34", "", "+", "254"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Normalize(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if !msisdn.MatchString(got) {
			t.Fatalf("Normalize(%q) = %q, not an M-Pesa MSISDN", s, got)
		}
		if again, err := Normalize(got); err != nil || again != got {
			t.Fatalf("Normalize(%q) = %q, %v; not idempotent", got, again, err)
		}
		var digits strings.Builder
		for _, r := range s {
			if r >= '0' && r <= '9' {
				digits.WriteRune(r)
			}
		}
		if !strings.HasSuffix(digits.String(), got[3:]) {
			t.Fatalf("Normalize(%q) = %q does not end with the input's digits", s, got)
		}
	})
}
