// rpc through supabase-js: named arguments, GET for stable functions,
// set-returning functions filtered and ordered like tables, scalar,
// composite and void results, overloads and PostgREST's errors, as anon,
// two signed-in users and service_role; then the app's RPCs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, OTIENO, USER1, WANJIKU, idsOf, startPgrstStack } from '../fixtures/pgrst-stack.mjs';

let s;
before(async () => { s = await startPgrstStack(); });
after(async () => { await s?.stack.stop(); });

const rpc = (role, fn, args, opts) => s.lib(role).rpc(fn, args, opts);

const DAY_MS = 86_400_000;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
/** A server timestamp taken during this test (stack and tests share a clock; 60 s of slack). */
const assertRecent = (ts, since) => {
  const t = Date.parse(ts);
  assert.ok(t >= since - 60_000 && t <= Date.now() + 60_000, `${ts} is not recent`);
};

describe('calls', () => {
  test('scalar by POST and by GET', async () => {
    const post = await rpc('anon', 'add', { a: 1, b: 2 });
    assert.equal(post.error, null);
    assert.equal(post.status, 200);
    assert.equal(post.data, 3);
    const get = await rpc('anon', 'add', { a: 2, b: 3 }, { get: true });
    assert.equal(get.error, null);
    assert.equal(get.data, 5);
    assert.equal(get.status, 200);
  });

  test('overloads resolve by argument names', async () => {
    assert.equal((await rpc('anon', 'add', { a: 1, b: 2, c: 3 })).data, 6);
  });

  test('defaults and null arguments', async () => {
    assert.equal((await rpc('anon', 'greet')).data, 'hello world');
    assert.equal((await rpc('anon', 'greet', { name: 'Ann' }, { get: true })).data, 'hello Ann');
    assert.equal((await rpc('anon', 'greet', { name: null })).data, null);
  });

  test('set-returning functions filter, order, limit, count and embed', async () => {
    const { data, count, status } = await rpc('anon', 'books_by', { author: 1 }, { count: 'exact' }).select('id, title').order('id', { ascending: false }).limit(1);
    assert.equal(status, 206);
    assert.equal(count, 2);
    assert.deepEqual(data, [{ id: 2, title: 'Petals of Blood' }]);
    const filtered = await rpc('anon', 'books_by', { author: 1 }).select('id').gt('price', 13);
    assert.deepEqual(filtered.data, [{ id: 2 }]);
    const embedded = await rpc('anon', 'books_by', { author: 2 }).select('id, genres(name)').order('id').order('name', { referencedTable: 'genres' });
    assert.deepEqual(embedded.data, [{ id: 3, genres: [{ name: 'Fiction' }, { name: 'History' }] }, { id: 4, genres: [] }]);
  });

  test('returns table, single row, set of scalars', async () => {
    const stats = await rpc('anon', 'author_stats', {}, { get: true }).order('books', { ascending: false }).order('author_id');
    assert.deepEqual(stats.data, [{ author_id: 1, books: 2 }, { author_id: 2, books: 2 }, { author_id: 3, books: 1 }]);
    const first = await rpc('anon', 'first_book').select('id, title');
    assert.deepEqual(first.data, { id: 1, title: 'Weep Not, Child' });
    const tags = await rpc('anon', 'tag_list');
    assert.deepEqual(tags.data, ['classic', 'family', 'kenya', 'nigeria', 'politics']);
  });

  test('single() and maybeSingle() on results', async () => {
    const one = await rpc('anon', 'books_by', { author: 3 }).select('id').single();
    assert.deepEqual(one.data, { id: 5 });
    const none = await rpc('anon', 'books_by', { author: 4 }).select('id').single();
    assert.equal(none.error.code, 'PGRST116');
    const maybe = await rpc('anon', 'books_by', { author: 4 }).select('id').maybeSingle();
    assert.equal(maybe.data, null);
  });

  test('single unnamed json parameter and variadic', async () => {
    assert.deepEqual((await rpc('anon', 'echo', { a: [1, 2] })).data, { a: [1, 2] });
    assert.equal((await rpc('anon', 'sum_all', { nums: [1, 2, 3] })).data, 6);
    assert.equal((await rpc('anon', 'sum_all', { nums: [4, 5] }, { get: true })).data, 9);
  });

  test('void returns 204 and no data', async () => {
    const { data, error, status } = await rpc('anon', 'noop');
    assert.equal(error, null);
    assert.equal(status, 204);
    assert.equal(data, null);
  });

  test('head and count on calls', async () => {
    const { data, count, status } = await rpc('anon', 'books_by', { author: 1 }, { head: true, count: 'exact' });
    assert.equal(status, 200);
    assert.equal(data, null);
    assert.equal(count, 2);
  });

  test('volatile call writes, and rolls back on request', async () => {
    const { data } = await rpc('service', 'new_author', { id: 50, name: 'Grace Ogot' }).rollback();
    assert.deepEqual(data, { id: 50, name: 'Grace Ogot', country: null, born: null, profile: {} });
    const after = await s.lib().from('authors').select('id').eq('id', 50);
    assert.deepEqual(after.data, []);
  });

  test('the caller is the JWT user', async () => {
    const who = await rpc('user1', 'whoami', {}, { get: true });
    assert.equal(who.data.role, 'authenticated');
    assert.equal(who.data.uid, USER1);
    // PostgREST 12 (what Supabase runs) sets the claims as JSON only; the
    // legacy request.jwt.claim.* names are not set, so auth.uid() reads
    // the JSON.
    assert.equal(who.data.legacy_sub, null);
    assert.equal(who.data.method, 'GET');
    assert.equal(who.data.path, '/rpc/whoami');
    assert.equal(who.data.read_only, 'on');
    assert.equal((await rpc('service', 'whoami')).data.role, 'service_role');
    assert.equal((await rpc('anon', 'whoami')).data.role, 'anon');
    assert.deepEqual(idsOf((await rpc('user1', 'my_reviews')).data), [1, 3]);
    assert.deepEqual(idsOf((await rpc('user2', 'my_reviews')).data), [2, 4]);
    assert.deepEqual((await rpc('anon', 'my_reviews')).data, []);
  });
});

describe('errors', () => {
  test('RAISE EXCEPTION is 400 P0001 with detail and hint', async () => {
    const { error, status } = await rpc('anon', 'raise_error');
    assert.equal(status, 400);
    assert.deepEqual(error, { code: 'P0001', message: 'boom', details: 'it broke', hint: 'try again' });
  });

  test('raised SQLSTATEs map per PostgREST', async () => {
    assert.equal((await rpc('anon', 'raise_unique')).status, 409);
    assert.equal((await rpc('anon', 'raise_payment')).status, 402);
    const custom = await rpc('anon', 'raise_pgrst');
    assert.equal(custom.status, 418);
    assert.deepEqual(custom.error, { code: '123', message: 'Custom', details: 'd', hint: 'h' });
  });

  test('writes in a read-only GET are 405', async () => {
    const { status, error } = await rpc('anon', 'write_in_get', {}, { get: true });
    assert.equal(status, 405);
    assert.equal(error.code, '25006');
  });

  test('PGRST202 with the closest match, PGRST203 for ambiguity', async () => {
    const missing = await rpc('anon', 'add', { a: 1 });
    assert.equal(missing.status, 404);
    assert.equal(missing.error.code, 'PGRST202');
    assert.equal(missing.error.hint, 'Perhaps you meant to call the function library.add(a, b)');
    const typo = await rpc('anon', 'addd', {});
    assert.equal(typo.error.hint, 'Perhaps you meant to call the function library.add');
    const amb = await rpc('anon', 'ambiguous', { x: 1 });
    assert.equal(amb.status, 300);
    assert.equal(amb.error.code, 'PGRST203');
  });

  test('other verbs are 405 PGRST101', async () => {
    const res = await fetch(`${s.stack.url}/rest/v1/rpc/add`, { method: 'PUT', headers: { apikey: s.stack.anonKey, 'Content-Profile': 'library' } });
    assert.equal(res.status, 405);
    assert.equal((await res.json()).code, 'PGRST101');
  });

  test('params=single-object passes the body whole', async () => {
    const res = await fetch(`${s.stack.url}/rest/v1/rpc/echo_args`, {
      method: 'POST',
      headers: { apikey: s.stack.anonKey, 'Content-Profile': 'library', 'Content-Type': 'application/json', Prefer: 'params=single-object' },
      body: JSON.stringify({ x: 1 }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { x: 1 });
  });
});

describe("the app's RPCs", () => {
  test('get_user_email returns a JSON string', async () => {
    const { data, error, status } = await s.app.admin.rpc('get_user_email', { p_user_id: WANJIKU });
    assert.equal(error, null);
    assert.equal(status, 200);
    assert.equal(data, 'wanjiku@kejanest.test');
    const own = await s.app.otieno.rpc('get_user_email', { p_user_id: OTIENO });
    assert.equal(own.data, 'otieno@kejanest.test');
    const denied = await s.app.otieno.rpc('get_user_email', { p_user_id: WANJIKU });
    assert.equal(denied.status, 403);
    assert.equal(denied.error.code, '42501');
  });

  test('get_user_suspension_info returns an array', async () => {
    const { data, status } = await s.app.admin.rpc('get_user_suspension_info', { p_user_id: WANJIKU });
    assert.equal(status, 200);
    assert.deepEqual(data, []);
  });

  test('suspend_user with a null reason suspends, bans and can be lifted', async () => {
    const before = Date.now();
    // The app's exact call (p_reason: null). Otieno exists, is no admin, is
    // not the caller and is not suspended yet, so the function succeeds.
    const { data, error, status } = await s.app.admin.rpc('suspend_user', { p_user_id: OTIENO, p_admin_id: ADMIN, p_suspension_type: '10_days', p_reason: null });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(status, 200);
    assert.equal(data.user_id, OTIENO);
    assert.equal(data.suspension_type, '10_days');
    assert.equal(data.reason, null);
    assert.equal(data.suspended_by, ADMIN);
    assert.equal(data.lifted_at, null);
    assert.equal(Date.parse(data.suspended_until) - Date.parse(data.suspended_at), 10 * DAY_MS);
    assertRecent(data.suspended_at, before);

    // Visible to the admin and to the user, and mirrored into auth.users.
    const info = await s.app.admin.rpc('get_user_suspension_info', { p_user_id: OTIENO });
    assert.equal(info.status, 200);
    assert.deepEqual(info.data, [data]);
    const own = await s.app.otieno.from('user_suspensions').select('id, reason');
    assert.deepEqual(own.data, [{ id: data.id, reason: null }]);
    const authUser = await s.app.service.auth.admin.getUserById(OTIENO);
    assert.equal(authUser.error, null);
    assert.equal(Date.parse(authUser.data.user.banned_until), Date.parse(data.suspended_until));

    // The suspended user is refused by the user functions.
    const refused = await s.app.otieno.rpc('lock_currency_in_escrow', { p_offer_id: ZERO_UUID, p_buyer_id: OTIENO, p_amount: 1, p_expected_rate: 1 });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.error, { code: '42501', message: 'Your account is suspended', details: null, hint: null });

    // A second suspension is refused, with the function's message and hint.
    const again = await s.app.admin.rpc('suspend_user', { p_user_id: OTIENO, p_admin_id: ADMIN, p_suspension_type: 'permanent', p_reason: null });
    assert.equal(again.status, 400);
    assert.deepEqual(again.error, { code: 'P0001', message: 'User is already suspended', details: null, hint: 'Lift the current suspension first.' });

    // Lift it again so later tests can act as Otieno.
    const lifted = await s.app.admin.rpc('unsuspend_user', { p_user_id: OTIENO });
    assert.equal(lifted.error, null, JSON.stringify(lifted.error));
    assert.equal(lifted.data.id, data.id);
    assert.equal(lifted.data.lifted_by, ADMIN);
    assertRecent(lifted.data.lifted_at, before);
    assert.deepEqual((await s.app.admin.rpc('get_user_suspension_info', { p_user_id: OTIENO })).data, []);
    assert.equal((await s.app.service.auth.admin.getUserById(OTIENO)).data.user.banned_until ?? null, null);
  });

  test('process_kyc_verification: only an admin decides, only approved or rejected, only once', async () => {
    const kycOf = async (user) => {
      const { data, error } = await s.app.admin.from('kyc_verifications').select('*').eq('user_id', user).single();
      assert.equal(error, null, JSON.stringify(error));
      return data;
    };
    // The admin dashboard's pending count (head + exact count).
    const pending = async () => {
      const { count, error } = await s.app.admin.from('kyc_verifications').select('*', { count: 'exact', head: true }).eq('verification_status', 'pending');
      assert.equal(error, null, JSON.stringify(error));
      return count;
    };
    const wanjikuKyc = await kycOf(WANJIKU);
    const otienoKyc = await kycOf(OTIENO);
    assert.equal(wanjikuKyc.verification_status, 'pending');
    assert.equal(otienoKyc.verification_status, 'pending');
    assert.equal(await pending(), 2);

    // A non-admin cannot approve (not even their own submission by naming the admin).
    const notAdmin = await s.app.wanjiku.rpc('process_kyc_verification', { p_kyc_id: wanjikuKyc.id, p_admin_id: ADMIN, p_action: 'approved', p_notes: null });
    assert.equal(notAdmin.status, 403);
    assert.deepEqual(notAdmin.error, { code: '42501', message: 'Admin privileges required', details: null, hint: 'Sign in with the administrator account.' });
    // Only 'approved' and 'rejected' are actions ('approve' is not).
    for (const p_action of ['approve', 'bogus', null]) {
      const bad = await s.app.admin.rpc('process_kyc_verification', { p_kyc_id: wanjikuKyc.id, p_admin_id: ADMIN, p_action, p_notes: 'ok' });
      assert.equal(bad.status, 400, `${p_action}: ${JSON.stringify(bad.error)}`);
      assert.deepEqual(bad.error, { code: 'P0001', message: 'Action must be approved or rejected', details: null, hint: null });
    }
    const unknown = await s.app.admin.rpc('process_kyc_verification', { p_kyc_id: ZERO_UUID, p_admin_id: ADMIN, p_action: 'approved', p_notes: null });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.error, { code: 'P0001', message: 'KYC submission not found', details: null, hint: null });
    // None of the refusals changed anything.
    assert.deepEqual(await kycOf(WANJIKU), wanjikuKyc);
    assert.equal(await pending(), 2);

    // Approve, with notes (trimmed).
    const before = Date.now();
    const approved = await s.app.admin.rpc('process_kyc_verification', { p_kyc_id: wanjikuKyc.id, p_admin_id: ADMIN, p_action: 'approved', p_notes: '  Documents match  ' });
    assert.equal(approved.error, null, JSON.stringify(approved.error));
    assert.equal(approved.status, 200);
    assert.equal(approved.data.id, wanjikuKyc.id);
    assert.equal(approved.data.user_id, WANJIKU);
    assert.equal(approved.data.verification_status, 'approved');
    assert.equal(approved.data.admin_notes, 'Documents match');
    assert.equal(approved.data.reviewed_by, ADMIN);
    assertRecent(approved.data.reviewed_at, before);
    assert.equal(approved.data.id_number, wanjikuKyc.id_number);
    assert.deepEqual(await kycOf(WANJIKU), approved.data);

    // Reject, without notes (the app sends null).
    const rejected = await s.app.admin.rpc('process_kyc_verification', { p_kyc_id: otienoKyc.id, p_admin_id: ADMIN, p_action: 'rejected', p_notes: null });
    assert.equal(rejected.error, null, JSON.stringify(rejected.error));
    assert.equal(rejected.status, 200);
    assert.equal(rejected.data.verification_status, 'rejected');
    assert.equal(rejected.data.admin_notes, null);
    assert.equal(rejected.data.reviewed_by, ADMIN);
    assertRecent(rejected.data.reviewed_at, before);

    // What the profile card reads for each user, and the admin's pending count.
    const wStatus = await s.app.wanjiku.from('kyc_verifications').select('verification_status').eq('user_id', WANJIKU).single();
    assert.deepEqual(wStatus.data, { verification_status: 'approved' });
    const oStatus = await s.app.otieno.from('kyc_verifications').select('verification_status').eq('user_id', OTIENO).single();
    assert.deepEqual(oStatus.data, { verification_status: 'rejected' });
    assert.equal(await pending(), 0);

    // A decided submission cannot be decided again.
    const twice = await s.app.admin.rpc('process_kyc_verification', { p_kyc_id: wanjikuKyc.id, p_admin_id: ADMIN, p_action: 'rejected', p_notes: null });
    assert.equal(twice.status, 400);
    assert.deepEqual(twice.error, { code: 'P0001', message: 'KYC submission has already been approved', details: null, hint: 'Only pending submissions can be processed.' });
    assert.equal((await kycOf(WANJIKU)).verification_status, 'approved');
  });

  test('lock_currency_in_escrow starts a trade and moves the seller\'s coins to escrow, once per idempotency key', async () => {
    // Crystals for the seller, issued the way sql/tests does (issue_currency as service_role).
    const issued = await s.app.service.rpc('issue_currency', { p_user_id: WANJIKU, p_currency: 'crystals', p_amount: 1000, p_reason: 'compat', p_idempotency_key: 'compat-rpc-issue' });
    assert.equal(issued.error, null, JSON.stringify(issued.error));
    assert.equal(typeof issued.data, 'number');
    const balance = async (client, user) => {
      const { data, error } = await client.from('wallets').select('balance').eq('user_id', user).eq('currency', 'crystals').single();
      assert.equal(error, null, JSON.stringify(error));
      return data.balance;
    };
    const escrow = async () => {
      const { data, error } = await s.app.admin.from('wallets').select('balance').eq('kind', 'escrow').eq('currency', 'crystals').single();
      assert.equal(error, null, JSON.stringify(error));
      return data.balance;
    };
    const lockTransfers = async () => {
      const { data, error } = await s.app.wanjiku.from('wallet_transfers').select('trade_id, amount, kind, currency').eq('kind', 'escrow_lock').order('id');
      assert.equal(error, null, JSON.stringify(error));
      return data;
    };
    const offerRow = async (id) => (await s.app.wanjiku.from('p2p_offers').select('status, filled_amount, remaining_amount').eq('id', id).single()).data;
    assert.equal(await balance(s.app.wanjiku, WANJIKU), 1000);
    assert.equal(await balance(s.app.otieno, OTIENO), 0);
    assert.equal(await escrow(), 0);

    // The seller creates a sell offer the app's way.
    const offer = await s.app.wanjiku.from('p2p_offers').insert({
      user_id: WANJIKU, action: 'sell', currency: 'crystals', amount: 500, rate_per_unit: 2.5, min_limit: 50, max_limit: 300,
      payment_methods: ['M-Pesa'], auto_cancel_duration: '24 hours', expires_at: new Date(Date.now() + DAY_MS).toISOString(),
    }).select().single();
    assert.equal(offer.error, null, JSON.stringify(offer.error));
    assert.equal(offer.data.status, 'active');

    // Out-of-limit amounts are refused with the trade dialog's message, and lock nothing.
    const tooBig = await s.app.otieno.rpc('lock_currency_in_escrow', { p_offer_id: offer.data.id, p_buyer_id: OTIENO, p_amount: 301, p_expected_rate: 2.5 });
    assert.equal(tooBig.status, 400);
    assert.deepEqual(tooBig.error, { code: 'P0001', message: 'Amount must be between 50 and 300', details: null, hint: null });

    // The price the buyer saw travels with the lock: a different one is refused.
    const stale = await s.app.otieno.rpc('lock_currency_in_escrow', { p_offer_id: offer.data.id, p_buyer_id: OTIENO, p_amount: 100, p_expected_rate: 2 });
    assert.equal(stale.status, 400);
    assert.equal(stale.error.message, 'The price of this offer has changed');
    assert.equal(stale.error.details, 'You saw 2 KES per unit; the offer now asks 2.50 KES per unit.');

    // The buyer takes it with the app's exact arguments.
    const before = Date.now();
    const first = await s.app.otieno.rpc('lock_currency_in_escrow', { p_offer_id: offer.data.id, p_buyer_id: OTIENO, p_amount: 100, p_expected_rate: 2.5 });
    assert.equal(first.error, null, JSON.stringify(first.error));
    assert.equal(first.status, 200);
    const trade = first.data;
    assert.equal(trade.offer_id, offer.data.id);
    assert.equal(trade.offer_action, 'sell');
    assert.equal(trade.taker_id, OTIENO);
    assert.equal(trade.buyer_id, OTIENO);
    assert.equal(trade.seller_id, WANJIKU);
    assert.equal(trade.currency, 'crystals');
    assert.equal(trade.amount, 100);
    assert.equal(Number(trade.rate_per_unit), 2.5);
    assert.equal(Number(trade.total_kes), 250);
    assert.equal(trade.status, 'escrow_locked');
    assert.equal(trade.client_key, null);
    assert.equal(Date.parse(trade.payment_deadline) - Date.parse(trade.created_at), 30 * 60_000);
    assertRecent(trade.created_at, before);

    // The seller's coins are in escrow; the buyer gets nothing until release.
    assert.equal(await balance(s.app.wanjiku, WANJIKU), 900);
    assert.equal(await balance(s.app.otieno, OTIENO), 0);
    assert.equal(await escrow(), 100);
    assert.deepEqual(await lockTransfers(), [{ trade_id: trade.id, amount: 100, kind: 'escrow_lock', currency: 'crystals' }]);
    assert.deepEqual(await offerRow(offer.data.id), { status: 'active', filled_amount: 100, remaining_amount: 400 });
    // Both parties see the trade.
    for (const client of [s.app.wanjiku, s.app.otieno]) {
      const seen = await client.from('p2p_trades').select('id, status, amount').eq('id', trade.id).single();
      assert.deepEqual(seen.data, { id: trade.id, status: 'escrow_locked', amount: 100 });
    }

    // With an idempotency key, a repeated request returns the same trade and posts nothing twice.
    const args = { p_offer_id: offer.data.id, p_buyer_id: OTIENO, p_amount: 120, p_expected_rate: 2.5, p_idempotency_key: 'compat-checkout-1' };
    const keyed = await s.app.otieno.rpc('lock_currency_in_escrow', args);
    assert.equal(keyed.error, null, JSON.stringify(keyed.error));
    assert.notEqual(keyed.data.id, trade.id);
    assert.equal(keyed.data.amount, 120);
    assert.equal(keyed.data.client_key, 'compat-checkout-1');
    const replay = await s.app.otieno.rpc('lock_currency_in_escrow', args);
    assert.equal(replay.error, null, JSON.stringify(replay.error));
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.data, keyed.data);
    assert.equal(await balance(s.app.wanjiku, WANJIKU), 780);
    assert.equal(await balance(s.app.otieno, OTIENO), 0);
    assert.equal(await escrow(), 220);
    assert.deepEqual(await lockTransfers(), [
      { trade_id: trade.id, amount: 100, kind: 'escrow_lock', currency: 'crystals' },
      { trade_id: keyed.data.id, amount: 120, kind: 'escrow_lock', currency: 'crystals' },
    ]);
    assert.deepEqual(await offerRow(offer.data.id), { status: 'active', filled_amount: 220, remaining_amount: 280 });
    const trades = await s.app.otieno.from('p2p_trades').select('id').eq('offer_id', offer.data.id).order('created_at');
    assert.deepEqual(trades.data.map((t) => t.id).sort(), [trade.id, keyed.data.id].sort());
  });

  test('lock_currency_in_escrow refuses an unknown offer with the function\'s message', async () => {
    const { status, error } = await s.app.wanjiku.rpc('lock_currency_in_escrow', { p_offer_id: ZERO_UUID, p_buyer_id: WANJIKU, p_amount: 1, p_expected_rate: 1 });
    assert.equal(status, 400, JSON.stringify(error));
    assert.equal(error.code, 'P0001');
    assert.equal(error.message, 'Offer not found');
  });
});
