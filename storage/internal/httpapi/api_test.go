package httpapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// apiApp is the whole service in process: a fresh database, the file
// backend in a temp dir, and the bearer tokens of service_role and a user.
func apiApp(t *testing.T) (app *fiber.App, serviceKey, userKey string) {
	t.Helper()
	app, serviceKey, userKey, _ = apiAppDB(t)
	return app, serviceKey, userKey
}

// apiAppDB is apiApp that also hands back the database, for tests that add
// their own policies as superuser.
func apiAppDB(t *testing.T) (app *fiber.App, serviceKey, userKey string, pdb *pgtest.DB) {
	t.Helper()
	a := newTestAPI(t, 1<<20)
	return a.app, a.serviceKey, a.userKey, a.db
}

// testAPI is the whole service in process with its database and the
// directory of its file backend.
type testAPI struct {
	app                 *fiber.App
	serviceKey, userKey string
	db                  *pgtest.DB
	dir                 string
}

// newTestAPI starts the service against a fresh database with the given
// global object size limit (FILE_SIZE_LIMIT), as main wires it: the
// service's limit and the HTTP body limit both come from it.
func newTestAPI(t *testing.T, fileSizeLimit int) *testAPI {
	t.Helper()
	return newTestAPIImages(t, fileSizeLimit, nil)
}

// newTestAPIImages is newTestAPI with the given image memory budget (nil:
// the default).
func newTestAPIImages(t *testing.T, fileSizeLimit int, images *objects.ImageBudget) *testAPI {
	t.Helper()
	pdb := pgtest.New(t, pgtest.Options{})
	pool, err := pgxpool.New(context.Background(), pdb.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	dir := t.TempDir()
	be, err := backend.NewFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := objects.NewSigner(devkeys.JWTSecret, nil)
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := jwtverify.New(jwtverify.Options{Secret: devkeys.JWTSecret})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	svc := &objects.Service{DB: db.New(pool), Backend: be, Signer: signer, FileSizeLimit: int64(fileSizeLimit), Images: images, Log: log}
	app := New(Deps{Log: log, FileSizeLimit: fileSizeLimit, Service: svc, Verifier: verifier})
	exp := time.Now().Add(time.Hour).Unix()
	serviceKey, _ := jwtverify.SignHS256(map[string]any{"role": "service_role", "exp": exp}, []byte(devkeys.JWTSecret))
	userKey, _ := jwtverify.SignHS256(map[string]any{"role": "authenticated", "sub": "00000000-0000-4000-8000-000000000001", "exp": exp}, []byte(devkeys.JWTSecret))
	return &testAPI{app: app, serviceKey: serviceKey, userKey: userKey, db: pdb, dir: dir}
}

type call struct {
	method, target, key, contentType string
	headers                          map[string]string
	body                             []byte
}

func (c call) do(t *testing.T, app *fiber.App) (int, map[string]string, string) {
	t.Helper()
	req := httptest.NewRequest(c.method, c.target, bytes.NewReader(c.body))
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := app.Test(req, fiber.TestConfig{Timeout: 10 * time.Second, FailOnTimeout: true})
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	h := map[string]string{}
	for k := range resp.Header {
		h[strings.ToLower(k)] = resp.Header.Get(k)
	}
	return resp.StatusCode, h, string(b)
}

// form builds storage-js's multipart body: cacheControl, then the file part
// named "".
func form(t *testing.T, contentType string, data []byte) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.WriteField("cacheControl", "60")
	_ = w.WriteField("metadata", `{"k":"v"}`)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name=""; filename="f"`)
	h.Set("Content-Type", contentType)
	p, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = p.Write(data)
	_ = w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// TestAPI walks one bucket through its life over HTTP, each step a row of
// request → status and body/header expectations.
func TestAPI(t *testing.T) {
	t.Parallel()
	app, svc, usr := apiApp(t)
	expired, _ := jwtverify.SignHS256(map[string]any{"role": "service_role", "exp": time.Now().Add(-time.Hour).Unix()}, []byte(devkeys.JWTSecret))
	ct, mp := form(t, "text/plain", []byte("hello multipart"))
	steps := []struct {
		name       string
		call       call
		wantStatus int
		wantBody   string // substring
		wantHeader map[string]string
	}{
		{"create bucket", call{method: "POST", target: "/bucket", key: svc, contentType: "application/json", body: []byte(`{"name":"b","public":true,"file_size_limit":32}`)}, 200, `{"name":"b"}`, nil},
		{"user cannot create", call{method: "POST", target: "/bucket", key: usr, contentType: "application/json", body: []byte(`{"name":"c"}`)}, 400, `"statusCode":"403","code":"AccessDenied"`, nil},
		{"multipart upload", call{method: "POST", target: "/object/b/dir/m.txt", key: svc, contentType: ct, body: mp}, 200, `"Key":"b/dir/m.txt"`, nil},
		{"duplicate", call{method: "POST", target: "/object/b/dir/m.txt", key: svc, contentType: ct, body: mp}, 400, `"statusCode":"409","code":"KeyAlreadyExists"`, nil},
		{"raw upsert", call{method: "POST", target: "/object/b/dir/m.txt", key: svc, contentType: "text/plain", headers: map[string]string{"x-upsert": "true"}, body: []byte("0123456789")}, 200, `"Id"`, nil},
		{"too large", call{method: "POST", target: "/object/b/big.txt", key: svc, contentType: "text/plain", body: bytes.Repeat([]byte("x"), 33)}, 400, `"statusCode":"413","code":"EntityTooLarge"`, nil},
		{"anon upload", call{method: "POST", target: "/object/b/anon.txt", contentType: "text/plain", body: []byte("x")}, 400, `"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"new row violates row-level security policy"`, nil},
		{"bad name", call{method: "POST", target: "/object/b/a%2F..%2Fb", key: svc, contentType: "text/plain", body: []byte("x")}, 400, `"code":"InvalidKey"`, nil},
		{"public get", call{method: "GET", target: "/object/public/b/dir/m.txt"}, 200, "0123456789", map[string]string{"content-type": "text/plain", "content-length": "10", "cache-control": "max-age=3600"}},
		{"range", call{method: "GET", target: "/object/public/b/dir/m.txt", headers: map[string]string{"Range": "bytes=2-4"}}, 206, "234", map[string]string{"content-range": "bytes 2-4/10"}},
		{"head", call{method: "HEAD", target: "/object/public/b/dir/m.txt?t=1"}, 200, "", map[string]string{"content-length": "10"}},
		{"missing", call{method: "GET", target: "/object/public/b/nope"}, 400, `{"statusCode":"404","code":"NoSuchKey","error":"not_found","message":"Object not found"}`, nil},
		{"user cannot read a custom bucket", call{method: "GET", target: "/object/authenticated/b/dir/m.txt", key: usr}, 400, `"code":"NoSuchKey"`, nil},
		{"list", call{method: "POST", target: "/object/list/b", key: svc, contentType: "application/json", body: []byte(`{"prefix":"","limit":10}`)}, 200, `[{"name":"dir","id":null`, nil},
		{"list v2", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"prefix":"dir/"}`)}, 200, `"key":"dir/m.txt"`, nil},
		{"list v2 sorted", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"prefix":"dir/","sortBy":{"column":"created_at","order":"desc"}}`)}, 200, `"key":"dir/m.txt"`, nil},
		{"list v2 cursor past the end", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"prefix":"dir/","cursor":"bDpkaXIvbS50eHQKbzphc2MKYzpjcmVhdGVkX2F0CmE6Mjk5OS0wMS0wMVQwMDowMDowMC4wMDBa"}`)}, 200, `"objects":[]`, nil},
		{"list v2 bad sort column", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"sortBy":{"column":"last_accessed_at"}}`)}, 400, `{"statusCode":"400","code":"InvalidRequest","error":"Error","message":"body/sortBy/column must be equal to one of the allowed values"}`, nil},
		{"list v2 sort without column", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"sortBy":{"order":"desc"}}`)}, 400, `"message":"body/sortBy must have required property 'column'"`, nil},
		{"list v2 bad sort order", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"sortBy":{"column":"name","order":"up"}}`)}, 400, `"message":"body/sortBy/order must be equal to one of the allowed values"`, nil},
		{"list v2 zero limit", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"limit":0}`)}, 400, `{"statusCode":"400","code":"InvalidRequest","error":"Error","message":"body/limit must be >= 1"}`, nil},
		{"list v2 negative limit", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"limit":-5}`)}, 400, `"message":"body/limit must be >= 1"`, nil},
		{"list v2 bad cursor", call{method: "POST", target: "/object/list-v2/b", key: svc, contentType: "application/json", body: []byte(`{"cursor":"dir/m.txt"}`)}, 400, `"message":"Invalid continuation token"`, nil},
		{"info", call{method: "GET", target: "/object/info/b/dir/m.txt", key: svc}, 200, `"size":10`, nil},
		{"copy", call{method: "POST", target: "/object/copy", key: svc, contentType: "application/json", body: []byte(`{"bucketId":"b","sourceKey":"dir/m.txt","destinationKey":"dir/c.txt"}`)}, 200, `"Key":"b/dir/c.txt"`, nil},
		{"move", call{method: "POST", target: "/object/move", key: svc, contentType: "application/json", body: []byte(`{"bucketId":"b","sourceKey":"dir/c.txt","destinationKey":"moved.txt"}`)}, 200, `"message":"Successfully moved"`, nil},
		{"delete bucket not empty", call{method: "DELETE", target: "/bucket/b", key: svc}, 400, `"statusCode":"409","code":"ResourceNotEmpty"`, nil},
		{"delete many", call{method: "DELETE", target: "/object/b", key: svc, contentType: "application/json", body: []byte(`{"prefixes":["moved.txt","dir/m.txt"]}`)}, 200, `"name":"moved.txt"`, nil},
		{"delete bucket", call{method: "DELETE", target: "/bucket/b", key: svc}, 200, `{"message":"Successfully deleted"}`, nil},
		{"bad jwt", call{method: "GET", target: "/bucket", key: "x.y.z"}, 400, `{"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"Invalid Compact JWS"}`, nil},
		{"not bearer", call{method: "GET", target: "/bucket", headers: map[string]string{"Authorization": "Basic eDp5"}}, 400, `"statusCode":"403","code":"AccessDenied"`, nil},
		{"expired jwt", call{method: "GET", target: "/bucket", key: expired}, 400, `{"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"\"exp\" claim timestamp check failed"}`, nil},
		{"bad signature", call{method: "GET", target: "/bucket", key: svc[:len(svc)-2] + "xx"}, 400, `"message":"signature verification failed"`, nil},
		{"version", call{method: "GET", target: "/version"}, 200, "", map[string]string{"content-type": "text/plain; charset=utf-8"}},
		{"status", call{method: "GET", target: "/status"}, 200, "", nil},
	}
	for _, s := range steps {
		status, h, body := s.call.do(t, app)
		if status != s.wantStatus || !strings.Contains(body, s.wantBody) {
			t.Errorf("%s: %d %s\nwant %d containing %s", s.name, status, body, s.wantStatus, s.wantBody)
		}
		for k, v := range s.wantHeader {
			if h[k] != v {
				t.Errorf("%s: %s = %q, want %q", s.name, k, h[k], v)
			}
		}
	}
}

// TestSignedURLs covers signing, serving, expiry and single-use uploads.
func TestSignedURLs(t *testing.T) {
	t.Parallel()
	app, svc, _ := apiApp(t)
	for _, c := range []call{
		{method: "POST", target: "/bucket", key: svc, contentType: "application/json", body: []byte(`{"name":"p"}`)},
		{method: "POST", target: "/object/p/a.txt", key: svc, contentType: "text/plain", body: []byte("secret")},
	} {
		if status, _, body := c.do(t, app); status != 200 {
			t.Fatalf("setup %s: %d %s", c.target, status, body)
		}
	}
	status, _, body := call{method: "POST", target: "/object/sign/p/a.txt", key: svc, contentType: "application/json", body: []byte(`{"expiresIn":60}`)}.do(t, app)
	var signed struct{ SignedURL string }
	if status != 200 || json.Unmarshal([]byte(body), &signed) != nil || !strings.HasPrefix(signed.SignedURL, "/object/sign/p/a.txt?token=") {
		t.Fatalf("sign: %d %s", status, body)
	}
	if status, _, body := (call{method: "GET", target: signed.SignedURL}).do(t, app); status != 200 || body != "secret" {
		t.Errorf("signed GET: %d %s", status, body)
	}
	if status, _, body := (call{method: "GET", target: "/object/public/p/a.txt"}).do(t, app); status != 400 || !strings.Contains(body, "NoSuchBucket") {
		t.Errorf("private bucket public GET: %d %s", status, body)
	}

	status, _, body = call{method: "POST", target: "/object/upload/sign/p/up.txt", key: svc}.do(t, app)
	var up struct{ URL string }
	if status != 200 || json.Unmarshal([]byte(body), &up) != nil || !strings.Contains(up.URL, "?token=") {
		t.Fatalf("sign upload: %d %s", status, body)
	}
	put := call{method: "PUT", target: up.URL, contentType: "text/plain", body: []byte("once")}
	if status, _, body := put.do(t, app); status != 200 || !strings.Contains(body, `"Key":"p/up.txt"`) {
		t.Errorf("signed upload: %d %s", status, body)
	}
	if status, _, body := put.do(t, app); status != 400 || !strings.Contains(body, "already been used") {
		t.Errorf("second signed upload: %d %s", status, body)
	}
}

// TestNonUUIDSubject: a user whose JWT sub is not a UUID (another issuer's
// id) uploads, directly and through a signed upload URL; the rows carry the
// id in owner_id and leave the uuid owner column empty, as upstream.
func TestNonUUIDSubject(t *testing.T) {
	t.Parallel()
	app, svc, _, pdb := apiAppDB(t)
	ctx := context.Background()
	su, err := pgxpool.New(ctx, pdb.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer su.Close()
	// The app's buckets key their policies on auth.uid(), a uuid; this one
	// compares the raw sub, as a project using another issuer would.
	if _, err := su.Exec(ctx, `
		create policy ext_insert on storage.objects for insert to authenticated
			with check (bucket_id = 'ext' and owner_id = auth.jwt() ->> 'sub');
		create policy ext_select on storage.objects for select to authenticated
			using (bucket_id = 'ext' and owner_id = auth.jwt() ->> 'sub');
		create policy ext_delete on storage.objects for delete to authenticated
			using (bucket_id = 'ext' and owner_id = auth.jwt() ->> 'sub');
	`); err != nil {
		t.Fatalf("policies: %v", err)
	}
	sub := "auth0|64b7f1c2e4a1"
	key, _ := jwtverify.SignHS256(map[string]any{"role": "authenticated", "sub": sub, "exp": time.Now().Add(time.Hour).Unix()}, []byte(devkeys.JWTSecret))
	if status, _, body := (call{method: "POST", target: "/bucket", key: svc, contentType: "application/json", body: []byte(`{"name":"ext"}`)}).do(t, app); status != 200 {
		t.Fatalf("create bucket: %d %s", status, body)
	}
	if status, _, body := (call{method: "POST", target: "/object/ext/a.txt", key: key, contentType: "text/plain", body: []byte("hi")}).do(t, app); status != 200 {
		t.Fatalf("upload as %s: %d %s", sub, status, body)
	}
	status, _, body := call{method: "POST", target: "/object/upload/sign/ext/b.txt", key: key}.do(t, app)
	var up struct{ URL string }
	if status != 200 || json.Unmarshal([]byte(body), &up) != nil {
		t.Fatalf("sign upload as %s: %d %s", sub, status, body)
	}
	if status, _, body := (call{method: "PUT", target: up.URL, contentType: "text/plain", body: []byte("hey")}).do(t, app); status != 200 {
		t.Fatalf("signed upload for %s: %d %s", sub, status, body)
	}
	status, _, body = call{method: "DELETE", target: "/object/ext", key: key, contentType: "application/json", body: []byte(`{"prefixes":["a.txt","b.txt"]}`)}.do(t, app)
	var rows []struct {
		Name    string
		Owner   *string `json:"owner"`
		OwnerID *string `json:"owner_id"`
	}
	if status != 200 || json.Unmarshal([]byte(body), &rows) != nil || len(rows) != 2 {
		t.Fatalf("delete as %s: %d %s", sub, status, body)
	}
	for _, r := range rows {
		if r.Owner != nil || r.OwnerID == nil || *r.OwnerID != sub {
			t.Errorf("%s: owner %v, owner_id %v; want null, %s", r.Name, r.Owner, r.OwnerID, sub)
		}
	}
}

// TestWebPUploadStripsMetadata: a WebP photo uploaded to the images bucket
// is stored without its EXIF and XMP chunks (GPS location), and its size is
// the stored bytes'.
func TestWebPUploadStripsMetadata(t *testing.T) {
	t.Parallel()
	app, _, usr := apiApp(t)
	chunk := func(fourCC, payload string) string {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(payload)))
		if len(payload)%2 == 1 {
			payload += "\x00"
		}
		return fourCC + string(n[:]) + payload
	}
	riff := func(chunks ...string) []byte {
		b := []byte("RIFF\x00\x00\x00\x00WEBP" + strings.Join(chunks, ""))
		binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
		return b
	}
	// A 1×1 lossless frame behind a VP8X header that announces EXIF and XMP.
	frame := chunk("VP8L", "\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07")
	photo := riff(chunk("VP8X", "\x0c\x00\x00\x00\x00\x00\x00\x00\x00\x00"), frame,
		chunk("EXIF", "MM\x00\x2a\x00\x00\x00\x08GPSLatitude=-1.2921"), chunk("XMP ", "<exif:GPSLongitude>36.8219</exif:GPSLongitude>"))
	want := riff(chunk("VP8X", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), frame)
	checkUploadStripsGPS(t, app, usr, "p.webp", "image/webp", photo, want, photo[:len(photo)-4])
}

// TestGIFUploadStripsMetadata: an animated GIF uploaded to the images
// bucket is stored without its comment and XMP extensions (GPS location)
// or the bytes after its trailer, with its loop extension and frames.
func TestGIFUploadStripsMetadata(t *testing.T) {
	t.Parallel()
	app, _, usr := apiApp(t)
	gif := func(blocks ...string) []byte {
		// 1×1 screen, two-colour global table, the blocks, the trailer.
		return []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff" + strings.Join(blocks, "") + ";")
	}
	frame := ",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00"
	loop := "!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
	control := "!\xf9\x04\x04\x0a\x00\x00\x00"
	comment := "!\xfe\x13GPSLatitude=-1.2921\x00"
	xmp := "!\xff\x0bXMP DataXMP\x2e<exif:GPSLongitude>36.8219</exif:GPSLongitude>\x00"
	photo := append(gif(loop, comment, control, frame, xmp, control, frame), "GPS junk"...)
	want := gif(loop, control, frame, control, frame)
	checkUploadStripsGPS(t, app, usr, "p.gif", "image/gif", photo, want, want[:len(want)-1])
}

// checkUploadStripsGPS uploads photo (which carries GPS metadata) as name
// to the images bucket and checks that exactly want is served back, without
// "GPS", and that broken, a malformed file of the same type, is refused
// with a 422.
func checkUploadStripsGPS(t *testing.T, app *fiber.App, usr, name, ct string, photo, want, broken []byte) {
	t.Helper()
	path := "/object/images/00000000-0000-4000-8000-000000000001/" + name
	if status, _, body := (call{method: "POST", target: path, key: usr, contentType: ct, body: photo}).do(t, app); status != 200 {
		t.Fatalf("upload: %d %s", status, body)
	}
	status, h, body := call{method: "GET", target: "/object/public/images/00000000-0000-4000-8000-000000000001/" + name}.do(t, app)
	if status != 200 || body != string(want) || h["content-type"] != ct {
		t.Errorf("download: %d %s % x\nwant % x", status, h["content-type"], body, want)
	}
	if strings.Contains(body, "GPS") {
		t.Error("GPS metadata was stored")
	}
	if status, _, body := (call{method: "POST", target: path, key: usr, contentType: ct, headers: map[string]string{"x-upsert": "true"}, body: broken}).do(t, app); status != 400 || !strings.Contains(body, `"statusCode":"422"`) {
		t.Errorf("malformed upload: %d %s, want a 422", status, body)
	}
}
