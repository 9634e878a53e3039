package tests

import (
	"encoding/json"
	"testing"
	"time"
)

// The spec §9 per-day table, including tier boundaries.
func TestListingFeeRates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := []struct {
		kind, typ, purpose string
		price              int64
		want               int64 // 0 = no fee applies
	}{
		{"property", "Single Room", "Rent", 6000, 28},
		{"property", "Bedsitter", "Rent", 9000, 33},
		{"property", "One Bedroom", "Rent", 25000, 45},
		{"property", "Two Bedroom", "Rent", 45000, 55},
		{"property", "Three Bedroom", "Rent", 90000, 65},
		{"property", "Four+ Bedroom", "Rent", 250000, 75},
		{"property", "Vacation/Airbnb", "Rent", 8000, 75},
		{"property", "Office Space", "Rent", 150000, 85},
		{"property", "Retail Space", "Rent", 80000, 75},
		{"property", "Warehouse", "Rent", 400000, 100},
		{"property", "Two Bedroom", "Sale", 0, 75},
		{"property", "Two Bedroom", "Sale", 5000000, 75},
		{"property", "Two Bedroom", "Sale", 5000001, 150},
		{"property", "Three Bedroom", "Sale", 25000000, 150},
		{"property", "Four+ Bedroom", "Sale", 25000001, 225},
		{"property", "Office Space", "Sale", 150000000, 225},
		{"property", "Office Space", "Sale", 150000001, 0}, // above the table: no fee, no publishing
		{"property", "Office Space", "Sale", 400000000, 0},
		{"product", "", "", 10000, 18},
		{"product", "", "", 10001, 33},
		{"product", "", "", 100000, 33},
		{"product", "", "", 100001, 45},
		{"product", "", "", 500000, 45},
		{"product", "", "", 500001, 0},
		{"product", "", "", 900000, 0},
		{"service", "Drone", "", 0, 40},
		{"service", "Moving", "", 0, 35},
		{"land", "Residential", "Sale", 1, 60},
		{"land", "Commercial", "Lease", 1, 90},
		{"land", "Agricultural", "Sale", 1, 45},
		{"land", "Industrial", "Sale", 1, 105},
		{"land", "Mixed Use", "Sale", 1, 90},
		{"property", "Castle", "Rent", 1, 0},
		{"boat", "", "", 1, 0},
	}
	for _, tc := range cases {
		var got *int64
		e.value(t, Anon(), &got, `select public.listing_fee_per_day($1, $2, $3, $4)`, tc.kind, tc.typ, tc.purpose, tc.price)
		g := int64(0)
		if got != nil {
			g = *got
		}
		if g != tc.want {
			t.Errorf("%s %s %s %d: %d per day, want %d", tc.kind, tc.typ, tc.purpose, tc.price, g, tc.want)
		}
	}
	// The /pricing tabs read the table directly.
	if r := e.try(Anon(), `select * from public.listing_fee_rates`); r.Rows != 23 {
		t.Errorf("anon sees %d fee rows, want 23", r.Rows)
	}
	if r := e.try(Anon(), `select * from public.nestcoin_packages order by sort_order`); r.Rows != 10 {
		t.Errorf("anon sees %d packages, want 10", r.Rows)
	}
}

func TestPublishListing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Moderator")
	owner, other := e.newUser(t, "Lister Amina"), e.newUser(t, "Other Lister")
	e.issue(t, owner, "nestcoins", 1000)

	var rental, sale, land, product, service string
	e.value(t, owner.caller(), &rental, `insert into public.properties (user_id, title, type, purpose, price, location, deposit)
		values ($1, 'One Bedroom in Kilimani', 'One Bedroom', 'Rent', 30000, 'Kilimani, Nairobi', 60000) returning id::text`, owner.ID)
	e.value(t, owner.caller(), &sale, `insert into public.properties (user_id, title, type, purpose, price, location, deposit)
		values ($1, 'Villa in Karen', 'Four+ Bedroom', 'Sale', 60000000, 'Karen, Nairobi', 5) returning id::text`, owner.ID)
	e.value(t, owner.caller(), &land, `insert into public.lands (userid, title, location, type, purpose, price, size, features)
		values ($1, '5 Acres in Nanyuki', 'Nanyuki, Laikipia', 'Agricultural', 'Sale', 4500000, 5, '{Borehole,Fenced}') returning id::text`, owner.ID)
	e.value(t, owner.caller(), &product, `insert into public.products (user_id, name, price, status, category)
		values ($1, 'LG Fridge', 65000, 'Used', 'Appliances') returning id::text`, owner.ID)
	e.value(t, owner.caller(), &service, `insert into public.service_providers (userid, name, category, services, pricing)
		values ($1, 'Swift Movers', 'Moving', '{House moving}', '"[{\"title\":\"Bedsitter\",\"price\":6000,\"duration\":\"Half day\"}]"') returning id::text`, owner.ID)

	var deposit *int64
	e.scalar(t, &deposit, `select deposit from public.properties where id = $1`, sale)
	if deposit != nil {
		t.Errorf("a sale kept deposit %d", *deposit)
	}
	var pricingType string
	e.scalar(t, &pricingType, `select jsonb_typeof(pricing) from public.service_providers where id = $1`, service)
	if pricingType != "array" {
		t.Errorf("pricing sent as JSON text stored as %s", pricingType)
	}

	publish := `select public.publish_listing($1, $2, $3)::text`
	fails(t, e.try(other.caller(), publish, "land", land, 3), "42501", "You can only publish your own listings")
	fails(t, e.try(owner.caller(), publish, "land", land, 0), "P0001", "Days must be at least 1")
	fails(t, e.try(owner.caller(), publish, "land", land, 366), "P0001", "A listing can be paid for at most 365 days at a time")
	fails(t, e.try(owner.caller(), publish, "boat", land, 3), "P0001", "Listing kind must be property, land, product or service")
	fails(t, e.try(owner.caller(), publish, "land", rental, 3), "P0001", "Listing not found")
	fails(t, e.try(owner.caller(), publish, "property", sale, 5), "P0001", "Insufficient Nestcoins balance") // 225 x 5 > 1000

	quote := func(kind, id string, days int) map[string]any {
		var raw []byte
		e.value(t, owner.caller(), &raw, `select public.quote_listing_fee($1, $2, $3)::text`, kind, id, days)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return m
	}
	if q := quote("property", sale, 5); q["per_day"] != 225.0 || q["total"] != 1125.0 || q["can_afford"] != false {
		t.Errorf("quote %v", q)
	}

	// Land goes live at once: 45 x 4 = 180.
	var raw []byte
	e.value(t, owner.caller(), &raw, publish, "land", land, 4)
	var res map[string]any
	_ = json.Unmarshal(raw, &res)
	if res["total"] != 180.0 || res["is_active"] != true || res["payment_status"] != "paid" || res["balance"] != 820.0 {
		t.Errorf("publish land: %s", raw)
	}
	// Extending adds days to the running period.
	ok(t, e.run(owner.caller(), `select public.publish_listing('land', $1, 2, 'extend-1')`, land))
	ok(t, e.run(owner.caller(), `select public.publish_listing('land', $1, 2, 'extend-1')`, land)) // replay: charged once
	var paidUntil time.Time
	e.scalar(t, &paidUntil, `select paid_until from public.lands where id = $1`, land)
	if !near(paidUntil, time.Now().Add(6*24*time.Hour), time.Minute) {
		t.Errorf("land paid until %v, want 6 days from now", paidUntil)
	}
	if got := e.balance(t, owner, "nestcoins"); got != 730 {
		t.Errorf("balance %d after 4+2 days of land, want 730", got)
	}

	// A service goes live too (35 x 2); the owner toggles it.
	ok(t, e.run(owner.caller(), publish, "service", service, 2))
	ok(t, e.run(owner.caller(), `update public.service_providers set is_active = false where id = $1`, service))
	ok(t, e.run(owner.caller(), `update public.service_providers set is_active = true where id = $1`, service))

	// A rental waits for approval (45 x 7 = 315), then goes live from approval.
	e.value(t, owner.caller(), &raw, publish, "property", rental, 7)
	_ = json.Unmarshal(raw, &res)
	if res["payment_status"] != "pending" || res["is_active"] != false || res["pending_days"] != 7.0 {
		t.Errorf("publish rental: %s", raw)
	}
	fails(t, e.try(owner.caller(), `update public.properties set is_active = true where id = $1`, rental), "P0001", "Pay the listing fee to activate this listing")
	fails(t, e.try(owner.caller(), `update public.properties set type = 'Office Space' where id = $1`, rental), "P0001", "This change moves the listing to a higher fee tier")
	ok(t, e.try(owner.caller(), `update public.properties set type = 'Bedsitter', title = 'Bedsitter in Kilimani' where id = $1`, rental))
	if r := e.try(Anon(), `select 1 from public.properties where id = $1`, rental); r.Rows != 0 {
		t.Error("a pending listing is public")
	}
	ok(t, e.run(admin.caller(), `select public.moderate_listing('property', $1, 'approved', 'Looks good')`, rental))
	e.scalar(t, &paidUntil, `select paid_until from public.properties where id = $1 and is_active and payment_status = 'paid' and pending_days = 0`, rental)
	if !near(paidUntil, time.Now().Add(7*24*time.Hour), time.Minute) {
		t.Errorf("approved rental paid until %v", paidUntil)
	}
	if r := e.try(Anon(), `select 1 from public.properties where id = $1 and is_active`, rental); r.Rows != 1 {
		t.Error("an approved listing is not public")
	}
	// Approved once: extending needs no new approval.
	ok(t, e.run(owner.caller(), publish, "property", rental, 1))
	e.scalar(t, &paidUntil, `select paid_until from public.properties where id = $1 and is_active`, rental)
	if !near(paidUntil, time.Now().Add(8*24*time.Hour), time.Minute) {
		t.Errorf("extended rental paid until %v", paidUntil)
	}

	// A rejected product gets its fee back: 33 x 3 = 99.
	before := e.balance(t, owner, "nestcoins")
	ok(t, e.run(owner.caller(), publish, "product", product, 3))
	if got := e.balance(t, owner, "nestcoins"); got != before-99 {
		t.Errorf("product fee: balance %d, want %d", got, before-99)
	}
	var dash map[string]int64
	e.value(t, admin.caller(), &dash, `select public.get_dashboard_stats()`)
	if dash["pendingProducts"] != 1 {
		t.Errorf("pendingProducts = %d", dash["pendingProducts"])
	}
	ok(t, e.run(admin.caller(), `select public.moderate_listing('product', $1, 'rejected', 'Photos missing')`, product))
	var status string
	e.scalar(t, &status, `select payment_status || '/' || moderation_notes from public.products where id = $1 and not is_active`, product)
	if status != "rejected/Photos missing" || e.balance(t, owner, "nestcoins") != before {
		t.Errorf("after rejection: %s, balance %d (want %d)", status, e.balance(t, owner, "nestcoins"), before)
	}
	fails(t, e.try(admin.caller(), `select public.moderate_listing('product', $1, 'approved')`, product), "P0001", "Only listings pending review can be moderated")
	e.checkLedger(t)
}
