// Package lifecycle ties a service's lifetime to SIGINT and SIGTERM.
package lifecycle

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// ShutdownGrace is how long a service may take to drain in-flight requests
// after a stop signal before it exits anyway.
const ShutdownGrace = 10 * time.Second

// SignalContext returns a context cancelled on the first SIGINT or SIGTERM.
// A second signal is left to the default handler, so it kills the process.
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
