package httpapi

import (
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/payments/internal/checkout"
	"github.com/kejanest/kejanest/payments/internal/store"
	"github.com/kejanest/kejanest/platform/fiberserve"
)

// funcError is a function's error answer: {"code": …, "message": …} plus
// any extra fields.
type funcError struct {
	status int
	// code is a string for the functions' own errors, a number (the
	// status) for the relay's JWT errors, as Supabase sends them.
	code    any
	message string
	extra   map[string]any
	cause   error
}

func (e *funcError) Error() string {
	if e.cause != nil {
		return e.message + ": " + e.cause.Error()
	}
	return e.message
}

func (e *funcError) body() map[string]any {
	b := map[string]any{"code": e.code, "message": e.message}
	for k, v := range e.extra {
		b[k] = v
	}
	return b
}

// The relay's answers (hosted Supabase's JWT check on /functions/v1).
var (
	errNoAuthorization = &funcError{status: fiber.StatusUnauthorized, code: fiber.StatusUnauthorized, message: "Missing authorization header"}
	errInvalidJWT      = &funcError{status: fiber.StatusUnauthorized, code: fiber.StatusUnauthorized, message: "Invalid JWT"}
	// errSignInRequired answers a valid token that is not a signed-in
	// user's (the anon key, a service key).
	errSignInRequired = &funcError{status: fiber.StatusUnauthorized, code: fiber.StatusUnauthorized, message: "Sign in to buy Nestcoins"}

	errNotFound         = &funcError{status: fiber.StatusNotFound, code: "NOT_FOUND", message: "Requested function was not found"}
	errMethodNotAllowed = &funcError{status: fiber.StatusMethodNotAllowed, code: "method_not_allowed", message: "Use POST"}
	errTooLarge         = &funcError{status: fiber.StatusRequestEntityTooLarge, code: "payload_too_large", message: "The request body is too large"}
)

func invalid(code, message string) *funcError {
	return &funcError{status: fiber.StatusBadRequest, code: code, message: message}
}

// startError maps the failures of checkout.Start onto answers.
func startError(err error) error {
	var pe *checkout.PushError
	switch {
	case errors.Is(err, checkout.ErrInvalidRequest):
		return invalid("invalid_request", "package_id must be the id of a Nestcoin package")
	case errors.Is(err, checkout.ErrInvalidPhone), errors.Is(err, store.ErrInvalidPhone):
		return invalid("invalid_phone", "Enter a valid M-Pesa phone number, such as 0712 345 678")
	case errors.Is(err, store.ErrPackageNotFound):
		return &funcError{status: fiber.StatusNotFound, code: "package_not_found", message: "Package not found"}
	case errors.Is(err, store.ErrSuspended):
		return &funcError{status: fiber.StatusForbidden, code: "account_suspended", message: "Your account is suspended"}
	case errors.Is(err, store.ErrTooManyPending):
		return &funcError{status: fiber.StatusTooManyRequests, code: "too_many_pending",
			message: "You have payments waiting for confirmation. Answer the M-Pesa prompts on your phone, or wait a few minutes."}
	case errors.Is(err, store.ErrNotSignedIn):
		return errSignInRequired
	case errors.As(err, &pe):
		code := "mpesa_unavailable"
		if pe.Rejected {
			code = "mpesa_rejected"
		}
		return &funcError{status: fiber.StatusBadGateway, code: code, message: pe.Message, cause: err,
			extra: map[string]any{"purchase_id": pe.PurchaseID, "status": "failed"}}
	}
	return err
}

// callbackError is a refused callback, answered in Safaricom's shape.
type callbackError struct {
	status int
	desc   string
	cause  error
}

func (e *callbackError) Error() string {
	if e.cause != nil {
		return "callback " + e.desc + ": " + e.cause.Error()
	}
	return "callback " + e.desc
}

// errorHandler is the single writer of error responses: every error a
// handler returns, a panic, or a request Fiber rejects itself ends here.
// Unexpected failures are logged and answered with the request id only.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c fiber.Ctx, err error) error {
		id := fiberserve.RequestID(c)
		var fe *funcError
		var ce *callbackError
		var fibErr *fiber.Error
		switch {
		case errors.As(err, &fe):
			if fe.status >= fiber.StatusInternalServerError {
				log.Warn("function failed", "request_id", id, "path", c.Path(), "error", err.Error())
			}
			return c.Status(fe.status).JSON(fe.body())
		case errors.As(err, &ce):
			level := slog.LevelInfo
			if ce.status >= fiber.StatusInternalServerError {
				level = slog.LevelError
			}
			log.Log(c.Context(), level, "callback refused", "request_id", id, "status", ce.status, "error", err.Error())
			return c.Status(ce.status).JSON(callbackAnswer{ResultCode: 1, ResultDesc: ce.desc})
		case errors.As(err, &fibErr) && fibErr.Code < fiber.StatusInternalServerError:
			switch fibErr.Code {
			case fiber.StatusNotFound:
				return c.Status(errNotFound.status).JSON(errNotFound.body())
			case fiber.StatusMethodNotAllowed:
				return c.Status(errMethodNotAllowed.status).JSON(errMethodNotAllowed.body())
			case fiber.StatusRequestEntityTooLarge:
				return c.Status(errTooLarge.status).JSON(errTooLarge.body())
			}
			return c.Status(fibErr.Code).JSON(fiber.Map{"code": "invalid_request", "message": fibErr.Message})
		}
		log.Error("unexpected failure", "request_id", id, "method", c.Method(), "path", c.Path(), "error", err.Error())
		return c.Status(fiber.StatusInternalServerError).JSON(fiber.Map{
			"code": "internal_error", "message": "Something went wrong on our side. Try again.", "request_id": id,
		})
	}
}
