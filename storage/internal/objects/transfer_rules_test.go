package objects

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// A copy or a move lands under the destination bucket's rules, as an upload
// would: its type must be one the bucket allows and its size within the
// bucket's limit, whatever type the request gives the copy. Without that, a
// PDF upload (any bytes) copied into the public images bucket as
// image/svg+xml was served from the app's origin as a script.
func TestTransferKeepsBucketRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, owner := newDBService(t)
	su := db.Service()
	if _, err := owner.Exec(ctx, `insert into storage.buckets (id, name, public, file_size_limit) values ('small', 'small', true, 10)`); err != nil {
		t.Fatal(err)
	}
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)
	for _, name := range []string{"a/doc.pdf", "b/doc.pdf"} {
		if _, err := svc.Upload(ctx, su, Upload{Bucket: "kyc", Name: name, Body: bytes.NewReader(svg), ContentLength: int64(len(svg)), ContentType: "application/pdf"}); err != nil {
			t.Fatalf("upload %s: %v", name, err)
		}
	}
	str := func(s string) *string { return &s }
	cases := []struct {
		name     string
		move     bool
		transfer Transfer
		code     string // the storage error code, "" for success
	}{
		{"copy as SVG into images", false, Transfer{Bucket: "kyc", From: "a/doc.pdf", ToBucket: "images", To: "a/x.svg", Mimetype: str("image/svg+xml")}, storageerr.CodeInvalidMimeType},
		{"copy keeping the PDF type into images", false, Transfer{Bucket: "kyc", From: "a/doc.pdf", ToBucket: "images", To: "a/x.pdf", KeepMetadata: true}, storageerr.CodeInvalidMimeType},
		{"move into images", true, Transfer{Bucket: "kyc", From: "a/doc.pdf", ToBucket: "images", To: "a/y.pdf"}, storageerr.CodeInvalidMimeType},
		{"copy over the size limit", false, Transfer{Bucket: "kyc", From: "a/doc.pdf", ToBucket: "small", To: "a/z.pdf", KeepMetadata: true}, storageerr.CodeEntityTooLarge},
		{"copy as an allowed type", false, Transfer{Bucket: "kyc", From: "a/doc.pdf", ToBucket: "kyc", To: "a/copy.pdf", KeepMetadata: true}, ""},
		{"move within the bucket", true, Transfer{Bucket: "kyc", From: "b/doc.pdf", ToBucket: "kyc", To: "b/moved.pdf"}, ""},
	}
	for _, tc := range cases {
		var err error
		if tc.move {
			_, err = svc.Move(ctx, su, tc.transfer)
		} else {
			_, err = svc.Copy(ctx, su, tc.transfer)
		}
		var se *storageerr.Error
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("%s: %v, want success", tc.name, err)
		case tc.code != "" && (!errors.As(err, &se) || se.Code != tc.code):
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	var n int
	if err := owner.QueryRow(ctx, `select count(*) from storage.objects where bucket_id in ('images', 'small')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d refused copies left a row", n)
	}
}

func TestInertType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		contentType string
		inert       bool
	}{
		{"", true},
		{"image/png", true},
		{"IMAGE/JPEG; charset=binary", true},
		{"image/svg+xml", false},
		{"Image/SVG+XML", false},
		{"application/pdf", true},
		{"video/mp4", true},
		{"text/plain; charset=utf-8", true},
		{"application/octet-stream", true},
		{"text/xml", false},
		{"application/xhtml+xml", false},
		{"application/javascript", false},
		{"text/html", false},
		{"multipart/x-mixed-replace", false},
	}
	for _, tc := range cases {
		if got := InertType(tc.contentType); got != tc.inert {
			t.Errorf("InertType(%q) = %v, want %v", tc.contentType, got, tc.inert)
		}
	}
}

// newDBService is a Service over a fresh migrated database (as
// authenticator) with a file backend and a signer, and a pool connected as
// the database's owner for the test's own set-up and checks.
func newDBService(t *testing.T) (*Service, *pgxpool.Pool) {
	t.Helper()
	pdb := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pdb.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	owner, err := pgxpool.New(ctx, pdb.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(owner.Close)
	files, err := backend.NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	signer, err := NewSigner(secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Service{DB: db.New(pool), Backend: files, Signer: signer, FileSizeLimit: 10 << 20, Log: slog.New(slog.DiscardHandler)}, owner
}
