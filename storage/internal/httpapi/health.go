package httpapi

import "github.com/gofiber/fiber/v3"

// registerHealth adds the liveness endpoints; both answer 200 while the
// process serves, whatever the database:
//
//	GET /status  upstream's own, with an empty body
//	GET /health  {"status":"ok"}, like the other services' /health
func registerHealth(app *fiber.App) {
	// HEAD is listed explicitly: Fiber's automatic HEAD routes are appended
	// after the not-implemented catch-all, which would shadow them.
	getHead := []string{fiber.MethodGet, fiber.MethodHead}
	app.Add(getHead, "/status", func(c fiber.Ctx) error {
		c.Status(fiber.StatusOK)
		return nil
	})
	app.Add(getHead, "/health", func(c fiber.Ctx) error {
		return c.JSON(fiber.Map{"status": "ok"})
	})
}
