// Package outbox delivers the contact-verification codes that
// public.request_verification_code queues in app_private.verification_outbox:
// email codes through the mailer, phone codes through the SMS sender. Each
// row is deleted once sent; every authsvc replica runs a Relay, and row locks
// taken with SKIP LOCKED make each code go out once.
package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/mailer"
	"github.com/kejanest/kejanest/authsvc/internal/sms"
	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// Defaults of the Relay's tunables.
const (
	DefaultPollInterval = 5 * time.Second
	DefaultMaxAttempts  = 5
	DefaultBatchSize    = 10
	DefaultSendTimeout  = 15 * time.Second
	DefaultListenRetry  = time.Second
)

// maxErrorLen bounds the last_error kept on a row.
const maxErrorLen = 500

// Text is the SMS (and the mail's sentence) carrying a code valid for
// minutes more.
func Text(code string, minutes int) string {
	unit := "minutes"
	if minutes == 1 {
		unit = "minute"
	}
	return fmt.Sprintf("Your KejaNest verification code is %s. It expires in %d %s.", code, minutes, unit)
}

// Relay drains app_private.verification_outbox. It wakes on NOTIFY
// verification_outbox (a dedicated connection; the backlog is drained after
// each LISTEN) and every PollInterval, which also brings retries due. Each
// batch is one transaction that claims due rows with FOR UPDATE SKIP LOCKED
// and, row by row, deletes it unsent if its code has expired, or sends it and
// deletes it, or on a failed send records the error and pushes the next
// attempt back (Backoff), deleting it after MaxAttempts. A send and the
// delete commit together, so a row is sent twice only if its transaction
// fails to commit after the send (the database went away): at least once,
// never silently lost while the code is valid.
//
// The code itself is never logged: log lines name the row, the user, the
// channel and the destination's domain or last digits. (The development SMS
// provider, sms.Log with Reveal, writes texts itself.)
type Relay struct {
	// Store, Mail, SMS and Log are required.
	Store *store.Store
	Mail  mailer.Sender
	SMS   sms.Sender
	Log   *slog.Logger
	// PollInterval is how often due rows are looked for besides the
	// notifications; zero means DefaultPollInterval.
	PollInterval time.Duration
	// MaxAttempts is how many sends of one code are tried before it is
	// dropped; zero means DefaultMaxAttempts.
	MaxAttempts int
	// BatchSize is how many rows one transaction claims; zero means
	// DefaultBatchSize.
	BatchSize int
	// SendTimeout bounds one delivery; zero means DefaultSendTimeout.
	SendTimeout time.Duration
	// ListenRetry is the pause before the listener reconnects; zero means
	// DefaultListenRetry.
	ListenRetry time.Duration
	// Backoff is the delay before the next attempt after the n-th failed
	// one (n >= 1); nil means 30 s doubled for each failure, at most 5
	// minutes.
	Backoff func(n int) time.Duration
}

// Backoff is the default delay before the attempt after the n-th failure:
// 30 s, 1 min, 2 min, 4 min, then 5 min.
func Backoff(n int) time.Duration {
	d := 30 * time.Second << min(max(n-1, 0), 4)
	return min(d, 5*time.Minute)
}

// Run drains the outbox until ctx ends, then returns ctx's error. A
// transaction in progress when ctx ends finishes the send in flight, leaves
// the rest of its rows for later, and commits.
func (r *Relay) Run(ctx context.Context) error {
	wake := make(chan struct{}, 1)
	notify := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { r.listen(ctx, notify) })

	tick := time.NewTicker(orDefault(r.PollInterval, DefaultPollInterval))
	defer tick.Stop()
	for {
		if _, err := r.Drain(ctx); err != nil && ctx.Err() == nil {
			r.Log.ErrorContext(ctx, "verification outbox: drain failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		case <-tick.C:
		}
	}
}

// listen calls notify after each LISTEN takes effect (for the backlog) and
// on every notification, reconnecting after ListenRetry until ctx ends.
func (r *Relay) listen(ctx context.Context, notify func()) {
	retry := orDefault(r.ListenRetry, DefaultListenRetry)
	for {
		err := r.listenOnce(ctx, notify)
		if ctx.Err() != nil {
			return
		}
		r.Log.WarnContext(ctx, "verification outbox: listener lost its connection; retrying", "error", err.Error(), "retry", retry.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}

func (r *Relay) listenOnce(ctx context.Context, notify func()) error {
	conn, err := r.Store.Listen(ctx, store.OutboxChannel)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	notify()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("wait for notification: %w", err)
		}
		notify()
	}
}

// Drain handles every due row, batch after batch, until a batch comes back
// short, and returns how many codes it sent.
func (r *Relay) Drain(ctx context.Context) (int, error) {
	size := orDefault(r.BatchSize, DefaultBatchSize)
	total := 0
	for ctx.Err() == nil {
		sent, claimed, err := r.batch(ctx, size)
		total += sent
		if err != nil || claimed < size {
			return total, err
		}
	}
	return total, nil
}

// batch runs one claiming transaction. Its database work does not end with
// ctx, so that a send already made is deleted (committed) rather than
// repeated; it is bounded instead by the time its sends may take.
func (r *Relay) batch(ctx context.Context, size int) (sent, claimed int, err error) {
	sendTimeout := orDefault(r.SendTimeout, DefaultSendTimeout)
	dbctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(size)*sendTimeout+time.Minute)
	defer cancel()
	err = r.Store.Tx(dbctx, func(q *store.Q) error {
		codes, err := q.ClaimOutboxCodes(dbctx, size)
		if err != nil {
			return err
		}
		claimed = len(codes)
		for _, c := range codes {
			if ctx.Err() != nil {
				return nil // stopping: the rest stay queued
			}
			ok, err := r.handle(dbctx, q, c, sendTimeout)
			if err != nil {
				return err
			}
			if ok {
				sent++
			}
		}
		return nil
	})
	if err != nil {
		return 0, claimed, fmt.Errorf("verification outbox batch: %w", err)
	}
	return sent, claimed, nil
}

// handle deals with one claimed row and reports whether it was sent. Only
// database failures are returned.
func (r *Relay) handle(ctx context.Context, q *store.Q, c store.OutboxCode, sendTimeout time.Duration) (bool, error) {
	attrs := []any{"outbox_id", c.ID, "user_id", c.UserID, "channel", c.Channel, "to", hint(c.Channel, c.Destination)}
	if c.Expired {
		r.Log.InfoContext(ctx, "verification code expired unsent; dropped", attrs...)
		return false, q.DeleteOutboxCode(ctx, c.ID)
	}
	sctx, cancel := context.WithTimeout(ctx, sendTimeout)
	sendErr := r.send(sctx, c)
	cancel()
	if sendErr == nil {
		r.Log.InfoContext(ctx, "verification code sent", attrs...)
		return true, q.DeleteOutboxCode(ctx, c.ID)
	}
	attempts := c.Attempts + 1
	// A provider may quote the message back in its error.
	msg := strings.ReplaceAll(sendErr.Error(), c.Code, "[code]")
	if len(msg) > maxErrorLen {
		msg = strings.ToValidUTF8(msg[:maxErrorLen], "")
	}
	attrs = append(attrs, "attempts", attempts, "error", msg)
	if attempts >= orDefault(r.MaxAttempts, DefaultMaxAttempts) {
		r.Log.ErrorContext(ctx, "verification code not delivered; giving up", attrs...)
		return false, q.DeleteOutboxCode(ctx, c.ID)
	}
	backoff := r.Backoff
	if backoff == nil {
		backoff = Backoff
	}
	wait := backoff(attempts)
	r.Log.WarnContext(ctx, "verification code not delivered; will retry", append(attrs, "retry_in", wait.String())...)
	return false, q.DeferOutboxCode(ctx, c.ID, attempts, msg, wait)
}

// errChannel is a row whose channel is neither email nor phone (the table's
// check constraint rules it out).
var errChannel = errors.New("unknown channel")

func (r *Relay) send(ctx context.Context, c store.OutboxCode) error {
	minutes := Minutes(c.Remaining)
	switch c.Channel {
	case "email":
		m, err := mailer.Render(mailer.KindVerificationCode, c.Destination, mailer.Data{Token: c.Code, ExpiresInMinutes: minutes})
		if err != nil {
			return err
		}
		return r.Mail.Send(ctx, m)
	case "phone":
		return r.SMS.Send(ctx, PhoneNumber(c.Destination), Text(c.Code, minutes), "sms")
	}
	return fmt.Errorf("%w %q", errChannel, c.Channel)
}

// Minutes is the time left on a code in whole minutes, rounded to the
// nearest and at least one: a code queued with ten minutes and sent a
// moment later still "expires in 10 minutes".
func Minutes(remaining time.Duration) int {
	return max(int(math.Round(remaining.Minutes())), 1)
}

// PhoneNumber strips the spacing people type into a number (spaces, dashes,
// dots, brackets), keeping a leading +.
func PhoneNumber(s string) string {
	return strings.NewReplacer(" ", "", "-", "", ".", "", "(", "", ")", "").Replace(strings.TrimSpace(s))
}

// hint names a destination without giving it away: an email's domain, a
// number's last three digits.
func hint(channel, dest string) string {
	if channel == "email" {
		return dest[strings.LastIndexByte(dest, '@')+1:]
	}
	if dest = PhoneNumber(dest); len(dest) > 3 {
		return "…" + dest[len(dest)-3:]
	}
	return "…"
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
