package tests

import "testing"

// The files of a KYC submission stay what the admin reviews (0043): the
// owner uploads new files but cannot replace or move one, and cannot delete
// one that a pending or approved submission of theirs names. A file no
// such submission names (an abandoned upload, a rejected submission's) is
// theirs to delete; another user's never is.
func TestKYCDocumentsStayAsSubmitted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Reviewing Admin")
	u := e.newUser(t, "Document Owner")
	x := e.newUser(t, "Someone Else")
	front, back, spare := u.ID+"/front-1.jpg", u.ID+"/back-1.jpg", u.ID+"/front-0.jpg"
	for _, name := range []string{front, back, spare} {
		if r := e.run(u.caller(), `insert into storage.objects (bucket_id, name, owner_id) values ('kyc', $1, $2)`, name, u.ID); r.Err != nil || r.Rows != 1 {
			t.Fatalf("upload %s: %d rows, %s", name, r.Rows, r.Message)
		}
	}
	var kycID string
	e.value(t, u.caller(), &kycID, `insert into public.kyc_verifications (user_id, id_type, id_number, id_document_front_url, id_document_back_url)
		values ($1, 'National ID', '30111222', $2, $3) returning id::text`, u.ID, front, back)

	// rows runs sql as c, rolled back, and answers how many rows it touched.
	rows := func(c Caller, sql string, args ...any) int64 {
		t.Helper()
		r := e.try(c, sql, args...)
		if r.Err != nil {
			t.Fatalf("%s: %s", sql, r.Message)
		}
		return r.Rows
	}
	const (
		replace = `update storage.objects set metadata = '{"size": 1}' where bucket_id = 'kyc' and name = $1`
		move    = `update storage.objects set name = $1 || '.moved' where bucket_id = 'kyc' and name = $1`
		remove  = `delete from storage.objects where bucket_id = 'kyc' and name = $1`
	)
	check := func(state string, want map[string]int64) {
		t.Helper()
		for _, c := range []struct {
			who    string
			caller Caller
			sql    string
			name   string
		}{
			{"owner replaces front", u.caller(), replace, front},
			{"owner moves back", u.caller(), move, back},
			{"owner deletes front", u.caller(), remove, front},
			{"owner deletes back", u.caller(), remove, back},
			{"owner deletes spare", u.caller(), remove, spare},
			{"other deletes spare", x.caller(), remove, spare},
			{"other replaces spare", x.caller(), replace, spare},
		} {
			if got := rows(c.caller, c.sql, c.name); got != want[c.who] {
				t.Errorf("%s: %s touched %d rows, want %d", state, c.who, got, want[c.who])
			}
		}
	}
	spareOnly := map[string]int64{"owner deletes spare": 1}
	check("pending", spareOnly)

	decide := func(status string) {
		t.Helper()
		if r := e.run(admin.caller(), `select public.process_kyc_verification($1, $2, $3, 'decided in a test')`, kycID, admin.ID, status); r.Err != nil {
			t.Fatalf("%s: %s", status, r.Message)
		}
	}
	decide("rejected")
	check("rejected", map[string]int64{"owner deletes front": 1, "owner deletes back": 1, "owner deletes spare": 1})

	// A resubmission naming the same files puts them under review again.
	if r := e.run(u.caller(), `update public.kyc_verifications set id_number = '30111223' where id = $1`, kycID); r.Err != nil || r.Rows != 1 {
		t.Fatalf("resubmit: %d rows, %s", r.Rows, r.Message)
	}
	var status string
	e.scalar(t, &status, `select verification_status from public.kyc_verifications where id = $1`, kycID)
	if status != "pending" {
		t.Fatalf("after resubmission the status is %s", status)
	}
	check("resubmitted", spareOnly)
	decide("approved")
	check("approved", spareOnly)

	var kept int64
	e.scalar(t, &kept, `select count(*) from storage.objects where bucket_id = 'kyc' and owner_id = $1`, u.ID)
	if kept != 3 {
		t.Errorf("%d of the owner's 3 files are left; every attempt above was rolled back", kept)
	}
}
