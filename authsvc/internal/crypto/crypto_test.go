package crypto

import (
	"strings"
	"testing"
)

func TestPasswords(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("correct horse", 4)
	if err != nil {
		t.Fatal(err)
	}
	// $2b$ hash of "password123" as written by crypt('password123', gen_salt('bf', 4)).
	const pgcrypto = "$2a$04$yv41gx7.KK2YFIHWZnR.6./qauMez2Rvarb4OpsRki8aohi7mju8C"
	tests := []struct {
		name, hash, pw string
		want           bool
	}{
		{"match", h, "correct horse", true},
		{"mismatch", h, "wrong", false},
		{"empty hash", "", "x", false},
		{"too long never matches", h, strings.Repeat("a", 73), false},
		{"garbage hash", "not-a-hash", "x", false},
		{"pgcrypto hash", pgcrypto, "password123", true},
		{"pgcrypto hash $2b$", "$2b$" + pgcrypto[4:], "password123", true},
		{"foreign hash mismatch", pgcrypto, "nope", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CheckPassword(tt.hash, tt.pw); got != tt.want {
				t.Errorf("CheckPassword = %v", got)
			}
		})
	}
	if _, err := HashPassword(strings.Repeat("a", 73), 4); err != ErrPasswordTooLong {
		t.Errorf("73 bytes: %v", err)
	}
	if _, err := HashPassword(strings.Repeat("a", 72), 4); err != nil {
		t.Errorf("72 bytes: %v", err)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	if a, b := RefreshToken(), RefreshToken(); a == b || len(a) != 22 {
		t.Errorf("refresh tokens %q %q", a, b)
	}
	otp := OTP(6)
	if len(otp) != 6 || strings.Trim(otp, "0123456789") != "" {
		t.Errorf("otp %q", otp)
	}
	if TokenHash("a@b.c", "123456") != TokenHash("a@b.c", "123456") || len(TokenHash("a", "1")) != 56 {
		t.Error("token hash not stable sha224")
	}
	// RFC 7636 appendix B.
	if !CheckPKCE("S256", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") {
		t.Error("s256 vector")
	}
	if CheckPKCE("s256", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "other") || !CheckPKCE("plain", "v", "v") || CheckPKCE("x", "v", "v") {
		t.Error("pkce")
	}
}
