package pgrst

import (
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
