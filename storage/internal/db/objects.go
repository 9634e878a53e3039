package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Object is a storage.objects row.
type Object struct {
	ID             string          `json:"id"`
	BucketID       string          `json:"bucket_id"`
	Name           string          `json:"name"`
	Owner          *string         `json:"owner"`
	OwnerID        *string         `json:"owner_id"`
	Metadata       json.RawMessage `json:"metadata"`
	UserMetadata   json.RawMessage `json:"user_metadata"`
	Version        *string         `json:"version"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
	LastAccessedAt time.Time       `json:"last_accessed_at"`
}

// ownerUUID is the deprecated uuid owner column's value for the caller's
// id in $3. As upstream, it is set only when the id is a UUID, while owner_id
// (text) always holds it: a JWT from another issuer whose sub is not a UUID
// must still upload, and a bare ::uuid cast would fail every such insert.
// The regex is the canonical text form, which the cast always accepts.
const ownerUUID = `case when $3 ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then $3::uuid end`

const objectCols = `id::text, bucket_id, name, owner::text, owner_id, metadata, user_metadata, version, created_at, updated_at, last_accessed_at`

func scanObject(row pgx.Row) (Object, error) {
	var o Object
	err := row.Scan(&o.ID, &o.BucketID, &o.Name, &o.Owner, &o.OwnerID, &o.Metadata, &o.UserMetadata, &o.Version, &o.CreatedAt, &o.UpdatedAt, &o.LastAccessedAt)
	return o, err
}

// GetObject returns the object if the caller may see it, else NoSuchKey.
func (t *Tx) GetObject(ctx context.Context, bucket, name string) (Object, error) {
	o, err := scanObject(t.tx.QueryRow(ctx, `select `+objectCols+` from storage.objects where bucket_id = $1 and name = $2`, bucket, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return o, storageerr.NoSuchKey()
	}
	if err != nil {
		return o, mapErr(fmt.Errorf("get object: %w", err))
	}
	return o, nil
}

// ObjectInput is a row to write.
type ObjectInput struct {
	Bucket, Name string
	// Owner is the JWT sub; empty for anon and service keys.
	Owner        string
	Metadata     json.RawMessage
	UserMetadata json.RawMessage
	Version      string
}

func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// InsertObject creates the row; KeyAlreadyExists if the name is taken,
// AccessDenied if RLS refuses.
func (t *Tx) InsertObject(ctx context.Context, in ObjectInput) (string, error) {
	var id string
	err := t.tx.QueryRow(ctx, `insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
		values ($1, $2, `+ownerUUID+`, nullif($3, ''), $4::jsonb, $5::jsonb, $6)
		returning id::text`,
		in.Bucket, in.Name, in.Owner, nullJSON(in.Metadata), nullJSON(in.UserMetadata), in.Version).Scan(&id)
	if err != nil {
		return "", mapErr(fmt.Errorf("insert object: %w", err))
	}
	return id, nil
}

// UpsertObject creates or overwrites the row (needs INSERT, SELECT and
// UPDATE under RLS) and returns its id and the version it replaced, if any.
func (t *Tx) UpsertObject(ctx context.Context, in ObjectInput) (id string, oldVersion *string, err error) {
	err = t.tx.QueryRow(ctx, `with old as (
			select version from storage.objects where bucket_id = $1 and name = $2
		)
		insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
		values ($1, $2, `+ownerUUID+`, nullif($3, ''), $4::jsonb, $5::jsonb, $6)
		on conflict (bucket_id, name) do update set
			owner = excluded.owner, owner_id = excluded.owner_id, metadata = excluded.metadata,
			user_metadata = excluded.user_metadata, version = excluded.version, last_accessed_at = now()
		returning id::text, (select version from old)`,
		in.Bucket, in.Name, in.Owner, nullJSON(in.Metadata), nullJSON(in.UserMetadata), in.Version).Scan(&id, &oldVersion)
	if err != nil {
		return "", nil, mapErr(fmt.Errorf("upsert object: %w", err))
	}
	return id, oldVersion, nil
}

// DeleteObjects deletes the named objects the caller may delete and returns
// them.
func (t *Tx) DeleteObjects(ctx context.Context, bucket string, names []string) ([]Object, error) {
	return t.queryObjects(ctx, `delete from storage.objects where bucket_id = $1 and name = any($2) returning `+objectCols, bucket, names)
}

// EmptyBucket deletes every object of the bucket the caller may delete and
// returns them.
func (t *Tx) EmptyBucket(ctx context.Context, bucket string) ([]Object, error) {
	return t.queryObjects(ctx, `delete from storage.objects where bucket_id = $1 returning `+objectCols, bucket)
}

// MoveObject renames an object (possibly into another bucket) under RLS
// (UPDATE on the source row, its WITH CHECK on the destination) and sets its
// version. NoSuchKey if the caller cannot update the source,
// KeyAlreadyExists if the destination is taken.
func (t *Tx) MoveObject(ctx context.Context, bucket, name, dstBucket, dstName, version string) (Object, error) {
	o, err := scanObject(t.tx.QueryRow(ctx, `update storage.objects set bucket_id = $3, name = $4, version = $5
		where bucket_id = $1 and name = $2 returning `+objectCols, bucket, name, dstBucket, dstName, version))
	if errors.Is(err, pgx.ErrNoRows) {
		return o, storageerr.NoSuchKey()
	}
	if err != nil {
		return o, mapErr(fmt.Errorf("move object: %w", err))
	}
	return o, nil
}

// InsertObjectRow creates a row and returns it whole (copy).
func (t *Tx) InsertObjectRow(ctx context.Context, in ObjectInput, upsert bool) (Object, error) {
	sql := `insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
		values ($1, $2, ` + ownerUUID + `, nullif($3, ''), $4::jsonb, $5::jsonb, $6)`
	if upsert {
		sql += ` on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id,
			metadata = excluded.metadata, user_metadata = excluded.user_metadata, version = excluded.version`
	}
	o, err := scanObject(t.tx.QueryRow(ctx, sql+` returning `+objectCols,
		in.Bucket, in.Name, in.Owner, nullJSON(in.Metadata), nullJSON(in.UserMetadata), in.Version))
	if err != nil {
		return o, mapErr(fmt.Errorf("insert object: %w", err))
	}
	return o, nil
}

// SpendUploadToken records a signed upload token as used; AccessDenied if it
// already was.
func (t *Tx) SpendUploadToken(ctx context.Context, tokenID string, expires time.Time) error {
	tag, err := t.tx.Exec(ctx, `insert into storage.signed_upload_uses (token_id, expires_at) values ($1::uuid, $2)
		on conflict (token_id) do nothing`, tokenID, expires)
	if err != nil {
		return mapErr(fmt.Errorf("spend upload token: %w", err))
	}
	if tag.RowsAffected() == 0 {
		return storageerr.InvalidJWT("The signed upload URL has already been used")
	}
	// Spent tokens past their expiry can no longer be presented: prune them.
	if _, err := t.tx.Exec(ctx, `delete from storage.signed_upload_uses where expires_at < now() - interval '1 hour'`); err != nil {
		return mapErr(fmt.Errorf("prune upload tokens: %w", err))
	}
	return nil
}

func (t *Tx) queryObjects(ctx context.Context, sql string, args ...any) ([]Object, error) {
	rows, err := t.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, mapErr(fmt.Errorf("query objects: %w", err))
	}
	out := []Object{}
	for rows.Next() {
		o, err := scanObject(rows)
		if err != nil {
			return nil, mapErr(fmt.Errorf("scan object: %w", err))
		}
		out = append(out, o)
	}
	return out, mapErr(rows.Err())
}

// likePrefix escapes s for use as a LIKE prefix pattern.
func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s) + "%"
}

// ListV1 selects one level of a bucket (POST /object/list/{bucket}).
type ListV1 struct {
	Bucket string
	// Prefix is the folder, with its trailing slash ("" for the root).
	Prefix        string
	Limit, Offset int
	// SortColumn is name, updated_at, created_at or last_accessed_at.
	SortColumn string
	SortDesc   bool
	// Search keeps entries whose name starts with it (case-insensitive).
	Search string
}

// Entry is one list row: an object, or a folder (ID and Metadata nil).
type Entry struct {
	Name           string          `json:"name"`
	ID             *string         `json:"id"`
	UpdatedAt      *time.Time      `json:"updated_at"`
	CreatedAt      *time.Time      `json:"created_at"`
	LastAccessedAt *time.Time      `json:"last_accessed_at"`
	Metadata       json.RawMessage `json:"metadata"`
}

var listSortColumns = map[string]string{
	"name": `name collate "C"`, "updated_at": "updated_at", "created_at": "created_at", "last_accessed_at": "last_accessed_at",
}

// List returns the folders and objects directly under q.Prefix that the
// caller may see, upstream's storage.search.
func (t *Tx) List(ctx context.Context, q ListV1) ([]Entry, error) {
	col, ok := listSortColumns[q.SortColumn]
	if !ok {
		col = listSortColumns["name"]
	}
	dir := "asc"
	if q.SortDesc {
		dir = "desc"
	}
	sql := `select name, id, updated_at, created_at, last_accessed_at, metadata from (
			select distinct on (s.entry) s.entry as name,
				case when s.folder then null else s.id::text end as id,
				case when s.folder then null else s.updated_at end as updated_at,
				case when s.folder then null else s.created_at end as created_at,
				case when s.folder then null else s.last_accessed_at end as last_accessed_at,
				case when s.folder then null else s.metadata end as metadata
			from (
				select split_part(substr(o.name, $2::int + 1), '/', 1) as entry,
					strpos(substr(o.name, $2::int + 1), '/') > 0 as folder, o.*
				from storage.objects o
				where o.bucket_id = $1 and o.name like $3
			) s
			where $4 = '' or lower(s.entry) like lower($5)
			order by s.entry, s.folder
		) l
		order by ` + col + ` ` + dir + ` nulls first, name collate "C"
		limit $6 offset $7`
	rows, err := t.tx.Query(ctx, sql, q.Bucket, len([]rune(q.Prefix)), likePrefix(q.Prefix), q.Search, likePrefix(q.Search), q.Limit, q.Offset)
	if err != nil {
		return nil, mapErr(fmt.Errorf("list objects: %w", err))
	}
	out := []Entry{}
	for rows.Next() {
		var e Entry
		if err := rows.Scan(&e.Name, &e.ID, &e.UpdatedAt, &e.CreatedAt, &e.LastAccessedAt, &e.Metadata); err != nil {
			return nil, mapErr(fmt.Errorf("list objects: %w", err))
		}
		out = append(out, e)
	}
	return out, mapErr(rows.Err())
}

// ListV2 selects a page of a bucket by cursor (POST /object/list-v2/{bucket}).
type ListV2 struct {
	Bucket, Prefix string
	// After is the key the previous page ended on ("" for the first page).
	After string
	// AfterTime is that key's sort time when SortColumn is a date column;
	// nil stands for the epoch, as upstream's cursor without one.
	AfterTime *time.Time
	// SortColumn is "name" (the default), "created_at" or "updated_at".
	SortColumn string
	// SortDesc orders descending; ties on a date are broken by the key in
	// the same direction.
	SortDesc bool
	Limit    int
	// Delimiter groups keys below the prefix into folders at the next "/".
	Delimiter bool
}

// V2Item is one key: an object, or a folder when Folder.
type V2Item struct {
	Key    string
	Folder bool
	// SortTime is the item's sort column truncated to milliseconds (the
	// epoch when null); a folder's is the earliest created_at below it, as
	// upstream's search_by_timestamp. Zero when sorting by name.
	SortTime time.Time
	Object   Object
}

// v2DateColumns are the date columns list-v2 sorts by; only these strings
// ever reach the SQL text.
var v2DateColumns = map[string]string{"created_at": "created_at", "updated_at": "updated_at"}

// listPageSQL builds the list-v2 statement for q. Its values are the named
// arguments ListPage passes (pgx.NamedArgs binds only the names the text
// uses, so each variant references just its own).
func listPageSQL(q ListV2) string {
	dateCol, byDate := v2DateColumns[q.SortColumn]
	if !byDate {
		dateCol = "created_at"
	}
	dir, op := "asc", ">"
	if q.SortDesc {
		dir, op = "desc", "<"
	}
	sortAt := `coalesce(date_trunc('milliseconds', ` + dateCol + `), 'epoch'::timestamptz)`
	var inner string
	if q.Delimiter {
		// A folder's time is the earliest created_at below it, for either
		// date column (upstream: MIN(obj_created_at) for both).
		inner = `select k.key, k.folder, (array_agg(k.oid))[1] as oid,
				case when k.folder then coalesce(date_trunc('milliseconds', min(k.created_at)), 'epoch'::timestamptz)
					else min(k.sort_at) end as sort_at
			from (
				select case when strpos(substr(name, @prefix_len::int + 1), '/') > 0
						then @prefix || split_part(substr(name, @prefix_len::int + 1), '/', 1) || '/'
						else name end collate "C" as key,
					strpos(substr(name, @prefix_len::int + 1), '/') > 0 as folder, id as oid, created_at,
					` + sortAt + ` as sort_at
				from storage.objects
				where bucket_id = @bucket and name like @like
			) k
			group by k.key, k.folder`
	} else {
		inner = `select name collate "C" as key, false as folder, id as oid, ` + sortAt + ` as sort_at
			from storage.objects
			where bucket_id = @bucket and name like @like`
	}
	where, order := `d.key `+op+` @after`, `d.key `+dir
	if byDate {
		where = `row(d.sort_at, d.key) ` + op + ` row(coalesce(@after_time::timestamptz, 'epoch'::timestamptz), @after::text collate "C")`
		order = `d.sort_at ` + dir + `, d.key ` + dir
	}
	return `select d.key, d.folder, d.sort_at, ` + prefixed("o.", objectCols) + `
		from (` + inner + `) d
		left join storage.objects o on o.id = d.oid and not d.folder
		where (@after = '' or ` + where + `)
		order by ` + order + `
		limit @limit`
}

// ListPage returns up to q.Limit+1 items after the cursor in q's order
// (keys in C collation); the caller uses the extra one to report hasNext.
func (t *Tx) ListPage(ctx context.Context, q ListV2) ([]V2Item, error) {
	args := pgx.NamedArgs{"bucket": q.Bucket, "like": likePrefix(q.Prefix), "after": q.After, "limit": q.Limit + 1,
		"after_time": q.AfterTime, "prefix_len": len([]rune(q.Prefix)), "prefix": q.Prefix}
	rows, err := t.tx.Query(ctx, listPageSQL(q), args)
	if err != nil {
		return nil, mapErr(fmt.Errorf("list objects v2: %w", err))
	}
	defer rows.Close()
	_, byDate := v2DateColumns[q.SortColumn]
	out := []V2Item{}
	for rows.Next() {
		var it V2Item
		var o struct {
			ID, BucketID, Name               *string
			Owner, OwnerID                   *string
			Metadata, UserMetadata           json.RawMessage
			Version                          *string
			CreatedAt, UpdatedAt, LastAccess *time.Time
		}
		if err := rows.Scan(&it.Key, &it.Folder, &it.SortTime, &o.ID, &o.BucketID, &o.Name, &o.Owner, &o.OwnerID, &o.Metadata, &o.UserMetadata, &o.Version, &o.CreatedAt, &o.UpdatedAt, &o.LastAccess); err != nil {
			return nil, mapErr(fmt.Errorf("list objects v2: %w", err))
		}
		if !byDate {
			it.SortTime = time.Time{}
		}
		if !it.Folder && o.ID != nil {
			it.Object = Object{ID: *o.ID, BucketID: deref(o.BucketID), Name: deref(o.Name), Owner: o.Owner, OwnerID: o.OwnerID,
				Metadata: o.Metadata, UserMetadata: o.UserMetadata, Version: o.Version}
			if o.CreatedAt != nil {
				it.Object.CreatedAt, it.Object.UpdatedAt, it.Object.LastAccessedAt = *o.CreatedAt, *o.UpdatedAt, *o.LastAccess
			}
		}
		out = append(out, it)
	}
	return out, mapErr(rows.Err())
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// prefixed qualifies each column of a column list with p.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ", ")
	for i, c := range parts {
		parts[i] = p + c
	}
	return strings.Join(parts, ", ")
}

// TokenUnspent returns the "already used" error if the signed upload token
// was spent.
func (t *Tx) TokenUnspent(ctx context.Context, tokenID string) error {
	var used bool
	if err := t.tx.QueryRow(ctx, `select exists (select 1 from storage.signed_upload_uses where token_id = $1::uuid)`, tokenID).Scan(&used); err != nil {
		return mapErr(fmt.Errorf("check upload token: %w", err))
	}
	if used {
		return storageerr.InvalidJWT("The signed upload URL has already been used")
	}
	return nil
}
