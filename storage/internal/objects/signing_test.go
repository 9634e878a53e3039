package objects

import (
	"errors"
	"testing"
	"time"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

const secret = "super-secret-jwt-token-with-at-least-32-characters-long"

func code(err error) string {
	var e *storageerr.Error
	if errors.As(err, &e) {
		return e.Code + ": " + e.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSignedDownload(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	s, err := NewSigner(secret, clock)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.SignDownload("b/a.txt", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.VerifyDownload(tok, "b/a.txt"); err != nil {
		t.Errorf("fresh token: %v", err)
	}
	if got := code(s.VerifyDownload(tok, "b/other.txt")); got != "InvalidSignature: Invalid signature" {
		t.Errorf("other object = %q", got)
	}
	if got := code(s.VerifyDownload(tok+"x", "b/a.txt")); got != "InvalidJWT: invalid signature" {
		t.Errorf("tampered = %q", got)
	}
	if got := code(s.VerifyDownload("", "b/a.txt")); got != "MissingParameter: Missing Required Parameter token" {
		t.Errorf("missing = %q", got)
	}
	later, _ := NewSigner(secret, func() time.Time { return now.Add(2 * time.Minute) })
	if got := code(later.VerifyDownload(tok, "b/a.txt")); got != "InvalidJWT: jwt expired" {
		t.Errorf("expired = %q", got)
	}
	up, _ := s.SignUpload("b/a.txt", "u", "authenticated", false, time.Minute)
	if err := s.VerifyDownload(up, "b/a.txt"); err == nil {
		t.Error("an upload token downloads")
	}
}

func TestSignedUpload(t *testing.T) {
	t.Parallel()
	s, err := NewSigner(secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.SignUpload("kyc/u/id.png", "u-1", "authenticated", true, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.VerifyUpload(tok, "kyc/u/id.png")
	if err != nil || g.Owner != "u-1" || g.Role != "authenticated" || !g.Upsert || len(g.TokenID) != 36 {
		t.Fatalf("grant = %+v, %v", g, err)
	}
	dl, _ := s.SignDownload("kyc/u/id.png", time.Minute)
	if _, err := s.VerifyUpload(dl, "kyc/u/id.png"); err == nil {
		t.Error("a download token uploads")
	}
	if _, err := s.VerifyUpload(tok, "kyc/u/other.png"); err == nil {
		t.Error("token used for another object")
	}
}

func TestParseFileSizeLimit(t *testing.T) {
	t.Parallel()
	// Upstream's units are decimal and the number keeps 3 significant
	// digits.
	tests := map[string]int64{`1024`: 1024, `"20MB"`: 20e6, `"20mb"`: 20e6, `"30KB"`: 30e3, `"100kb"`: 100e3, `"3B"`: 3,
		`"1gb"`: 1e9, `"1.5GB"`: 1.5e9, `"1.2345mb"`: 1.23e6, `"12345b"`: 12300}
	for in, want := range tests {
		got, err := ParseFileSizeLimit([]byte(in))
		if err != nil || got == nil || *got != want {
			t.Errorf("ParseFileSizeLimit(%s) = %v, %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{`null`, `0`, ``} {
		if got, err := ParseFileSizeLimit([]byte(in)); got != nil || err != nil {
			t.Errorf("ParseFileSizeLimit(%s) = %v, %v, want nil", in, got, err)
		}
	}
	for _, in := range []string{`"lots"`, `"77"`, `"1.5 GB"`, `"2TB"`, `" 1MB"`, `"1MB "`, `"-1MB"`, `"1e3MB"`, `".5MB"`, `1.5`, `true`, `"99999999999999999999GB"`} {
		if _, err := ParseFileSizeLimit([]byte(in)); err == nil {
			t.Errorf("ParseFileSizeLimit(%s) accepted", in)
		}
	}
}

func FuzzParseFileSizeLimit(f *testing.F) {
	for _, s := range []string{`1024`, `"20MB"`, `"1.5gb"`, `"x"`, `null`, `"9e999b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := ParseFileSizeLimit([]byte(in))
		if err == nil && n != nil && *n <= 0 {
			t.Fatalf("ParseFileSizeLimit(%q) = %d", in, *n)
		}
	})
}

func TestSignedUploadExpiry(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	s, _ := NewSigner(secret, func() time.Time { return now })
	tok, _ := s.SignUpload("b/x", "", "", false, time.Hour)
	g, err := s.VerifyUpload(tok, "b/x")
	if err != nil || !g.Expires.Equal(now.Add(time.Hour)) {
		t.Errorf("grant expiry = %v, %v, want %v", g.Expires, err, now.Add(time.Hour))
	}
}
