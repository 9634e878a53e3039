package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTailKeepsTheLastBytes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"under the limit", 8, []string{"ab", "cd"}, "abcd"},
		{"exactly the limit", 4, []string{"ab", "cd"}, "abcd"},
		{"over the limit, not yet trimmed", 4, []string{"abc", "def"}, "cdef"},
		{"trimmed after twice the limit", 4, []string{"abcd", "efgh", "ij"}, "ghij"},
		{"one write larger than twice the limit", 3, []string{"0123456789"}, "789"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := &tail{max: tc.max}
			for _, s := range tc.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if got := w.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if len(w.buf) > 2*tc.max && len(tc.writes) > 0 {
				t.Errorf("kept %d bytes, more than twice the limit %d", len(w.buf), tc.max)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{0.9, 0.5, 0.7}, 0.7},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tc := range cases {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

func TestSameBodies(t *testing.T) {
	t.Parallel()
	serve := func(body string, status int) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(s.Close)
		return s.URL
	}
	same, other, failing := serve(`[{"id":1}]`, 200), serve(`[{"id":2}]`, 200), serve(`{"code":"PGRST100"}`, 400)
	get := func(u string) func(scenario, string) *http.Request {
		return func(scenario, string) *http.Request { r, _ := http.NewRequest("GET", u, nil); return r }
	}
	cases := []struct {
		name    string
		urls    map[string]string
		wantErr string
	}{
		{"all equal", map[string]string{"floor": same, "rest": same, "gateway": same}, ""},
		{"gateway differs", map[string]string{"floor": same, "rest": same, "gateway": other}, "gateway and floor bodies differ"},
		{"rest fails", map[string]string{"floor": same, "rest": failing, "gateway": same}, "via rest"},
		{"without the floor, rest is the reference", map[string]string{"rest": same, "gateway": other}, "gateway and rest bodies differ"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var measured []string
			request := map[string]func(scenario, string) *http.Request{}
			for _, s := range servers {
				if u, ok := tc.urls[s]; ok {
					measured = append(measured, s)
					request[s] = get(u)
				}
			}
			err := sameBodies(http.DefaultClient, scenario{name: "x"}, measured, request)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestScenarioWords(t *testing.T) {
	t.Parallel()
	typed := scenario{rest: "/t?search=fts." + wordMark + "&limit=12", args: []any{"k1000:*", 12}, vary: rareWord}
	fixed := scenario{rest: "/t?search=fts.kilim:*", args: []any{"kilim:*"}}
	cases := []struct {
		name     string
		sc       scenario
		n        uint64
		wantWord string
		wantPath string
		wantArgs []any
	}{
		{"first word", typed, 0, "k1000:*", "/t?search=fts.k1000:*&limit=12", []any{"k1000:*", 12}},
		{"another word", typed, 3242, "k4242:*", "/t?search=fts.k4242:*&limit=12", []any{"k4242:*", 12}},
		{"the last word", typed, tailWords - 1, "k9999:*", "/t?search=fts.k9999:*&limit=12", []any{"k9999:*", 12}},
		{"the tail wraps", typed, tailWords + 7, "k1007:*", "/t?search=fts.k1007:*&limit=12", []any{"k1007:*", 12}},
		{"a fixed scenario keeps its own", fixed, 99, "", "/t?search=fts.kilim:*", []any{"kilim:*"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.sc.word(tc.n)
			if w != tc.wantWord {
				t.Errorf("word(%d) = %q, want %q", tc.n, w, tc.wantWord)
			}
			if got := tc.sc.restPath(w); got != tc.wantPath {
				t.Errorf("restPath = %q, want %q", got, tc.wantPath)
			}
			if got := tc.sc.floorArgs(w); !reflect.DeepEqual(got, tc.wantArgs) {
				t.Errorf("floorArgs = %v, want %v", got, tc.wantArgs)
			}
		})
	}
}

// TestActiveListing: the detail scenario's ids are seeded listings that
// are active (g % 4 != 0 in seedSQL), all 75,000 of them before one
// repeats.
func TestActiveListing(t *testing.T) {
	t.Parallel()
	seen := make(map[string]bool, activeListings)
	for n := range uint64(activeListings) {
		id := activeListing(n)
		var g int
		if _, err := fmt.Sscanf(id, "00000000-0000-4000-8000-%012d", &g); err != nil {
			t.Fatalf("activeListing(%d) = %q: %v", n, id, err)
		}
		if g < 1 || g > 100000 || g%4 == 0 {
			t.Fatalf("activeListing(%d) = listing %d, want an active seeded one (1..100000, g %% 4 != 0)", n, g)
		}
		if seen[id] {
			t.Fatalf("activeListing(%d) = %q repeats before all were asked", n, id)
		}
		seen[id] = true
	}
	if got := activeListing(activeListings); got != activeListing(0) {
		t.Errorf("activeListing wraps to %q, want %q", got, activeListing(0))
	}
}

// TestSavedIDs: a saved-listings request asks for savedPerRequest
// distinct active listings, and the next request for others.
func TestSavedIDs(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for n := range uint64(3) {
		ids := strings.Split(savedIDs(n), ",")
		if len(ids) != savedPerRequest {
			t.Fatalf("savedIDs(%d) = %d ids, want %d", n, len(ids), savedPerRequest)
		}
		for i, id := range ids {
			if want := activeListing(n*savedPerRequest + uint64(i)); id != want {
				t.Errorf("savedIDs(%d)[%d] = %q, want %q", n, i, id, want)
			}
			if seen[id] {
				t.Errorf("savedIDs(%d) repeats %q", n, id)
			}
			seen[id] = true
		}
	}
}

// TestLoadStopsWhenInterrupted: a round whose context ends (restbench
// interrupted) returns at once, in the warm-up as in the measured time,
// so run's clean-up stops the children and drops the database.
func TestLoadStopsWhenInterrupted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	newReq := func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		return r
	}
	for _, tc := range []struct {
		name           string
		warmup, cancel time.Duration
	}{
		{"during the warm-up", time.Minute, 50 * time.Millisecond},
		{"while measuring", 0, 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.cancel)
			defer cancel()
			began := time.Now()
			load(ctx, srv.Client(), newReq, nil, 2, tc.warmup, time.Minute, 1<<30)
			if took := time.Since(began); took > 10*time.Second {
				t.Errorf("load took %v after its context ended at %v", took, tc.cancel)
			}
		})
	}
}

func TestPickScenarios(t *testing.T) {
	t.Parallel()
	all := []scenario{{name: "20 newest active"}, {name: "app list page"}, {name: "app list page, exact count"}}
	cases := []struct {
		pick    string
		want    []string
		wantErr string
	}{
		{"", []string{"20 newest active", "app list page", "app list page, exact count"}, ""},
		{"list page", []string{"app list page", "app list page, exact count"}, ""},
		{"exact", []string{"app list page, exact count"}, ""},
		// The name as a user might misremember it: an error that names
		// the real ones, not an empty run.
		{"newest 20", nil, `no scenario's name contains "newest 20"; the scenarios are "20 newest active", "app list page", "app list page, exact count"`},
	}
	for _, tc := range cases {
		t.Run(tc.pick, func(t *testing.T) {
			t.Parallel()
			got, err := pickScenarios(all, tc.pick)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("pickScenarios(%q) error = %v, want %q", tc.pick, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("pickScenarios(%q): %v", tc.pick, err)
			}
			var names []string
			for _, sc := range got {
				names = append(names, sc.name)
			}
			if !reflect.DeepEqual(names, tc.want) {
				t.Errorf("pickScenarios(%q) = %q, want %q", tc.pick, names, tc.want)
			}
		})
	}
}

// TestCPUPerRequest: the CPU column is the rounds' CPU time over their
// requests, and empty unless every round's CPU time was read; a round
// that could not be read must not pull the figure down.
func TestCPUPerRequest(t *testing.T) {
	round := func(requests int, cpu time.Duration, missed bool) result {
		r := result{lat: make([]time.Duration, requests), cpu: cpu}
		if missed {
			r.cpu, r.cpuMissed = 0, 1
		}
		return r
	}
	tests := []struct {
		name   string
		rounds []result
		want   string
	}{
		{"one round", []result{round(1000, 150*time.Millisecond, false)}, "150"},
		{"rounds pooled", []result{round(1000, 100*time.Millisecond, false), round(3000, 500*time.Millisecond, false)}, "150"},
		{"a round not read", []result{round(1000, 100*time.Millisecond, false), round(1000, 0, true)}, ""},
		{"no requests", []result{round(0, 10*time.Millisecond, false)}, ""},
		{"nothing read", []result{round(1000, 0, true)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pooled result
			for _, r := range tt.rounds {
				pooled = pooled.merge(r)
			}
			if got := pooled.final().cpuPerRequest(); got != tt.want {
				t.Errorf("cpuPerRequest() = %q, want %q", got, tt.want)
			}
		})
	}
}
