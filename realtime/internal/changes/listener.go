package changes

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listener holds one dedicated connection LISTENing on Channels and hands
// each notification to Handle. After every (re)connection it first
// LISTENs and then calls Backlog, so nothing that happened while it was
// disconnected goes unreported: on reconnects Backlog tells subscribers
// about the gap. It reconnects after RetryDelay (doubling up to
// MaxRetryDelay).
type Listener struct {
	// Connect opens the dedicated connection.
	Connect func(ctx context.Context) (*pgx.Conn, error)
	// Channels to LISTEN on.
	Channels []string
	// Handle receives each notification; it must not block for long.
	Handle func(channel string, payload []byte)
	// Backlog runs after LISTEN succeeded; reconnect is false for the first
	// connection.
	Backlog func(reconnect bool)
	// Ready, if set, is called (once per connection) when LISTEN is live.
	Ready func()
	Log   *slog.Logger

	RetryDelay    time.Duration
	MaxRetryDelay time.Duration
}

// Run listens until ctx ends.
func (l *Listener) Run(ctx context.Context) {
	delay := l.RetryDelay
	if delay <= 0 {
		delay = time.Second
	}
	maxDelay := l.MaxRetryDelay
	if maxDelay <= 0 {
		maxDelay = 10 * time.Second
	}
	connected := false
	wait := delay
	for ctx.Err() == nil {
		err := l.session(ctx, connected, func() { connected = true; wait = delay })
		if ctx.Err() != nil {
			return
		}
		l.Log.Warn("change listener disconnected; reconnecting", "error", errString(err), "delay", wait.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, maxDelay)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (l *Listener) session(ctx context.Context, reconnect bool, up func()) error {
	conn, err := l.Connect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	for _, ch := range l.Channels {
		if _, err := conn.Exec(ctx, "listen "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return err
		}
	}
	up()
	if l.Backlog != nil {
		l.Backlog(reconnect)
	}
	if l.Ready != nil {
		l.Ready()
	}
	l.Log.Info("change listener connected", "channels", l.Channels)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.Handle(n.Channel, []byte(n.Payload))
	}
}
