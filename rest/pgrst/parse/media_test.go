package parse

import "testing"

// TestPlanMediaType checks the EXPLAIN media types as PostgREST's
// MediaType.hs decodes and renders them.
func TestPlanMediaType(t *testing.T) {
	tests := []struct {
		accept string
		want   string
		opts   int
	}{
		{"application/vnd.pgrst.plan", `application/vnd.pgrst.plan+text; for="application/json"`, 0},
		{"application/vnd.pgrst.plan+json", `application/vnd.pgrst.plan+json; for="application/json"`, 0},
		{`application/vnd.pgrst.plan+text; for="text/csv"`, `application/vnd.pgrst.plan+text; for="text/csv"`, 0},
		{`application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=wal|analyze|verbose`,
			`application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=analyze|verbose|wal`, 3},
		// Unknown options are dropped, a plan cannot explain a plan.
		{`application/vnd.pgrst.plan+json; options=bogus|buffers|settings; for="application/vnd.pgrst.plan+json"`,
			`application/vnd.pgrst.plan+json; for="application/json"; options=settings|buffers`, 2},
	}
	for _, tt := range tests {
		got := ParseAccept(tt.accept)
		if len(got) != 1 || !got[0].IsPlan() {
			t.Fatalf("ParseAccept(%q) = %v, want a plan type", tt.accept, got)
		}
		if s := got[0].String(); s != tt.want || len(got[0].PlanOptions) != tt.opts {
			t.Errorf("ParseAccept(%q) = %q %v, want %q", tt.accept, s, got[0].PlanOptions, tt.want)
		}
	}
	if m := ParseAccept("application/json; for=text/csv"); m[0].IsPlan() || m[0].PlanFor != nil {
		t.Errorf("for= on a non-plan type: %+v", m[0])
	}
}
