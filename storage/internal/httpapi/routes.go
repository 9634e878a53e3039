package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/render"
	"github.com/kejanest/kejanest/storage/internal/resumable"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// maxJSONBody bounds the JSON bodies of the non-upload routes.
const maxJSONBody = 1 << 20

type handlers struct {
	svc    *objects.Service
	tus    *resumable.Manager
	verify *jwtverify.Verifier
	log    *slog.Logger
	// renderer is nil when image transformation is off.
	renderer *render.Renderer
}

// register adds every storage route. Specific /object/<word>/ routes come
// before the generic /object/{bucket}/{name} ones, which would otherwise
// take "public", "sign", … for a bucket id (upstream has the same order).
func (h *handlers) register(app *fiber.App) {
	getHead := []string{fiber.MethodGet, fiber.MethodHead}

	app.Get("/bucket", h.listBuckets)
	app.Get("/bucket/:id", h.getBucket)
	app.Post("/bucket", h.createBucket)
	app.Put("/bucket/:id", h.updateBucket)
	app.Post("/bucket/:id/empty", h.emptyBucket)
	app.Delete("/bucket/:id", h.deleteBucket)

	app.Post("/object/list/:bucket", h.list)
	app.Post("/object/list-v2/:bucket", h.listV2)
	app.Post("/object/move", h.move)
	app.Post("/object/copy", h.copy)

	app.Post("/object/sign/:bucket/+", h.signURL)
	app.Post("/object/sign/:bucket", h.signURLs)
	app.Add(getHead, "/object/sign/:bucket/+", h.download(objects.AccessSigned))
	app.Post("/object/upload/sign/:bucket/+", h.signUploadURL)
	app.Put("/object/upload/sign/:bucket/+", h.uploadSigned)

	app.Add(getHead, "/object/public/:bucket/+", h.download(objects.AccessPublic))
	app.Add(getHead, "/object/authenticated/:bucket/+", h.download(objects.AccessCaller))
	app.Get("/object/info/public/:bucket/+", h.info(true))
	// Fastify adds HEAD to these two GET routes upstream (not to
	// /info/public, registered with exposeHeadRoute off).
	app.Add(getHead, "/object/info/authenticated/:bucket/+", h.info(false))
	app.Add(getHead, "/object/info/:bucket/+", h.info(false))

	if h.renderer != nil {
		app.Get("/render/image/public/:bucket/+", h.renderImage(objects.AccessPublic))
		app.Get("/render/image/authenticated/:bucket/+", h.renderImage(objects.AccessCaller))
		app.Get("/render/image/sign/:bucket/+", h.renderImage(objects.AccessSigned))
	}

	app.Add(getHead, "/object/:bucket/+", h.download(objects.AccessCaller))
	app.Post("/object/:bucket/+", h.upload(false))
	app.Put("/object/:bucket/+", h.upload(true))
	app.Delete("/object/:bucket/+", h.deleteOne)
	app.Delete("/object/:bucket", h.deleteMany)

	h.registerResumable(app)
}

// caller is who the request runs as: the verified bearer token's role and
// claims, or anon without Authorization (the gateway sends anon's key).
func (h *handlers) caller(c fiber.Ctx) (db.Caller, error) {
	auth := c.Get(fiber.HeaderAuthorization)
	token, ok := cutBearer(auth)
	if !ok {
		if auth != "" {
			// Upstream verifies the header as it is: not a compact JWS.
			return db.Caller{}, storageerr.AccessDenied("Invalid Compact JWS")
		}
		return db.Anon(), nil
	}
	cl, err := h.verify.Verify(token)
	if err != nil {
		return db.Caller{}, objects.BearerError(err)
	}
	role := cl.Role
	if role == "" {
		role = db.RoleAnon
	}
	return db.Caller{Role: role, Subject: cl.Subject, Claims: append(json.RawMessage(nil), cl.Raw...)}, nil
}

func cutBearer(h string) (string, bool) {
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", false
	}
	t := strings.TrimSpace(h[7:])
	return t, t != ""
}

// bucketParam is the :bucket or :id parameter, unescaped and copied.
func param(c fiber.Ctx, name string) (string, error) {
	v, err := url.PathUnescape(c.Params(name))
	if err != nil {
		return "", storageerr.InvalidKey(strings.Clone(c.Params(name)))
	}
	return strings.Clone(v), nil
}

// objectPath returns the bucket and object name of a /…/:bucket/+ route.
func objectPath(c fiber.Ctx) (bucket, name string, err error) {
	if bucket, err = param(c, "bucket"); err != nil {
		return "", "", err
	}
	if name, err = param(c, "+"); err != nil {
		return "", "", err
	}
	return bucket, name, nil
}

// readJSON decodes a small JSON body into v; an empty body leaves v as is.
func readJSON(c fiber.Ctx, v any) error {
	data, err := io.ReadAll(io.LimitReader(body(c), maxJSONBody+1))
	if err != nil {
		return storageerr.InvalidRequest(400, "could not read the request body")
	}
	if len(data) > maxJSONBody {
		return storageerr.EntityTooLarge()
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return storageerr.InvalidRequest(400, "Body is not valid JSON: "+err.Error())
	}
	return nil
}

func message(c fiber.Ctx, msg string) error {
	return c.JSON(fiber.Map{"message": msg})
}
