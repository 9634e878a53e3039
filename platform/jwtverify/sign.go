package jwtverify

import (
	"encoding/json"
	"fmt"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// SignHS256 signs claims with the shared secret. The gateway uses it to turn
// an opaque sb_publishable_/sb_secret_ key into a short-lived role token for
// the services behind it; tests use it to mint tokens.
func SignHS256(claims map[string]any, secret []byte) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("encode claims: %w", err)
	}
	hdr := jws.NewHeaders()
	if err := hdr.Set(jws.TypeKey, "JWT"); err != nil {
		return "", fmt.Errorf("set typ: %w", err)
	}
	out, err := jws.Sign(payload, jws.WithKey(jwa.HS256(), secret, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return string(out), nil
}
