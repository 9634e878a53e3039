package tests

import (
	"crypto/sha256"
	"sync"
	"testing"
)

// The M-Pesa functions of 0025_mpesa_payments.sql, called as the payments
// service calls them: who may call what, the callback's checks, and the
// one state machine that credits each purchase at most once.

// checkout creates a pending purchase for u as u, and registers its callback
// secret's hash as the service, like the STK push does.
func (e *env) checkout(t *testing.T, u user, pkg, secret string) string {
	t.Helper()
	var id string
	e.value(t, u.caller(), &id, `select (public.create_nestcoin_purchase((select id from public.nestcoin_packages where name = $1), '0708374149')).id::text`, pkg)
	ok(t, e.run(Service(), `select public.begin_mpesa_checkout($1, $2)`, id, hashOf(secret)))
	return id
}

func hashOf(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

const settle = `select public.settle_mpesa_callback($1, $2, $3, 'm-1', $4, $5, $6, $7, $8)`

func TestMpesaFunctionsPrivileges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Mpesa Buyer")
	admin := e.newAdmin(t, "Mpesa Admin")
	id := e.checkout(t, u, "Side Hustle", "s1")
	calls := []struct{ name, sql string }{
		{"begin", `select public.begin_mpesa_checkout('` + id + `', decode(repeat('ab', 32), 'hex'))`},
		{"record", `select public.record_mpesa_stk_push('` + id + `', 'ws_CO_1', 'm-1')`},
		{"settle", `select public.settle_mpesa_callback('` + id + `', decode(repeat('ab', 32), 'hex'), 'ws_CO_1', null, 0, 'ok', null, 'TK1', 500)`},
		{"resolve", `select public.resolve_mpesa_purchase('` + id + `', 1032, 'Request cancelled by user', 'cancelled', 'query')`},
	}
	for _, c := range calls {
		for _, who := range []Caller{Anon(), u.caller(), admin.caller()} {
			if r := e.try(who, c.sql); r.Code != "42501" {
				t.Errorf("%s as %s: %s %q, want 42501", c.name, who.Role, r.Outcome(), r.Message)
			}
		}
	}
	// The secret's hash is out of every API role's reach.
	for _, who := range []Caller{Anon(), u.caller(), admin.caller(), Service()} {
		if r := e.try(who, `select callback_secret_hash from app_private.mpesa_checkouts`); r.Code != "42501" {
			t.Errorf("%s reads the callback secrets: %s", who.Role, r.Outcome())
		}
	}
	// The buyer's own row streams to them: it is published, and RLS lets
	// only them (and admins) see it.
	var published bool
	e.scalar(t, &published, `select exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime'
		and schemaname = 'public' and tablename = 'nestcoin_purchases')`)
	if !published {
		t.Error("nestcoin_purchases is not in the supabase_realtime publication")
	}
	other := e.newUser(t, "Other Buyer")
	if r := e.try(other.caller(), `select 1 from public.nestcoin_purchases where id = $1`, id); r.Rows != 0 {
		t.Error("another user sees the purchase")
	}
	if r := e.try(u.caller(), `select result_code, failure_code, resolved_via, checkout_request_id from public.nestcoin_purchases where id = $1`, id); r.Rows != 1 {
		t.Errorf("the buyer cannot read their purchase's payment columns: %s %s", r.Outcome(), r.Message)
	}
	// One checkout per purchase, for pending purchases only.
	fails(t, e.try(Service(), `select public.begin_mpesa_checkout($1, $2)`, id, hashOf("again")), "P0001", "An M-Pesa checkout was already started for this purchase")
	fails(t, e.try(Service(), `select public.begin_mpesa_checkout($1, '\x01')`, id), "P0001", "The callback secret hash must be 32 bytes (SHA-256)")
	e.checkLedger(t)
}

func TestMpesaCallbackStateMachine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Mpesa Payer")
	id := e.checkout(t, u, "Side Hustle", "secret-1")
	outcome := func(args ...any) string {
		t.Helper()
		var s string
		e.value(t, Service(), &s, settle, args...)
		return s
	}

	// A callback that beats record_mpesa_stk_push records the checkout id.
	forged := []struct {
		name string
		args []any
	}{
		{"wrong secret", []any{id, hashOf("secret-2"), "ws_CO_A", 0, "ok", nil, "TKA0000001", 500}},
		{"no secret", []any{id, nil, "ws_CO_A", 0, "ok", nil, "TKA0000001", 500}},
		{"no checkout id", []any{id, hashOf("secret-1"), " ", 0, "ok", nil, "TKA0000001", 500}},
		{"unknown purchase", []any{"00000000-0000-4000-8000-000000000000", hashOf("secret-1"), "ws_CO_A", 0, "ok", nil, "TKA0000001", 500}},
	}
	for _, f := range forged {
		fails(t, e.try(Service(), settle, f.args...), "42501", "Unknown M-Pesa callback")
	}
	ok(t, e.run(Service(), `select public.record_mpesa_stk_push($1, 'ws_CO_A', 'm-1')`, id))
	fails(t, e.try(Service(), settle, id, hashOf("secret-1"), "ws_CO_B", 0, "ok", nil, "TKA0000001", 500), "42501", "Unknown M-Pesa callback")
	fails(t, e.try(Service(), `select public.record_mpesa_stk_push($1, 'ws_CO_B', 'm-2')`, id), "P0001", "Purchase already has another CheckoutRequestID")

	if got := outcome(id, hashOf("secret-1"), "ws_CO_A", 0, "The service request is processed successfully.", nil, "TKA0000001", 500); got != "credited" {
		t.Fatalf("first callback: %s", got)
	}
	for _, replay := range [][]any{
		{id, hashOf("secret-1"), "ws_CO_A", 0, "ok", nil, "TKA0000001", 500},
		{id, hashOf("secret-1"), "ws_CO_A", 1032, "Request cancelled by user", "cancelled", nil, nil},
		{id, hashOf("secret-1"), "ws_CO_A", 0, "ok", nil, "TKA0000002", 500},
	} {
		if got := outcome(replay...); got != "duplicate" && got != "conflict" {
			t.Errorf("replay %v: %s", replay[3:], got)
		}
	}
	if got := e.balance(t, u, "nestcoins"); got != 275 {
		t.Errorf("balance %d after replays, want 275", got)
	}
	var status, ref, via string
	e.scalar(t, &status, `select status || '/' || payment_reference || '/' || resolved_via from public.nestcoin_purchases where id = $1`, id)
	if status != "paid/TKA0000001/callback" {
		t.Errorf("purchase %s", status)
	}

	// A payment confirmed by the STK query, then its receipt.
	q := e.checkout(t, u, "Starter Pack", "secret-q")
	ok(t, e.run(Service(), `select public.record_mpesa_stk_push($1, 'ws_CO_Q', 'm-q')`, q))
	fails(t, e.try(Service(), `select public.resolve_mpesa_purchase($1, 0, 'ok', null, 'expiry')`, q), "P0001", "Only an STK query of a pushed purchase can confirm it")
	var got string
	e.value(t, Service(), &got, `select public.resolve_mpesa_purchase($1, 0, 'The service request is processed successfully.', null, 'query')`, q)
	e.scalar(t, &ref, `select payment_reference from public.nestcoin_purchases where id = $1`, q)
	if got != "credited" || ref != "ws_CO_Q" {
		t.Errorf("query confirmation: %s, reference %s", got, ref)
	}
	if got := outcome(q, hashOf("secret-q"), "ws_CO_Q", 0, "ok", nil, "TKQ0000001", 20); got != "duplicate" {
		t.Errorf("receipt after the query: %s", got)
	}
	e.scalar(t, &ref, `select payment_reference || '/' || resolved_via from public.nestcoin_purchases where id = $1`, q)
	if ref != "TKQ0000001/callback" || e.balance(t, u, "nestcoins") != 285 {
		t.Errorf("after the receipt: %s, balance %d", ref, e.balance(t, u, "nestcoins"))
	}

	// Expired, then M-Pesa says why; expired, then paid after all.
	x := e.checkout(t, u, "Starter Pack", "secret-x")
	ok(t, e.run(Service(), `select public.record_mpesa_stk_push($1, 'ws_CO_X', 'm-x')`, x))
	e.value(t, Service(), &got, `select public.resolve_mpesa_purchase($1, null, 'M-Pesa gave no answer in time.', 'expired', 'expiry')`, x)
	if got != "failed" {
		t.Errorf("expiry: %s", got)
	}
	if got := outcome(x, hashOf("secret-x"), "ws_CO_X", 1037, "DS timeout user cannot be reached", "timeout", nil, nil); got != "duplicate" {
		t.Errorf("reason after expiry: %s", got)
	}
	e.scalar(t, &via, `select failure_code || '/' || resolved_via || '/' || result_code from public.nestcoin_purchases where id = $1`, x)
	if via != "timeout/callback/1037" {
		t.Errorf("after the late reason: %s", via)
	}
	if got := outcome(x, hashOf("secret-x"), "ws_CO_X", 0, "ok", nil, "TKX0000001", 20); got != "credited" {
		t.Errorf("payment after expiry: %s", got)
	}
	e.scalar(t, &via, `select status || '/' || coalesce(failure_code, '-') from public.nestcoin_purchases where id = $1`, x)
	if via != "paid/-" || e.balance(t, u, "nestcoins") != 295 {
		t.Errorf("revived purchase %s, balance %d", via, e.balance(t, u, "nestcoins"))
	}

	// One receipt pays one purchase.
	y := e.checkout(t, u, "Starter Pack", "secret-y")
	ok(t, e.run(Service(), `select public.record_mpesa_stk_push($1, 'ws_CO_Y', 'm-y')`, y))
	fails(t, e.try(Service(), settle, y, hashOf("secret-y"), "ws_CO_Y", 0, "ok", nil, "TKX0000001", 20), "P0001", "Payment reference was already used")
	e.checkLedger(t)
}

// Concurrent callbacks and sweeps for one purchase credit it once: every
// path takes the purchase's row lock first.
func TestMpesaConcurrentSettlement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Mpesa Racer")
	id := e.checkout(t, u, "Market Hustler", "race")
	ok(t, e.run(Service(), `select public.record_mpesa_stk_push($1, 'ws_CO_R', 'm-r')`, id))
	var wg sync.WaitGroup
	results := make([]Result, 24)
	for i := range results {
		wg.Go(func() {
			if i%3 == 0 {
				results[i] = e.run(Service(), `select public.resolve_mpesa_purchase($1, 0, 'ok', null, 'query')`, id)
				return
			}
			results[i] = e.run(Service(), settle, id, hashOf("race"), "ws_CO_R", 0, "ok", nil, "TKR0000001", 1000)
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.Err != nil {
			t.Errorf("settlement %d: %s %s", i, r.Code, r.Message)
		}
	}
	if got := e.balance(t, u, "nestcoins"); got != 560 {
		t.Errorf("balance %d, want 560", got)
	}
	if n := e.int64(t, `select count(*) from public.wallet_transfers where idempotency_key = 'purchase:' || $1`, id); n != 1 {
		t.Errorf("%d credits", n)
	}
	e.checkLedger(t)
}
