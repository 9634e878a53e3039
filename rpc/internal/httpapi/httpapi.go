// Package httpapi is the rpc service's HTTP layer: it builds the Fiber app,
// routes /rpc/{function} calls, and writes every error through one
// PostgREST-shaped error handler.
package httpapi

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/rest/pgrst"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// Deps is what the HTTP layer needs from main.
type Deps struct {
	// Log receives unexpected failures and, at debug, the access log.
	Log *slog.Logger
	// Ready reports whether the service can answer calls (today: whether
	// the database answers a ping). Nil means always ready.
	Ready func(ctx context.Context) error
	// Server holds the HTTP limits; zero values take fiberserve's defaults.
	Server fiberserve.Config
	// Pipeline answers the PostgREST requests; nil answers them PGRST127.
	Pipeline *pgrst.Handler
}

// New returns the rpc service's app with every route registered:
//
//	GET, HEAD, POST /rpc/{fn}   the function call (PGRST127 without a pipeline)
//	OPTIONS /rpc/{fn}           the allowed verbs
//	other verbs on /rpc/{fn}    405 PGRST101, as PostgREST answers
//	anything else               404 PGRST125: rest owns every other path
func New(d Deps) *fiber.App {
	app := fiberserve.New(d.Server, d.Log, errorHandler(d.Log))
	registerHealth(app, d.Ready)
	if d.Pipeline != nil {
		app.All("/rpc/:fn", func(c fiber.Ctx) error {
			switch c.Method() {
			case fiber.MethodGet, fiber.MethodHead, fiber.MethodPost, fiber.MethodOptions:
				return serve(d.Pipeline)(c)
			}
			return pgrsterr.InvalidRPCMethod(c.Method())
		})
	} else {
		app.All("/rpc/:fn", call)
	}
	app.Use(func(c fiber.Ctx) error { return pgrsterr.InvalidResourcePath() })
	return app
}

// maxEchoedNameLen bounds the function name quoted back in error details.
const maxEchoedNameLen = 128

func call(c fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodPost:
	case fiber.MethodOptions:
		// PostgREST answers OPTIONS with the allowed verbs, which depend on
		// the function's volatility: that needs the schema cache.
		return pgrsterr.NotImplemented("OPTIONS on functions is not implemented yet")
	default:
		return pgrsterr.InvalidRPCMethod(c.Method())
	}
	fn := c.Params("fn")
	if len(fn) > maxEchoedNameLen {
		fn = fn[:maxEchoedNameLen] + "…"
	}
	return pgrsterr.NotImplemented("calling function " + fn + " is not implemented yet")
}

// errorHandler is the single writer of error responses: every error a
// handler returns, a panic, or a request Fiber rejects itself ends here.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c fiber.Ctx, err error) error {
		id := fiberserve.RequestID(c)
		err = fromFiber(err, c.Method())
		status, body, expected := pgrsterr.Render(err, id)
		if !expected {
			log.Error("unexpected failure", "request_id", id, "method", c.Method(), "path", c.Path(), "error", err.Error())
		}
		var pe *pgrsterr.Error
		if errors.As(err, &pe) {
			for _, h := range pe.Headers {
				c.Set(h[0], h[1])
			}
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
