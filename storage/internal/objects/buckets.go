package objects

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// ListBuckets is GET /bucket as c (RLS on storage.buckets decides).
func (s *Service) ListBuckets(ctx context.Context, c db.Caller, q db.BucketList) ([]db.Bucket, error) {
	var out []db.Bucket
	err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		var err error
		out, err = tx.ListBuckets(ctx, q)
		return err
	})
	return out, err
}

// GetBucket is GET /bucket/{id} as c.
func (s *Service) GetBucket(ctx context.Context, c db.Caller, id string) (db.Bucket, error) {
	if err := CheckBucket(id); err != nil {
		return db.Bucket{}, err
	}
	var b db.Bucket
	err := s.DB.Read(ctx, c, func(tx *db.Tx) error {
		var err error
		b, err = tx.GetBucket(ctx, id)
		return err
	})
	return b, err
}

// CreateBucket is POST /bucket as c.
func (s *Service) CreateBucket(ctx context.Context, c db.Caller, in db.BucketInput) error {
	if in.Name == "" {
		in.Name = in.ID
	}
	if in.ID == "" {
		in.ID = in.Name
	}
	if in.ID == "" {
		return storageerr.MissingParameter("name")
	}
	if err := CheckBucket(in.ID); err != nil {
		return err
	}
	if err := CheckBucket(in.Name); err != nil {
		return err
	}
	return s.DB.Write(ctx, c, func(tx *db.Tx) error { return tx.CreateBucket(ctx, in, c.Subject) })
}

// UpdateBucket is PUT /bucket/{id} as c.
func (s *Service) UpdateBucket(ctx context.Context, c db.Caller, in db.BucketInput) error {
	if err := CheckBucket(in.ID); err != nil {
		return err
	}
	return s.DB.Write(ctx, c, func(tx *db.Tx) error { return tx.UpdateBucket(ctx, in) })
}

// DeleteBucket is DELETE /bucket/{id} as c.
func (s *Service) DeleteBucket(ctx context.Context, c db.Caller, id string) error {
	if err := CheckBucket(id); err != nil {
		return err
	}
	return s.DB.Write(ctx, c, func(tx *db.Tx) error { return tx.DeleteBucket(ctx, id) })
}

// EmptyBucket is POST /bucket/{id}/empty as c: deletes every object c may
// delete (upstream queues this; here it completes before the answer).
func (s *Service) EmptyBucket(ctx context.Context, c db.Caller, id string) error {
	if err := CheckBucket(id); err != nil {
		return err
	}
	var rows []db.Object
	if err := s.DB.Write(ctx, c, func(tx *db.Tx) error {
		if _, err := tx.GetBucket(ctx, id); err != nil {
			return err
		}
		var err error
		rows, err = tx.EmptyBucket(ctx, id)
		return err
	}); err != nil {
		return err
	}
	s.dropRows(rows)
	return nil
}

var sizeRe = regexp.MustCompile(`^(?i)\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?\s*$`)

// ParseFileSizeLimit reads a bucket's file_size_limit: a JSON number of
// bytes, a numeric string, or "20MB"/"30KB"/"3B" (upstream's units, 1024
// based). null clears it.
func ParseFileSizeLimit(raw json.RawMessage) (*int64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return nil, nil
		}
		return &n, nil
	}
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return nil, storageerr.InvalidFileSizeLimit()
	}
	m := sizeRe.FindStringSubmatch(str)
	if m == nil {
		return nil, storageerr.InvalidFileSizeLimit()
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return nil, storageerr.InvalidFileSizeLimit()
	}
	mult := map[string]float64{"": 1, "b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40}[strings.ToLower(m[2])]
	n := int64(f * mult)
	if n <= 0 {
		return nil, nil
	}
	return &n, nil
}
