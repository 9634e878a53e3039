package api

import (
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/platform/fiberserve"
)

// writeError is the single writer of error responses (GoTrue's
// HandleResponseError): every error a handler returns, a panic, or a request
// Fiber rejects itself ends here and is answered in the shape the request's
// X-Supabase-Api-Version asks for.
func (a *API) writeError(c fiber.Ctx, err error) error {
	id := fiberserve.RequestID(c)
	err = fromFiber(err)
	r := apierr.Render(err, c.Get(apierr.HeaderAPIVersion), id)

	level := slog.LevelDebug
	var e *apierr.Error
	if r.Unexpected || (errors.As(err, &e) && e.Cause != nil && r.Status >= fiber.StatusInternalServerError) {
		level = slog.LevelError
	}
	a.log.Log(c.Context(), level, "request failed", "request_id", id, "method", c.Method(), "path", c.Path(), "status", r.Status, "error", err.Error())

	for _, h := range r.Headers {
		c.Set(h[0], h[1])
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(r.Status).Send(r.Body)
}

// fromFiber gives the errors Fiber raises itself (an oversized body, a
// malformed request) a GoTrue code.
func fromFiber(err error) error {
	var fe *fiber.Error
	if !errors.As(err, &fe) || fe.Code >= fiber.StatusInternalServerError {
		return err
	}
	return &apierr.Error{HTTPStatus: fe.Code, Code: apierr.CodeValidationFailed, Message: fe.Message}
}
