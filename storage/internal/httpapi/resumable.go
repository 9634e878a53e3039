package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/storage/internal/resumable"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// TUS 1.0.0 protocol values.
const (
	tusVersion    = "1.0.0"
	tusExtensions = "creation,creation-with-upload,termination,expiration"
	tusChunkType  = "application/offset+octet-stream"
	resumablePath = "/upload/resumable"
)

// registerResumable adds the TUS routes (Supabase Storage's TUS_URL_PATH).
func (h *handlers) registerResumable(app *fiber.App) {
	app.Options(resumablePath, h.tusOptions)
	app.Options(resumablePath+"/:id", h.tusOptions)
	app.Post(resumablePath, h.tusCreate)
	app.Head(resumablePath+"/:id", h.tusHead)
	app.Patch(resumablePath+"/:id", h.tusPatch)
	app.Delete(resumablePath+"/:id", h.tusDelete)
}

// tusOptions answers TUS discovery.
func (h *handlers) tusOptions(c fiber.Ctx) error {
	c.Set("Tus-Resumable", tusVersion)
	c.Set("Tus-Version", tusVersion)
	c.Set("Tus-Extension", tusExtensions)
	c.Set("Tus-Max-Size", strconv.FormatInt(h.svc.FileSizeLimit, 10))
	return c.SendStatus(fiber.StatusNoContent)
}

// tusRequest checks the protocol version every request but OPTIONS names
// and returns the caller.
func (h *handlers) tusStart(c fiber.Ctx) error {
	c.Set("Tus-Resumable", tusVersion)
	if c.Get("Tus-Resumable") != tusVersion {
		c.Set("Tus-Version", tusVersion)
		return &storageerr.Error{Status: http.StatusPreconditionFailed, HTTPStatus: http.StatusPreconditionFailed,
			Code: storageerr.CodeInvalidRequest, Message: "Unsupported TUS version"}
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return nil
}

func (h *handlers) tusCreate(c fiber.Ctx) error {
	if err := h.tusStart(c); err != nil {
		return err
	}
	who, err := h.caller(c)
	if err != nil {
		return tusStatus(err)
	}
	if c.Get("Upload-Defer-Length") != "" {
		return tusStatus(storageerr.InvalidRequest(http.StatusBadRequest, "Upload-Defer-Length is not supported"))
	}
	length, err := headerInt(c, "Upload-Length")
	if err != nil {
		return err
	}
	meta, err := resumable.ParseMetadata(c.Get("Upload-Metadata"))
	if err != nil {
		return tusStatus(storageerr.InvalidParameter("Upload-Metadata", err.Error()))
	}
	u, err := h.tus.Create(c.Context(), who, resumable.Create{
		Length: length, Metadata: meta, Upsert: strings.EqualFold(c.Get("x-upsert"), "true"),
	})
	if err != nil {
		return tusStatus(err)
	}
	c.Set(fiber.HeaderLocation, uploadURL(c, u.ID()))
	c.Set("Upload-Expires", u.Expires.UTC().Format(http.TimeFormat))
	// creation-with-upload: the request may carry the first chunk.
	if c.Get(fiber.HeaderContentType) == tusChunkType {
		st, err := h.tus.Append(c.Context(), who, u.ID(), 0, body(c))
		if err != nil {
			return tusStatus(err)
		}
		c.Set("Upload-Offset", strconv.FormatInt(st.Offset, 10))
	}
	return c.SendStatus(fiber.StatusCreated)
}

func (h *handlers) tusHead(c fiber.Ctx) error {
	if err := h.tusStart(c); err != nil {
		return err
	}
	who, err := h.caller(c)
	if err != nil {
		return tusStatus(err)
	}
	st, err := h.tus.Status(c.Context(), who, strings.Clone(c.Params("id")))
	if err != nil {
		return tusStatus(err)
	}
	c.Set("Upload-Offset", strconv.FormatInt(st.Offset, 10))
	c.Set("Upload-Length", strconv.FormatInt(st.Length, 10))
	c.Set("Upload-Expires", st.Expires.UTC().Format(http.TimeFormat))
	return c.SendStatus(fiber.StatusOK)
}

// maxChunkDrain bounds how much of a refused chunk is read to its end: a
// TUS client's chunk (tus-js-client under supabase-js sends 6 MiB).
const maxChunkDrain = 8 << 20

// tusPatch appends a chunk. A refused chunk (a stale offset above all) is
// read to its end, up to maxChunkDrain, before the answer: closing with
// the chunk unread resets the connection, which a proxy in front (the
// gateway) can only answer 502, and the client would not learn to re-sync
// its offset from the 409.
func (h *handlers) tusPatch(c fiber.Ctx) error {
	err := h.appendChunk(c)
	if err != nil && c.Request().BodyStream() != nil {
		if b := body(c); !b.eof {
			_, _ = io.Copy(io.Discard, io.LimitReader(b, maxChunkDrain))
		}
	}
	return err
}

func (h *handlers) appendChunk(c fiber.Ctx) error {
	if err := h.tusStart(c); err != nil {
		return err
	}
	who, err := h.caller(c)
	if err != nil {
		return tusStatus(err)
	}
	if c.Get(fiber.HeaderContentType) != tusChunkType {
		return tusStatus(storageerr.InvalidRequest(http.StatusUnsupportedMediaType, "Content-Type must be "+tusChunkType))
	}
	offset, err := headerInt(c, "Upload-Offset")
	if err != nil {
		return err
	}
	st, err := h.tus.Append(c.Context(), who, strings.Clone(c.Params("id")), offset, body(c))
	if err != nil {
		return tusStatus(err)
	}
	c.Set("Upload-Offset", strconv.FormatInt(st.Offset, 10))
	c.Set("Upload-Expires", st.Expires.UTC().Format(http.TimeFormat))
	return c.SendStatus(fiber.StatusNoContent)
}

func (h *handlers) tusDelete(c fiber.Ctx) error {
	if err := h.tusStart(c); err != nil {
		return err
	}
	who, err := h.caller(c)
	if err != nil {
		return tusStatus(err)
	}
	if err := h.tus.Terminate(c.Context(), who, strings.Clone(c.Params("id"))); err != nil {
		return tusStatus(err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// headerInt reads a required non-negative integer header.
func headerInt(c fiber.Ctx, name string) (int64, error) {
	v := c.Get(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if v == "" || err != nil || n < 0 || v[0] == '+' {
		return 0, tusStatus(storageerr.InvalidParameter(name, name+" must be a non-negative integer"))
	}
	return n, nil
}

// tusStatus answers a storage error with its own HTTP status: TUS clients
// decide from the status whether to retry (409, 423, 5xx) or give up,
// where storage-js reads the status from the body. Supabase's TUS route
// does the same.
func tusStatus(err error) error {
	var e *storageerr.Error
	if !errors.As(err, &e) || e.HTTPStatus != 0 {
		return err
	}
	cp := *e
	cp.HTTPStatus = e.Status
	return &cp
}

// uploadURL is the upload's absolute URL as the client reached this
// service: behind the gateway its public host, scheme and /storage/v1
// prefix come in X-Forwarded-* headers.
func uploadURL(c fiber.Ctx, id string) string {
	scheme := c.Get("X-Forwarded-Proto")
	if scheme != "http" && scheme != "https" {
		scheme = c.Protocol()
	}
	host := c.Get("X-Forwarded-Host")
	if host == "" || strings.ContainsAny(host, "/\\@ ") {
		host = c.Hostname()
	}
	prefix := strings.TrimRight(c.Get("X-Forwarded-Prefix"), "/")
	if prefix != "" && (!strings.HasPrefix(prefix, "/") || strings.HasPrefix(prefix, "//") || strings.ContainsAny(prefix, "?#\\ ")) {
		prefix = ""
	}
	return scheme + "://" + host + prefix + resumablePath + "/" + id
}
