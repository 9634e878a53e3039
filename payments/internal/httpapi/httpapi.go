// Package httpapi is the payments service's HTTP layer: the Supabase Edge
// Functions-shaped endpoints behind the gateway's /functions/v1 (which
// strips that prefix), one error writer, and health.
//
//	POST /mpesa-stk-push   a signed-in buyer starts an M-Pesa payment
//	POST /mpesa-callback   Safaricom posts the result (no JWT; the callback
//	                       URL's secret vouches for it)
//	GET  /health, /ready   liveness; readiness (the database answers)
//
// Errors of the functions are JSON {"code": "...", "message": "..."}; the
// JWT checks answer as Supabase's functions relay does, {"code": 401,
// "message": "Missing authorization header"} or "Invalid JWT". The callback
// answers Safaricom in its own shape, {"ResultCode": 0, "ResultDesc":
// "Accepted"}.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/payments/internal/checkout"
	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/store"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/jwtverify"
)

// Function names, as supabase.functions.invoke(name) calls them.
const (
	FunctionSTKPush  = "mpesa-stk-push"
	FunctionCallback = "mpesa-callback"
)

// maxJSONBody bounds the stk-push body.
const maxJSONBody = 4 << 10

// Deps is what the HTTP layer needs from main.
type Deps struct {
	Log *slog.Logger
	// Checkout runs the flow; nil serves only health (tests of the shell).
	Checkout *checkout.Service
	// Verifier checks bearer tokens.
	Verifier *jwtverify.Verifier
	// Ready reports whether the service can work; nil means always.
	Ready func(context.Context) error
	// Server holds the HTTP limits; zero values take fiberserve's defaults.
	Server fiberserve.Config
}

// New returns the app with every route registered.
func New(d Deps) *fiber.App {
	app := fiberserve.New(d.Server, d.Log, errorHandler(d.Log))
	getHead := []string{fiber.MethodGet, fiber.MethodHead}
	app.Add(getHead, "/health", func(c fiber.Ctx) error { return c.JSON(fiber.Map{"status": "ok"}) })
	app.Add(getHead, "/ready", func(c fiber.Ctx) error {
		if d.Ready != nil {
			if err := d.Ready(c.Context()); err != nil {
				return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable"})
			}
		}
		return c.JSON(fiber.Map{"status": "ok"})
	})
	if d.Checkout != nil {
		h := &handlers{checkout: d.Checkout, verify: d.Verifier}
		app.Post("/"+FunctionSTKPush, h.stkPush)
		app.Post("/"+FunctionCallback, h.callback)
	}
	app.Use(func(c fiber.Ctx) error {
		switch strings.TrimSuffix(strings.TrimPrefix(c.Path(), "/"), "/") {
		case FunctionSTKPush, FunctionCallback:
			return errMethodNotAllowed
		}
		return errNotFound
	})
	return app
}

type handlers struct {
	checkout *checkout.Service
	verify   *jwtverify.Verifier
}

// stkPushRequest is the body of supabase.functions.invoke('mpesa-stk-push',
// {body}).
type stkPushRequest struct {
	PackageID string `json:"package_id"`
	Phone     string `json:"phone"`
}

func (h *handlers) stkPush(c fiber.Ctx) error {
	buyer, err := h.buyer(c)
	if err != nil {
		return err
	}
	body := c.Body()
	if len(body) > maxJSONBody {
		return errTooLarge
	}
	var req stkPushRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return invalid("invalid_request", "The body must be JSON: {\"package_id\": \"…\", \"phone\": \"07…\"}.")
	}
	started, err := h.checkout.Start(c.Context(), buyer, strings.TrimSpace(req.PackageID), strings.TrimSpace(req.Phone))
	if err != nil {
		return startError(err)
	}
	return c.JSON(started)
}

// buyer is the signed-in user of the request, verified as the other
// services verify tokens.
func (h *handlers) buyer(c fiber.Ctx) (store.Caller, error) {
	auth := c.Get(fiber.HeaderAuthorization)
	if auth == "" {
		return store.Caller{}, errNoAuthorization
	}
	token, ok := cutBearer(auth)
	if !ok {
		return store.Caller{}, errInvalidJWT
	}
	cl, err := h.verify.Verify(token)
	if err != nil {
		return store.Caller{}, errInvalidJWT
	}
	if cl.Role != "authenticated" || cl.Subject == "" {
		return store.Caller{}, errSignInRequired
	}
	return store.Caller{Role: cl.Role, Claims: append(json.RawMessage(nil), cl.Raw...)}, nil
}

func cutBearer(h string) (string, bool) {
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", false
	}
	t := strings.TrimSpace(h[7:])
	return t, t != ""
}

func (h *handlers) callback(c fiber.Ctx) error {
	body := c.Body()
	if len(body) > daraja.MaxCallbackBytes {
		return &callbackError{status: fiber.StatusRequestEntityTooLarge, desc: "Callback too large"}
	}
	// Query values are copied: Fiber reuses their buffers.
	purchaseID, secret := strings.Clone(c.Query("p")), strings.Clone(c.Query("s"))
	_, err := h.checkout.Callback(c.Context(), purchaseID, secret, body)
	switch {
	case errors.Is(err, store.ErrUnknownCallback):
		return &callbackError{status: fiber.StatusForbidden, desc: "Rejected", cause: err}
	case errors.Is(err, checkout.ErrMalformed):
		return &callbackError{status: fiber.StatusBadRequest, desc: "Malformed callback", cause: err}
	case err != nil:
		return &callbackError{status: fiber.StatusInternalServerError, desc: "Temporary failure", cause: err}
	}
	return c.JSON(accepted)
}

// accepted is the answer Safaricom expects for a callback we took.
var accepted = callbackAnswer{ResultCode: 0, ResultDesc: "Accepted"}

type callbackAnswer struct {
	ResultCode int    `json:"ResultCode"`
	ResultDesc string `json:"ResultDesc"`
}
