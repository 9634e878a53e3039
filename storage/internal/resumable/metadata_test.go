package resumable

import (
	"encoding/base64"
	"maps"
	"strings"
	"testing"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     map[string]string
		bad      bool
	}{
		{"empty", "", map[string]string{}, false},
		{"tus-js-client", "bucketName " + b64("photos") + ",objectName " + b64("a/b c.jpg") + ",contentType " + b64("image/jpeg"),
			map[string]string{"bucketName": "photos", "objectName": "a/b c.jpg", "contentType": "image/jpeg"}, false},
		{"key without value", "is_confidential,filename " + b64("x"), map[string]string{"is_confidential": "", "filename": "x"}, false},
		{"spaces after commas", "a " + b64("1") + ", b " + b64("2"), map[string]string{"a": "1", "b": "2"}, false},
		{"empty value", "a ", map[string]string{"a": ""}, false},
		{"repeated key", "a " + b64("1") + ",a " + b64("2"), nil, true},
		{"not base64", "a !!!", nil, true},
		{"empty pair", "a " + b64("1") + ",,b", nil, true},
		{"two spaces", "a  " + b64("1"), nil, true},
		{"trailing junk", "a " + b64("1") + " x", nil, true},
		{"too long", "a " + strings.Repeat("A", maxMetadataHeader), nil, true},
	} {
		got, err := ParseMetadata(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%s: ParseMetadata(%q) = %v, want an error", tc.name, tc.in, got)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%s: ParseMetadata(%q) = %v, %v; want %v", tc.name, tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseMetadata(f *testing.F) {
	f.Add("bucketName " + b64("photos") + ",objectName " + b64("a.jpg"))
	f.Add("a,b ,c " + b64("x"))
	f.Add(" , ")
	f.Add("a " + b64("1") + ",a")
	f.Fuzz(func(t *testing.T, h string) {
		m, err := ParseMetadata(h)
		if err != nil {
			return
		}
		// Whatever parses re-encodes to a header that parses the same.
		var parts []string
		for k, v := range m {
			if strings.ContainsAny(k, " ,\t") || k == "" {
				t.Fatalf("accepted key %q", k)
			}
			parts = append(parts, k+" "+b64(v))
		}
		again, err := ParseMetadata(strings.Join(parts, ","))
		if err != nil || !maps.Equal(again, m) {
			t.Fatalf("round trip of %q: %v, %v", h, again, err)
		}
	})
}
