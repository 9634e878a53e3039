package daraja_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/darajasim"
)

// simulator serves a darajasim behind a swappable handler and counts the
// token requests.
type simulator struct {
	srv    *httptest.Server
	sim    atomic.Pointer[darajasim.Server]
	tokens atomic.Int64
}

func newSimulator(t *testing.T, cfg darajasim.Config) *simulator {
	t.Helper()
	s := &simulator{}
	s.swap(t, cfg)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == daraja.PathOAuth {
			s.tokens.Add(1)
		}
		s.sim.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// swap replaces the simulator: its tokens are forgotten, as when Daraja
// revokes them.
func (s *simulator) swap(t *testing.T, cfg darajasim.Config) *darajasim.Server {
	t.Helper()
	sim := darajasim.New(cfg)
	t.Cleanup(sim.Close)
	s.sim.Store(sim)
	return sim
}

func client(t *testing.T, base string, mod func(*daraja.Config)) *daraja.Client {
	t.Helper()
	cfg := daraja.Config{BaseURL: base, ConsumerKey: darajasim.DevConsumerKey, ConsumerSecret: darajasim.DevConsumerSecret,
		ShortCode: darajasim.SandboxShortCode, PassKey: darajasim.SandboxPassKey}
	if mod != nil {
		mod(&cfg)
	}
	c, err := daraja.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func push(phone string, callback string) daraja.Push {
	return daraja.Push{Phone: phone, Amount: 500, CallbackURL: callback, AccountReference: "KejaNest", Description: "Nestcoins"}
}

func TestTokenIsSharedAndCached(t *testing.T) {
	t.Parallel()
	sim := newSimulator(t, darajasim.Config{TokenTTL: time.Hour})
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	c := client(t, sim.srv.URL, func(cfg *daraja.Config) { cfg.Now = func() time.Time { return time.Unix(0, now.Load()) } })

	var wg sync.WaitGroup
	tokens := make([]string, 20)
	for i := range tokens {
		wg.Go(func() {
			tok, err := c.Token(t.Context())
			if err != nil {
				t.Error(err)
			}
			tokens[i] = tok
		})
	}
	wg.Wait()
	if n := sim.tokens.Load(); n != 1 {
		t.Errorf("20 concurrent callers fetched %d tokens, want 1", n)
	}
	for _, tok := range tokens {
		if tok != tokens[0] || tok == "" {
			t.Fatalf("callers got different tokens: %q", tokens)
		}
	}
	now.Add(int64(58 * time.Minute)) // still more than a minute left
	if tok, _ := c.Token(t.Context()); tok != tokens[0] || sim.tokens.Load() != 1 {
		t.Error("a token with minutes left was fetched again")
	}
	now.Add(int64(time.Minute + time.Second)) // within the last minute
	if tok, _ := c.Token(t.Context()); tok == tokens[0] || sim.tokens.Load() != 2 {
		t.Error("a token about to expire was reused")
	}
}

func TestTokenWaitRespectsTheCallersContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		_, _ = io.WriteString(w, `{"access_token":"t","expires_in":"3599"}`)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := client(t, srv.URL, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Token(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
}

func TestDarajaErrors(t *testing.T) {
	t.Parallel()
	sim := newSimulator(t, darajasim.Config{CallbackDelay: time.Hour})
	tests := []struct {
		name     string
		mod      func(*daraja.Config)
		phone    string
		status   int
		code     string
		message  string
		callback string
	}{
		{name: "wrong consumer secret", mod: func(c *daraja.Config) { c.ConsumerSecret = "nope" }, phone: "254708374149",
			status: 400, code: daraja.CodeInvalidAuth, message: "Invalid Authentication passed"},
		{name: "wrong passkey", mod: func(c *daraja.Config) { c.PassKey = "0000" }, phone: "254708374149",
			status: 500, code: daraja.CodeInternalError, message: "Wrong credentials"},
		{name: "wrong shortcode", mod: func(c *daraja.Config) { c.ShortCode = "600000" }, phone: "254708374149",
			status: 400, code: daraja.CodeBadRequest, message: "Bad Request - Invalid BusinessShortCode"},
		{name: "landline", phone: "254201234567", status: 400, code: daraja.CodeBadRequest, message: "Bad Request - Invalid PartyA"},
		{name: "not a URL", phone: "254708374149", callback: "ftp://x", status: 400, code: daraja.CodeBadRequest, message: "Bad Request - Invalid CallBackURL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cb := tc.callback
			if cb == "" {
				cb = "https://example.test/functions/v1/mpesa-callback"
			}
			_, err := client(t, sim.srv.URL, tc.mod).STKPush(t.Context(), push(tc.phone, cb))
			var ae *daraja.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an *APIError", err)
			}
			if ae.Status != tc.status || ae.Code != tc.code || ae.Message != tc.message || ae.RequestID == "" {
				t.Errorf("got %d %s %q (request %q), want %d %s %q", ae.Status, ae.Code, ae.Message, ae.RequestID, tc.status, tc.code, tc.message)
			}
		})
	}
}

// A token Daraja stops accepting is replaced once, transparently.
func TestRevokedTokenIsRefetched(t *testing.T) {
	t.Parallel()
	sim := newSimulator(t, darajasim.Config{CallbackDelay: time.Hour})
	c := client(t, sim.srv.URL, nil)
	if _, err := c.STKPush(t.Context(), push("254708374149", "https://example.test/cb")); err != nil {
		t.Fatal(err)
	}
	sim.swap(t, darajasim.Config{CallbackDelay: time.Hour})
	res, err := c.STKPush(t.Context(), push("254708374149", "https://example.test/cb"))
	if err != nil {
		t.Fatalf("push after revocation: %v", err)
	}
	if res.CheckoutRequestID == "" || sim.tokens.Load() != 2 {
		t.Errorf("checkout %q after %d token fetches, want a checkout after 2", res.CheckoutRequestID, sim.tokens.Load())
	}
}

// Push, then the callback after the delay, and the query answers
// "processing" until the payer has decided.
func TestPushCallbackAndQuery(t *testing.T) {
	t.Parallel()
	got := make(chan []byte, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
		_, _ = io.WriteString(w, `{"ResultCode":0,"ResultDesc":"Accepted"}`)
	}))
	t.Cleanup(receiver.Close)
	sim := newSimulator(t, darajasim.Config{CallbackDelay: 300 * time.Millisecond})
	c := client(t, sim.srv.URL, nil)

	res, err := c.STKPush(t.Context(), push("254700000003", receiver.URL+"/cb?p=1&s=2"))
	if err != nil {
		t.Fatal(err)
	}
	if res.ResponseCode != "0" || res.MerchantRequestID == "" || res.CustomerMessage == "" {
		t.Errorf("push answer %+v", res)
	}
	if _, err := c.STKQuery(t.Context(), res.CheckoutRequestID); !errors.Is(err, daraja.ErrProcessing) {
		t.Errorf("query before the payer answered: %v, want ErrProcessing", err)
	}
	var body []byte
	select {
	case body = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no callback")
	}
	r, err := daraja.ParseCallback(body)
	if err != nil {
		t.Fatal(err)
	}
	if r.CheckoutRequestID != res.CheckoutRequestID || r.ResultCode != daraja.ResultInsufficientFunds {
		t.Errorf("callback %+v", r)
	}
	q, err := c.STKQuery(t.Context(), res.CheckoutRequestID)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := q.ResultCode.Int(); code != daraja.ResultInsufficientFunds || q.ResultDesc != "The balance is insufficient for the transaction" {
		t.Errorf("query answer %+v", q)
	}
	if _, err := c.STKQuery(t.Context(), "ws_CO_unknown"); err == nil {
		t.Error("query of an unknown checkout succeeded")
	}
	// The receiver hands over the body before it answers, so the simulator
	// records the callback's status a moment after the test has the body.
	deadline := time.Now().Add(10 * time.Second)
	tx, ok := sim.sim.Load().Transaction(res.CheckoutRequestID)
	for ok && tx.CallbackStatus == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		tx, ok = sim.sim.Load().Transaction(res.CheckoutRequestID)
	}
	if !ok || tx.CallbackStatus != http.StatusOK || tx.Amount != 500 || tx.Phone != "254700000003" {
		t.Errorf("simulator recorded %+v", tx)
	}
}

func TestSimulatorPaysWithAReceipt(t *testing.T) {
	t.Parallel()
	got := make(chan []byte, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	t.Cleanup(receiver.Close)
	sim := newSimulator(t, darajasim.Config{CallbackDelay: 10 * time.Millisecond})
	res, err := client(t, sim.srv.URL, nil).STKPush(t.Context(), push("254708374149", receiver.URL))
	if err != nil {
		t.Fatal(err)
	}
	r, err := daraja.ParseCallback(<-got)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := sim.sim.Load().Transaction(res.CheckoutRequestID)
	if r.ResultCode != 0 || r.Receipt != tx.Receipt || len(r.Receipt) != 10 || !r.AmountOK || r.Amount != 500 || r.Phone != "254708374149" {
		t.Errorf("paid callback %+v (simulator %+v)", r, tx)
	}
}
