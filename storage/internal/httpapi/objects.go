package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// maxFormField bounds a multipart text field (cacheControl, metadata).
const maxFormField = 64 << 10

// uploadRequest reads an upload's body and headers: a raw body (its
// Content-Type, cache-control, x-metadata) or multipart/form-data whose
// fields precede the file part (named "" by storage-js). The file bytes stay
// a stream.
func uploadRequest(c fiber.Ctx, bucket, name string) (objects.Upload, error) {
	u := objects.Upload{Bucket: bucket, Name: name, ContentLength: -1}
	var in io.Reader = body(c)
	ct := strings.Clone(c.Get(fiber.HeaderContentType))
	mt, params, _ := mime.ParseMediaType(ct)
	if mt == "multipart/form-data" && params["boundary"] != "" {
		// The file part is shorter than the whole request.
		if n := c.Request().Header.ContentLength(); n > 0 {
			u.MaxLength = int64(n)
		}
		mr := multipart.NewReader(in, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return u, storageerr.NoContentProvided()
			}
			if err != nil {
				return u, storageerr.InvalidRequest(400, "malformed multipart body: "+err.Error())
			}
			if p.FileName() != "" || p.FormName() == "" {
				u.Body = p
				u.ContentType = p.Header.Get(fiber.HeaderContentType)
				break
			}
			v, err := io.ReadAll(io.LimitReader(p, maxFormField))
			if err != nil {
				return u, storageerr.InvalidRequest(400, "malformed multipart body: "+err.Error())
			}
			switch p.FormName() {
			case "cacheControl":
				u.CacheControl = cacheControl(string(v))
			case "metadata":
				if json.Valid(v) {
					u.UserMetadata = v
				} else {
					return u, storageerr.InvalidParameter("metadata", "")
				}
			}
		}
	} else {
		u.Body = in
		u.ContentType = ct
		if n := c.Request().Header.ContentLength(); n >= 0 {
			u.ContentLength = int64(n)
		}
		u.CacheControl = cacheControl(c.Get(fiber.HeaderCacheControl))
		if m := c.Get("x-metadata"); m != "" {
			dec, err := base64.StdEncoding.DecodeString(m)
			if err != nil || !json.Valid(dec) {
				return u, storageerr.InvalidParameter("x-metadata", "")
			}
			u.UserMetadata = dec
		}
	}
	return u, nil
}

// cacheControl normalises storage-js's "3600" form field to a header value.
func cacheControl(v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	if _, err := strconv.Atoi(v); err == nil {
		return "max-age=" + v
	}
	return v
}

// upload serves POST (x-upsert decides) and PUT (always overwrite) on
// /object/{bucket}/{name}.
func (h *handlers) upload(put bool) fiber.Handler {
	return func(c fiber.Ctx) error {
		who, err := h.caller(c)
		if err != nil {
			return err
		}
		bucket, name, err := objectPath(c)
		if err != nil {
			return err
		}
		u, err := uploadRequest(c, bucket, name)
		if err != nil {
			return err
		}
		u.Upsert = put || strings.EqualFold(c.Get("x-upsert"), "true")
		res, err := h.svc.Upload(c.Context(), who, u)
		if err != nil {
			return err
		}
		return c.JSON(fiber.Map{"Id": res.ID, "Key": res.Key})
	}
}

func (h *handlers) uploadSigned(c fiber.Ctx) error {
	bucket, name, err := objectPath(c)
	if err != nil {
		return err
	}
	token := strings.Clone(c.Query("token"))
	if token == "" {
		return storageerr.MissingParameter("token")
	}
	u, err := uploadRequest(c, bucket, name)
	if err != nil {
		return err
	}
	res, err := h.svc.UploadSigned(c.Context(), token, u)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"Id": res.ID, "Key": res.Key})
}

// download serves GET and HEAD of an object under the route's access rule.
func (h *handlers) download(access objects.Access) fiber.Handler {
	return func(c fiber.Ctx) error {
		bucket, name, err := objectPath(c)
		if err != nil {
			return err
		}
		g := objects.Get{
			Bucket: bucket, Name: name, Access: access,
			Token:       strings.Clone(c.Query("token")),
			Range:       strings.Clone(c.Get(fiber.HeaderRange)),
			IfNoneMatch: strings.Clone(c.Get(fiber.HeaderIfNoneMatch)),
			Head:        c.Method() == fiber.MethodHead,
		}
		who, err := h.caller(c)
		if err != nil {
			if access == objects.AccessCaller {
				return err
			}
			who = db.Anon() // public and signed routes ignore a bad token
		}
		d, err := h.svc.Download(c.Context(), who, g)
		if err != nil {
			return err
		}
		m := d.Meta
		c.Set(fiber.HeaderETag, m.ETag)
		c.Set(fiber.HeaderLastModified, d.LastModified().UTC().Format(http.TimeFormat))
		if m.CacheControl != "" {
			c.Set(fiber.HeaderCacheControl, m.CacheControl)
		}
		if d.NotModified {
			return c.SendStatus(fiber.StatusNotModified)
		}
		switch {
		case strings.Contains(strings.ToLower(m.Mimetype), "text/html"):
			// Upstream's normalizeContentType: uploaded HTML is never
			// served as HTML from the API's origin.
			c.Set(fiber.HeaderContentType, fiber.MIMETextPlain)
		case m.Mimetype != "":
			c.Set(fiber.HeaderContentType, m.Mimetype)
		default:
			c.Set(fiber.HeaderContentType, fiber.MIMEOctetStream)
		}
		// The gateway serves the app and the API from one origin, so a
		// user's file that a browser would run (SVG, XML, XHTML…) must not
		// run there: no sniffing a type other than the stored one, and a
		// sandbox (a unique origin, no scripts) for every type that is not
		// plainly inert.
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		if !objects.InertType(m.Mimetype) {
			c.Set(fiber.HeaderContentSecurityPolicy, "sandbox")
		}
		c.Set(fiber.HeaderAcceptRanges, "bytes")
		if c.Request().URI().QueryArgs().Has("download") {
			fn := strings.Clone(c.Query("download"))
			if fn == "" {
				fn = name[strings.LastIndex(name, "/")+1:]
			}
			c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+strings.NewReplacer(`"`, "", "\\", "", "\r", "", "\n", "").Replace(fn)+`"`)
		}
		size := m.Size
		status := fiber.StatusOK
		if d.Range != nil {
			status = fiber.StatusPartialContent
			c.Set(fiber.HeaderContentRange, "bytes "+strconv.FormatInt(d.Range.Start, 10)+"-"+strconv.FormatInt(d.Range.Start+d.Range.Length-1, 10)+"/"+strconv.FormatInt(m.Size, 10))
			size = d.Range.Length
		}
		c.Status(status)
		if d.Body == nil { // HEAD
			c.Response().Header.SetContentLength(int(size))
			c.Response().SkipBody = true
			return nil
		}
		return c.SendStream(d.Body, int(size))
	}
}

// info serves GET /object/info/…: the object row in FileObjectV2's shape.
func (h *handlers) info(public bool) fiber.Handler {
	return func(c fiber.Ctx) error {
		bucket, name, err := objectPath(c)
		if err != nil {
			return err
		}
		var o any
		if public {
			// No auth on the public route: a bad token is ignored, as by
			// the public download.
			obj, err := h.svc.PublicInfo(c.Context(), bucket, name)
			if err != nil {
				return err
			}
			o = infoBody(obj)
		} else {
			who, err := h.caller(c)
			if err != nil {
				return err
			}
			obj, err := h.svc.Info(c.Context(), who, bucket, name)
			if err != nil {
				return err
			}
			o = infoBody(obj)
		}
		return c.JSON(o)
	}
}
