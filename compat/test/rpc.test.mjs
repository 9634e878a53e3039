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
  const exists = async (fn) => {
    const { error } = await s.app.service.rpc(fn, { __probe__: 1 });
    return !(error?.code === 'PGRST202' && !error.hint?.includes(`public.${fn}(`));
  };

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

  test('suspend_user with a null reason returns the row', async () => {
    const { data, error } = await s.app.admin.rpc('suspend_user', { p_user_id: OTIENO, p_admin_id: ADMIN, p_suspension_type: '10_days', p_reason: null });
    if (error) {
      // Business rules belong to the migrations; the wire shape is ours.
      assert.match(error.code, /^(P0001|22023|23514|42501)$/, JSON.stringify(error));
      return;
    }
    assert.equal(typeof data, 'object');
    assert.equal(data.user_id, OTIENO);
    const info = await s.app.admin.rpc('get_user_suspension_info', { p_user_id: OTIENO });
    assert.equal(info.data.length, 1);
  });

  test('process_kyc_verification answers JSON or a PostgREST error', async () => {
    const kyc = await s.app.admin.from('kyc_verifications').select('id').eq('user_id', WANJIKU).single();
    const { error, status } = await s.app.admin.rpc('process_kyc_verification', { p_kyc_id: kyc.data.id, p_admin_id: ADMIN, p_action: 'approve', p_notes: 'ok' });
    assert.ok(status === 200 || status === 204 || (error && status === 400), `status ${status} ${JSON.stringify(error)}`);
    const bad = await s.app.admin.rpc('process_kyc_verification', { p_kyc_id: kyc.data.id, p_admin_id: ADMIN, p_action: 'bogus', p_notes: null });
    assert.equal(bad.status, 400);
    assert.ok(['P0001', '22023', '23514'].includes(bad.error.code), JSON.stringify(bad.error));
  });

  test('lock_currency_in_escrow refuses an unknown offer with the function\'s message', async () => {
    const { status, error } = await s.app.wanjiku.rpc('lock_currency_in_escrow', { p_offer_id: '00000000-0000-0000-0000-000000000000', p_buyer_id: WANJIKU, p_amount: 1 });
    assert.equal(status, 400, JSON.stringify(error));
    assert.equal(error.code, 'P0001');
    assert.equal(error.message, 'Offer not found');
  });
});
