package httpapi

import (
	"runtime/debug"

	"github.com/gofiber/fiber/v3"
)

// version is the build's module version, else its VCS revision, else
// "dev" (a test or go run build).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
	}
	return "dev"
}

// registerHealth adds the liveness endpoints; both answer 200 while the
// process serves, whatever the database:
//
//	GET /status  upstream's own, with an empty body
//	GET /version upstream's own: the version, as text
//	GET /health  {"status":"ok"}, like the other services' /health
func registerHealth(app *fiber.App) {
	// HEAD is listed explicitly: Fiber's automatic HEAD routes are appended
	// after the not-implemented catch-all, which would shadow them.
	getHead := []string{fiber.MethodGet, fiber.MethodHead}
	app.Add(getHead, "/status", func(c fiber.Ctx) error {
		c.Status(fiber.StatusOK)
		return nil
	})
	// Upstream answers its package version as text.
	app.Add(getHead, "/version", func(c fiber.Ctx) error {
		return c.SendString(version())
	})
	app.Add(getHead, "/health", func(c fiber.Ctx) error {
		return c.JSON(fiber.Map{"status": "ok"})
	})
}
