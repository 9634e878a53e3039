package db

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const (
	alice = "00000000-0000-4000-8000-00000000000a"
	bob   = "00000000-0000-4000-8000-00000000000b"
	boss  = "00000000-0000-4000-8000-0000000000ad"
)

// bossSession is the admin's sign-in session, which passed the access code:
// admin reads ask for it (migration 0043).
const bossSession = "00000000-5e55-4000-8000-0000000000ad"

func user(id string) Caller {
	claims := map[string]string{"sub": id, "role": "authenticated"}
	if id == boss {
		claims["session_id"] = bossSession
	}
	c, _ := json.Marshal(claims)
	return Caller{Role: "authenticated", Subject: id, Claims: c}
}

// newStore gives the test a migrated database with alice, bob and an admin
// (boss), objects already in every app bucket, and a Store connected as
// authenticator.
func newStore(t *testing.T) *Store {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	su, err := pgxpool.New(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer su.Close()
	// The ids are constants of this file, so the SQL is built with them.
	setup := strings.NewReplacer("ALICE", alice, "BOB", bob, "BOSS_SESSION", bossSession, "BOSS", boss).Replace(`
		insert into auth.users (id, email) values ('ALICE', 'alice@x.test'), ('BOB', 'bob@x.test'), ('BOSS', 'boss@x.test');
		insert into public.user_roles (user_id, role) values ('BOSS', 'admin') on conflict (user_id) do update set role = 'admin';
		insert into auth.sessions (id, user_id, created_at, updated_at, aal) values ('BOSS_SESSION', 'BOSS', now(), now(), 'aal1');
		insert into app_private.admin_sessions (session_id, user_id) values ('BOSS_SESSION', 'BOSS');
		insert into storage.objects (bucket_id, name, owner_id, version) values
			('images', 'ALICE/a.jpg', 'ALICE', 'v'), ('avatars', 'ALICE', 'ALICE', 'v'), ('kyc', 'ALICE/id.png', 'ALICE', 'v'),
			('kyc', 'ALICE/front.png', 'ALICE', 'v');
		-- A submission under review names front.png; id.png is an upload no submission names.
		insert into public.kyc_verifications (user_id, id_type, id_number, id_document_front_url) values ('ALICE', 'National ID', '1', 'ALICE/front.png');
	`)
	if _, err := su.Exec(ctx, setup); err != nil {
		t.Fatalf("setup: %v", err)
	}
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return New(pool)
}

// outcome names what an operation did: ok, denied (AccessDenied), hidden
// (no row seen or changed), dup.
func outcome(err error, changed bool) string {
	var e *storageerr.Error
	switch {
	case err == nil && changed:
		return "ok"
	case err == nil:
		return "hidden"
	case asErr(err, &e) && e.Code == storageerr.CodeAccessDenied:
		return "denied"
	case asErr(err, &e) && e.Code == storageerr.CodeNoSuchKey:
		return "hidden"
	case asErr(err, &e) && e.Code == storageerr.CodeKeyAlreadyExists:
		return "dup"
	}
	return "error: " + err.Error()
}

func asErr(err error, e **storageerr.Error) bool {
	x, ok := err.(*storageerr.Error)
	if ok {
		*e = x
	}
	return ok
}

// TestRLSMatrix: policies × operations × caller → outcome, one row per
// policy of 0013_storage.sql (style: supabase/storage rls_tests.yaml).
func TestRLSMatrix(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	callers := map[string]Caller{"anon": Anon(), "alice": user(alice), "bob": user(bob), "admin": user(boss), "service": Service()}

	read := func(bucket, name string) func(Caller) string {
		return func(c Caller) string {
			err := s.Read(ctx, c, func(tx *Tx) error { _, err := tx.GetObject(ctx, bucket, name); return err })
			return outcome(err, true)
		}
	}
	insert := func(bucket, name string) func(Caller) string {
		return func(c Caller) string {
			err := s.Write(ctx, c, func(tx *Tx) error {
				return tx.Savepoint(ctx, func(tx *Tx) error {
					_, err := tx.InsertObject(ctx, ObjectInput{Bucket: bucket, Name: name, Owner: c.Subject, Version: "n"})
					return err
				})
			})
			return outcome(err, true)
		}
	}
	upsert := func(bucket, name string) func(Caller) string {
		return func(c Caller) string {
			err := s.Write(ctx, c, func(tx *Tx) error {
				return tx.Savepoint(ctx, func(tx *Tx) error {
					_, _, err := tx.UpsertObject(ctx, ObjectInput{Bucket: bucket, Name: name, Owner: c.Subject, Version: "n"})
					return err
				})
			})
			return outcome(err, true)
		}
	}
	remove := func(bucket, name string) func(Caller) string {
		return func(c Caller) string {
			var n int
			err := s.Write(ctx, c, func(tx *Tx) error {
				return tx.Savepoint(ctx, func(tx *Tx) error {
					rows, err := tx.DeleteObjects(ctx, bucket, []string{name})
					n = len(rows)
					return err
				})
			})
			return outcome(err, n > 0)
		}
	}
	move := func(bucket, from, to string) func(Caller) string {
		return func(c Caller) string {
			err := s.Write(ctx, c, func(tx *Tx) error {
				return tx.Savepoint(ctx, func(tx *Tx) error {
					_, err := tx.MoveObject(ctx, bucket, from, bucket, to, "m")
					return err
				})
			})
			return outcome(err, true)
		}
	}
	createBucket := func(c Caller) string {
		err := s.Write(ctx, c, func(tx *Tx) error {
			return tx.Savepoint(ctx, func(tx *Tx) error { return tx.CreateBucket(ctx, BucketInput{ID: "x", Name: "x"}, c.Subject) })
		})
		return outcome(err, true)
	}

	tests := []struct {
		policy string
		op     func(Caller) string
		want   map[string]string
	}{
		{"objects_select_images", read("images", alice+"/a.jpg"),
			map[string]string{"anon": "ok", "alice": "ok", "bob": "ok", "admin": "ok", "service": "ok"}},
		{"objects_insert_images_owner", insert("images", alice+"/new.jpg"),
			map[string]string{"anon": "denied", "alice": "ok", "bob": "denied", "admin": "denied", "service": "ok"}},
		{"objects_insert_images_owner (no folder)", insert("images", "new.jpg"),
			map[string]string{"alice": "denied", "service": "ok"}},
		{"objects_update_images_owner", upsert("images", alice+"/a.jpg"),
			map[string]string{"anon": "denied", "alice": "ok", "bob": "denied", "service": "ok"}},
		{"objects_update_images_owner (move within own folder)", move("images", alice+"/a.jpg", alice+"/b.jpg"),
			map[string]string{"alice": "ok", "bob": "hidden", "anon": "hidden", "service": "ok"}},
		{"objects_update_images_owner (move into another folder)", move("images", alice+"/a.jpg", bob+"/a.jpg"),
			map[string]string{"alice": "denied", "service": "ok"}},
		{"objects_delete_images_owner", remove("images", alice+"/a.jpg"),
			map[string]string{"anon": "hidden", "alice": "ok", "bob": "hidden", "admin": "hidden", "service": "ok"}},
		{"objects_select_avatars", read("avatars", alice),
			map[string]string{"anon": "ok", "alice": "ok", "bob": "ok", "service": "ok"}},
		{"objects_insert_avatars_owner", insert("avatars", bob),
			map[string]string{"anon": "denied", "alice": "denied", "bob": "ok", "service": "ok"}},
		{"objects_update_avatars_owner", upsert("avatars", alice),
			map[string]string{"anon": "denied", "alice": "ok", "bob": "denied", "admin": "denied", "service": "ok"}},
		{"objects_delete_avatars_owner", remove("avatars", alice),
			map[string]string{"anon": "hidden", "alice": "ok", "bob": "hidden", "service": "ok"}},
		{"objects_select_kyc_owner_or_admin", read("kyc", alice+"/id.png"),
			map[string]string{"anon": "hidden", "alice": "ok", "bob": "hidden", "admin": "ok", "service": "ok"}},
		{"objects_insert_kyc_owner", insert("kyc", alice+"/back.png"),
			map[string]string{"anon": "denied", "alice": "ok", "bob": "denied", "admin": "denied", "service": "ok"}},
		{"kyc: no update policy (0043: a document is not replaced)", upsert("kyc", alice+"/id.png"),
			map[string]string{"anon": "denied", "alice": "denied", "bob": "denied", "admin": "denied", "service": "ok"}},
		{"kyc: no update policy (0043: nor moved)", move("kyc", alice+"/front.png", alice+"/moved.png"),
			map[string]string{"alice": "hidden", "service": "ok"}},
		{"objects_delete_kyc_owner", remove("kyc", alice+"/id.png"),
			map[string]string{"anon": "hidden", "alice": "ok", "bob": "hidden", "admin": "hidden", "service": "ok"}},
		{"objects_delete_kyc_owner (a file under review)", remove("kyc", alice+"/front.png"),
			map[string]string{"alice": "hidden", "bob": "hidden", "service": "ok"}},
		{"buckets: no policy (service only)", createBucket,
			map[string]string{"anon": "denied", "alice": "denied", "service": "ok"}},
		{"no insert without a policy (custom bucket)", insert("no-such-bucket", "a"),
			map[string]string{"alice": "denied"}},
	}
	for _, tt := range tests {
		for who, want := range tt.want {
			if got := tt.op(callers[who]); got != want {
				t.Errorf("%s as %s = %s, want %s", tt.policy, who, got, want)
			}
		}
	}
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	var folders []string
	var file, ext, ext2 string
	err := s.Read(ctx, Service(), func(tx *Tx) error {
		return tx.tx.QueryRow(ctx, `select storage.foldername('a/b/c.png'), storage.filename('a/b/c.png'), storage.extension('a/b/c.png'), storage.extension('README')`).
			Scan(&folders, &file, &ext, &ext2)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(folders) != 2 || folders[0] != "a" || folders[1] != "b" || file != "c.png" || ext != "png" || ext2 != "" {
		t.Errorf("helpers = %v %q %q %q", folders, file, ext, ext2)
	}
	var tokens []string
	err = s.Read(ctx, Service(), func(tx *Tx) error {
		return tx.tx.QueryRow(ctx, `select path_tokens from storage.objects where bucket_id = 'kyc'`).Scan(&tokens)
	})
	if err != nil || len(tokens) != 2 || tokens[0] != alice {
		t.Errorf("path_tokens = %v, %v", tokens, err)
	}
}

// TestOwnerColumns: every statement that writes owner sets the uuid column
// only for a UUID id and always sets owner_id, so a caller whose JWT sub is
// not a UUID (another issuer's user id) can still write.
func TestOwnerColumns(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	upper := "00000000-0000-4000-8000-00000000ABCD"
	ptr := func(s string) *string { return &s }
	objectWriters := []struct {
		op    string
		write func(tx *Tx, in ObjectInput) error
	}{
		{"InsertObject", func(tx *Tx, in ObjectInput) error { _, err := tx.InsertObject(ctx, in); return err }},
		{"UpsertObject", func(tx *Tx, in ObjectInput) error { _, _, err := tx.UpsertObject(ctx, in); return err }},
		{"InsertObjectRow", func(tx *Tx, in ObjectInput) error { _, err := tx.InsertObjectRow(ctx, in, false); return err }},
		{"InsertObjectRow upsert", func(tx *Tx, in ObjectInput) error { _, err := tx.InsertObjectRow(ctx, in, true); return err }},
	}
	tests := []struct {
		name, sub          string
		wantOwner, wantOID *string
	}{
		{"uuid", alice, ptr(alice), ptr(alice)},
		{"upper-case uuid", upper, ptr(strings.ToLower(upper)), ptr(upper)},
		{"external issuer", "auth0|64b7f1c2e4", nil, ptr("auth0|64b7f1c2e4")},
		{"almost a uuid", alice + "0", nil, ptr(alice + "0")},
		{"uuid with injection", alice + "' or true --", nil, ptr(alice + "' or true --")},
		{"no subject", "", nil, nil},
	}
	same := func(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
	show := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return *p
	}
	for i, tt := range tests {
		c := Caller{Role: RoleService, Subject: tt.sub}
		for _, w := range objectWriters {
			op := w.op
			name := fmt.Sprintf("owner-%d/%s", i, strings.ReplaceAll(op, " ", "-"))
			var o Object
			err := s.Write(ctx, c, func(tx *Tx) error {
				if err := w.write(tx, ObjectInput{Bucket: "images", Name: name, Owner: tt.sub, Version: "v"}); err != nil {
					return err
				}
				var err error
				o, err = tx.GetObject(ctx, "images", name)
				return err
			})
			if err != nil {
				t.Errorf("%s %s: %v", tt.name, op, err)
				continue
			}
			if !same(o.Owner, tt.wantOwner) || !same(o.OwnerID, tt.wantOID) {
				t.Errorf("%s %s: owner %s, owner_id %s; want %s, %s", tt.name, op, show(o.Owner), show(o.OwnerID), show(tt.wantOwner), show(tt.wantOID))
			}
		}
		id := fmt.Sprintf("owner-%d", i)
		var b Bucket
		err := s.Write(ctx, c, func(tx *Tx) error {
			if err := tx.CreateBucket(ctx, BucketInput{ID: id, Name: id}, tt.sub); err != nil {
				return err
			}
			var err error
			b, err = tx.GetBucket(ctx, id)
			return err
		})
		if err != nil {
			t.Errorf("%s CreateBucket: %v", tt.name, err)
		} else if !same(b.Owner, tt.wantOwner) || !same(b.OwnerID, tt.wantOID) {
			t.Errorf("%s CreateBucket: owner %s, owner_id %s; want %s, %s", tt.name, show(b.Owner), show(b.OwnerID), show(tt.wantOwner), show(tt.wantOID))
		}
	}

	// An overwrite by a non-UUID caller clears the uuid owner it replaces.
	ext := Caller{Role: RoleService, Subject: "github|4242"}
	var o Object
	err := s.Write(ctx, ext, func(tx *Tx) error {
		if _, _, err := tx.UpsertObject(ctx, ObjectInput{Bucket: "images", Name: alice + "/a.jpg", Owner: ext.Subject, Version: "w"}); err != nil {
			return err
		}
		var err error
		o, err = tx.GetObject(ctx, "images", alice+"/a.jpg")
		return err
	})
	if err != nil || o.Owner != nil || o.OwnerID == nil || *o.OwnerID != "github|4242" {
		t.Errorf("overwrite by github|4242: owner %s, owner_id %s, %v", show(o.Owner), show(o.OwnerID), err)
	}
}
