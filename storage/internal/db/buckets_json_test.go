package db

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBucketJSON: timestamps as Date.toISOString prints them (upstream's
// buckets come from node-postgres as Dates), every other field as tagged.
func TestBucketJSON(t *testing.T) {
	t.Parallel()
	lim := int64(20e6)
	at := time.Date(2026, 11, 25, 21, 0, 1, 234567890, time.FixedZone("EAT", 3*3600))
	b := Bucket{ID: "b", Name: "b", Public: true, FileSizeLimit: &lim, AllowedMimeTypes: []string{"image/*"}, Type: "STANDARD", CreatedAt: at, UpdatedAt: at.Add(time.Millisecond)}
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"created_at":"2026-11-25T18:00:01.234Z"`, `"updated_at":"2026-11-25T18:00:01.235Z"`, `"id":"b"`, `"file_size_limit":20000000`, `"allowed_mime_types":["image/*"]`, `"owner":null`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	if strings.Count(string(got), "created_at") != 1 {
		t.Errorf("created_at twice: %s", got)
	}
}
