// Package tokens issues and verifies authsvc's access tokens: JWTs with
// exactly GoTrue's AccessTokenClaims, signed HS256 with the shared secret or,
// when GOTRUE_JWT_KEYS holds an RS256/ES256 private key, with that key and
// its "kid" (published by JWKS).
package tokens

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// AMR is one authentication method reference entry.
type AMR struct {
	Method    string `json:"method"`
	Timestamp int64  `json:"timestamp"`
	Provider  string `json:"provider,omitempty"`
}

// Claims is GoTrue's AccessTokenClaims, field for field.
type Claims struct {
	Issuer       string         `json:"iss"`
	Subject      string         `json:"sub"`
	Audience     string         `json:"aud"`
	ExpiresAt    int64          `json:"exp"`
	IssuedAt     int64          `json:"iat"`
	Email        string         `json:"email"`
	Phone        string         `json:"phone"`
	AppMetadata  map[string]any `json:"app_metadata"`
	UserMetadata map[string]any `json:"user_metadata"`
	Role         string         `json:"role"`
	AAL          string         `json:"aal,omitempty"`
	AMR          []AMR          `json:"amr,omitempty"`
	SessionID    string         `json:"session_id,omitempty"`
	IsAnonymous  bool           `json:"is_anonymous"`
}

// ErrInvalid is returned for a token that does not parse, verify or has
// expired; the message is safe to show.
var ErrInvalid = errors.New("invalid JWT")

// ErrExpired is returned for a valid token past its exp.
var ErrExpired = errors.New("token is expired")

// Signer signs and verifies access tokens. It is safe for concurrent use.
type Signer struct {
	secret []byte
	// signKey, when set, signs instead of the secret.
	signKey jwk.Key
	signAlg jwa.SignatureAlgorithm
	kid     string
	public  jwk.Set
}

// New builds a Signer from the HS256 secret and an optional GOTRUE_JWT_KEYS
// value: a JSON array of private JWKs or a JWK set {"keys":[…]}, as
// Supabase's self-hosted JWT_KEYS. As in GoTrue, the private key whose
// key_ops include "sign" signs (several such keys are an error); a set
// whose keys name no key_ops at all signs with its first private key. The
// public halves of every asymmetric key are published by JWKS (use "sig",
// key_ops ["verify"]) and accepted by Verify. "oct" keys are the legacy
// secret and are never published.
func New(secret string, keysJSON string) (*Signer, error) {
	s := &Signer{secret: []byte(secret), public: jwk.NewSet()}
	keysJSON = strings.TrimSpace(keysJSON)
	if keysJSON == "" {
		return s, nil
	}
	if strings.HasPrefix(keysJSON, "[") {
		keysJSON = `{"keys":` + keysJSON + `}`
	}
	set, err := jwk.Parse([]byte(keysJSON))
	if err != nil {
		return nil, fmt.Errorf("parse GOTRUE_JWT_KEYS: %w", err)
	}
	type candidate struct {
		key jwk.Key
		alg jwa.SignatureAlgorithm
		kid string
	}
	var marked, firstPrivate []candidate
	for i := range set.Len() {
		k, _ := set.Key(i)
		if k.KeyType().String() == "oct" {
			continue
		}
		alg, ok := k.Algorithm()
		algName := ""
		if ok {
			algName = alg.String()
		}
		if algName == "" {
			switch k.KeyType().String() {
			case "RSA":
				algName = "RS256"
			case "EC":
				algName = "ES256"
			case "OKP":
				algName = "EdDSA"
			}
		}
		sa, ok := jwa.LookupSignatureAlgorithm(algName)
		if !ok || !signable(sa) {
			return nil, fmt.Errorf("GOTRUE_JWT_KEYS: key %d: algorithm %q, want RS256, RS512, ES256, ES512 or EdDSA", i, algName)
		}
		kid, _ := k.KeyID()
		if kid == "" {
			return nil, fmt.Errorf("GOTRUE_JWT_KEYS: key %d has no kid", i)
		}
		pub, err := k.PublicKey()
		if err != nil {
			return nil, fmt.Errorf("GOTRUE_JWT_KEYS: key %s: %w", kid, err)
		}
		_ = pub.Set(jwk.AlgorithmKey, sa)
		_ = pub.Set(jwk.KeyUsageKey, "sig")
		_ = pub.Set(jwk.KeyOpsKey, jwk.KeyOperationList{jwk.KeyOpVerify})
		if err := s.public.AddKey(pub); err != nil {
			return nil, fmt.Errorf("GOTRUE_JWT_KEYS: %w", err)
		}
		if !isPrivate(k) {
			continue
		}
		c := candidate{k, sa, kid}
		if ops, ok := k.KeyOps(); ok && slices.Contains(ops, jwk.KeyOpSign) {
			marked = append(marked, c)
		}
		firstPrivate = append(firstPrivate, c)
	}
	switch {
	case len(marked) > 1:
		return nil, errors.New("GOTRUE_JWT_KEYS: multiple signing keys detected, only 1 signing key is supported")
	case len(marked) == 1:
		s.signKey, s.signAlg, s.kid = marked[0].key, marked[0].alg, marked[0].kid
	case len(firstPrivate) > 0 && !anyKeyOps(set):
		s.signKey, s.signAlg, s.kid = firstPrivate[0].key, firstPrivate[0].alg, firstPrivate[0].kid
	}
	if s.signKey == nil && s.public.Len() > 0 {
		return nil, errors.New("GOTRUE_JWT_KEYS: no signing key detected")
	}
	return s, nil
}

// signable lists the algorithms GoTrue signs with.
func signable(a jwa.SignatureAlgorithm) bool {
	switch a {
	case jwa.RS256(), jwa.RS512(), jwa.ES256(), jwa.ES512(), jwa.EdDSA():
		return true
	}
	return false
}

// anyKeyOps reports whether some key of set states its key_ops: then the
// signing key must be marked, as GoTrue requires.
func anyKeyOps(set jwk.Set) bool {
	for i := range set.Len() {
		k, _ := set.Key(i)
		if k.KeyType().String() == "oct" {
			continue
		}
		if ops, ok := k.KeyOps(); ok && len(ops) > 0 {
			return true
		}
	}
	return false
}

func isPrivate(k jwk.Key) bool {
	switch k.(type) {
	case jwk.RSAPrivateKey, jwk.ECDSAPrivateKey, jwk.OKPPrivateKey:
		return true
	}
	return false
}

// Sign returns the compact JWT for c.
func (s *Signer) Sign(c Claims) (string, error) {
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encode claims: %w", err)
	}
	return s.signPayload(payload)
}

// SignMap signs arbitrary claims (OAuth state).
func (s *Signer) SignMap(m map[string]any) (string, error) {
	payload, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode claims: %w", err)
	}
	return s.signPayload(payload)
}

func (s *Signer) signPayload(payload []byte) (string, error) {
	hdr := jws.NewHeaders()
	_ = hdr.Set(jws.TypeKey, "JWT")
	var opt jws.SignOption
	if s.signKey != nil {
		_ = hdr.Set(jws.KeyIDKey, s.kid)
		opt = jws.WithKey(s.signAlg, s.signKey, jws.WithProtectedHeaders(hdr))
	} else {
		opt = jws.WithKey(jwa.HS256(), s.secret, jws.WithProtectedHeaders(hdr))
	}
	out, err := jws.Sign(payload, opt)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return string(out), nil
}

// Verify checks the signature (HS256 with the secret, or a published key
// named by kid) and expiry at now, and returns the payload as a map.
func (s *Signer) Verify(token string, now time.Time) (map[string]any, error) {
	msg, err := jws.Parse([]byte(token))
	if err != nil || len(msg.Signatures()) != 1 {
		return nil, ErrInvalid
	}
	h := msg.Signatures()[0].ProtectedHeaders()
	alg, _ := h.Algorithm()
	var payload []byte
	switch alg {
	case jwa.HS256(), jwa.HS384(), jwa.HS512():
		payload, err = jws.Verify([]byte(token), jws.WithKey(alg, s.secret))
	case jwa.RS256(), jwa.RS512(), jwa.ES256(), jwa.ES512(), jwa.EdDSA():
		kid, _ := h.KeyID()
		k, ok := s.public.LookupKeyID(kid)
		if !ok {
			return nil, ErrInvalid
		}
		payload, err = jws.Verify([]byte(token), jws.WithKey(alg, k))
	default:
		return nil, ErrInvalid
	}
	if err != nil {
		return nil, ErrInvalid
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(payload)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, ErrInvalid
	}
	exp, err := numberClaim(m["exp"])
	if err != nil {
		return nil, ErrInvalid
	}
	if now.Unix() >= exp {
		return nil, ErrExpired
	}
	return m, nil
}

func numberClaim(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, ErrInvalid
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	return int64(f), err
}

// JWKS returns the public key set as JSON ({"keys":[]} when only HS256 is
// configured, as GoTrue answers).
func (s *Signer) JWKS() ([]byte, error) {
	if s.public.Len() == 0 {
		return []byte(`{"keys":[]}`), nil
	}
	return json.Marshal(s.public)
}
