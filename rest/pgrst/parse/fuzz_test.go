package parse

import (
	"strings"
	"testing"
)

// The fuzz targets check that no input panics and that what a parser
// returns stays proportional to its input. Their seeds (f.Add and
// testdata/fuzz) run on every `go test`; `go test -fuzz=FuzzSelect` explores.

func countItems(items []*SelectItem) int {
	n := len(items)
	for _, it := range items {
		n += countItems(it.Children)
	}
	return n
}

func FuzzSelect(f *testing.F) {
	for _, s := range []string{"*", "id,name", "*,client:clients!fk!inner(id,name,projects(*))", "...rel(a,b)", "alias:data->a->>0::text",
		"amount.sum()::int,count()", `"quoted,name":x`, "a(b(c(d(e))))", "x->>-1", "rel!left!hint(*)", "name::", "a(", ")", "a::$x$", "b::int $q$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := ParseSelect(s)
		if err == nil && countItems(items) > len(s)+1 {
			t.Fatalf("ParseSelect(%q) returned %d items", s, countItems(items))
		}
		if err == nil {
			checkCasts(t, s, items)
		}
	})
}

// checkCasts fails when a cast type, which is written into SQL as is, has
// a word starting with "$" (a dollar quote or parameter in SQL).
func checkCasts(t *testing.T, in string, items []*SelectItem) {
	t.Helper()
	for _, it := range items {
		for _, c := range []string{it.Cast, it.AggregateCast} {
			for w := range strings.FieldsSeq(c) {
				if strings.HasPrefix(w, "$") {
					t.Fatalf("ParseSelect(%q) accepted the cast %q", in, c)
				}
			}
		}
		checkCasts(t, in, it.Children)
	}
}

func FuzzFilter(f *testing.F) {
	for _, s := range []string{"eq.1", "not.in.(1,\"a,b\")", "is.null", "like(any).{a*,b*}", "plfts(english).fat cat", "cs.{1,2}", "isdistinct.x", "in.(", "fts(", "not.", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseFilterValue(s)
		if err == nil && len(e.List) > len(s)+1 {
			t.Fatalf("ParseFilterValue(%q) returned %d values", s, len(e.List))
		}
		_, _, _ = ParseTreePath(s)
		_, _ = ParseOrder(s)
		_, _ = ParseColumns("columns", s)
	})
}

func FuzzLogic(f *testing.F) {
	for _, s := range []string{"(a.eq.1,b.gt.2)", "(a.is.null,or(b.eq.\"x,y\",c.cs.{1,2}))", "(not.and(a.eq.1))", "(id.in.(1,2))", "(", "(a.eq.1", "(or(or(or("} {
		f.Add("or", s)
		f.Add("not.and", s)
	}
	f.Fuzz(func(t *testing.T, op, s string) {
		if len(op) > 16 {
			return
		}
		_, _ = ParseLogic(op, s)
	})
}

func FuzzPrefer(f *testing.F) {
	for _, s := range []string{"return=representation", "count=exact, resolution=merge-duplicates", "max-affected=10, handling=strict", "tx=rollback,,, =,=x", strings.Repeat("a,", 100),
		`application/vnd.pgrst.plan+json; for="text/csv"; options=analyze|wal`, `application/vnd.pgrst.plan; for=""; options=|||`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := ParsePrefer([]string{s})
		if len(p.Invalid) > len(s)/2+1 {
			t.Fatalf("ParsePrefer(%q) returned %d invalid tokens", s, len(p.Invalid))
		}
		_ = ParseAccept(s)
	})
}

func FuzzRange(f *testing.F) {
	for _, s := range []string{"0-19", "items=5-9", "10-", "9-5", "-", "99999999999999999999-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRangeHeader(s)
		if err == nil && r.Limit < NoLimit {
			t.Fatalf("ParseRangeHeader(%q) = %v", s, r)
		}
	})
}

func FuzzQuery(f *testing.F) {
	for _, s := range []string{"select=*&id=eq.1", "select=id,rel(*)&rel.order=a.desc&rel.limit=2&or=(a.eq.1)", "a=%zz&b=+", "limit=abc&offset=-3", "&&&=", "x.y.z.not.or=(a.eq.1)"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, rpc bool) {
		params, err := SplitQuery(s)
		if err != nil {
			return
		}
		if len(params) > len(s) {
			t.Fatalf("SplitQuery(%q) returned %d params", s, len(params))
		}
		_, _ = ParseQuery(params, rpc)
	})
}

// FuzzURLEncoded checks Content-Location's percent-encoding: only
// unreserved bytes and %XX come out, and decoding gives back the input.
func FuzzURLEncoded(f *testing.F) {
	for _, s := range []string{"", "id,title,price", "ilike.*o*", "Ngũgĩ", "a b+c%2", "-_.~", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := string(appendURLEncoded([]byte("x"), s))[1:]
		for i := 0; i < len(enc); i++ {
			if enc[i] == '%' {
				if i+2 >= len(enc) || !strings.ContainsRune("0123456789ABCDEF", rune(enc[i+1])) || !strings.ContainsRune("0123456789ABCDEF", rune(enc[i+2])) {
					t.Fatalf("appendURLEncoded(%q) = %q: a bad escape at %d", s, enc, i)
				}
				i += 2
				continue
			}
			if !unreserved[enc[i]] {
				t.Fatalf("appendURLEncoded(%q) = %q: %q left as it is", s, enc, enc[i])
			}
		}
		if got := unescape(enc); got != s {
			t.Fatalf("unescape(appendURLEncoded(%q)) = %q", s, got)
		}
	})
}
