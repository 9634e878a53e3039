package tests

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// sessionCaller is a signed-in caller whose JWT also carries session_id and
// aal, as authsvc issues them (the admin access step and MFA depend on them).
type sessionCaller struct {
	Caller
	SessionID string
	AAL       string
}

func (c sessionCaller) claims() string {
	m := map[string]any{"role": c.Role, "sub": c.UserID, "aud": "authenticated", "email": c.Email,
		"session_id": c.SessionID, "aal": c.AAL}
	b, _ := json.Marshal(m)
	return string(b)
}

// exec runs sql as c (custom claims) and commits when commit is true.
func (c sessionCaller) exec(e *env, commit bool, dest any, sql string, args ...any) Result {
	ctx := context.Background()
	tx, err := e.api.Begin(ctx)
	if err != nil {
		return resultOf(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	run := func() error {
		if _, err := tx.Exec(ctx, Preamble, c.Role, c.claims()); err != nil {
			return err
		}
		row := tx.QueryRow(ctx, sql, args...)
		if dest == nil {
			var discard any
			return row.Scan(&discard)
		}
		return row.Scan(dest)
	}
	if err := run(); err != nil {
		return resultOf(err)
	}
	if commit {
		if err := tx.Commit(ctx); err != nil {
			return resultOf(err)
		}
	}
	return Result{Rows: 1}
}

func resultOf(err error) Result {
	res := Result{Err: err, Message: err.Error()}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		res.Code, res.Message = pgErr.Code, pgErr.Message
	}
	return res
}

// newSession creates an auth.sessions row for u, as sign-in does.
func (e *env) newSession(t *testing.T, u user) string {
	t.Helper()
	var id string
	e.scalar(t, &id, `insert into auth.sessions (id, user_id, created_at, updated_at, aal) values (gen_random_uuid(), $1, now(), now(), 'aal1') returning id::text`, u.ID)
	return id
}

func auditCount(t *testing.T, e *env, action, subject string) int64 {
	t.Helper()
	return e.int64(t, `select count(*) from public.admin_audit where action = $1 and subject_user_id = $2`, action, subject)
}

// The access code: wrong codes are refused and audited, five misses in 15
// minutes lock the step (even for the right code), the right code marks the
// session (and only that session) admin-verified, and sign-out ends it.
func TestAdminAccessCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Access Admin")
	u := e.newUser(t, "Access User")
	sess := sessionCaller{Caller: admin.caller(), SessionID: e.newSession(t, admin), AAL: "aal1"}
	other := sessionCaller{Caller: admin.caller(), SessionID: e.newSession(t, admin), AAL: "aal1"}

	var verified bool
	if r := sess.exec(e, true, &verified, `select public.admin_session_verified()`); r.Err != nil || verified {
		t.Fatalf("verified before the code: %v %+v", verified, r)
	}
	var out map[string]any
	if r := sess.exec(e, true, &out, `select public.verify_admin_access('not-the-code')`); r.Err != nil {
		t.Fatal(r.Message)
	}
	if out["verified"] != false || out["error"] != "invalid_code" || out["attempts_left"] != float64(4) {
		t.Errorf("wrong code: %v", out)
	}
	if n := auditCount(t, e, "access.refused", admin.ID); n != 1 {
		t.Errorf("refusals audited: %d", n)
	}
	if r := sess.exec(e, true, &out, `select public.verify_admin_access(' KEJA-ADMIN-2024 ')`); r.Err != nil || out["verified"] != true {
		t.Fatalf("right code: %v %+v", out, r)
	}
	if n := auditCount(t, e, "access.granted", admin.ID); n != 1 {
		t.Errorf("grants audited: %d", n)
	}
	sess.exec(e, false, &verified, `select public.admin_session_verified()`)
	if !verified {
		t.Error("session not verified after the right code")
	}
	other.exec(e, false, &verified, `select public.admin_session_verified()`)
	if verified {
		t.Error("another session of the admin is verified too")
	}
	// Sign-out deletes the session, and the verification with it.
	e.mustSuper(t, `delete from auth.sessions where id = $1`, sess.SessionID)
	sess.exec(e, false, &verified, `select public.admin_session_verified()`)
	if verified {
		t.Error("verification outlived its session")
	}
	fails(t, sess.exec(e, false, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`), "42501", "Sign in again to enter the access code")

	// Rate limit: 5 misses (one above) lock the step for 15 minutes.
	for i := 0; i < 4; i++ {
		other.exec(e, true, &out, `select public.verify_admin_access('guess')`)
	}
	if out["attempts_left"] != float64(0) {
		t.Errorf("fifth miss: %v", out)
	}
	other.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`)
	if out["verified"] != false || out["error"] != "too_many_attempts" || out["retry_after"] == nil {
		t.Errorf("right code while locked: %v", out)
	}
	if n := auditCount(t, e, "access.refused", admin.ID); n != 6 {
		t.Errorf("refusals audited: %d, want 6", n)
	}
	// The misses age out.
	e.mustSuper(t, `update app_private.admin_access_attempts set attempted_at = attempted_at - interval '16 minutes' where user_id = $1`, admin.ID)
	if r := other.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`); r.Err != nil || out["verified"] != true {
		t.Errorf("after the lock: %v %+v", out, r)
	}

	// Not an admin: refused, and the refusal is audited (it is returned, not
	// raised, so its row commits); the misses count against the same limit.
	us := sessionCaller{Caller: u.caller(), SessionID: e.newSession(t, u), AAL: "aal1"}
	for i := 0; i < 5; i++ {
		if r := us.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`); r.Err != nil {
			t.Fatalf("non-admin attempt: %s", r.Message)
		}
		if out["verified"] != false || out["error"] != "not_admin" {
			t.Errorf("non-admin attempt %d: %v", i, out)
		}
	}
	if n := auditCount(t, e, "access.refused", u.ID); n != 5 {
		t.Errorf("non-admin refusals audited: %d, want 5", n)
	}
	var actor, reason string
	e.scalar(t, &actor, `select actor_id::text from public.admin_audit where subject_user_id = $1 order by id desc limit 1`, u.ID)
	e.scalar(t, &reason, `select reason from public.admin_audit where subject_user_id = $1 order by id desc limit 1`, u.ID)
	if actor != u.ID || reason != "Not an administrator" {
		t.Errorf("non-admin audit row: actor %s reason %q", actor, reason)
	}
	// Beyond the limit a non-admin is refused without new audit rows, so a
	// loop of calls cannot fill the append-only log (0045); an admin over
	// the limit is still audited (above: 6 rows for 6 refusals).
	for i := 0; i < 10; i++ {
		us.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`)
		if out["error"] != "too_many_attempts" {
			t.Errorf("non-admin attempt %d over the limit: %v", 6+i, out)
		}
	}
	if n := auditCount(t, e, "access.refused", u.ID); n != 5 {
		t.Errorf("non-admin refusals audited after 15 attempts: %d, want the first 5", n)
	}
	us.exec(e, false, &verified, `select public.admin_session_verified()`)
	if verified {
		t.Error("a user's session is admin-verified")
	}
	fails(t, e.try(Service(), `select public.verify_admin_access('KEJA-ADMIN-2024')`), "P0001", "The access code is entered by a signed-in administrator")
	fails(t, e.try(Anon(), `select public.verify_admin_access('KEJA-ADMIN-2024')`), "42501", "permission denied for function verify_admin_access")
	// Changing the code is service_role's.
	fails(t, e.try(admin.caller(), `select public.set_admin_access_code('another-code-1')`), "42501", "permission denied for function set_admin_access_code")
	ok(t, e.run(Service(), `select public.set_admin_access_code('another-code-1')`))
	other.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`)
	if out["verified"] != false {
		t.Errorf("old code after the change: %v", out)
	}
	var stored string
	e.scalar(t, &stored, `select value from app_private.admin_settings where key = 'access_code_hash'`)
	if len(stored) < 50 || stored == "another-code-1" {
		t.Errorf("access code not stored hashed: %q", stored)
	}
}

// An admin with a verified MFA factor must be at aal2 for admin functions;
// the demo-style admin without a factor is not asked.
func TestAdminRequiresMFAWhenEnrolled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plain := e.newAdmin(t, "No Factor Admin")
	mfa := e.newAdmin(t, "Factor Admin")
	e.mustSuper(t, `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at)
		values (gen_random_uuid(), $1, 'Phone app', 'totp', 'unverified', now(), now())`, mfa.ID)

	aal1 := sessionCaller{Caller: mfa.caller(), SessionID: mfa.SessionID, AAL: "aal1"}
	// An unverified factor does not count yet.
	if r := aal1.exec(e, false, nil, `select public.get_dashboard_stats()`); r.Err != nil {
		t.Fatalf("unverified factor: %s", r.Message)
	}
	e.mustSuper(t, `update auth.mfa_factors set status = 'verified' where user_id = $1`, mfa.ID)
	for _, sql := range []string{
		`select public.get_dashboard_stats()`,
		`select public.admin_analytics(30)`,
		`select count(*) from public.admin_list_users(null, 10, 0)`,
	} {
		fails(t, aal1.exec(e, false, nil, sql), "42501", "Two-factor verification required")
	}
	// The access step sends an aal1 admin to the MFA step, audited.
	var out map[string]any
	if r := aal1.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`); r.Err != nil || out["error"] != "mfa_required" {
		t.Errorf("access code at aal1: %v %+v", out, r)
	}
	if n := auditCount(t, e, "access.refused", mfa.ID); n != 1 {
		t.Errorf("aal1 refusal audited %d times", n)
	}
	// is_admin (the RLS read policies) does not count an aal1 session either.
	e.mustSuper(t, `select app_private.audit($1, 'access.granted', 'session', null, $1, null)`, plain.ID)
	var isAdmin bool
	var rows int64
	aal1.exec(e, false, &isAdmin, `select public.is_admin()`)
	aal1.exec(e, false, &rows, `select count(*) from public.admin_audit`)
	if isAdmin || rows != 0 {
		t.Errorf("aal1 admin with a factor: is_admin %v, reads %d audit rows", isAdmin, rows)
	}
	aal2 := sessionCaller{Caller: mfa.caller(), SessionID: aal1.SessionID, AAL: "aal2"}
	aal2.exec(e, false, &isAdmin, `select public.is_admin()`)
	aal2.exec(e, false, &rows, `select count(*) from public.admin_audit`)
	if !isAdmin || rows == 0 {
		t.Errorf("aal2 admin: is_admin %v, reads %d audit rows", isAdmin, rows)
	}
	if r := aal2.exec(e, false, nil, `select public.get_dashboard_stats()`); r.Err != nil {
		t.Errorf("aal2: %s", r.Message)
	}
	// A new aal2 session still needs the code, then the functions open.
	fresh := sessionCaller{Caller: mfa.caller(), SessionID: e.newSession(t, mfa), AAL: "aal2"}
	fails(t, fresh.exec(e, false, nil, `select public.get_dashboard_stats()`), "42501", "Admin access code required")
	if r := fresh.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`); r.Err != nil || out["verified"] != true {
		t.Fatalf("access code at aal2: %v %+v", out, r)
	}
	if r := fresh.exec(e, false, nil, `select public.get_dashboard_stats()`); r.Err != nil {
		t.Errorf("aal2 after the code: %s", r.Message)
	}
	if r := e.try(plain.caller(), `select public.get_dashboard_stats()`); r.Err != nil {
		t.Errorf("admin without a factor: %s", r.Message)
	}
}

// Every admin function asks for the access code of the caller's session
// (admin_session_verified); service_role has no session and passes.
func TestAdminFunctionsRequireVerifiedSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Unverified Admin")
	u := e.newUser(t, "Someone")
	fresh := sessionCaller{Caller: admin.caller(), SessionID: e.newSession(t, admin), AAL: "aal1"}
	const zero = "00000000-0000-0000-0000-000000000000"
	for _, sql := range []string{
		`select public.get_dashboard_stats()`,
		`select public.admin_analytics(30)`,
		`select count(*) from public.admin_list_users(null, 10, 0)`,
		`select public.suspend_user('` + u.ID + `', '` + admin.ID + `', '10_days', null)`,
		`select public.moderate_listing('property', '` + zero + `', 'approved', null)`,
		`select public.admin_deactivate_listing('property', '` + zero + `', null)`,
		`select public.resolve_trade_dispute('` + zero + `', 'buyer', 'x')`,
		`select public.admin_delete_user('` + u.ID + `', null)`,
		`select public.get_user_email('` + u.ID + `')`,
	} {
		fails(t, fresh.exec(e, false, nil, sql), "42501", "Admin access code required")
	}
	// The same admin's verified session, and service_role, pass.
	for _, c := range []Caller{admin.caller(), Service()} {
		if r := e.try(c, `select public.get_dashboard_stats()`); r.Err != nil {
			t.Errorf("%s: %s", c.Role, r.Message)
		}
	}
	var email string
	e.value(t, Service(), &email, `select public.get_user_email($1)`, u.ID)
	if email != u.Email {
		t.Errorf("service_role get_user_email = %q", email)
	}
}

// The admin read policies (is_admin) ask for the access code too (0043): a
// session that never passed /admin/login reads what any user reads, for
// every kind of private row an admin policy opens; after the code, all of it.
func TestAdminReadsRequireVerifiedSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Reading Admin")
	u := e.newUser(t, "Private Person")
	e.mustSuper(t, `update public.profiles set phone_number = '0712000111' where id = $1`, u.ID)
	e.mustSuper(t, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '30111999')`, u.ID)
	e.mustSuper(t, `insert into public.user_verifications (user_id, phone_verified) values ($1, true)`, u.ID)
	e.mustSuper(t, `insert into public.properties (user_id, title, type, purpose, price, location, is_active)
		values ($1, 'Unpaid draft', 'Bedsitter', 'Rent', 9000, 'Ruaka', false)`, u.ID)
	e.mustSuper(t, `insert into storage.objects (bucket_id, name, owner_id) values ('kyc', $1 || '/front-1.jpg', $1)`, u.ID)
	reads := []struct{ name, sql string }{
		{"phone number", `select count(*) from public.profiles where id = $1 and phone_number is not null`},
		{"KYC submission", `select count(*) from public.kyc_verifications where user_id = $1`},
		{"contact verification", `select count(*) from public.user_verifications where user_id = $1`},
		{"wallets", `select count(*) from public.wallets where user_id = $1`},
		{"inactive listing", `select count(*) from public.properties where user_id = $1`},
		{"KYC document", `select count(*) from storage.objects where bucket_id = 'kyc' and owner_id = $1::text`},
	}
	fresh := sessionCaller{Caller: admin.caller(), SessionID: e.newSession(t, admin), AAL: "aal1"}
	read := func(name, sql string) int64 {
		t.Helper()
		var n int64
		if r := fresh.exec(e, false, &n, sql, u.ID); r.Err != nil {
			t.Fatalf("%s: %s", name, r.Message)
		}
		return n
	}
	isAdmin := func() bool {
		t.Helper()
		var yes bool
		if r := fresh.exec(e, false, &yes, `select public.is_admin()`); r.Err != nil {
			t.Fatalf("is_admin: %s", r.Message)
		}
		return yes
	}
	if isAdmin() {
		t.Error("before the access code: is_admin is true")
	}
	for _, c := range reads {
		if n := read(c.name, c.sql); n != 0 {
			t.Errorf("before the access code: %s read %d rows, want 0", c.name, n)
		}
	}
	var out map[string]any
	if r := fresh.exec(e, true, &out, `select public.verify_admin_access('KEJA-ADMIN-2024')`); r.Err != nil || out["verified"] != true {
		t.Fatalf("access code: %v %+v", out, r)
	}
	if !isAdmin() {
		t.Error("after the access code: is_admin is false")
	}
	for _, c := range reads {
		if n := read(c.name, c.sql); n < 1 {
			t.Errorf("after the access code: %s read %d rows, want at least 1", c.name, n)
		}
	}
}

// admin_delete_user: refuses admins and users with escrow (open trades,
// active offers), then closes the account without touching the ledger.
func TestAdminDeleteUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Deleting Admin")
	seller := e.newUser(t, "Leaving Seller")
	buyer := e.newUser(t, "Staying Buyer")
	e.mustSuper(t, `update public.profiles set phone_number = '0712999888' where id = $1`, seller.ID)

	fails(t, e.try(seller.caller(), `select public.admin_delete_user($1, null)`, buyer.ID), "42501", "Admin privileges required")
	fails(t, e.try(Anon(), `select public.admin_delete_user($1, null)`, buyer.ID), "42501", "permission denied for function admin_delete_user")
	fails(t, e.try(admin.caller(), `select public.admin_delete_user($1, null)`, admin.ID), "P0001", "An administrator profile cannot be deleted")
	fails(t, e.try(admin.caller(), `select public.admin_delete_user('00000000-0000-0000-0000-000000000000', null)`), "P0002", "This user does not exist")

	// Coins in escrow: an active sell offer, then an open trade.
	e.issue(t, seller, "nestcoins", 5000)
	e.issue(t, seller, "crystals", 500)
	var offerID, tradeID, propertyID string
	e.value(t, seller.caller(), &offerID, `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
		payment_methods, auto_cancel_duration, expires_at) values ($1, 'sell', 'crystals', 100, 5, 10, 100, '{M-Pesa}', '7 days', now() + interval '7 days') returning id::text`, seller.ID)
	fails(t, e.try(admin.caller(), `select public.admin_delete_user($1, null)`, seller.ID), "P0001", "This user has active P2P offers holding escrow; they must be closed first")
	e.value(t, buyer.caller(), &tradeID, `select (public.open_p2p_trade($1, 20, 5, 'M-Pesa')).id::text`, offerID)
	e.mustSuper(t, `update public.p2p_offers set status = 'cancelled' where id = $1`, offerID)
	fails(t, e.try(admin.caller(), `select public.admin_delete_user($1, null)`, seller.ID), "P0001", "This user has open P2P trades; resolve or wait for them first")
	ok(t, e.run(buyer.caller(), `select public.mark_trade_paid($1, 'QWE123RTY')`, tradeID))
	ok(t, e.run(seller.caller(), `select public.release_trade($1)`, tradeID))

	e.value(t, seller.caller(), &propertyID, `insert into public.properties (user_id, title, type, purpose, price, location) values ($1, 'Flat', 'Bedsitter', 'Rent', 9000, 'Karen') returning id::text`, seller.ID)
	ok(t, e.run(seller.caller(), `select public.publish_listing('property', $1, 3)`, propertyID))
	ok(t, e.run(admin.caller(), `select public.moderate_listing('property', $1, 'approved', null)`, propertyID))
	// A second listing still awaits review when the account closes.
	var pendingID string
	e.value(t, seller.caller(), &pendingID, `insert into public.properties (user_id, title, type, purpose, price, location) values ($1, 'Studio', 'Bedsitter', 'Rent', 7000, 'Kasarani') returning id::text`, seller.ID)
	ok(t, e.run(seller.caller(), `select public.publish_listing('property', $1, 3)`, pendingID))
	fee := e.int64(t, `select pending_fee from public.properties where id = $1`, pendingID)
	coins := func() int64 {
		return e.int64(t, `select balance from public.wallets where user_id = $1 and currency = 'nestcoins'`, seller.ID)
	}
	coinsBefore := coins()
	sum := func() int64 { return e.int64(t, `select coalesce(sum(balance), 0) from public.wallets`) }
	before := sum()
	sellerSession := e.newSession(t, seller)

	var out map[string]any
	e.value(t, admin.caller(), &out, `select public.admin_delete_user($1, 'Asked to leave')`, seller.ID)
	if out["deleted"] != true || out["listings_deactivated"] != float64(1) {
		t.Errorf("delete result: %v", out)
	}
	var active, deleted, banned bool
	var name, phone *string
	e.scalar(t, &active, `select is_active from public.properties where id = $1`, propertyID)
	e.scalar(t, &name, `select full_name from public.profiles where id = $1`, seller.ID)
	e.scalar(t, &phone, `select phone_number from public.profiles where id = $1`, seller.ID)
	e.scalar(t, &deleted, `select deleted_at is not null from auth.users where id = $1`, seller.ID)
	e.scalar(t, &banned, `select banned_until > now() + interval '50 years' from auth.users where id = $1`, seller.ID)
	if active || name != nil || phone != nil || !deleted || !banned {
		t.Errorf("after delete: active %v name %v phone %v deleted %v banned %v", active, name, phone, deleted, banned)
	}
	if n := e.int64(t, `select count(*) from auth.sessions where id = $1`, sellerSession); n != 0 {
		t.Error("the deleted user's session survived")
	}
	var pendingState string
	e.scalar(t, &pendingState, `select payment_status || ' ' || coalesce(moderation_notes, '') || ' ' || pending_fee from public.properties where id = $1`, pendingID)
	if pendingState != "rejected Account deleted 0" || fee <= 0 {
		t.Errorf("the listing awaiting review: %q (fee was %d), want rejected with its fee refunded", pendingState, fee)
	}
	if got := coins(); got != coinsBefore+fee {
		t.Errorf("nestcoins %d after delete, want %d + the refunded fee %d", got, coinsBefore, fee)
	}
	if n := auditCount(t, e, "listing.reject", seller.ID); n != 1 {
		t.Errorf("listing.reject audited %d times", n)
	}
	if after := sum(); after != before {
		t.Errorf("wallet total moved: %d -> %d", before, after)
	}
	if n := e.int64(t, `select count(*) from public.p2p_trades where id = $1`, tradeID); n != 1 {
		t.Error("the trade history is gone")
	}
	if n := auditCount(t, e, "user.delete", seller.ID); n != 1 {
		t.Errorf("user.delete audited %d times", n)
	}
	var n int64
	e.value(t, admin.caller(), &n, `select count(*) from public.admin_list_users($1, 10, 0)`, seller.Email)
	if n != 0 {
		t.Error("a deleted user is still listed")
	}
	fails(t, e.try(admin.caller(), `select public.admin_delete_user($1, null)`, seller.ID), "P0002", "This user does not exist")
}

// Every admin action leaves one audit row with the actor, subject and reason,
// and the audit cannot be changed by anyone.
func TestAdminAuditTrail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Audit Admin")
	owner := e.newUser(t, "Audit Owner")
	buyer := e.newUser(t, "Audit Buyer")

	ok(t, e.run(admin.caller(), `select public.suspend_user($1, $2, '30_days', 'Spam')`, owner.ID, admin.ID))
	ok(t, e.run(admin.caller(), `select public.unsuspend_user($1)`, owner.ID))

	var kycID string
	e.value(t, owner.caller(), &kycID, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '123') returning id::text`, owner.ID)
	ok(t, e.run(admin.caller(), `select public.process_kyc_verification($1, $2, 'approved', 'Clear photos')`, kycID, admin.ID))

	e.issue(t, owner, "nestcoins", 5000)
	var approveID, rejectID, serviceID string
	for _, dest := range []*string{&approveID, &rejectID} {
		e.value(t, owner.caller(), dest, `insert into public.properties (user_id, title, type, purpose, price, location) values ($1, 'Flat', 'Bedsitter', 'Rent', 9000, 'Karen') returning id::text`, owner.ID)
		ok(t, e.run(owner.caller(), `select public.publish_listing('property', $1, 3)`, *dest))
	}
	ok(t, e.run(admin.caller(), `select public.moderate_listing('property', $1, 'approved', 'Looks good')`, approveID))
	ok(t, e.run(admin.caller(), `select public.moderate_listing('property', $1, 'rejected', 'Blurry photos')`, rejectID))
	ok(t, e.run(admin.caller(), `select public.admin_deactivate_listing('property', $1, 'Reported as let')`, approveID))
	fails(t, e.try(admin.caller(), `select public.admin_deactivate_listing('property', $1, null)`, approveID), "P0001", "This listing is not active")
	e.value(t, owner.caller(), &serviceID, `insert into public.service_providers (userid, name, category) values ($1, 'Sky Drones', 'Drone') returning id::text`, owner.ID)
	ok(t, e.run(admin.caller(), `select public.verify_service_provider($1)`, serviceID))

	// A disputed trade, resolved to the buyer.
	e.issue(t, owner, "crystals", 500)
	var offerID, tradeID string
	e.value(t, owner.caller(), &offerID, `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit,
		payment_methods, auto_cancel_duration, expires_at) values ($1, 'sell', 'crystals', 100, 5, 10, 100, '{M-Pesa}', '7 days', now() + interval '7 days') returning id::text`, owner.ID)
	e.value(t, buyer.caller(), &tradeID, `select (public.open_p2p_trade($1, 20, 5, 'M-Pesa')).id::text`, offerID)
	ok(t, e.run(buyer.caller(), `select public.mark_trade_paid($1, 'QWE123RTY')`, tradeID))
	ok(t, e.run(buyer.caller(), `select public.dispute_trade($1, 'Coins not released')`, tradeID))
	ok(t, e.run(admin.caller(), `select public.resolve_trade_dispute($1, 'buyer', 'M-Pesa statement checked')`, tradeID))

	rows, err := e.super.Query(t.Context(), `select action, coalesce(actor_id::text, ''), coalesce(subject_user_id::text, ''), coalesce(reason, ''), target_id::text
		from public.admin_audit order by id`)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct{ action, actor, subject, reason, target string }
	var got []entry
	for rows.Next() {
		var en entry
		if err := rows.Scan(&en.action, &en.actor, &en.subject, &en.reason, &en.target); err != nil {
			t.Fatal(err)
		}
		got = append(got, en)
	}
	rows.Close()
	want := []entry{
		{"user.suspend", admin.ID, owner.ID, "Spam", owner.ID},
		{"user.unsuspend", admin.ID, owner.ID, "", owner.ID},
		{"kyc.approve", admin.ID, owner.ID, "Clear photos", kycID},
		{"listing.approve", admin.ID, owner.ID, "Looks good", approveID},
		{"listing.reject", admin.ID, owner.ID, "Blurry photos", rejectID},
		{"listing.deactivate", admin.ID, owner.ID, "Reported as let", approveID},
		{"provider.verify", admin.ID, owner.ID, "", serviceID},
		{"dispute.resolve", admin.ID, buyer.ID, "M-Pesa statement checked", tradeID},
	}
	if len(got) != len(want) {
		t.Fatalf("audit rows %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("audit row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// The owner's own actions are not audited as admin actions.
	ok(t, e.run(owner.caller(), `update public.service_providers set is_active = false where id = $1`, serviceID))
	if n := e.int64(t, `select count(*) from public.admin_audit`); n != int64(len(want)) {
		t.Errorf("owner's own update was audited (%d rows)", n)
	}
	// Append-only, for admins and even the table owner.
	if r := e.run(admin.caller(), `update public.admin_audit set reason = 'x'`); r.Err == nil {
		t.Error("admin updated the audit")
	}
	if _, err := e.super.Exec(t.Context(), `delete from public.admin_audit`); err == nil {
		t.Error("the audit could be deleted")
	}
	// Non-admins may not deactivate.
	fails(t, e.try(owner.caller(), `select public.admin_deactivate_listing('property', $1, null)`, rejectID), "42501", "Admin privileges required")
}

// admin_list_users: search over e-mail, name and phone, pagination with the
// total, KYC state and active suspension; admins only.
func TestAdminListUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Users Admin")
	a := e.newUser(t, "Zawadi Searchable")
	b := e.newUser(t, "Zawadi Second")
	c := e.newUser(t, "Other Person")
	e.mustSuper(t, `update public.profiles set phone_number = '0712000111' where id = $1`, c.ID)
	e.mustSuper(t, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'Passport', 'P1')`, a.ID)
	ok(t, e.run(admin.caller(), `select public.suspend_user($1, $2, 'permanent', 'Fraud')`, b.ID, admin.ID))

	type row struct {
		ID, Email, FullName, KYC, SuspensionType, Reason string
		Suspended                                        bool
		Total                                            int64
	}
	list := func(search any, limit, offset int) []row {
		t.Helper()
		var out []row
		err := As(t.Context(), e.api, admin.caller(), false, func(tx pgx.Tx) error {
			rows, err := tx.Query(t.Context(), `select id::text, email, coalesce(full_name, ''), coalesce(kyc_status, ''), is_suspended,
				coalesce(suspension_type, ''), coalesce(suspension_reason, ''), total_count from public.admin_list_users($1, $2, $3)`, search, limit, offset)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.ID, &r.Email, &r.FullName, &r.KYC, &r.Suspended, &r.SuspensionType, &r.Reason, &r.Total); err != nil {
					return err
				}
				out = append(out, r)
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := list(nil, 2, 0)
	if len(all) != 2 || all[0].Total != 4 {
		t.Fatalf("first page %+v", all)
	}
	if page2 := list(nil, 2, 2); len(page2) != 2 || page2[0].ID == all[0].ID || page2[0].ID == all[1].ID {
		t.Errorf("second page %+v", page2)
	}
	z := list("zawadi", 10, 0)
	if len(z) != 2 || z[0].Total != 2 {
		t.Fatalf("search by name %+v", z)
	}
	for _, r := range z {
		switch r.ID {
		case a.ID:
			if r.KYC != "pending" || r.Suspended {
				t.Errorf("a: %+v", r)
			}
		case b.ID:
			if !r.Suspended || r.SuspensionType != "permanent" || r.Reason != "Fraud" {
				t.Errorf("b: %+v", r)
			}
		default:
			t.Errorf("unexpected match %+v", r)
		}
	}
	if byMail := list(c.Email[:12], 10, 0); len(byMail) != 1 || byMail[0].ID != c.ID {
		t.Errorf("search by e-mail %+v", byMail)
	}
	if byPhone := list("0712000", 10, 0); len(byPhone) != 1 || byPhone[0].ID != c.ID {
		t.Errorf("search by phone %+v", byPhone)
	}
	if none := list("100%_", 10, 0); len(none) != 0 {
		t.Errorf("wildcards are literal: %+v", none)
	}
	fails(t, e.try(admin.caller(), `select * from public.admin_list_users(null, 500, 0)`), "P0001", "Page size must be between 1 and 100")
	fails(t, e.try(a.caller(), `select * from public.admin_list_users(null, 10, 0)`), "42501", "Admin privileges required")
	fails(t, e.try(Anon(), `select * from public.admin_list_users(null, 10, 0)`), "42501", "permission denied for function admin_list_users")
}

// admin_analytics aggregates signups, listings, fees and trades over the
// period; admins only.
func TestAdminAnalytics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Analytics Admin")
	owner := e.newUser(t, "Analytics Owner")
	old := e.newUser(t, "Old Signup")
	e.mustSuper(t, `update auth.users set created_at = now() - interval '60 days' where id = $1`, old.ID)
	e.issue(t, owner, "nestcoins", 5000)
	var propID, landID string
	e.value(t, owner.caller(), &propID, `insert into public.properties (user_id, title, type, purpose, price, location) values ($1, 'Flat', 'Bedsitter', 'Rent', 9000, 'Karen') returning id::text`, owner.ID)
	ok(t, e.run(owner.caller(), `select public.publish_listing('property', $1, 2)`, propID)) // 2 x 33
	e.value(t, owner.caller(), &landID, `insert into public.lands (userid, title, location, type, purpose, price) values ($1, 'Plot', 'Ruiru', 'Agricultural', 'Sale', 900000) returning id::text`, owner.ID)
	ok(t, e.run(owner.caller(), `select public.publish_listing('land', $1, 1)`, landID)) // 45
	ok(t, e.run(admin.caller(), `select public.moderate_listing('property', $1, 'rejected', 'No photos')`, propID))

	var raw []byte
	e.value(t, admin.caller(), &raw, `select public.admin_analytics(30)::text`)
	var got struct {
		Days    int
		Signups []struct {
			Day   string
			Count int64
		}
		Listings []struct {
			Kind                        string
			Total, Active, Pending, New int64
		}
		Fees []struct {
			Day    string
			Amount int64
		}
		FeesTotal int64
		Trades    []struct {
			Currency                  string
			Trades, Completed, Volume int64
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Days != 30 || len(got.Signups) != 30 || len(got.Fees) != 30 {
		t.Fatalf("series lengths: %d signups, %d fees", len(got.Signups), len(got.Fees))
	}
	var signups int64
	for _, s := range got.Signups {
		signups += s.Count
	}
	if signups != 2 { // admin and owner; the 60-day-old user is outside
		t.Errorf("signups in 30 days = %d, want 2", signups)
	}
	if got.FeesTotal != 45 || got.Fees[29].Amount != 45 { // the property's 66 was refunded
		t.Errorf("fees %d (today %d), want 45", got.FeesTotal, got.Fees[29].Amount)
	}
	kinds := map[string][4]int64{}
	for _, l := range got.Listings {
		kinds[l.Kind] = [4]int64{l.Total, l.Active, l.Pending, l.New}
	}
	if kinds["property"] != [4]int64{1, 0, 0, 1} || kinds["land"] != [4]int64{1, 1, 0, 1} || len(kinds) != 4 {
		t.Errorf("listings by kind %v", kinds)
	}
	if len(got.Trades) != 3 || got.Trades[0].Currency != "nestcoins" {
		t.Errorf("trades %+v", got.Trades)
	}
	e.value(t, admin.caller(), &raw, `select public.admin_analytics(90)::text`)
	_ = json.Unmarshal(raw, &got)
	if len(got.Signups) != 90 {
		t.Errorf("90-day series has %d days", len(got.Signups))
	}
	fails(t, e.try(admin.caller(), `select public.admin_analytics(7)`), "P0001", "The period must be 30 or 90 days")
	fails(t, e.try(owner.caller(), `select public.admin_analytics(30)`), "42501", "Admin privileges required")
	fails(t, e.try(Anon(), `select public.admin_analytics(30)`), "42501", "permission denied for function admin_analytics")
}

// obfuscated is what Supabase Auth's soft delete stores instead of a value:
// base64url (unpadded) of sha256(user id + value), computed here
// independently of the SQL.
func obfuscated(userID, value string) string {
	sum := sha256.Sum256([]byte(userID + value))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// admin_delete_user anonymises the auth user as auth.admin.deleteUser(id,
// true) does, so the address and phone can sign up again while the ledger
// keeps the user id.
func TestAdminDeleteUserFreesAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Freeing Admin")
	leaver := e.newUser(t, "Returning Leaver")
	const phone = "254712000111"
	e.mustSuper(t, `update auth.users set phone = $2, encrypted_password = 'x', recovery_token = 'r', email_change = 'new.' || email
		where id = $1`, leaver.ID, phone)
	e.mustSuper(t, `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
		values ($1::text, $1::text::uuid, jsonb_build_object('sub', $1::text, 'email', $2::text), 'email', now(), now())`, leaver.ID, leaver.Email)
	e.mustSuper(t, `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
		values (gen_random_uuid(), $1, 'phone app', 'totp', 'unverified', now(), now(), 'S')`, leaver.ID)
	e.mustSuper(t, `insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)
		values (gen_random_uuid(), $1, 'recovery_token', 'h', $2)`, leaver.ID, leaver.Email)
	e.issue(t, leaver, "nestcoins", 700)

	ok(t, e.run(admin.caller(), `select public.admin_delete_user($1, null)`, leaver.ID))

	var email, phoneNow, emailChange string
	var password *string
	var userMeta, appMeta string
	e.scalar(t, &email, `select email from auth.users where id = $1`, leaver.ID)
	e.scalar(t, &phoneNow, `select phone from auth.users where id = $1`, leaver.ID)
	e.scalar(t, &emailChange, `select email_change from auth.users where id = $1`, leaver.ID)
	e.scalar(t, &password, `select encrypted_password from auth.users where id = $1`, leaver.ID)
	e.scalar(t, &userMeta, `select raw_user_meta_data::text || raw_app_meta_data::text || recovery_token from auth.users where id = $1`, leaver.ID)
	e.scalar(t, &appMeta, `select raw_app_meta_data::text from auth.users where id = $1`, leaver.ID)
	if email != obfuscated(leaver.ID, leaver.Email) {
		t.Errorf("email %q, want %q", email, obfuscated(leaver.ID, leaver.Email))
	}
	if phoneNow != obfuscated(leaver.ID, phone)[:15] {
		t.Errorf("phone %q, want %q", phoneNow, obfuscated(leaver.ID, phone)[:15])
	}
	if emailChange != obfuscated(leaver.ID, "new."+leaver.Email) {
		t.Errorf("email_change %q", emailChange)
	}
	if password != nil || userMeta != "{}{}" || appMeta != "{}" {
		t.Errorf("password %v, metadata and token %q", password, userMeta)
	}
	var identityData, providerID string
	var identityEmail *string
	e.scalar(t, &identityData, `select identity_data::text from auth.identities where user_id = $1`, leaver.ID)
	e.scalar(t, &identityEmail, `select email from auth.identities where user_id = $1`, leaver.ID)
	e.scalar(t, &providerID, `select provider_id from auth.identities where user_id = $1`, leaver.ID)
	if identityData != "{}" || identityEmail != nil || providerID != obfuscated(leaver.ID, "email:"+leaver.ID) {
		t.Errorf("identity: data %s email %v provider_id %q", identityData, identityEmail, providerID)
	}
	for table, want := range map[string]int64{"auth.mfa_factors": 0, "auth.one_time_tokens": 0, "public.wallets": 3} {
		if n := e.int64(t, `select count(*) from `+table+` where user_id = $1`, leaver.ID); n != want {
			t.Errorf("%s rows of the deleted user: %d, want %d", table, n, want)
		}
	}
	if b := e.balance(t, leaver, "nestcoins"); b != 700 {
		t.Errorf("the deleted user's wallet balance moved: %d", b)
	}

	// Signing up again: a new auth user (and identity) with the same e-mail
	// and phone, found by the address as authsvc looks it up.
	var again string
	e.scalar(t, &again, `insert into auth.users (instance_id, id, aud, role, email, phone, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1, $2,
		        '{"provider":"email","providers":["email"]}', '{"full_name":"Back Again"}', now(), now()) returning id::text`, leaver.Email, phone)
	e.mustSuper(t, `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
		values ($1::text, $1::text::uuid, jsonb_build_object('sub', $1::text, 'email', $2::text), 'email', now(), now())`, again, leaver.Email)
	var found string
	e.scalar(t, &found, `select id::text from auth.users where lower(email) = lower($1) and is_sso_user = false`, leaver.Email)
	if found != again {
		t.Errorf("the address finds %s, want the new account %s", found, again)
	}
	if n := e.int64(t, `select count(*) from auth.identities where email = lower($1)`, leaver.Email); n != 1 {
		t.Errorf("%d identities hold the address, want 1", n)
	}
}

// Deleted users leave the dashboard's user count, their pending KYC leaves
// the review queue, their passkeys go, and their permanent ban cannot be
// lifted or replaced by a suspension.
func TestAdminDeletedUserStaysClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Closing Admin")
	suspended := e.newUser(t, "Suspended Leaver")
	plain := e.newUser(t, "Plain Leaver")
	staying := e.newUser(t, "Staying User")
	var plainKYC string
	e.value(t, plain.caller(), &plainKYC, `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '31415926') returning id::text`, plain.ID)
	ok(t, e.run(staying.caller(), `insert into public.kyc_verifications (user_id, id_type, id_number) values ($1, 'National ID', '27182818')`, staying.ID))
	for i, u := range []user{plain, staying} {
		e.mustSuper(t, `insert into auth.webauthn_credentials (id, user_id, credential_id, credential) values (gen_random_uuid(), $1, $2, '{}')`, u.ID, []byte{byte(i + 1)})
	}

	stats := func() (users, pendingKYC int64) {
		var s map[string]any
		e.value(t, admin.caller(), &s, `select public.get_dashboard_stats()`)
		return int64(s["totalUsers"].(float64)), int64(s["pendingKYC"].(float64))
	}
	usersBefore, kycBefore := stats()
	ok(t, e.run(admin.caller(), `select public.suspend_user($1, null, '10_days', 'Spam')`, suspended.ID))
	ok(t, e.run(admin.caller(), `select public.admin_delete_user($1, null)`, suspended.ID))
	ok(t, e.run(admin.caller(), `select public.admin_delete_user($1, null)`, plain.ID))
	if users, kyc := stats(); users != usersBefore-2 || kyc != kycBefore-1 {
		t.Errorf("totalUsers %d, pendingKYC %d after deleting two of %d users and one of %d pending submissions", users, kyc, usersBefore, kycBefore)
	}
	var status, notes, reviewer string
	e.scalar(t, &status, `select verification_status from public.kyc_verifications where id = $1`, plainKYC)
	e.scalar(t, &notes, `select coalesce(admin_notes, '') from public.kyc_verifications where id = $1`, plainKYC)
	e.scalar(t, &reviewer, `select coalesce(reviewed_by::text, '') from public.kyc_verifications where id = $1`, plainKYC)
	if status != "rejected" || notes != "Account deleted" || reviewer != admin.ID {
		t.Errorf("the deleted user's KYC: %s, %q, reviewed by %q", status, notes, reviewer)
	}
	if n := auditCount(t, e, "kyc.reject", plain.ID); n != 1 {
		t.Errorf("kyc.reject audited %d times", n)
	}
	for u, want := range map[user]int64{plain: 0, staying: 1} {
		if n := e.int64(t, `select count(*) from auth.webauthn_credentials where user_id = $1`, u.ID); n != want {
			t.Errorf("%s has %d passkeys, want %d", u.ID, n, want)
		}
	}

	fails(t, e.try(admin.caller(), `select public.unsuspend_user($1)`, suspended.ID), "P0001", "This user has been deleted")
	fails(t, e.try(admin.caller(), `select public.suspend_user($1, null, '10_days', null)`, plain.ID), "P0001", "This user has been deleted")
	fails(t, e.try(Service(), `select public.unsuspend_user($1, $2)`, suspended.ID, admin.ID), "P0001", "This user has been deleted")
	for _, u := range []user{suspended, plain} {
		var banned bool
		e.scalar(t, &banned, `select banned_until > now() + interval '50 years' from auth.users where id = $1`, u.ID)
		if !banned {
			t.Errorf("the deleted user %s lost the permanent ban", u.ID)
		}
	}
	// A user who was never deleted is suspended and lifted as before.
	ok(t, e.run(admin.caller(), `select public.suspend_user($1, null, '30_days', null)`, staying.ID))
	ok(t, e.run(admin.caller(), `select public.unsuspend_user($1)`, staying.ID))
}

// An admin's takedown holds (0045): the owner cannot switch the listing back
// on, nor republish it, for every kind; the owner's own deactivation stays
// reversible.
func TestAdminTakedownHolds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Takedown Admin")
	owner := e.newUser(t, "Takedown Owner")
	e.issue(t, owner, "nestcoins", 50000)
	// Lands and services go live on payment; properties and products wait
	// for approval, which the admin gives.
	kinds := []struct{ kind, table, insert string }{
		{"land", "lands", `insert into public.lands (userid, title, location, type, purpose, price) values ($1, 'Plot', 'Ruiru', 'Agricultural', 'Sale', 900000) returning id::text`},
		{"service", "service_providers", `insert into public.service_providers (userid, name, category) values ($1, 'Sky Drones', 'Drone') returning id::text`},
		{"property", "properties", `insert into public.properties (user_id, title, type, purpose, price, location) values ($1, 'Flat', 'Bedsitter', 'Rent', 9000, 'Karen') returning id::text`},
		{"product", "products", `insert into public.products (user_id, name, price, category) values ($1, 'Sofa', 12000, 'Furniture') returning id::text`},
	}
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			var id string
			e.value(t, owner.caller(), &id, k.insert, owner.ID)
			ok(t, e.run(owner.caller(), `select public.publish_listing($1, $2, 5)`, k.kind, id))
			if k.kind == "property" || k.kind == "product" {
				ok(t, e.run(admin.caller(), `select public.moderate_listing($1, $2, 'approved', null)`, k.kind, id))
			}
			activate := `update public.` + k.table + ` set is_active = true where id = $1`
			// The owner's own pause is reversible.
			ok(t, e.run(owner.caller(), `update public.`+k.table+` set is_active = false where id = $1`, id))
			ok(t, e.run(owner.caller(), activate, id))

			ok(t, e.run(admin.caller(), `select public.admin_deactivate_listing($1, $2, 'Reported as fraud')`, k.kind, id))
			fails(t, e.try(owner.caller(), activate, id), "P0001", "An administrator took this listing down")
			fails(t, e.try(owner.caller(), `select public.publish_listing($1, $2, 1)`, k.kind, id), "P0001", "An administrator took this listing down")
			fails(t, e.try(admin.caller(), activate, id), "P0001", "An administrator took this listing down")
			var active bool
			e.scalar(t, &active, `select is_active from public.`+k.table+` where id = $1`, id)
			if active {
				t.Error("the taken-down listing is active")
			}
		})
	}
	e.checkLedger(t)
}
