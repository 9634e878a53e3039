// Package api is authsvc's HTTP layer. Handlers return errors; one function,
// the app's error handler (errors.go), writes them in GoTrue's shapes.
package api

import (
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/platform/fiberserve"
)

// Version is reported by GET /health.
const Version = "kejanest-dev"

// Deps is what the HTTP layer needs from main.
type Deps struct {
	Config config.Config
	// Log receives failures and, at debug, the access log.
	Log *slog.Logger
	// Server holds the HTTP limits; zero values take fiberserve's defaults.
	Server fiberserve.Config
}

// API holds the handlers' dependencies.
type API struct {
	cfg config.Config
	log *slog.Logger
}

// New returns authsvc's app with every route registered. Routes GoTrue has
// and authsvc does not yet answer 501 not_implemented.
func New(d Deps) *fiber.App {
	a := &API{cfg: d.Config, log: d.Log}
	app := fiberserve.New(d.Server, d.Log, a.writeError)
	getHead := []string{fiber.MethodGet, fiber.MethodHead}
	app.Add(getHead, "/health", a.health)
	app.Add(getHead, "/settings", a.settings)
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
	return apierr.NotImplemented(c.Method() + " " + path)
}
