package tests

import (
	"strconv"
	"strings"
	"testing"
)

// search_listings: prefixes, English stemming beside Kiswahili words, title
// above description, only what the caller may see, and no input that fails.
func TestSearchListings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.newUser(t, "Search Owner")
	live := `, true, 'paid', now() + interval '30 days')`
	e.mustSuper(t, `insert into public.properties (user_id, title, type, purpose, price, location, description, is_active, payment_status, paid_until) values
		($1, 'Two bedrooms in Kilimani', 'Two Bedroom', 'Rent', 45000, 'Kilimani, Nairobi', 'Quiet street'`+live+`,
		($1, 'Bedsitter', 'Bedsitter', 'Rent', 9000, 'Rongai', 'Walk to Kilimani in ten minutes'`+live+`,
		($1, 'Nyumba ya vyumba viwili', 'Two Bedroom', 'Rent', 30000, 'Kisumu', 'Karibu na soko'`+live+`,
		($1, 'Unpublished Kilimani flat', 'One Bedroom', 'Rent', 20000, 'Kilimani', null, false, 'unpaid', null)`, owner.ID)
	e.mustSuper(t, `insert into public.products (user_id, name, price, category, location, description, is_active, payment_status, paid_until) values
		($1, 'Bedroom wardrobe', 15000, 'Bedroom', 'Kilimani', 'Solid mvule wood'`+live, owner.ID)
	e.mustSuper(t, `insert into public.service_providers (userid, name, category, location, services, is_active, payment_status, paid_until) values
		($1, 'Kilimani Movers', 'Moving', 'Nairobi', '{House moving,Office relocation}'`+live, owner.ID)

	type hit struct {
		Kind, Title string
		Total       int64
	}
	search := func(c Caller, q string) []hit {
		t.Helper()
		var rows []string
		e.value(t, c, &rows, `select coalesce(array_agg(kind || '|' || title || '|' || kind_total), '{}') from public.search_listings($1)`, q)
		out := make([]hit, 0, len(rows))
		for _, s := range rows {
			p := strings.SplitN(s, "|", 3)
			n, err := strconv.ParseInt(p[2], 10, 64)
			if err != nil {
				t.Fatalf("kind_total %q: %v", p[2], err)
			}
			out = append(out, hit{p[0], p[1], n})
		}
		return out
	}

	cases := []struct {
		name  string
		query string
		want  []hit
	}{
		// Title (A) ranks above description (C); the unpublished flat is not shown.
		{"estate, ranked", "kilimani", []hit{{"product", "Bedroom wardrobe", 1},
			{"property", "Two bedrooms in Kilimani", 2}, {"property", "Bedsitter", 2}, {"service", "Kilimani Movers", 1}}},
		{"half a word", "Kilim", []hit{{"product", "Bedroom wardrobe", 1},
			{"property", "Two bedrooms in Kilimani", 2}, {"property", "Bedsitter", 2}, {"service", "Kilimani Movers", 1}}},
		{"English stems", "bedroom kilimani", []hit{{"product", "Bedroom wardrobe", 1}, {"property", "Two bedrooms in Kilimani", 1}}},
		{"Kiswahili words", "vyumba soko", []hit{{"property", "Nyumba ya vyumba viwili", 1}}},
		{"services' own list", "relocation", []hit{{"service", "Kilimani Movers", 1}}},
		{"operators are separators", "kilimani & !(movers | :*", []hit{{"service", "Kilimani Movers", 1}}},
		{"quotes", `o'neil "x"`, nil},
		{"nothing", "   ", nil},
		{"only stop words", "the and of", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, who := range []Caller{Anon(), owner.caller()} {
				got := search(who, c.query)
				if len(got) != len(c.want) {
					t.Fatalf("%s: %q -> %v, want %v", who.Role, c.query, got, c.want)
				}
				for i := range got {
					if got[i] != c.want[i] {
						t.Errorf("%s: %q row %d = %v, want %v", who.Role, c.query, i, got[i], c.want[i])
					}
				}
			}
		})
	}

	// p_per_kind bounds each group but not its total.
	var n, total int64
	e.value(t, Anon(), &n, `select count(*) from public.search_listings('kilimani', 1) where kind = 'property'`)
	e.value(t, Anon(), &total, `select max(kind_total) from public.search_listings('kilimani', 1) where kind = 'property'`)
	if n != 1 || total != 2 {
		t.Errorf("per_kind 1: %d rows of total %d, want 1 of 2", n, total)
	}
}
