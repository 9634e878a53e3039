package tests

import (
	"fmt"
	"strings"
	"testing"
)

// Outcomes in the matrix: a row count ("0", "1") or a SQLSTATE. "42501" is
// a refusal (missing privilege or a failed RLS WITH CHECK); "0" on a read or
// write means RLS hid the row; "P0001" a business rule; "23xxx" a constraint.
const (
	denied = "42501"
	// undefinedColumn: the relation has no such column at all.
	undefinedColumn = "42703"
	// notUpdatable: a view PostgreSQL cannot write through at all.
	notUpdatable = "55000"
	hidden       = "0"
	one          = "1"
)

// Callers of every matrix row, in this order.
var matrixWho = [5]string{"anon", "owner", "other", "admin", "service_role"}

type rlsCase struct {
	table, op, sql string
	// owner names the fixture user acting as "owner": "O" (default) owns
	// the target rows; "N" is a fresh user without a profile, role,
	// verification row or KYC submission (for one-row-per-user inserts).
	owner string
	want  [5]string // anon, owner, other (X), admin (A), service_role
}

type rlsFixture struct {
	users map[string]user
	ids   map[string]string
}

func setupRLSFixture(t *testing.T, e *env) rlsFixture {
	t.Helper()
	f := rlsFixture{users: map[string]user{}, ids: map[string]string{}}
	for _, n := range []string{"O", "X", "B", "N", "P"} {
		f.users[n] = e.newUser(t, "Matrix "+n)
	}
	f.users["A"] = e.newAdmin(t, "Matrix Admin")
	o, b, n := f.users["O"], f.users["B"], f.users["N"]
	// N starts with nothing.
	e.mustSuper(t, `delete from public.profiles where id = $1`, n.ID)
	e.mustSuper(t, `delete from public.user_roles where user_id = $1`, n.ID)

	e.mustSuper(t, `insert into public.user_verifications (user_id) values ($1)`, o.ID)
	var id string
	e.scalar(t, &id, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '11223344') returning id::text`, o.ID)
	f.ids["kyc"] = id
	e.scalar(t, &id, `insert into public.user_suspensions (user_id, suspension_type, reason, suspended_at, suspended_until, lifted_at)
		values ($1, '10_days', 'old', now() - interval '30 days', now() - interval '20 days', now() - interval '25 days') returning id::text`, o.ID)
	f.ids["suspension"] = id

	listings := []struct{ key, insert string }{
		{"prop", `insert into public.properties (user_id, title, type, purpose, price, location, is_active, payment_status, paid_until)
			values ($1, 'Fixture', 'Bedsitter', 'Rent', 9000, 'Kilimani, Nairobi', $2, $3, $4) returning id::text`},
		{"land", `insert into public.lands (userid, title, location, type, purpose, price, size, is_active, payment_status, paid_until)
			values ($1, 'Fixture plot', 'Kitengela, Kajiado', 'Residential', 'Sale', 1500000, 0.125, $2, $3, $4) returning id::text`},
		{"product", `insert into public.products (user_id, name, price, category, is_active, payment_status, paid_until)
			values ($1, 'Fixture sofa', 25000, 'Furniture', $2, $3, $4) returning id::text`},
		{"service", `insert into public.service_providers (userid, name, category, is_active, payment_status, paid_until)
			values ($1, 'Fixture Movers', 'Moving', $2, $3, $4) returning id::text`},
	}
	for _, l := range listings {
		e.scalar(t, &id, l.insert, o.ID, false, "unpaid", nil)
		f.ids[l.key+"Inactive"] = id
		e.scalar(t, &id, l.insert, o.ID, true, "paid", "2999-01-01")
		f.ids[l.key+"Active"] = id
	}

	e.issue(t, o, "nestcoins", 1000)
	e.scalar(t, &id, `select id::text from public.wallets where user_id = $1 and currency = 'nestcoins'`, o.ID)
	f.ids["walletO"] = id
	e.scalar(t, &id, `select t.id::text from public.wallet_transfers t join public.wallets w on w.id = t.credit_wallet_id where w.user_id = $1`, o.ID)
	f.ids["transferO"] = id
	e.scalar(t, &id, `select id::text from public.nestcoin_packages where name = 'Starter Pack'`)
	f.ids["pkg"] = id
	e.value(t, o.caller(), &id, `select (public.create_nestcoin_purchase(p.id, '0712345678')).id::text from public.nestcoin_packages p where p.name = 'Hustle Boost'`)
	f.ids["purchase"] = id

	e.value(t, o.caller(), &id, `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
		payment_methods, auto_cancel_duration, expires_at) values ($1, 'sell', 'nestcoins', 500, 2, 10, 200, '{M-Pesa}', '7 days', now())
		returning id::text`, o.ID)
	f.ids["offerActive"] = id
	e.value(t, o.caller(), &id, `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
		payment_methods, auto_cancel_duration, expires_at) values ($1, 'buy', 'keys', 100, 20, 10, 100, '{M-Pesa}', '1 hour', now())
		returning id::text`, o.ID)
	f.ids["offerInactive"] = id
	e.mustSuper(t, `update public.p2p_offers set status = 'expired' where id = $1`, id)
	e.value(t, b.caller(), &id, `select (public.lock_currency_in_escrow($1, $2, 50, (select o.rate_per_unit from public.p2p_offers o where o.id = $1))).id::text`, f.ids["offerActive"], b.ID)
	f.ids["trade"] = id
	e.value(t, o.caller(), &id, `insert into public.p2p_trade_messages (trade_id, sender_id, body) values ($1, $2, 'Karibu') returning id::text`,
		f.ids["trade"], o.ID)
	f.ids["message"] = id
	// A completed trade on the same offer (B bought 20 from O), rated by B,
	// and a paused offer of O's (as while O was suspended).
	e.value(t, b.caller(), &id, `select (public.open_p2p_trade($1, 20, (select o.rate_per_unit from public.p2p_offers o where o.id = $1), 'M-Pesa')).id::text`,
		f.ids["offerActive"])
	f.ids["tradeDone"] = id
	e.value(t, b.caller(), &id, `select (public.mark_trade_paid($1, 'SGK3H8PQ2X')).status`, f.ids["tradeDone"])
	e.value(t, o.caller(), &id, `select (public.release_trade($1)).status`, f.ids["tradeDone"])
	e.value(t, b.caller(), &id, `insert into public.p2p_trade_ratings (trade_id, stars, comment) values ($1, 4, 'Fast release') returning id::text`,
		f.ids["tradeDone"])
	f.ids["rating"] = id
	e.value(t, o.caller(), &id, `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
		payment_methods, auto_cancel_duration, expires_at) values ($1, 'sell', 'crystals', 100, 3, 10, 100, '{M-Pesa}', '7 days', now())
		returning id::text`, o.ID)
	f.ids["offerPaused"] = id
	e.mustSuper(t, `update public.p2p_offers set status = 'paused' where id = $1`, id)

	// The inbox (0024): B asks O about O's active property; O saved a land
	// and reported a product; a visitor wrote through the contact form.
	e.value(t, b.caller(), &id, `select public.start_conversation('property', $1, 'Is it still available?')::text`, f.ids["propActive"])
	f.ids["conv"] = id
	e.scalar(t, &id, `select id::text from public.messages where conversation_id = $1`, f.ids["conv"])
	f.ids["convMessage"] = id
	e.scalar(t, &id, `select id::text from public.notifications where user_id = $1 and kind = 'message'`, o.ID)
	f.ids["notification"] = id
	e.mustSuper(t, `insert into public.saved_listings (user_id, listing_kind, listing_id) values ($1, 'land', $2)`, o.ID, f.ids["landActive"])
	e.scalar(t, &id, `insert into public.reports (reporter_id, target_kind, target_id, reason) values ($1, 'product', $2, 'Looks fake') returning id::text`,
		o.ID, f.ids["productActive"])
	f.ids["report"] = id
	e.scalar(t, &id, `insert into public.contact_messages (name, email, message) values ('Wanjiru Kamau', 'wanjiru@example.com', 'Habari, how are listing fees charged?') returning id::text`)
	f.ids["contact"] = id
	// The admin audit (0028): A suspended O once.
	e.scalar(t, &id, `insert into public.admin_audit (actor_id, action, target_kind, target_id, subject_user_id, reason) values ($1, 'user.suspend', 'user', $2, $2, 'old') returning id::text`,
		f.users["A"].ID, o.ID)
	f.ids["audit"] = id
	return f
}

func (f rlsFixture) expand(sql string) string {
	var pairs []string
	for k, u := range f.users {
		pairs = append(pairs, "{"+k+"}", "'"+u.ID+"'")
	}
	for k, v := range f.ids {
		pairs = append(pairs, "{"+k+"}", "'"+v+"'")
	}
	return strings.NewReplacer(pairs...).Replace(sql)
}

func rlsMatrix() []rlsCase {
	all := func(v string) [5]string { return [5]string{v, v, v, v, v} }
	serviceOnly := [5]string{denied, denied, denied, denied, one}
	cases := []rlsCase{
		// profiles (phone numbers) are the owner's and admins' only, even for
		// an active trader like O; public_profiles below shows traders' names.
		{table: "profiles", op: "select", sql: `select 1 from profiles where id = {O}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "profiles", op: "select phone", sql: `select phone_number from profiles where id = {O}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "profiles", op: "select non-trader", sql: `select 1 from profiles where id = {P}`, want: [5]string{hidden, hidden, hidden, one, one}},
		// The public face of a person: traders (O has an active offer) and
		// the caller's counterparties, signed-in only, no private column.
		{table: "public_profiles", op: "select trader", sql: `select 1 from public_profiles where id = {O} and full_name = 'Matrix O'`,
			want: [5]string{denied, one, one, one, one}},
		{table: "public_profiles", op: "select counterparty", sql: `select 1 from public_profiles where id = {B}`,
			want: [5]string{denied, one, hidden, one, one}},
		{table: "public_profiles", op: "select non-trader", sql: `select 1 from public_profiles where id = {P}`,
			want: [5]string{denied, hidden, hidden, one, one}},
		{table: "public_profiles", op: "select phone", sql: `select phone_number from public_profiles`, want: all(undefinedColumn)},
		{table: "public_profiles", op: "insert", sql: `insert into public_profiles (id, full_name) values ({N}, 'Sneaky')`, want: all(denied)},
		{table: "public_profiles", op: "update", sql: `update public_profiles set full_name = 'Renamed' where id = {O}`, want: all(denied)},
		{table: "public_profiles", op: "delete", sql: `delete from public_profiles where id = {O}`, want: all(denied)},
		{table: "profiles", op: "insert", owner: "N", sql: `insert into profiles (id, full_name) values ({N}, 'New Person')`,
			want: [5]string{denied, one, denied, denied, one}},
		{table: "profiles", op: "update", sql: `update profiles set full_name = 'Renamed' where id = {O}`, want: [5]string{denied, one, hidden, one, one}},
		{table: "profiles", op: "delete", sql: `delete from profiles where id = {O}`, want: [5]string{denied, hidden, hidden, one, one}},

		{table: "user_roles", op: "select", sql: `select 1 from user_roles where user_id = {O}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "user_roles", op: "insert", owner: "N", sql: `insert into user_roles (user_id, role) values ({N}, 'user')`,
			want: [5]string{denied, one, denied, one, one}},
		{table: "user_roles", op: "insert admin role", owner: "N", sql: `insert into user_roles (user_id, role) values ({N}, 'admin')`,
			want: [5]string{denied, denied, denied, one, one}},
		// The app re-inserts the default role after sign-up: skipped, no error.
		{table: "user_roles", op: "insert existing", sql: `insert into user_roles (user_id, role) values ({O}, 'user')`,
			want: [5]string{denied, hidden, denied, hidden, hidden}},
		{table: "user_roles", op: "update", sql: `update user_roles set role = 'admin' where user_id = {O}`, want: [5]string{denied, hidden, hidden, one, one}},
		{table: "user_roles", op: "delete", sql: `delete from user_roles where user_id = {O}`, want: [5]string{denied, hidden, hidden, one, one}},

		{table: "user_verifications", op: "select", sql: `select 1 from user_verifications where user_id = {O}`, want: [5]string{denied, one, hidden, one, one}},
		{table: "user_verifications", op: "insert", owner: "N", sql: `insert into user_verifications (user_id) values ({N})`, want: serviceOnly},
		{table: "user_verifications", op: "update", sql: `update user_verifications set email_verified = true where user_id = {O}`, want: serviceOnly},
		{table: "user_verifications", op: "delete", sql: `delete from user_verifications where user_id = {O}`, want: serviceOnly},

		{table: "kyc_verifications", op: "select", sql: `select 1 from kyc_verifications where id = {kyc}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "kyc_verifications", op: "insert", owner: "N",
			sql:  `insert into kyc_verifications (user_id, id_type, id_number) values ({N}, 'National ID', '12345678')`,
			want: [5]string{denied, one, denied, denied, one}},
		{table: "kyc_verifications", op: "insert approved", owner: "N",
			sql:  `insert into kyc_verifications (user_id, id_type, id_number, verification_status) values ({N}, 'National ID', '12345678', 'approved')`,
			want: serviceOnly},
		{table: "kyc_verifications", op: "update", sql: `update kyc_verifications set id_number = '87654321' where id = {kyc}`,
			want: [5]string{denied, one, hidden, hidden, one}},
		{table: "kyc_verifications", op: "update status", sql: `update kyc_verifications set verification_status = 'approved' where id = {kyc}`,
			want: serviceOnly},
		{table: "kyc_verifications", op: "delete", sql: `delete from kyc_verifications where id = {kyc}`, want: [5]string{denied, hidden, hidden, one, one}},

		{table: "user_suspensions", op: "select", sql: `select 1 from user_suspensions where id = {suspension}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "user_suspensions", op: "insert", sql: `insert into user_suspensions (user_id, suspension_type) values ({O}, 'permanent')`, want: serviceOnly},
		{table: "user_suspensions", op: "update", sql: `update user_suspensions set reason = 'x' where id = {suspension}`, want: serviceOnly},
		{table: "user_suspensions", op: "delete", sql: `delete from user_suspensions where id = {suspension}`, want: serviceOnly},

		{table: "listing_fee_rates", op: "select", sql: `select 1 from listing_fee_rates where label = 'Single Room'`, want: all(one)},
		{table: "listing_fee_rates", op: "insert", sql: `insert into listing_fee_rates (category, label, match_value, per_day) values ('rent', 'Hostel', 'Hostel', 10)`,
			want: [5]string{denied, denied, denied, one, one}},
		{table: "listing_fee_rates", op: "update", sql: `update listing_fee_rates set per_day = 30 where label = 'Single Room'`,
			want: [5]string{denied, hidden, hidden, one, one}},
		{table: "listing_fee_rates", op: "delete", sql: `delete from listing_fee_rates where label = 'Single Room'`,
			want: [5]string{denied, hidden, hidden, one, one}},

		{table: "nestcoin_packages", op: "select", sql: `select 1 from nestcoin_packages where id = {pkg}`, want: all(one)},
		{table: "nestcoin_packages", op: "insert", sql: `insert into nestcoin_packages (name, coins, price) values ('Mega', 100000, 150000)`,
			want: [5]string{denied, denied, denied, one, one}},
		{table: "nestcoin_packages", op: "update", sql: `update nestcoin_packages set price = 1 where id = {pkg}`, want: [5]string{denied, hidden, hidden, one, one}},
		{table: "nestcoin_packages", op: "delete", sql: `delete from nestcoin_packages where id = {pkg}`, want: [5]string{denied, hidden, hidden, one, one}},

		{table: "nestcoin_purchases", op: "select", sql: `select 1 from nestcoin_purchases where id = {purchase}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "nestcoin_purchases", op: "insert", sql: `insert into nestcoin_purchases (user_id, package_id, coins, amount_kes) values ({O}, {pkg}, 10, 20)`,
			want: all(denied)},
		{table: "nestcoin_purchases", op: "update status", sql: `update nestcoin_purchases set status = 'failed' where id = {purchase}`, want: all(denied)},
		{table: "nestcoin_purchases", op: "update checkout id", sql: `update nestcoin_purchases set checkout_request_id = 'ws_CO_1' where id = {purchase}`,
			want: serviceOnly},
		{table: "nestcoin_purchases", op: "delete", sql: `delete from nestcoin_purchases where id = {purchase}`, want: all(denied)},

		{table: "wallets", op: "select", sql: `select 1 from wallets where id = {walletO}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "wallets", op: "select system", sql: `select 1 from wallets where kind = 'escrow' and currency = 'nestcoins'`,
			want: [5]string{hidden, hidden, hidden, one, one}},
		{table: "wallets", op: "insert", sql: `insert into wallets (user_id, kind, currency) values ({X}, 'user', 'keys')`, want: all(denied)},
		{table: "wallets", op: "update", sql: `update wallets set balance = 1000000 where id = {walletO}`, want: all(denied)},
		{table: "wallets", op: "delete", sql: `delete from wallets where id = {walletO}`, want: all(denied)},

		{table: "wallet_transfers", op: "select", sql: `select 1 from wallet_transfers where id = {transferO}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "wallet_transfers", op: "insert", sql: `insert into wallet_transfers (debit_wallet_id, credit_wallet_id, currency, amount, kind, idempotency_key)
			select {walletO}, w.id, 'nestcoins', 1, 'issuance', 'x' from wallets w where w.kind = 'fees' and w.currency = 'nestcoins'`, want: all(denied)},
		{table: "wallet_transfers", op: "update", sql: `update wallet_transfers set amount = 1 where id = {transferO}`, want: all(denied)},
		{table: "wallet_transfers", op: "delete", sql: `delete from wallet_transfers where id = {transferO}`, want: all(denied)},

		{table: "p2p_offers", op: "select active", sql: `select 1 from p2p_offers where id = {offerActive}`, want: [5]string{hidden, one, one, one, one}},
		// Closed offers (offerInactive expired) stay readable so realtime can
		// tell every board they left (0026); paused ones stay hidden.
		{table: "p2p_offers", op: "select inactive", sql: `select 1 from p2p_offers where id = {offerInactive}`, want: [5]string{hidden, one, one, one, one}},
		{table: "p2p_offers", op: "select paused", sql: `select 1 from p2p_offers where id = {offerPaused}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "p2p_offers", op: "insert", sql: `insert into p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
			payment_methods, auto_cancel_duration, expires_at) values ({O}, 'sell', 'nestcoins', 100, 10, 50, 500, '{M-Pesa}', '1 day', now())`,
			want: [5]string{denied, one, denied, denied, one}},
		{table: "p2p_offers", op: "update", sql: `update p2p_offers set max_limit = 250 where id = {offerActive}`, want: [5]string{denied, one, hidden, hidden, one}},
		// The fixture's trade is open on offerActive: its price is frozen.
		{table: "p2p_offers", op: "update price under a trade", sql: `update p2p_offers set rate_per_unit = 2.5 where id = {offerActive}`,
			want: [5]string{denied, "P0001", hidden, hidden, "P0001"}},
		{table: "p2p_offers", op: "update price", sql: `update p2p_offers set rate_per_unit = 2.5 where id = {offerInactive}`,
			want: [5]string{denied, one, hidden, hidden, one}},
		{table: "p2p_offers", op: "update status", sql: `update p2p_offers set status = 'cancelled' where id = {offerActive}`, want: serviceOnly},
		{table: "p2p_offers", op: "delete", sql: `delete from p2p_offers where id = {offerActive}`, want: [5]string{denied, one, hidden, one, one}},

		{table: "p2p_trades", op: "select", sql: `select 1 from p2p_trades where id = {trade}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "p2p_trades", op: "insert", sql: `insert into p2p_trades (offer_action, taker_id, seller_id, buyer_id, currency, amount, rate_per_unit, total_kes, payment_deadline)
			values ('sell', {X}, {O}, {X}, 'nestcoins', 10, 1, 10, now())`, want: all(denied)},
		{table: "p2p_trades", op: "update", sql: `update p2p_trades set status = 'cancelled' where id = {trade}`, want: all(denied)},
		{table: "p2p_trades", op: "delete", sql: `delete from p2p_trades where id = {trade}`, want: all(denied)},

		{table: "p2p_trade_events", op: "select", sql: `select 1 from p2p_trade_events where trade_id = {trade}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "p2p_trade_events", op: "insert", sql: `insert into p2p_trade_events (trade_id, to_status) values ({trade}, 'completed')`, want: all(denied)},
		{table: "p2p_trade_events", op: "update", sql: `update p2p_trade_events set to_status = 'completed' where trade_id = {trade}`, want: all(denied)},
		{table: "p2p_trade_events", op: "delete", sql: `delete from p2p_trade_events where trade_id = {trade}`, want: all(denied)},

		{table: "p2p_trade_messages", op: "select", sql: `select 1 from p2p_trade_messages where id = {message}`, want: [5]string{hidden, one, hidden, one, one}},
		{table: "p2p_trade_messages", op: "insert", sql: `insert into p2p_trade_messages (trade_id, sender_id, body) values ({trade}, {O}, 'Habari')`,
			want: [5]string{denied, one, denied, denied, one}},
		{table: "p2p_trade_messages", op: "insert as self", sql: `insert into p2p_trade_messages (trade_id, body) values ({trade}, 'Habari')`,
			want: [5]string{denied, one, denied, one, "23502"}},
		{table: "p2p_trade_messages", op: "update", sql: `update p2p_trade_messages set body = 'edited' where id = {message}`,
			want: serviceOnly},
		{table: "p2p_trade_messages", op: "delete", sql: `delete from p2p_trade_messages where id = {message}`, want: serviceOnly},

		// Ratings (0026): parties of a completed trade, once each; every signed-in user reads.
		{table: "p2p_trade_ratings", op: "select", sql: `select 1 from p2p_trade_ratings where id = {rating} and ratee_id = {O}`,
			want: [5]string{denied, one, one, one, one}},
		{table: "p2p_trade_ratings", op: "insert", sql: `insert into p2p_trade_ratings (trade_id, rater_id, stars) values ({tradeDone}, {O}, 5)`,
			want: [5]string{denied, one, denied, denied, one}},
		{table: "p2p_trade_ratings", op: "insert twice", owner: "B", sql: `insert into p2p_trade_ratings (trade_id, rater_id, stars) values ({tradeDone}, {B}, 5)`,
			want: [5]string{denied, "P0001", denied, denied, "P0001"}},
		{table: "p2p_trade_ratings", op: "insert open trade", sql: `insert into p2p_trade_ratings (trade_id, rater_id, stars) values ({trade}, {O}, 5)`,
			want: [5]string{denied, "P0001", denied, denied, "P0001"}},
		{table: "p2p_trade_ratings", op: "update", sql: `update p2p_trade_ratings set stars = 1 where id = {rating}`, want: serviceOnly},
		{table: "p2p_trade_ratings", op: "delete", sql: `delete from p2p_trade_ratings where id = {rating}`, want: serviceOnly},

		// Trader stats (0026): signed-in users only, read-only.
		{table: "p2p_trader_stats", op: "select", sql: `select 1 from p2p_trader_stats where user_id = {O} and completed_trades = 1 and rating_avg = 4 and completion_rate = 1`,
			want: [5]string{denied, one, one, one, one}},
		{table: "p2p_trader_stats", op: "insert", sql: `insert into p2p_trader_stats (user_id) values ({X})`, want: all(denied)},
		{table: "p2p_trader_stats", op: "update", sql: `update p2p_trader_stats set completed_trades = 99 where user_id = {O}`, want: all(denied)},
		{table: "p2p_trader_stats", op: "delete", sql: `delete from p2p_trader_stats where user_id = {O}`, want: all(denied)},

		// The inbox (0024). The fixture's conversation is O's (owner) with B.
		{table: "conversations", op: "select", sql: `select 1 from conversations where id = {conv}`, want: [5]string{denied, one, hidden, one, one}},
		{table: "conversations", op: "insert", sql: `insert into conversations (listing_kind, listing_id, owner_id, buyer_id) values ('land', {landActive}, {O}, {X})`,
			want: serviceOnly},
		{table: "conversations", op: "update", sql: `update conversations set listing_title = 'Renamed' where id = {conv}`, want: serviceOnly},
		{table: "conversations", op: "delete", sql: `delete from conversations where id = {conv}`, want: serviceOnly},
		{table: "messages", op: "select", sql: `select 1 from messages where id = {convMessage}`, want: [5]string{denied, one, hidden, one, one}},
		{table: "messages", op: "insert", sql: `insert into messages (conversation_id, sender_id, body) values ({conv}, {O}, 'Ndiyo, bado ipo')`,
			want: [5]string{denied, one, denied, denied, one}},
		{table: "messages", op: "insert as self", sql: `insert into messages (conversation_id, body) values ({conv}, 'Ndiyo')`,
			want: [5]string{denied, one, denied, denied, "23502"}},
		{table: "messages", op: "update", sql: `update messages set body = 'edited' where id = {convMessage}`, want: serviceOnly},
		{table: "messages", op: "delete", sql: `delete from messages where id = {convMessage}`, want: serviceOnly},
		// Only the two parties list a conversation, with one unread message for O.
		{table: "conversation_list", op: "select", sql: `select 1 from conversation_list where id = {conv} and unread_count = 1 and other_party_name = 'Matrix B'`,
			want: [5]string{denied, one, hidden, hidden, denied}},
		{table: "conversation_list", op: "insert", sql: `insert into conversation_list (id) values (gen_random_uuid())`, want: all(notUpdatable)},
		{table: "conversation_list", op: "update", sql: `update conversation_list set listing_title = 'x' where id = {conv}`, want: all(notUpdatable)},
		{table: "conversation_list", op: "delete", sql: `delete from conversation_list where id = {conv}`, want: all(notUpdatable)},
		{table: "notifications", op: "select", sql: `select 1 from notifications where id = {notification}`, want: [5]string{denied, one, hidden, hidden, one}},
		{table: "notifications", op: "insert", sql: `insert into notifications (user_id, kind) values ({O}, 'trade')`, want: serviceOnly},
		{table: "notifications", op: "update read", sql: `update notifications set read_at = now() where id = {notification}`,
			want: [5]string{denied, one, hidden, hidden, one}},
		{table: "notifications", op: "update kind", sql: `update notifications set kind = 'trade' where id = {notification}`, want: serviceOnly},
		{table: "notifications", op: "delete", sql: `delete from notifications where id = {notification}`, want: [5]string{denied, one, hidden, hidden, one}},
		{table: "saved_listings", op: "select", sql: `select 1 from saved_listings where user_id = {O}`, want: [5]string{denied, one, hidden, hidden, one}},
		{table: "saved_listings", op: "insert", sql: `insert into saved_listings (user_id, listing_kind, listing_id) values ({O}, 'property', {propActive})`,
			want: [5]string{denied, one, denied, denied, one}},
		// X cannot see O's unpublished land, so cannot save it either.
		{table: "saved_listings", op: "insert hidden listing", sql: `insert into saved_listings (user_id, listing_kind, listing_id) values ({X}, 'land', {landInactive})`,
			want: [5]string{denied, denied, denied, denied, one}},
		{table: "saved_listings", op: "update", sql: `update saved_listings set created_at = now() where user_id = {O}`, want: serviceOnly},
		{table: "saved_listings", op: "delete", sql: `delete from saved_listings where user_id = {O}`, want: [5]string{denied, one, hidden, hidden, one}},
		{table: "reports", op: "select", sql: `select 1 from reports where id = {report}`, want: [5]string{denied, one, hidden, one, one}},
		{table: "reports", op: "insert", sql: `insert into reports (reporter_id, target_kind, target_id, reason) values ({O}, 'property', {propActive}, 'Wrong price')`,
			want: [5]string{denied, one, denied, denied, one}},
		{table: "reports", op: "insert unseen conversation", sql: `insert into reports (reporter_id, target_kind, target_id, reason) values ({X}, 'conversation', {conv}, 'Spam')`,
			want: serviceOnly},
		{table: "reports", op: "update", sql: `update reports set status = 'resolved' where id = {report}`, want: [5]string{denied, hidden, hidden, one, one}},
		{table: "reports", op: "delete", sql: `delete from reports where id = {report}`, want: [5]string{denied, hidden, hidden, one, one}},
		{table: "contact_messages", op: "select", sql: `select 1 from contact_messages where id = {contact}`, want: [5]string{denied, hidden, hidden, one, one}},
		{table: "contact_messages", op: "insert", sql: `insert into contact_messages (name, email, message) values ('Otieno Ouma', 'otieno@example.com', 'Do you list plots in Kisumu?')`,
			want: all(one)},
		{table: "contact_messages", op: "update", sql: `update contact_messages set status = 'handled' where id = {contact}`, want: [5]string{denied, hidden, hidden, one, one}},
		{table: "contact_messages", op: "delete", sql: `delete from contact_messages where id = {contact}`, want: [5]string{denied, hidden, hidden, one, one}},
		// The admin audit is read by admins and written only by the admin functions' triggers.
		{table: "admin_audit", op: "select", sql: `select 1 from admin_audit where id = {audit}`, want: [5]string{denied, hidden, hidden, one, one}},
		{table: "admin_audit", op: "insert", sql: `insert into admin_audit (action, subject_user_id) values ('user.suspend', {O})`, want: all(denied)},
		{table: "admin_audit", op: "update", sql: `update admin_audit set reason = 'changed' where id = {audit}`, want: all(denied)},
		{table: "admin_audit", op: "delete", sql: `delete from admin_audit where id = {audit}`, want: all(denied)},
		{table: "wallet_history", op: "select", sql: `select 1 from wallet_history where id = {transferO} and user_id = {O} and amount = 1000`,
			want: [5]string{denied, one, hidden, one, one}},
		{table: "wallet_history", op: "insert", sql: `insert into wallet_history (id) values (1)`, want: all(notUpdatable)},
		{table: "wallet_history", op: "update", sql: `update wallet_history set amount = 1 where id = {transferO}`, want: all(notUpdatable)},
		{table: "wallet_history", op: "delete", sql: `delete from wallet_history where id = {transferO}`, want: all(notUpdatable)},
	}

	// The four listing tables share their rules.
	// contact is the listing's contact column, readable by signed-in users
	// only ("" for lands, which have none).
	listings := []struct{ table, key, owner, contact, insert, content, protected string }{
		{"properties", "prop", "user_id", "contact",
			`insert into properties (user_id, title, type, purpose, price, location) values ({O}, 'New', 'Bedsitter', 'Rent', 9000, 'Karen, Nairobi')`,
			`title = 'Renamed'`, `payment_status = 'paid'`},
		{"lands", "land", "userid", "",
			`insert into lands (userid, title, location, type, purpose, price) values ({O}, 'New plot', 'Ruaka, Kiambu', 'Residential', 'Sale', 2500000)`,
			`title = 'Renamed'`, `paid_until = now() + interval '1 year'`},
		{"products", "product", "user_id", "contact",
			`insert into products (user_id, name, price) values ({O}, 'Iron box', 2500)`,
			`name = 'Renamed'`, `payment_status = 'paid'`},
		{"service_providers", "service", "userid", "phone",
			`insert into service_providers (userid, name, category) values ({O}, 'New Movers', 'Moving')`,
			`name = 'Renamed'`, `verified = true`},
	}
	for _, l := range listings {
		inactive, active := "{"+l.key+"Inactive}", "{"+l.key+"Active}"
		if l.contact != "" {
			signedIn := [5]string{denied, one, one, one, one}
			cases = append(cases,
				rlsCase{table: l.table, op: "select contact", sql: fmt.Sprintf(`select %s from %s where id = %s`, l.contact, l.table, active), want: signedIn},
				rlsCase{table: l.table, op: "select *", sql: fmt.Sprintf(`select * from %s where id = %s`, l.table, active), want: signedIn},
				rlsCase{table: l.table, op: "select public columns", sql: fmt.Sprintf(`select id, %s, is_active from %s where id = %s`, l.owner, l.table, active),
					want: all(one)})
		}
		cases = append(cases,
			rlsCase{table: l.table, op: "select inactive", sql: fmt.Sprintf(`select 1 from %s where id = %s`, l.table, inactive),
				want: [5]string{hidden, one, hidden, one, one}},
			rlsCase{table: l.table, op: "select active", sql: fmt.Sprintf(`select 1 from %s where id = %s`, l.table, active), want: all(one)},
			rlsCase{table: l.table, op: "insert", sql: l.insert, want: [5]string{denied, one, denied, denied, one}},
			rlsCase{table: l.table, op: "insert live", sql: withLive(l.insert),
				want: serviceOnly},
			rlsCase{table: l.table, op: "update", sql: fmt.Sprintf(`update %s set %s where id = %s`, l.table, l.content, inactive),
				want: [5]string{denied, one, hidden, one, one}},
			rlsCase{table: l.table, op: "update protected", sql: fmt.Sprintf(`update %s set %s where id = %s`, l.table, l.protected, inactive),
				want: serviceOnly},
			// Activating an unpaid listing: the owner is told to pay; the
			// constraint refuses it for everyone else who may write the row.
			rlsCase{table: l.table, op: "activate unpaid", sql: fmt.Sprintf(`update %s set is_active = true where id = %s`, l.table, inactive),
				want: [5]string{denied, "P0001", hidden, "23514", "23514"}},
			rlsCase{table: l.table, op: "deactivate", sql: fmt.Sprintf(`update %s set is_active = false where id = %s`, l.table, active),
				want: [5]string{denied, one, hidden, one, one}},
			rlsCase{table: l.table, op: "delete", sql: fmt.Sprintf(`delete from %s where id = %s`, l.table, inactive),
				want: [5]string{denied, one, hidden, one, one}},
		)
	}
	return cases
}

// TestRLSMatrix runs every table x {anon, owner, other user, admin,
// service_role} x {select, insert, update, delete} (plus the protected
// columns) as the API would, each in a rolled-back transaction.
func TestRLSMatrix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := setupRLSFixture(t, e)
	cases := rlsMatrix()

	// Every public table of the app is in the matrix.
	var tables []string
	views := map[string]bool{}
	rows, err := e.super.Query(t.Context(), `select c.relname::text, c.relkind = 'v' from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where n.nspname = 'public' and c.relkind in ('r', 'v') order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var view bool
		_ = rows.Scan(&name, &view)
		tables = append(tables, name)
		views[name] = view
	}
	rows.Close()
	covered := map[string]map[string]bool{}
	for _, c := range cases {
		if covered[c.table] == nil {
			covered[c.table] = map[string]bool{}
		}
		covered[c.table][strings.Fields(c.op)[0]] = true
	}
	for _, table := range tables {
		for _, op := range []string{"select", "insert", "update", "delete"} {
			if !covered[table][op] {
				t.Errorf("table %s has no %s row in the RLS matrix", table, op)
			}
		}
		if views[table] {
			continue // a view decides its rows itself; its matrix rows check it
		}
		var rls bool
		e.scalar(t, &rls, `select relrowsecurity from pg_class where oid = ('public.' || quote_ident($1))::regclass`, table)
		if !rls {
			t.Errorf("table %s does not enable row level security", table)
		}
	}

	for _, c := range cases {
		ownerKey := c.owner
		if ownerKey == "" {
			ownerKey = "O"
		}
		callers := [5]Caller{Anon(), f.users[ownerKey].caller(), f.users["X"].caller(), f.users["A"].caller(), Service()}
		sql := f.expand(c.sql)
		t.Run(c.table+"/"+c.op, func(t *testing.T) {
			t.Parallel()
			for i, who := range matrixWho {
				r := e.try(callers[i], sql)
				if got := r.Outcome(); got != c.want[i] {
					t.Errorf("%-12s got %s, want %s (%s)", who, got, c.want[i], r.Message)
				}
			}
		})
	}
}

// Contact and identity columns (by name: phone, contact, email, address,
// id_number, codes) are never readable by a visitor wherever a visitor can
// see rows, and never through a view, which bypasses row level security:
// only tables whose policies limit rows to their owner and admins hold them.
// Verification codes' hashes are readable by no API role at all.
func TestPrivateColumnsExposure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rows, err := e.super.Query(t.Context(), `
select c.relname::text, a.attname::text, c.relkind::text,
       has_column_privilege('anon', c.oid, a.attnum, 'SELECT')
         and (c.relkind = 'v' or exists (select 1 from pg_policies p
                                          where p.schemaname = 'public' and p.tablename = c.relname
                                            and p.cmd in ('SELECT', 'ALL') and p.roles && array['anon', 'public']::name[])),
       has_column_privilege('authenticated', c.oid, a.attnum, 'SELECT')
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
where n.nspname = 'public' and c.relkind in ('r', 'v', 'm')
  and a.attname ~ '(phone|contact|email|address|id_number|_code$)'
order by 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var rel, col, kind string
		var anon, authenticated bool
		if err := rows.Scan(&rel, &col, &kind, &anon, &authenticated); err != nil {
			t.Fatal(err)
		}
		n++
		if anon {
			t.Errorf("%s.%s is readable by anon", rel, col)
		}
		if kind != "r" && authenticated {
			t.Errorf("view %s shows %s to every signed-in user", rel, col)
		}
		// A code's hash is a secret even from its owner (0043).
		if strings.HasSuffix(col, "verification_code") && authenticated {
			t.Errorf("%s.%s, a code's hash, is readable by signed-in users", rel, col)
		}
	}
	if n < 5 {
		t.Errorf("only %d contact columns found; the name pattern no longer matches the schema", n)
	}
}

// Every policy follows the <table>_<action>_<who> naming rule and is
// exercised by a matrix row of its table and action.
func TestPolicyNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	covered := map[string]bool{}
	for _, c := range rlsMatrix() {
		covered[c.table+"/"+strings.Fields(c.op)[0]] = true
	}
	rows, err := e.super.Query(t.Context(), `select tablename::text, policyname::text, lower(cmd) from pg_policies where schemaname = 'public' order by 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var table, name, cmd string
		if err := rows.Scan(&table, &name, &cmd); err != nil {
			t.Fatal(err)
		}
		n++
		if !strings.HasPrefix(name, table+"_"+cmd+"_") {
			t.Errorf("policy %s on %s (%s) is not named %s_%s_<who>", name, table, cmd, table, cmd)
		}
		if !covered[table+"/"+cmd] {
			t.Errorf("policy %s has no matrix row", name)
		}
	}
	if n < 60 {
		t.Errorf("only %d policies found", n)
	}
}

// withLive adds is_active = true, payment_status = 'paid' to an insert.
func withLive(insert string) string {
	insert = strings.Replace(insert, ") values (", ", is_active, payment_status) values (", 1)
	i := strings.LastIndex(insert, ")")
	return insert[:i] + ", true, 'paid')"
}
