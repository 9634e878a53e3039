// Package resumable holds TUS 1.0.0 resumable uploads as Supabase Storage
// offers them at /upload/resumable: creation (with an optional first
// chunk), offset, append, termination and expiry. It keeps an upload's
// state in the byte backend itself, so an upload survives a restart and
// works the same on local disk and S3:
//
//	#resumable/<version>/info                 the upload's JSON description
//	#resumable/<version>/part-<20-digit off>  each appended chunk
//
// "#" is not a bucket-id character, so these keys never meet an object's.
// The offset is the length of the run of parts from 0 with no gap; a chunk
// cut short by a dropped connection is kept up to its last byte received.
// When the offset reaches the length, the parts are streamed in order
// through objects.Service.Upload, which applies everything an ordinary
// upload does (RLS as the caller, size and MIME rules, content sniffing,
// metadata stripping) and writes the row; then the parts are deleted.
package resumable

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// DefaultExpiry is how long an unfinished upload is kept
// (TUS_URL_EXPIRY_MS, Supabase's default of one hour).
const DefaultExpiry = time.Hour

// MaxParts bounds the chunks of one upload, as S3 bounds a multipart
// upload's parts: a client sending tiny chunks cannot make an upload
// unboundedly slow to list and assemble.
const MaxParts = 10000

// lockWait is how long a request waits for another on the same upload
// (a PATCH the server has not yet seen the end of after a dropped
// connection) before answering 423, which TUS clients retry.
const lockWait = 20 * time.Second

const keyRoot = "#resumable/"

// Manager runs resumable uploads.
type Manager struct {
	Service *objects.Service
	Backend backend.Backend
	// Expiry is how long an upload may stay unfinished; 0 means
	// DefaultExpiry.
	Expiry time.Duration
	Log    *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Locker serialises the requests on one upload across replicas; nil
	// serialises them within this process only (one replica).
	Locker *db.Locker
	// LockWait is how long a request waits for another on the same upload
	// before answering 423; 0 means 20 s (lockWait).
	LockWait time.Duration

	locks keyedLock
}

// Upload is one resumable upload's stored description.
type Upload struct {
	Bucket       string          `json:"bucket"`
	Name         string          `json:"name"`
	Version      string          `json:"version"`
	Length       int64           `json:"length"`
	ContentType  string          `json:"content_type,omitempty"`
	CacheControl string          `json:"cache_control,omitempty"`
	UserMetadata json.RawMessage `json:"user_metadata,omitempty"`
	Upsert       bool            `json:"upsert"`
	// Role and Subject are the creator's; only the same caller may
	// continue, end or delete the upload.
	Role    string    `json:"role"`
	Subject string    `json:"subject"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// ID is the upload's URL id, as Supabase Storage forms it (without its
// tenant): base64url of "<bucket>/<name>/<version>".
func (u Upload) ID() string {
	return base64.RawURLEncoding.EncodeToString([]byte(u.Bucket + "/" + u.Name + "/" + u.Version))
}

// Status is an upload's progress.
type Status struct {
	Upload
	Offset int64
	// Done is set once the object has been written.
	Done bool
}

func (m *Manager) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Manager) expiry() time.Duration {
	if m.Expiry > 0 {
		return m.Expiry
	}
	return DefaultExpiry
}

// Create is a creation request: Upload-Length and the metadata
// tus-js-client sends (bucketName, objectName, contentType, cacheControl,
// metadata), with x-upsert.
type Create struct {
	Length   int64
	Metadata map[string]string
	Upsert   bool
}

// Create checks the upload as an ordinary upload is checked before its
// bytes arrive, then records it.
func (m *Manager) Create(ctx context.Context, c db.Caller, in Create) (Upload, error) {
	u := Upload{
		Bucket: in.Metadata["bucketName"], Name: in.Metadata["objectName"], Length: in.Length,
		ContentType: in.Metadata["contentType"], Upsert: in.Upsert,
		Role: c.Role, Subject: c.Subject, Version: objects.NewVersion(),
	}
	switch {
	case u.Bucket == "":
		return Upload{}, storageerr.MissingParameter("bucketName")
	case u.Name == "":
		return Upload{}, storageerr.MissingParameter("objectName")
	}
	if cc := in.Metadata["cacheControl"]; cc != "" {
		u.CacheControl = cacheControl(cc)
	}
	if md, ok := in.Metadata["metadata"]; ok && md != "" {
		if !json.Valid([]byte(md)) {
			return Upload{}, storageerr.InvalidParameter("metadata", "")
		}
		u.UserMetadata = json.RawMessage(md)
	}
	if err := m.Service.CheckUpload(ctx, c, objects.Upload{
		Bucket: u.Bucket, Name: u.Name, ContentLength: u.Length, ContentType: u.ContentType,
		UserMetadata: u.UserMetadata, Upsert: u.Upsert,
	}); err != nil {
		return Upload{}, err
	}
	u.Created = m.now().UTC()
	u.Expires = u.Created.Add(m.expiry())
	info, err := json.Marshal(u)
	if err != nil {
		return Upload{}, fmt.Errorf("encode upload: %w", err)
	}
	if _, err := m.Backend.Put(ctx, infoKey(u.Version), strings.NewReader(string(info)), "application/json"); err != nil {
		return Upload{}, fmt.Errorf("record upload: %w", err)
	}
	return u, nil
}

// cacheControl normalises tus-js-client's "3600" to a header value, as the
// ordinary upload route does.
func cacheControl(v string) string {
	v = strings.TrimSpace(v)
	if _, err := strconv.Atoi(v); err == nil {
		return "max-age=" + v
	}
	return v
}

// versionFromID returns the version an upload id names, refusing ids this
// service did not make (the version becomes part of backend keys).
func versionFromID(id string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return "", notFound()
	}
	s := string(raw)
	i := strings.LastIndexByte(s, '/')
	if i < 0 || !isVersion(s[i+1:]) {
		return "", notFound()
	}
	return s[i+1:], nil
}

// isVersion reports whether v is a lowercase UUID as NewVersion makes.
func isVersion(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i, r := range v {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
				return false
			}
		}
	}
	return true
}

func infoKey(version string) string { return keyRoot + version + "/info" }

func partKey(version string, offset int64) string {
	return fmt.Sprintf("%s%s/part-%020d", keyRoot, version, offset)
}

// notFound is the answer for an unknown, finished, expired or foreign
// upload id alike, so ids cannot be probed.
func notFound() *storageerr.Error {
	return &storageerr.Error{Status: http.StatusNotFound, HTTPStatus: http.StatusNotFound, Code: storageerr.CodeNoSuchUpload,
		ErrorText: "not_found", Message: "Upload not found"}
}

// load reads the upload id names and checks c may act on it.
func (m *Manager) load(ctx context.Context, c db.Caller, id string) (Upload, error) {
	version, err := versionFromID(id)
	if err != nil {
		return Upload{}, err
	}
	rc, err := m.Backend.Get(ctx, infoKey(version), nil)
	if errors.Is(err, backend.ErrNotFound) {
		return Upload{}, notFound()
	}
	if err != nil {
		return Upload{}, fmt.Errorf("read upload: %w", err)
	}
	defer rc.Close()
	var u Upload
	if err := json.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(&u); err != nil {
		return Upload{}, fmt.Errorf("decode upload %s: %w", version, err)
	}
	if u.ID() != id || u.Role != c.Role || u.Subject != c.Subject {
		return Upload{}, notFound()
	}
	if !m.now().Before(u.Expires) {
		m.drop(u.Version)
		return Upload{}, &storageerr.Error{Status: http.StatusGone, HTTPStatus: http.StatusGone, Code: storageerr.CodeNoSuchUpload,
			ErrorText: "gone", Message: "Upload expired"}
	}
	return u, nil
}

// parts returns the keys and the offset of the gapless run of parts.
func (m *Manager) parts(ctx context.Context, version string) ([]string, int64, error) {
	all, err := m.Backend.List(ctx, keyRoot+version+"/part-")
	if err != nil {
		return nil, 0, fmt.Errorf("list upload parts: %w", err)
	}
	var keys []string
	var off int64
	for _, e := range all {
		if e.Key != partKey(version, off) {
			// A later part after a gap (left by a crash between two
			// writes) is ignored; the next chunk at the gap replaces it.
			continue
		}
		keys = append(keys, e.Key)
		off += e.Size
	}
	return keys, off, nil
}

// Status returns the upload's offset (HEAD).
func (m *Manager) Status(ctx context.Context, c db.Caller, id string) (Status, error) {
	u, err := m.load(ctx, c, id)
	if err != nil {
		return Status{}, err
	}
	_, off, err := m.parts(ctx, u.Version)
	if err != nil {
		return Status{}, err
	}
	return Status{Upload: u, Offset: off}, nil
}

// Append writes a chunk at offset (PATCH, or the body of a creation
// request). A chunk cut short by the client going away keeps what arrived;
// the client resumes from the offset HEAD then reports. The chunk that
// completes the upload writes the object.
func (m *Manager) Append(ctx context.Context, c db.Caller, id string, offset int64, body io.Reader) (Status, error) {
	unlock, err := m.lock(ctx, id)
	if err != nil {
		return Status{}, err
	}
	defer unlock()
	u, err := m.load(ctx, c, id)
	if err != nil {
		return Status{}, err
	}
	keys, off, err := m.parts(ctx, u.Version)
	if err != nil {
		return Status{}, err
	}
	if offset != off {
		return Status{}, &storageerr.Error{Status: http.StatusConflict, HTTPStatus: http.StatusConflict, Code: storageerr.CodeInvalidRequest,
			ErrorText: "conflict", Message: fmt.Sprintf("Upload-Offset %d does not match the upload's offset %d", offset, off)}
	}
	if off < u.Length {
		if len(keys) >= MaxParts {
			return Status{}, storageerr.InvalidRequest(http.StatusBadRequest, fmt.Sprintf("an upload has at most %d chunks", MaxParts))
		}
		cut := &cutReader{r: io.LimitReader(body, u.Length-off)}
		n, err := m.Backend.Put(ctx, partKey(u.Version, off), cut, "application/octet-stream")
		if err != nil {
			return Status{}, fmt.Errorf("store upload chunk: %w", err)
		}
		if n > 0 {
			keys = append(keys, partKey(u.Version, off))
			off += n
		} else {
			m.dropKeys(partKey(u.Version, off))
		}
		if cut.err != nil {
			// The client went away: what arrived is kept, nobody is
			// left to answer.
			return Status{Upload: u, Offset: off}, storageerr.InvalidRequest(http.StatusBadRequest, "the upload chunk ended early: "+cut.err.Error())
		}
		if more, _ := io.ReadFull(body, make([]byte, 1)); more > 0 {
			return Status{Upload: u, Offset: off}, storageerr.EntityTooLarge()
		}
	}
	st := Status{Upload: u, Offset: off}
	if off < u.Length {
		return st, nil
	}
	if err := m.finish(ctx, c, u, keys); err != nil {
		return st, err
	}
	st.Done = true
	return st, nil
}

// finish streams the parts through the ordinary upload, then forgets the
// upload. A refusal (MIME, image, RLS, limits) ends the upload too: its
// bytes can never become the object; a server failure keeps it, so the
// client's retry of the last chunk (an empty PATCH) tries again.
func (m *Manager) finish(ctx context.Context, c db.Caller, u Upload, keys []string) error {
	body := &partsReader{ctx: ctx, b: m.Backend, keys: keys}
	defer body.Close()
	_, err := m.Service.Upload(ctx, c, objects.Upload{
		Bucket: u.Bucket, Name: u.Name, Body: body, ContentLength: u.Length, MaxLength: u.Length,
		ContentType: u.ContentType, CacheControl: u.CacheControl, UserMetadata: u.UserMetadata,
		Upsert: u.Upsert, Version: u.Version,
	})
	var se *storageerr.Error
	if err != nil && !(errors.As(err, &se) && se.Status < http.StatusInternalServerError) {
		return err
	}
	m.drop(u.Version)
	return err
}

// Terminate deletes an unfinished upload (DELETE).
func (m *Manager) Terminate(ctx context.Context, c db.Caller, id string) error {
	unlock, err := m.lock(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	u, err := m.load(ctx, c, id)
	if err != nil {
		return err
	}
	m.drop(u.Version)
	return nil
}

// drop deletes every key of an upload, info last, so a half-dropped upload
// is still found and dropped again by Sweep.
func (m *Manager) drop(version string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	all, err := m.Backend.List(ctx, keyRoot+version+"/part-")
	if err != nil {
		m.warn("list upload parts", err)
		return
	}
	keys := make([]string, 0, len(all))
	for _, e := range all {
		keys = append(keys, e.Key)
	}
	if err := m.Backend.Delete(ctx, keys...); err != nil {
		m.warn("delete upload parts", err)
		return
	}
	m.dropKeys(infoKey(version))
}

func (m *Manager) dropKeys(keys ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Backend.Delete(ctx, keys...); err != nil {
		m.warn("delete upload keys", err)
	}
}

func (m *Manager) warn(what string, err error) {
	if m.Log != nil {
		m.Log.Warn(what, "error", err.Error())
	}
}

// Sweep deletes expired uploads, and parts whose upload record is gone
// and which are older than the expiry. It returns how many uploads it
// removed.
func (m *Manager) Sweep(ctx context.Context) (int, error) {
	all, err := m.Backend.List(ctx, keyRoot)
	if err != nil {
		return 0, fmt.Errorf("list uploads: %w", err)
	}
	now := m.now()
	live := map[string]bool{}
	var expired []string
	for _, e := range all {
		version, rest, _ := strings.Cut(strings.TrimPrefix(e.Key, keyRoot), "/")
		if rest != "info" {
			continue
		}
		u, err := m.readInfo(ctx, e.Key)
		if err != nil || !now.Before(u.Expires) {
			expired = append(expired, version)
			continue
		}
		live[version] = true
	}
	for _, v := range expired {
		m.drop(v)
	}
	var orphans []string
	for _, e := range all {
		version, rest, _ := strings.Cut(strings.TrimPrefix(e.Key, keyRoot), "/")
		if rest != "info" && !live[version] && now.Sub(e.LastModified) > m.expiry() {
			orphans = append(orphans, e.Key)
		}
	}
	if len(orphans) > 0 {
		if err := m.Backend.Delete(ctx, orphans...); err != nil {
			return len(expired), fmt.Errorf("delete orphaned parts: %w", err)
		}
	}
	return len(expired), nil
}

func (m *Manager) readInfo(ctx context.Context, key string) (Upload, error) {
	rc, err := m.Backend.Get(ctx, key, nil)
	if err != nil {
		return Upload{}, err
	}
	defer rc.Close()
	var u Upload
	err = json.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(&u)
	return u, err
}

// SweepEvery runs Sweep every interval until ctx ends.
func (m *Manager) SweepEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := m.Sweep(ctx); err != nil {
			m.warn("sweep expired uploads", err)
		} else if n > 0 && m.Log != nil {
			m.Log.Info("expired resumable uploads removed", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// cutReader ends at the first read error, remembering it: a connection
// that drops mid-chunk then stores the bytes that did arrive.
type cutReader struct {
	r   io.Reader
	err error
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, io.EOF
	}
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		c.err = err
		return n, io.EOF
	}
	return n, err
}

// partsReader reads the parts one after another, opening each only when
// the previous one ends.
type partsReader struct {
	ctx  context.Context
	b    backend.Backend
	keys []string
	cur  io.ReadCloser
}

func (p *partsReader) Read(buf []byte) (int, error) {
	for {
		if p.cur == nil {
			if len(p.keys) == 0 {
				return 0, io.EOF
			}
			rc, err := p.b.Get(p.ctx, p.keys[0], nil)
			if err != nil {
				return 0, fmt.Errorf("read upload part: %w", err)
			}
			p.cur, p.keys = rc, p.keys[1:]
		}
		n, err := p.cur.Read(buf)
		if err == io.EOF {
			_ = p.cur.Close()
			p.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (p *partsReader) Close() error {
	if p.cur != nil {
		return p.cur.Close()
	}
	return nil
}
