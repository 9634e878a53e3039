package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/render"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// renderImage serves GET /render/image/{public,authenticated,sign}/…: the
// object found under the route's access rule, transformed by the query's
// options (or, signed, by the token's).
func (h *handlers) renderImage(access objects.Access) fiber.Handler {
	return func(c fiber.Ctx) error {
		bucket, name, err := objectPath(c)
		if err != nil {
			return err
		}
		token := strings.Clone(c.Query("token"))
		var o render.Options
		var expires string
		if access == objects.AccessSigned {
			if token == "" {
				return storageerr.MissingParameter("token")
			}
			g, err := h.svc.Signer.VerifyRender(token, bucket+"/"+name)
			if err != nil {
				return err
			}
			o = render.ParseTokenString(g.Transformations)
			if g.Format == render.FormatOrigin {
				o.Format = render.FormatOrigin
			}
			expires = g.Expires.UTC().Format(http.TimeFormat)
		} else {
			args := c.Request().URI().QueryArgs()
			o, err = render.ParseQuery(func(n string) []string {
				var vs []string
				for _, v := range args.PeekMulti(n) {
					vs = append(vs, string(v))
				}
				return vs
			})
			if err != nil {
				return err
			}
		}
		o = o.Clamp(h.renderer.Limits())
		who, err := h.caller(c)
		if err != nil {
			if access == objects.AccessCaller {
				return err
			}
			who = db.Anon() // public and signed routes ignore a bad token
		}
		d, err := h.svc.Download(c.Context(), who, objects.Get{Bucket: bucket, Name: name, Access: access, Token: token})
		if err != nil {
			return err
		}
		if d.Body != nil {
			defer d.Body.Close()
		}
		accept := strings.Clone(c.Get(fiber.HeaderAccept))
		etag := variantETag(d.Meta.ETag, o, accept)
		c.Set(fiber.HeaderETag, etag)
		c.Set(fiber.HeaderLastModified, d.LastModified().UTC().Format(http.TimeFormat))
		if o.Format != render.FormatOrigin {
			c.Set(fiber.HeaderVary, fiber.HeaderAccept)
		}
		if expires != "" {
			c.Set(fiber.HeaderExpires, expires)
		} else if d.Meta.CacheControl != "" {
			c.Set(fiber.HeaderCacheControl, d.Meta.CacheControl)
		}
		if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagListHas(inm, etag) {
			return c.SendStatus(fiber.StatusNotModified)
		}
		if d.Body == nil {
			return storageerr.ImageRefused(http.StatusUnprocessableEntity, "Source image type not supported")
		}
		res, err := h.renderer.Render(c.Context(), d.Body, d.Meta.Size, o, accept)
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, res.ContentType)
		if c.Request().URI().QueryArgs().Has("download") {
			c.Set(fiber.HeaderContentDisposition, renderDisposition(c.Query("download")))
		}
		return c.Send(res.Body)
	}
}

// variantETag names one rendering of an object: its ETag, the options and
// whether the answer may be WebP. Upstream answers with the object's own
// ETag for every variant, which lets a cache hand a WebP to a client that
// asked for the original; a variant of its own does not.
func variantETag(objectETag string, o render.Options, accept string) string {
	out := "origin"
	if render.OutputFormat("", o, accept) != "" {
		out = "webp"
	}
	sum := sha256.Sum256([]byte(objectETag + "\x00" + o.TokenString() + "\x00" + out))
	return `"` + strings.Trim(objectETag, `"`) + "-" + hex.EncodeToString(sum[:6]) + `"`
}

// etagListHas reports whether an If-None-Match list names etag.
func etagListHas(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// renderDisposition is upstream's renderer handleDownload header.
func renderDisposition(name string) string {
	if name == "" {
		return "attachment;"
	}
	enc := strings.ReplaceAll(url.QueryEscape(name), "+", "%20")
	return "attachment; filename=" + enc + "; filename*=UTF-8''" + enc + ";"
}

// signTransform reads POST /object/sign's transform object into the token
// claims; empty when there is none or transformation is off.
func (h *handlers) signTransform(t map[string]any) (transformations, format string, err error) {
	if h.renderer == nil || len(t) == 0 {
		return "", "", nil
	}
	o, err := render.ParseBody(t)
	if err != nil {
		return "", "", err
	}
	return o.Clamp(h.renderer.Limits()).TokenString(), o.Format, nil
}
