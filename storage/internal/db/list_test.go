package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
)

// listFixture is one object of the list-v2 fixture: created and updated
// seconds after a base time, plus microseconds to prove ordering truncates
// to the milliseconds a cursor can carry.
type listFixture struct {
	name               string
	created, updated   int
	createdUS, updatUS int
}

// TestListPageSorts pages through a bucket two items at a time under every
// sort, both orders, flat and delimited, and checks the pages join up to
// exactly the expected order: no key skipped or repeated across cursors,
// date ties broken by key in the sort's direction.
func TestListPageSorts(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t, pgtest.Options{})
	ctx := context.Background()
	su, err := pgxpool.New(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer su.Close()
	fixtures := []listFixture{
		{"d/a.txt", 5, 1, 0, 0},
		{"d/b.txt", 3, 9, 0, 0},
		{"d/c.txt", 3, 9, 400, 0}, // same millisecond as b: a tie broken by key
		{"d/e.txt", 1, 4, 0, 0},
		{"d/sub/x.txt", 4, 2, 0, 0}, // folder d/sub/ dates from its earliest created_at (2)
		{"d/sub/y.txt", 2, 8, 0, 0},
		{"d/z.txt", 6, 6, 0, 0},
		{"d/zz/q.txt", 7, 3, 0, 0},
		{"other/o.txt", 0, 0, 0, 0},
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(sec, us int) time.Time {
		return base.Add(time.Duration(sec)*time.Second + time.Duration(us)*time.Microsecond)
	}
	if _, err := su.Exec(ctx, `insert into storage.buckets (id, name) values ('lst', 'lst')`); err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		if _, err := su.Exec(ctx, `insert into storage.objects (bucket_id, name, version, created_at, updated_at) values ('lst', $1, 'v', $2, $3)`,
			f.name, at(f.created, f.createdUS), at(f.updated, f.updatUS)); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := pgxpool.New(ctx, db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := New(pool)

	tests := []struct {
		column    string
		desc      bool
		delimiter bool
		want      []string
	}{
		{"name", false, false, []string{"d/a.txt", "d/b.txt", "d/c.txt", "d/e.txt", "d/sub/x.txt", "d/sub/y.txt", "d/z.txt", "d/zz/q.txt"}},
		{"name", true, false, []string{"d/zz/q.txt", "d/z.txt", "d/sub/y.txt", "d/sub/x.txt", "d/e.txt", "d/c.txt", "d/b.txt", "d/a.txt"}},
		{"created_at", false, false, []string{"d/e.txt", "d/sub/y.txt", "d/b.txt", "d/c.txt", "d/sub/x.txt", "d/a.txt", "d/z.txt", "d/zz/q.txt"}},
		{"created_at", true, false, []string{"d/zz/q.txt", "d/z.txt", "d/a.txt", "d/sub/x.txt", "d/c.txt", "d/b.txt", "d/sub/y.txt", "d/e.txt"}},
		{"updated_at", false, false, []string{"d/a.txt", "d/sub/x.txt", "d/zz/q.txt", "d/e.txt", "d/z.txt", "d/sub/y.txt", "d/b.txt", "d/c.txt"}},
		{"updated_at", true, false, []string{"d/c.txt", "d/b.txt", "d/sub/y.txt", "d/z.txt", "d/e.txt", "d/zz/q.txt", "d/sub/x.txt", "d/a.txt"}},
		{"name", false, true, []string{"d/a.txt", "d/b.txt", "d/c.txt", "d/e.txt", "d/sub/", "d/z.txt", "d/zz/"}},
		{"name", true, true, []string{"d/zz/", "d/z.txt", "d/sub/", "d/e.txt", "d/c.txt", "d/b.txt", "d/a.txt"}},
		// Folders sort by the earliest created_at below them for both date
		// columns: d/sub/ at 2, d/zz/ at 7.
		{"created_at", false, true, []string{"d/e.txt", "d/sub/", "d/b.txt", "d/c.txt", "d/a.txt", "d/z.txt", "d/zz/"}},
		{"created_at", true, true, []string{"d/zz/", "d/z.txt", "d/a.txt", "d/c.txt", "d/b.txt", "d/sub/", "d/e.txt"}},
		{"updated_at", false, true, []string{"d/a.txt", "d/sub/", "d/e.txt", "d/z.txt", "d/zz/", "d/b.txt", "d/c.txt"}},
		{"updated_at", true, true, []string{"d/c.txt", "d/b.txt", "d/zz/", "d/z.txt", "d/e.txt", "d/sub/", "d/a.txt"}},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s desc=%v delimiter=%v", tc.column, tc.desc, tc.delimiter)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, limit := range []int{1, 2, 3, 100} {
				q := ListV2{Bucket: "lst", Prefix: "d/", SortColumn: tc.column, SortDesc: tc.desc, Delimiter: tc.delimiter, Limit: limit}
				var got []string
				for page := 0; ; page++ {
					if page > len(tc.want)+1 {
						t.Fatalf("limit %d: paging does not end: %v", limit, got)
					}
					var items []V2Item
					if err := s.Read(ctx, Service(), func(tx *Tx) error {
						var err error
						items, err = tx.ListPage(ctx, q)
						return err
					}); err != nil {
						t.Fatal(err)
					}
					more := len(items) > limit
					if more {
						items = items[:limit]
					}
					for _, it := range items {
						got = append(got, it.Key)
						if it.Folder != strings.HasSuffix(it.Key, "/") {
							t.Errorf("%q folder = %v", it.Key, it.Folder)
						}
						if !it.Folder && it.Object.Name != it.Key {
							t.Errorf("%q object name = %q", it.Key, it.Object.Name)
						}
					}
					if !more {
						break
					}
					last := items[len(items)-1]
					q.After = last.Key
					if tc.column != "name" {
						ts := last.SortTime
						if ts.Nanosecond()%int(time.Millisecond) != 0 {
							t.Errorf("sort time %v is not truncated to milliseconds", ts)
						}
						q.AfterTime = &ts
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("limit %d:\n got %v\nwant %v", limit, got, tc.want)
				}
			}
		})
	}
}
