package tests

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// env is one test database with a superuser pool (fixtures, assertions) and
// an authenticator pool (statements run as API callers).
type env struct {
	db    *pgtest.DB
	super *pgxpool.Pool
	api   *pgxpool.Pool
}

// user is a signed-in account of the fixture.
type user struct {
	ID    string
	Email string
	// SessionID is an auth session of the user; admins get one that passed
	// the access code (newAdmin), as the admin functions demand.
	SessionID string
}

func (u user) caller() Caller {
	c := User(u.ID, u.Email)
	c.SessionID = u.SessionID
	return c
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, pgtest.Options{})
}

// newEnvWith is newEnv on a database built with opts.
func newEnvWith(t *testing.T, opts pgtest.Options) *env {
	t.Helper()
	db := pgtest.New(t, opts)
	return &env{db: db, super: newPool(t, db.URL, 2), api: newPool(t, db.URLAs("authenticator"), 4)}
}

func newPool(t *testing.T, url string, size int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = size
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newUser creates an auth user the way authsvc does (the triggers add the
// profile, role and wallets).
func (e *env) newUser(t *testing.T, name string) user {
	t.Helper()
	email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "." + randomSuffix() + "@kejanest.test"
	var id string
	err := e.super.QueryRow(context.Background(),
		`insert into auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		 values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1,
		         '{"provider":"email","providers":["email"]}', jsonb_build_object('full_name', $2::text, 'role', 'user'), now(), now())
		 returning id::text`, email, name).Scan(&id)
	if err != nil {
		t.Fatalf("create user %s: %v", name, err)
	}
	return user{ID: id, Email: email}
}

func (e *env) newAdmin(t *testing.T, name string) user {
	t.Helper()
	u := e.newUser(t, name)
	e.mustSuper(t, `update public.user_roles set role = 'admin' where user_id = $1`, u.ID)
	// A session that passed /admin/login's access code (0029: every admin
	// function asks for it), marked directly so no access row is audited.
	e.scalar(t, &u.SessionID, `with s as (insert into auth.sessions (id, user_id, created_at, updated_at, aal)
		values (gen_random_uuid(), $1, now(), now(), 'aal1') returning id, user_id)
		insert into app_private.admin_sessions (session_id, user_id) select id, user_id from s returning session_id::text`, u.ID)
	return u
}

// mustSuper runs a statement as the superuser.
func (e *env) mustSuper(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := e.super.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", firstLine(sql), err)
	}
}

// scalar reads one value as the superuser.
func (e *env) scalar(t *testing.T, dest any, sql string, args ...any) {
	t.Helper()
	if err := e.super.QueryRow(context.Background(), sql, args...).Scan(dest); err != nil {
		t.Fatalf("%s: %v", firstLine(sql), err)
	}
}

func (e *env) int64(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	e.scalar(t, &n, sql, args...)
	return n
}

// run executes sql as c and commits.
func (e *env) run(c Caller, sql string, args ...any) Result {
	return Exec(context.Background(), e.api, c, true, sql, args...)
}

// try executes sql as c and rolls back.
func (e *env) try(c Caller, sql string, args ...any) Result {
	return Exec(context.Background(), e.api, c, false, sql, args...)
}

// value runs a single-value query as c, committing, and scans it.
func (e *env) value(t *testing.T, c Caller, dest any, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	err := As(ctx, e.api, c, true, func(tx pgx.Tx) error { return tx.QueryRow(ctx, sql, args...).Scan(dest) })
	if err != nil {
		t.Fatalf("%s as %s: %v", firstLine(sql), c.Role, err)
	}
}

// issue credits coins through the ledger (issue_currency as service_role).
func (e *env) issue(t *testing.T, u user, currency string, amount int64) {
	t.Helper()
	if r := e.run(Service(), `select public.issue_currency($1, $2, $3, 'test')`, u.ID, currency, amount); r.Err != nil {
		t.Fatalf("issue %d %s: %v", amount, currency, r.Err)
	}
}

func (e *env) balance(t *testing.T, u user, currency string) int64 {
	t.Helper()
	return e.int64(t, `select balance from public.wallets where user_id = $1 and currency = $2`, u.ID, currency)
}

func ok(t *testing.T, r Result) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("unexpected error %s: %s", r.Code, r.Message)
	}
}

// fails asserts the SQLSTATE and the exact message the app will show.
func fails(t *testing.T, r Result, code, message string) {
	t.Helper()
	if r.Err == nil {
		t.Fatalf("succeeded (%d rows), want %s %q", r.Rows, code, message)
	}
	if r.Code != code || (message != "" && r.Message != message) {
		t.Fatalf("got %s %q, want %s %q", r.Code, r.Message, code, message)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func near(a, b time.Time, tolerance time.Duration) bool {
	d := a.Sub(b)
	return d < tolerance && d > -tolerance
}

// checkLedger asserts the ledger invariants on the whole database.
func (e *env) checkLedger(t *testing.T) {
	t.Helper()
	checks := []struct{ name, sql string }{
		{"no negative balance outside issuance",
			`select count(*) from public.wallets where balance < 0 and kind <> 'issuance'`},
		{"every currency sums to zero",
			`select count(*) from (select currency from public.wallets group by currency having sum(balance) <> 0) x`},
		{"balance = credits - debits",
			`select count(*) from public.wallets w
			  where w.balance <> coalesce((select sum(amount) from public.wallet_transfers where credit_wallet_id = w.id), 0)
			                   - coalesce((select sum(amount) from public.wallet_transfers where debit_wallet_id = w.id), 0)`},
		{"escrow = sum of open trades",
			`select count(*) from public.wallets w
			  where w.kind = 'escrow'
			    and w.balance <> coalesce((select sum(amount) from public.p2p_trades t
			                                where t.currency = w.currency and t.status in ('escrow_locked', 'paid', 'disputed')), 0)`},
		{"every trade has exactly one escrow lock",
			`select count(*) from public.p2p_trades t
			  where (select count(*) from public.wallet_transfers x where x.trade_id = t.id and x.kind = 'escrow_lock'
			           and x.amount = t.amount and x.currency = t.currency) <> 1`},
		{"closed trades settled once, open trades not yet",
			`select count(*) from public.p2p_trades t
			  where (select count(*) from public.wallet_transfers x where x.trade_id = t.id and x.kind in ('escrow_release', 'escrow_refund'))
			        <> case when t.status in ('escrow_locked', 'paid', 'disputed') then 0 else 1 end`},
		{"offer filled_amount = its trades not returned",
			`select count(*) from public.p2p_offers o
			  where o.filled_amount <> coalesce((select sum(t.amount) from public.p2p_trades t where t.offer_id = o.id
			          and not (t.status in ('cancelled', 'expired') or (t.status = 'resolved' and t.resolution = 'seller'))), 0)`},
	}
	for _, c := range checks {
		if n := e.int64(t, c.sql); n != 0 {
			t.Errorf("ledger invariant %q violated (%d)", c.name, n)
		}
	}
}
