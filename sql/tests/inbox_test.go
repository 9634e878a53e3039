package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// activeProperty inserts a live property of owner and returns its id.
func (e *env) activeProperty(t *testing.T, owner user, title string) string {
	t.Helper()
	var id string
	e.scalar(t, &id, `insert into public.properties (user_id, title, type, purpose, price, location, is_active, payment_status, paid_until)
		values ($1, $2, 'Bedsitter', 'Rent', 12000, 'Roysambu, Nairobi', true, 'paid', now() + interval '30 days') returning id::text`, owner.ID, title)
	return id
}

// unread returns the caller's unread count of a conversation, or -1 when
// conversation_list does not show it to them.
func (e *env) unread(t *testing.T, u user, conv string) int {
	t.Helper()
	var n int
	e.value(t, u.caller(), &n, `select coalesce((select unread_count from public.conversation_list where id = $1), -1)`, conv)
	return n
}

// A conversation from first message to read receipt: the owner is told, the
// unread count follows both parties, and only they see it.
func TestConversationLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, buyer, stranger := e.newUser(t, "Owner Njeri"), e.newUser(t, "Buyer Kiprop"), e.newUser(t, "Stranger Wafula")
	prop := e.activeProperty(t, owner, "Bedsitter near TRM")

	var conv string
	e.value(t, buyer.caller(), &conv, `select public.start_conversation('property', $1, '  Is it still available?  ')::text`, prop)
	if got := e.unread(t, owner, conv); got != 1 {
		t.Errorf("owner unread = %d, want 1", got)
	}
	if got := e.unread(t, buyer, conv); got != 0 {
		t.Errorf("buyer's own message counts as unread: %d", got)
	}
	if got := e.unread(t, stranger, conv); got != -1 {
		t.Errorf("a stranger sees the conversation (unread %d)", got)
	}
	var body, name, role string
	e.value(t, owner.caller(), &body, `select last_message from public.conversation_list where id = $1`, conv)
	e.value(t, owner.caller(), &name, `select other_party_name from public.conversation_list where id = $1`, conv)
	e.value(t, owner.caller(), &role, `select my_role from public.conversation_list where id = $1`, conv)
	if body != "Is it still available?" || name != "Buyer Kiprop" || role != "owner" {
		t.Errorf("owner's row: last %q, other %q, role %q", body, name, role)
	}

	// A second first message reuses the conversation.
	var again string
	e.value(t, buyer.caller(), &again, `select public.start_conversation('property', $1, 'Can I view it on Saturday?')::text`, prop)
	if again != conv {
		t.Errorf("second start_conversation opened %s, want %s", again, conv)
	}
	// The owner's one message notification is resurfaced, not duplicated.
	if n := e.int64(t, `select count(*) from public.notifications where user_id = $1 and kind = 'message'`, owner.ID); n != 1 {
		t.Errorf("owner has %d message notifications, want 1", n)
	}
	var data string
	e.value(t, owner.caller(), &data, `select data::text from public.notifications where kind = 'message' and read_at is null`)
	var d map[string]any
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	if d["preview"] != "Can I view it on Saturday?" || d["sender_name"] != "Buyer Kiprop" || d["conversation_id"] != conv {
		t.Errorf("notification data %s", data)
	}

	// The owner answers with a plain insert; reading clears both counts.
	ok(t, e.run(owner.caller(), `insert into public.messages (conversation_id, sender_id, body) values ($1, $2, 'Yes, come at 10')`, conv, owner.ID))
	if got := e.unread(t, buyer, conv); got != 1 {
		t.Errorf("buyer unread = %d, want 1", got)
	}
	if got := e.unread(t, owner, conv); got != 0 {
		t.Errorf("answering leaves the owner %d unread", got)
	}
	ok(t, e.run(buyer.caller(), `select public.mark_conversation_read($1)`, conv))
	if got := e.unread(t, buyer, conv); got != 0 {
		t.Errorf("after reading, buyer unread = %d", got)
	}
	if n := e.int64(t, `select count(*) from public.notifications where user_id = $1 and read_at is null`, buyer.ID); n != 0 {
		t.Errorf("reading the conversation left %d unread notifications", n)
	}
	fails(t, e.try(stranger.caller(), `select public.mark_conversation_read($1)`, conv), "P0001", "Conversation not found")
	fails(t, e.try(stranger.caller(), `insert into public.messages (conversation_id, sender_id, body) values ($1, $2, 'hi')`, conv, stranger.ID),
		"42501", "")

	// Conversation partners see each other's public profile, nobody else's.
	var seen int64
	e.value(t, owner.caller(), &seen, `select count(*) from public.public_profiles where id in ($1, $2)`, buyer.ID, stranger.ID)
	if seen != 1 {
		t.Errorf("owner sees %d of (partner, stranger) public profiles, want 1", seen)
	}
}

func TestStartConversationRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, buyer := e.newUser(t, "Owner Atieno"), e.newUser(t, "Buyer Onyango")
	prop := e.activeProperty(t, owner, "Two bedroom in Umoja")
	var draft string
	e.scalar(t, &draft, `insert into public.lands (userid, title, location, type, purpose, price) values ($1, 'Draft plot', 'Juja', 'Residential', 'Sale', 900000) returning id::text`, owner.ID)
	cases := []struct {
		name, kind, id, body string
		who                  user
		code, message        string
	}{
		{"own listing", "property", prop, "hello", owner, "P0001", "This is your own listing"},
		{"unpublished listing", "land", draft, "hello", buyer, "P0001", "Listing not found"},
		{"unknown listing", "property", "00000000-0000-0000-0000-000000000000", "hello", buyer, "P0001", "Listing not found"},
		{"unknown kind", "car", prop, "hello", buyer, "P0001", "Listing kind must be property, land, product or service"},
		{"empty message", "property", prop, "   ", buyer, "P0001", "Message cannot be empty"},
		{"long message", "property", prop, strings.Repeat("x", 2001), buyer, "P0001", "Message is too long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fails(t, e.try(c.who.caller(), `select public.start_conversation($1, $2::uuid, $3)`, c.kind, c.id, c.body), c.code, c.message)
		})
	}
	fails(t, e.try(Anon(), `select public.start_conversation('property', $1, 'hello')`, prop), "42501", "")
}

// Twenty messages a minute per sender, then a clear refusal.
func TestMessageFloodGuard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, buyer := e.newUser(t, "Owner Chebet"), e.newUser(t, "Buyer Flood")
	prop := e.activeProperty(t, owner, "Shop in Gikomba")
	var conv string
	e.value(t, buyer.caller(), &conv, `select public.start_conversation('property', $1, 'message 1')::text`, prop)
	for i := 2; i <= 20; i++ {
		ok(t, e.run(buyer.caller(), `insert into public.messages (conversation_id, sender_id, body) values ($1, $2, $3)`, conv, buyer.ID, fmt.Sprint("message ", i)))
	}
	fails(t, e.try(buyer.caller(), `insert into public.messages (conversation_id, sender_id, body) values ($1, $2, 'one too many')`, conv, buyer.ID),
		"P0001", "You are sending messages too fast")
	// The other party is not held back by the sender's flood.
	ok(t, e.run(owner.caller(), `insert into public.messages (conversation_id, sender_id, body) values ($1, $2, 'Slow down please')`, conv, owner.ID))
}

// Each event is told to the right person once, in the reader's terms.
func TestNotificationsFromEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, seller, buyer := e.newUser(t, "Lister Wambui"), e.newUser(t, "Seller Korir"), e.newUser(t, "Buyer Anyango")
	admin := e.newAdmin(t, "Inbox Admin")
	kinds := func(u user) map[string]int64 {
		t.Helper()
		rows, err := e.super.Query(t.Context(), `select kind, count(*) from public.notifications where user_id = $1 group by kind`, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]int64{}
		for rows.Next() {
			var k string
			var n int64
			_ = rows.Scan(&k, &n)
			m[k] = n
		}
		return m
	}

	// Listing moderation: approved, then a second one rejected with notes.
	e.issue(t, owner, "nestcoins", 5000)
	var approved, rejected string
	e.scalar(t, &approved, `insert into public.products (user_id, name, price, category) values ($1, 'Sofa set', 30000, 'Furniture') returning id::text`, owner.ID)
	e.scalar(t, &rejected, `insert into public.products (user_id, name, price, category) values ($1, 'Fridge', 20000, 'Appliances') returning id::text`, owner.ID)
	for _, id := range []string{approved, rejected} {
		ok(t, e.run(owner.caller(), `select public.publish_listing('product', $1, 7)`, id))
	}
	ok(t, e.run(admin.caller(), `select public.moderate_listing('product', $1, 'approved')`, approved))
	ok(t, e.run(admin.caller(), `select public.moderate_listing('product', $1, 'rejected', 'Photos are blurry')`, rejected))
	var notes, link string
	e.value(t, owner.caller(), &notes, `select data ->> 'notes' from public.notifications where kind = 'listing_rejected'`)
	e.value(t, owner.caller(), &link, `select link from public.notifications where kind = 'listing_approved'`)
	if notes != "Photos are blurry" || link != "/my-products" {
		t.Errorf("moderation notices: notes %q, link %q", notes, link)
	}

	// KYC decided.
	var kyc string
	e.value(t, owner.caller(), &kyc, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '23456789') returning id::text`, owner.ID)
	ok(t, e.run(admin.caller(), `select public.process_kyc_verification($1, $2, 'rejected', 'ID photo unreadable')`, kyc, admin.ID))

	// Expiring within 3 days: told once per paid period, however often the sweep runs.
	e.mustSuper(t, `update public.products set paid_until = now() + interval '2 days' where id = $1`, approved)
	var n int
	e.value(t, Service(), &n, `select public.notify_expiring_listings()`)
	if n != 1 {
		t.Errorf("first expiring sweep added %d, want 1", n)
	}
	e.value(t, Service(), &n, `select public.notify_expiring_listings()`)
	if n != 0 {
		t.Errorf("repeated expiring sweep added %d, want 0", n)
	}
	fails(t, e.try(owner.caller(), `select public.notify_expiring_listings()`), "42501", "Admin privileges required")

	got := kinds(owner)
	want := map[string]int64{"listing_approved": 1, "listing_rejected": 1, "kyc_rejected": 1, "listing_expiring": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("owner's %s notifications = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}

	// A trade: the seller hears of the lock and of the payment; the buyer
	// of the release; each never of their own action.
	e.issue(t, seller, "nestcoins", 500)
	offer := e.createOffer(t, seller, "sell", "nestcoins", 500, 10, 200, "1.50")
	var trade string
	e.value(t, buyer.caller(), &trade, lockAt, offer, buyer.ID, 100, "1.50")
	ok(t, e.run(buyer.caller(), `select public.mark_trade_paid($1, 'SGK3H8PQ2X')`, trade))
	ok(t, e.run(seller.caller(), `select public.release_trade($1)`, trade))
	statuses := func(u user) string {
		var s string
		e.scalar(t, &s, `select coalesce(string_agg(data ->> 'status', ',' order by id), '') from public.notifications where user_id = $1 and kind = 'trade'`, u.ID)
		return s
	}
	if s := statuses(seller); s != "escrow_locked,paid" {
		t.Errorf("seller's trade notices %q, want escrow_locked,paid", s)
	}
	if s := statuses(buyer); s != "completed" {
		t.Errorf("buyer's trade notices %q, want completed", s)
	}
	e.value(t, seller.caller(), &link, `select link from public.notifications where kind = 'trade' limit 1`)
	if link != "/p2p/trades/"+trade {
		t.Errorf("trade notice link %q", link)
	}

	// Owners mark read and delete their own; others cannot touch them.
	if r := e.run(buyer.caller(), `update public.notifications set read_at = now() where user_id = $1`, seller.ID); r.Rows != 0 {
		t.Errorf("buyer marked %d of the seller's notifications", r.Rows)
	}
	if r := e.run(seller.caller(), `update public.notifications set read_at = now() where read_at is null`); r.Err != nil || r.Rows != 2 {
		t.Errorf("mark all read: %v, %d rows", r.Err, r.Rows)
	}
	e.checkLedger(t)
}

// Saved listings follow visibility and vanish with the listing.
func TestSavedListings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, fan := e.newUser(t, "Owner Saved"), e.newUser(t, "Fan Mwangi")
	prop := e.activeProperty(t, owner, "Studio in Kileleshwa")
	ok(t, e.run(fan.caller(), `insert into public.saved_listings (listing_kind, listing_id) values ('property', $1)`, prop))
	fails(t, e.try(fan.caller(), `insert into public.saved_listings (listing_kind, listing_id) values ('property', $1)`, prop), "23505", "")
	fails(t, e.try(fan.caller(), `insert into public.saved_listings (listing_kind, listing_id) values ('land', $1)`, prop), "42501", "")
	ok(t, e.run(owner.caller(), `delete from public.properties where id = $1`, prop))
	if n := e.int64(t, `select count(*) from public.saved_listings where listing_id = $1`, prop); n != 0 {
		t.Errorf("%d saved rows outlive their listing", n)
	}
}

// The contact form: anyone may write, a flood is refused, only admins read.
func TestContactForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Contact Admin")
	const insert = `insert into public.contact_messages (name, email, message) values ($1, $2, 'Habari, I have a question about fees.')`
	for i := 0; i < 3; i++ {
		ok(t, e.run(Anon(), insert, "Achieng Otieno", "  Achieng@Example.com "))
	}
	fails(t, e.try(Anon(), insert, "Achieng Otieno", "achieng@example.com"), "P0001", "Too many messages")
	var email string
	e.value(t, admin.caller(), &email, `select distinct email from public.contact_messages`)
	if email != "achieng@example.com" {
		t.Errorf("stored e-mail %q, want it trimmed and lower-cased", email)
	}
	bad := []struct{ name, email, message string }{
		{"A", "a@example.com", "long enough message"},
		{"Valid Name", "not-an-email", "long enough message"},
		{"Valid Name", "v@example.com", "short"},
	}
	for _, b := range bad {
		fails(t, e.try(Anon(), `insert into public.contact_messages (name, email, message) values ($1, $2, $3)`, b.name, b.email, b.message), "23514", "")
	}
	fails(t, e.try(Anon(), `select count(*) from public.contact_messages`), "42501", "")
}
