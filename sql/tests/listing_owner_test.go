package tests

import (
	"encoding/json"
	"testing"
)

// ownerFacts is get_listing_owner's answer; nil when the listing is hidden.
type ownerFacts struct {
	KYCVerified bool    `json:"kyc_verified"`
	Contact     *string `json:"contact"`
}

func (e *env) listingOwner(t *testing.T, c Caller, kind, id string) *ownerFacts {
	t.Helper()
	var raw *string
	e.value(t, c, &raw, `select public.get_listing_owner($1, $2)::text`, kind, id)
	if raw == nil {
		return nil
	}
	var f ownerFacts
	if err := json.Unmarshal([]byte(*raw), &f); err != nil {
		t.Fatalf("decode %s: %v", *raw, err)
	}
	return &f
}

func contactOf(f *ownerFacts) string {
	if f == nil || f.Contact == nil {
		return "<null>"
	}
	return *f.Contact
}

// The detail pages' owner facts (spec "Detail pages"): the KYC-verified badge
// for everyone who can see the listing, the contact for signed-in callers
// only, nothing for a listing the caller cannot see.
func TestGetListingOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.newUser(t, "Owner Otieno")
	other := e.newUser(t, "Visitor Wanjiru")
	admin := e.newAdmin(t, "Admin Achieng")
	e.mustSuper(t, `update public.profiles set phone_number = '0711222333' where id = $1`, owner.ID)

	var property, product, land, service, hidden string
	e.scalar(t, &property, `insert into public.properties (user_id, title, price, contact, is_active, payment_status)
		values ($1, 'Flat', 20000, '0722 000 111', true, 'paid') returning id::text`, owner.ID)
	e.scalar(t, &product, `insert into public.products (user_id, name, price, contact, is_active, payment_status)
		values ($1, 'Sofa', 15000, '0733000222', true, 'paid') returning id::text`, owner.ID)
	e.scalar(t, &land, `insert into public.lands (userid, title, location, price, is_active, payment_status)
		values ($1, 'Plot', 'Kitengela', 900000, true, 'paid') returning id::text`, owner.ID)
	e.scalar(t, &service, `insert into public.service_providers (userid, name, category, phone, is_active, payment_status)
		values ($1, 'Movers', 'Moving', '0744000333', true, 'paid') returning id::text`, owner.ID)
	e.scalar(t, &hidden, `insert into public.products (user_id, name, price, contact)
		values ($1, 'Draft lamp', 500, '0755000444') returning id::text`, owner.ID)

	t.Run("contacts by kind for a signed-in user", func(t *testing.T) {
		for _, c := range []struct{ kind, id, want string }{
			{"property", property, "0722 000 111"},
			{"product", product, "0733000222"},
			{"service", service, "0744000333"},
			{"land", land, "0711222333"}, // lands have no contact column: the owner's profile phone
		} {
			if got := contactOf(e.listingOwner(t, other.caller(), c.kind, c.id)); got != c.want {
				t.Errorf("%s contact = %s, want %s", c.kind, got, c.want)
			}
		}
	})

	t.Run("a listing without its own contact falls back to the profile phone", func(t *testing.T) {
		var bare string
		e.scalar(t, &bare, `insert into public.properties (user_id, title, price, contact, is_active, payment_status)
			values ($1, 'Bare', 10000, '  ', true, 'paid') returning id::text`, owner.ID)
		if got := contactOf(e.listingOwner(t, other.caller(), "property", bare)); got != "0711222333" {
			t.Errorf("contact = %s, want the profile phone", got)
		}
	})

	t.Run("anon sees the badge but no contact", func(t *testing.T) {
		for _, c := range []struct{ kind, id string }{{"property", property}, {"product", product}, {"land", land}, {"service", service}} {
			f := e.listingOwner(t, Anon(), c.kind, c.id)
			if f == nil {
				t.Fatalf("%s: hidden from anon", c.kind)
			}
			if f.Contact != nil {
				t.Errorf("%s: anon got contact %q", c.kind, *f.Contact)
			}
		}
	})

	t.Run("inactive listing: hidden from others, visible to owner and admin", func(t *testing.T) {
		if f := e.listingOwner(t, Anon(), "product", hidden); f != nil {
			t.Errorf("anon sees inactive listing: %+v", f)
		}
		if f := e.listingOwner(t, other.caller(), "product", hidden); f != nil {
			t.Errorf("other user sees inactive listing: %+v", f)
		}
		if got := contactOf(e.listingOwner(t, owner.caller(), "product", hidden)); got != "0755000444" {
			t.Errorf("owner contact = %s", got)
		}
		if got := contactOf(e.listingOwner(t, admin.caller(), "product", hidden)); got != "0755000444" {
			t.Errorf("admin contact = %s", got)
		}
		if f := e.listingOwner(t, other.caller(), "land", "00000000-0000-0000-0000-000000000000"); f != nil {
			t.Errorf("unknown id: %+v", f)
		}
	})

	t.Run("unknown kind", func(t *testing.T) {
		fails(t, e.try(Anon(), `select public.get_listing_owner('car', $1)`, property), "22023", "Unknown listing kind: car")
	})

	t.Run("KYC approved, pending, rejected", func(t *testing.T) {
		verified := func() bool {
			t.Helper()
			a := e.listingOwner(t, Anon(), "land", land)
			u := e.listingOwner(t, other.caller(), "land", land)
			if a == nil || u == nil || a.KYCVerified != u.KYCVerified {
				t.Fatalf("anon %+v vs signed-in %+v", a, u)
			}
			return a.KYCVerified
		}
		if verified() {
			t.Fatal("verified without a KYC submission")
		}
		var kyc string
		e.scalar(t, &kyc, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '22334455') returning id::text`, owner.ID)
		if verified() {
			t.Error("verified while pending")
		}
		e.mustSuper(t, `update public.kyc_verifications set verification_status = 'rejected' where id = $1`, kyc)
		if verified() {
			t.Error("verified after rejection")
		}
		e.mustSuper(t, `update public.kyc_verifications set verification_status = 'approved' where id = $1`, kyc)
		if !verified() {
			t.Error("not verified after approval")
		}
		// Another user's approval does not rub off.
		e.mustSuper(t, `insert into public.kyc_verifications (user_id, id_type, id_number, verification_status) values ($1, 'Passport', 'A1', 'approved')`, other.ID)
		var otherProduct string
		e.scalar(t, &otherProduct, `insert into public.products (user_id, name, price, is_active, payment_status)
			values ($1, 'Chair', 800, true, 'paid') returning id::text`, admin.ID)
		if f := e.listingOwner(t, Anon(), "product", otherProduct); f == nil || f.KYCVerified {
			t.Errorf("admin's product: %+v", f)
		}
	})
}
