// Package httpapi is the rest service's HTTP layer: it builds the Fiber app,
// routes requests, and writes every error through one PostgREST-shaped
// error handler.
package httpapi

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// Deps is what the HTTP layer needs from main.
type Deps struct {
	// Log receives unexpected failures and, at debug, the access log.
	Log *slog.Logger
	// Ready reports whether the service can answer table requests (today:
	// whether the database answers a ping). Nil means always ready.
	Ready func(ctx context.Context) error
	// Server holds the HTTP limits; zero values take fiberserve's defaults.
	Server fiberserve.Config
}

// New returns the rest service's app with every route registered.
func New(d Deps) *fiber.App {
	app := fiberserve.New(d.Server, d.Log, errorHandler(d.Log))
	registerHealth(app, d.Ready)
	// The table endpoints (/{relation}, and / for the OpenAPI root) come
	// with the PostgREST pipeline.
	app.Use(notImplemented)
	return app
}

// maxEchoedPathLen bounds the request path quoted back in error details.
const maxEchoedPathLen = 256

func notImplemented(c fiber.Ctx) error {
	path := c.Path()
	if len(path) > maxEchoedPathLen {
		path = path[:maxEchoedPathLen] + "…"
	}
	return pgrsterr.NotImplemented(c.Method() + " " + path + " is not implemented yet")
}

// errorHandler is the single writer of error responses: every error a
// handler returns, a panic, or a request Fiber rejects itself ends here.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c fiber.Ctx, err error) error {
		id := fiberserve.RequestID(c)
		status, body, expected := pgrsterr.Render(fromFiber(err, c.Method()), id)
		if !expected {
			log.Error("unexpected failure", "request_id", id, "method", c.Method(), "path", c.Path(), "error", err.Error())
		}
		c.Set(fiber.HeaderContentType, pgrsterr.ContentType)
		return c.Status(status).Send(body)
	}
}

// fromFiber maps the errors Fiber raises itself onto PostgREST codes.
func fromFiber(err error, method string) error {
	var fe *fiber.Error
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.Code {
	case fiber.StatusNotFound:
		return pgrsterr.InvalidResourcePath()
	case fiber.StatusMethodNotAllowed, fiber.StatusNotImplemented:
		// Fiber answers 501 for a method it does not know at all.
		return pgrsterr.UnsupportedMethod(method)
	case fiber.StatusRequestEntityTooLarge:
		return pgrsterr.InvalidBody(fe.Code, "Request body too large")
	}
	if fe.Code < 500 {
		return pgrsterr.InvalidBody(fe.Code, fe.Message)
	}
	return err
}
