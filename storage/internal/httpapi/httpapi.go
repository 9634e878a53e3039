// Package httpapi is the storage service's HTTP layer: it builds the Fiber
// app, routes requests, and writes every error through one handler in
// Supabase Storage's envelope.
package httpapi

import (
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/fiberserve"
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
	registerHealth(app)
	app.Use(notImplemented)
	return app
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
