package httpapi

import (
	"context"

	"github.com/gofiber/fiber/v3"
)

// registerHealth adds PostgREST's admin endpoints on the main port:
//
//	GET /live, GET /health  200 while the process serves, whatever the database
//	GET /ready              200 when ready(ctx) succeeds, else 503
//
// All answer with an empty body, as PostgREST does; HEAD works too.
func registerHealth(app *fiber.App, ready func(context.Context) error) {
	live := func(c fiber.Ctx) error {
		c.Status(fiber.StatusOK)
		return nil
	}
	// HEAD is listed explicitly: Fiber's automatic HEAD routes are appended
	// after the not-implemented catch-all, which would shadow them.
	getHead := []string{fiber.MethodGet, fiber.MethodHead}
	app.Add(getHead, "/live", live)
	app.Add(getHead, "/health", live)
	app.Add(getHead, "/ready", func(c fiber.Ctx) error {
		if ready != nil {
			if err := ready(c.Context()); err != nil {
				c.Status(fiber.StatusServiceUnavailable)
				return nil
			}
		}
		c.Status(fiber.StatusOK)
		return nil
	})
}
