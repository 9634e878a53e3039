package objects

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Service runs the storage operations.
type Service struct {
	DB      *db.Store
	Backend backend.Backend
	Signer  *Signer
	// FileSizeLimit is the global object size limit (FILE_SIZE_LIMIT); a
	// bucket's own limit applies when smaller.
	FileSizeLimit int64
	// Images bounds the memory image uploads hold at once
	// (IMAGE_PROCESSING_MEMORY_LIMIT, IMAGE_PROCESSING_QUEUE_TIMEOUT); nil
	// means a budget of DefaultImageMemoryLimit and
	// DefaultImageQueueTimeout, made on first use.
	Images *ImageBudget
	Log    *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	defaultImages     *ImageBudget
	defaultImagesOnce sync.Once
}

// images returns the image memory budget.
func (s *Service) images() *ImageBudget {
	if s.Images != nil {
		return s.Images
	}
	s.defaultImagesOnce.Do(func() {
		s.defaultImages = NewImageBudget(DefaultImageMemoryLimit, DefaultImageQueueTimeout)
	})
	return s.defaultImages
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// NewVersion returns a random UUID, the backend version of new bytes.
func NewVersion() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// bucketFor reads a bucket's settings as the service (upstream reads them
// as superuser for uploads and public downloads).
func (s *Service) bucketFor(ctx context.Context, id string) (db.Bucket, error) {
	if err := CheckBucket(id); err != nil {
		return db.Bucket{}, err
	}
	var b db.Bucket
	err := s.DB.Read(ctx, db.Service(), func(tx *db.Tx) error {
		var err error
		b, err = tx.GetBucket(ctx, id)
		return err
	})
	return b, err
}

// Upload is one object upload.
type Upload struct {
	Bucket, Name string
	// Body streams the bytes; ContentLength is their announced length, -1
	// when unknown (multipart, chunked).
	Body          io.Reader
	ContentLength int64
	// MaxLength, when positive, bounds the body's length where
	// ContentLength cannot say: a multipart file part is shorter than its
	// request's Content-Length. It sizes the buffer a held image (WebP,
	// GIF) is read into.
	MaxLength int64
	// ContentType is as declared; empty or application/octet-stream takes
	// the sniffed type.
	ContentType  string
	CacheControl string
	UserMetadata json.RawMessage
	// Upsert overwrites an existing object (x-upsert: true, PUT).
	Upsert bool
	// Version, when set, is the backend version the bytes are stored
	// under (a resumable upload's id names it); empty makes a new one.
	Version string
}

// UploadResult is what the upload routes answer.
type UploadResult struct {
	ID, Key string
}

// Upload stores an object as c: the bucket's size and MIME rules, an RLS
// permission test before any byte is stored, the bytes streamed (images
// re-encoded) to a fresh backend version, then the row written as c in one
// transaction; an overwritten version is deleted afterwards.
func (s *Service) Upload(ctx context.Context, c db.Caller, u Upload) (UploadResult, error) {
	return s.upload(ctx, c, u, nil)
}

// uploadHook runs inside the row-writing transaction (signed uploads spend
// their token there).
type uploadHook func(*db.Tx) error

// CheckUpload runs what an upload checks before its bytes arrive, for a
// resumable upload at creation: the name, the bucket, the size limit
// against length, a declared content type against the bucket's allowed
// types, and the row write as c (rolled back). The finished upload runs
// Upload, which checks everything again with the bytes.
func (s *Service) CheckUpload(ctx context.Context, c db.Caller, u Upload) error {
	if err := CheckName(u.Name); err != nil {
		return err
	}
	b, err := s.bucketFor(ctx, u.Bucket)
	if err != nil {
		return err
	}
	if u.ContentLength > s.sizeLimit(b) {
		return storageerr.EntityTooLarge()
	}
	if ct := BaseType(u.ContentType); ct != "" && ct != "application/octet-stream" && !MimeAllowed(u.ContentType, b.AllowedMimeTypes) {
		return storageerr.InvalidMimeType(ct)
	}
	in := db.ObjectInput{Bucket: u.Bucket, Name: u.Name, Owner: c.Subject, UserMetadata: u.UserMetadata, Version: NewVersion()}
	return s.canWrite(ctx, c, in, u.Upsert)
}

// sizeLimit is the largest object bucket accepts: its own limit when
// smaller than FILE_SIZE_LIMIT.
func (s *Service) sizeLimit(b db.Bucket) int64 {
	limit := s.FileSizeLimit
	if b.FileSizeLimit != nil && *b.FileSizeLimit < limit {
		limit = *b.FileSizeLimit
	}
	return limit
}

// canWrite is the permission test: the row write as c, rolled back, before
// any byte is stored (upstream's canUpload).
func (s *Service) canWrite(ctx context.Context, c db.Caller, in db.ObjectInput, upsert bool) error {
	return s.DB.Write(ctx, c, func(tx *db.Tx) error {
		return tx.Savepoint(ctx, func(tx *db.Tx) error {
			return writeRow(ctx, tx, in, upsert)
		})
	})
}

func (s *Service) upload(ctx context.Context, c db.Caller, u Upload, hook uploadHook) (UploadResult, error) {
	if err := CheckName(u.Name); err != nil {
		return UploadResult{}, err
	}
	b, err := s.bucketFor(ctx, u.Bucket)
	if err != nil {
		return UploadResult{}, err
	}
	limit := s.sizeLimit(b)
	if u.ContentLength > limit {
		return UploadResult{}, storageerr.EntityTooLarge()
	}

	body := bufio.NewReaderSize(&limitReader{r: u.Body, left: limit}, 512)
	head, err := body.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) {
		return UploadResult{}, uploadErr(err)
	}
	ct := u.ContentType
	if BaseType(ct) == "" || BaseType(ct) == "application/octet-stream" {
		ct = http.DetectContentType(head)
		if BaseType(u.ContentType) == "application/octet-stream" && BaseType(ct) == "text/plain" {
			ct = u.ContentType
		}
	}
	if !MimeAllowed(ct, b.AllowedMimeTypes) {
		return UploadResult{}, storageerr.InvalidMimeType(BaseType(ct))
	}
	if SniffMismatch(ct, head) {
		return UploadResult{}, storageerr.InvalidMimeType(BaseType(ct))
	}

	version := u.Version
	if version == "" {
		version = NewVersion()
	}
	in := db.ObjectInput{Bucket: u.Bucket, Name: u.Name, Owner: c.Subject, UserMetadata: u.UserMetadata, Version: version}
	if err := s.canWrite(ctx, c, in, u.Upsert); err != nil {
		return UploadResult{}, err
	}

	// The most bytes body can deliver, for an image held whole.
	maxLen := limit
	if u.ContentLength >= 0 {
		maxLen = min(maxLen, u.ContentLength)
	}
	if u.MaxLength > 0 {
		maxLen = min(maxLen, u.MaxLength)
	}
	stored, err := Sanitize(ctx, s.images(), body, ct, maxLen)
	if err != nil {
		return UploadResult{}, err
	}
	sum := md5.New()
	cnt := &countingHash{h: sum}
	key := backend.Key(u.Bucket, u.Name, in.Version)
	_, err = s.Backend.Put(ctx, key, io.TeeReader(stored, cnt), BaseType(ct))
	// A Put that failed part-way (S3 error, cancelled context) leaves a
	// re-encoder blocked on its pipe; Close ends it and waits, before body
	// is drained below or the handler returns.
	_ = stored.Close()
	if err != nil {
		s.dropKeys(key)
		return UploadResult{}, uploadErr(err)
	}
	// A decoder stops at the image's end: whatever follows still counts
	// against the size limit.
	if _, err := io.Copy(io.Discard, body); err != nil {
		s.dropKeys(key)
		return UploadResult{}, uploadErr(err)
	}
	cache := u.CacheControl
	if cache == "" {
		cache = "max-age=3600"
	}
	meta, _ := json.Marshal(map[string]any{
		"eTag":           `"` + hex.EncodeToString(sum.Sum(nil)) + `"`,
		"size":           cnt.n,
		"mimetype":       ct,
		"cacheControl":   cache,
		"lastModified":   s.now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"contentLength":  cnt.n,
		"httpStatusCode": 200,
	})
	in.Metadata = meta

	var id string
	var old *string
	err = s.DB.Write(ctx, c, func(tx *db.Tx) error {
		if hook != nil {
			if err := hook(tx); err != nil {
				return err
			}
		}
		if u.Upsert {
			var err error
			id, old, err = tx.UpsertObject(ctx, in)
			return err
		}
		var err error
		id, err = tx.InsertObject(ctx, in)
		return err
	})
	if err != nil {
		s.dropKeys(key)
		return UploadResult{}, err
	}
	if old != nil && *old != in.Version {
		s.dropKeys(backend.Key(u.Bucket, u.Name, *old))
	}
	return UploadResult{ID: id, Key: u.Bucket + "/" + u.Name}, nil
}

func writeRow(ctx context.Context, tx *db.Tx, in db.ObjectInput, upsert bool) error {
	if upsert {
		_, _, err := tx.UpsertObject(ctx, in)
		return err
	}
	_, err := tx.InsertObject(ctx, in)
	return err
}

// uploadErr keeps coded errors (size, image) from a failed stream and
// wraps the rest.
func uploadErr(err error) error {
	var e *storageerr.Error
	if errors.As(err, &e) {
		return e
	}
	return fmt.Errorf("store upload: %w", err)
}

// dropKeys deletes backend keys no row points at, logging failures. It
// outlives the request's context.
func (s *Service) dropKeys(keys ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Backend.Delete(ctx, keys...); err != nil && s.Log != nil {
		s.Log.Warn("delete orphaned object bytes", "error", err.Error())
	}
}

// limitReader fails with EntityTooLarge once more than left bytes arrive.
type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, storageerr.EntityTooLarge()
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, storageerr.EntityTooLarge()
	}
	return n, err
}

type countingHash struct {
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}
