// Package httpapi is the storage service's HTTP layer: it builds the Fiber
// app, routes requests, and writes every error through one handler in
// Supabase Storage's envelope.
package httpapi

import (
	"bytes"
	"errors"
	"io"
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/render"
	"github.com/kejanest/kejanest/storage/internal/resumable"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// multipartOverhead is room above FILE_SIZE_LIMIT for the multipart framing
// and form fields that accompany an upload.
const multipartOverhead = 1 << 20

// Deps is what the HTTP layer needs from main.
type Deps struct {
	// Log receives unexpected failures and, at debug, the access log.
	Log *slog.Logger
	// FileSizeLimit is the largest object in bytes; the request body limit
	// leaves room for multipart framing above it.
	FileSizeLimit int
	// Server holds the other HTTP limits; zero values take fiberserve's
	// defaults.
	Server fiberserve.Config
	// Service runs the operations; nil serves only health and 501s (tests
	// of the HTTP shell).
	Service *objects.Service
	// Verifier checks bearer tokens.
	Verifier *jwtverify.Verifier
	// Resumable runs TUS uploads; nil builds one over Service with the
	// default expiry.
	Resumable *resumable.Manager
	// Renderer serves /render/image; nil leaves image transformation off
	// (IMAGE_TRANSFORMATION_ENABLED=false).
	Renderer *render.Renderer
}

// New returns the storage service's app with every route registered.
// Routes Supabase Storage has and this service does not yet answer 501
// NotImplemented.
func New(d Deps) *fiber.App {
	srv := d.Server
	if d.FileSizeLimit > 0 {
		srv.BodyLimit = d.FileSizeLimit + multipartOverhead
	}
	app := fiberserve.New(srv, d.Log, errorHandler(d.Log))
	// Uploads stream: fasthttp hands the body over as it arrives instead of
	// reading it (or a multipart form) whole first. Set before serving;
	// fiber.New has already built the server.
	app.Server().StreamRequestBody = true
	app.Server().DisablePreParseMultipartForm = true
	bodyLimit := int64(srv.BodyLimit)
	if bodyLimit <= 0 {
		bodyLimit = fiberserve.DefaultBodyLimit
	}
	app.Use(func(c fiber.Ctx) error {
		// A streamed body is not checked by fasthttp: refuse an announced
		// length over the limit before any handler runs.
		if int64(c.Request().Header.ContentLength()) > bodyLimit {
			c.Request().SetConnectionClose()
			return storageerr.EntityTooLarge()
		}
		err := c.Next()
		finishBody(c)
		return err
	})
	registerHealth(app)
	if d.Service != nil {
		tus := d.Resumable
		if tus == nil {
			tus = &resumable.Manager{Service: d.Service, Backend: d.Service.Backend, Log: d.Log}
		}
		h := &handlers{svc: d.Service, tus: tus, verify: d.Verifier, log: d.Log, renderer: d.Renderer}
		h.register(app)
	}
	app.Use(notImplemented)
	return app
}

// maxDrain is how much of an unread request body is read and discarded so
// the connection can serve its next request; beyond it the connection is
// closed instead.
const maxDrain = 64 << 10

// finishBody consumes what a handler left of a streamed body (a multipart
// epilogue, the chunked terminator, a refused upload): keeping it would
// make it the next request on a kept-alive connection.
func finishBody(c fiber.Ctx) {
	if c.Request().BodyStream() == nil {
		return
	}
	b := body(c)
	if b.eof {
		return // reading a finished chunked stream again would block
	}
	n, err := io.Copy(io.Discard, io.LimitReader(b, maxDrain+1))
	if err != nil || n > maxDrain {
		c.Request().SetConnectionClose()
		c.Response().SetConnectionClose()
	}
}

type bodyKey struct{}

// bodyReader is the request body stream, remembering when it ended.
type bodyReader struct {
	r   io.Reader
	eof bool
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// body returns the request body as a stream; every reader of the body
// goes through it.
func body(c fiber.Ctx) *bodyReader {
	if b, ok := c.Locals(bodyKey{}).(*bodyReader); ok {
		return b
	}
	var r io.Reader = c.Request().BodyStream()
	if r == nil {
		r = bytes.NewReader(c.Body())
	}
	b := &bodyReader{r: r}
	c.Locals(bodyKey{}, b)
	return b
}

// maxEchoedPathLen bounds the request path quoted back in error messages.
const maxEchoedPathLen = 256

func notImplemented(c fiber.Ctx) error {
	path := c.Path()
	if len(path) > maxEchoedPathLen {
		path = path[:maxEchoedPathLen] + "…"
	}
	return storageerr.NotImplemented(c.Method() + " " + path)
}

// errorHandler is the single writer of error responses: every error a
// handler returns, a panic, or a request Fiber rejects itself ends here.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c fiber.Ctx, err error) error {
		id := fiberserve.RequestID(c)
		err = fromFiber(err)
		status, body, expected := storageerr.Render(err, id)
		var e *storageerr.Error
		if !expected || (errors.As(err, &e) && e.Cause != nil && e.Status >= fiber.StatusInternalServerError) {
			log.Error("request failed", "request_id", id, "method", c.Method(), "path", c.Path(), "error", err.Error())
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Status(status).Send(body)
	}
}

// fromFiber maps the errors Fiber raises itself onto storage codes.
func fromFiber(err error) error {
	var fe *fiber.Error
	if !errors.As(err, &fe) || fe.Code >= fiber.StatusInternalServerError {
		return err
	}
	if fe.Code == fiber.StatusRequestEntityTooLarge {
		return storageerr.EntityTooLarge()
	}
	return storageerr.InvalidRequest(fe.Code, fe.Message)
}
