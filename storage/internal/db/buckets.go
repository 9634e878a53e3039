package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Bucket is a storage.buckets row.
type Bucket struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	Owner            *string   `json:"owner"`
	OwnerID          *string   `json:"owner_id,omitempty"`
	Public           bool      `json:"public"`
	FileSizeLimit    *int64    `json:"file_size_limit"`
	AllowedMimeTypes []string  `json:"allowed_mime_types"`
	Type             string    `json:"type"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
}

// jsTime is the format JavaScript's Date.toISOString prints, in which
// upstream's buckets carry their timestamps: UTC, milliseconds, "Z".
const jsTime = "2006-01-02T15:04:05.000Z"

// MarshalJSON writes b as upstream does, timestamps in jsTime.
func (b Bucket) MarshalJSON() ([]byte, error) {
	type plain Bucket // without this method
	return json.Marshal(struct {
		plain
		CreatedAt string `json:"created_at"`
		UpdatedAt string `json:"updated_at"`
	}{plain(b), b.CreatedAt.UTC().Format(jsTime), b.UpdatedAt.UTC().Format(jsTime)})
}

const bucketCols = `id, name, owner::text, owner_id, public, file_size_limit, allowed_mime_types, type, created_at, updated_at`

func scanBucket(row pgx.Row) (Bucket, error) {
	var b Bucket
	err := row.Scan(&b.ID, &b.Name, &b.Owner, &b.OwnerID, &b.Public, &b.FileSizeLimit, &b.AllowedMimeTypes, &b.Type, &b.CreatedAt, &b.UpdatedAt)
	return b, err
}

// BucketList selects a page of buckets (GET /bucket).
type BucketList struct {
	Limit, Offset int
	// SortColumn is id, name, created_at or updated_at; SortDesc reverses.
	SortColumn string
	SortDesc   bool
	// Search filters names containing it (case-insensitive).
	Search string
}

var bucketSortColumns = map[string]string{"id": "id", "name": "name", "created_at": "created_at", "updated_at": "updated_at"}

// ListBuckets returns the buckets RLS lets the caller see.
func (t *Tx) ListBuckets(ctx context.Context, q BucketList) ([]Bucket, error) {
	col, ok := bucketSortColumns[q.SortColumn]
	if !ok {
		col = "name"
	}
	dir := "asc"
	if q.SortDesc {
		dir = "desc"
	}
	sql := `select ` + bucketCols + ` from storage.buckets
		where ($1 = '' or name ilike '%' || replace(replace(replace($1, '\', '\\'), '%', '\%'), '_', '\_') || '%')
		order by ` + col + ` ` + dir + `, id
		limit $2 offset $3`
	limit := any(nil)
	if q.Limit > 0 {
		limit = q.Limit
	}
	rows, err := t.tx.Query(ctx, sql, q.Search, limit, q.Offset)
	if err != nil {
		return nil, mapErr(fmt.Errorf("list buckets: %w", err))
	}
	out := []Bucket{}
	for rows.Next() {
		b, err := scanBucket(rows)
		if err != nil {
			return nil, mapErr(fmt.Errorf("list buckets: %w", err))
		}
		out = append(out, b)
	}
	return out, mapErr(rows.Err())
}

// GetBucket returns one bucket, or NoSuchBucket.
func (t *Tx) GetBucket(ctx context.Context, id string) (Bucket, error) {
	b, err := scanBucket(t.tx.QueryRow(ctx, `select `+bucketCols+` from storage.buckets where id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, storageerr.NoSuchBucket()
	}
	if err != nil {
		return b, mapErr(fmt.Errorf("get bucket: %w", err))
	}
	return b, nil
}

// BucketInput is the settable part of a bucket.
type BucketInput struct {
	ID, Name         string
	Public           *bool
	FileSizeLimit    *int64
	AllowedMimeTypes []string
	// SetLimit/SetMimes say whether an update touches those columns.
	SetLimit, SetMimes bool
	Type               string
}

// CreateBucket inserts a bucket owned by owner (may be empty).
func (t *Tx) CreateBucket(ctx context.Context, in BucketInput, owner string) error {
	pub := in.Public != nil && *in.Public
	typ := in.Type
	if typ == "" {
		typ = "STANDARD"
	}
	_, err := t.tx.Exec(ctx, `insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type)
		values ($1, $2, `+ownerUUID+`, nullif($3, ''), $4, $5, $6, $7)`,
		in.ID, in.Name, owner, pub, in.FileSizeLimit, in.AllowedMimeTypes, typ)
	if err != nil {
		if e := mapErr(err); isCode(e, storageerr.CodeKeyAlreadyExists) {
			return &storageerr.Error{Status: 409, Code: storageerr.CodeBucketAlreadyExists, ErrorText: "Duplicate", Message: "The resource already exists", Cause: err}
		} else {
			return e
		}
	}
	return nil
}

// UpdateBucket changes public, size limit and MIME types; NoSuchBucket when
// the caller sees no such bucket.
func (t *Tx) UpdateBucket(ctx context.Context, in BucketInput) error {
	tag, err := t.tx.Exec(ctx, `update storage.buckets set
		public = coalesce($2, public),
		file_size_limit = case when $3 then $4 else file_size_limit end,
		allowed_mime_types = case when $5 then $6 else allowed_mime_types end
		where id = $1`,
		in.ID, in.Public, in.SetLimit, in.FileSizeLimit, in.SetMimes, in.AllowedMimeTypes)
	if err != nil {
		return mapErr(fmt.Errorf("update bucket: %w", err))
	}
	if tag.RowsAffected() == 0 {
		return storageerr.NoSuchBucket()
	}
	return nil
}

// DeleteBucket removes an empty bucket: NoSuchBucket if the caller sees
// none, BucketNotEmpty if objects remain.
func (t *Tx) DeleteBucket(ctx context.Context, id string) error {
	var n int
	if err := t.tx.QueryRow(ctx, `select count(*) from storage.objects where bucket_id = $1`, id).Scan(&n); err != nil {
		return mapErr(fmt.Errorf("delete bucket: %w", err))
	}
	if n > 0 {
		return storageerr.BucketNotEmpty()
	}
	tag, err := t.tx.Exec(ctx, `delete from storage.buckets where id = $1`, id)
	if err != nil {
		if e := mapErr(err); isCode(e, storageerr.CodeNoSuchBucket) { // FK: objects appeared meanwhile
			return storageerr.BucketNotEmpty()
		} else {
			return e
		}
	}
	if tag.RowsAffected() == 0 {
		return storageerr.NoSuchBucket()
	}
	return nil
}

func isCode(err error, code string) bool {
	var e *storageerr.Error
	return errors.As(err, &e) && e.Code == code
}
