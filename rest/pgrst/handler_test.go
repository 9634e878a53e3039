package pgrst

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
)

func TestRequestJSON(t *testing.T) {
	t.Parallel()
	hdrs := [][2]string{{"Origin", "http://a"}, {"X-Weird", "q\"u\\o\x01te ü"}, {"origin", "second"}, {"Cookie", "session=abc; theme=dark; bad"}, {"cookie", "other=1"}}
	h, c := appendHeadersJSON(nil, hdrs), appendCookiesJSON(nil, hdrs)
	var hm, cm map[string]string
	if err := json.Unmarshal(h, &hm); err != nil {
		t.Fatalf("headers %s: %v", h, err)
	}
	if err := json.Unmarshal(c, &cm); err != nil {
		t.Fatalf("cookies %s: %v", c, err)
	}
	if hm["origin"] != "http://a" || hm["x-weird"] != "q\"u\\o\x01te ü" || hm["cookie"] == "" || len(hm) != 3 {
		t.Errorf("headers = %v", hm)
	}
	if cm["session"] != "abc" || cm["theme"] != "dark" || len(cm) != 2 {
		t.Errorf("cookies = %v", cm)
	}
	if h, c := appendHeadersJSON(nil, nil), appendCookiesJSON(nil, nil); string(h) != "{}" || string(c) != "{}" {
		t.Errorf("empty = %s %s", h, c)
	}
}

func TestRequestHeader(t *testing.T) {
	t.Parallel()
	r := &Request{Headers: [][2]string{
		{"Accept", "application/json"}, {"prefer", "count=exact"}, {"PREFER", "return=minimal"},
		{"\u212aey", "kelvin"}, {"Accept-Profile", "api"},
	}}
	tests := []struct {
		name   string
		want   string
		values []string
	}{
		{"Accept", "application/json", []string{"application/json"}},
		{"accept", "application/json", []string{"application/json"}},
		{"Prefer", "count=exact", []string{"count=exact", "return=minimal"}},
		{"accept-profile", "api", []string{"api"}},
		// HTTP folds ASCII letters only: the Kelvin sign is not a "k".
		{"Key", "", nil},
		{"key", "", nil},
		{"Accep", "", nil},
		{"Accept-", "", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		if got := r.Header(tt.name); got != tt.want {
			t.Errorf("Header(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if got := r.HeaderValues(tt.name); !reflect.DeepEqual(got, tt.values) {
			t.Errorf("HeaderValues(%q) = %q, want %q", tt.name, got, tt.values)
		}
	}
}

func TestContentRange(t *testing.T) {
	t.Parallel()
	n := func(v int64) *int64 { return &v }
	tests := []struct {
		lo, hi int64
		total  *int64
		want   string
	}{
		{0, 19, nil, "0-19/*"},
		{0, 4, n(57), "0-4/57"},
		{0, -1, n(0), "*/0"},
		{0, -1, nil, "*/*"},
		{1, 0, n(3), "*/3"},
		{5, 9, n(10), "5-9/10"},
	}
	for _, tt := range tests {
		if got := contentRange(tt.lo, tt.hi, tt.total); got != tt.want {
			t.Errorf("contentRange(%d, %d) = %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestNegotiate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		accept string
		root   bool
		want   string
		err    bool
		plan   bool
	}{
		{"", false, parse.MTJSON, false, false},
		{"application/geo+json", false, parse.MTGeoJSON, false, false},
		{"application/geo+json", true, "", true, false},
		// Plan types only when db_plan_enabled, and never for the root.
		{"application/vnd.pgrst.plan+json", false, "", true, false},
		{"application/vnd.pgrst.plan+json, text/csv", false, parse.MTCSV, false, false},
		{"application/vnd.pgrst.plan+json", false, parse.MTPlanJSON, false, true},
		{`application/vnd.pgrst.plan; for="text/csv"`, false, parse.MTPlanText, false, true},
		{`application/vnd.pgrst.plan; for="text/html"`, false, "", true, true},
		{"application/vnd.pgrst.plan", true, "", true, true},
		{"*/*", false, parse.MTJSON, false, false},
		{"application/vnd.pgrst.object+json", false, parse.MTObject, false, false},
		{"text/html, text/csv;q=0.5", false, parse.MTCSV, false, false},
		{"text/html", false, "", true, false},
		{"application/openapi+json", false, "", true, false},
		{"application/openapi+json", true, parse.MTOpenAPI, false, false},
		{"application/json", true, parse.MTOpenAPI, false, false},
		{"text/csv", true, "", true, false},
	}
	for _, tt := range tests {
		got, err := negotiate(parse.ParseAccept(tt.accept), tt.root, tt.plan)
		if tt.err != (err != nil) || (!tt.err && got.Type != tt.want) {
			t.Errorf("negotiate(%q, root %v, plan %v) = %v, %v; want %q (error %v)", tt.accept, tt.root, tt.plan, got, err, tt.want, tt.err)
		}
	}
}

func TestJWTCache(t *testing.T) {
	t.Parallel()
	var c jwtCache
	now := time.Now()
	a := &auth{role: "authenticated"}
	c.put("t", a, now.Add(time.Minute))
	if got := c.get("t", now); got != a {
		t.Errorf("get = %v", got)
	}
	if got := c.get("t", now.Add(2*time.Minute)); got != nil {
		t.Errorf("expired entry returned")
	}
	for i := range jwtCacheSize + 1 {
		c.put(string(rune(i+1000)), a, time.Time{})
	}
	if len(c.m) > jwtCacheSize {
		t.Errorf("cache grew to %d", len(c.m))
	}
}

// FuzzRequestJSON checks that request.headers is valid JSON holding every
// header's first value under its lower-cased name, whatever the bytes.
func FuzzRequestJSON(f *testing.F) {
	f.Add("X-Forwarded-For", "1.2.3.4", "x-forwarded-for", "5.6.7.8")
	f.Add("Ünïcode-Ä", "q\"u\\o\x01te ü", "ÜNÏCODE-ä", "second")
	f.Add("Bad\xff\xfe", "v\xc3", "K\u212a", "kelvin")
	f.Add("k", "ascii", "\u212a", "kelvin sign, one name longer in bytes")
	f.Add("Accept", "a", "ACCEPT", "same length")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		b := appendHeadersJSON(nil, [][2]string{{k1, v1}, {k2, v2}})
		var got map[string]string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		valid := func(s string) string { return string([]rune(s)) }
		n1, n2 := strings.ToLower(valid(k1)), strings.ToLower(valid(k2))
		want := map[string]string{n1: valid(v1)}
		if n2 != n1 {
			want[n2] = valid(v2)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("headers %q → %v, want %v", b, got, want)
		}
	})
}

// browserHeaders are the headers supabase-js sends from a browser, as
// the gateway forwards them.
func browserHeaders() [][2]string {
	token := "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + strings.Repeat("eyJyb2xlIjoiYW5vbiJ9", 8) + ".abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
	return [][2]string{{"Host", "127.0.0.1:54321"}, {"User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36"},
		{"Accept", "application/json"}, {"Accept-Profile", "public"}, {"Apikey", token[7:]}, {"Authorization", token},
		{"Origin", "http://localhost:5173"}, {"X-Client-Info", "supabase-js-web/2.50.0"}, {"X-Request-Id", "0f8e2b2c-1d7f-4b8a-9c55-3e8d1f7a6b21"}}
}

func BenchmarkRequestHeadersJSON(b *testing.B) {
	hdrs := browserHeaders()
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = appendHeadersJSON(buf[:0], hdrs)
	}
}

// BenchmarkRequestHeader: the lookups a read makes that the read cache
// has not seen (the token, then parse's), most of them for headers the
// request does not carry.
func BenchmarkRequestHeader(b *testing.B) {
	r := &Request{Headers: browserHeaders()}
	names := []string{"Authorization", "Accept", "Content-Type", "Range", "Prefer", "Accept-Profile", "Content-Profile"}
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			_ = r.Header(n)
		}
	}
}

// BenchmarkContentLocation: the Content-Location of the app's detail
// page, written for every read the read cache has not seen (another
// listing each time).
func BenchmarkContentLocation(b *testing.B) {
	const q = "select=id,title,description,price,location,type,purpose,bedrooms,bathrooms,images,is_active,created_at,user_id,size_sqft,amenities" +
		"&id=eq.6f1c2a9e-3b7d-4e8f-9a0b-1c2d3e4f5a6b"
	b.ReportAllocs()
	for b.Loop() {
		_ = contentLocation("properties", q)
	}
}

func TestTimingHeader(t *testing.T) {
	tm := timing{n: 3}
	tm.parts[0].name, tm.parts[0].dur = "jwt", 1500*time.Microsecond
	tm.parts[1].name, tm.parts[1].dur = "parse", 40*time.Microsecond
	tm.parts[2].name, tm.parts[2].dur = "transaction", 12345*time.Microsecond
	if got, want := tm.header(), "jwt;dur=1.5, parse;dur=0.0, transaction;dur=12.3"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { _ = tm.header() }); n > 1 {
		t.Errorf("%v allocations, want 1", n)
	}
	full := timing{n: len(tm.parts)}
	for i := range full.parts {
		full.parts[i].name, full.parts[i].dur = "transaction", time.Hour
	}
	if got := full.header(); strings.Count(got, "transaction;dur=3600000.0") != len(full.parts) {
		t.Errorf("every entry at its longest: %q", got)
	}
}
