package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// createOffer inserts an offer as its owner, the way the app does.
func (e *env) createOffer(t *testing.T, owner user, action, currency string, amount, minLimit, maxLimit int64, rate string) string {
	t.Helper()
	var id string
	e.value(t, owner.caller(), &id, `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
		payment_methods, auto_cancel_duration, expires_at) values ($1, $2, $3, $4, $5::numeric, $6, $7, '{M-Pesa}', '7 days', now())
		returning id::text`, owner.ID, action, currency, amount, rate, minLimit, maxLimit)
	return id
}

// 200 concurrent lock_currency_in_escrow calls, each on its own pooled
// connection as its buyer, against offers whose sellers can afford only some
// of them. Afterwards: no negative balance, every currency sums to zero,
// escrow equals the open trades, every trade has its escrow posting, and
// each seller lost exactly what their trades locked.
func TestEscrowConcurrency(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pool := newPool(t, e.db.URLAs("authenticator"), 16)

	type offer struct {
		id       string
		seller   user
		currency string
	}
	var offers []offer
	var sellers []user
	for i := range 8 {
		s := e.newUser(t, fmt.Sprintf("Seller %d", i))
		sellers = append(sellers, s)
		e.issue(t, s, "nestcoins", int64(150+i*90)) // 150 .. 780: far less than the demand
		offers = append(offers, offer{e.createOffer(t, s, "sell", "nestcoins", 10000, 10, 200, "2.00"), s, "nestcoins"})
	}
	// A crystals seller who can afford everything, on an offer with little left.
	rich := e.newUser(t, "Rich Seller")
	sellers = append(sellers, rich)
	e.issue(t, rich, "crystals", 100000)
	offers = append(offers, offer{e.createOffer(t, rich, "sell", "crystals", 300, 10, 200, "0.90"), rich, "crystals"})
	// A buy offer: the takers sell their keys into escrow.
	keyBuyer := e.newUser(t, "Key Buyer")
	offers = append(offers, offer{e.createOffer(t, keyBuyer, "buy", "keys", 10000, 10, 200, "25.00"), keyBuyer, "keys"})

	var buyers []user
	for i := range 20 {
		b := e.newUser(t, fmt.Sprintf("Buyer %d", i))
		if i%2 == 0 {
			e.issue(t, b, "keys", 60)
		}
		buyers = append(buyers, b)
	}
	before := map[string]int64{}
	for _, u := range append(append([]user{}, sellers...), buyers...) {
		for _, c := range []string{"nestcoins", "crystals", "keys"} {
			before[u.ID+"/"+c] = e.balance(t, u, c)
		}
	}

	const calls = 200
	results := make([]Result, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := offers[i%len(offers)]
			b := buyers[(i/len(offers)+i)%len(buyers)]
			amount := 10 + (i*37)%150
			results[i] = Exec(context.Background(), pool, b.caller(), true,
				`select public.lock_currency_in_escrow($1, $2, $3, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))`, o.id, b.ID, amount)
		}()
	}
	wg.Wait()

	// The first three must each happen; the last happens when the trades
	// of the crystals offer happen to add up to its whole amount (filled).
	allowed := []string{"The seller does not have enough nestcoins for this trade", "Only ", "Insufficient keys balance",
		"This offer is no longer available"}
	succeeded, refused := 0, map[string]int{}
	for i, r := range results {
		if r.Err == nil {
			succeeded++
			continue
		}
		known := false
		for _, a := range allowed {
			if r.Code == "P0001" && strings.HasPrefix(r.Message, a) {
				known = true
				refused[a]++
			}
		}
		if !known {
			t.Errorf("call %d failed unexpectedly: %s %s", i, r.Code, r.Message)
		}
	}
	trades := e.int64(t, `select count(*) from public.p2p_trades`)
	if int64(succeeded) != trades {
		t.Errorf("%d calls succeeded but %d trades exist", succeeded, trades)
	}
	if succeeded == 0 || refused[allowed[0]] == 0 || refused[allowed[1]] == 0 || refused[allowed[2]] == 0 {
		t.Errorf("want successes and every kind of refusal; got %d ok, refusals %v", succeeded, refused)
	}
	t.Logf("%d trades created, refusals %v", succeeded, refused)

	// Each seller's loss is exactly what their trades put in escrow.
	for _, u := range append(append([]user{}, sellers...), buyers...) {
		for _, c := range []string{"nestcoins", "crystals", "keys"} {
			locked := e.int64(t, `select coalesce(sum(amount), 0) from public.p2p_trades where seller_id = $1 and currency = $2`, u.ID, c)
			if got := e.balance(t, u, c); got != before[u.ID+"/"+c]-locked {
				t.Errorf("%s %s: balance %d, want %d - %d", u.Email, c, got, before[u.ID+"/"+c], locked)
			}
		}
	}
	e.checkLedger(t)
}

// Replaying an idempotency key posts nothing twice: concurrent retries of one
// lock request, a raw ledger posting and an issuance.
func TestIdempotencyReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pool := newPool(t, e.db.URLAs("authenticator"), 8)
	seller, buyer := e.newUser(t, "Idem Seller"), e.newUser(t, "Idem Buyer")
	e.issue(t, seller, "nestcoins", 1000)
	offerID := e.createOffer(t, seller, "sell", "nestcoins", 500, 10, 200, "2.00")

	ids := make([]string, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = As(context.Background(), pool, buyer.caller(), true, func(tx pgx.Tx) error {
				return tx.QueryRow(context.Background(), `select (public.lock_currency_in_escrow($1, $2, 120, (select o.rate_per_unit from public.p2p_offers o where o.id = $1), 'checkout-42')).id::text`,
					offerID, buyer.ID).Scan(&ids[i])
			})
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil {
			t.Fatalf("retry %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("retries returned different trades: %v", ids)
		}
	}
	if n := e.int64(t, `select count(*) from public.p2p_trades`); n != 1 {
		t.Errorf("%d trades, want 1", n)
	}
	if n := e.int64(t, `select count(*) from public.wallet_transfers where kind = 'escrow_lock'`); n != 1 {
		t.Errorf("%d escrow postings, want 1", n)
	}
	if got := e.balance(t, seller, "nestcoins"); got != 880 {
		t.Errorf("seller balance %d, want 880", got)
	}
	if got := e.int64(t, `select remaining_amount from public.p2p_offers where id = $1`, offerID); got != 380 {
		t.Errorf("offer remaining %d, want 380", got)
	}

	// The raw posting primitive: same key twice, then reused for another amount.
	post := `select replayed from app_private.post_transfer(
		(select id from public.wallets where kind = 'issuance' and currency = 'keys'),
		(select id from public.wallets where user_id = $1 and currency = 'keys'), $2, 'issuance', 'raw-key-1')`
	var replayed bool
	e.scalar(t, &replayed, post, buyer.ID, 7)
	if replayed {
		t.Error("first posting reported as a replay")
	}
	e.scalar(t, &replayed, post, buyer.ID, 7)
	if !replayed {
		t.Error("second posting not reported as a replay")
	}
	if got := e.balance(t, buyer, "keys"); got != 7 {
		t.Errorf("keys balance %d after a replay, want 7", got)
	}
	if _, err := e.super.Exec(t.Context(), post, buyer.ID, 8); err == nil || !strings.Contains(err.Error(), "was already used for a different transfer") {
		t.Errorf("key reused for another amount: %v", err)
	}

	for range 2 {
		ok(t, e.run(Service(), `select public.issue_currency($1, 'crystals', 50, 'bonus', 'bonus-2024')`, buyer.ID))
	}
	if got := e.balance(t, buyer, "crystals"); got != 50 {
		t.Errorf("crystals %d after a replayed issuance, want 50", got)
	}
	if n := e.int64(t, `select count(*) from public.wallet_transfers where idempotency_key = 'bonus-2024'`); n != 1 {
		t.Errorf("%d transfers for one key", n)
	}

	// The ledger itself refuses edits, even from the superuser.
	if _, err := e.super.Exec(t.Context(), `update public.wallet_transfers set amount = amount + 1`); err == nil ||
		!strings.Contains(err.Error(), "append-only") {
		t.Errorf("ledger update: %v", err)
	}
	if _, err := e.super.Exec(t.Context(), `delete from public.wallet_transfers`); err == nil {
		t.Error("ledger delete succeeded")
	}
	e.checkLedger(t)
}

// Nestcoin purchase orders: pending -> paid credits once per payment
// reference; failures and mismatches are refused with readable messages.
func TestNestcoinPurchase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, other := e.newUser(t, "Buyer Wanjiru"), e.newUser(t, "Other Buyer")
	create := `select (public.create_nestcoin_purchase((select id from public.nestcoin_packages where name = $1), $2)).id::text`

	fails(t, e.try(u.caller(), create, "Side Hustle", "12345"), "P0001", "Enter a valid M-Pesa phone number")
	fails(t, e.try(u.caller(), create, "No Such Pack", "0712345678"), "P0001", "Package not found")
	fails(t, e.try(Anon(), create, "Side Hustle", "0712345678"), "42501", "")

	var order, order2, phone string
	e.value(t, u.caller(), &order, create, "Side Hustle", "0712 345 678")
	e.scalar(t, &phone, `select phone from public.nestcoin_purchases where id = $1`, order)
	if phone != "254712345678" {
		t.Errorf("phone stored as %q", phone)
	}
	e.value(t, other.caller(), &order2, create, "Starter Pack", "+254712345678")

	confirm := `select (public.confirm_nestcoin_purchase($1, $2, $3)).status`
	fails(t, e.try(u.caller(), confirm, order, "SGH1", 500), "42501", "")
	fails(t, e.try(Service(), confirm, order, "SGH1", 499), "P0001", "Paid amount does not match the package price")
	fails(t, e.try(Service(), confirm, order, " ", 500), "P0001", "Payment reference is required")
	ok(t, e.run(Service(), confirm, order, "SGH1", 500))
	ok(t, e.run(Service(), confirm, order, "SGH1", 500)) // the provider repeats its callback
	if got := e.balance(t, u, "nestcoins"); got != 275 {
		t.Errorf("balance %d after a repeated confirmation, want 275", got)
	}
	fails(t, e.try(Service(), confirm, order, "SGH2", 500), "P0001", "Purchase is already paid")
	fails(t, e.try(Service(), confirm, order2, "SGH1", 20), "P0001", "Payment reference was already used")
	fails(t, e.try(Service(), `select public.fail_nestcoin_purchase($1, 'late')`, order), "P0001", "Purchase is already paid")

	ok(t, e.run(Service(), `select public.fail_nestcoin_purchase($1, 'Request cancelled by user')`, order2))
	fails(t, e.try(Service(), confirm, order2, "SGH3", 20), "P0001", "Purchase has already failed")
	if got := e.balance(t, other, "nestcoins"); got != 0 {
		t.Errorf("failed purchase credited %d", got)
	}
	// The buyer sees their orders, not other people's.
	if r := e.try(u.caller(), `select 1 from public.nestcoin_purchases`); r.Rows != 1 {
		t.Errorf("buyer sees %d orders, want 1", r.Rows)
	}
	e.checkLedger(t)
}
