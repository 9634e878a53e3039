package objects

import (
	"context"
	"encoding/json"
	"math"
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

// sizeRe is upstream's parseFileSizeToBytes pattern: a decimal number and
// a unit, nothing else (no space, no TB, no bare number in a string).
var sizeRe = regexp.MustCompile(`^(?i)([0-9]+(?:\.[0-9]+)?)(gb|mb|kb|b)$`)

// sizeUnits are upstream's multipliers: decimal, so "20MB" is 20,000,000
// bytes.
var sizeUnits = map[string]float64{"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9}

// maxSizeLimit keeps a parsed limit inside int64.
const maxSizeLimit = 1 << 62

// ParseFileSizeLimit reads a bucket's file_size_limit as upstream does: a
// JSON integer of bytes, or a string such as "20MB", "1.5gb", "100kb" or
// "3B" whose number keeps three significant digits (toPrecision(3)) and
// whose units are decimal. null, and a limit of 0 or less, clear it.
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
	// JavaScript's +parseFloat(v).toPrecision(3).
	f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	v := math.Round(f * sizeUnits[strings.ToLower(m[2])])
	if v > maxSizeLimit {
		return nil, storageerr.InvalidFileSizeLimit()
	}
	n := int64(v)
	if n <= 0 {
		return nil, nil
	}
	return &n, nil
}
