package outbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/authsvc/internal/devmail"
	"github.com/kejanest/kejanest/authsvc/internal/mailer"
	"github.com/kejanest/kejanest/authsvc/internal/store"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fakeSMS records texts per number; it fails the first fail sends and
// takes delay over each.
type fakeSMS struct {
	mu    sync.Mutex
	fail  int
	delay time.Duration
	texts map[string][]string
}

func (f *fakeSMS) Send(ctx context.Context, phone, text, channel string) error {
	if channel != "sms" {
		return fmt.Errorf("channel %q", channel)
	}
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail > 0 {
		f.fail--
		return errors.New("provider: status 503: try later (" + text + ")")
	}
	if f.texts == nil {
		f.texts = map[string][]string{}
	}
	f.texts[phone] = append(f.texts[phone], text)
	return nil
}

func (f *fakeSMS) to(phone string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.texts[phone]...)
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is one test's database, mailbox (devmail behind the real SMTP
// mailer), SMS double and log.
type harness struct {
	t     *testing.T
	db    *pgtest.DB
	admin *pgxpool.Pool // superuser: inserts rows as request_verification_code would
	box   *devmail.Mailbox
	mail  *mailer.SMTP
	sms   *fakeSMS
	log   *syncBuffer
	codes []string // every code inserted, for the log check
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	admin, err := pgxpool.New(context.Background(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	box := devmail.NewMailbox(1000)
	go box.ServeSMTP(ctx, ln, slog.New(slog.DiscardHandler))
	h := &harness{t: t, db: db, admin: admin, box: box, sms: &fakeSMS{}, log: &syncBuffer{},
		mail: &mailer.SMTP{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, From: "admin@kejanest.local", FromName: "KejaNest"}}
	t.Cleanup(func() {
		logs := h.log.String()
		for _, c := range leakedCodes(logs, h.codes) {
			t.Errorf("the log holds code %s:\n%s", c, logs)
		}
	})
	return h
}

// leakedCodes returns the codes that some value of the JSON log lines
// holds. A line's time and values that are whole UUIDs are left out: a
// six-digit code turns up in their digits by chance (a timestamp's
// fraction ".20001327" holds 200013), which says nothing about a leak.
// A line that is not JSON is searched whole.
func leakedCodes(logs string, codes []string) []string {
	var values []string
	for line := range strings.Lines(logs) {
		var attrs map[string]any
		if json.Unmarshal([]byte(line), &attrs) != nil {
			values = append(values, line)
			continue
		}
		for k, v := range attrs {
			s, ok := v.(string)
			if !ok {
				b, _ := json.Marshal(v)
				s = string(b)
			}
			if k == "time" || uuid.Validate(s) == nil && len(s) == 36 {
				continue
			}
			values = append(values, s)
		}
	}
	var leaked []string
	for _, c := range codes {
		if slices.ContainsFunc(values, func(v string) bool { return strings.Contains(v, c) }) {
			leaked = append(leaked, c)
		}
	}
	return leaked
}

func TestLeakedCodes(t *testing.T) {
	t.Parallel()
	logs := `{"time":"2026-11-26T23:44:23.20001327Z","msg":"verification code sent","user_id":"4796f438-4a48-4eeb-8f06-f3d631200013","to":"example.com"}
{"time":"2026-11-26T23:44:23.3Z","msg":"sent","attempts":2,"body":"your code is 482913"}
not json 777111
`
	got := leakedCodes(logs, []string{"200013", "482913", "777111", "999999"})
	if want := []string{"482913", "777111"}; !slices.Equal(got, want) {
		t.Errorf("leakedCodes = %v, want %v", got, want)
	}
}

// relay returns a Relay on its own pool, as another authsvc replica would
// have, logging to the harness's log.
func (h *harness) relay(r Relay) *Relay {
	h.t.Helper()
	pool, err := pgxpool.New(context.Background(), h.db.URLAs("supabase_auth_admin"))
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(pool.Close)
	r.Store = store.New(pool)
	if r.Mail == nil {
		r.Mail = h.mail
	}
	if r.SMS == nil {
		r.SMS = h.sms
	}
	r.Log = slog.New(slog.NewJSONHandler(h.log, nil))
	return &r
}

// queue inserts an outbox row for a new user, expiring in expiresIn, and
// returns its id; notify also signals, as request_verification_code does.
func (h *harness) queue(channel, dest, code string, expiresIn time.Duration, notify bool) int64 {
	h.t.Helper()
	ctx := context.Background()
	var id int64
	err := h.admin.QueryRow(ctx, `with u as (
			insert into auth.users (id, aud, role, email) values (gen_random_uuid(), 'authenticated', 'authenticated', $1) returning id)
		insert into app_private.verification_outbox (user_id, channel, destination, code, expires_at)
		select u.id, $2, $3, $4, now() + make_interval(secs => $5) from u returning id`,
		fmt.Sprintf("user-%s@example.com", code), channel, dest, code, expiresIn.Seconds()).Scan(&id)
	if err != nil {
		h.t.Fatalf("queue: %v", err)
	}
	h.codes = append(h.codes, code)
	if notify {
		h.exec(`select pg_notify('verification_outbox', $1::bigint::text)`, id)
	}
	return id
}

func (h *harness) exec(sql string, args ...any) {
	h.t.Helper()
	if _, err := h.admin.Exec(context.Background(), sql, args...); err != nil {
		h.t.Fatalf("%s: %v", sql, err)
	}
}

func (h *harness) left() int {
	h.t.Helper()
	var n int
	if err := h.admin.QueryRow(context.Background(), `select count(*) from app_private.verification_outbox`).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// mails returns the HTML of each mail to addr, checking the subject.
func (h *harness) mails(addr string) []string {
	h.t.Helper()
	var out []string
	for _, m := range h.box.List(addr) {
		if m.Subject != "Your KejaNest verification code" {
			h.t.Errorf("mail to %s: subject %q", addr, m.Subject)
		}
		out = append(out, strings.TrimSpace(m.HTML))
	}
	return out
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDrainSendsAndDeletes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		name      string
		channel   string
		dest      string
		code      string
		expiresIn time.Duration
		// wantTo is where it must arrive (a mailbox or a number), "" when
		// it must not be sent; wantText is the SMS or the mail's body.
		wantTo   string
		wantText string
	}{
		{name: "email", channel: "email", dest: "amina@example.com", code: "123456", expiresIn: 10 * time.Minute,
			wantTo: "amina@example.com", wantText: "<p>Your KejaNest verification code is 123456. It expires in 10 minutes.</p>"},
		{name: "phone", channel: "phone", dest: "+254700000001", code: "234567", expiresIn: 10 * time.Minute,
			wantTo: "+254700000001", wantText: "Your KejaNest verification code is 234567. It expires in 10 minutes."},
		{name: "phone as typed, minutes left", channel: "phone", dest: "0712 345-678", code: "345678", expiresIn: 3 * time.Minute,
			wantTo: "0712345678", wantText: "Your KejaNest verification code is 345678. It expires in 3 minutes."},
		{name: "less than a minute left", channel: "email", dest: "baraka@example.com", code: "456789", expiresIn: 40 * time.Second,
			wantTo: "baraka@example.com", wantText: "<p>Your KejaNest verification code is 456789. It expires in 1 minute.</p>"},
		{name: "expired email", channel: "email", dest: "late@example.com", code: "567890", expiresIn: -time.Second},
		{name: "expired phone", channel: "phone", dest: "+254700000009", code: "678901", expiresIn: -time.Minute},
	}
	for _, tt := range tests {
		h.queue(tt.channel, tt.dest, tt.code, tt.expiresIn, false)
	}
	r := h.relay(Relay{BatchSize: 2})
	sent, err := r.Drain(context.Background())
	if err != nil || sent != 4 {
		t.Fatalf("Drain = %d, %v; want 4 sent", sent, err)
	}
	if n := h.left(); n != 0 {
		t.Errorf("%d rows left in the outbox, want none", n)
	}
	if sent, err := r.Drain(context.Background()); sent != 0 || err != nil {
		t.Errorf("second Drain = %d, %v; want nothing", sent, err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			if tt.channel == "email" {
				got = h.mails(tt.dest)
			} else {
				got = h.sms.to(PhoneNumber(tt.dest))
			}
			if tt.wantTo == "" {
				if len(got) != 0 {
					t.Errorf("expired code sent: %q", got)
				}
				return
			}
			if len(got) != 1 || got[0] != tt.wantText {
				t.Errorf("sent %q, want once %q", got, tt.wantText)
			}
		})
	}
	if logs := h.log.String(); !strings.Contains(logs, "expired unsent") || !strings.Contains(logs, `"to":"example.com"`) {
		t.Errorf("log: %s", logs)
	}
}

// TestFailedSendRetried: a failed send stays queued with its error and a
// later attempt, goes out once that falls due, and is dropped after
// MaxAttempts.
func TestFailedSendRetried(t *testing.T) {
	t.Parallel()
	// deadSMTP is a port with nothing listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	tests := []struct {
		name    string
		channel string
		dest    string
		// broken is a relay whose sender fails; fixed one that works.
		broken func(h *harness) Relay
	}{
		{name: "email, SMTP down", channel: "email", dest: "retry@example.com",
			broken: func(h *harness) Relay {
				return Relay{Mail: &mailer.SMTP{Host: "127.0.0.1", Port: deadPort, From: "admin@kejanest.local"}, MaxAttempts: 2}
			}},
		{name: "phone, provider failing", channel: "phone", dest: "+254700000002",
			broken: func(h *harness) Relay { return Relay{SMS: &fakeSMS{fail: 100}, MaxAttempts: 2} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			ctx := context.Background()
			broken, fixed := h.relay(tt.broken(h)), h.relay(Relay{})
			delivered := func() int {
				if tt.channel == "email" {
					return len(h.mails(tt.dest))
				}
				return len(h.sms.to(tt.dest))
			}

			id := h.queue(tt.channel, tt.dest, "111222", 10*time.Minute, false)
			if sent, err := broken.Drain(ctx); sent != 0 || err != nil {
				t.Fatalf("failing Drain = %d, %v", sent, err)
			}
			var (
				attempts   int
				lastError  string
				retryAfter time.Duration
			)
			err := h.admin.QueryRow(ctx, `select attempts, coalesce(last_error, ''), (extract(epoch from next_attempt_at - now()) * 1e9)::bigint
				from app_private.verification_outbox where id = $1`, id).Scan(&attempts, &lastError, &retryAfter)
			if err != nil {
				t.Fatal(err)
			}
			if attempts != 1 || lastError == "" || retryAfter < 10*time.Second || retryAfter > 31*time.Second {
				t.Fatalf("after a failure: attempts %d, last_error %q, next attempt in %s; want 1, the error, ~30s", attempts, lastError, retryAfter)
			}
			if strings.Contains(lastError, "111222") {
				t.Errorf("last_error holds the code: %q", lastError)
			}
			// Not due yet: a working sender leaves it alone.
			if sent, _ := fixed.Drain(ctx); sent != 0 || delivered() != 0 {
				t.Fatalf("retried before its time: %d sent", sent)
			}
			h.exec(`update app_private.verification_outbox set next_attempt_at = now() where id = $1`, id)
			if sent, err := fixed.Drain(ctx); sent != 1 || err != nil || delivered() != 1 || h.left() != 0 {
				t.Fatalf("retry: Drain = %d, %v; delivered %d, %d rows left", sent, err, delivered(), h.left())
			}

			// Given up after MaxAttempts (2) failures.
			id = h.queue(tt.channel, tt.dest, "333444", 10*time.Minute, false)
			broken.Drain(ctx)
			h.exec(`update app_private.verification_outbox set next_attempt_at = now() where id = $1`, id)
			broken.Drain(ctx)
			if h.left() != 0 || delivered() != 1 {
				t.Errorf("after the last attempt: %d rows left, %d delivered; want 0, 1", h.left(), delivered())
			}
			if logs := h.log.String(); !strings.Contains(logs, "giving up") || !strings.Contains(logs, `"attempts":2`) {
				t.Errorf("no give-up line: %s", logs)
			}
		})
	}
}

// TestRetryNeverOutlivesTheCode: a retry is never scheduled after the code
// expires, so an expired row always falls due and is dropped.
func TestRetryNeverOutlivesTheCode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	r := h.relay(Relay{SMS: &fakeSMS{fail: 1}, Backoff: func(int) time.Duration { return time.Hour }})
	id := h.queue("phone", "+254700000003", "555666", 3*time.Second, false)
	r.Drain(ctx)
	var (
		capped bool
		left   float64
	)
	if err := h.admin.QueryRow(ctx, `select next_attempt_at = expires_at, greatest(extract(epoch from expires_at - now()), 0)::float8
		from app_private.verification_outbox where id = $1`, id).Scan(&capped, &left); err != nil || !capped {
		t.Fatalf("next attempt at its expiry: %v, %v", capped, err)
	}
	time.Sleep(time.Duration(left*float64(time.Second)) + 100*time.Millisecond)
	if sent, err := h.relay(Relay{}).Drain(ctx); sent != 0 || err != nil || h.left() != 0 || len(h.sms.to("+254700000003")) != 0 {
		t.Errorf("Drain = %d, %v; %d rows left; want the expired row dropped unsent", sent, err, h.left())
	}
}

// TestLockedRowsAreSkipped: a row another sender holds is neither waited
// for nor sent; it goes out once released.
func TestLockedRowsAreSkipped(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	held := h.queue("email", "held@example.com", "777888", 10*time.Minute, false)
	h.queue("email", "free@example.com", "888999", 10*time.Minute, false)
	tx, err := h.admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `select 1 from app_private.verification_outbox where id = $1 for update`, held); err != nil {
		t.Fatal(err)
	}
	r := h.relay(Relay{})
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if sent, err := r.Drain(dctx); sent != 1 || err != nil || len(h.mails("free@example.com")) != 1 || len(h.mails("held@example.com")) != 0 {
		t.Fatalf("with a row held: Drain = %d, %v", sent, err)
	}
	tx.Rollback(ctx)
	if sent, err := r.Drain(ctx); sent != 1 || err != nil || len(h.mails("held@example.com")) != 1 {
		t.Fatalf("released: Drain = %d, %v", sent, err)
	}
}

// TestRunListens: Run sends the backlog when it starts and a notified code
// at once (the poll is an hour), also after its listening connection is
// cut, and returns when its context ends.
func TestRunListens(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.queue("email", "backlog@example.com", "100001", 10*time.Minute, false)
	r := h.relay(Relay{PollInterval: time.Hour, ListenRetry: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()

	waitFor(t, "the backlog", func() bool { return len(h.mails("backlog@example.com")) == 1 })
	h.queue("phone", "+254700000004", "100002", 10*time.Minute, true)
	waitFor(t, "the notified code", func() bool { return len(h.sms.to("+254700000004")) == 1 })

	// Cut the listener; it reconnects and drains what came meanwhile.
	listener := func() (pid int) {
		_ = h.admin.QueryRow(context.Background(), `select coalesce(max(pid), 0) from pg_stat_activity where datname = $1 and query ilike 'listen%'`, h.db.Name).Scan(&pid)
		return pid
	}
	var first int
	waitFor(t, "a listener", func() bool { first = listener(); return first != 0 })
	h.exec(`select pg_terminate_backend($1)`, first)
	h.queue("email", "meanwhile@example.com", "100003", 10*time.Minute, true)
	waitFor(t, "the code queued while reconnecting", func() bool { return len(h.mails("meanwhile@example.com")) == 1 })
	waitFor(t, "a new listener", func() bool { pid := listener(); return pid != 0 && pid != first })
	h.queue("email", "after@example.com", "100004", 10*time.Minute, true)
	waitFor(t, "a code notified after reconnecting", func() bool { return len(h.mails("after@example.com")) == 1 })

	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	if strings.Contains(h.log.String(), "drain failed") {
		t.Errorf("log: %s", h.log.String())
	}
}

// TestTwoRelaysSendEachCodeOnce: two replicas draining the same outbox at
// once send every code exactly once.
func TestTwoRelaysSendEachCodeOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.sms.delay = 2 * time.Millisecond
	relays := []*Relay{
		h.relay(Relay{BatchSize: 2, PollInterval: 50 * time.Millisecond}),
		h.relay(Relay{BatchSize: 3, PollInterval: 50 * time.Millisecond}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range relays {
		wg.Go(func() { _ = r.Run(ctx) })
	}
	const n = 30
	for i := range n {
		h.queue("email", fmt.Sprintf("once-%d@example.com", i), fmt.Sprintf("2%05d", i), 10*time.Minute, true)
		h.queue("phone", fmt.Sprintf("+2547100%05d", i), fmt.Sprintf("3%05d", i), 10*time.Minute, true)
	}
	waitFor(t, "an empty outbox", func() bool { return h.left() == 0 })
	cancel()
	wg.Wait()
	for i := range n {
		if got := h.mails(fmt.Sprintf("once-%d@example.com", i)); len(got) != 1 || !strings.Contains(got[0], fmt.Sprintf("2%05d", i)) {
			t.Errorf("mail %d: %q", i, got)
		}
		if got := h.sms.to(fmt.Sprintf("+2547100%05d", i)); len(got) != 1 || !strings.Contains(got[0], fmt.Sprintf("3%05d", i)) {
			t.Errorf("sms %d: %q", i, got)
		}
	}
	if got := len(h.box.List("")); got != n {
		t.Errorf("%d mails in all, want %d", got, n)
	}
}

func TestMinutesAndText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		left time.Duration
		want string
	}{
		{10 * time.Minute, "Your KejaNest verification code is 123456. It expires in 10 minutes."},
		{10*time.Minute - 200*time.Millisecond, "Your KejaNest verification code is 123456. It expires in 10 minutes."},
		{9*time.Minute + 20*time.Second, "Your KejaNest verification code is 123456. It expires in 9 minutes."},
		{50 * time.Second, "Your KejaNest verification code is 123456. It expires in 1 minute."},
		{time.Second, "Your KejaNest verification code is 123456. It expires in 1 minute."},
	}
	for _, tt := range tests {
		if got := Text("123456", Minutes(tt.left)); got != tt.want {
			t.Errorf("%s left: %q, want %q", tt.left, got, tt.want)
		}
	}
}
