package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kejanest/kejanest/payments/internal/checkout"
	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/darajasim"
	"github.com/kejanest/kejanest/payments/internal/store"
	"github.com/kejanest/kejanest/platform/devkeys"
)

// A buyer pays with each of the simulator's outcomes: the STK push goes
// out, Safaricom's callback comes back, and the purchase settles with the
// right status, reason and coins.
func TestBuyWithEachResultCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	tests := []struct {
		phone       string
		status      string
		resultCode  int
		failureCode string
	}{
		{"0708374149", "paid", 0, ""},
		{"+254 700 000 001", "failed", daraja.ResultCancelled, "cancelled"},
		{"0700000002", "failed", daraja.ResultUnreachable, "timeout"},
		{"254700000003", "failed", daraja.ResultInsufficientFunds, "insufficient_funds"},
		{"0700-000-004", "failed", daraja.ResultWrongPIN, "wrong_pin"},
	}
	for _, tc := range tests {
		t.Run(tc.phone, func(t *testing.T) {
			t.Parallel()
			u := e.newUser(t)
			status, body := e.post(t, "/mpesa-stk-push", u.Token, map[string]any{"package_id": e.packageID(t, "Side Hustle"), "phone": tc.phone})
			if status != http.StatusOK {
				t.Fatalf("stk push: %d %v", status, body)
			}
			id, _ := body["purchase_id"].(string)
			if body["status"] != "pending" || body["checkout_request_id"] == "" || body["customer_message"] != "Success. Request accepted for processing" ||
				body["amount_kes"] != float64(500) || body["coins"] != float64(275) {
				t.Errorf("stk push answer %v", body)
			}
			p := e.settled(t, id)
			if p.Status != tc.status || p.FailureCode != tc.failureCode || p.ResultCode == nil || *p.ResultCode != tc.resultCode || p.ResolvedVia != "callback" {
				t.Errorf("settled as %+v (result %v), want %s/%s/%d via callback", p, p.ResultCode, tc.status, tc.failureCode, tc.resultCode)
			}
			if p.CheckoutRequestID != body["checkout_request_id"] {
				t.Errorf("checkout id %q, push answered %v", p.CheckoutRequestID, body["checkout_request_id"])
			}
			want := int64(0)
			if tc.status == "paid" {
				want = 275
				tx := e.callbackAnswered(t, p.CheckoutRequestID)
				if p.Reference != tx.Receipt || tx.CallbackStatus != http.StatusOK {
					t.Errorf("reference %q, receipt %q, callback answered %d", p.Reference, tx.Receipt, tx.CallbackStatus)
				}
			}
			if got := e.balance(t, u.ID); got != want {
				t.Errorf("balance %d, want %d", got, want)
			}
		})
	}
	t.Cleanup(func() { e.checkLedger(t) })
}

func TestSTKPushRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	u := e.newUser(t)
	pkg := e.packageID(t, "Starter Pack")
	expired := sign(t, map[string]any{"sub": u.ID, "role": "authenticated", "exp": time.Now().Add(-time.Hour).Unix()})
	tests := []struct {
		name   string
		token  string
		body   any
		status int
		code   any
	}{
		{"no authorization", "", map[string]any{"package_id": pkg}, 401, float64(401)},
		{"the anon key", devkeys.AnonKey, map[string]any{"package_id": pkg}, 401, float64(401)},
		{"the service key", devkeys.ServiceRoleKey, map[string]any{"package_id": pkg}, 401, float64(401)},
		{"a forged token", u.Token + "x", map[string]any{"package_id": pkg}, 401, float64(401)},
		{"an expired token", expired, map[string]any{"package_id": pkg}, 401, float64(401)},
		{"not JSON", u.Token, "package_id=1", 400, "invalid_request"},
		{"no package", u.Token, map[string]any{"phone": "0712345678"}, 400, "invalid_request"},
		{"package not a uuid", u.Token, map[string]any{"package_id": "starter"}, 400, "invalid_request"},
		{"unknown package", u.Token, map[string]any{"package_id": "00000000-0000-4000-8000-000000000000", "phone": "0712345678"}, 404, "package_not_found"},
		{"landline", u.Token, map[string]any{"package_id": pkg, "phone": "020 123 4567"}, 400, "invalid_phone"},
		{"no phone and none on the profile", u.Token, map[string]any{"package_id": pkg}, 400, "invalid_phone"},
	}
	// A group: its parallel subtests finish before the profile changes below.
	t.Run("refused", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				status, body := e.post(t, "/mpesa-stk-push", tc.token, tc.body)
				if status != tc.status || body["code"] != tc.code || body["message"] == "" {
					t.Errorf("got %d %v, want %d code %v", status, body, tc.status, tc.code)
				}
			})
		}
		t.Run("relay messages", func(t *testing.T) {
			t.Parallel()
			if _, body := e.post(t, "/mpesa-stk-push", "", map[string]any{}); body["message"] != "Missing authorization header" {
				t.Errorf("no header: %v", body)
			}
			if _, body := e.post(t, "/mpesa-stk-push", "not.a.jwt", map[string]any{}); body["message"] != "Invalid JWT" {
				t.Errorf("bad token: %v", body)
			}
		})
		t.Run("unknown function", func(t *testing.T) {
			t.Parallel()
			if status, body := e.post(t, "/hello-world", u.Token, map[string]any{}); status != 404 || body["code"] != "NOT_FOUND" {
				t.Errorf("got %d %v", status, body)
			}
			res, err := http.Get(e.url + "/mpesa-stk-push")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("GET: %d", res.StatusCode)
			}
		})
	})
	// No refusal left a purchase behind.
	if n := e.count(t, `select count(*) from public.nestcoin_purchases`); n != 0 {
		t.Errorf("%d purchases created by refused requests", n)
	}
	// The profile's phone is used when the body has none.
	e.exec(t, `update public.profiles set phone_number = '0708374149' where id = $1`, u.ID)
	status, body := e.post(t, "/mpesa-stk-push", u.Token, map[string]any{"package_id": pkg})
	if status != 200 || body["phone"] != "254708374149" {
		t.Errorf("with the profile's phone: %d %v", status, body)
	}
}

// Daraja refusing the push, or not answering, fails the purchase with a
// clear answer to the buyer.
func TestSTKPushDarajaFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mod     func(*daraja.Config)
		code    string
		message string
	}{
		{"wrong passkey", func(c *daraja.Config) { c.PassKey = "wrong" }, "mpesa_rejected", "Wrong credentials"},
		// A refused OAuth token is our configuration, not the buyer's number:
		// the push was never sent.
		{"wrong consumer key", func(c *daraja.Config) { c.ConsumerKey = "wrong" }, "mpesa_unavailable", "M-Pesa could not be reached. Try again in a moment."},
		{"unreachable", func(c *daraja.Config) { c.BaseURL = "http://127.0.0.1:1" }, "mpesa_unavailable", "M-Pesa could not be reached. Try again in a moment."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{daraja: tc.mod})
			u := e.newUser(t)
			status, body := e.post(t, "/mpesa-stk-push", u.Token, map[string]any{"package_id": e.packageID(t, "Starter Pack"), "phone": "0708374149"})
			if status != http.StatusBadGateway || body["code"] != tc.code || body["message"] != tc.message || body["status"] != "failed" {
				t.Fatalf("got %d %v", status, body)
			}
			p := e.purchase(t, body["purchase_id"].(string))
			if p.Status != "failed" || p.FailureCode != "push_failed" || p.ResolvedVia != "push" {
				t.Errorf("purchase %+v", p)
			}
			e.checkLedger(t)
		})
	}
}

// A push Daraja takes but answers too late stays pending, so the payment
// the buyer then makes on the phone is credited by its callback (which
// names the CheckoutRequestID the service never heard). Before, it failed
// at once and the app said nothing was charged.
func TestSTKPushAnsweredTooLate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{pushDelay: 700 * time.Millisecond, callbackDelay: 1500 * time.Millisecond, daraja: func(c *daraja.Config) {
		c.HTTP = &http.Client{Timeout: 300 * time.Millisecond}
	}})
	u := e.newUser(t)
	status, body := e.post(t, "/mpesa-stk-push", u.Token, map[string]any{"package_id": e.packageID(t, "Hustle Boost"), "phone": "254708374149"})
	if status != 200 || body["status"] != "pending" || body["customer_message"] != checkout.UnansweredMessage {
		t.Fatalf("late push: %d %v, want 200 pending", status, body)
	}
	id := body["purchase_id"].(string)
	if p := e.purchase(t, id); p.Status != "pending" || p.CheckoutRequestID != "" {
		t.Fatalf("right after the late push: %+v", p)
	}
	deadline := time.Now().Add(10 * time.Second)
	for e.purchase(t, id).Status == "pending" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if p := e.purchase(t, id); p.Status != "paid" || p.ResolvedVia != "callback" || p.CheckoutRequestID == "" || e.balance(t, u.ID) != 105 {
		t.Errorf("after the payer paid: %+v, balance %d", p, e.balance(t, u.ID))
	}
	e.checkLedger(t)
}

// Forged callbacks are refused and change nothing; a replayed one is
// accepted and credits nothing more.
func TestCallbackForgeryAndReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	u, other := e.newUser(t), e.newUser(t)
	m := e.manualPurchase(t, u, "Side Hustle")
	theirs := e.manualPurchase(t, other, "Side Hustle")
	paid := paidBody(m.CheckoutRequestID, "TKA1B2C3D4", m.AmountKES)

	forged := []struct {
		name, path, body string
		status           int
	}{
		{"no secret", "/mpesa-callback?p=" + m.ID, paid, 403},
		{"no purchase", "/mpesa-callback?s=" + m.Secret, paid, 403},
		{"wrong secret", callbackPath(m.ID, theirs.Secret), paid, 403},
		{"secret not base64", callbackPath(m.ID, "!!!"), paid, 403},
		{"short secret", callbackPath(m.ID, m.Secret[:20]), paid, 403},
		{"another purchase's id", callbackPath(theirs.ID, m.Secret), paidBody(theirs.CheckoutRequestID, "TKA1B2C3D4", 500), 403},
		{"purchase id not a uuid", callbackPath("1 or 1=1", m.Secret), paid, 403},
		{"unknown purchase", callbackPath("00000000-0000-4000-8000-000000000000", m.Secret), paid, 403},
		{"another checkout id", callbackPath(m.ID, m.Secret), paidBody(theirs.CheckoutRequestID, "TKA1B2C3D4", 500), 403},
		{"not Safaricom's body", callbackPath(m.ID, m.Secret), `{"ResultCode":0}`, 400},
		{"paid without receipt", callbackPath(m.ID, m.Secret), failedBody(m.CheckoutRequestID, 0, "ok"), 400},
	}
	for _, tc := range forged {
		status, body := e.post(t, tc.path, "", tc.body)
		if status != tc.status || body["ResultCode"] != float64(1) {
			t.Errorf("%s: got %d %v, want %d ResultCode 1", tc.name, status, body, tc.status)
		}
	}
	if got := e.balance(t, u.ID) + e.balance(t, other.ID); got != 0 {
		t.Fatalf("forged callbacks credited %d", got)
	}
	if p := e.purchase(t, m.ID); p.Status != "pending" {
		t.Fatalf("a forged callback settled the purchase: %+v", p)
	}

	// The genuine callback, then replays of every kind.
	for i, tc := range []struct{ name, body string }{
		{"genuine", paid},
		{"replayed", paid},
		{"replayed with another receipt", paidBody(m.CheckoutRequestID, "TKZZZZZZZZ", m.AmountKES)},
		{"a failure after the payment", failedBody(m.CheckoutRequestID, daraja.ResultCancelled, "Request cancelled by user")},
	} {
		status, body := e.post(t, callbackPath(m.ID, m.Secret), "", tc.body)
		if status != 200 || body["ResultCode"] != float64(0) || body["ResultDesc"] != "Accepted" {
			t.Errorf("%s: got %d %v", tc.name, status, body)
		}
		p := e.purchase(t, m.ID)
		if p.Status != "paid" || p.Reference != "TKA1B2C3D4" || e.balance(t, u.ID) != 275 {
			t.Fatalf("after callback %d (%s): %+v, balance %d", i, tc.name, p, e.balance(t, u.ID))
		}
	}
	// The same receipt cannot pay a second purchase.
	status, _ := e.post(t, callbackPath(theirs.ID, theirs.Secret), "", paidBody(theirs.CheckoutRequestID, "TKA1B2C3D4", 500))
	if status == 200 && e.balance(t, other.ID) != 0 {
		t.Errorf("a receipt paid two purchases")
	}
	e.checkLedger(t)
}

// An authentic callback whose amount is not the price credits nothing and
// fails the purchase for review.
func TestCallbackAmountMismatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	u := e.newUser(t)
	m := e.manualPurchase(t, u, "Side Hustle")
	for _, body := range []string{
		paidBody(m.CheckoutRequestID, "TKB1B2C3D4", 1),
		paidBody(m.CheckoutRequestID, "TKB1B2C3D4", m.AmountKES), // a late correct one cannot undo it
	} {
		if status, answer := e.post(t, callbackPath(m.ID, m.Secret), "", body); status != 200 {
			t.Errorf("got %d %v", status, answer)
		}
	}
	if p := e.purchase(t, m.ID); p.Status != "failed" || p.FailureCode != "amount_mismatch" || e.balance(t, u.ID) != 0 {
		t.Errorf("purchase %+v, balance %d", p, e.balance(t, u.ID))
	}
	e.checkLedger(t)
}

// Fifty copies of one callback at once credit the coins once.
func TestConcurrentCallbacksCreditOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	u := e.newUser(t)
	m := e.manualPurchase(t, u, "Market Hustler")
	body := paidBody(m.CheckoutRequestID, "TKC1B2C3D4", m.AmountKES)
	const n = 50
	var wg sync.WaitGroup
	statuses := make([]int, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			statuses[i], _ = e.post(t, callbackPath(m.ID, m.Secret), "", body)
		})
	}
	close(start)
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Errorf("callback %d answered %d", i, s)
		}
	}
	if got := e.balance(t, u.ID); got != m.Coins {
		t.Errorf("balance %d after %d callbacks, want %d", got, n, m.Coins)
	}
	if c := e.count(t, `select count(*) from public.wallet_transfers where idempotency_key = 'purchase:' || $1::text`, m.ID); c != 1 {
		t.Errorf("%d credits", c)
	}
	e.checkLedger(t)
}

// The lost-callback sweep, against the simulator: a payment whose callback
// was lost is credited from the STK query, a lost cancellation fails, a
// prompt nobody answers and a push never recorded expire, and replicas
// never sweep at once.
func TestLostCallbackSweep(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	start := func(phone string) (user, string) {
		u := e.newUser(t)
		status, body := e.post(t, "/mpesa-stk-push", u.Token, map[string]any{"package_id": e.packageID(t, "Hustle Boost"), "phone": phone})
		if status != 200 {
			t.Fatalf("push to %s: %d %v", phone, status, body)
		}
		return u, body["purchase_id"].(string)
	}
	paidU, paid := start("254700000005")           // pays, callback lost
	cancelledU, cancelled := start("254700000006") // cancels, callback lost
	neverU, never := start("254700000009")         // never answers
	unpushedU := e.newUser(t)
	unpushed := e.manualPurchase(t, unpushedU, "Hustle Boost")
	e.exec(t, `update public.nestcoin_purchases set checkout_request_id = null, stk_sent_at = null where id = $1`, unpushed.ID)

	// Let the simulated payers decide (no callback comes).
	time.Sleep(200 * time.Millisecond)
	fresh := checkout.SweepConfig{QueryAfter: time.Millisecond, ExpireAfter: time.Hour}
	st, err := e.svc.Sweep(ctx, fresh)
	if err != nil || !st.Ran || st.Seen != 4 || st.Credited != 1 || st.Failed != 1 || st.Expired != 0 || st.Left != 2 {
		t.Fatalf("first sweep %+v, %v", st, err)
	}
	if p := e.purchase(t, paid); p.Status != "paid" || p.ResolvedVia != "query" || p.Reference != p.CheckoutRequestID || e.balance(t, paidU.ID) != 105 {
		t.Errorf("paid by query: %+v, balance %d", p, e.balance(t, paidU.ID))
	}
	if p := e.purchase(t, cancelled); p.Status != "failed" || p.FailureCode != "cancelled" || p.ResolvedVia != "query" || e.balance(t, cancelledU.ID) != 0 {
		t.Errorf("cancelled by query: %+v", p)
	}
	for _, id := range []string{never, unpushed.ID} {
		if p := e.purchase(t, id); p.Status != "pending" {
			t.Errorf("%s settled before it expired: %+v", id, p)
		}
	}

	// An hour later the unanswered ones expire.
	e.exec(t, `update public.nestcoin_purchases set created_at = created_at - interval '2 hours',
		stk_sent_at = stk_sent_at - interval '2 hours' where status = 'pending'`)
	st, err = e.svc.Sweep(ctx, fresh)
	if err != nil || st.Seen != 2 || st.Expired != 2 {
		t.Fatalf("second sweep %+v, %v", st, err)
	}
	for _, id := range []string{never, unpushed.ID} {
		if p := e.purchase(t, id); p.Status != "failed" || p.FailureCode != "expired" || p.ResolvedVia != "expiry" {
			t.Errorf("expired: %+v", p)
		}
	}

	// Late callbacks: the receipt replaces the query's stand-in reference
	// without a second credit, and a payment after expiry is honoured.
	tx, _ := e.sim.Transaction(e.purchase(t, paid).CheckoutRequestID)
	if status, _ := e.post(t, callbackPathFor(t, e, tx.CheckoutRequestID), "", paidBody(tx.CheckoutRequestID, tx.Receipt, 200)); status != 200 {
		t.Errorf("late callback answered %d", status)
	}
	if p := e.purchase(t, paid); p.Reference != tx.Receipt || p.ResolvedVia != "callback" || e.balance(t, paidU.ID) != 105 {
		t.Errorf("after the late receipt: %+v, balance %d", p, e.balance(t, paidU.ID))
	}
	neverTx, _ := e.sim.Transaction(e.purchase(t, never).CheckoutRequestID)
	if status, _ := e.post(t, callbackPathFor(t, e, neverTx.CheckoutRequestID), "", paidBody(neverTx.CheckoutRequestID, "TKD1B2C3D4", 200)); status != 200 {
		t.Errorf("payment after expiry answered %d", status)
	}
	if p := e.purchase(t, never); p.Status != "paid" || p.FailureCode != "" || e.balance(t, neverU.ID) != 105 {
		t.Errorf("payment after expiry: %+v, balance %d", p, e.balance(t, neverU.ID))
	}

	// While one replica sweeps, another skips its tick.
	holding, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = e.st.WithSweepLock(ctx, func(context.Context) error { close(holding); <-release; return nil })
	}()
	<-holding
	st, err = e.svc.Sweep(ctx, fresh)
	close(release)
	if err != nil || st.Ran {
		t.Errorf("a second sweeper ran alongside the first: %+v, %v", st, err)
	}
	e.checkLedger(t)
}

// A sweep whose Daraja credentials are refused (a rotated consumer secret)
// writes nothing off: the payment may have been made, and the query is
// asked again once the credentials work. Before, the OAuth 400 read as
// "M-Pesa does not know this payment" and the paid purchase expired.
func TestSweepKeepsPurchasesWhenTheTokenIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	u := e.newUser(t)
	status, body := e.post(t, "/mpesa-stk-push", u.Token, map[string]any{"package_id": e.packageID(t, "Hustle Boost"), "phone": "254700000005"})
	if status != 200 {
		t.Fatalf("push: %d %v", status, body)
	}
	id := body["purchase_id"].(string)
	time.Sleep(200 * time.Millisecond) // the simulated payer pays; the callback is lost
	e.exec(t, `update public.nestcoin_purchases set created_at = created_at - interval '2 hours',
		stk_sent_at = stk_sent_at - interval '2 hours' where id = $1`, id)

	broken, err := daraja.New(daraja.Config{BaseURL: e.simURL, ConsumerKey: darajasim.DevConsumerKey, ConsumerSecret: "rotated",
		ShortCode: darajasim.SandboxShortCode, PassKey: darajasim.SandboxPassKey, HTTP: &http.Client{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	refused := *e.svc
	refused.Daraja = broken
	expired := checkout.SweepConfig{QueryAfter: time.Millisecond, ExpireAfter: time.Minute}
	st, err := refused.Sweep(ctx, expired)
	if err != nil || st.Seen != 1 || st.Expired != 0 || st.Left != 1 {
		t.Fatalf("sweep with refused credentials %+v, %v; want it left pending", st, err)
	}
	if p := e.purchase(t, id); p.Status != "pending" {
		t.Fatalf("after the refused sweep: %+v", p)
	}
	st, err = e.svc.Sweep(ctx, expired)
	if err != nil || st.Credited != 1 {
		t.Fatalf("sweep with working credentials %+v, %v", st, err)
	}
	if p := e.purchase(t, id); p.Status != "paid" || e.balance(t, u.ID) != 105 {
		t.Errorf("paid by query: %+v, balance %d", p, e.balance(t, u.ID))
	}
	e.checkLedger(t)
}

// Each purchase sends a PIN prompt, so a buyer has at most three waiting
// for confirmation at once (0046); the fourth is refused with 429 and sends
// nothing. A settled purchase frees its place, as does one older than the
// sweep's 15 minutes.
func TestPendingPurchaseLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	u := e.newUser(t)
	push := func() (int, map[string]any) {
		return e.post(t, "/mpesa-stk-push", u.Token, map[string]any{"package_id": e.packageID(t, "Starter Pack"), "phone": "254700000009"})
	}
	var ids []string
	for i := 0; i < 3; i++ {
		status, body := push()
		if status != 200 {
			t.Fatalf("push %d: %d %v", i+1, status, body)
		}
		ids = append(ids, body["purchase_id"].(string))
	}
	status, body := push()
	if status != http.StatusTooManyRequests || body["code"] != "too_many_pending" {
		t.Fatalf("fourth push: %d %v, want 429 too_many_pending", status, body)
	}
	if n := e.count(t, `select count(*) from public.nestcoin_purchases where user_id = $1`, u.ID); n != 3 {
		t.Errorf("%d purchases after the refusal, want 3", n)
	}
	// An old pending one no longer counts.
	e.exec(t, `update public.nestcoin_purchases set created_at = created_at - interval '16 minutes' where id = $1`, ids[0])
	if status, body := push(); status != 200 {
		t.Errorf("with one older than 15 minutes: %d %v", status, body)
	}
	// Another buyer is not held up.
	other := e.newUser(t)
	if status, body := e.post(t, "/mpesa-stk-push", other.Token, map[string]any{"package_id": e.packageID(t, "Starter Pack"), "phone": "254700000009"}); status != 200 {
		t.Errorf("another buyer: %d %v", status, body)
	}
}

// callbackPathFor finds the CallBackURL the simulator was given for a
// checkout (it carries the purchase's secret).
func callbackPathFor(t *testing.T, e *env, checkoutID string) string {
	t.Helper()
	tx, ok := e.sim.Transaction(checkoutID)
	if !ok {
		t.Fatalf("simulator has no %s", checkoutID)
	}
	return tx.CallbackURL[len(e.url):]
}

// BenchmarkCallback measures the callback path end to end (HTTP, parsing,
// the settlement transaction): a first callback that credits, and a
// replay that finds the purchase already paid.
func BenchmarkCallback(b *testing.B) {
	e := newEnv(b, envOptions{})
	u := e.newUser(b)
	run := 0
	b.Run("credit", func(b *testing.B) {
		run++ // the benchmark runs again with a larger b.N; receipts stay unique
		ms := make([]manual, b.N)
		for i := range ms {
			ms[i] = e.manualPurchase(b, u, "Starter Pack")
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i, m := range ms {
			if status, body := e.post(b, callbackPath(m.ID, m.Secret), "", paidBody(m.CheckoutRequestID, fmt.Sprintf("TK%02d%06d", run, i), m.AmountKES)); status != 200 {
				b.Fatalf("%d %v", status, body)
			}
		}
	})
	b.Run("replay", func(b *testing.B) {
		m := e.manualPurchase(b, u, "Starter Pack")
		body := paidBody(m.CheckoutRequestID, "TKREPLAY00", m.AmountKES)
		path := callbackPath(m.ID, m.Secret)
		e.post(b, path, "", body)
		b.ReportAllocs()
		for b.Loop() {
			if status, _ := e.post(b, path, "", body); status != 200 {
				b.Fatal(status)
			}
		}
	})
	// The same replay straight through the store, without HTTP and
	// parsing: what the service adds on top of the database's own work.
	b.Run("replay-store-only", func(b *testing.B) {
		m := e.manualPurchase(b, u, "Starter Pack")
		e.post(b, callbackPath(m.ID, m.Secret), "", paidBody(m.CheckoutRequestID, "TKREPLAY01", m.AmountKES))
		raw, _ := base64.RawURLEncoding.DecodeString(m.Secret)
		hash := sha256.Sum256(raw)
		amount := m.AmountKES
		st := store.Settlement{PurchaseID: m.ID, SecretHash: hash[:], CheckoutRequestID: m.CheckoutRequestID, ResultCode: 0,
			ResultDesc: "ok", Receipt: "TKREPLAY01", Amount: &amount}
		b.ReportAllocs()
		for b.Loop() {
			if out, err := e.st.SettleCallback(context.Background(), st); err != nil || out != "duplicate" {
				b.Fatal(out, err)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		body := []byte(paidBody("ws_CO_191220191020363925", "NLJ7RT61SV", 500))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := daraja.ParseCallback(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
