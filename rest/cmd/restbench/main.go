// Command restbench measures rest, directly and through the gateway,
// against a floor: a plain net/http + pgx server answering the same listing
// queries with the same JSON, started in the same run. It creates its own
// database (the migrations plus 100k rows of public.properties and 10k
// P2P offers), and runs every server as a process of its own on loopback:
// the floor (this binary, `restbench serve-floor`), the floor inside
// PostgREST's per-request transaction (floor-tx, `serve-floor -tx`: what
// the contract itself costs), rest (cmd/rest), the
// gateway in front of that rest (two processes, as docker-compose.yml runs
// them) and the gateway serving rest in-process (GATEWAY_INPROCESS, as
// `make run` runs it), the last three built from this repository. It
// drives each with the same number of keep-alive connections for a bounded
// time and request count, and prints requests/s and latency percentiles.
// It is a program, not a test: `go test` never runs it.
//
// The machine it runs on is usually shared (the load generator, the
// servers and Postgres on a few cores, often beside other work), so one
// run's throughput swings with whatever else is running. The measured time
// is therefore cut into rounds that alternate the servers in ABBA order
// (floor, floor-tx, rest, gateway, gw-inproc; gw-inproc, gateway, rest,
// floor-tx, floor; …), so
// that a load rising or falling during the run, or whatever one run leaves
// behind for the next (garbage to collect, a busier Postgres), favours
// none; and "of floor" is the median of the rounds' server/floor ratios,
// which a burst of outside load during one round cannot move much (the
// ratio of the pooled requests/s is printed beside the rounds).
// Requests/s and percentiles pool all rounds.
//
//	go run ./rest/cmd/restbench -duration 20s -rounds 20 -conns 16
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/internal/config"
	"github.com/kejanest/kejanest/rest/pgrst"
	"github.com/kejanest/kejanest/rest/pgrst/exec"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

const secret = "restbench-secret-that-is-at-least-32-characters"

// scenario is one query, as rest's URL and as the floor's SQL.
type scenario struct {
	name  string
	rest  string
	floor string
	// args are the floor's parameters: what the user chose (a word, an
	// estate, a type, an id) reaches the floor's SQL as $1, $2, … the way
	// any pgx application passes user input, and what the app always sends
	// (is_active = true, the page size) is written into it. The floor is
	// thus the cheapest safe server: a value spliced into the SQL text
	// would let the floor keep one plan per value, which no server taking
	// values from users can do (rest plans value-sensitive filters for
	// their values, see exec.Tx.CustomPlan; pgx's cached statements under
	// PostgreSQL's plan_cache_mode auto plan them the same way).
	args []any
	// prefer is rest's Prefer header, a count=… or empty. With a count the
	// floor's SQL returns the body and the count of the same rows (see
	// floorEstimate for count=estimated), and the floor answers the count
	// in Content-Range, as rest does.
	prefer string
	// body makes rest's request a POST of this JSON (a call).
	body string
	// user sends the request as the seeded user (signed in) rather than
	// as anon; the floor's connections are that user too.
	user bool
	// vary gives the n-th request's value, which stands in for wordMark in
	// rest's URL and is the floor's first argument; nil for a scenario that
	// asks for the same thing every time. rareWord is searches where a value
	// seldom repeats (many users typing many words), activeListing detail
	// pages of many listings: what users send, where a server cannot
	// answer from what it kept for the request before.
	vary func(n uint64) string
	// floorEstimate, for count=estimated: the floor's SQL returns the body
	// and the count of up to estimateAbove + 1 rows, and above
	// estimateAbove the floor runs this EXPLAIN (with args) as well, as any
	// server answering the planner's estimate must.
	floorEstimate string
}

// wordMark is where a varying scenario's rest URL takes its value.
const wordMark = "{word}"

// firstWord and tailWords are the words of the seed's rarest tier that
// rareWord takes in turn: k1000 … k9999, four digits, so that a prefix
// search (k1234:*) matches that word alone (k1:* would match 1,111).
const (
	firstWord = 1000
	tailWords = 9000
)

// rareWord is the n-th of the rarest tier's words as a prefix query; each
// matches one word of one listing in 10,000, as the rare word does.
func rareWord(n uint64) string { return fmt.Sprintf("k%d:*", firstWord+n%tailWords) }

// activeListings is how many seeded listings are active (g % 4 != 0).
const activeListings = 75000

// activeListing is the id of the n-th active seeded listing, in turn
// through all 75,000 of them.
func activeListing(n uint64) string {
	n %= activeListings
	g := 4*(n/3) + 1 + n%3
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", g)
}

// savedPerRequest is how many ids one saved-listings request asks for.
const savedPerRequest = 4

// savedIDs are the n-th saved-listings request's ids, comma-separated:
// savedPerRequest active listings, others each time, in turn through all
// of them.
func savedIDs(n uint64) string {
	ids := make([]string, savedPerRequest)
	for i := range ids {
		ids[i] = activeListing(n*savedPerRequest + uint64(i))
	}
	return strings.Join(ids, ",")
}

// word is the value sc's n-th request asks for, or "" for a fixed one.
func (sc scenario) word(n uint64) string {
	if sc.vary == nil {
		return ""
	}
	return sc.vary(n)
}

// restPath is sc's rest URL (path and query) for word.
func (sc scenario) restPath(word string) string {
	return strings.Replace(sc.rest, wordMark, word, 1)
}

// floorArgs are the floor's parameters for word.
func (sc scenario) floorArgs(word string) []any {
	if sc.vary == nil {
		return sc.args
	}
	return append([]any{word}, sc.args[1:]...)
}

// estimateAbove is rest's max-rows, the line count=estimated draws.
const estimateAbove = 1000

// appColumns are the columns the app asks for on every listing screen
// (frontend/src/lib/listing-columns.ts: all but the owner's contact; the
// search vector is a filter only).
const appColumns = "id,user_id,title,type,purpose,price,price_unit,location,description,deposit,images,created_at,is_active,payment_status,paid_until,pending_days,pending_fee,moderation_notes,updated_at"

// detailID is a seeded active listing (g = 4242), as the detail page
// reads it.
const detailID = "00000000-0000-4000-8000-000000004242"

// benchUser owns every listing and offer, and signs in for the P2P board.
const benchUser = "00000000-0000-0000-0000-00000000beef"

// appPage is the floor of one of the app's /properties pages: 12 rows and
// the exact count of every match. As PostgREST's statement does, it counts
// the matches on their own rather than through a CTE shared with the page,
// which PostgreSQL would materialize (every matching row, every column)
// only to sort it again.
func appPage(where string) string {
	return `with n as (select count(*) as c from public.properties where is_active = true and ` + where + `)
		select coalesce((select json_agg(_postgrest_t) from (select ` + appColumns + ` from public.properties where is_active = true and ` + where + `
			order by created_at desc limit 12) _postgrest_t), '[]')::text, n.c from n`
}

// appPageEstimated is one of the app's pages with count=estimated: 12
// rows and the count of at most estimateAbove + 1 matches (the EXPLAIN
// above that is floorEstimate's).
func appPageEstimated(where string) string {
	return `with n as (select count(*) as c from (select 1 from public.properties where is_active = true and ` + where + ` limit ` + fmt.Sprint(estimateAbove+1) + `) l)
		select coalesce((select json_agg(_postgrest_t) from (select ` + appColumns + ` from public.properties where is_active = true and ` + where + `
			order by created_at desc limit 12) _postgrest_t), '[]')::text, n.c from n`
}

// countExplain is the EXPLAIN whose row estimate answers count=estimated
// above estimateAbove.
func countExplain(where string) string {
	return `explain (format json) select 1 from public.properties where is_active = true and ` + where
}

var scenarios = []scenario{
	{
		name:  "20 newest active",
		rest:  "/properties?select=" + appColumns + "&is_active=eq.true&order=created_at.desc&limit=20",
		floor: `select coalesce(json_agg(_postgrest_t), '[]')::text from (select ` + appColumns + ` from public.properties where is_active = true order by created_at desc limit 20) _postgrest_t`,
	},
	{
		name: "location ilike + type + purpose",
		rest: "/properties?select=" + appColumns + "&is_active=eq.true&location=ilike.%25nairobi%25&type=eq.One+Bedroom&purpose=eq.Rent&order=created_at.desc&limit=20",
		floor: `select coalesce(json_agg(_postgrest_t), '[]')::text from (select ` + appColumns + ` from public.properties where is_active = true and location ilike $1
			and type = $2 and purpose = $3 order by created_at desc limit 20) _postgrest_t`,
		args: []any{"%nairobi%", "One Bedroom", "Rent"},
	},
	// The app's /properties page without filters (get-properties.ts): 12
	// rows and count=estimated, counted up to max-rows + 1 (1001), then the
	// planner's estimate; and with count=exact, for comparison.
	{
		name:          "app list page",
		rest:          "/properties?select=" + appColumns + "&is_active=eq.true&order=created_at.desc&offset=0&limit=12",
		floor:         appPageEstimated("true"),
		floorEstimate: countExplain("true"),
		prefer:        "count=estimated",
	},
	{
		name:   "app list page, exact count",
		rest:   "/properties?select=" + appColumns + "&is_active=eq.true&order=created_at.desc&offset=0&limit=12",
		floor:  appPage("true"),
		prefer: "count=exact",
	},
	// The app's free-text search (0027): the words as prefixes on the
	// full-text vector, 12 rows and count=estimated. A word in one listing
	// of ten thousand, and an estate's name (one in seven).
	{
		name:          "app search, rare word",
		rest:          "/properties?select=" + appColumns + "&is_active=eq.true&search=fts(english).k4242:*&order=created_at.desc&offset=0&limit=12",
		floor:         appPageEstimated(`search @@ to_tsquery('english', $1)`),
		floorEstimate: countExplain(`search @@ to_tsquery('english', $1)`),
		args:          []any{"k4242:*"},
		prefer:        "count=estimated",
	},
	{
		name:          "app search, many rare words",
		rest:          "/properties?select=" + appColumns + "&is_active=eq.true&search=fts(english)." + wordMark + "&order=created_at.desc&offset=0&limit=12",
		floor:         appPageEstimated(`search @@ to_tsquery('english', $1)`),
		floorEstimate: countExplain(`search @@ to_tsquery('english', $1)`),
		args:          []any{"k1000:*"},
		prefer:        "count=estimated",
		vary:          rareWord,
	},
	{
		name:          "app search, estate word",
		rest:          "/properties?select=" + appColumns + "&is_active=eq.true&search=fts(english).kilim:*&order=created_at.desc&offset=0&limit=12",
		floor:         appPageEstimated(`search @@ to_tsquery('english', $1)`),
		floorEstimate: countExplain(`search @@ to_tsquery('english', $1)`),
		args:          []any{"kilim:*"},
		prefer:        "count=estimated",
	},
	// The detail page (get-property.ts): one listing by id, then up to
	// four others of its type and purpose.
	{
		name:  "app detail",
		rest:  "/properties?select=" + appColumns + "&id=eq." + detailID,
		floor: `select coalesce(json_agg(_postgrest_t), '[]')::text from (select ` + appColumns + ` from public.properties where id = $1) _postgrest_t`,
		args:  []any{detailID},
	},
	// The detail page as users open it: another listing each time.
	{
		name:  "app detail, many listings",
		rest:  "/properties?select=" + appColumns + "&id=eq." + wordMark,
		floor: `select coalesce(json_agg(_postgrest_t), '[]')::text from (select ` + appColumns + ` from public.properties where id = $1) _postgrest_t`,
		args:  []any{detailID},
		vary:  activeListing,
	},
	{
		name: "app detail, similar",
		rest: "/properties?select=" + appColumns + "&is_active=eq.true&type=eq.Bedsitter&purpose=eq.Rent&id=neq." + detailID + "&order=created_at.desc&limit=4",
		floor: `select coalesce(json_agg(_postgrest_t), '[]')::text from (select ` + appColumns + ` from public.properties where is_active = true
			and type = $1 and purpose = $2 and id <> $3 order by created_at desc limit 4) _postgrest_t`,
		args: []any{"Bedsitter", "Rent", detailID},
	},
	// The saved listings page (get-saved-listings.ts), signed in: the
	// saved properties' ids as one in list, another user's each time.
	{
		name:  "app saved listings",
		rest:  "/properties?select=" + appColumns + "&id=in.(" + wordMark + ")",
		user:  true,
		floor: `select coalesce(json_agg(_postgrest_t), '[]')::text from (select ` + appColumns + ` from public.properties where id = any(string_to_array($1, ',')::uuid[])) _postgrest_t`,
		args:  []any{savedIDs(0)},
		vary:  savedIDs,
	},
	// The P2P board (get-board.ts), signed in: one call of get_p2p_board
	// with the board's defaults.
	{
		name:  "app P2P board",
		rest:  "/rpc/get_p2p_board",
		body:  `{"p_action":null,"p_currency":null,"p_search":null,"p_sort":"newest","p_limit":20}`,
		user:  true,
		floor: `select coalesce(json_agg(_postgrest_t), '[]')::text from public.get_p2p_board($1, $2, $3, $4, $5) _postgrest_t`,
		args:  []any{nil, nil, nil, "newest", 20},
	},
	// What the app sent before 0027, for comparison: no index answers it.
	{
		name:   "app search, ilike (before 0027)",
		rest:   "/properties?select=" + appColumns + "&is_active=eq.true&or=(title.ilike.*k4242*,location.ilike.*k4242*,description.ilike.*k4242*)&order=created_at.desc&offset=0&limit=12",
		floor:  appPage(`(title ilike $1 or location ilike $1 or description ilike $1)`),
		args:   []any{"%k4242%"},
		prefer: "count=exact",
	},
}

const seedSQL = `
insert into auth.users (id, aud, role, email, created_at, updated_at)
values ('00000000-0000-0000-0000-00000000beef', 'authenticated', 'authenticated', 'bench@kejanest.test', now(), now());
insert into public.properties (id, user_id, title, type, purpose, price, location, description, is_active, payment_status, paid_until, created_at)
select ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, '00000000-0000-0000-0000-00000000beef', 'Listing ' || g,
  (array['Single Room', 'Bedsitter', 'One Bedroom', 'Two Bedroom', 'Three Bedroom'])[1 + g % 5],
  (array['Rent', 'Sale'])[1 + (g / 5) % 2],
  10000 + (g % 1000) * 100,
  (array['Kilimani, Nairobi', 'Westlands, Nairobi', 'Nyali, Mombasa', 'Milimani, Kisumu', 'Karen, Nairobi', 'Kahawa, Nairobi', 'Naivasha'])[1 + (g / 10) % 7],
  -- A long tail of words, as real descriptions have: v0..v498 (one listing
  -- in 500 each), w0..w2038 (one in 2,000), k0..k9999 (one in 10,000). The
  -- planner estimates a word it keeps no statistics for from the rarest
  -- word it does keep, so without the middle of the tail every rare word
  -- would look common.
  'Spacious and secure, near the ' || (array['shule', 'soko', 'stage', 'mall', 'hospitali'])[1 + g % 5]
    || ', v' || abs(hashint4(g + 7)) % 499 || ' w' || abs(hashint4(g + 11)) % 2039 || ' k' || abs(hashint4(g)) % 10000,
  g % 4 <> 0,
  case when g % 4 <> 0 then 'paid' else 'unpaid' end,
  case when g % 4 <> 0 then now() + interval '30 days' end,
  now() - make_interval(mins => g)
from generate_series(1, 100000) g;
-- The P2P board: 10,000 open offers of 500 traders (each profile comes
-- from the auth.users trigger), buying and selling the three currencies.
insert into auth.users (id, aud, role, email, created_at, updated_at)
select ('00000000-0000-4000-9000-' || lpad(u::text, 12, '0'))::uuid, 'authenticated', 'authenticated', 'trader' || u || '@kejanest.test', now(), now()
from generate_series(1, 500) u;
insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit, payment_methods, auto_cancel_duration, created_at)
select ('00000000-0000-4000-9000-' || lpad((1 + g % 500)::text, 12, '0'))::uuid,
  (array['buy', 'sell'])[1 + g % 2], (array['nestcoins', 'crystals', 'keys'])[1 + g % 3],
  100 + g % 900, 1 + (g % 300) / 100.0, 10, 100, array['M-Pesa'], '7 days', now() - make_interval(secs => g)
from generate_series(1, 10000) g;
`

// settleSQL leaves the seeded tables as autovacuum would soon after the
// seed (its insert threshold is a fifth of the table): statistics taken
// and the visibility map set. Without it, autovacuum runs in the middle of
// the first scenario and changes its plans and costs halfway through.
// VACUUM cannot run in the seed's transaction, hence a statement of its own.
const settleSQL = `vacuum (analyze) public.properties, public.p2p_offers`

// servers are the ones a scenario is measured on, in the order of the
// first half of an ABBA round: the floor, the floor inside the transaction
// PostgREST's contract asks for (floor-tx, see floorHandler), rest alone, the gateway in
// front of that rest (two processes, as docker-compose.yml runs them), and
// the gateway serving rest in-process (GATEWAY_INPROCESS, as `make run`
// runs it).
var servers = []string{"floor", "floor-tx", "rest", "gateway", "gw-inproc"}

// options are the command's flags.
type options struct {
	duration, warmup time.Duration
	conns, maxReqs   int
	pool             int32
	rounds           int
	// only holds the servers measured (all by default).
	only map[string]bool
	// picked are the scenarios to run (-scenario).
	picked []scenario
	// binDir holds prebuilt gateway and rest binaries (-bin-dir).
	binDir string
	// pprof has the gateways serve Go's profiles (-pprof).
	pprof bool
}

func main() {
	// The floor runs as a child of restbench (this same binary), so every
	// measured server is a process of its own beside the load generator.
	if len(os.Args) > 1 && os.Args[1] == floorCommand {
		os.Exit(serveFloor(os.Args[2:]))
	}
	var o options
	var pool int
	var only string
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "measured time per server and scenario")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured warm-up per server and scenario")
	flag.IntVar(&o.conns, "conns", 16, "concurrent keep-alive connections")
	flag.IntVar(&o.maxReqs, "max-requests", 2_000_000, "stop a round after this many requests")
	flag.IntVar(&pool, "pool", 10, "database connections of each server")
	flag.StringVar(&only, "only", strings.Join(servers, ","), "run only these servers, a comma list of "+strings.Join(servers, ", ")+" (ratios need floor)")
	var pick string
	flag.StringVar(&pick, "scenario", "", "run only the scenarios whose name contains this")
	flag.IntVar(&o.rounds, "rounds", 20, "alternate the servers this many times per scenario in ABBA order (each gets duration/rounds), so a load that varies over time hits all alike")
	flag.StringVar(&o.binDir, "bin-dir", "", "folder holding built gateway and rest binaries; empty builds both from this repository")
	flag.BoolVar(&o.pprof, "pprof", false, "the gateways serve Go's profiles (GATEWAY_PPROF); their addresses are printed, to take a profile while a scenario runs")
	flag.Parse()
	o.pool = int32(pool)
	o.rounds = max(o.rounds, 1)
	o.only = map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(servers, s) {
			fmt.Fprintf(os.Stderr, "restbench: -only: unknown server %q (%s)\n", s, strings.Join(servers, ", "))
			os.Exit(2)
		}
		o.only[s] = true
	}
	var err error
	if o.picked, err = pickScenarios(scenarios, pick); err != nil {
		fmt.Fprintln(os.Stderr, "restbench: -scenario:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "restbench:", err)
		os.Exit(1)
	}
}

// pickScenarios returns the scenarios whose name contains pick, in their
// order. Picking none is an error rather than a run that seeds 100k rows and
// measures nothing.
func pickScenarios(all []scenario, pick string) ([]scenario, error) {
	var out []scenario
	for _, sc := range all {
		if strings.Contains(sc.name, pick) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		names := make([]string, len(all))
		for i, sc := range all {
			names[i] = strconv.Quote(sc.name)
		}
		return nil, fmt.Errorf("no scenario's name contains %q; the scenarios are %s", pick, strings.Join(names, ", "))
	}
	return out, nil
}

func run(o options) error {
	// An interrupt (Ctrl-C, or SIGTERM to restbench alone) ends the round
	// under way and returns, so the deferred clean-up stops the children
	// and drops the database instead of leaving them behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tmp, err := os.MkdirTemp("", "restbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	binDir := o.binDir
	if binDir == "" {
		fmt.Println("building rest and the gateway…")
		if err := buildServers(ctx, tmp); err != nil {
			return err
		}
		binDir = tmp
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find restbench's own binary (it runs the floor): %w", err)
	}

	admin, err := pgtest.ServerURL(ctx)
	if err != nil {
		return err
	}
	tpl, err := pgtest.Template(ctx, pgtest.Options{})
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	if err := dropLeftovers(ctx, admin, host); err != nil {
		return err
	}
	var rb [6]byte
	_, _ = rand.Read(rb[:])
	name := benchPrefix + hex.EncodeToString(rb[:])
	if err := execAdmin(ctx, admin, "create database "+pgx.Identifier{name}.Sanitize()+" template "+pgx.Identifier{tpl}.Sanitize()); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	defer func() {
		_ = execAdmin(context.Background(), admin, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)")
	}()
	if err := labelDatabase(ctx, admin, name, ownerLabel(os.Getpid(), host)); err != nil {
		return fmt.Errorf("label database: %w", err)
	}
	dbURL := withDB(admin, name)
	server, err := describeServer(ctx, admin)
	if err != nil {
		return err
	}
	fmt.Printf("database %s (%s): seeding 100000 properties…\n", name, server)
	if err := execAdmin(ctx, dbURL, seedSQL); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if err := execAdmin(ctx, dbURL, settleSQL); err != nil {
		return fmt.Errorf("vacuum the seed: %w", err)
	}

	authenticator := withUser(dbURL, "authenticator")
	// rest as cmd/rest runs it, with the settings the in-process one gets.
	pgrstEnv := []string{"PGRST_DB_URI=" + authenticator, "PGRST_JWT_SECRET=" + secret, "PGRST_DB_POOL=" + fmt.Sprint(o.pool), "PGRST_LOG_LEVEL=error"}
	restChild, err := startChild(ctx, filepath.Join(binDir, "rest"), "/ready", func(addr string) ([]string, []string) {
		host, port, _ := net.SplitHostPort(addr)
		return nil, append([]string{"PGRST_SERVER_HOST=" + host, "PGRST_SERVER_PORT=" + port}, pgrstEnv...)
	})
	if err != nil {
		return fmt.Errorf("start rest: %w", err)
	}
	defer restChild.stop()
	restURL := restChild.url
	// pids are each server's processes, whose CPU time a round reads:
	// the two-process gateway's work is its own and rest's.
	pids := map[string][]int{"rest": {restChild.pid}}
	floorURLs := map[string]string{}
	for _, s := range []string{"floor", "floor-tx"} {
		if !o.only[s] {
			continue
		}
		c, err := startChild(ctx, self, "/health", func(addr string) ([]string, []string) {
			// rest's environment: floor-tx reads rest's configuration from it.
			return []string{floorCommand, "-addr", addr, "-db", authenticator, "-pool", fmt.Sprint(o.pool), "-tx=" + fmt.Sprint(s == "floor-tx")}, pgrstEnv
		})
		if err != nil {
			return fmt.Errorf("start %s: %w", s, err)
		}
		defer c.stop()
		floorURLs[s] = c.url
		pids[s] = []int{c.pid}
	}

	// The keys outlive any run the flags allow in practice; an expired
	// key would turn every request into a 401.
	exp := time.Now().Add(24 * time.Hour).Unix()
	anonKey, err := jwtverify.SignHS256(map[string]any{"role": "anon", "iss": "restbench", "exp": exp}, []byte(secret))
	if err != nil {
		return err
	}
	serviceKey, err := jwtverify.SignHS256(map[string]any{"role": "service_role", "iss": "restbench", "exp": exp}, []byte(secret))
	if err != nil {
		return err
	}
	userToken, err := jwtverify.SignHS256(map[string]any{"role": "authenticated", "sub": benchUser, "aud": "authenticated",
		"iss": "restbench", "exp": exp}, []byte(secret))
	if err != nil {
		return err
	}
	keys := gatewayKeys{anon: anonKey, serviceRole: serviceKey}
	gatewayURLs := map[string]string{}
	gatewayBin := filepath.Join(binDir, "gateway")
	for _, gw := range []struct {
		name string
		env  []string
		// upstream are the processes the gateway forwards to, whose CPU
		// time counts as its own.
		upstream []int
	}{
		{"gateway", []string{"REST_URL=" + restURL, "RPC_URL=" + restURL}, []int{restChild.pid}},
		// The in-process rest reads rest's own settings, as in `make run`,
		// the same the rest child gets.
		{"gw-inproc", append([]string{"GATEWAY_INPROCESS=rest,rpc"}, pgrstEnv...), nil},
	} {
		if !o.only[gw.name] {
			continue
		}
		c, err := startGateway(ctx, gatewayBin, keys, tmp, o.pprof, gw.env...)
		if err != nil {
			return err
		}
		defer c.stop()
		url := c.url
		gatewayURLs[gw.name] = url
		pids[gw.name] = append([]int{c.pid}, gw.upstream...)
		if o.pprof {
			fmt.Printf("%s: profiles at %s/debug/pprof/ (go tool pprof -seconds 10 %s/debug/pprof/profile)\n", gw.name, url, url)
		}
	}
	// bearer is the token a scenario's request carries.
	bearer := func(sc scenario) string {
		if sc.user {
			return userToken
		}
		return anonKey
	}
	newRequest := func(sc scenario, url string) *http.Request {
		method, body := http.MethodGet, io.Reader(nil)
		if sc.body != "" {
			method, body = http.MethodPost, strings.NewReader(sc.body)
		}
		r, _ := http.NewRequest(method, url, body)
		if sc.body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if sc.prefer != "" {
			r.Header.Set("Prefer", sc.prefer)
		}
		return r
	}
	// forwarded adds what the gateway forwards to rest: the bearer, the
	// profile supabase-js sends, and the gateway's request id.
	forwarded := func(sc scenario, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+bearer(sc))
		r.Header.Set("Accept-Profile", "public")
		if sc.body != "" {
			r.Header.Set("Content-Profile", "public")
		}
		r.Header.Set("X-Request-Id", "restbench")
	}
	// through is what supabase-js sends from the app in a browser, through
	// either gateway: the anon key as apikey, the bearer, the profile, its
	// client info, and the page's origin (so CORS headers are added).
	through := func(server string) func(scenario, string) *http.Request {
		return func(sc scenario, word string) *http.Request {
			r := newRequest(sc, gatewayURLs[server]+"/rest/v1"+sc.restPath(word))
			r.Header.Set("apikey", anonKey)
			r.Header.Set("Authorization", "Bearer "+bearer(sc))
			r.Header.Set("Accept-Profile", "public")
			if sc.body != "" {
				r.Header.Set("Content-Profile", "public")
			}
			r.Header.Set("X-Client-Info", "supabase-js-web/2")
			r.Header.Set("Origin", "http://localhost:5173")
			return r
		}
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.conns, MaxConnsPerHost: o.conns, DisableCompression: true}, Timeout: 10 * time.Second}
	// Each builds a request for sc with word (see scenario.vary).
	request := map[string]func(sc scenario, word string) *http.Request{
		"floor": func(sc scenario, word string) *http.Request {
			r, _ := http.NewRequest("GET", floorURLs["floor"]+"/?q="+url.QueryEscape(sc.name)+"&w="+url.QueryEscape(word), nil)
			return r
		},
		// floor-tx gets rest's headers: its preamble carries them.
		"floor-tx": func(sc scenario, word string) *http.Request {
			r, _ := http.NewRequest("GET", floorURLs["floor-tx"]+"/?q="+url.QueryEscape(sc.name)+"&w="+url.QueryEscape(word), nil)
			forwarded(sc, r)
			return r
		},
		"rest": func(sc scenario, word string) *http.Request {
			r := newRequest(sc, restURL+sc.restPath(word))
			forwarded(sc, r)
			return r
		},
		"gateway":   through("gateway"),
		"gw-inproc": through("gw-inproc"),
	}
	var measured []string
	for _, s := range servers {
		if o.only[s] {
			measured = append(measured, s)
		}
	}

	fmt.Printf("%d connections; per scenario and server %v measured in %d rounds in ABBA order (after %v warm-up); at most %d requests per round; of floor: median of the rounds' ratios\n\n",
		o.conns, o.duration, o.rounds, o.warmup, o.maxReqs)
	fmt.Printf("%-34s %-9s %10s %9s %9s %9s %9s\n", "scenario", "server", "req/s", "p50 ms", "p99 ms", "of floor", "cpu µs")
	for _, sc := range o.picked {
		if err := sameBodies(client, sc, measured, request); err != nil {
			return err
		}
		pooled := map[string]result{}
		ratios := map[string][]float64{}
		// A varying scenario's requests go on through its values across
		// rounds and servers, so none repeats before all have been asked.
		var seq atomic.Uint64
		slice := o.duration / time.Duration(o.rounds)
		for i := range o.rounds {
			w := o.warmup
			if i > 0 {
				w = o.warmup / 4
			}
			// ABBA order: a load that grows or shrinks during the run
			// favours no server.
			order := slices.Clone(measured)
			if i%2 == 1 {
				slices.Reverse(order)
			}
			round := map[string]result{}
			for _, s := range order {
				newReq := func() *http.Request { return request[s](sc, sc.word(seq.Add(1))) }
				cpu := func() time.Duration { return processCPU(pids[s]...) }
				round[s] = load(ctx, client, newReq, cpu, o.conns, w, slice, o.maxReqs)
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("interrupted: %w", err)
				}
			}
			f := round["floor"]
			for s, r := range round {
				pooled[s] = pooled[s].merge(r)
				if s != "floor" && f.elapsed > 0 && r.elapsed > 0 && len(f.lat) > 0 {
					ratios[s] = append(ratios[s], float64(len(r.lat))/r.elapsed.Seconds()/(float64(len(f.lat))/f.elapsed.Seconds()))
				}
			}
		}
		for _, s := range measured {
			r := pooled[s].final()
			pooled[s] = r
			ratio := ""
			if len(ratios[s]) > 0 {
				ratio = fmt.Sprintf("%.0f%%", 100*median(ratios[s]))
			}
			fmt.Printf("%-34s %-9s %10.0f %9.2f %9.2f %9s %9s\n", sc.name, s, r.rps, ms(r.p50), ms(r.p99), ratio, r.cpuPerRequest())
			if r.errors > 0 {
				fmt.Printf("%-34s %-9s %d errors\n", "", "", r.errors)
			}
		}
		for _, s := range measured {
			if len(ratios[s]) == 0 {
				continue
			}
			fmt.Printf("%-34s %s/floor by round:", "", s)
			for _, q := range ratios[s] {
				fmt.Printf(" %.0f%%", 100*q)
			}
			fmt.Printf(" (pooled %.0f%%", 100*pooled[s].rps/pooled["floor"].rps)
			if tx := pooled["floor-tx"].rps; tx > 0 && s != "floor-tx" {
				fmt.Printf("; of floor-tx, pooled: %.0f%%", 100*pooled[s].rps/tx)
			}
			fmt.Println(")")
		}
	}
	return nil
}

// sameBodies checks, before anything is measured, that every server
// answers sc with the floor's bytes and total count (or, without the floor,
// rest's): a server that answered differently would be measured doing
// other work.
func sameBodies(c *http.Client, sc scenario, measured []string, request map[string]func(scenario, string) *http.Request) error {
	var want answer
	var from string
	for _, s := range measured {
		a, err := fetch(c, request[s](sc, sc.word(0)))
		if err != nil {
			return fmt.Errorf("%s via %s: %w", sc.name, s, err)
		}
		if from == "" {
			want, from = a, s
			continue
		}
		if !bytes.Equal(a.body, want.body) {
			return fmt.Errorf("%s: %s and %s bodies differ:\n%-7s %.300s\n%-7s %.300s", sc.name, s, from, s, a.body, from, want.body)
		}
		if a.total != want.total {
			return fmt.Errorf("%s: %s counts %q and %s %q", sc.name, s, a.total, from, want.total)
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// median of xs.
func median(xs []float64) float64 {
	xs = slices.Sorted(slices.Values(xs))
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// answer is what sameBodies compares: the body and the total of
// Content-Range (after its "/"; empty when not counted, which rest writes
// "*").
type answer struct {
	body  []byte
	total string
}

func fetch(c *http.Client, r *http.Request) (answer, error) {
	resp, err := c.Do(r)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 && resp.StatusCode != 206 {
		return answer{}, fmt.Errorf("%s: %d %s", r.URL, resp.StatusCode, b)
	}
	_, total, _ := strings.Cut(resp.Header.Get("Content-Range"), "/")
	if total == "*" {
		total = ""
	}
	return answer{body: b, total: total}, err
}

type result struct {
	rps      float64
	p50, p99 time.Duration
	errors   int64
	// lat, elapsed and cpu accumulate rounds until final.
	lat     []time.Duration
	elapsed time.Duration
	// cpu is the CPU time the server's processes spent while measured;
	// cpuMissed counts the rounds whose CPU time could not be read, and
	// so are not in it.
	cpu       time.Duration
	cpuMissed int
}

func (r result) merge(o result) result {
	r.lat = append(r.lat, o.lat...)
	r.elapsed += o.elapsed
	r.errors += o.errors
	r.cpu += o.cpu
	r.cpuMissed += o.cpuMissed
	return r
}

// cpuPerRequest is the server's CPU time per measured request in µs,
// empty if it could not be read in every round.
func (r result) cpuPerRequest() string {
	if r.cpuMissed > 0 || r.cpu <= 0 || len(r.lat) == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f", float64(r.cpu.Microseconds())/float64(len(r.lat)))
}

func (r result) final() result {
	slices.Sort(r.lat)
	if len(r.lat) > 0 {
		r.rps = float64(len(r.lat)) / r.elapsed.Seconds()
		r.p50 = r.lat[len(r.lat)/2]
		r.p99 = r.lat[len(r.lat)*99/100]
	}
	return r
}

// load drives newReq with conns workers: warmup unmeasured, then duration
// measured (or maxReqs requests, whichever comes first); it stops early
// when ctx ends. cpu, if not nil, reads the server's CPU time, before and
// after the measured part (0: it could not).
func load(ctx context.Context, c *http.Client, newReq func() *http.Request, cpu func() time.Duration, conns int, warmup, duration time.Duration, maxReqs int) result {
	if cpu == nil {
		cpu = func() time.Duration { return 0 }
	}
	var (
		mu        sync.Mutex
		lat       []time.Duration
		errs      atomic.Int64
		count     atomic.Int64
		measuring atomic.Bool
		stop      atomic.Bool
	)
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for !stop.Load() {
				start := time.Now()
				resp, err := c.Do(newReq())
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 && resp.StatusCode != 206 {
						err = errors.New(resp.Status)
					}
				}
				if !measuring.Load() {
					continue
				}
				if err != nil {
					errs.Add(1)
					continue
				}
				local = append(local, time.Since(start))
				if count.Add(1) >= int64(maxReqs) {
					stop.Store(true)
				}
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	select {
	case <-time.After(warmup):
	case <-ctx.Done():
		stop.Store(true)
	}
	measuring.Store(true)
	cpuBefore := cpu()
	began := time.Now()
	deadline := time.After(duration)
	tick := time.NewTicker(10 * time.Millisecond)
	for !stop.Load() {
		select {
		case <-deadline:
			stop.Store(true)
		case <-ctx.Done():
			stop.Store(true)
		case <-tick.C:
		}
	}
	tick.Stop()
	elapsed := time.Since(began)
	cpuAfter := cpu()
	wg.Wait()
	r := result{errors: errs.Load(), lat: lat, elapsed: elapsed, cpu: cpuAfter - cpuBefore}
	if cpuBefore <= 0 || cpuAfter <= 0 {
		r.cpu, r.cpuMissed = 0, 1
	}
	return r
}

// floorCommand, as restbench's first argument, runs the floor (serveFloor)
// instead of the benchmark.
const floorCommand = "serve-floor"

// serveFloor is the floor's process: `restbench serve-floor -addr A -db URL
// -pool N` serves floorHandler on A until SIGINT or SIGTERM.
func serveFloor(args []string) int {
	fs := flag.NewFlagSet(floorCommand, flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	db := fs.String("db", "", "the authenticator's database URL")
	pool := fs.Int("pool", 10, "database connections")
	tx := fs.Bool("tx", false, "run each query after rest's preamble, in one implicit transaction (floor-tx)")
	_ = fs.Parse(args)
	// The same collector target as the servers measured against it (unless
	// GOGC is set, which reaches every child alike), so the ratios compare
	// the servers' work, not a runtime setting.
	lifecycle.DefaultGCPercent(lifecycle.ServerGCPercent)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, closePools, err := floorHandler(ctx, *db, int32(*pool), *tx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 1
	}
	defer closePools()
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 1
	}
	return 0
}

// floorHandler answers GET /?q=<scenario name> with one pgx query (a cached
// prepared statement, the user's values as its parameters) and the JSON it
// returns: the least any server can do.
// Its connections log in as authenticator and switch once, when they open,
// to anon (or, for a signed-in scenario, to authenticated with the bench
// user's claims), so its queries run under the same role and policies as
// rest's (which switches per request); the difference measured is the
// server's. A count=estimated scenario also runs its EXPLAIN when the
// count passes estimateAbove, as rest must.
//
// With tx (floor-tx), every query runs after the statement PostgREST's
// contract puts first in each transaction (rest's preamble: the role,
// search_path, claims, method, path, headers and cookies, the role's own
// settings, read-only), in one pipeline and one implicit transaction, as
// rest sends them. The floor and floor-tx differ only by that
// transaction, so floor-tx is the most any PostgREST can reach, and rest's
// share of it is what rest's own code costs.
func floorHandler(ctx context.Context, authenticator string, poolSize int32, tx bool) (http.Handler, func(), error) {
	open := func(setup string) (*pgxpool.Pool, error) {
		cfg, err := pgxpool.ParseConfig(authenticator)
		if err != nil {
			return nil, err
		}
		cfg.MaxConns = poolSize
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, setup)
			return err
		}
		return pgxpool.NewWithConfig(ctx, cfg)
	}
	anon, err := open("set role anon")
	if err != nil {
		return nil, nil, err
	}
	user, err := open(`set role authenticated; select set_config('request.jwt.claims', '{"role":"authenticated","sub":"` + benchUser + `"}', false)`)
	if err != nil {
		anon.Close()
		return nil, nil, err
	}
	closePools := func() { anon.Close(); user.Close() }
	var pre *preambleSource
	if tx {
		if pre, err = newPreambleSource(ctx, authenticator); err != nil {
			closePools()
			return nil, nil, err
		}
	}
	byName := map[string]scenario{}
	for _, sc := range scenarios {
		byName[sc.name] = sc
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		sc, ok := byName[r.URL.Query().Get("q")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		pool, role := anon, "anon"
		if sc.user {
			pool, role = user, "authenticated"
		}
		args := sc.floorArgs(r.URL.Query().Get("w"))
		// row runs one statement, after the preamble with tx.
		row := func(sql string, dest ...any) error {
			if !tx {
				return pool.QueryRow(r.Context(), sql, args...).Scan(dest...)
			}
			q := pre.query(sc, role, r.Header)
			b := &pgx.Batch{}
			b.Queue(q.SQL, q.Args...)
			b.Queue(sql, args...).QueryRow(func(row pgx.Row) error { return row.Scan(dest...) })
			return pool.SendBatch(r.Context(), b).Close()
		}
		var body []byte
		var err error
		if sc.prefer == "" {
			err = row(sc.floor, &body)
		} else {
			// A counted scenario's SQL returns the body and the count.
			var count int64
			err = row(sc.floor, &body, &count)
			if err == nil && sc.floorEstimate != "" && count > estimateAbove {
				var plan []byte
				if err = row(sc.floorEstimate, &plan); err == nil {
					count = max(exec.PlanRows(plan), estimateAbove)
				}
			}
			if err == nil {
				w.Header().Set("Content-Range", fmt.Sprintf("*/%d", count))
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	})
	return mux, closePools, nil
}

// preambleSource builds floor-tx's preamble as rest builds its own
// (pgrst.Preamble): from rest's configuration, read from the PGRST_*
// environment the floor is started with, and the role settings of rest's
// schema cache. What does not depend on the request is built once.
type preambleSource struct {
	searchPath string
	cache      *schemacache.Cache
	// claims holds each role's JWT claims as JSON.
	claims map[string][]byte
}

func newPreambleSource(ctx context.Context, authenticator string) (*preambleSource, error) {
	cfg, err := config.Load(envconf.New())
	if err != nil {
		return nil, fmt.Errorf("rest's configuration: %w", err)
	}
	pool, err := pgxpool.New(ctx, authenticator)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	holder := schemacache.NewHolder(pool, cfg.DBSchemas, nil)
	if err := holder.Reload(ctx); err != nil {
		return nil, err
	}
	claims := map[string][]byte{}
	for role, sub := range map[string]string{"anon": "", "authenticated": benchUser} {
		claims[role], _ = json.Marshal(map[string]string{"role": role, "sub": sub, "iss": "restbench"})
	}
	return &preambleSource{searchPath: pgrst.SearchPath(cfg.DBSchemas[0], cfg.DBExtraSearchPath), cache: holder.Get(), claims: claims}, nil
}

// query is the preamble rest sends before sc's statement as role, with
// values of the same size (the floor-tx request carries the headers
// rest's does). The board's function is stable, so rest reads it
// read-only too.
func (s *preambleSource) query(sc scenario, role string, h http.Header) sqlgen.Query {
	headers := make([][2]string, 0, len(h))
	for k, vs := range h {
		for _, v := range vs {
			headers = append(headers, [2]string{k, v})
		}
	}
	method := http.MethodGet
	if sc.body != "" {
		method = http.MethodPost
	}
	path, _, _ := strings.Cut(sc.rest, "?")
	p := pgrst.Preamble{SearchPath: s.searchPath, Role: role, Claims: s.claims[role], Method: method, Path: path,
		Headers: headers, RoleSettings: s.cache.RoleSettings(role), ReadOnly: true}
	q := p.Query()
	for _, v := range q.Params {
		q.Args = append(q.Args, string(v))
	}
	return q
}

// describeServer names the PostgreSQL measured and the settings that move
// the figures: with ssl on, backends forked from a postmaster that loaded
// OpenSSL give freed planner memory back to the kernel after each custom
// plan (glibc's heap trimming, a brk and a TLB flush on every CPU), which
// halved rest's one-estate filter here until the server ran with
// GLIBC_TUNABLES=glibc.malloc.trim_threshold raised (rest/README.md).
func describeServer(ctx context.Context, dsn string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version, ssl string
	err = conn.QueryRow(ctx, `select current_setting('server_version'), current_setting('ssl')`).Scan(&version, &ssl)
	if err != nil {
		return "", fmt.Errorf("describe the server: %w", err)
	}
	return "PostgreSQL " + version + ", ssl " + ssl, nil
}

func execAdmin(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}

func withDB(dsn, db string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + db
	return u.String()
}

func withUser(dsn, user string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.User = url.User(user)
	return u.String()
}
