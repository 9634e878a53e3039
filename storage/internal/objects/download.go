package objects

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Access is how a download is authorised.
type Access int

// Download routes.
const (
	// AccessCaller: /object/{bucket}/{name} and /object/authenticated/…,
	// the row read as the caller (RLS decides).
	AccessCaller Access = iota
	// AccessPublic: /object/public/…, no auth; the bucket must be public.
	AccessPublic
	// AccessSigned: /object/sign/…?token=, the token decides.
	AccessSigned
)

// Meta is the server-written object metadata.
type Meta struct {
	ETag          string `json:"eTag"`
	Size          int64  `json:"size"`
	Mimetype      string `json:"mimetype"`
	CacheControl  string `json:"cacheControl"`
	LastModified  string `json:"lastModified"`
	ContentLength int64  `json:"contentLength"`
}

// ParseMeta decodes o.Metadata (zero Meta when absent).
func ParseMeta(o db.Object) Meta {
	var m Meta
	_ = json.Unmarshal(o.Metadata, &m)
	return m
}

// Get is a download request.
type Get struct {
	Bucket, Name string
	Access       Access
	Token        string
	// Range and IfNoneMatch are the request headers.
	Range, IfNoneMatch string
	// Head asks for the headers only.
	Head bool
}

// Download is what a download answers: the object, its metadata, and the
// bytes (nil for HEAD and 304). Range is set for a partial response.
type Download struct {
	Object      db.Object
	Meta        Meta
	Body        io.ReadCloser
	Range       *backend.Range
	NotModified bool
}

// LastModified is the object's last modification time.
func (d Download) LastModified() time.Time {
	if t, err := time.Parse(time.RFC3339, d.Meta.LastModified); err == nil {
		return t
	}
	return d.Object.UpdatedAt
}

// Download finds the object under g's access rule and opens its bytes.
func (s *Service) Download(ctx context.Context, c db.Caller, g Get) (Download, error) {
	if err := CheckBucket(g.Bucket); err != nil {
		return Download{}, err
	}
	if err := CheckName(g.Name); err != nil {
		return Download{}, err
	}
	who := c
	switch g.Access {
	case AccessPublic:
		b, err := s.bucketFor(ctx, g.Bucket)
		if err != nil {
			return Download{}, err
		}
		if !b.Public {
			return Download{}, storageerr.NoSuchBucket()
		}
		who = db.Service()
	case AccessSigned:
		if err := s.Signer.VerifyDownload(g.Token, g.Bucket+"/"+g.Name); err != nil {
			return Download{}, err
		}
		who = db.Service()
	}
	var o db.Object
	if err := s.DB.Read(ctx, who, func(tx *db.Tx) error {
		var err error
		o, err = tx.GetObject(ctx, g.Bucket, g.Name)
		return err
	}); err != nil {
		if g.Access == AccessCaller {
			err = s.missing(ctx, g.Bucket, err)
		}
		return Download{}, err
	}
	d := Download{Object: o, Meta: ParseMeta(o)}
	if g.IfNoneMatch != "" && etagMatch(g.IfNoneMatch, d.Meta.ETag) {
		d.NotModified = true
		return d, nil
	}
	rng, err := ParseRange(g.Range, d.Meta.Size)
	if err != nil {
		return Download{}, err
	}
	d.Range = rng
	if g.Head || o.Version == nil {
		return d, nil
	}
	// The body is streamed after the handler returns, when the request's
	// context is already cancelled: detach it. The server's write timeout
	// bounds the transfer, and it closes the body when the client leaves.
	body, err := s.Backend.Get(context.WithoutCancel(ctx), backend.Key(g.Bucket, g.Name, *o.Version), rng)
	if errors.Is(err, backend.ErrNotFound) {
		return Download{}, storageerr.NoSuchKey()
	}
	if err != nil {
		return Download{}, err
	}
	d.Body = body
	return d, nil
}

func etagMatch(header, etag string) bool {
	if etag == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag || `"`+t+`"` == etag {
			return true
		}
	}
	return false
}

// Info is GET /object/info: the row read as the caller; NoSuchBucket when
// the bucket does not exist.
func (s *Service) Info(ctx context.Context, c db.Caller, bucket, name string) (db.Object, error) {
	o, err := s.readObject(ctx, c, bucket, name)
	if err != nil {
		return o, s.missing(ctx, bucket, err)
	}
	return o, nil
}

// readObject reads the row as c: NoSuchKey when c cannot see it.
func (s *Service) readObject(ctx context.Context, c db.Caller, bucket, name string) (db.Object, error) {
	if err := CheckBucket(bucket); err != nil {
		return db.Object{}, err
	}
	if err := CheckName(name); err != nil {
		return db.Object{}, err
	}
	var o db.Object
	err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		var err error
		o, err = tx.GetObject(ctx, bucket, name)
		return err
	})
	return o, err
}

// missing turns the NoSuchKey of an object read into NoSuchBucket when the
// bucket itself does not exist, as upstream (which looks the bucket up as
// superuser first); the lookup only runs on that failure path.
func (s *Service) missing(ctx context.Context, bucket string, err error) error {
	var e *storageerr.Error
	if !errors.As(err, &e) || e.Code != storageerr.CodeNoSuchKey {
		return err
	}
	if _, berr := s.bucketFor(ctx, bucket); berr != nil {
		var be *storageerr.Error
		if errors.As(berr, &be) && be.Code == storageerr.CodeNoSuchBucket {
			return berr
		}
	}
	return err
}

// PublicInfo is GET /object/info/public/…: the object of a public bucket.
func (s *Service) PublicInfo(ctx context.Context, bucket, name string) (db.Object, error) {
	b, err := s.bucketFor(ctx, bucket)
	if err != nil {
		return db.Object{}, err
	}
	if !b.Public {
		return db.Object{}, storageerr.NoSuchBucket()
	}
	return s.readObject(ctx, db.Service(), bucket, name)
}
