package tests

import (
	"testing"
)

// tradeOn opens a trade on offer as taker through the trade dialog's call and
// returns its id.
func (e *env) tradeOn(t *testing.T, taker user, offer string, amount int64) string {
	t.Helper()
	var id string
	e.value(t, taker.caller(), &id, `select (public.open_p2p_trade($1, $2, (select o.rate_per_unit from public.p2p_offers o where o.id = $1), 'M-Pesa')).id::text`,
		offer, amount)
	return id
}

type traderStats struct {
	completed      int64
	rate, rating   *float64
	ratings        int64
	boardCompleted int64
}

func (e *env) stats(t *testing.T, viewer, u user) traderStats {
	t.Helper()
	var s traderStats
	r := e.try(viewer.caller(), `select 1 from public.p2p_trader_stats where user_id = $1`, u.ID)
	if r.Err != nil {
		t.Fatalf("read stats: %s", r.Message)
	}
	if r.Rows == 0 {
		return s
	}
	e.value(t, viewer.caller(), &s.completed, `select completed_trades::bigint from public.p2p_trader_stats where user_id = $1`, u.ID)
	e.value(t, viewer.caller(), &s.rate, `select completion_rate::float8 from public.p2p_trader_stats where user_id = $1`, u.ID)
	e.value(t, viewer.caller(), &s.rating, `select rating_avg::float8 from public.p2p_trader_stats where user_id = $1`, u.ID)
	e.value(t, viewer.caller(), &s.ratings, `select rating_count::bigint from public.p2p_trader_stats where user_id = $1`, u.ID)
	return s
}

func ptr(f float64) *float64 { return &f }

func sameFloat(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	d := *a - *b
	return d < 0.00005 && d > -0.00005
}

// A trader's record follows every way a trade closes: completed counts for
// both parties; a cancel or an expiry against the buyer; a dispute against
// whoever lost it. Ratings come once per party, only after completion, and
// average into the record the board shows.
func TestTraderStatsAndRatings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seller, buyer, viewer := e.newUser(t, "Seller Wanjiru"), e.newUser(t, "Buyer Otieno"), e.newUser(t, "Viewer Chebet")
	admin := e.newAdmin(t, "Board Admin")
	e.issue(t, seller, "nestcoins", 5000)
	offer := e.createOffer(t, seller, "sell", "nestcoins", 1000, 10, 200, "2.50")

	// Nobody has a record before their first closed trade.
	if s := e.stats(t, viewer, seller); s.completed != 0 || s.rate != nil || s.rating != nil {
		t.Errorf("fresh seller stats %+v", s)
	}

	done := e.tradeOn(t, buyer, offer, 100)
	ok(t, e.run(buyer.caller(), `select public.mark_trade_paid($1, 'SGK3H8PQ2X')`, done))
	// Rating before completion is refused with the app's message.
	fails(t, e.try(buyer.caller(), `insert into public.p2p_trade_ratings (trade_id, stars) values ($1, 5)`, done),
		"P0001", "You can rate a trade only after it is completed")
	ok(t, e.run(seller.caller(), `select public.release_trade($1)`, done))

	cancelled := e.tradeOn(t, buyer, offer, 50)
	ok(t, e.run(buyer.caller(), `select public.cancel_trade($1)`, cancelled))
	expired := e.tradeOn(t, buyer, offer, 50)
	ok(t, e.run(Service(), `select public.expire_overdue_trades(now() + interval '31 minutes')`))
	var status string
	e.scalar(t, &status, `select status from public.p2p_trades where id = $1`, expired)
	if status != "expired" {
		t.Fatalf("expired trade is %s", status)
	}
	disputed := e.tradeOn(t, buyer, offer, 60)
	ok(t, e.run(buyer.caller(), `select public.mark_trade_paid($1, 'QWE123RTY9')`, disputed))
	ok(t, e.run(buyer.caller(), `select public.dispute_trade($1, 'Paid but not released')`, disputed))
	ok(t, e.run(admin.caller(), `select public.resolve_trade_dispute($1, 'buyer', 'M-Pesa statement checked')`, disputed))

	// Seller: 1 completed, 1 lost dispute -> 50 %. Buyer: 1 completed, a
	// cancel and an expiry against them -> 1/3.
	if s := e.stats(t, viewer, seller); s.completed != 1 || !sameFloat(s.rate, ptr(0.5)) || s.rating != nil || s.ratings != 0 {
		t.Errorf("seller stats %+v (rate %v)", s, deref(s.rate))
	}
	if s := e.stats(t, viewer, buyer); s.completed != 1 || !sameFloat(s.rate, ptr(0.3333)) {
		t.Errorf("buyer stats %+v (rate %v)", s, deref(s.rate))
	}

	// Ratings: once per party, not of an open or someone else's trade.
	var ratee string
	e.value(t, buyer.caller(), &ratee, `insert into public.p2p_trade_ratings (trade_id, stars, comment, ratee_id)
		values ($1, 4, '  Fast and polite  ', $2) returning ratee_id::text`, done, buyer.ID)
	if ratee != seller.ID {
		t.Errorf("the buyer's rating rates %s, want the seller (a client-sent ratee is ignored)", ratee)
	}
	var comment string
	e.scalar(t, &comment, `select comment from public.p2p_trade_ratings where trade_id = $1 and rater_id = $2`, done, buyer.ID)
	if comment != "Fast and polite" {
		t.Errorf("comment stored as %q", comment)
	}
	fails(t, e.try(buyer.caller(), `insert into public.p2p_trade_ratings (trade_id, stars) values ($1, 1)`, done),
		"P0001", "You have already rated this trade")
	fails(t, e.try(viewer.caller(), `insert into public.p2p_trade_ratings (trade_id, stars) values ($1, 1)`, done),
		"42501", "You are not a party to this trade")
	fails(t, e.try(viewer.caller(), `insert into public.p2p_trade_ratings (trade_id, rater_id, stars) values ($1, $2, 1)`, done, buyer.ID),
		"42501", "You can only rate as yourself")
	fails(t, e.try(seller.caller(), `insert into public.p2p_trade_ratings (trade_id, stars) values ($1, 0)`, done), "23514", "")
	fails(t, e.try(seller.caller(), `insert into public.p2p_trade_ratings (trade_id, stars) values ($1, 3)`, cancelled),
		"P0001", "You can rate a trade only after it is completed")
	fails(t, e.try(buyer.caller(), `update public.p2p_trade_ratings set stars = 5 where trade_id = $1`, done), "42501", "")
	ok(t, e.run(seller.caller(), `insert into public.p2p_trade_ratings (trade_id, stars) values ($1, 5)`, done))

	// A second completed trade and rating: the seller's average is 4.5.
	second := e.tradeOn(t, buyer, offer, 10)
	ok(t, e.run(buyer.caller(), `select public.mark_trade_paid($1, 'ABC123XYZ0')`, second))
	ok(t, e.run(seller.caller(), `select public.release_trade($1)`, second))
	ok(t, e.run(buyer.caller(), `insert into public.p2p_trade_ratings (trade_id, stars) values ($1, 5)`, second))
	if s := e.stats(t, viewer, seller); s.completed != 2 || !sameFloat(s.rate, ptr(0.6667)) || !sameFloat(s.rating, ptr(4.5)) || s.ratings != 2 {
		t.Errorf("seller stats %+v (rate %v, rating %v)", s, deref(s.rate), deref(s.rating))
	}
	if s := e.stats(t, viewer, buyer); s.completed != 2 || !sameFloat(s.rating, ptr(5)) || s.ratings != 1 {
		t.Errorf("buyer stats %+v", s)
	}

	// The board carries the same record on the seller's offer.
	var completed, ratings int64
	var avg, rate float64
	var kyc bool
	var name string
	board := func(col string, dest any) {
		t.Helper()
		e.value(t, viewer.caller(), dest, `select `+col+` from public.get_p2p_board() where id = $1`, offer)
	}
	board(`owner_completed_trades::bigint`, &completed)
	board(`owner_rating_count::bigint`, &ratings)
	board(`owner_rating_avg::float8`, &avg)
	board(`owner_completion_rate::float8`, &rate)
	board(`owner_kyc_verified`, &kyc)
	board(`owner_name`, &name)
	if completed != 2 || ratings != 2 || avg != 4.5 || rate < 0.6666 || rate > 0.6667 || kyc || name != "Seller Wanjiru" {
		t.Errorf("board row: completed %d ratings %d avg %v rate %v kyc %v name %q", completed, ratings, avg, rate, kyc, name)
	}
	// KYC approval shows on the board.
	e.mustSuper(t, `insert into public.kyc_verifications (user_id, id_type, id_number, verification_status) values ($1, 'National ID', '22334455', 'approved')`, seller.ID)
	board(`owner_kyc_verified`, &kyc)
	if !kyc {
		t.Error("approved KYC not shown on the board")
	}
	// Visitors see neither the board nor the records.
	fails(t, e.try(Anon(), `select 1 from public.get_p2p_board()`), "42501", "")
	fails(t, e.try(Anon(), `select 1 from public.p2p_trader_stats`), "42501", "")
	fails(t, e.try(Anon(), `select 1 from public.p2p_trade_ratings`), "42501", "")
	e.checkLedger(t)
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// The trade dialog's call: the payment method must be the offer's, the
// lock's refusals come through unchanged, and the seller's instructions
// reach the trade from whichever side the seller is on.
func TestOpenP2PTrade(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, taker, stranger := e.newUser(t, "Owner Achieng"), e.newUser(t, "Taker Mutua"), e.newUser(t, "Stranger Kamau")
	e.issue(t, owner, "nestcoins", 1000)
	e.issue(t, taker, "keys", 500)
	sell := e.createOffer(t, owner, "sell", "nestcoins", 500, 10, 100, "2.00")
	buy := e.createOffer(t, owner, "buy", "keys", 500, 20, 200, "15.00")

	cases := []struct {
		name          string
		who           user
		offer, method string
		amount        int64
		rate          string
		code, message string
	}{
		{"method not on the offer", taker, sell, "PayPal", 50, "2.00", "P0001", "Choose one of this offer's payment methods"},
		{"own offer", owner, sell, "M-Pesa", 50, "2.00", "P0001", "You cannot trade on your own offer"},
		{"below the limit", taker, sell, "M-Pesa", 5, "2.00", "P0001", "Amount must be between 10 and 100"},
		{"above the limit", taker, sell, "M-Pesa", 101, "2.00", "P0001", "Amount must be between 10 and 100"},
		{"price changed", taker, sell, "M-Pesa", 50, "1.90", "P0001", "The price of this offer has changed"},
		{"seller short of keys", stranger, buy, "M-Pesa", 50, "15.00", "P0001", "Insufficient keys balance"},
		{"unknown offer", taker, "00000000-0000-0000-0000-000000000000", "M-Pesa", 50, "2.00", "P0001", "Offer not found"},
	}
	for _, c := range cases {
		r := e.try(c.who.caller(), `select public.open_p2p_trade($1, $2, $3::numeric, $4)`, c.offer, c.amount, c.rate, c.method)
		if r.Err == nil || r.Code != c.code || r.Message != c.message {
			t.Errorf("%s: got %s %q, want %s %q", c.name, r.Code, r.Message, c.code, c.message)
		}
	}
	fails(t, e.try(Anon(), `select public.open_p2p_trade($1, 50, 2, 'M-Pesa')`, sell), "42501", "")

	// On a sell offer the owner sells: the taker cannot give instructions,
	// the owner does on the trade page.
	var trade, method string
	e.value(t, taker.caller(), &trade, `select (public.open_p2p_trade($1, 40, 2.00, 'M-Pesa', 'ignored: the taker buys')).id::text`, sell)
	e.scalar(t, &method, `select payment_method || '|' || coalesce(payment_instructions, '-') from public.p2p_trades where id = $1`, trade)
	if method != "M-Pesa|-" {
		t.Errorf("sell-offer trade: %s", method)
	}
	fails(t, e.try(taker.caller(), `select public.set_trade_payment_instructions($1, 'Pay me')`, trade), "42501", "Only the seller gives payment instructions")
	fails(t, e.try(stranger.caller(), `select public.set_trade_payment_instructions($1, 'Pay me')`, trade), "42501", "You are not a party to this trade")
	fails(t, e.try(owner.caller(), `select public.set_trade_payment_instructions($1, '   ')`, trade), "P0001", "Payment instructions are required")
	ok(t, e.run(owner.caller(), `select public.set_trade_payment_instructions($1, ' M-Pesa 0712 345 678, Achieng ')`, trade))
	e.scalar(t, &method, `select payment_instructions from public.p2p_trades where id = $1`, trade)
	if method != "M-Pesa 0712 345 678, Achieng" {
		t.Errorf("instructions stored as %q", method)
	}
	ok(t, e.run(taker.caller(), `select public.mark_trade_paid($1, 'SGK3H8PQ2X')`, trade))
	fails(t, e.try(owner.caller(), `select public.set_trade_payment_instructions($1, 'Changed')`, trade), "P0001",
		"Payment instructions can change only while the trade awaits payment (this trade is paid)")

	// On a buy offer the taker sells and says at once where to be paid.
	e.value(t, taker.caller(), &trade, `select (public.open_p2p_trade($1, 30, 15.00, 'M-Pesa', 'Till 552211', 'dialog-1')).id::text`, buy)
	e.scalar(t, &method, `select payment_instructions from public.p2p_trades where id = $1 and seller_id = $2`, trade, taker.ID)
	if method != "Till 552211" {
		t.Errorf("buy-offer trade instructions %q", method)
	}
	// The same dialog submission twice is one trade.
	var again string
	e.value(t, taker.caller(), &again, `select (public.open_p2p_trade($1, 30, 15.00, 'M-Pesa', 'Till 552211', 'dialog-1')).id::text`, buy)
	if again != trade {
		t.Errorf("repeated submission opened %s, want %s", again, trade)
	}
	if got := e.balance(t, taker, "keys"); got != 470 {
		t.Errorf("taker keys = %d, want 470", got)
	}
	// Once paid, a replay of the key cannot rewrite where the buyer was told
	// to pay (the evidence of a dispute), nor take another offer's method
	// by naming that offer with the key (0045).
	ok(t, e.run(owner.caller(), `select public.mark_trade_paid($1, 'SGK3H8PQ2Y')`, trade))
	var replayed string
	e.value(t, taker.caller(), &replayed, `select (public.open_p2p_trade($1, 30, 15.00, 'M-Pesa', 'Send it to 0799 999 999 instead', 'dialog-1')).id::text`, buy)
	e.scalar(t, &method, `select status || '|' || payment_method || '|' || payment_instructions from public.p2p_trades where id = $1`, trade)
	if replayed != trade || method != "paid|M-Pesa|Till 552211" {
		t.Errorf("replay after payment: trade %s, stored %q; want %s unchanged (paid|M-Pesa|Till 552211)", replayed, method, trade)
	}
	fails(t, e.try(taker.caller(), `select public.open_p2p_trade($1, 40, 2.00, 'PayPal', 'x', 'dialog-1')`, sell), "P0001",
		"Choose one of this offer's payment methods")
	fails(t, e.try(taker.caller(), `select public.open_p2p_trade($1, 40, 2.00, 'M-Pesa', 'x', 'dialog-1')`, sell), "P0001",
		"This request key was used for another trade")
	e.checkLedger(t)
}

// Cancelling an offer takes its unfilled rest off the board at once (every
// signed-in user can still read the closed row, which is how realtime tells
// the boards); its open trade carries on, and a refund does not revive it.
func TestCancelP2POffer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, buyer, other := e.newUser(t, "Owner Nduta"), e.newUser(t, "Buyer Kiptoo"), e.newUser(t, "Other Auma")
	e.issue(t, owner, "crystals", 1000)
	offer := e.createOffer(t, owner, "sell", "crystals", 300, 10, 100, "1.20")
	trade := e.tradeOn(t, buyer, offer, 100)

	fails(t, e.try(other.caller(), `select public.cancel_p2p_offer($1)`, offer), "P0001", "Offer not found")
	fails(t, e.try(buyer.caller(), `select public.cancel_p2p_offer($1)`, offer), "P0001", "Offer not found")
	var status string
	e.value(t, owner.caller(), &status, `select (public.cancel_p2p_offer($1)).status`, offer)
	if status != "cancelled" {
		t.Fatalf("cancelled offer is %s", status)
	}
	fails(t, e.try(owner.caller(), `select public.cancel_p2p_offer($1)`, offer), "P0001", "Only an active offer can be cancelled (this offer is cancelled)")
	var n int64
	e.value(t, other.caller(), &n, `select count(*) from public.get_p2p_board() where id = $1`, offer)
	if n != 0 {
		t.Error("a cancelled offer is still on the board")
	}
	e.value(t, other.caller(), &n, `select count(*) from public.p2p_offers where id = $1 and status = 'cancelled'`, offer)
	if n != 1 {
		t.Error("other users cannot read the closed offer (realtime would not take it off their boards)")
	}
	fails(t, e.try(buyer.caller(), `select public.open_p2p_trade($1, 10, 1.20, 'M-Pesa')`, offer), "P0001", "This offer is no longer available")

	// The open trade carries on; its refund leaves the offer cancelled.
	ok(t, e.run(buyer.caller(), `select public.cancel_trade($1)`, trade))
	e.scalar(t, &status, `select status from public.p2p_offers where id = $1`, offer)
	if status != "cancelled" {
		t.Errorf("after the refund the offer is %s", status)
	}
	if got := e.balance(t, owner, "crystals"); got != 1000 {
		t.Errorf("owner crystals = %d, want 1000", got)
	}
	// Paused offers (suspended owner) are hidden from others.
	paused := e.createOffer(t, owner, "buy", "keys", 100, 10, 100, "9.00")
	e.mustSuper(t, `update public.p2p_offers set status = 'paused' where id = $1`, paused)
	e.value(t, other.caller(), &n, `select count(*) from public.p2p_offers where id = $1`, paused)
	if n != 0 {
		t.Error("another user reads a paused offer")
	}
	e.checkLedger(t)
}

// The board at 100k offers. get_p2p_board runs one statement per call whose
// inner query (the page of offers) is planned here as the function builds it:
// the newest page, a filtered page and pages sorted by rate walk an index
// under the Limit, or sort only what one index scan found with every filter
// applied; p2p_offers is never scanned whole. Then the function itself
// answers each shape with a full, correctly ordered page.
func TestOfferBoardAt100k(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	viewer := e.newUser(t, "Board Viewer")
	e.mustSuper(t, `insert into auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
		       'board.owner' || g || '@kejanest.test', '{"provider":"email","providers":["email"]}',
		       jsonb_build_object('full_name', 'Trader ' || g, 'role', 'user'), now(), now()
		  from generate_series(1, 5000) g`)
	// 100,000 offers, 70 % active, of 5,000 owners; the validation trigger
	// computes expires_at (7 days after created_at).
	e.mustSuper(t, `
		with o as (select array_agg(id order by email) ids from auth.users where email like 'board.owner%')
		insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit, payment_methods,
		                               auto_cancel_duration, expires_at, status, created_at)
		select o.ids[1 + g % 5000], case when g % 3 = 0 then 'buy' else 'sell' end,
		       (array['nestcoins', 'crystals', 'keys'])[1 + (g / 3) % 3],
		       100 + g % 9000, 1 + (g % 5000) / 100.0, 10, 100, '{M-Pesa,Airtel Money}', '7 days', now(),
		       case when g % 10 < 7 then 'active' when g % 10 < 9 then 'filled' else 'cancelled' end,
		       now() - make_interval(secs => 100000 - g)
		  from generate_series(1, 100000) g cross join o`)
	e.mustSuper(t, `analyze public.p2p_offers`)

	const active = `o.status = 'active' and o.expires_at > now()`
	cases := []struct {
		name, where, order string
		args               string // get_p2p_board's arguments
	}{
		{"newest", active, "o.created_at desc, o.id", ``},
		{"sell nestcoins", active + ` and o.action = 'sell' and o.currency = 'nestcoins'`, "o.created_at desc, o.id",
			`p_action => 'sell', p_currency => 'nestcoins'`},
		{"cheapest", active, "o.rate_per_unit asc, o.created_at desc, o.id", `p_sort => 'rate_asc'`},
		{"dearest buy keys", active + ` and o.action = 'buy' and o.currency = 'keys'`, "o.rate_per_unit desc, o.created_at desc, o.id",
			`p_action => 'buy', p_currency => 'keys', p_sort => 'rate_desc'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := e.explain(t, Service(), `select o.* from public.p2p_offers o where `+c.where+` order by `+c.order+` limit 60`)
			if plan.find(func(n planNode) bool { return n.RelationName == "p2p_offers" && n.NodeType == "Seq Scan" }) {
				t.Errorf("plan scans all of p2p_offers: %s", plan)
			}
			if plan.find(func(n planNode) bool {
				return n.NodeType == "Sort" && n.find(func(m planNode) bool {
					return m.RelationName == "p2p_offers" && m.NodeType == "Bitmap Heap Scan" && m.Filter != ""
				})
			}) {
				t.Errorf("plan sorts offers it fetched before filtering them: %s", plan)
			}
			// The function's page: 60 rows, in order, each matching.
			var n, unordered, mismatched int64
			e.value(t, viewer.caller(), &n, `select count(*) from public.get_p2p_board(`+c.args+`)`)
			e.value(t, viewer.caller(), &mismatched, `select count(*) from public.get_p2p_board(`+c.args+`) b
				join public.p2p_offers o on o.id = b.id where not (`+c.where+`)`)
			e.value(t, viewer.caller(), &unordered, `select count(*) from (
				select b.*, lag(b.created_at) over () prev_created, lag(b.rate_per_unit) over () prev_rate
				  from public.get_p2p_board(`+c.args+`) b) x
				where case when $1 = 'newest' or $1 = 'sell nestcoins' then created_at > prev_created
				           when $1 = 'cheapest' then rate_per_unit < prev_rate
				           else rate_per_unit > prev_rate end`, c.name)
			if n != 60 || mismatched != 0 || unordered != 0 {
				t.Errorf("page: %d rows (want 60), %d not matching, %d out of order", n, mismatched, unordered)
			}
		})
	}

	// Search: the owner's name, the currency or a payment method, any case;
	// LIKE wildcards in the text are literal.
	var n int64
	e.value(t, viewer.caller(), &n, `select count(*) from public.get_p2p_board(p_search => 'trader 4242', p_limit => 200)`)
	if n == 0 {
		t.Error("search by owner name found nothing")
	}
	var owners int64
	e.value(t, viewer.caller(), &owners, `select count(distinct owner_name) from public.get_p2p_board(p_search => 'trader 4242', p_limit => 200)`)
	if owners != 1 {
		t.Errorf("search 'trader 4242' matched %d owners, want 1", owners)
	}
	e.value(t, viewer.caller(), &n, `select count(*) from public.get_p2p_board(p_search => 'AIRTEL')`)
	if n != 60 {
		t.Errorf("search by payment method: %d rows", n)
	}
	e.value(t, viewer.caller(), &n, `select count(*) from public.get_p2p_board(p_search => 'trader 4%')`)
	if n != 0 {
		t.Errorf("a %% in the search text acted as a wildcard (%d rows)", n)
	}
	fails(t, e.try(viewer.caller(), `select * from public.get_p2p_board(p_sort => 'cheapest')`), "P0001", "Sort must be newest, rate_asc or rate_desc")
}
