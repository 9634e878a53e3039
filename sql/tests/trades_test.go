package tests

import (
	"testing"
	"time"
)

const (
	callPay           = `select (public.mark_trade_paid($1, 'SGK3H8PQ2X')).status`
	callPayNoRef      = `select (public.mark_trade_paid($1, '  ')).status`
	callRelease       = `select (public.release_trade($1)).status`
	callCancel        = `select (public.cancel_trade($1)).status`
	callDispute       = `select (public.dispute_trade($1, 'Money not received')).status`
	callResolveBuyer  = `select (public.resolve_trade_dispute($1, 'buyer', 'M-Pesa statement checked')).status`
	callResolveSeller = `select (public.resolve_trade_dispute($1, 'seller', null)).status`
	callResolveSplit  = `select (public.resolve_trade_dispute($1, 'split', null)).status`
)

type tradeStep struct {
	who  string // buyer, seller, stranger, admin
	call string
	want string // the trade's status after the call, or ""
	code string // or the error
	msg  string
}

// Every transition of the trade lifecycle and every refused one (wrong
// party, wrong state, twice), each on its own trade of 100 nestcoins.
func TestTradeLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Trade Admin")
	stranger := e.newUser(t, "Trade Stranger")

	cases := []struct {
		name  string
		steps []tradeStep
		// settled says where the escrow ended: "buyer", "seller" or "" (still held).
		settled string
	}{
		{"buyer pays, seller releases", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "seller", call: callRelease, want: "completed"}}, "buyer"},
		{"buyer cancels", []tradeStep{{who: "buyer", call: callCancel, want: "cancelled"}}, "seller"},
		{"buyer disputes, admin resolves to buyer", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "buyer", call: callDispute, want: "disputed"},
			{who: "admin", call: callResolveBuyer, want: "resolved"}}, "buyer"},
		{"seller disputes, admin resolves to seller", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "seller", call: callDispute, want: "disputed"},
			{who: "admin", call: callResolveSeller, want: "resolved"}}, "seller"},

		// Wrong party.
		{"seller marks paid", []tradeStep{{who: "seller", call: callPay, code: "42501", msg: "Only the buyer can mark this trade as paid"}}, ""},
		{"stranger marks paid", []tradeStep{{who: "stranger", call: callPay, code: "42501", msg: "You are not a party to this trade"}}, ""},
		{"buyer releases", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "buyer", call: callRelease, code: "42501", msg: "Only the seller can release this trade"}}, ""},
		{"stranger releases", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "stranger", call: callRelease, code: "42501", msg: "You are not a party to this trade"}}, ""},
		{"seller cancels after the lock", []tradeStep{
			{who: "seller", call: callCancel, code: "42501", msg: "The seller cannot cancel a trade once the coins are in escrow"}}, ""},
		{"stranger cancels", []tradeStep{{who: "stranger", call: callCancel, code: "42501", msg: "You are not a party to this trade"}}, ""},
		{"stranger disputes", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "stranger", call: callDispute, code: "42501", msg: "You are not a party to this trade"}}, ""},
		{"party resolves", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "buyer", call: callDispute, want: "disputed"},
			{who: "buyer", call: callResolveBuyer, code: "42501", msg: "Admin privileges required"}}, ""},

		// Wrong state.
		{"release before payment", []tradeStep{
			{who: "seller", call: callRelease, code: "P0001", msg: "Only a paid trade can be released (this trade is escrow_locked)"}}, ""},
		{"cancel after payment", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "buyer", call: callCancel, code: "P0001", msg: "Only a trade awaiting payment can be cancelled (this trade is paid)"}}, ""},
		{"dispute before payment", []tradeStep{
			{who: "buyer", call: callDispute, code: "P0001", msg: "Only a paid trade can be disputed (this trade is escrow_locked)"}}, ""},
		{"resolve without dispute", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "admin", call: callResolveBuyer, code: "P0001", msg: "Only a disputed trade can be resolved (this trade is paid)"}}, ""},
		{"pay after cancel", []tradeStep{
			{who: "buyer", call: callCancel, want: "cancelled"},
			{who: "buyer", call: callPay, code: "P0001", msg: "Only a trade awaiting payment can be marked as paid (this trade is cancelled)"}}, "seller"},
		{"dispute after completion", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "seller", call: callRelease, want: "completed"},
			{who: "buyer", call: callDispute, code: "P0001", msg: "Only a paid trade can be disputed (this trade is completed)"}}, "buyer"},
		{"pay without reference", []tradeStep{
			{who: "buyer", call: callPayNoRef, code: "P0001", msg: "Payment reference is required"}}, ""},
		{"resolve to nobody", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "seller", call: callDispute, want: "disputed"},
			{who: "admin", call: callResolveSplit, code: "P0001", msg: "Resolution must be buyer or seller"}}, ""},

		// Twice.
		{"pay twice", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "buyer", call: callPay, code: "P0001", msg: "Only a trade awaiting payment can be marked as paid (this trade is paid)"}}, ""},
		{"release twice", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "seller", call: callRelease, want: "completed"},
			{who: "seller", call: callRelease, code: "P0001", msg: "Only a paid trade can be released (this trade is completed)"}}, "buyer"},
		{"cancel twice", []tradeStep{
			{who: "buyer", call: callCancel, want: "cancelled"},
			{who: "buyer", call: callCancel, code: "P0001", msg: "Only a trade awaiting payment can be cancelled (this trade is cancelled)"}}, "seller"},
		{"dispute twice", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "buyer", call: callDispute, want: "disputed"},
			{who: "seller", call: callDispute, code: "P0001", msg: "Only a paid trade can be disputed (this trade is disputed)"}}, ""},
		{"resolve twice", []tradeStep{
			{who: "buyer", call: callPay, want: "paid"},
			{who: "buyer", call: callDispute, want: "disputed"},
			{who: "admin", call: callResolveSeller, want: "resolved"},
			{who: "admin", call: callResolveBuyer, code: "P0001", msg: "Only a disputed trade can be resolved (this trade is resolved)"}}, "seller"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seller, buyer := e.newUser(t, "Seller Amina"), e.newUser(t, "Buyer Brian")
			e.issue(t, seller, "nestcoins", 500)
			offerID := e.createOffer(t, seller, "sell", "nestcoins", 500, 10, 200, "1.95")
			var tradeID string
			e.value(t, buyer.caller(), &tradeID, `select (public.lock_currency_in_escrow($1, $2, 100, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))).id::text`, offerID, buyer.ID)
			who := map[string]Caller{"buyer": buyer.caller(), "seller": seller.caller(), "stranger": stranger.caller(), "admin": admin.caller()}
			for i, s := range tc.steps {
				r := e.run(who[s.who], s.call, tradeID)
				if s.code != "" {
					fails(t, r, s.code, s.msg)
				} else {
					ok(t, r)
				}
				var status string
				e.scalar(t, &status, `select status from public.p2p_trades where id = $1`, tradeID)
				if s.want != "" && status != s.want {
					t.Fatalf("step %d: status %s, want %s", i, status, s.want)
				}
			}
			sellerBal, buyerBal := e.balance(t, seller, "nestcoins"), e.balance(t, buyer, "nestcoins")
			remaining := e.int64(t, `select remaining_amount from public.p2p_offers where id = $1`, offerID)
			want := map[string][3]int64{"buyer": {400, 100, 400}, "seller": {500, 0, 500}, "": {400, 0, 400}}[tc.settled]
			if sellerBal != want[0] || buyerBal != want[1] || remaining != want[2] {
				t.Errorf("seller %d, buyer %d, offer remaining %d; want %v", sellerBal, buyerBal, remaining, want)
			}
		})
	}

	t.Run("transitions are logged", func(t *testing.T) {
		t.Parallel()
		seller, buyer := e.newUser(t, "Log Seller"), e.newUser(t, "Log Buyer")
		e.issue(t, seller, "nestcoins", 100)
		offerID := e.createOffer(t, seller, "sell", "nestcoins", 100, 10, 100, "2.00")
		var tradeID string
		e.value(t, buyer.caller(), &tradeID, `select (public.lock_currency_in_escrow($1, $2, 60, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))).id::text`, offerID, buyer.ID)
		ok(t, e.run(buyer.caller(), callPay, tradeID))
		ok(t, e.run(seller.caller(), callRelease, tradeID))
		rows, err := e.super.Query(t.Context(), `select coalesce(from_status, '-') || '>' || to_status || ' by ' || coalesce(actor_id::text, '-')
			from public.p2p_trade_events where trade_id = $1 order by id`, tradeID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var s string
			_ = rows.Scan(&s)
			got = append(got, s)
		}
		rows.Close()
		want := []string{"->escrow_locked by " + buyer.ID, "escrow_locked>paid by " + buyer.ID, "paid>completed by " + seller.ID}
		if len(got) != len(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("event %d: %s, want %s", i, got[i], want[i])
			}
		}
		// The offer is filled when nothing is left, and the chat is the parties'.
		var status string
		e.scalar(t, &status, `select status from public.p2p_offers where id = $1`, offerID)
		if status != "active" {
			t.Errorf("offer status %s with 40 left", status)
		}
		ok(t, e.run(buyer.caller(), `insert into public.p2p_trade_messages (trade_id, sender_id, body) values ($1, $2, 'Asante!')`, tradeID, buyer.ID))
		if r := e.try(seller.caller(), `select body from public.p2p_trade_messages where trade_id = $1`, tradeID); r.Rows != 1 {
			t.Errorf("seller sees %d messages", r.Rows)
		}
		if r := e.try(stranger.caller(), `select body from public.p2p_trade_messages where trade_id = $1`, tradeID); r.Rows != 0 {
			t.Errorf("stranger sees %d messages", r.Rows)
		}
		// Outside the functions the state machine still holds.
		if _, err := e.super.Exec(t.Context(), `update public.p2p_trades set status = 'escrow_locked' where id = $1`, tradeID); err == nil {
			t.Error("completed -> escrow_locked was accepted")
		}
	})

	t.Run("filled offer reopens on cancel", func(t *testing.T) {
		t.Parallel()
		seller, buyer := e.newUser(t, "Fill Seller"), e.newUser(t, "Fill Buyer")
		e.issue(t, seller, "crystals", 100)
		offerID := e.createOffer(t, seller, "sell", "crystals", 50, 10, 50, "1.00")
		var tradeID, status string
		e.value(t, buyer.caller(), &tradeID, `select (public.lock_currency_in_escrow($1, $2, 50, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))).id::text`, offerID, buyer.ID)
		e.scalar(t, &status, `select status from public.p2p_offers where id = $1`, offerID)
		if status != "filled" {
			t.Errorf("offer %s after taking all of it", status)
		}
		fails(t, e.try(stranger.caller(), `select public.lock_currency_in_escrow($1, $2, 10, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))`, offerID, stranger.ID),
			"P0001", "This offer is no longer available")
		ok(t, e.run(buyer.caller(), callCancel, tradeID))
		e.scalar(t, &status, `select status from public.p2p_offers where id = $1`, offerID)
		if status != "active" {
			t.Errorf("offer %s after the trade was cancelled", status)
		}
	})

	t.Cleanup(func() {
		if !t.Failed() {
			e.checkLedger(t)
		}
	})
}

// Expiry sweeps, driven by explicit timestamps (p_now).
func TestExpirySweeps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Sweep Admin")
	seller, buyer := e.newUser(t, "Sweep Seller"), e.newUser(t, "Sweep Buyer")
	e.issue(t, seller, "nestcoins", 1000)
	e.issue(t, seller, "keys", 100)
	offerID := e.createOffer(t, seller, "sell", "nestcoins", 1000, 10, 300, "2.00")

	var overdue, paid, late string
	e.value(t, buyer.caller(), &overdue, `select (public.lock_currency_in_escrow($1, $2, 100, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))).id::text`, offerID, buyer.ID)
	e.value(t, buyer.caller(), &paid, `select (public.lock_currency_in_escrow($1, $2, 200, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))).id::text`, offerID, buyer.ID)
	ok(t, e.run(buyer.caller(), callPay, paid))
	e.value(t, buyer.caller(), &late, `select (public.lock_currency_in_escrow($1, $2, 50, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))).id::text`, offerID, buyer.ID)

	var deadline time.Time
	e.scalar(t, &deadline, `select payment_deadline from public.p2p_trades where id = $1`, overdue)
	if !near(deadline, time.Now().Add(30*time.Minute), time.Minute) {
		t.Errorf("payment deadline %v, want about 30 minutes from now", deadline)
	}

	// A buyer who is too late cannot pay, even before the sweep ran.
	e.mustSuper(t, `update public.p2p_trades set payment_deadline = now() - interval '1 second' where id = $1`, late)
	fails(t, e.try(buyer.caller(), callPay, late), "P0001", "The payment window for this trade has expired")
	e.mustSuper(t, `update public.p2p_trades set payment_deadline = now() + interval '30 minutes' where id = $1`, late)

	sweep := `select public.expire_overdue_trades(now() + $1::interval)`
	fails(t, e.try(buyer.caller(), sweep, "1 hour"), "42501", "Admin privileges required")
	var n int64
	e.value(t, admin.caller(), &n, sweep, "29 minutes")
	if n != 0 {
		t.Errorf("sweep before the deadline expired %d trades", n)
	}
	e.value(t, Service(), &n, sweep, "31 minutes")
	if n != 2 {
		t.Errorf("sweep after the deadline expired %d trades, want 2 (the paid one stays)", n)
	}
	e.value(t, Service(), &n, sweep, "2 hours")
	if n != 0 {
		t.Errorf("second sweep expired %d trades", n)
	}
	for id, want := range map[string]string{overdue: "expired", late: "expired", paid: "paid"} {
		var status string
		e.scalar(t, &status, `select status from public.p2p_trades where id = $1`, id)
		if status != want {
			t.Errorf("trade %s is %s, want %s", id, status, want)
		}
	}
	fails(t, e.try(buyer.caller(), callPay, overdue), "P0001", "Only a trade awaiting payment can be marked as paid (this trade is expired)")
	if got := e.balance(t, seller, "nestcoins"); got != 800 {
		t.Errorf("seller has %d after the refunds, want 800", got)
	}

	// Offers expire at created_at + auto_cancel_duration.
	var shortOffer string
	e.value(t, seller.caller(), &shortOffer, `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit,
		max_limit, payment_methods, auto_cancel_duration, expires_at) values ($1, 'sell', 'keys', 50, 30, 10, 50, '{T-Kash}', '1 hour', now())
		returning id::text`, seller.ID)
	offerSweep := `select public.expire_p2p_offers(now() + $1::interval)`
	e.value(t, Service(), &n, offerSweep, "59 minutes")
	if n != 0 {
		t.Errorf("offer sweep before expiry: %d", n)
	}
	e.value(t, Service(), &n, offerSweep, "61 minutes")
	if n != 1 {
		t.Errorf("offer sweep after expiry: %d, want 1", n)
	}
	fails(t, e.try(buyer.caller(), `select public.lock_currency_in_escrow($1, $2, 20, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))`, shortOffer, buyer.ID),
		"P0001", "This offer is no longer available")

	// Listings lapse at paid_until.
	e.issue(t, seller, "nestcoins", 1000)
	var landID string
	e.value(t, seller.caller(), &landID, `insert into public.lands (userid, title, location, type, purpose, price)
		values ($1, '1/4 Acre Plot', 'Kitengela, Kajiado', 'Residential', 'Sale', 1800000) returning id::text`, seller.ID)
	ok(t, e.run(seller.caller(), `select public.publish_listing('land', $1, 3)`, landID))
	listingSweep := `select public.expire_listings(now() + $1::interval)`
	e.value(t, Service(), &n, listingSweep, "2 days")
	if n != 0 {
		t.Errorf("listing sweep before paid_until: %d", n)
	}
	var counts map[string]int64
	e.value(t, Service(), &counts, `select public.run_expiry_sweeps(now() + interval '3 days 1 minute')`)
	if counts["listings"] != 1 || counts["trades"] != 0 || counts["offers"] != 0 {
		t.Errorf("run_expiry_sweeps = %v", counts)
	}
	// Once the paid period is really over, only paying again reactivates it.
	e.mustSuper(t, `update public.lands set paid_until = now() - interval '1 minute' where id = $1`, landID)
	fails(t, e.try(seller.caller(), `update public.lands set is_active = true where id = $1`, landID), "P0001", "Pay the listing fee to activate this listing")
	ok(t, e.run(seller.caller(), `select public.publish_listing('land', $1, 2)`, landID))
	var paidUntil time.Time
	e.scalar(t, &paidUntil, `select paid_until from public.lands where id = $1 and is_active`, landID)
	if !near(paidUntil, time.Now().Add(48*time.Hour), time.Minute) {
		t.Errorf("republished land paid until %v, want two days from now", paidUntil)
	}
	e.checkLedger(t)
}
