package objects

import (
	"encoding/base64"
	"testing"
	"time"
)

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Cursor
		// wire is the decoded token text (upstream's "k:v" lines).
		wire string
	}{
		{"name only", Cursor{After: "d/a.txt", Order: "asc"}, "l:d/a.txt\no:asc"},
		{"date desc", Cursor{After: "d/sub/", Order: "desc", Column: "created_at", AfterTime: "2026-01-02T03:04:05.123Z"},
			"l:d/sub/\no:desc\nc:created_at\na:2026-01-02T03:04:05.123Z"},
		{"key with colon and spaces", Cursor{After: "a: b/ c", Order: "asc", Column: "name"}, "l:a: b/ c\no:asc\nc:name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tok := EncodeCursor(tc.in)
			if got := base64.StdEncoding.EncodeToString([]byte(tc.wire)); tok != got {
				t.Errorf("EncodeCursor = %q, want %q", tok, got)
			}
			back, err := DecodeCursor(tok)
			if err != nil || back != tc.in {
				t.Errorf("DecodeCursor = %+v, %v; want %+v", back, err, tc.in)
			}
		})
	}
}

func TestDecodeCursor(t *testing.T) {
	t.Parallel()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name  string
		token string
		want  Cursor
		ok    bool
	}{
		{"order defaults to asc", b64("l:k"), Cursor{After: "k", Order: "asc"}, true},
		{"url-safe alphabet and no padding", "bDprPz8-", Cursor{After: "k??>", Order: "asc"}, true},
		{"junk characters skipped", "bDpr\n", Cursor{After: "k", Order: "asc"}, true},
		{"value stops at carriage return", b64("l:a\rb"), Cursor{After: "a", Order: "asc"}, true},
		{"unknown part", b64("l:k\nx:1"), Cursor{}, false},
		{"no colon", b64("hello"), Cursor{}, false},
		{"a raw key is not a token", "photos/cat.png", Cursor{}, false},
		{"empty after decoding", "====", Cursor{}, false},
		{"whitespace part name", b64(" :k"), Cursor{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeCursor(tc.token)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("DecodeCursor(%q) = %+v, %v; want %+v ok=%v", tc.token, got, err, tc.want, tc.ok)
			}
		})
	}
}

func TestParseCursorTime(t *testing.T) {
	t.Parallel()
	ts, err := parseCursorTime("2026-01-02T03:04:05.123Z")
	if err != nil || !ts.Equal(time.Date(2026, 1, 2, 3, 4, 5, 123e6, time.UTC)) {
		t.Errorf("parseCursorTime = %v, %v", ts, err)
	}
	if got := isoMillis(*ts); got != "2026-01-02T03:04:05.123Z" {
		t.Errorf("isoMillis = %q", got)
	}
	if ts, err := parseCursorTime(""); ts != nil || err != nil {
		t.Errorf("empty = %v, %v", ts, err)
	}
	if _, err := parseCursorTime("yesterday"); err == nil {
		t.Error("a non-time was accepted")
	}
}

// FuzzDecodeCursor: any string decodes or is refused without panicking,
// and a decoded cursor re-encodes to a token that decodes to it again.
func FuzzDecodeCursor(f *testing.F) {
	for _, s := range []string{"", "bDpr", "bDprPz8-", "photos/cat.png", "====",
		EncodeCursor(Cursor{After: "d/sub/", Order: "desc", Column: "updated_at", AfterTime: "2026-01-02T03:04:05.123Z"})} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := DecodeCursor(token)
		if err != nil {
			return
		}
		again, err := DecodeCursor(EncodeCursor(c))
		if err != nil {
			// A cursor whose parts are all empty encodes as "" (no parts).
			if c.After == "" && c.Column == "" && c.AfterTime == "" {
				return
			}
			t.Fatalf("re-encoded %+v refused: %v", c, err)
		}
		if c.Order == "" {
			c.Order = "asc"
		}
		if again != c {
			t.Fatalf("round trip %+v -> %+v", c, again)
		}
	})
}
