// Package fiberserve builds and runs the Fiber app that every
// request/response service (rest, rpc, authsvc, storage) serves.
//
// New gives each app the same limits and the same three middlewares, outermost
// first:
//
//  1. access log: takes the request id from X-Request-Id (or makes one),
//     hands any error the chain returns to the service's error handler, so
//     the status it writes is the status logged, and writes one debug line
//     per request;
//  2. recover: turns a panic into an error wrapping ErrPanic, logged with its
//     stack, which the error handler then answers like any unexpected failure;
//  3. deadline: gives the request a context with a deadline through
//     c.SetContext, because Fiber v3's own context never cancels. Handlers
//     pass c.Context() to pgx and friends.
//
// Serve listens and, once its context is cancelled, stops within
// lifecycle.ShutdownGrace.
package fiberserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/listenfd"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultBodyLimit      = 1 << 20 // 1 MiB
	DefaultReadTimeout    = 30 * time.Second
	DefaultWriteTimeout   = 60 * time.Second
	DefaultIdleTimeout    = 120 * time.Second
	DefaultRequestTimeout = 30 * time.Second
)

// HeaderRequestID is the header the gateway puts the request id in.
const HeaderRequestID = "X-Request-Id"

// maxRequestIDLen bounds an incoming request id; a longer one is replaced, so
// a client cannot bloat every log line.
const maxRequestIDLen = 128

// maxLoggedPathLen bounds the logged path for the same reason.
const maxLoggedPathLen = 1024

// ErrPanic is wrapped by the error the recover middleware hands to the error
// handler when a handler panics.
var ErrPanic = errors.New("handler panicked")

// Config holds the limits of one app. Zero fields take the Default* values.
type Config struct {
	// BodyLimit is the largest request body accepted, in bytes; a larger one
	// is answered 413 through the error handler (as *fiber.Error).
	BodyLimit int
	// ReadTimeout bounds reading one whole request, headers and body.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing one response.
	WriteTimeout time.Duration
	// IdleTimeout bounds how long a keep-alive connection waits for its next
	// request.
	IdleTimeout time.Duration
	// RequestTimeout is the deadline of the context each handler gets from
	// c.Context().
	RequestTimeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.BodyLimit <= 0 {
		c.BodyLimit = DefaultBodyLimit
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	return c
}

// New returns a Fiber app with cfg's limits, errorHandler as its single error
// writer, and the access-log, recover and deadline middlewares installed. The
// caller registers its routes on the result.
//
// errorHandler is also what Fiber calls for errors raised before any
// middleware runs (an oversized body, a malformed request); RequestID is
// empty then.
func New(cfg Config, log *slog.Logger, errorHandler fiber.ErrorHandler) *fiber.App {
	cfg = cfg.withDefaults()
	if errorHandler == nil {
		errorHandler = fiber.DefaultErrorHandler
	}
	app := fiber.New(fiber.Config{
		BodyLimit:    cfg.BodyLimit,
		ReadTimeout:  cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout,
		IdleTimeout:  cfg.IdleTimeout,
		ErrorHandler: errorHandler,
	})
	app.Use(accessLog(log, errorHandler), recoverPanic(log), deadline(cfg.RequestTimeout))
	return app
}

type requestIDKey struct{}

// RequestID returns the id of the request c is serving, as the access-log
// middleware recorded it; empty outside that middleware.
func RequestID(c fiber.Ctx) string {
	id, _ := c.Locals(requestIDKey{}).(string)
	return id
}

// ContextRequestID returns the request id carried by a context derived from
// c.Context(), for code below the HTTP layer; empty if there is none.
func ContextRequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// newRequestID returns 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// validRequestID accepts the printable ASCII ids a proxy sends, so a hostile
// one cannot forge log structure.
func validRequestID(s string) bool {
	if s == "" || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func accessLog(log *slog.Logger, errorHandler fiber.ErrorHandler) fiber.Handler {
	return func(c fiber.Ctx) error {
		start := time.Now()
		id := c.Get(HeaderRequestID)
		if validRequestID(id) {
			id = strings.Clone(id) // Fiber reuses the header buffer
		} else {
			id = newRequestID()
		}
		c.Locals(requestIDKey{}, id)

		if err := c.Next(); err != nil {
			if herr := errorHandler(c, err); herr != nil {
				log.Error("error handler failed", "request_id", id, "error", herr.Error(), "cause", err.Error())
				c.Status(fiber.StatusInternalServerError)
			}
		}

		if log.Enabled(context.Background(), slog.LevelDebug) {
			path := c.Path()
			if len(path) > maxLoggedPathLen {
				path = path[:maxLoggedPathLen]
			}
			log.LogAttrs(context.Background(), slog.LevelDebug, "request",
				slog.String("request_id", id),
				slog.String("method", c.Method()),
				slog.String("path", path),
				slog.Int("status", c.Response().StatusCode()),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			)
		}
		return nil
	}
}

func recoverPanic(log *slog.Logger) fiber.Handler {
	return func(c fiber.Ctx) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			log.Error("panic while serving a request",
				"request_id", RequestID(c),
				"method", c.Method(),
				"path", c.Path(),
				"panic", fmt.Sprint(r),
				"stack", string(debug.Stack()),
			)
			err = fmt.Errorf("%w: %v", ErrPanic, r)
		}()
		return c.Next()
	}
}

func deadline(timeout time.Duration) fiber.Handler {
	return func(c fiber.Ctx) error {
		base := context.WithValue(context.Background(), requestIDKey{}, RequestID(c))
		ctx, cancel := context.WithTimeout(base, timeout)
		defer cancel()
		c.SetContext(ctx)
		return c.Next()
	}
}

// Serve listens on addr (on the socket a supervisor handed down for it, if
// any: platform/listenfd) and serves app until ctx is cancelled, then shuts the
// app down, letting in-flight requests finish within
// lifecycle.ShutdownGrace; connections still open after it are left to die
// with the process (logged as a warning). It returns nil once stopped, or the
// error that stopped it from listening or serving.
func Serve(ctx context.Context, app *fiber.App, addr string, log *slog.Logger) error {
	ln, err := listenfd.Listen(ctx, addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	return serveListener(ctx, app, ln, log, lifecycle.ShutdownGrace)
}

// ServeListener is Serve on a listener the caller opened (tests listen on
// port 0 and read the address back). It closes ln.
func ServeListener(ctx context.Context, app *fiber.App, ln net.Listener, log *slog.Logger) error {
	return serveListener(ctx, app, ln, log, lifecycle.ShutdownGrace)
}

func serveListener(ctx context.Context, app *fiber.App, ln net.Listener, log *slog.Logger, grace time.Duration) error {
	log.Info("listening", "addr", ln.Addr().String())
	served := make(chan error, 1)
	go func() {
		served <- app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	}()

	select {
	case err := <-served:
		_ = ln.Close()
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		return errors.New("serve: stopped unexpectedly")
	case <-ctx.Done():
	}

	log.Info("shutting down", "grace", grace.String())
	shutdownErr := app.ShutdownWithTimeout(grace)
	// If the server had not started accepting yet, Shutdown found no
	// listener to close; closing it here makes the pending Serve return.
	_ = ln.Close()
	serveErr := <-served
	switch {
	case shutdownErr == nil, errors.Is(shutdownErr, fiber.ErrNotRunning):
	case errors.Is(shutdownErr, context.DeadlineExceeded):
		// A request still running, or a connection that never sent one,
		// outlived the grace; the process exits anyway and drops it.
		log.Warn("shutdown grace expired with connections still open", "grace", grace.String())
	default:
		return fmt.Errorf("shutdown: %w", shutdownErr)
	}
	if serveErr != nil && !errors.Is(serveErr, net.ErrClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	log.Info("stopped")
	return nil
}
