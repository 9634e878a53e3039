package objects

import (
	"bytes"
	"context"
	"time"

	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// This file is what the image renderer (package render) uses of objects:
// the image memory budget, the decoding cost model, and the signed URLs
// whose token carries transformations.

// Acquire takes n bytes from the budget for work outside this package
// (image transformation), waiting as an upload does; release gives them
// back, once.
func (b *ImageBudget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	g, err := b.acquire(ctx, n)
	if err != nil {
		return nil, err
	}
	return g.release, nil
}

// DecodeCost is what image/jpeg or image/png holds decoding the
// width×height image whose bytes begin with head (format "jpeg" or
// "png"), by the model uploads are costed with; ok is false for other
// formats. A three-component JPEG costed as YCbCr also gets the RGBA
// conversion a late APP14 marker would cause, since a render does not
// guard its markers as an upload does.
func DecodeCost(format string, head []byte, width, height int) (cost int64, ok bool) {
	switch format {
	case "jpeg":
		l, parsed := parseJPEGLayout(head)
		if !parsed {
			return jpegWorstBytes(width, height), true
		}
		cost = l.decodeBytes()
		if l.nComp == 3 && !l.rgb() {
			cost += 4 * int64(width) * int64(height)
		}
		return cost, true
	case "png":
		l := readPNGLayout(bytes.NewReader(head))
		return l.decodeBytes(width, height), true
	}
	return 0, false
}

// RenderGrant is what a signed render token carries.
type RenderGrant struct {
	// Transformations is the "transformations" claim, in upstream's
	// "height:200,width:300,resize:cover" form.
	Transformations string
	// Format is the "format" claim ("origin" or empty).
	Format string
	// Expires is the token's expiry.
	Expires time.Time
}

// SignRender returns a token for GET /render/image/sign/<url>: upstream's
// {"url", "transformations", "format"} claims, empty ones left out.
func (s *Signer) SignRender(url, transformations, format string, ttl time.Duration) (string, error) {
	now := s.now()
	claims := map[string]any{"url": url, "iat": now.Unix(), "exp": now.Add(ttl).Unix()}
	if transformations != "" {
		claims["transformations"] = transformations
	}
	if format != "" {
		claims["format"] = format
	}
	return jwtverify.SignHS256(claims, s.secret)
}

// VerifyRender checks a render token and that it was issued for url. A
// plain download token is accepted too (no transformations), as upstream's
// render route reads any signed URL token.
func (s *Signer) VerifyRender(token, url string) (RenderGrant, error) {
	m, exp, err := s.check(token)
	if err != nil {
		return RenderGrant{}, err
	}
	if m["typ"] != nil {
		return RenderGrant{}, storageerr.InvalidJWT("invalid signature")
	}
	if got, _ := m["url"].(string); got != url {
		return RenderGrant{}, storageerr.InvalidSignature("The url do not match the signature")
	}
	g := RenderGrant{Expires: exp}
	g.Transformations, _ = m["transformations"].(string)
	g.Format, _ = m["format"].(string)
	return g, nil
}

// SignRenderURL is POST /object/sign/{bucket}/{name} with a transform: c
// must be able to read the object; the answer is its signed render path.
func (s *Service) SignRenderURL(ctx context.Context, c db.Caller, bucket, name string, expiresIn int64, transformations, format string) (string, error) {
	ttl, err := expiry(expiresIn)
	if err != nil {
		return "", err
	}
	if _, err := s.readObject(ctx, c, bucket, name); err != nil {
		return "", err
	}
	tok, err := s.Signer.SignRender(bucket+"/"+name, transformations, format, ttl)
	if err != nil {
		return "", err
	}
	return "/render/image/sign/" + bucket + "/" + name + "?token=" + tok, nil
}
