package tests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// planNode is one node of EXPLAIN (format json) output, with the fields the
// plan assertions read.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	Filter       string     `json:"Filter"`
	Parent       string     `json:"Parent Relationship"`
	Plans        []planNode `json:"Plans"`
}

// String renders the plan compactly, e.g.
// "Limit(Index Scan properties_active_created_idx)".
func (n planNode) String() string {
	var b strings.Builder
	b.WriteString(n.NodeType)
	if n.IndexName != "" {
		b.WriteString(" " + n.IndexName)
	} else if n.RelationName != "" {
		b.WriteString(" " + n.RelationName)
	}
	if len(n.Plans) > 0 {
		parts := make([]string, len(n.Plans))
		for i, c := range n.Plans {
			parts[i] = c.String()
		}
		b.WriteString("(" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}

// find reports whether n or a node below it satisfies f.
func (n planNode) find(f func(planNode) bool) bool {
	if f(n) {
		return true
	}
	for _, c := range n.Plans {
		if c.find(f) {
			return true
		}
	}
	return false
}

// explain plans sql as c (custom plan, parameters bound as rest binds them)
// and returns the root plan node.
func (e *env) explain(t *testing.T, c Caller, sql string, args ...any) planNode {
	t.Helper()
	return decodePlan(t, e.explainRaw(t, c, "format json", sql, args...))
}

// explainRaw runs EXPLAIN (options) sql as c, rolled back, and returns
// its output.
func (e *env) explainRaw(t *testing.T, c Caller, options, sql string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	var raw string
	err := As(ctx, e.api, c, false, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "explain ("+options+") "+sql, args...).Scan(&raw)
	})
	if err != nil {
		t.Fatalf("explain (%s) %s as %s: %v", options, firstLine(sql), c.Role, err)
	}
	return raw
}

// decodePlan returns the root node of EXPLAIN (format json) output.
func decodePlan(t *testing.T, raw string) planNode {
	t.Helper()
	var out []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil || len(out) != 1 {
		t.Fatalf("decode plan %q: %v", raw, err)
	}
	return out[0].Plan
}

// The listing fixtures share their spread: 100,000 rows per table, 90 %
// active, created in created_at order, owned by 50 users, spread
// deterministically over 100 estates (Kilimani is one: about 1 % of rows)
// with descriptions ending in words of a long tail (k0..k4092, w0..w2038),
// as real descriptions do: the planner estimates a word it keeps no
// statistics for from the rarest word it does keep, so a fixture of a dozen
// words would make every rare word look common. Each seed selects from
// fixtureRows, whose h1, h2, h3 are three independent hashes of g.
const (
	fixtureRows = `with o as (select array_agg(id order by email) ids from auth.users where email like $1 || '%'),
		h as (select g, abs(hashint4(g)) h1, abs(hashint4(-g)) h2, abs(hashint4(g + 1000003)) h3
		        from generate_series(1, 100000) g)`
	fixtureOwner  = `o.ids[1 + h.h3 % 50]`
	fixtureEstate = `case when h.h1 % 100 < 20
		then (array['Kilimani', 'Westlands', 'Lavington', 'Karen', 'Runda', 'Kileleshwa', 'Parklands',
		            'South B', 'South C', 'Langata', 'Embakasi', 'Kasarani', 'Roysambu', 'Ruaka',
		            'Syokimau', 'Kitengela', 'Rongai', 'Ngong', 'Donholm', 'Umoja'])[1 + h.h1 % 100]
		else 'Mtaa ' || h.h1 % 100 || ' Estate' end || ', Nairobi'`
	fixtureDescription = `'A listing for the plan tests, number ' || h.g || ' near the '
		|| (array['shule', 'soko', 'kanisa', 'hospitali', 'barabara', 'stage', 'mall', 'park'])[1 + h.h3 % 8]
		|| ' k' || h.h1 % 4093 || ' w' || h.h2 % 2039`
	fixtureActive  = `h.h2 % 10 <> 0, 'paid', now() + interval '30 days'`
	fixtureCreated = `now() - make_interval(mins => 100000 - h.g)`
)

// newPlansEnv is a database for the plan tests with an admin and the
// fixture's 50 owners (seedOwners), the first of whom it returns.
func newPlansEnv(t *testing.T, ownerPrefix string) (*env, user, user) {
	t.Helper()
	e := newEnv(t)
	return e, e.newAdmin(t, "Plans Admin"), e.seedOwners(t, ownerPrefix)
}

// seedOwners makes the fixture's 50 owners, emails prefix1..prefix50, and
// returns the first.
func (e *env) seedOwners(t *testing.T, prefix string) user {
	t.Helper()
	e.mustSuper(t, `insert into auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
		       $1 || g || '@kejanest.test', '{"provider":"email","providers":["email"]}',
		       jsonb_build_object('full_name', 'Owner ' || g, 'role', 'user'), now(), now()
		  from generate_series(1, 50) g`, prefix)
	owner := user{Email: prefix + "1@kejanest.test"}
	e.scalar(t, &owner.ID, `select id::text from auth.users where email = $1`, owner.Email)
	return owner
}

// checkRareWords fails unless the statistics of table's search vector
// estimate a word they do not keep (any rare word) at under 0.025 % of the
// rows: half the frequency of the rarest word they keep, which must be
// below 0.05 %. Above that a word in a dozen listings can look common
// enough that walking created_at for the newest seems cheaper than the
// vector's index, and the search reads every active listing (0036).
func (e *env) checkRareWords(t *testing.T, table string) {
	t.Helper()
	var kept int
	var minFreq float64
	err := e.super.QueryRow(context.Background(), `select array_length(most_common_elems, 1),
		most_common_elem_freqs[array_length(most_common_elems, 1) + 1]
		from pg_stats where schemaname = 'public' and tablename = $1 and attname = 'search'`, table).Scan(&kept, &minFreq)
	if err != nil {
		t.Fatalf("statistics of %s.search: %v", table, err)
	}
	if minFreq >= 0.0005 {
		t.Errorf("%s.search keeps %d words, the rarest at %.4f %% of rows: a rare word is estimated at %.4f %%, want under 0.025 %%",
			table, kept, 100*minFreq, 50*minFreq)
	}
}

// planCase is one listing query and the plans it may have. walks: a Limit
// walking one of these indexes in the query's order (an Incremental Sort
// between them when the order has a second key). bitmaps: a Limit over a
// top-N sort of the matches of one bitmap scan of one of these indexes,
// which applies every filter.
type planCase struct {
	name           string
	caller         Caller
	sql            string
	args           []any
	walks, bitmaps []string
}

// checkPlans plans each case as its caller and fails when a plan scans
// table, or sorts rows it fetched before filtering them, or is neither of
// the case's forms.
func (e *env) checkPlans(t *testing.T, table string, cases []planCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := e.explain(t, c.caller, c.sql, c.args...)
			// Scanning the table and filtering the rows afterwards is the
			// regression: a Seq Scan, or a Bitmap Heap Scan that throws rows
			// away (an index narrowed by some filters only), under a Sort.
			if plan.find(func(n planNode) bool { return n.RelationName == table && n.NodeType == "Seq Scan" }) {
				t.Errorf("plan scans all of %s: %s", table, plan)
			}
			if plan.find(func(n planNode) bool {
				return n.NodeType == "Sort" && n.find(func(m planNode) bool {
					return m.NodeType == "Bitmap Heap Scan" && m.Filter != ""
				})
			}) {
				t.Errorf("plan sorts rows it fetched before filtering them: %s", plan)
			}
			for _, index := range c.walks {
				if plan.limitWalks(index) {
					return
				}
			}
			for _, index := range c.bitmaps {
				if plan.NodeType == "Limit" && plan.find(func(n planNode) bool {
					return n.NodeType == "Bitmap Index Scan" && n.IndexName == index
				}) {
					return
				}
			}
			t.Errorf("want a Limit walking one of %v or over a top-N sort of a Bitmap Index Scan using one of %v, got %s",
				c.walks, c.bitmaps, plan)
		})
	}
}

// TestListingPlansUnderRLS holds the plans of the app's listing queries at
// 100k properties, as anon, as an owner and as an admin (issue 17): the
// newest 20 come from walking an index in created_at order under a Limit, or,
// for the /properties filter row (estate + type + purpose), from sorting only
// the matches of one index scan that applies every filter; never from
// scanning properties and filtering and sorting what was fetched.
func TestListingPlansUnderRLS(t *testing.T) {
	t.Parallel()
	e, admin, owner := newPlansEnv(t, "plans.owner")
	// Sale goes mostly with the larger homes and offices.
	e.mustSuper(t, fixtureRows+`
		insert into public.properties (user_id, title, type, purpose, price, location, description,
		                               is_active, payment_status, paid_until, created_at)
		select `+fixtureOwner+`, 'Listing ' || h.g, ty.type,
		       case when ty.type in ('Three Bedroom', 'Four+ Bedroom', 'Office Space') and h.h3 % 2 = 0 then 'Sale'
		            when ty.type not in ('Single Room', 'Bedsitter', 'Vacation/Airbnb') and h.h3 % 10 = 1 then 'Sale'
		            else 'Rent' end,
		       10000 + h.h2 % 500 * 1000, `+fixtureEstate+`, `+fixtureDescription+`,
		       `+fixtureActive+`, `+fixtureCreated+`
		  from h cross join o
		  cross join lateral (select (array['Single Room', 'Bedsitter', 'One Bedroom', 'Two Bedroom', 'Three Bedroom',
		                                    'Four+ Bedroom', 'Vacation/Airbnb', 'Office Space', 'Retail Space',
		                                    'Warehouse'])[1 + h.h2 / 10 % 10] as type) ty`, "plans.owner")
	e.markPending(t, "properties")
	e.mustSuper(t, `analyze public.properties`)
	e.checkRareWords(t, "properties")
	if n := e.int64(t, `select count(*) from public.properties where location ilike '%kilimani%'`); n < 500 || n > 1500 {
		t.Fatalf("fixture: %d Kilimani listings, want about 1,000", n)
	}

	// The app's column list (anon may not select contact).
	const cols = `id, user_id, title, type, purpose, price, price_unit, location, description, deposit, images, is_active, created_at`
	newest := `select ` + cols + ` from public.properties where is_active = true order by created_at desc limit 20`
	estate := `select ` + cols + ` from public.properties
		where is_active = true and location ilike $1 and type = $2 and purpose = $3 order by created_at desc limit 20`
	estateOnly := `select ` + cols + ` from public.properties where is_active = true and location ilike $1
		order by created_at desc limit 20`
	own := `select ` + cols + ` from public.properties where user_id = $1 order by created_at desc limit 20`
	// The app's free-text search: PostgREST's fts operator on the vector (0027).
	search := `select ` + cols + ` from public.properties
		where is_active = true and search @@ to_tsquery('english', $1) order by created_at desc limit 20`

	created := []string{"properties_active_created_idx"}
	filters := []string{"properties_active_filters_gin_idx"}
	words := []string{"properties_active_search_idx"}
	kilimani2BR := []any{"%kilimani%", "Two Bedroom", "Rent"}
	// The filter row either sorts the matches of its GIN index or walks
	// created_at: which of the two is cheaper for a rare combination depends
	// on ANALYZE's sample, and neither sorts the filtered set.
	e.checkPlans(t, "properties", []planCase{
		{"anon newest", Anon(), newest, nil, created, nil},
		{"anon estate type purpose", Anon(), estate, kilimani2BR, created, filters},
		{"anon estate", Anon(), estateOnly, []any{"%kilimani%"}, created, nil},
		{"owner newest", owner.caller(), newest, nil, created, nil},
		{"owner estate type purpose", owner.caller(), estate, kilimani2BR, created, filters},
		{"owner own listings", owner.caller(), own, []any{owner.ID}, []string{"properties_user_created_idx"}, nil},
		{"admin newest", admin.caller(), newest, nil, created, nil},
		{"admin estate type purpose", admin.caller(), estate, kilimani2BR, created, filters},
		{"admin estate", admin.caller(), estateOnly, []any{"%kilimani%"}, created, nil},
		// A rare word (a listing number: about ten listings) is found
		// through the vector's index; a word in every listing ("Nairobi")
		// walking the newest first; an estate's name (1 %) either way.
		{"anon search rare word", Anon(), search, []any{"4242:*"}, nil, words},
		{"anon search common word", Anon(), search, []any{"nairobi:*"}, created, nil},
		{"anon search estate word", Anon(), search, []any{"kilim:*"}, created, words},
		{"owner search rare word", owner.caller(), search, []any{"4242:*"}, nil, words},
		{"admin search rare word", admin.caller(), search, []any{"4242:*"}, nil, words},
		// The moderation queue (features/admin/api/listings.ts).
		{"admin moderation newest", admin.caller(), queueNewest(moderationColumns, "properties", "created_at"), nil, []string{"properties_created_idx"}, nil},
		{"admin moderation pending", admin.caller(), queueWaiting(moderationColumns, "properties", "payment_status"), []any{"pending"}, []string{"properties_pending_idx"}, nil},
	})
	// A partial index's predicate needs the value: the pending read must
	// stay on custom plans once PostgreSQL has weighed a generic one.
	if p := e.settledPlan(t, admin.caller(), queueWaiting(moderationColumns, "properties", "payment_status"), "pending"); !p.limitWalks("properties_pending_idx") {
		t.Errorf("moderation pending after 8 executions: want a Limit walking properties_pending_idx, got %s", p)
	}
	t.Run("ranked search", e.checkRankedSearch)
}

// pagesTouched runs sql as c under EXPLAIN (ANALYZE, BUFFERS) and returns
// the shared pages its plan hit or read. A function's own statements count
// under its function scan, so this measures what a call of a PL/pgSQL
// function reads, where EXPLAIN cannot see its plans.
func (e *env) pagesTouched(t *testing.T, c Caller, sql string, args ...any) int64 {
	t.Helper()
	raw := e.explainRaw(t, c, "analyze, buffers, format json", sql, args...)
	var plan []struct {
		Plan struct {
			Hit  int64 `json:"Shared Hit Blocks"`
			Read int64 `json:"Shared Read Blocks"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &plan); err != nil || len(plan) != 1 {
		t.Fatalf("explain analyze %s: %v in %s", firstLine(sql), err, raw)
	}
	return plan[0].Plan.Hit + plan[0].Plan.Read
}

// settledPlan prepares sql (one text parameter) as c, runs it eight times
// with arg, past the five custom plans after which PostgreSQL's default
// plan_cache_mode may settle on a generic plan as rest's kept statements
// do, and returns the plan of the ninth execution.
func (e *env) settledPlan(t *testing.T, c Caller, sql, arg string) planNode {
	t.Helper()
	ctx := context.Background()
	// EXECUTE takes no bind parameters: the argument is a literal.
	execute := "execute settled('" + strings.ReplaceAll(arg, "'", "''") + "')"
	var raw string
	err := As(ctx, e.api, c, false, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "prepare settled(text) as "+sql); err != nil {
			return err
		}
		for range 8 {
			if _, err := tx.Exec(ctx, execute); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, "explain (format json) "+execute).Scan(&raw)
	})
	if err != nil {
		t.Fatalf("settled plan of %s as %s: %v", firstLine(sql), c.Role, err)
	}
	return decodePlan(t, raw)
}

// moderationColumns are columns the admin moderation queue reads, those
// every listing table has under one name.
const moderationColumns = `id, location, payment_status, is_active, moderation_notes`

// queueNewest is an admin queue's newest 200 rows of table, columns as
// given, active or not, ordered by created (features/admin/api/queue.ts).
func queueNewest(columns, table, created string) string {
	return `select ` + columns + ` from public.` + table + ` order by ` + created + ` desc limit 200`
}

// queueWaiting is the newest 200 rows of table awaiting an admin: column
// equal to $1, bound as rest binds an eq filter.
func queueWaiting(columns, table, column string) string {
	return `select ` + columns + ` from public.` + table + ` where ` + column + ` = $1 order by created_at desc limit 200`
}

// markPending marks the 30 oldest inactive listings of table as awaiting
// approval: older than the newest 200, so only an index of the pending
// ones finds them without reading the table.
func (e *env) markPending(t *testing.T, table string) {
	t.Helper()
	e.mustSuper(t, `update public.`+table+` set payment_status = 'pending'
		where id in (select id from public.`+table+` where not is_active order by created_at limit 30)`)
}

// TestOtherListingPlansUnderRLS holds the plans of the app's queries on the
// other listing tables at 100k rows each, as TestListingPlansUnderRLS does
// for properties: the /land page (type and purpose, newest or by price),
// the /marketplace page (category, condition, an estate), the services
// tabs, each user's own listings, and the search box.
func TestOtherListingPlansUnderRLS(t *testing.T) {
	t.Parallel()
	e, admin, owner := newPlansEnv(t, "plans.seller")
	e.mustSuper(t, fixtureRows+`
		insert into public.lands (userid, title, location, description, type, purpose, price, size,
		                          is_active, payment_status, paid_until, "createdAt")
		select `+fixtureOwner+`, 'Plot ' || h.g, `+fixtureEstate+`, `+fixtureDescription+`,
		       (array['Residential', 'Commercial', 'Agricultural', 'Industrial', 'Mixed Use'])[1 + h.h2 / 10 % 5],
		       case when h.h3 % 4 = 0 then 'Lease' else 'Sale' end,
		       500000 + h.h1 % 5000 * 1000, 1 + h.h3 % 20,
		       `+fixtureActive+`, `+fixtureCreated+`
		  from h cross join o`, "plans.seller")
	e.mustSuper(t, fixtureRows+`
		insert into public.products (user_id, name, price, status, category, description, location,
		                             is_active, payment_status, paid_until, created_at)
		select `+fixtureOwner+`, 'Item ' || h.g, 500 + h.h1 % 2000 * 50,
		       case when h.h3 % 3 = 0 then 'New' else 'Used' end,
		       (array['Furniture', 'Electronics', 'Kitchen', 'Bedroom', 'Bathroom', 'Decor', 'Lighting',
		              'Appliances', 'Storage', 'Other'])[1 + h.h2 / 10 % 10],
		       `+fixtureDescription+`, `+fixtureEstate+`,
		       `+fixtureActive+`, `+fixtureCreated+`
		  from h cross join o`, "plans.seller")
	e.mustSuper(t, fixtureRows+`
		insert into public.service_providers (userid, name, category, location, description, services,
		                                      is_active, payment_status, paid_until, created_at)
		select `+fixtureOwner+`, 'Provider ' || h.g, case when h.h3 % 2 = 0 then 'Drone' else 'Moving' end,
		       `+fixtureEstate+`, `+fixtureDescription+`,
		       case when h.h3 % 2 = 0 then array['Aerial photography', 'Site survey'] else array['House moving', 'Packing'] end,
		       `+fixtureActive+`, `+fixtureCreated+`
		  from h cross join o`, "plans.seller")
	e.markPending(t, "products")
	// Every provider verified but the 30 oldest: older than the newest 200
	// of either category, so only an index of the unverified finds them.
	e.mustSuper(t, `update public.service_providers set verified = id not in
		(select id from public.service_providers order by created_at limit 30)`)
	e.mustSuper(t, `analyze public.lands, public.products, public.service_providers`)
	for _, table := range []string{"lands", "products", "service_providers"} {
		e.checkRareWords(t, table)
	}

	t.Run("lands", func(t *testing.T) {
		// lib/listing-columns.ts's landColumns.
		const cols = `id, userid, title, location, description, type, purpose, price, size, "sizeUnit", features, images,
			is_active, "createdAt"`
		const active = `select ` + cols + ` from public.lands where is_active = true`
		newest := active + ` order by "createdAt" desc limit 12`
		typePurpose := active + ` and type = $1 and purpose = $2 order by "createdAt" desc limit 12`
		cheapest := active + ` and type = $1 order by price asc, "createdAt" desc limit 12`
		byPrice := active + ` order by price desc, "createdAt" desc limit 12`
		own := `select ` + cols + ` from public.lands where userid = $1 order by "createdAt" desc limit 20`
		search := active + ` and search @@ to_tsquery('english', $1) order by "createdAt" desc limit 12`
		created := []string{"lands_active_created_idx"}
		price := []string{"lands_active_price_idx"}
		e.checkPlans(t, "lands", []planCase{
			{"anon newest", Anon(), newest, nil, created, nil},
			{"anon type purpose", Anon(), typePurpose, []any{"Agricultural", "Lease"}, created, []string{"lands_active_type_purpose_idx"}},
			{"anon cheapest of a type", Anon(), cheapest, []any{"Industrial"}, price, []string{"lands_active_type_purpose_idx"}},
			{"anon dearest", Anon(), byPrice, nil, price, nil},
			{"anon search rare word", Anon(), search, []any{"4242:*"}, nil, []string{"lands_active_search_idx"}},
			{"owner newest", owner.caller(), newest, nil, created, nil},
			{"owner own listings", owner.caller(), own, []any{owner.ID}, []string{"lands_userid_created_idx"}, nil},
			{"admin newest", admin.caller(), newest, nil, created, nil},
			{"admin type purpose", admin.caller(), typePurpose, []any{"Agricultural", "Lease"}, created, []string{"lands_active_type_purpose_idx"}},
			{"admin moderation newest", admin.caller(), queueNewest(moderationColumns, "lands", `"createdAt"`), nil, []string{"lands_created_idx"}, nil},
		})
	})
	t.Run("products", func(t *testing.T) {
		// lib/listing-columns.ts's productColumns (anon may not select contact).
		const cols = `id, user_id, name, price, status, category, description, location, images, value_range,
			is_active, created_at`
		const active = `select ` + cols + ` from public.products where is_active = true`
		newest := active + ` order by created_at desc limit 12`
		categoryStatus := active + ` and category = $1 and status = $2 order by created_at desc limit 12`
		estate := active + ` and location ilike $1 order by created_at desc limit 12`
		own := `select ` + cols + ` from public.products where user_id = $1 order by created_at desc limit 20`
		search := active + ` and search @@ to_tsquery('english', $1) order by created_at desc limit 12`
		created := []string{"products_active_created_idx"}
		categories := []string{"products_active_category_status_idx"}
		e.checkPlans(t, "products", []planCase{
			{"anon newest", Anon(), newest, nil, created, nil},
			{"anon category status", Anon(), categoryStatus, []any{"Lighting", "New"}, append(categories, created...), nil},
			{"anon estate", Anon(), estate, []any{"%kilimani%"}, created, nil},
			{"anon search rare word", Anon(), search, []any{"4242:*"}, nil, []string{"products_active_search_idx"}},
			{"owner newest", owner.caller(), newest, nil, created, nil},
			{"owner own listings", owner.caller(), own, []any{owner.ID}, []string{"products_user_created_idx"}, nil},
			{"admin newest", admin.caller(), newest, nil, created, nil},
			{"admin category status", admin.caller(), categoryStatus, []any{"Lighting", "New"}, append(categories, created...), nil},
			{"admin moderation newest", admin.caller(), queueNewest(moderationColumns, "products", "created_at"), nil, []string{"products_created_idx"}, nil},
			{"admin moderation pending", admin.caller(), queueWaiting(moderationColumns, "products", "payment_status"), []any{"pending"}, []string{"products_pending_idx"}, nil},
		})
	})
	t.Run("services", func(t *testing.T) {
		// lib/listing-columns.ts's serviceProviderColumns (anon may not select phone).
		const cols = `id, userid, name, category, location, description, services, pricing, reviews, rating, verified,
			profileimage, is_active, created_at`
		tab := `select ` + cols + ` from public.service_providers where is_active = true and category = $1
			order by created_at desc limit 12`
		own := `select ` + cols + ` from public.service_providers where userid = $1 order by created_at desc limit 20`
		created := []string{"service_providers_active_created_idx"}
		e.checkPlans(t, "service_providers", []planCase{
			{"anon drone tab", Anon(), tab, []any{"Drone"}, created, nil},
			{"owner moving tab", owner.caller(), tab, []any{"Moving"}, created, nil},
			{"owner own listings", owner.caller(), own, []any{owner.ID}, []string{"service_providers_userid_created_idx"}, nil},
			{"admin drone tab", admin.caller(), tab, []any{"Drone"}, created, nil},
			{"admin moderation drone", admin.caller(), `select ` + moderationColumns + `, verified from public.service_providers
				where category = $1 order by created_at desc limit 200`, []any{"Drone"}, []string{"service_providers_category_created_idx"}, nil},
			// verified=eq.false: rest writes a boolean literal, not a parameter.
			{"admin moderation moving unverified", admin.caller(), `select ` + moderationColumns + `, verified from public.service_providers
				where category = $1 and verified = false order by created_at desc limit 200`, []any{"Moving"}, []string{"service_providers_unverified_idx"}, nil},
		})
	})
}

// limitWalks reports whether p is a Limit directly over an Index Scan using
// index, or over an Incremental Sort of one (an order whose first key the
// index gives, its second sorted within each run of equal firsts).
// Initplans such as (select auth.uid()) sit beside the scan.
func (p planNode) limitWalks(index string) bool {
	if p.NodeType != "Limit" {
		return false
	}
	scan, ok := p.outer()
	if ok && scan.NodeType == "Incremental Sort" {
		scan, ok = scan.outer()
	}
	return ok && scan.NodeType == "Index Scan" && scan.IndexName == index
}

// outer is the node n reads its rows from.
func (n planNode) outer() (planNode, bool) {
	for _, child := range n.Plans {
		if child.Parent == "Outer" {
			return child, true
		}
	}
	return planNode{}, false
}

// TestDisputeQueuePlans holds the plans of /admin/disputes at 100k trades:
// the open disputes, longest waiting first, and the latest resolutions are
// read apart (features/admin/api/disputes.ts), each walking its partial
// index (0037), never scanning the trades. The thirty open disputes are
// among the oldest trades, where a walk of any other order would read
// nearly every trade before finding them.
func TestDisputeQueuePlans(t *testing.T) {
	t.Parallel()
	e, admin, _ := newPlansEnv(t, "plans.trader")
	// 100,000 trades between the fixture's owners: 95 % completed, 5 %
	// resolved, the 30 oldest still disputed.
	e.mustSuper(t, `with o as (select array_agg(id order by email) ids from auth.users where email like 'plans.trader%')
		insert into public.p2p_trades (offer_action, taker_id, seller_id, buyer_id, currency, amount, rate_per_unit, total_kes,
		                               status, payment_deadline, payment_reference, resolution, created_at, updated_at)
		select 'sell', o.ids[1 + g % 50], o.ids[1 + (g + 1) % 50], o.ids[1 + g % 50], 'keys', 10, 15, 150,
		       s.status, now(), 'QF' || g, case when s.status = 'resolved' then 'buyer' end,
		       now() - make_interval(mins => 100000 - g), now() - make_interval(mins => 100000 - g)
		  from generate_series(1, 100000) g cross join o
		  cross join lateral (select case when g <= 30 then 'disputed' when g % 20 = 0 then 'resolved' else 'completed' end as status) s`)
	e.mustSuper(t, `analyze public.p2p_trades`)

	const cols = `id, buyer_id, seller_id, status, dispute_reason, resolution, updated_at`
	open := `select ` + cols + ` from public.p2p_trades where status = $1 order by updated_at asc limit 100`
	resolved := `select ` + cols + ` from public.p2p_trades where status = $1 order by updated_at desc limit 100`
	e.checkPlans(t, "p2p_trades", []planCase{
		{"admin open disputes", admin.caller(), open, []any{"disputed"}, []string{"p2p_trades_disputed_idx"}, nil},
		{"admin latest resolutions", admin.caller(), resolved, []any{"resolved"}, []string{"p2p_trades_resolved_idx"}, nil},
	})
	if p := e.settledPlan(t, admin.caller(), open, "disputed"); !p.limitWalks("p2p_trades_disputed_idx") {
		t.Errorf("open disputes after 8 executions: want a Limit walking p2p_trades_disputed_idx, got %s", p)
	}
}

// TestInboxPlans holds the plans of the admin inbox at 100k reports and
// 100k contact messages: what awaits an admin (open reports, new messages)
// and the newest of all are read apart (features/admin/api/inbox.ts), each
// walking an index. The thirty waiting ones are the oldest.
func TestInboxPlans(t *testing.T) {
	t.Parallel()
	e, admin, _ := newPlansEnv(t, "plans.reporter")
	e.mustSuper(t, `with o as (select array_agg(id order by email) ids from auth.users where email like 'plans.reporter%')
		insert into public.reports (reporter_id, target_kind, target_id, reason, status, created_at)
		select o.ids[1 + g % 50], 'property', gen_random_uuid(), 'Looks like a scam',
		       case when g <= 30 then 'open' when g % 2 = 0 then 'resolved' else 'dismissed' end,
		       now() - make_interval(mins => 100000 - g)
		  from generate_series(1, 100000) g cross join o`)
	// Each from an address of its own, so the form's throttle lets all in.
	e.mustSuper(t, `insert into public.contact_messages (name, email, message, status, created_at)
		select 'Visitor ' || g, 'visitor' || g || '@example.com', 'A question about a listing',
		       case when g <= 30 then 'new' else 'handled' end, now() - make_interval(mins => 100000 - g)
		  from generate_series(1, 100000) g`)
	e.mustSuper(t, `analyze public.reports, public.contact_messages`)

	e.checkPlans(t, "reports", []planCase{
		{"admin open reports", admin.caller(), queueWaiting("*", "reports", "status"), []any{"open"}, []string{"reports_open_created_idx"}, nil},
		{"admin newest reports", admin.caller(), queueNewest("*", "reports", "created_at"), nil, []string{"reports_created_idx"}, nil},
	})
	e.checkPlans(t, "contact_messages", []planCase{
		{"admin new messages", admin.caller(), queueWaiting("*", "contact_messages", "status"), []any{"new"}, []string{"contact_messages_new_idx"}, nil},
		{"admin newest messages", admin.caller(), queueNewest("*", "contact_messages", "created_at"), nil, []string{"contact_messages_created_idx"}, nil},
	})
}

// TestAdminUsersPlans holds the admin users page (admin_list_users) at
// 100k users: a search reads its matches through the trigram indexes
// (0040), not every user and profile. Each user is member<g>@example.com,
// "Member <g>", phone 07<g padded to 8 digits>.
func TestAdminUsersPlans(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.newAdmin(t, "Users Plans Admin")
	// The profiles are written here with the users' triggers off: the
	// triggers' wallets and roles would triple the seeding time, and the
	// page joins them only for its 20 rows. One simple-protocol batch is
	// one transaction, so the setting stays within it.
	e.mustSuper(t, `set local session_replication_role = replica;
		insert into auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
		       'member' || g || '@example.com', '{"provider":"email","providers":["email"]}',
		       jsonb_build_object('full_name', 'Member ' || g), now() - make_interval(mins => 100000 - g), now()
		  from generate_series(1, 100000) g;
		insert into public.profiles (id, full_name, phone_number)
		select u.id, u.raw_user_meta_data ->> 'full_name', '07' || lpad(substr(u.email, 7, strpos(u.email, '@') - 7), 8, '0')
		  from auth.users u where u.email like 'member%';`)
	e.mustSuper(t, `vacuum analyze auth.users, public.profiles`)
	pages := e.int64(t, `select sum(relpages) from pg_class where oid in ('auth.users'::regclass, 'public.profiles'::regclass)`)
	// The screen's first page; an empty search is none.
	const page = `select * from public.admin_list_users(nullif($1, ''), 20, 0)`

	// The total without a search counts every user (exactly, as the
	// screen shows it): that read is the page's cost, not a search's.
	var total int64
	e.value(t, admin.caller(), &total, `select max(total_count) from (`+page+`) l`, "")
	if want := e.int64(t, `select count(*) from auth.users where deleted_at is null`); total != want {
		t.Errorf("no search: total %d, want %d", total, want)
	}
	for _, search := range []string{
		"4242",         // e-mail, name and phone: 4242, 42420-42429, x4242
		"member 9999",  // name: 9999, 99990-99999
		"member77777@", // one e-mail
		"0700031415",   // one phone
		"nobody",       // none
	} {
		t.Run(search, func(t *testing.T) {
			like := "%" + search + "%"
			want := e.int64(t, `select count(*) from auth.users u join public.profiles p using (id)
				where u.deleted_at is null and (u.email ilike $1 or p.full_name ilike $1 or p.phone_number ilike $1)`, like)
			var total int64
			e.value(t, admin.caller(), &total, `select coalesce(max(total_count), 0) from (`+page+`) l`, search)
			if total != want {
				t.Errorf("total %d, want %d", total, want)
			}
			if touched := e.pagesTouched(t, admin.caller(), page, search); touched > pages/5 {
				t.Errorf("touched %d pages, want under a fifth of users' and profiles' %d (a page of 20 alone joins about 300)", touched, pages)
			}
		})
	}
}
