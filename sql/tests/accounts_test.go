package tests

import (
	"encoding/json"
	"testing"
)

func TestSignUpCreatesAccountRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Wanjiku Kamau")

	var name, role string
	e.scalar(t, &name, `select full_name from public.profiles where id = $1`, u.ID)
	e.scalar(t, &role, `select role from public.user_roles where user_id = $1`, u.ID)
	if name != "Wanjiku Kamau" || role != "user" {
		t.Errorf("profile %q, role %q", name, role)
	}
	if n := e.int64(t, `select count(*) from public.wallets where user_id = $1 and balance = 0`, u.ID); n != 3 {
		t.Errorf("%d wallets, want nestcoins, crystals and keys", n)
	}
	// The sign-up metadata's role is never trusted.
	var id string
	e.scalar(t, &id, `insert into auth.users (id, aud, role, email, raw_user_meta_data) values (gen_random_uuid(), 'authenticated',
		'authenticated', 'sneaky@kejanest.test', '{"full_name":"Sneaky","role":"admin"}') returning id::text`)
	e.scalar(t, &role, `select role from public.user_roles where user_id = $1`, id)
	if role != "user" {
		t.Errorf("metadata role admin gave role %s", role)
	}

	// The app's role insert after sign-up succeeds without a second row.
	ok(t, e.run(u.caller(), `insert into public.user_roles (user_id, role) values ($1, 'user')`, u.ID))
	if r := e.try(u.caller(), `select role from public.user_roles where user_id = $1`, u.ID); r.Rows != 1 {
		t.Errorf("%d role rows", r.Rows)
	}
	fails(t, e.try(u.caller(), `insert into public.user_roles (user_id, role) values ($1, 'admin')`, u.ID), "42501", "")
	if r := e.run(u.caller(), `update public.user_roles set role = 'admin' where user_id = $1`, u.ID); r.Err != nil || r.Rows != 0 {
		t.Errorf("self-promotion: %+v", r)
	}
	if r := e.try(u.caller(), `select public.is_admin()`); r.Err != nil {
		t.Error(r.Err)
	}

	// Metadata updates (PUT /auth/v1/user) reach the profile.
	e.mustSuper(t, `update auth.users set raw_user_meta_data = raw_user_meta_data || '{"full_name":"Wanjiku K.","phone_number":"0711222333"}' where id = $1`, u.ID)
	var phone string
	e.scalar(t, &name, `select full_name from public.profiles where id = $1`, u.ID)
	e.scalar(t, &phone, `select phone_number from public.profiles where id = $1`, u.ID)
	if name != "Wanjiku K." || phone != "0711222333" {
		t.Errorf("after metadata update: %q %q", name, phone)
	}
	// Deleting the auth user removes the account rows (no ledger history).
	e.mustSuper(t, `delete from auth.users where id = $1`, id)
	if n := e.int64(t, `select count(*) from public.profiles where id = $1`, id); n != 0 {
		t.Errorf("profile left behind")
	}
}

func TestProfileRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Profile Owner")
	update := `update public.profiles set full_name = $2, phone_number = $3 where id = $1`
	cases := []struct {
		name, fullName, phone, msg string
	}{
		{"valid", "Otieno Brian", "+254 712 345 678", ""},
		{"empty values are cleared", "  ", "", ""},
		{"short name", "B", "0712345678", "Name must be at least 2 characters"},
		{"short phone", "Brian", "07123", "Phone number must be at least 10 digits"},
	}
	for _, tc := range cases {
		r := e.try(u.caller(), update, u.ID, tc.fullName, tc.phone)
		if tc.msg == "" {
			ok(t, r)
		} else {
			fails(t, r, "P0001", tc.msg)
		}
	}
}

// Codes are made and checked by the server (spec §5, §8 messages).
func TestContactVerification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Verify Me")
	verify := `select public.verify_contact_code($1, $2)`

	fails(t, e.try(u.caller(), verify, "email", "123456"), "P0001", "No verification code found. Please request a new one.")
	fails(t, e.try(u.caller(), `select public.request_verification_code('phone')`), "P0001", "Please update your phone number in profile first")

	var raw []byte
	e.value(t, u.caller(), &raw, `select public.request_verification_code('email')::text`)
	var sent struct{ Code, Destination string }
	_ = json.Unmarshal(raw, &sent)
	if len(sent.Code) != 6 || sent.Destination != u.Email {
		t.Fatalf("request_verification_code: %s", raw)
	}
	var stored string
	e.scalar(t, &stored, `select email_verification_code from public.user_verifications where user_id = $1`, u.ID)
	if stored == sent.Code {
		t.Error("the code is stored in clear")
	}
	wrong := "000000"
	if sent.Code == wrong {
		wrong = "111111"
	}
	var good bool
	e.value(t, u.caller(), &good, verify, "email", wrong)
	if good {
		t.Error("a wrong code verified")
	}
	// The owner cannot set the flag directly.
	fails(t, e.try(u.caller(), `update public.user_verifications set email_verified = true where user_id = $1`, u.ID), "42501", "")
	e.value(t, u.caller(), &good, verify, "email", sent.Code)
	var verified bool
	e.scalar(t, &verified, `select email_verified and email_verification_code is null from public.user_verifications where user_id = $1`, u.ID)
	if !good || !verified {
		t.Errorf("correct code: %v, flag %v", good, verified)
	}

	// Expired codes, and five misses burn the code.
	ok(t, e.run(u.caller(), `update public.profiles set phone_number = '0712345678' where id = $1`, u.ID))
	e.value(t, u.caller(), &raw, `select public.request_verification_code('phone')::text`)
	e.mustSuper(t, `update public.user_verifications set phone_verification_expires_at = now() - interval '1 second' where user_id = $1`, u.ID)
	fails(t, e.try(u.caller(), verify, "phone", "123456"), "P0001", "Verification code has expired. Please request a new one.")
	e.value(t, u.caller(), &raw, `select public.request_verification_code('phone')::text`)
	_ = json.Unmarshal(raw, &sent)
	for range 5 {
		e.value(t, u.caller(), &good, verify, "phone", "x")
	}
	fails(t, e.try(u.caller(), verify, "phone", sent.Code), "P0001", "No verification code found. Please request a new one.")
}
