// Package crypto holds authsvc's password hashing, random secrets, one-time
// code hashing and PKCE checks. Every comparison of a secret is constant-time.
package crypto

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// MaxPasswordBytes is bcrypt's input limit; longer passwords are refused,
// never silently truncated.
const MaxPasswordBytes = 72

// ErrPasswordTooLong is returned for passwords over MaxPasswordBytes.
var ErrPasswordTooLong = errors.New("password longer than 72 bytes")

// HashPassword returns a bcrypt hash ($2a$) of password at cost.
func HashPassword(password string, cost int) (string, error) {
	if len(password) > MaxPasswordBytes {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// dummyHash is compared against when a user has no password, so that the
// answer takes as long as for a real user.
var dummyHash = []byte("$2a$10$7EqJtq98hPqEX7fNZaFWoOhi5BWX4Z3nQvY6jLcY0CgN3YQzRtW6e")

// CheckPassword reports whether password matches hash. It accepts the
// $2a$/$2b$/$2y$ hashes written by pgcrypto's crypt(…, gen_salt('bf')) and
// by Supabase Auth. An empty hash never matches (but costs the same time).
func CheckPassword(hash, password string) bool {
	if len(password) > MaxPasswordBytes {
		return false
	}
	h := []byte(hash)
	if hash == "" || !strings.HasPrefix(hash, "$2") {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword(h, []byte(password)) == nil
}

// SecureToken returns n random bytes, base64url-encoded without padding.
func SecureToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// RefreshToken returns a new opaque refresh token (12 characters from a
// 62-letter alphabet, as Supabase Auth issues, plus extra entropy).
func RefreshToken() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	return randomFrom(alphabet, 22)
}

// OTP returns a numeric one-time code of length digits.
func OTP(digits int) string { return randomFrom("0123456789", digits) }

func randomFrom(alphabet string, n int) string {
	var sb strings.Builder
	max := big.NewInt(int64(len(alphabet)))
	for range n {
		i, _ := rand.Int(rand.Reader, max)
		sb.WriteByte(alphabet[i.Int64()])
	}
	return sb.String()
}

// TokenHash is what a link carries and what is stored for a one-time code:
// the hex SHA-224 of the address and the code (Supabase Auth's
// crypto.GenerateTokenHash). The code itself is never stored.
func TokenHash(address, otp string) string {
	sum := sha256.Sum224([]byte(address + otp))
	return hex.EncodeToString(sum[:])
}

// Equal compares two secrets in constant time.
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// PKCE challenge methods.
const (
	PKCEPlain = "plain"
	PKCES256  = "s256"
)

// S256Challenge is the PKCE code_challenge of verifier under method S256
// (RFC 7636 §4.2): base64url, unpadded, of its SHA-256.
func S256Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// CheckPKCE reports whether verifier matches challenge under method
// ("s256" or "plain", case-insensitive).
func CheckPKCE(method, challenge, verifier string) bool {
	switch strings.ToLower(method) {
	case PKCES256:
		return Equal(S256Challenge(verifier), challenge)
	case PKCEPlain:
		return Equal(verifier, challenge)
	}
	return false
}
