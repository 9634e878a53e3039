package objects

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/storage/internal/db"
)

// A signed upload URL is tested again, as its owner, when it is used: an
// upsert URL signed while the name was free must not overwrite a KYC
// document that has since been submitted (the owner may no longer replace
// it, migration 0043), and a URL signed by a user who has since been
// suspended uploads nothing. A URL for a free name still uploads.
func TestSignedUploadRetestsTheOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, su := newDBService(t)
	const uid = "0e5a0000-0000-4000-8000-0000000000f1"
	if _, err := su.Exec(ctx, `insert into auth.users (id, email) values ($1, 'kyc-owner@x.test')`, uid); err != nil {
		t.Fatal(err)
	}
	owner := db.Caller{Role: "authenticated", Subject: uid, Claims: []byte(`{"sub":"` + uid + `","role":"authenticated"}`)}
	pdf := func(s string) Upload {
		b := []byte("%PDF-1.4 " + s)
		return Upload{Bucket: "kyc", Body: bytes.NewReader(b), ContentLength: int64(len(b)), ContentType: "application/pdf"}
	}
	sign := func(name string) string {
		t.Helper()
		_, tok, err := svc.SignUploadURL(ctx, owner, "kyc", uid+"/"+name, true)
		if err != nil {
			t.Fatalf("sign %s: %v", name, err)
		}
		return tok
	}
	front, spare, late := sign("front.pdf"), sign("spare.pdf"), sign("late.pdf")

	// The document is uploaded and submitted; the early URL then tries to
	// replace it.
	u := pdf("the submitted front")
	u.Name = uid + "/front.pdf"
	if _, err := svc.Upload(ctx, owner, u); err != nil {
		t.Fatalf("upload: %v", err)
	}
	if _, err := su.Exec(ctx, `insert into public.kyc_verifications (user_id, id_type, id_number, id_document_front_url) values ($1, 'National ID', '1', $2)`,
		uid, uid+"/front.pdf"); err != nil {
		t.Fatal(err)
	}
	u = pdf("a swapped front")
	u.Name = uid + "/front.pdf"
	if _, err := svc.UploadSigned(ctx, front, u); err == nil {
		t.Error("the early URL replaced the submitted document")
	}
	var size int64
	if err := su.QueryRow(ctx, `select (metadata ->> 'size')::bigint from storage.objects where bucket_id = 'kyc' and name = $1`, uid+"/front.pdf").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if want := int64(len("%PDF-1.4 the submitted front")); size != want {
		t.Errorf("the stored document is %d bytes, want the submitted %d", size, want)
	}

	// A free name uploads.
	u = pdf("a new page")
	u.Name = uid + "/spare.pdf"
	if _, err := svc.UploadSigned(ctx, spare, u); err != nil {
		t.Errorf("a signed upload of a free name: %v", err)
	}

	// Suspended since signing: nothing uploads.
	if _, err := su.Exec(ctx, `update auth.users set banned_until = now() + interval '1 day' where id = $1`, uid); err != nil {
		t.Fatal(err)
	}
	u = pdf("while suspended")
	u.Name = uid + "/late.pdf"
	_, err := svc.UploadSigned(ctx, late, u)
	if err == nil || !strings.Contains(err.Error(), "suspended") {
		t.Errorf("a suspended owner's signed upload: %v, want the suspension refusal", err)
	}
}
