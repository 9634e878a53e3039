package resumable

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/backend/miniotest"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// newManager is a Manager over a fresh database and be, with a bucket
// "tus" (10 MiB limit) and a bucket "pics" that takes only images.
func newManager(t *testing.T, be backend.Backend) (*Manager, *clock) {
	t.Helper()
	ms, clk := newReplicas(t, be, 1)
	return ms[0], clk
}

// newReplicas is n Managers on one fresh database and be, each with its
// own pools (statements and upload locks), as n storage replicas run; the
// buckets are newManager's.
func newReplicas(t *testing.T, be backend.Backend, n int) ([]*Manager, *clock) {
	t.Helper()
	pdb := pgtest.New(t, pgtest.Options{})
	log := slog.New(slog.DiscardHandler)
	clk := &clock{t: time.Now()}
	open := func() *pgxpool.Pool {
		pool, err := pgxpool.New(context.Background(), pdb.URLAs("authenticator"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return pool
	}
	ms := make([]*Manager, n)
	for i := range ms {
		svc := &objects.Service{DB: db.New(open()), Backend: be, FileSizeLimit: 10 << 20, Log: log}
		ms[i] = &Manager{Service: svc, Backend: be, Log: log, Now: clk.now, Locker: db.NewLocker(open())}
	}
	limit := int64(10 << 20)
	ctx := context.Background()
	svc := ms[0].Service
	if err := svc.CreateBucket(ctx, db.Service(), db.BucketInput{ID: "tus", Name: "tus", FileSizeLimit: &limit}); err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateBucket(ctx, db.Service(), db.BucketInput{ID: "pics", Name: "pics", AllowedMimeTypes: []string{"image/*"}}); err != nil {
		t.Fatal(err)
	}
	return ms, clk
}

// dropAfter yields n bytes of r, then fails as a dropped connection does.
type dropAfter struct {
	r io.Reader
	n int
}

func (d *dropAfter) Read(p []byte) (int, error) {
	if d.n == 0 {
		return 0, errors.New("connection reset by peer")
	}
	if len(p) > d.n {
		p = p[:d.n]
	}
	n, err := d.r.Read(p)
	d.n -= n
	return n, err
}

func code(err error) (int, string) {
	var e *storageerr.Error
	if errors.As(err, &e) {
		return e.Status, e.Code
	}
	return 0, ""
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func meta(bucket, name, contentType string) map[string]string {
	return map[string]string{"bucketName": bucket, "objectName": name, "contentType": contentType, "cacheControl": "60", "metadata": `{"k":"v"}`}
}

// runResumable covers one upload's life on be: a chunk cut by a dropped
// connection keeps what arrived, the client resumes from the offset the
// server reports, and the finished upload is an ordinary object; then the
// refusals, termination and expiry.
func runResumable(t *testing.T, be backend.Backend) {
	m, clk := newManager(t, be)
	ctx := context.Background()
	svc := db.Service()
	data := randomBytes(t, 6<<20+123)

	u, err := m.Create(ctx, svc, Create{Length: int64(len(data)), Metadata: meta("tus", "dir/big.bin", "application/octet-stream")})
	if err != nil {
		t.Fatal(err)
	}
	id := u.ID()

	// The first chunk's connection drops after 1 MiB + 7 bytes.
	cut := 1<<20 + 7
	if _, err := m.Append(ctx, svc, id, 0, &dropAfter{r: bytes.NewReader(data), n: cut}); err == nil {
		t.Fatal("Append of a dropped chunk succeeded")
	}
	st, err := m.Status(ctx, svc, id)
	if err != nil || st.Offset != int64(cut) || st.Length != int64(len(data)) {
		t.Fatalf("Status after the drop = %+v, %v; want offset %d", st, err, cut)
	}
	if _, err := m.Append(ctx, svc, id, 0, bytes.NewReader(data)); func() bool { s, _ := code(err); return s != http.StatusConflict }() {
		t.Fatalf("Append at a stale offset = %v, want 409", err)
	}
	if _, err := m.Status(ctx, db.Caller{Role: db.RoleAnon}, id); func() bool { s, _ := code(err); return s != http.StatusNotFound }() {
		t.Fatalf("Status as another caller = %v, want 404", err)
	}
	// Resume: the next chunk, then the rest.
	mid := 4 << 20
	if st, err = m.Append(ctx, svc, id, int64(cut), bytes.NewReader(data[cut:mid])); err != nil || st.Offset != int64(mid) || st.Done {
		t.Fatalf("second chunk = %+v, %v", st, err)
	}
	if st, err = m.Append(ctx, svc, id, int64(mid), bytes.NewReader(data[mid:])); err != nil || !st.Done {
		t.Fatalf("last chunk = %+v, %v", st, err)
	}
	rc, err := be.Get(ctx, backend.Key("tus", "dir/big.bin", u.Version), nil)
	if err != nil {
		t.Fatalf("object bytes under the upload's version: %v", err)
	}
	got, _ := io.ReadAll(rc)
	_ = rc.Close()
	if !bytes.Equal(got, data) {
		t.Fatalf("object holds %d bytes, not the %d uploaded", len(got), len(data))
	}
	var o db.Object
	if err := m.Service.DB.Read(ctx, svc, func(tx *db.Tx) error {
		var err error
		o, err = tx.GetObject(ctx, "tus", "dir/big.bin")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if string(o.UserMetadata) != `{"k": "v"}` && string(o.UserMetadata) != `{"k":"v"}` || !strings.Contains(string(o.Metadata), `"cacheControl": "max-age=60"`) {
		t.Errorf("row metadata %s, user metadata %s", o.Metadata, o.UserMetadata)
	}
	if left, _ := be.List(ctx, keyRoot+u.Version+"/"); len(left) != 0 {
		t.Errorf("upload state left after finishing: %v", left)
	}
	if _, err := m.Status(ctx, svc, id); func() bool { s, _ := code(err); return s != http.StatusNotFound }() {
		t.Errorf("Status of a finished upload = %v, want 404", err)
	}

	t.Run("refused at creation", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			who    db.Caller
			in     Create
			status int
			code   string
		}{
			{"no bucket name", svc, Create{Length: 1, Metadata: map[string]string{"objectName": "x"}}, 400, storageerr.CodeMissingParameter},
			{"no object name", svc, Create{Length: 1, Metadata: map[string]string{"bucketName": "tus"}}, 400, storageerr.CodeMissingParameter},
			{"unknown bucket", svc, Create{Length: 1, Metadata: meta("nope", "x", "")}, 404, storageerr.CodeNoSuchBucket},
			{"bad name", svc, Create{Length: 1, Metadata: meta("tus", "a/../b", "")}, 400, storageerr.CodeInvalidKey},
			{"over the bucket limit", svc, Create{Length: 10<<20 + 1, Metadata: meta("tus", "x", "")}, 413, storageerr.CodeEntityTooLarge},
			{"type not allowed", svc, Create{Length: 1, Metadata: meta("pics", "x.txt", "text/plain")}, 415, storageerr.CodeInvalidMimeType},
			{"exists without upsert", svc, Create{Length: 1, Metadata: meta("tus", "dir/big.bin", "")}, 409, storageerr.CodeKeyAlreadyExists},
			{"RLS", db.Caller{Role: db.RoleAnon}, Create{Length: 1, Metadata: meta("tus", "anon.bin", "")}, 403, storageerr.CodeAccessDenied},
			{"metadata not JSON", svc, Create{Length: 1, Metadata: map[string]string{"bucketName": "tus", "objectName": "m", "metadata": "{"}}, 400, storageerr.CodeInvalidParameter},
		} {
			_, err := m.Create(ctx, tc.who, tc.in)
			if s, c := code(err); s != tc.status || c != tc.code {
				t.Errorf("%s: Create = %v, want %d %s", tc.name, err, tc.status, tc.code)
			}
		}
		if _, err := m.Create(ctx, svc, Create{Length: 1, Metadata: meta("tus", "dir/big.bin", ""), Upsert: true}); err != nil {
			t.Errorf("upsert over an existing object: %v", err)
		}
	})

	t.Run("refused at the end", func(t *testing.T) {
		// Declared a PNG, sent text: the finished upload runs the ordinary
		// upload's sniffing and is refused, and its state is dropped.
		u, err := m.Create(ctx, svc, Create{Length: 5, Metadata: meta("pics", "fake.png", "image/png")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Append(ctx, svc, u.ID(), 0, strings.NewReader("hello")); func() bool { _, c := code(err); return c != storageerr.CodeInvalidMimeType }() {
			t.Fatalf("finishing a fake PNG = %v, want InvalidMimeType", err)
		}
		if left, _ := be.List(ctx, keyRoot+u.Version+"/"); len(left) != 0 {
			t.Errorf("state left after a refused upload: %v", left)
		}
	})

	t.Run("terminate", func(t *testing.T) {
		u, err := m.Create(ctx, svc, Create{Length: 10, Metadata: meta("tus", "t.bin", "")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Append(ctx, svc, u.ID(), 0, strings.NewReader("12345")); err != nil {
			t.Fatal(err)
		}
		if err := m.Terminate(ctx, svc, u.ID()); err != nil {
			t.Fatal(err)
		}
		if left, _ := be.List(ctx, keyRoot+u.Version+"/"); len(left) != 0 {
			t.Errorf("state left after termination: %v", left)
		}
	})

	t.Run("expiry", func(t *testing.T) {
		u, err := m.Create(ctx, svc, Create{Length: 10, Metadata: meta("tus", "e.bin", "")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Append(ctx, svc, u.ID(), 0, strings.NewReader("12345")); err != nil {
			t.Fatal(err)
		}
		keep, err := m.Create(ctx, svc, Create{Length: 10, Metadata: meta("tus", "k.bin", "")})
		if err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(DefaultExpiry / 2)
		fresh, err := m.Create(ctx, svc, Create{Length: 10, Metadata: meta("tus", "f.bin", "")})
		if err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(DefaultExpiry/2 + time.Second)
		if _, err := m.Status(ctx, svc, keep.ID()); func() bool { s, _ := code(err); return s != http.StatusGone }() {
			t.Errorf("Status of an expired upload = %v, want 410", err)
		}
		// e.bin and the upsert left unfinished above.
		n, err := m.Sweep(ctx)
		if err != nil || n != 2 {
			t.Errorf("Sweep = %d, %v; want the 2 other expired uploads", n, err)
		}
		if left, _ := be.List(ctx, keyRoot+u.Version+"/"); len(left) != 0 {
			t.Errorf("expired upload left: %v", left)
		}
		if st, err := m.Status(ctx, svc, fresh.ID()); err != nil || st.Offset != 0 {
			t.Errorf("unexpired upload after Sweep: %+v, %v", st, err)
		}
	})
}

func TestResumableFile(t *testing.T) {
	t.Parallel()
	be, err := backend.NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runResumable(t, be)
}

func TestResumableS3(t *testing.T) {
	t.Parallel()
	endpoint, user, pass := miniotest.Start(t)
	be, err := backend.NewS3(backend.S3Options{Endpoint: endpoint, Bucket: "kejanest-tus", Region: "us-east-1", AccessKeyID: user, SecretAccessKey: pass, ForcePathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := be.EnsureBucket(context.Background(), "us-east-1"); err != nil {
		t.Fatal(err)
	}
	runResumable(t, be)
}

func TestVersionFromID(t *testing.T) {
	t.Parallel()
	u := Upload{Bucket: "b", Name: "a/b.jpg", Version: objects.NewVersion()}
	if v, err := versionFromID(u.ID()); err != nil || v != u.Version {
		t.Fatalf("versionFromID(ID()) = %q, %v", v, err)
	}
	for _, id := range []string{"", "!!", "YQ", u.ID() + "x", "Yi9hL2IuanBnLy4uLy4u"} {
		if _, err := versionFromID(id); err == nil {
			t.Errorf("versionFromID(%q) accepted", id)
		}
	}
}

// TestAppendLockedAcrossReplicas: while replica A is still receiving a
// chunk, replica B may not write to the same upload. A B that waits less
// than A takes gets 423 (which TUS clients retry); a B that waits longer
// goes on once A's chunk ends, at the offset A left, and the finished
// object is the bytes sent.
func TestAppendLockedAcrossReplicas(t *testing.T) {
	t.Parallel()
	be, err := backend.NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := newReplicas(t, be, 2)
	a, b := ms[0], ms[1]
	ctx := context.Background()
	svc := db.Service()
	data := randomBytes(t, 2<<20)
	half := len(data) / 2
	u, err := a.Create(ctx, svc, Create{Length: int64(len(data)), Metadata: meta("tus", "replicas.bin", "application/octet-stream")})
	if err != nil {
		t.Fatal(err)
	}
	id := u.ID()

	type result struct {
		st  Status
		err error
	}
	pr, pw := io.Pipe()
	first := make(chan result, 1)
	go func() {
		st, err := a.Append(ctx, svc, id, 0, pr)
		first <- result{st, err}
	}()
	// Once A has read the first bytes, it holds the upload's lock.
	if _, err := pw.Write(data[:half/2]); err != nil {
		t.Fatal(err)
	}

	b.LockWait = 200 * time.Millisecond
	began := time.Now()
	_, err = b.Append(ctx, svc, id, 0, bytes.NewReader(data))
	if s, _ := code(err); s != http.StatusLocked {
		t.Fatalf("B's Append while A writes = %v, want 423", err)
	}
	if waited := time.Since(began); waited < b.LockWait {
		t.Errorf("B answered 423 after %v, before its wait of %v", waited, b.LockWait)
	}
	if err := b.Terminate(ctx, svc, id); func() bool { s, _ := code(err); return s != http.StatusLocked }() {
		t.Fatalf("B's Terminate while A writes = %v, want 423", err)
	}

	b.LockWait = 30 * time.Second
	second := make(chan result, 1)
	go func() {
		st, err := b.Append(ctx, svc, id, int64(half), bytes.NewReader(data[half:]))
		second <- result{st, err}
	}()
	select {
	case r := <-second:
		t.Fatalf("B's Append went ahead while A was writing: %+v, %v", r.st, r.err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := pw.Write(data[half/2 : half]); err != nil {
		t.Fatal(err)
	}
	_ = pw.Close()
	if r := <-first; r.err != nil || r.st.Offset != int64(half) || r.st.Done {
		t.Fatalf("A's chunk = %+v, %v; want offset %d", r.st, r.err, half)
	}
	if r := <-second; r.err != nil || !r.st.Done {
		t.Fatalf("B's chunk after A's = %+v, %v; want the upload done", r.st, r.err)
	}
	rc, err := be.Get(ctx, backend.Key("tus", "replicas.bin", u.Version), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	_ = rc.Close()
	if !bytes.Equal(got, data) {
		t.Fatalf("object holds %d bytes, not the %d uploaded", len(got), len(data))
	}
}
