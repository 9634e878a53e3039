package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/payments/internal/checkout"
	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/darajasim"
	"github.com/kejanest/kejanest/payments/internal/httpapi"
	"github.com/kejanest/kejanest/payments/internal/store"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// env is one test database, the payments service on a real listener (so
// the simulator can post callbacks to it), and a Daraja simulator.
type env struct {
	super *pgxpool.Pool
	url   string // the payments service
	sim   *darajasim.Server
	// simURL is the simulator's base URL.
	simURL string
	svc    *checkout.Service
	// st is the store, for setting up purchases without Daraja.
	st *store.Store
}

type envOptions struct {
	// callbackDelay is the simulated payer's delay (default 50 ms).
	callbackDelay time.Duration
	// daraja changes the client's configuration (a wrong passkey, an
	// unreachable base URL).
	daraja func(*daraja.Config)
	// pushDelay holds the simulator's answer to an STK push this long
	// (it still takes the push, and its payer still decides).
	pushDelay time.Duration
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	e := &env{super: newPool(t, db.URL, 4)}
	api := newPool(t, db.URLAs("authenticator"), 20)
	e.st = store.New(api)

	if o.callbackDelay == 0 {
		o.callbackDelay = 50 * time.Millisecond
	}
	e.sim = darajasim.New(darajasim.Config{CallbackDelay: o.callbackDelay})
	var simHandler http.Handler = e.sim
	if o.pushDelay > 0 {
		simHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == daraja.PathPush {
				rec := httptest.NewRecorder()
				e.sim.ServeHTTP(rec, r)
				time.Sleep(o.pushDelay)
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
			e.sim.ServeHTTP(w, r)
		})
	}
	simSrv := httptest.NewServer(simHandler)
	t.Cleanup(func() { e.sim.Close(); simSrv.Close() })
	e.simURL = simSrv.URL

	dcfg := daraja.Config{BaseURL: simSrv.URL, ConsumerKey: darajasim.DevConsumerKey, ConsumerSecret: darajasim.DevConsumerSecret,
		ShortCode: darajasim.SandboxShortCode, PassKey: darajasim.SandboxPassKey, HTTP: &http.Client{Timeout: 5 * time.Second}}
	if o.daraja != nil {
		o.daraja(&dcfg)
	}
	client, err := daraja.New(dcfg)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if os.Getenv("PAYMENTS_TEST_LOG") != "" {
		log = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.url = "http://" + ln.Addr().String()
	e.svc = &checkout.Service{Store: e.st, Daraja: client, CallbackURL: e.url + "/" + httpapi.FunctionCallback,
		AccountReference: "KejaNest", Description: "Nestcoins", Log: log}
	verifier, err := jwtverify.New(jwtverify.Options{Secret: devkeys.JWTSecret})
	if err != nil {
		t.Fatal(err)
	}
	app := httpapi.New(httpapi.Deps{Log: log, Checkout: e.svc, Verifier: verifier})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = fiberserve.ServeListener(ctx, app, ln, log) }()
	t.Cleanup(func() { cancel(); <-done })
	return e
}

func newPool(t testing.TB, url string, size int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = size
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// user is a signed-in buyer.
type user struct {
	ID    string
	Token string
}

func (e *env) newUser(t testing.TB) user {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	email := "buyer." + hex.EncodeToString(b) + "@kejanest.test"
	var id string
	if err := e.super.QueryRow(context.Background(),
		`insert into auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		 values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1,
		         '{"provider":"email","providers":["email"]}', '{"full_name":"Buyer"}', now(), now())
		 returning id::text`, email).Scan(&id); err != nil {
		t.Fatalf("create user: %v", err)
	}
	return user{ID: id, Token: sign(t, map[string]any{"sub": id, "role": "authenticated", "aud": "authenticated", "email": email,
		"exp": time.Now().Add(time.Hour).Unix()})}
}

func sign(t testing.TB, claims map[string]any) string {
	t.Helper()
	tok, err := jwtverify.SignHS256(claims, []byte(devkeys.JWTSecret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (e *env) packageID(t testing.TB, name string) string {
	t.Helper()
	var id string
	if err := e.super.QueryRow(context.Background(), `select id::text from public.nestcoin_packages where name = $1`, name).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// post sends a JSON body and returns the status and the decoded answer.
func (e *env) post(t testing.TB, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		raw, _ = json.Marshal(b)
	}
	req, err := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("POST %s: %d %q is not a JSON object", path, res.StatusCode, out)
	}
	return res.StatusCode, m
}

// purchase is a nestcoin_purchases row as the tests check it.
type purchase struct {
	Status, FailureCode, ResolvedVia, Reference, CheckoutRequestID string
	ResultCode                                                     *int
	AmountKES, Coins                                               int64
}

func (e *env) purchase(t testing.TB, id string) purchase {
	t.Helper()
	var p purchase
	if err := e.super.QueryRow(context.Background(), `select status, coalesce(failure_code, ''), coalesce(resolved_via, ''),
		coalesce(payment_reference, ''), coalesce(checkout_request_id, ''), result_code, amount_kes, coins
		from public.nestcoin_purchases where id = $1`, id).
		Scan(&p.Status, &p.FailureCode, &p.ResolvedVia, &p.Reference, &p.CheckoutRequestID, &p.ResultCode, &p.AmountKES, &p.Coins); err != nil {
		t.Fatalf("read purchase %s: %v", id, err)
	}
	return p
}

// settled waits until the purchase leaves pending.
func (e *env) settled(t testing.TB, id string) purchase {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		p := e.purchase(t, id)
		if p.Status != "pending" {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("purchase %s still pending", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// callbackAnswered waits until the simulator has recorded how its callback
// for checkoutID was answered. The purchase settles (and settled returns)
// when the callback handler commits, a moment before its answer reaches
// the simulator.
func (e *env) callbackAnswered(t testing.TB, checkoutID string) darajasim.Transaction {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tx, ok := e.sim.Transaction(checkoutID)
		if ok && tx.CallbackStatus != 0 || time.Now().After(deadline) {
			return tx
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) balance(t testing.TB, userID string) int64 {
	t.Helper()
	var n int64
	if err := e.super.QueryRow(context.Background(), `select balance from public.wallets where user_id = $1 and currency = 'nestcoins'`, userID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *env) count(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.super.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (e *env) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := e.super.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// checkLedger asserts that every currency sums to zero and every balance
// is its credits minus its debits.
func (e *env) checkLedger(t testing.TB) {
	t.Helper()
	if n := e.count(t, `select count(*) from (select currency from public.wallets group by currency having sum(balance) <> 0) x`); n != 0 {
		t.Errorf("%d currencies do not sum to zero", n)
	}
	if n := e.count(t, `select count(*) from public.wallets w
		where w.balance <> coalesce((select sum(amount) from public.wallet_transfers where credit_wallet_id = w.id), 0)
		                 - coalesce((select sum(amount) from public.wallet_transfers where debit_wallet_id = w.id), 0)`); n != 0 {
		t.Errorf("%d wallets differ from their ledger", n)
	}
	if n := e.count(t, `select count(*) from public.nestcoin_purchases p where p.status = 'paid'
		and (select count(*) from public.wallet_transfers x where x.idempotency_key = 'purchase:' || p.id and x.amount = p.coins) <> 1`); n != 0 {
		t.Errorf("%d paid purchases are not credited exactly once", n)
	}
	if n := e.count(t, `select count(*) from public.wallet_transfers x where x.kind = 'purchase'
		and not exists (select 1 from public.nestcoin_purchases p where x.idempotency_key = 'purchase:' || p.id and p.status = 'paid')`); n != 0 {
		t.Errorf("%d purchase credits without a paid purchase", n)
	}
}

// manual is a purchase set up without the simulator: created as the
// buyer, its checkout registered with a known secret and a made-up
// CheckoutRequestID, so a test writes the callbacks itself.
type manual struct {
	ID, Secret, CheckoutRequestID string
	AmountKES, Coins              int64
}

func (e *env) manualPurchase(t testing.TB, u user, pkg string) manual {
	t.Helper()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	hash := sha256.Sum256(secret)
	claims, _ := json.Marshal(map[string]any{"sub": u.ID, "role": "authenticated"})
	p, err := e.st.CreatePurchase(context.Background(), store.Caller{Role: "authenticated", Claims: claims}, e.packageID(t, pkg), "0708374149", hash[:])
	if err != nil {
		t.Fatal(err)
	}
	cid := "ws_CO_" + strings.ReplaceAll(p.ID, "-", "")[:20]
	if err := e.st.RecordPush(context.Background(), p.ID, cid, "1-1-1"); err != nil {
		t.Fatal(err)
	}
	return manual{ID: p.ID, Secret: base64.RawURLEncoding.EncodeToString(secret), CheckoutRequestID: cid, AmountKES: p.AmountKES, Coins: p.Coins}
}

// callbackPath is the CallBackURL's path and query for a purchase.
func callbackPath(purchaseID, secret string) string {
	q := url.Values{}
	q.Set("p", purchaseID)
	q.Set("s", secret)
	return "/" + httpapi.FunctionCallback + "?" + q.Encode()
}

// paidBody is Safaricom's success callback.
func paidBody(checkoutID, receipt string, amount int64) string {
	return `{"Body":{"stkCallback":{"MerchantRequestID":"1-1-1","CheckoutRequestID":"` + checkoutID + `","ResultCode":0,
	"ResultDesc":"The service request is processed successfully.","CallbackMetadata":{"Item":[{"Name":"Amount","Value":` +
		jsonInt(amount) + `.00},{"Name":"MpesaReceiptNumber","Value":"` + receipt + `"},{"Name":"TransactionDate","Value":20260101120000},
	{"Name":"PhoneNumber","Value":254708374149}]}}}}`
}

// failedBody is Safaricom's callback of a failed payment.
func failedBody(checkoutID string, code int, desc string) string {
	return `{"Body":{"stkCallback":{"MerchantRequestID":"1-1-1","CheckoutRequestID":"` + checkoutID + `","ResultCode":` +
		jsonInt(int64(code)) + `,"ResultDesc":"` + desc + `"}}}`
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
