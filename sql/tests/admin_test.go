package tests

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Each admin function checks the caller (auth.uid()), whatever p_admin_id
// says, and every refused admin action returns a message the app can show.
func TestAdminRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin, other := e.newAdmin(t, "Admin Refusals"), e.newAdmin(t, "Second Admin")
	u, target := e.newUser(t, "Plain User"), e.newUser(t, "Target User")
	var kycID, processedKYC, propID string
	e.scalar(t, &kycID, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '22334455') returning id::text`, target.ID)
	e.scalar(t, &processedKYC, `insert into public.kyc_verifications (user_id, id_type, id_number, verification_status) values ($1, 'Passport', 'AK1', 'approved') returning id::text`, u.ID)
	e.scalar(t, &propID, `insert into public.properties (user_id, title, type, purpose, price) values ($1, 'Bedsitter', 'Bedsitter', 'Rent', 8000) returning id::text`, target.ID)

	const adminRequired = "Admin privileges required"
	cases := []struct {
		name   string
		caller Caller
		sql    string
		args   []any
		code   string
		msg    string
	}{
		// Not an admin: refused, even when p_admin_id names the admin.
		{"get_user_email of another user", u.caller(), `select public.get_user_email($1)`, []any{target.ID}, "42501", adminRequired},
		{"get_user_suspension_info of another user", u.caller(), `select * from public.get_user_suspension_info($1)`, []any{target.ID}, "42501", adminRequired},
		{"suspend_user with the admin's id", u.caller(), `select public.suspend_user($1, $2, '10_days', null)`, []any{target.ID, admin.ID}, "42501", adminRequired},
		{"unsuspend_user", u.caller(), `select public.unsuspend_user($1, $2)`, []any{target.ID, admin.ID}, "42501", adminRequired},
		{"process_kyc_verification with the admin's id", u.caller(), `select public.process_kyc_verification($1, $2, 'approved', null)`, []any{kycID, admin.ID}, "42501", adminRequired},
		{"get_dashboard_stats", u.caller(), `select public.get_dashboard_stats()`, nil, "42501", adminRequired},
		{"moderate_listing", u.caller(), `select public.moderate_listing('property', $1, 'approved')`, []any{propID}, "42501", adminRequired},
		{"verify_service_provider", u.caller(), `select public.verify_service_provider(gen_random_uuid())`, nil, "42501", adminRequired},
		{"issue_currency", u.caller(), `select public.issue_currency($1, 'nestcoins', 1000000)`, []any{u.ID}, "42501", adminRequired},
		{"expire_listings", u.caller(), `select public.expire_listings()`, nil, "42501", adminRequired},
		{"run_expiry_sweeps", u.caller(), `select public.run_expiry_sweeps()`, nil, "42501", adminRequired},
		{"anonymous suspend_user", Anon(), `select public.suspend_user($1, $2, '10_days', null)`, []any{target.ID, admin.ID}, "42501", "permission denied for function suspend_user"},
		{"authenticated confirms a purchase", admin.caller(), `select public.confirm_nestcoin_purchase(gen_random_uuid(), 'X', 1)`, nil, "42501", "permission denied for function confirm_nestcoin_purchase"},

		// An admin, but the action itself is refused.
		{"suspension without duration", admin.caller(), `select public.suspend_user($1, $2, null, null)`, []any{target.ID, admin.ID}, "P0001", "Suspension duration is required"},
		{"unknown suspension type", admin.caller(), `select public.suspend_user($1, $2, '5_days', null)`, []any{target.ID, admin.ID}, "P0001", "Suspension type must be one of 10_days, 30_days, 60_days, permanent"},
		{"suspend unknown user", admin.caller(), `select public.suspend_user(gen_random_uuid(), $1, '10_days', null)`, []any{admin.ID}, "P0001", "User not found"},
		{"suspend yourself", admin.caller(), `select public.suspend_user($1, $1, '10_days', null)`, []any{admin.ID}, "P0001", "You cannot suspend your own account"},
		{"suspend an admin", admin.caller(), `select public.suspend_user($1, $2, 'permanent', null)`, []any{other.ID, admin.ID}, "P0001", "Administrators cannot be suspended"},
		{"lift a suspension that is not there", admin.caller(), `select public.unsuspend_user($1)`, []any{target.ID}, "P0001", "User is not suspended"},
		{"unknown KYC action", admin.caller(), `select public.process_kyc_verification($1, $2, 'maybe', null)`, []any{kycID, admin.ID}, "P0001", "Action must be approved or rejected"},
		{"unknown KYC submission", admin.caller(), `select public.process_kyc_verification(gen_random_uuid(), $1, 'approved', null)`, []any{admin.ID}, "P0001", "KYC submission not found"},
		{"KYC already processed", admin.caller(), `select public.process_kyc_verification($1, $2, 'rejected', null)`, []any{processedKYC, admin.ID}, "P0001", "KYC submission has already been approved"},
		{"moderate a listing that is not pending", admin.caller(), `select public.moderate_listing('property', $1, 'approved')`, []any{propID}, "P0001", "Only listings pending review can be moderated"},
		{"moderate with an unknown action", admin.caller(), `select public.moderate_listing('property', $1, 'maybe')`, []any{propID}, "P0001", "Action must be approved or rejected"},
		{"moderate an unknown kind", admin.caller(), `select public.moderate_listing('boat', $1, 'approved')`, []any{propID}, "P0001", "Listing kind must be property, land, product or service"},
		{"verify an unknown provider", admin.caller(), `select public.verify_service_provider(gen_random_uuid())`, nil, "P0001", "Service provider not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fails(t, e.try(tc.caller, tc.sql, tc.args...), tc.code, tc.msg)
		})
	}
}

func TestAdminActions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Acting Admin")
	u := e.newUser(t, "Suspendable User")

	// A user may read their own e-mail and suspension; the admin anyone's.
	var email string
	e.value(t, u.caller(), &email, `select public.get_user_email($1)`, u.ID)
	if email != u.Email {
		t.Errorf("own e-mail %q", email)
	}
	e.value(t, admin.caller(), &email, `select public.get_user_email($1)`, u.ID)
	if email != u.Email {
		t.Errorf("admin read e-mail %q", email)
	}
	if r := e.try(admin.caller(), `select * from public.get_user_suspension_info($1)`, u.ID); r.Err != nil || r.Rows != 0 {
		t.Fatalf("suspension info before: %+v", r)
	}

	// suspend_user records the caller as the admin, whatever p_admin_id says.
	var suspendedBy string
	e.value(t, admin.caller(), &suspendedBy, `select (public.suspend_user($1, $1, '10_days', '  Spam listings ')).suspended_by::text`, u.ID)
	if suspendedBy != admin.ID {
		t.Errorf("suspended_by %s, want the calling admin", suspendedBy)
	}
	var banned time.Time
	e.scalar(t, &banned, `select banned_until from auth.users where id = $1`, u.ID)
	if !near(banned, time.Now().Add(10*24*time.Hour), time.Minute) {
		t.Errorf("banned_until %v, want 10 days from now", banned)
	}
	var info []map[string]any
	e.value(t, admin.caller(), &info, `select coalesce(json_agg(s), '[]') from public.get_user_suspension_info($1) s`, u.ID)
	if len(info) != 1 || info[0]["suspension_type"] != "10_days" || info[0]["reason"] != "Spam listings" {
		t.Errorf("suspension info %v", info)
	}
	fails(t, e.try(admin.caller(), `select public.suspend_user($1, $2, 'permanent', null)`, u.ID, admin.ID), "P0001", "User is already suspended")
	fails(t, e.try(u.caller(), `select public.request_verification_code('email')`), "42501", "Your account is suspended")

	ok(t, e.run(admin.caller(), `select public.unsuspend_user($1)`, u.ID))
	var bannedNull bool
	e.scalar(t, &bannedNull, `select banned_until is null from auth.users where id = $1`, u.ID)
	if !bannedNull {
		t.Error("banned_until not cleared")
	}
	ok(t, e.run(Service(), `select public.suspend_user($1, $2, 'permanent', null)`, u.ID, admin.ID))
	e.scalar(t, &banned, `select banned_until from auth.users where id = $1`, u.ID)
	if banned.Before(time.Now().Add(99 * 365 * 24 * time.Hour)) {
		t.Errorf("permanent suspension banned until %v", banned)
	}

	// KYC: pending -> approved, with notes and the reviewer.
	kycOwner := e.newUser(t, "KYC Owner")
	var kycID string
	e.value(t, kycOwner.caller(), &kycID, `insert into public.kyc_verifications (user_id, id_type, id_number, physical_address)
		values ($1, 'National ID', '30111222', 'Moi Avenue, Nairobi') returning id::text`, kycOwner.ID)
	var status, reviewer string
	err := As(t.Context(), e.api, admin.caller(), true, func(tx pgx.Tx) error {
		return tx.QueryRow(t.Context(), `select verification_status, reviewed_by::text from public.process_kyc_verification($1, gen_random_uuid(), 'rejected', 'ID photo is blurred')`,
			kycID).Scan(&status, &reviewer)
	})
	if err != nil || status != "rejected" || reviewer != admin.ID {
		t.Fatalf("process_kyc_verification: %s %s %v", status, reviewer, err)
	}
	// The owner resubmits: back to pending, review cleared.
	ok(t, e.run(kycOwner.caller(), `update public.kyc_verifications set id_document_front_url = 'kyc/front-2.jpg' where id = $1`, kycID))
	e.scalar(t, &status, `select verification_status || coalesce(admin_notes, '') from public.kyc_verifications where id = $1`, kycID)
	if status != "pending" {
		t.Errorf("after resubmission: %s", status)
	}
	ok(t, e.run(admin.caller(), `select public.process_kyc_verification($1, $2, 'approved', null)`, kycID, admin.ID))
	// An approved submission can no longer be edited by its owner.
	if r := e.run(kycOwner.caller(), `update public.kyc_verifications set id_number = '1' where id = $1`, kycID); r.Err != nil || r.Rows != 0 {
		t.Errorf("edit after approval: %+v", r)
	}
}

func TestDashboardStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Stats Admin")
	u := e.newUser(t, "Stats User")
	e.mustSuper(t, `insert into public.properties (user_id, type, purpose, price, is_active, payment_status, paid_until) values
		($1, 'Bedsitter', 'Rent', 8000, true, 'paid', now() + interval '1 day'),
		($1, 'Bedsitter', 'Rent', 8000, false, 'pending', null),
		($1, 'Bedsitter', 'Rent', 8000, false, 'unpaid', null)`, u.ID)
	e.mustSuper(t, `insert into public.products (user_id, name, price, is_active, payment_status, paid_until) values
		($1, 'Sofa', 20000, true, 'paid', now() + interval '1 day'), ($1, 'Fridge', 60000, false, 'pending', null)`, u.ID)
	e.mustSuper(t, `insert into public.service_providers (userid, name, category) values ($1, 'A', 'Drone'), ($1, 'B', 'Moving'), ($1, 'C', 'Moving')`, u.ID)
	e.mustSuper(t, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '1')`, u.ID)

	var raw []byte
	e.value(t, admin.caller(), &raw, `select public.get_dashboard_stats()::text`)
	var got map[string]int64
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"totalUsers": 2, "totalProperties": 3, "totalProducts": 2, "totalDroneServices": 1,
		"totalMovingServices": 2, "activeProperties": 1, "activeProducts": 1, "pendingProperties": 1, "pendingProducts": 1, "pendingKYC": 1}
	if len(got) != len(want) {
		t.Errorf("fields %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
}
