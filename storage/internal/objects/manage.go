package objects

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// MaxDeleteNames bounds one DELETE /object/{bucket} (upstream: 1000).
const MaxDeleteNames = 1000

// List is POST /object/list/{bucket} as c.
func (s *Service) List(ctx context.Context, c db.Caller, q db.ListV1) ([]db.Entry, error) {
	if err := CheckBucket(q.Bucket); err != nil {
		return nil, err
	}
	if q.Prefix != "" && !strings.HasSuffix(q.Prefix, "/") {
		q.Prefix += "/"
	}
	if q.Limit <= 0 {
		q.Limit = 100
	}
	q.Limit = min(q.Limit, 1000)
	q.Offset = max(q.Offset, 0)
	var out []db.Entry
	err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		var err error
		out, err = tx.List(ctx, q)
		return err
	})
	return out, err
}

// V2Result is the list-v2 answer.
type V2Result struct {
	HasNext    bool       `json:"hasNext"`
	Folders    []V2Folder `json:"folders"`
	Objects    []V2Object `json:"objects"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// V2Folder is a folder of a delimited list-v2 answer.
type V2Folder struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// V2Object is an object of a list-v2 answer.
type V2Object struct {
	ID             string    `json:"id"`
	Key            string    `json:"key"`
	Name           string    `json:"name"`
	UpdatedAt      time.Time `json:"updated_at"`
	CreatedAt      time.Time `json:"created_at"`
	LastAccessedAt time.Time `json:"last_accessed_at"`
	Metadata       any       `json:"metadata"`
}

// V2Query is a list-v2 request as sent.
type V2Query struct {
	Bucket, Prefix string
	// Cursor is the previous answer's nextCursor ("" for the first page).
	Cursor string
	Limit  int
	// SortColumn and SortOrder are sortBy's column and order, as sent.
	SortColumn, SortOrder string
	// Delimiter groups keys below the prefix into folders at the next "/".
	Delimiter bool
}

// ListV2 is POST /object/list-v2/{bucket} as c: keys after the cursor in
// sortBy's order (name by default; a date column breaks ties by key),
// optionally folded into folders at the next "/". A cursor carries its
// sort, which wins over the request's, as upstream.
func (s *Service) ListV2(ctx context.Context, c db.Caller, in V2Query) (V2Result, error) {
	if err := CheckBucket(in.Bucket); err != nil {
		return V2Result{}, err
	}
	q := db.ListV2{Bucket: in.Bucket, Prefix: in.Prefix, Limit: in.Limit, Delimiter: in.Delimiter}
	if q.Limit <= 0 {
		q.Limit = 1000
	}
	q.Limit = min(q.Limit, 1000)
	column, order := in.SortColumn, in.SortOrder
	if in.Cursor != "" {
		cur, err := DecodeCursor(in.Cursor)
		if err != nil {
			return V2Result{}, err
		}
		if cur.Column != "" {
			column = cur.Column
		}
		order = cur.Order
		q.After = cur.After
		if q.AfterTime, err = parseCursorTime(cur.AfterTime); err != nil {
			return V2Result{}, err
		}
	}
	q.SortColumn, q.SortDesc = column, order == "desc"
	var items []db.V2Item
	if err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		var err error
		items, err = tx.ListPage(ctx, q)
		return err
	}); err != nil {
		return V2Result{}, err
	}
	res := V2Result{Folders: []V2Folder{}, Objects: []V2Object{}}
	if len(items) > q.Limit {
		res.HasNext = true
		items = items[:q.Limit]
		last := items[len(items)-1]
		next := Cursor{After: last.Key, Order: order, Column: column}
		if column == "created_at" || column == "updated_at" {
			next.AfterTime = isoMillis(last.SortTime)
		}
		res.NextCursor = EncodeCursor(next)
	}
	for _, it := range items {
		name := strings.TrimPrefix(it.Key, q.Prefix)
		if it.Folder {
			res.Folders = append(res.Folders, V2Folder{Key: it.Key, Name: strings.TrimSuffix(name, "/")})
			continue
		}
		var meta any
		if len(it.Object.Metadata) > 0 {
			meta = it.Object.Metadata
		}
		res.Objects = append(res.Objects, V2Object{ID: it.Object.ID, Key: it.Key, Name: it.Key,
			UpdatedAt: it.Object.UpdatedAt, CreatedAt: it.Object.CreatedAt, LastAccessedAt: it.Object.LastAccessedAt, Metadata: meta})
	}
	return res, nil
}

// Remove is DELETE /object/{bucket} {"prefixes":[…]} as c: deletes the
// named objects RLS lets c delete, returns them, then drops their bytes.
func (s *Service) Remove(ctx context.Context, c db.Caller, bucket string, names []string) ([]db.Object, error) {
	if err := CheckBucket(bucket); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, storageerr.MissingParameter("prefixes")
	}
	if len(names) > MaxDeleteNames {
		return nil, storageerr.InvalidParameter("prefixes", "")
	}
	var out []db.Object
	if err := s.DB.Write(ctx, c, func(tx *db.Tx) error {
		var err error
		out, err = tx.DeleteObjects(ctx, bucket, names)
		return err
	}); err != nil {
		return nil, err
	}
	s.dropRows(out)
	return out, nil
}

func (s *Service) dropRows(rows []db.Object) {
	keys := make([]string, 0, len(rows))
	for _, o := range rows {
		if o.Version != nil {
			keys = append(keys, backend.Key(o.BucketID, o.Name, *o.Version))
		}
	}
	if len(keys) > 0 {
		s.dropKeys(keys...)
	}
}

// Transfer is a move or copy.
type Transfer struct {
	Bucket, From, ToBucket, To string
	// Upsert lets a copy overwrite an existing destination.
	Upsert bool
	// KeepMetadata (copyMetadata, default true) gives a copy the source's
	// metadata and user metadata. Without it, as upstream, the copy takes
	// the source's metadata with CacheControl and Mimetype overriding it
	// where set (unspecified fields keep the source's values), and
	// UserMetadata (x-metadata) instead of the source's user metadata.
	KeepMetadata           bool
	CacheControl, Mimetype *string
	UserMetadata           json.RawMessage
}

// copyMetadata is the metadata a copy of src gets under t's options.
func (t Transfer) copyMetadata(src db.Object) (meta, user json.RawMessage, err error) {
	if t.KeepMetadata {
		return src.Metadata, src.UserMetadata, nil
	}
	m := map[string]any{}
	if len(src.Metadata) > 0 {
		if err := json.Unmarshal(src.Metadata, &m); err != nil {
			return nil, nil, fmt.Errorf("copy: source metadata: %w", err)
		}
	}
	if t.CacheControl != nil {
		m["cacheControl"] = *t.CacheControl
	}
	if t.Mimetype != nil {
		m["mimetype"] = *t.Mimetype
	}
	meta, err = json.Marshal(m)
	if err != nil {
		return nil, nil, fmt.Errorf("copy: metadata: %w", err)
	}
	return meta, t.UserMetadata, nil
}

func (t *Transfer) check() error {
	if t.ToBucket == "" {
		t.ToBucket = t.Bucket
	}
	if t.From == "" {
		return storageerr.MissingParameter("sourceKey")
	}
	if t.To == "" {
		return storageerr.MissingParameter("destinationKey")
	}
	for _, b := range []string{t.Bucket, t.ToBucket} {
		if err := CheckBucket(b); err != nil {
			return err
		}
	}
	for _, n := range []string{t.From, t.To} {
		if err := CheckName(n); err != nil {
			return err
		}
	}
	return nil
}

// Move renames an object as c: the bytes are copied to the destination key
// first, the row is updated under RLS, and the old bytes go afterwards.
func (s *Service) Move(ctx context.Context, c db.Caller, t Transfer) (db.Object, error) {
	if err := t.check(); err != nil {
		return db.Object{}, err
	}
	dst, err := s.bucketFor(ctx, t.ToBucket)
	if err != nil {
		return db.Object{}, err
	}
	var src db.Object
	if err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		var err error
		src, err = tx.GetObject(ctx, t.Bucket, t.From)
		return err
	}); err != nil {
		return db.Object{}, err
	}
	if err := s.accepts(dst, src.Metadata); err != nil {
		return db.Object{}, err
	}
	version := NewVersion()
	dstKey := backend.Key(t.ToBucket, t.To, version)
	if src.Version != nil {
		if err := s.Backend.Copy(ctx, backend.Key(t.Bucket, t.From, *src.Version), dstKey); err != nil {
			return db.Object{}, err
		}
	}
	var moved db.Object
	err = s.DB.Write(ctx, c, func(tx *db.Tx) error {
		var err error
		moved, err = tx.MoveObject(ctx, t.Bucket, t.From, t.ToBucket, t.To, version)
		return err
	})
	if err != nil {
		s.dropKeys(dstKey)
		return db.Object{}, err
	}
	s.dropRows([]db.Object{src})
	return moved, nil
}

// accepts applies the destination bucket's rules to an object arriving by
// copy or move, with meta the metadata it will have: its type must be one
// the bucket allows and its size within the bucket's limit, as for an
// upload. Without this a copy could carry a file into a bucket that would
// have refused it, under a type of the caller's choosing (copyMetadata
// false with metadata.mimetype): a PDF's bytes into a public bucket as
// image/svg+xml, served from the app's own origin.
func (s *Service) accepts(dst db.Bucket, meta json.RawMessage) error {
	var m Meta
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &m); err != nil {
			return fmt.Errorf("object metadata: %w", err)
		}
	}
	if m.Size > s.sizeLimit(dst) {
		return storageerr.EntityTooLarge()
	}
	if !MimeAllowed(m.Mimetype, dst.AllowedMimeTypes) {
		return storageerr.InvalidMimeType(cmp.Or(BaseType(m.Mimetype), "application/octet-stream"))
	}
	return nil
}

// Copy duplicates an object as c (SELECT on the source, INSERT on the
// destination under RLS); the copy belongs to c.
func (s *Service) Copy(ctx context.Context, c db.Caller, t Transfer) (db.Object, error) {
	if err := t.check(); err != nil {
		return db.Object{}, err
	}
	dst, err := s.bucketFor(ctx, t.ToBucket)
	if err != nil {
		return db.Object{}, err
	}
	var src db.Object
	if err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		var err error
		src, err = tx.GetObject(ctx, t.Bucket, t.From)
		return err
	}); err != nil {
		return db.Object{}, err
	}
	meta, user, err := t.copyMetadata(src)
	if err != nil {
		return db.Object{}, err
	}
	if err := s.accepts(dst, meta); err != nil {
		return db.Object{}, err
	}
	in := db.ObjectInput{Bucket: t.ToBucket, Name: t.To, Owner: c.Subject, Metadata: meta, UserMetadata: user, Version: NewVersion()}
	// Permission test before copying bytes.
	if err := s.DB.Write(ctx, c, func(tx *db.Tx) error {
		return tx.Savepoint(ctx, func(tx *db.Tx) error {
			_, err := tx.InsertObjectRow(ctx, in, t.Upsert)
			return err
		})
	}); err != nil {
		return db.Object{}, err
	}
	dstKey := backend.Key(t.ToBucket, t.To, in.Version)
	if src.Version != nil {
		if err := s.Backend.Copy(ctx, backend.Key(t.Bucket, t.From, *src.Version), dstKey); err != nil {
			return db.Object{}, err
		}
	}
	var out db.Object
	var old db.Object
	err = s.DB.Write(ctx, c, func(tx *db.Tx) error {
		if t.Upsert {
			if prev, err := tx.GetObject(ctx, t.ToBucket, t.To); err == nil {
				old = prev
			}
		}
		var err error
		out, err = tx.InsertObjectRow(ctx, in, t.Upsert)
		return err
	})
	if err != nil {
		s.dropKeys(dstKey)
		return db.Object{}, err
	}
	if old.Version != nil && *old.Version != in.Version {
		s.dropRows([]db.Object{old})
	}
	return out, nil
}

// SignedURL is one entry of a batch signing answer.
type SignedURL struct {
	Error     *string `json:"error"`
	Path      string  `json:"path"`
	SignedURL *string `json:"signedURL"`
}

// maxExpiry bounds expiresIn (upstream accepts any positive number; a year
// keeps the arithmetic sane).
const maxExpiry = 365 * 24 * time.Hour

func expiry(seconds int64) (time.Duration, error) {
	if seconds <= 0 {
		return 0, storageerr.InvalidParameter("expiresIn", "expiresIn must be a positive number of seconds")
	}
	return min(time.Duration(seconds)*time.Second, maxExpiry), nil
}

// SignURL is POST /object/sign/{bucket}/{name}: c must be able to read the
// object; the answer is its signed download path.
func (s *Service) SignURL(ctx context.Context, c db.Caller, bucket, name string, expiresIn int64) (string, error) {
	ttl, err := expiry(expiresIn)
	if err != nil {
		return "", err
	}
	if _, err := s.readObject(ctx, c, bucket, name); err != nil {
		return "", err
	}
	tok, err := s.Signer.SignDownload(bucket+"/"+name, ttl)
	if err != nil {
		return "", err
	}
	return "/object/sign/" + bucket + "/" + name + "?token=" + tok, nil
}

// SignURLs is POST /object/sign/{bucket} {expiresIn, paths}: one entry per
// path, with an error for those c cannot read.
func (s *Service) SignURLs(ctx context.Context, c db.Caller, bucket string, names []string, expiresIn int64) ([]SignedURL, error) {
	ttl, err := expiry(expiresIn)
	if err != nil {
		return nil, err
	}
	if err := CheckBucket(bucket); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, storageerr.MissingParameter("paths")
	}
	if len(names) > MaxDeleteNames {
		return nil, storageerr.InvalidParameter("paths", "")
	}
	found := map[string]bool{}
	if err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		for _, n := range names {
			if !ValidName(n) {
				continue
			}
			if _, err := tx.GetObject(ctx, bucket, n); err == nil {
				found[n] = true
			} else if !isCode(err, storageerr.CodeNoSuchKey) {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]SignedURL, 0, len(names))
	for _, n := range names {
		e := SignedURL{Path: n}
		if !found[n] {
			msg := "Either the object does not exist or you do not have access to it"
			e.Error = &msg
		} else {
			tok, err := s.Signer.SignDownload(bucket+"/"+n, ttl)
			if err != nil {
				return nil, err
			}
			u := "/object/sign/" + bucket + "/" + n + "?token=" + tok
			e.SignedURL = &u
		}
		out = append(out, e)
	}
	return out, nil
}

// uploadURLTTL is how long a signed upload URL stays valid (upstream: 2 h).
const uploadURLTTL = 2 * time.Hour

// SignUploadURL is POST /object/upload/sign/{bucket}/{name}: c must pass the
// upload permission test now; the token then uploads once, as c's owner.
func (s *Service) SignUploadURL(ctx context.Context, c db.Caller, bucket, name string, upsert bool) (url, token string, err error) {
	if err := CheckName(name); err != nil {
		return "", "", err
	}
	if _, err := s.bucketFor(ctx, bucket); err != nil {
		return "", "", err
	}
	in := db.ObjectInput{Bucket: bucket, Name: name, Owner: c.Subject, Version: NewVersion()}
	if err := s.DB.Write(ctx, c, func(tx *db.Tx) error {
		return tx.Savepoint(ctx, func(tx *db.Tx) error { return writeRow(ctx, tx, in, upsert) })
	}); err != nil {
		return "", "", err
	}
	tok, err := s.Signer.SignUpload(bucket+"/"+name, c.Subject, c.Role, upsert, uploadURLTTL)
	if err != nil {
		return "", "", err
	}
	return "/object/upload/sign/" + bucket + "/" + name + "?token=" + tok, tok, nil
}

// UploadSigned is PUT /object/upload/sign/{bucket}/{name}?token=: the token
// decides (it is spent in the same transaction that writes the row), the
// row is written as the service on behalf of the token's owner.
func (s *Service) UploadSigned(ctx context.Context, token string, u Upload) (UploadResult, error) {
	g, err := s.Signer.VerifyUpload(token, u.Bucket+"/"+u.Name)
	if err != nil {
		return UploadResult{}, err
	}
	u.Upsert = g.Upsert
	c := db.Caller{Role: db.RoleService, Subject: g.Owner}
	// Refuse a spent token before reading the body.
	if err := s.DB.Read(ctx, db.Service(), func(tx *db.Tx) error { return tx.TokenUnspent(ctx, g.TokenID) }); err != nil {
		return UploadResult{}, err
	}
	// The permission test passed when the URL was signed, against the
	// bucket as it was then: an upsert of a name that did not exist yet
	// only needed INSERT. Within the token's two hours the object may have
	// come to exist (a KYC document, since submitted, that its owner may
	// no longer replace) or the owner been suspended, so a user's token is
	// tested again now, as its owner, before the write the service makes.
	if g.Role != "" && g.Role != db.RoleService && g.Owner != "" {
		claims, _ := json.Marshal(map[string]string{"sub": g.Owner, "role": g.Role}) // strings always marshal
		owner := db.Caller{Role: g.Role, Subject: g.Owner, Claims: claims}
		in := db.ObjectInput{Bucket: u.Bucket, Name: u.Name, Owner: g.Owner, Version: NewVersion()}
		if err := s.canWrite(ctx, owner, in, g.Upsert); err != nil {
			return UploadResult{}, err
		}
	}
	return s.upload(ctx, c, u, func(tx *db.Tx) error { return tx.SpendUploadToken(ctx, g.TokenID, g.Expires) })
}

func isCode(err error, code string) bool {
	e, ok := err.(*storageerr.Error)
	return ok && e.Code == code
}
