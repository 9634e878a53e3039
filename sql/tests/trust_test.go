package tests

import (
	"strings"
	"testing"
)

// lockAt starts a trade as the taker at the rate the taker was shown.
const lockAt = `select (public.lock_currency_in_escrow($1, $2, $3, $4::numeric)).id::text`

// Bait-and-switch: the owner reprices an offer between the taker reading it
// and the lock. The lock refuses any difference from the price the taker
// saw, and a price under an open trade is frozen.
func TestLockTakesTheSeenPrice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seller, buyer := e.newUser(t, "Seller Wanjiru"), e.newUser(t, "Buyer Kamau")
	e.issue(t, seller, "nestcoins", 500)
	offer := e.createOffer(t, seller, "sell", "nestcoins", 500, 10, 200, "2.00")

	ok(t, e.run(seller.caller(), `update public.p2p_offers set rate_per_unit = 3.00 where id = $1`, offer))
	fails(t, e.try(buyer.caller(), lockAt, offer, buyer.ID, 100, "2.00"), "P0001", "The price of this offer has changed")
	fails(t, e.try(buyer.caller(), `select public.lock_currency_in_escrow($1, $2, 100, null)`, offer, buyer.ID),
		"P0001", "The offer's rate is required")
	// The three-argument call of old, which took whatever price was current,
	// is gone.
	fails(t, e.try(buyer.caller(), `select public.lock_currency_in_escrow($1, $2, 100::numeric)`, offer, buyer.ID), "42883", "")

	var trade string
	e.value(t, buyer.caller(), &trade, lockAt, offer, buyer.ID, 100, "3")
	var rate, total string
	if err := e.super.QueryRow(t.Context(), `select rate_per_unit::text, total_kes::text from public.p2p_trades where id = $1`, trade).
		Scan(&rate, &total); err != nil {
		t.Fatal(err)
	}
	if rate != "3.00" || total != "300.00" {
		t.Errorf("trade at %s KES per unit, %s in all; want 3.00 and 300.00", rate, total)
	}
	fails(t, e.try(seller.caller(), `update public.p2p_offers set rate_per_unit = 9.99 where id = $1`, offer),
		"P0001", "This offer has open trades; its price cannot change until they close")
	// Other terms may still change.
	ok(t, e.run(seller.caller(), `update public.p2p_offers set max_limit = 150 where id = $1`, offer))
	// Once the trade closes the price is the owner's again.
	ok(t, e.run(buyer.caller(), `select public.cancel_trade($1)`, trade))
	ok(t, e.run(seller.caller(), `update public.p2p_offers set rate_per_unit = 2.50 where id = $1`, offer))
	e.checkLedger(t)
}

// A paid trade whose seller never releases goes to the admin queue as a
// dispute once the release window has passed; the coins stay in escrow.
func TestUnreleasedTradeIsDisputed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seller, buyer := e.newUser(t, "Seller Akinyi"), e.newUser(t, "Buyer Mutua")
	e.issue(t, seller, "nestcoins", 500)
	offer := e.createOffer(t, seller, "sell", "nestcoins", 500, 10, 200, "1.50")
	var stuck, fresh string
	e.value(t, buyer.caller(), &stuck, lockAt, offer, buyer.ID, 100, "1.50")
	e.value(t, buyer.caller(), &fresh, lockAt, offer, buyer.ID, 50, "1.50")
	for _, id := range []string{stuck, fresh} {
		ok(t, e.run(buyer.caller(), `select public.mark_trade_paid($1, 'SGK3H8PQ2X')`, id))
	}
	e.mustSuper(t, `update public.p2p_trades set release_deadline = now() - interval '1 minute' where id = $1`, stuck)

	var counts string
	e.value(t, Service(), &counts, `select public.run_expiry_sweeps()::text`)
	if counts != `{"offers": 0, "trades": 0, "disputes": 1, "expiring": 0, "listings": 0}` {
		t.Errorf("sweep counts %s", counts)
	}
	var status, flag, reason string
	if err := e.super.QueryRow(t.Context(), `select status, coalesce(admin_flag, ''), coalesce(dispute_reason, '') from public.p2p_trades where id = $1`,
		stuck).Scan(&status, &flag, &reason); err != nil {
		t.Fatal(err)
	}
	if status != "disputed" || flag != "auto_dispute" || reason == "" {
		t.Errorf("unreleased trade: status %s, flag %q, reason %q; want disputed, auto_dispute and a reason", status, flag, reason)
	}
	e.scalar(t, &status, `select status from public.p2p_trades where id = $1`, fresh)
	if status != "paid" {
		t.Errorf("a trade inside its release window became %s", status)
	}
	// The admin resolves it like any dispute.
	ok(t, e.run(e.newAdmin(t, "Queue Admin").caller(), `select public.resolve_trade_dispute($1, 'buyer', 'M-Pesa statement checked')`, stuck))
	e.checkLedger(t)
}

// Suspension bites at once: the user's offers leave the board and take no
// trades, their open trades are flagged, and the access token they still
// hold writes nothing anywhere, while reads go on.
func TestSuspensionBitesAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Suspending Admin")
	bad, other := e.newUser(t, "Suspended Seller"), e.newUser(t, "Other Trader")
	e.issue(t, bad, "nestcoins", 500)
	offer := e.createOffer(t, bad, "sell", "nestcoins", 500, 10, 200, "2.00")
	var trade, property string
	e.value(t, other.caller(), &trade, lockAt, offer, other.ID, 50, "2.00")
	e.value(t, bad.caller(), &property, `insert into public.properties (user_id, title, price, location) values ($1, 'Bedsitter', 9000, 'Roysambu') returning id::text`, bad.ID)

	ok(t, e.run(admin.caller(), `select public.suspend_user($1, $2, '10_days', 'fraud report')`, bad.ID, admin.ID))

	var status, flag string
	e.scalar(t, &status, `select status from public.p2p_offers where id = $1`, offer)
	e.scalar(t, &flag, `select coalesce(admin_flag, '') from public.p2p_trades where id = $1`, trade)
	if status != "paused" || flag != "party_suspended" {
		t.Errorf("after suspension: offer %s, trade flag %q; want paused and party_suspended", status, flag)
	}
	if r := e.try(other.caller(), `select 1 from public.p2p_offers where id = $1`, offer); r.Outcome() != hidden {
		t.Errorf("the paused offer is still on the board: %s", r.Outcome())
	}
	fails(t, e.try(other.caller(), lockAt, offer, other.ID, 20, "2.00"), "P0001", "This offer is no longer available")

	writes := []struct{ name, sql string }{
		{"insert a listing", `insert into public.properties (user_id, title, price, location) values ({me}, 'Another', 9000, 'Roysambu')`},
		{"edit a listing", `update public.properties set title = 'Renamed' where id = {property}`},
		{"delete a listing", `delete from public.properties where id = {property}`},
		{"edit the profile", `update public.profiles set full_name = 'New Name' where id = {me}`},
		{"reprice the offer", `update public.p2p_offers set max_limit = 100 where id = {offer}`},
		{"post in the trade chat", `insert into public.p2p_trade_messages (trade_id, sender_id, body) values ({trade}, {me}, 'hello')`},
		{"upload a file", `insert into storage.objects (bucket_id, name, owner_id) values ('avatars', {me} || '/a.png', {me})`},
	}
	ids := strings.NewReplacer("{me}", "'"+bad.ID+"'", "{property}", "'"+property+"'", "{offer}", "'"+offer+"'", "{trade}", "'"+trade+"'")
	for _, w := range writes {
		r := e.try(bad.caller(), ids.Replace(w.sql))
		if r.Code != denied || r.Message != "Your account is suspended" {
			t.Errorf("%s: got %s %q; want 42501 'Your account is suspended'", w.name, r.Outcome(), r.Message)
		}
	}
	if r := e.try(bad.caller(), `select 1 from public.properties where id = $1`, property); r.Outcome() != one {
		t.Errorf("the suspended user cannot read their own listing: %s", r.Outcome())
	}
	// Others write as before, also with a subject of another issuer (not a
	// uuid), which the guard must not choke on.
	ok(t, e.run(other.caller(), `update public.profiles set full_name = 'Still Fine' where id = $1`, other.ID))
	foreign := Caller{Role: "authenticated", UserID: "auth0|64b7f1c2e4a1"}
	ok(t, e.try(foreign, `update public.properties set title = title where false`))

	ok(t, e.run(admin.caller(), `select public.unsuspend_user($1, $2)`, bad.ID, admin.ID))
	e.scalar(t, &status, `select status from public.p2p_offers where id = $1`, offer)
	if status != "active" {
		t.Errorf("after the suspension is lifted the offer is %s", status)
	}
	ok(t, e.run(bad.caller(), `update public.profiles set full_name = 'Back Again' where id = $1`, bad.ID))
}

// Every table an API role may write carries the suspension guard, including
// tables added after the migration that introduced it.
func TestEveryWritableTableRefusesSuspendedUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if n := e.int64(t, `select app_private.attach_suspension_guards()`); n != 0 {
		t.Errorf("%d writable tables had no suspension guard", n)
	}
	if n := e.int64(t, `select count(*) from pg_trigger where tgname like '%\_refuse\_suspended'`); n < 10 {
		t.Errorf("only %d suspension guards", n)
	}
}

// A fee quote answers only for listings the caller may see: another user's
// unpublished listing is not found, exactly like an id that does not exist.
func TestQuoteHidesUnpublishedListings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, other := e.newUser(t, "Quote Owner"), e.newUser(t, "Quote Snoop")
	var draft, live string
	e.value(t, owner.caller(), &draft, `insert into public.properties (user_id, title, price, location) values ($1, 'Draft', 9000, 'Umoja') returning id::text`, owner.ID)
	e.scalar(t, &live, `insert into public.properties (user_id, title, price, location, is_active, payment_status, paid_until)
		values ($1, 'Live', 9000, 'Umoja', true, 'paid', now() + interval '1 day') returning id::text`, owner.ID)
	quote := `select public.quote_listing_fee('property', $1, 3)`
	fails(t, e.try(other.caller(), quote, draft), "P0001", "Listing not found")
	fails(t, e.try(other.caller(), quote, "00000000-0000-4000-8000-000000000000"), "P0001", "Listing not found")
	ok(t, e.try(other.caller(), quote, live))
	ok(t, e.try(owner.caller(), quote, draft))
	ok(t, e.try(e.newAdmin(t, "Quote Admin").caller(), quote, draft))
}
