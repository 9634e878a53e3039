package tests

import (
	"cmp"
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

// The auth triggers copy the user's metadata into the profile only where it
// passes the same rules (0044): a sign-up sent straight to the API, or
// PUT /auth/v1/user {data}, cannot store what the profile form refuses. A
// failing value leaves the profile's as it was; the metadata keeps it.
func TestProfileRulesFromAuthMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The profile's values after a sign-up with metadata; "" is NULL.
	cases := []struct {
		name, metadata, wantName, wantPhone string
	}{
		{"valid", `{"full_name":" Akinyi Odhiambo ","phone_number":"0712 345 678"}`, "Akinyi Odhiambo", "0712 345 678"},
		{"one-letter name", `{"full_name":"A","phone_number":"+254712345678"}`, "", "+254712345678"},
		{"short phone", `{"full_name":"Baraka","phone_number":"1"}`, "Baraka", ""},
		{"blank values", `{"full_name":"  ","phone_number":" "}`, "", ""},
		{"not text", `{"full_name":{"x":1},"phone_number":12}`, "", ""},
	}
	profile := func(t *testing.T, id string) (name, phone string) {
		t.Helper()
		if err := e.super.QueryRow(t.Context(), `select coalesce(full_name, ''), coalesce(phone_number, '') from public.profiles where id = $1`, id).
			Scan(&name, &phone); err != nil {
			t.Fatal(err)
		}
		return name, phone
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var id string
			e.scalar(t, &id, `insert into auth.users (id, aud, role, email, raw_user_meta_data) values (gen_random_uuid(), 'authenticated',
				'authenticated', $1, $2) returning id::text`, "signup-"+randomSuffix()+"@kejanest.test", tc.metadata)
			if name, phone := profile(t, id); name != tc.wantName || phone != tc.wantPhone {
				t.Errorf("sign-up with %s: profile %q / %q, want %q / %q", tc.metadata, name, phone, tc.wantName, tc.wantPhone)
			}

			// The same metadata sent later to a valid profile: the valid
			// parts replace, the rest leaves the profile's values.
			u := e.newUser(t, "Valid Name")
			e.mustSuper(t, `update public.profiles set phone_number = '0799000111' where id = $1`, u.ID)
			e.mustSuper(t, `update auth.users set raw_user_meta_data = raw_user_meta_data || $2::jsonb where id = $1`, u.ID, tc.metadata)
			wantName, wantPhone := cmp.Or(tc.wantName, "Valid Name"), cmp.Or(tc.wantPhone, "0799000111")
			if name, phone := profile(t, u.ID); name != wantName || phone != wantPhone {
				t.Errorf("metadata update %s: profile %q / %q, want %q / %q", tc.metadata, name, phone, wantName, wantPhone)
			}
		})
	}
}

// Codes are made, sent and checked by the server (spec §5, §8 messages):
// the caller learns where the code went, never the code, which waits in
// the outbox authsvc sends from.
func TestContactVerification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Verify Me")
	verify := `select public.verify_contact_code($1, $2)`
	request := `select public.request_verification_code($1)::text`

	fails(t, e.try(u.caller(), verify, "email", "123456"), "P0001", "No verification code found. Please request a new one.")
	fails(t, e.try(u.caller(), request, "phone"), "P0001", "Please update your phone number in profile first")

	var raw []byte
	e.value(t, u.caller(), &raw, request, "email")
	var answer map[string]any
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	if _, leaked := answer["code"]; leaked || answer["destination"] != u.Email {
		t.Fatalf("request_verification_code answered %s; want the destination and no code", raw)
	}
	code := e.outboxCode(t, u, "email", u.Email)
	var stored string
	e.scalar(t, &stored, `select email_verification_code from public.user_verifications where user_id = $1`, u.ID)
	if stored == code {
		t.Error("the code is stored in clear")
	}
	// Nor is the hash the owner's to read: six digits crack offline within
	// the code's ten minutes (0043). The columns the app reads stay open.
	for _, column := range []string{"email_verification_code", "phone_verification_code", "*"} {
		fails(t, e.try(u.caller(), `select `+column+` from public.user_verifications where user_id = $1`, u.ID), "42501", "permission denied for table user_verifications")
	}
	if r := e.run(u.caller(), `select email_verified, phone_verified, email_verification_expires_at, phone_verification_expires_at
		from public.user_verifications where user_id = $1`, u.ID); r.Err != nil || r.Rows != 1 {
		t.Errorf("the app's read of its own verification row: %d rows, %v", r.Rows, r.Message)
	}
	fails(t, e.try(u.caller(), request, "email"), "P0001", "Please wait a minute before requesting another code")
	// The outbox is the sender's, not the API's.
	fails(t, e.try(u.caller(), `select code from app_private.verification_outbox`), "42501", "")

	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	var good bool
	e.value(t, u.caller(), &good, verify, "email", wrong)
	if good {
		t.Error("a wrong code verified")
	}
	// The owner cannot set the flag directly.
	fails(t, e.try(u.caller(), `update public.user_verifications set email_verified = true where user_id = $1`, u.ID), "42501", "")
	e.value(t, u.caller(), &good, verify, "email", code)
	var verified bool
	e.scalar(t, &verified, `select email_verified and email_verification_code is null from public.user_verifications where user_id = $1`, u.ID)
	if !good || !verified {
		t.Errorf("correct code: %v, flag %v", good, verified)
	}
	fails(t, e.try(u.caller(), request, "email"), "P0001", "Your email is already verified")

	// Expired codes, and five misses burn the code. Phone codes go to the
	// number in E.164.
	ok(t, e.run(u.caller(), `update public.profiles set phone_number = '0712 345 678' where id = $1`, u.ID))
	e.value(t, u.caller(), &raw, request, "phone")
	e.mustSuper(t, `update public.user_verifications set phone_verification_expires_at = now() - interval '1 second' where user_id = $1`, u.ID)
	fails(t, e.try(u.caller(), verify, "phone", "123456"), "P0001", "Verification code has expired. Please request a new one.")
	e.value(t, u.caller(), &raw, request, "phone")
	code = e.outboxCode(t, u, "phone", "+254712345678")
	for range 5 {
		e.value(t, u.caller(), &good, verify, "phone", "x")
	}
	fails(t, e.try(u.caller(), verify, "phone", code), "P0001", "No verification code found. Please request a new one.")
}

// A changed e-mail address or phone number is no longer verified, and a
// code on its way to the old one is withdrawn.
func TestChangedContactLosesVerification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.newUser(t, "Changes Contacts")
	ok(t, e.run(u.caller(), `update public.profiles set phone_number = '0712345678' where id = $1`, u.ID))
	e.mustSuper(t, `insert into public.user_verifications (user_id, email_verified, phone_verified) values ($1, true, true)`, u.ID)

	flags := func() (email, phone bool) {
		t.Helper()
		if err := e.super.QueryRow(t.Context(), `select email_verified, phone_verified from public.user_verifications where user_id = $1`,
			u.ID).Scan(&email, &phone); err != nil {
			t.Fatal(err)
		}
		return email, phone
	}
	// The same number written differently is the same number.
	ok(t, e.run(u.caller(), `update public.profiles set phone_number = '+254 712 345 678' where id = $1`, u.ID))
	if email, phone := flags(); !email || !phone {
		t.Fatalf("reformatting the number cleared a flag: email %v phone %v", email, phone)
	}
	ok(t, e.run(u.caller(), `update public.profiles set phone_number = '0798765432' where id = $1`, u.ID))
	if email, phone := flags(); !email || phone {
		t.Fatalf("after a phone change: email %v phone %v, want true false", email, phone)
	}
	e.value(t, u.caller(), new([]byte), `select public.request_verification_code('phone')::text`)
	ok(t, e.run(u.caller(), `update public.profiles set phone_number = '0711111111' where id = $1`, u.ID))
	if n := e.int64(t, `select count(*) from app_private.verification_outbox where user_id = $1`, u.ID); n != 0 {
		t.Errorf("%d codes for the old number still queued", n)
	}
	e.mustSuper(t, `update auth.users set email = 'changed.' || email where id = $1`, u.ID)
	if email, _ := flags(); email {
		t.Error("an e-mail change kept email_verified")
	}
}

// outboxCode is what the sender would deliver: the one queued code of u for
// channel, which must be addressed to dest.
func (e *env) outboxCode(t *testing.T, u user, channel, dest string) string {
	t.Helper()
	var code, to string
	if err := e.super.QueryRow(t.Context(), `select code, destination from app_private.verification_outbox where user_id = $1 and channel = $2`,
		u.ID, channel).Scan(&code, &to); err != nil {
		t.Fatalf("the outbox holds no %s code: %v", channel, err)
	}
	if len(code) != 6 || to != dest {
		t.Fatalf("outbox holds code %q for %q; want six digits for %q", code, to, dest)
	}
	return code
}
