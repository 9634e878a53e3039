package tests

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Every spec §5 offer rule comes back as the error message the app shows.
func TestOfferValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.newUser(t, "Offer Owner")
	insert := `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
		payment_methods, auto_cancel_duration, expires_at)
		values ($1, $2, $3, $4, $5::numeric, $6, $7, $8::text[], $9, now() + interval '99 days')`
	type offer struct {
		action, currency string
		amount           int64
		rate             string
		minLimit         int64
		maxLimit         int64
		methods          []string
		duration         string
	}
	// The app's form defaults (spec §9).
	valid := offer{"sell", "nestcoins", 100, "10", 50, 500, []string{"M-Pesa"}, "24 hours"}
	cases := []struct {
		name   string
		change func(o *offer)
		msg    string // "" = accepted
	}{
		{"form defaults", func(o *offer) {}, ""},
		{"amount 10", func(o *offer) { o.amount = 10 }, ""},
		{"amount 10,000", func(o *offer) { o.amount = 10000 }, ""},
		{"amount 9", func(o *offer) { o.amount = 9 }, "Minimum amount is 10"},
		{"amount 0", func(o *offer) { o.amount = 0 }, "Minimum amount is 10"},
		{"amount 10,001", func(o *offer) { o.amount = 10001 }, "Maximum amount is 10,000"},
		{"rate 0.01", func(o *offer) { o.rate = "0.01" }, ""},
		{"rate 0", func(o *offer) { o.rate = "0" }, "Rate must be greater than 0"},
		{"rate 0.004 rounds to 0", func(o *offer) { o.rate = "0.004" }, "Rate must be greater than 0"},
		{"negative rate", func(o *offer) { o.rate = "-5" }, "Rate must be greater than 0"},
		{"min limit 0", func(o *offer) { o.minLimit = 0 }, "Minimum limit must be at least 1"},
		{"max limit 0", func(o *offer) { o.minLimit, o.maxLimit = 1, 0 }, "Maximum limit must be at least 1"},
		{"no payment method", func(o *offer) { o.methods = []string{} }, "Select at least one payment method"},
		{"all payment methods", func(o *offer) {
			o.methods = []string{"M-Pesa", "Bank Transfer", "Airtel Money", "T-Kash", "PayPal", "Skrill"}
		}, ""},
		{"unknown payment method", func(o *offer) { o.methods = []string{"M-Pesa", "Cash"} }, "Unknown payment method: Cash"},
		{"min above max", func(o *offer) { o.minLimit, o.maxLimit = 600, 500 }, "Minimum limit cannot be greater than maximum limit"},
		{"min equals max", func(o *offer) { o.minLimit, o.maxLimit = 500, 500 }, ""},
		{"1 hour", func(o *offer) { o.duration = "1 hour" }, ""},
		{"7 days", func(o *offer) { o.duration = "7 days" }, ""},
		{"2 days", func(o *offer) { o.duration = "2 days" }, "Auto-cancel duration must be 1 hour, 6 hours, 12 hours, 24 hours, 3 days or 7 days"},
		{"action", func(o *offer) { o.action = "swap" }, "Action must be buy or sell"},
		{"currency", func(o *offer) { o.currency = "gold" }, "Currency must be nestcoins, crystals or keys"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := valid
			tc.change(&o)
			r := e.try(owner.caller(), insert, owner.ID, o.action, o.currency, o.amount, o.rate, o.minLimit, o.maxLimit, o.methods, o.duration)
			if tc.msg == "" {
				ok(t, r)
			} else {
				fails(t, r, "P0001", tc.msg)
			}
		})
	}

	t.Run("server computes expires_at and stores 24 hours as 1 day", func(t *testing.T) {
		t.Parallel()
		ok(t, e.run(owner.caller(), insert, owner.ID, "buy", "keys", 200, "25.50", 10, 100, []string{"Airtel Money"}, "24 hours"))
		var duration string
		var created, expires time.Time
		err := e.super.QueryRow(t.Context(), `select auto_cancel_duration, created_at, expires_at from public.p2p_offers
			where user_id = $1 and currency = 'keys'`, owner.ID).Scan(&duration, &created, &expires)
		if err != nil {
			t.Fatal(err)
		}
		if duration != "1 day" || !expires.Equal(created.Add(24*time.Hour)) {
			t.Errorf("stored %q, expires %v after creation", duration, expires.Sub(created))
		}
	})

	t.Run("owner edits are validated too", func(t *testing.T) {
		t.Parallel()
		o := e.newUser(t, "Editing Owner")
		id := e.createOffer(t, o, "sell", "crystals", 300, 10, 100, "1.10")
		fails(t, e.try(o.caller(), `update public.p2p_offers set min_limit = 200 where id = $1`, id),
			"P0001", "Minimum limit cannot be greater than maximum limit")
		fails(t, e.try(o.caller(), `update public.p2p_offers set payment_methods = '{}' where id = $1`, id),
			"P0001", "Select at least one payment method")
		ok(t, e.try(o.caller(), `update public.p2p_offers set rate_per_unit = 1.25 where id = $1`, id))
	})
}

// The trade dialog's rules, enforced by lock_currency_in_escrow.
func TestLockValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seller, buyer, poor := e.newUser(t, "Lock Seller"), e.newUser(t, "Lock Buyer"), e.newUser(t, "Poor Seller")
	e.issue(t, seller, "nestcoins", 5000)
	e.issue(t, poor, "nestcoins", 20)
	offer := e.createOffer(t, seller, "sell", "nestcoins", 1000, 50, 500, "2.00")
	small := e.createOffer(t, seller, "sell", "nestcoins", 80, 10, 500, "2.00")
	poorOffer := e.createOffer(t, poor, "sell", "nestcoins", 100, 10, 100, "2.00")
	buyOffer := e.createOffer(t, seller, "buy", "crystals", 500, 10, 100, "1.00")
	lock := `select public.lock_currency_in_escrow($1, $2, $3::numeric, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))`

	cases := []struct {
		name    string
		caller  Caller
		offer   string
		buyerID string
		amount  string
		code    string
		msg     string
	}{
		{"below min limit", buyer.caller(), offer, buyer.ID, "49", "P0001", "Amount must be between 50 and 500"},
		{"above max limit", buyer.caller(), offer, buyer.ID, "501", "P0001", "Amount must be between 50 and 500"},
		{"at min limit", buyer.caller(), offer, buyer.ID, "50", "", ""},
		{"at max limit", buyer.caller(), offer, buyer.ID, "500", "", ""},
		{"fraction", buyer.caller(), offer, buyer.ID, "60.5", "P0001", "Amount must be a whole number greater than 0"},
		{"more than remains", buyer.caller(), small, buyer.ID, "81", "P0001", "Only 80 nestcoins left on this offer"},
		{"own offer", seller.caller(), offer, seller.ID, "100", "P0001", "You cannot trade on your own offer"},
		{"as somebody else", buyer.caller(), offer, seller.ID, "100", "42501", "You can only act on your own behalf"},
		{"seller cannot afford", buyer.caller(), poorOffer, buyer.ID, "50", "P0001", "The seller does not have enough nestcoins for this trade"},
		{"taker cannot afford (buy offer)", buyer.caller(), buyOffer, buyer.ID, "50", "P0001", "Insufficient crystals balance"},
		{"unknown offer", buyer.caller(), "00000000-0000-4000-8000-000000000000", buyer.ID, "50", "P0001", "Offer not found"},
		{"anonymous", Anon(), offer, buyer.ID, "50", "42501", "permission denied for function lock_currency_in_escrow"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := e.try(tc.caller, lock, tc.offer, tc.buyerID, tc.amount)
			if tc.code == "" {
				ok(t, r)
			} else {
				fails(t, r, tc.code, tc.msg)
			}
		})
	}

	t.Run("suspended buyer", func(t *testing.T) {
		t.Parallel()
		s := e.newUser(t, "Suspended Buyer")
		e.mustSuper(t, `update auth.users set banned_until = now() + interval '10 days' where id = $1`, s.ID)
		fails(t, e.try(s.caller(), lock, offer, s.ID, "100"), "42501", "Your account is suspended")
	})

	t.Run("buy offer: the taker's coins go to escrow", func(t *testing.T) {
		t.Parallel()
		taker := e.newUser(t, "Crystal Seller")
		e.issue(t, taker, "crystals", 80)
		var seller2, buyer2 string
		err := As(t.Context(), e.api, taker.caller(), true, func(tx pgx.Tx) error {
			return tx.QueryRow(t.Context(), `select seller_id::text, buyer_id::text from public.lock_currency_in_escrow($1, $2, 80, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))`,
				buyOffer, taker.ID).Scan(&seller2, &buyer2)
		})
		if err != nil {
			t.Fatal(err)
		}
		if seller2 != taker.ID || buyer2 != seller.ID || e.balance(t, taker, "crystals") != 0 {
			t.Errorf("seller %s buyer %s, taker has %d crystals", seller2, buyer2, e.balance(t, taker, "crystals"))
		}
	})
}
