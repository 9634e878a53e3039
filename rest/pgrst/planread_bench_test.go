package pgrst

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/plan"
)

// BenchmarkPlanRead: planning a read of every column of a table by id,
// as each read not asked before is planned (the app's screens select
// most columns).
func BenchmarkPlanRead(b *testing.B) {
	f := newShapeFixture(b)
	req, err := parseTarget("GET", "/books?select=id,title,author_id,editor_id,publisher_id,price,pages,tags,metadata,published_on,summary,in_print,created_at&id=eq.7",
		"", nil, f.cfg.Schemas)
	if err != nil {
		b.Fatal(err)
	}
	x := &call{h: f.h, cfg: f.cfg, c: f.snap, req: req}
	t, err := x.table()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := plan.Read(x.c, t, req, plan.RootTable, x.planOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadStatements: the statements of reads the app sends with
// other values each time, as each read not asked before builds them: from
// its shape's templates once the shape is known, else in full. A typed
// place: the filtered list (a contains pattern beside is_active=eq.true,
// 12 rows, count=estimated). Saved listings: the user's saved ids as an
// in list (another user, another list).
func BenchmarkReadStatements(b *testing.B) {
	const cols = "id,title,author_id,editor_id,publisher_id,price,pages,tags,metadata,published_on,summary,in_print,created_at"
	for _, bc := range []struct {
		name, target string
		h            http.Header
	}{
		{"a typed place", "/books?select=" + cols + "&in_print=eq.true&title=ilike.*place%d*&order=created_at.desc&offset=0&limit=12", http.Header{"Prefer": {"count=estimated"}}},
		{"saved listings", "/books?select=" + cols + "&id=in.(%d,17,23,42)", http.Header{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := newShapeFixture(b)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				req, err := parseTarget("GET", fmt.Sprintf(bc.target, n), "", bc.h, f.cfg.Schemas)
				if err != nil {
					b.Fatal(err)
				}
				x, t, mt, root, err := f.plan(b, req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := x.readStatements(t, root, mt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
