// More of rest through supabase-js, for what the Go tests covered but no
// client did: logic trees (and=, not.or=), is.unknown and isdistinct, !left
// and spread embeds, ranges with their Content-Range and 416, Prefer
// handling=strict and max-affected, the PGRST1xx errors, and the same reads as
// two signed-in users and service_role under RLS keyed on auth.uid(). Each
// expectation is PostgREST's documented answer (PostgREST 13; where 12 differs
// it is said). Same fixture as rest.test.mjs: the "library" schema of
// compat/fixtures/rest.sql, on a stack of its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { USER1, USER2, idsOf, startPgrstStack } from '../fixtures/pgrst-stack.mjs';

let s;
before(async () => { s = await startPgrstStack(); });
after(async () => { await s?.stack.stop(); });

/** Runs a query and returns its rows, failing on an error. */
async function rows(q) {
  const { data, error } = await q;
  assert.equal(error, null, JSON.stringify(error));
  return data;
}

/**
 * A supabase-js client on "library" whose fetch remembers the last response,
 * for the headers the client does not surface (Content-Range,
 * Preference-Applied). role: anon or service.
 */
function traced(role = 'anon') {
  const last = {};
  const key = role === 'service' ? s.stack.serviceRoleKey : s.stack.anonKey;
  const client = s.stack.client(key, {
    global: { fetch: async (...args) => { last.res = await fetch(...args); return last.res; } },
  });
  return { db: client.schema('library'), header: (name) => last.res?.headers.get(name) ?? null };
}

/**
 * postgrest-js has no .and() and no negated .or(): append the logic tree to
 * the builder's URL (the builder's own `url`, as its filter methods do).
 */
const logic = (q, key, tree) => { q.url.searchParams.append(key, `(${tree})`); return q; };

const errorBody = (code, message, details = null, hint = null) => ({ code, details, hint, message });
/** The four keys of a PostgREST error from a supabase-js result. */
const bodyOf = (error) => ({ code: error?.code, details: error?.details, hint: error?.hint, message: error?.message });

describe('logic trees and operators', () => {
  const books = () => s.lib().from('books').select('id').order('id');

  test('top-level and=(...)', async () => {
    assert.deepEqual(idsOf(await rows(logic(books(), 'and', 'price.gt.10,pages.lt.250'))), [1, 3, 4]);
  });

  test('and=(...) with a nested or() and a negated and()', async () => {
    assert.deepEqual(idsOf(await rows(logic(books(), 'and', 'author_id.eq.2,or(pages.lt.220,in_print.is.false)'))), [3, 4]);
    // NOT (a AND b) is NULL for book 6 (null author and price): not returned.
    assert.deepEqual(idsOf(await rows(logic(books(), 'and', 'not.and(author_id.eq.1,price.gt.13),id.lte.6'))), [1, 3, 4, 5]);
  });

  test('not.or=(...)', async () => {
    // NOT (author_id = 1 OR price IS NULL): 1 and 2 are Ngũgĩ's, 6 has no price.
    assert.deepEqual(idsOf(await rows(logic(books(), 'not.or', 'author_id.eq.1,price.is.null'))), [3, 4, 5]);
  });

  test('not.and=(...) combined with a column filter', async () => {
    assert.deepEqual(idsOf(await rows(logic(books().not('author_id', 'is', null), 'not.and', 'author_id.eq.1,price.gt.13'))), [1, 3, 4, 5]);
  });

  test('or() inside an embed via referencedTable, and=(...) on the embed', async () => {
    const q = s.lib().from('authors').select('id, books!books_author_id_fkey(id)').eq('id', 1).order('id', { referencedTable: 'books' });
    assert.deepEqual(await rows(logic(q, 'books.and', 'pages.gt.100,price.lt.13')), [{ id: 1, books: [{ id: 1 }] }]);
  });

  test('is.unknown on a boolean', async () => {
    const svc = s.lib('service');
    assert.equal((await svc.from('books').insert({ id: 50, title: 'Undecided', in_print: null })).error, null);
    try {
      assert.deepEqual(idsOf(await rows(books().is('in_print', 'unknown'))), [50]);
      assert.deepEqual(idsOf(await rows(books().filter('in_print', 'is', 'unknown'))), [50]);
      assert.deepEqual(idsOf(await rows(books().not('in_print', 'is', 'unknown'))), [1, 2, 3, 4, 5, 6]);
      // unknown is IS UNKNOWN, not a value: is.null finds the same row.
      assert.deepEqual(idsOf(await rows(books().is('in_print', null))), [50]);
    } finally {
      assert.equal((await svc.from('books').delete().eq('id', 50)).error, null);
    }
    assert.deepEqual(await rows(books().is('in_print', 'unknown')), []);
  });

  test('isdistinct treats NULL as a value', async () => {
    // editor_id: 1 -> 2, 3 -> 1, others null; author_id of 6 is null.
    assert.deepEqual(idsOf(await rows(books().isDistinct('author_id', 1))), [3, 4, 5, 6]);
    assert.deepEqual(idsOf(await rows(books().neq('author_id', 1))), [3, 4, 5], 'neq drops the null');
    assert.deepEqual(idsOf(await rows(books().not('editor_id', 'isdistinct', 1))), [3]);
    const authors = await rows(s.lib().from('authors').select('id').filter('country', 'isdistinct', 'Kenya').order('id'));
    assert.deepEqual(idsOf(authors), [2, 4]);
  });
});

describe('embedding', () => {
  const NGUGI = 'Ngũgĩ wa Thiong\'o';

  test('!left keeps parents whose embed is null or filtered out', async () => {
    const nulls = await rows(s.lib().from('books').select('id, authors!books_author_id_fkey!left(name)').in('id', [5, 6]).order('id'));
    assert.deepEqual(nulls, [{ id: 5, authors: { name: 'Margaret Ogola' } }, { id: 6, authors: null }]);
    const filtered = await rows(s.lib().from('books').select('id, authors!author_id!left(name)').eq('authors.country', 'Kenya').order('id'));
    assert.deepEqual(filtered, [
      { id: 1, authors: { name: NGUGI } }, { id: 2, authors: { name: NGUGI } }, { id: 3, authors: null },
      { id: 4, authors: null }, { id: 5, authors: { name: 'Margaret Ogola' } }, { id: 6, authors: null },
    ]);
  });

  test('spread on a many-to-one lifts the columns (null when no parent)', async () => {
    const data = await rows(s.lib().from('books').select('id, title, ...publishers(publisher:name)').in('id', [1, 3, 5]).order('id'));
    assert.deepEqual(data, [
      { id: 1, title: 'Weep Not, Child', publisher: 'East African Educational' },
      { id: 3, title: 'Things Fall Apart', publisher: 'Heinemann' },
      { id: 5, title: 'The River and the Source', publisher: null },
    ]);
  });

  test('spread on a one-to-one, and a spread !inner filtered', async () => {
    const o2o = await rows(s.lib().from('publishers').select('name, ...publisher_details(address, founded)').order('id'));
    assert.deepEqual(o2o, [{ name: 'East African Educational', address: 'Nairobi', founded: 1965 }, { name: 'Heinemann', address: null, founded: null }]);
    const inner = await rows(s.lib().from('books').select('id, ...authors!author_id!inner(country)').eq('authors.country', 'Kenya').order('id'));
    assert.deepEqual(inner, [{ id: 1, country: 'Kenya' }, { id: 2, country: 'Kenya' }, { id: 5, country: 'Kenya' }]);
  });

  // PostgREST 13 (aggregates enabled, as in this stack): a to-many spread
  // aggregates each column into an array, [] when there are no children.
  // PostgREST 12 refused it: 400 PGRST119 "A spread operation on 'books' is
  // not possible", details "'authors' and 'books' do not form a many-to-one or
  // one-to-one relationship". The spec (§1.2) follows 13.
  test('spread on a one-to-many: columns become arrays (PostgREST 13)', async () => {
    // The order inside the arrays is unspecified, but the same for every
    // column of one spread: compare the zipped (title, pages) pairs as sets.
    const data = await rows(s.lib().from('authors').select('name, ...books!books_author_id_fkey(title, pages)').order('id'));
    const zipped = data.map((a) => {
      assert.deepEqual(Object.keys(a), ['name', 'title', 'pages']);
      assert.ok(Array.isArray(a.title) && Array.isArray(a.pages), JSON.stringify(a));
      return { name: a.name, books: a.title.map((t, i) => [t, a.pages[i]]).sort() };
    });
    assert.deepEqual(zipped, [
      { name: NGUGI, books: [['Petals of Blood', 345], ['Weep Not, Child', 154]] },
      { name: 'Chinua Achebe', books: [['Arrow of God', 230], ['Things Fall Apart', 209]] },
      { name: 'Margaret Ogola', books: [['The River and the Source', 296]] },
      { name: 'Anonymous', books: [] },
    ]);
    const aliased = await rows(s.lib().from('authors').select('id, ...books!books_author_id_fkey(titles:title)').eq('id', 3));
    assert.deepEqual(aliased, [{ id: 3, titles: ['The River and the Source'] }]);
  });

  test('presence filters on a to-many spread (PostgREST 13)', async () => {
    const none = await rows(s.lib().from('authors').select('name, ...books!books_author_id_fkey(title)').is('books', null));
    assert.deepEqual(none, [{ name: 'Anonymous', title: [] }]);
    const some = await rows(s.lib().from('authors').select('id, ...books!books_author_id_fkey(title)').not('books', 'is', null).order('id'));
    assert.deepEqual(idsOf(some), [1, 2, 3]);
  });
});

describe('ranges and counts', () => {
  test('.range() with count=exact: 206 and Content-Range', async () => {
    const t = traced();
    const res = await t.db.from('books').select('id', { count: 'exact' }).order('id').range(1, 2);
    assert.equal(res.error, null);
    assert.equal(res.status, 206);
    assert.equal(res.count, 6);
    assert.deepEqual(idsOf(res.data), [2, 3]);
    assert.equal(t.header('content-range'), '1-2/6');
    assert.equal(t.header('preference-applied'), 'count=exact');
  });

  test('.range() without a count: 200 and an open total', async () => {
    const t = traced();
    const res = await t.db.from('books').select('id').order('id').range(1, 2);
    assert.equal(res.status, 200);
    assert.equal(res.count, null);
    assert.equal(t.header('content-range'), '1-2/*');
  });

  test('.range() covering every row is 200; starting at the total is 206 with */N', async () => {
    const t = traced();
    const all = await t.db.from('books').select('id', { count: 'exact' }).order('id').range(0, 9);
    assert.equal(all.status, 200);
    assert.equal(t.header('content-range'), '0-5/6');
    const end = await t.db.from('books').select('id', { count: 'exact' }).order('id').range(6, 9);
    assert.equal(end.status, 206);
    assert.deepEqual(end.data, []);
    assert.equal(end.count, 6);
    assert.equal(t.header('content-range'), '*/6');
  });

  test('a Range header: 206 with its Content-Range', async () => {
    const t = traced();
    const res = await t.db.from('books').select('id', { count: 'exact' }).order('id').setHeader('Range-Unit', 'items').setHeader('Range', '0-1');
    assert.equal(res.status, 206);
    assert.deepEqual(idsOf(res.data), [1, 2]);
    assert.equal(t.header('content-range'), '0-1/6');
  });

  const outOfBounds = errorBody('PGRST103', 'Requested range not satisfiable', 'An offset of 10 was requested, but there are only 6 rows.');

  test('a Range header past the end with a count: 416 PGRST103', async () => {
    const res = await s.lib().from('books').select('id', { count: 'exact' }).order('id').setHeader('Range', '10-20');
    assert.equal(res.status, 416);
    assert.deepEqual(bodyOf(res.error), outOfBounds);
    const viaOffset = await s.lib().from('books').select('id', { count: 'exact' }).order('id').range(10, 20);
    assert.equal(viaOffset.status, 416);
    assert.deepEqual(bodyOf(viaOffset.error), outOfBounds);
  });

  test('the 416 carries Content-Range */N', async () => {
    const t = traced();
    const res = await t.db.from('books').select('id', { count: 'exact' }).order('id').setHeader('Range', '10-20');
    assert.equal(res.status, 416);
    assert.equal(t.header('content-range'), '*/6');
    const viaOffset = await t.db.from('books').select('id', { count: 'exact' }).order('id').range(10, 20);
    assert.equal(viaOffset.status, 416);
    assert.equal(t.header('content-range'), '*/6');
  });

  test('past the end without a count: 200, empty, */*', async () => {
    const t = traced();
    const res = await t.db.from('books').select('id').order('id').setHeader('Range', '10-20');
    assert.equal(res.status, 200);
    assert.deepEqual(res.data, []);
    assert.equal(t.header('content-range'), '*/*');
  });

  test('a Range header whose lower bound is above its upper: 416', async () => {
    const res = await s.lib().from('books').select('id').setHeader('Range', '3-1');
    assert.equal(res.status, 416);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST103', 'Requested range not satisfiable',
      'The lower boundary must be lower than or equal to the upper boundary in the Range header.'));
  });
});

describe('Prefer', () => {
  test('handling=strict with an invalid preference: 400 PGRST122', async () => {
    const res = await s.lib().from('books').select('id').eq('id', 1).setHeader('Prefer', 'handling=strict, foo=bar');
    assert.equal(res.status, 400);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST122', 'Invalid preferences given with handling=strict', 'Invalid preferences: foo=bar'));
    const bad = await s.lib().from('books').select('id').eq('id', 1).setHeader('Prefer', 'handling=strict, count=exact, return=nope, foo');
    assert.deepEqual(bodyOf(bad.error), errorBody('PGRST122', 'Invalid preferences given with handling=strict', 'Invalid preferences: return=nope, foo'));
  });

  test('handling=strict with valid preferences, and lenient ignoring the unknown', async () => {
    const t = traced();
    const strict = await t.db.from('books').select('id', { count: 'exact' }).eq('id', 1).setHeader('Prefer', 'handling=strict, count=exact');
    assert.equal(strict.error, null);
    assert.equal(strict.count, 1);
    assert.equal(t.header('preference-applied'), 'count=exact, handling=strict');
    const lenient = await t.db.from('books').select('id').eq('id', 1).setHeader('Prefer', 'handling=lenient, foo=bar');
    assert.equal(lenient.status, 200);
    assert.deepEqual(lenient.data, [{ id: 1 }]);
    assert.equal(t.header('preference-applied'), 'handling=lenient');
  });

  test('maxAffected(): PGRST124 over the limit, rolled back; applied within it', async () => {
    const over = await s.lib('service').from('books').update({ pages: 1 }).eq('author_id', 1).select('id').maxAffected(1);
    assert.equal(over.status, 400);
    assert.deepEqual(bodyOf(over.error), errorBody('PGRST124', 'Query result exceeds max-affected preference constraint', 'The query affects 2 rows'));
    assert.deepEqual(await rows(s.lib().from('books').select('id, pages').eq('author_id', 1).order('id')), [{ id: 1, pages: 154 }, { id: 2, pages: 345 }]);

    const t = traced('service');
    const within = await t.db.from('books').update({ pages: 154 }).eq('id', 1).select('id, pages').maxAffected(1);
    assert.equal(within.status, 200);
    assert.deepEqual(within.data, [{ id: 1, pages: 154 }]);
    assert.equal(t.header('preference-applied'), 'return=representation, handling=strict, max-affected=1');
  });

  test('max-affected is ignored without handling=strict', async () => {
    const t = traced('service');
    const res = await t.db.from('books').update({ pages: 2 }).eq('author_id', 1).setHeader('Prefer', 'max-affected=1, tx=rollback');
    assert.equal(res.error, null);
    assert.equal(res.status, 204);
    assert.equal(t.header('preference-applied'), 'tx=rollback');
    assert.deepEqual(await rows(s.lib().from('books').select('pages').eq('id', 2)), [{ pages: 345 }]);
  });

  test('maxAffected() on rpc: PGRST124 for a set, PGRST128 for a scalar', async () => {
    const set = await s.lib().rpc('books_by', { author: 1 }).maxAffected(1);
    assert.equal(set.status, 400);
    assert.deepEqual(bodyOf(set.error), errorBody('PGRST124', 'Query result exceeds max-affected preference constraint', 'The query affects 2 rows'));
    const ok = await s.lib().rpc('books_by', { author: 1 }).select('id').maxAffected(2);
    assert.deepEqual(idsOf(ok.data), [1, 2]);
    const scalar = await s.lib().rpc('add', { a: 1, b: 2 }).maxAffected(1);
    assert.equal(scalar.status, 400);
    assert.deepEqual(bodyOf(scalar.error), errorBody('PGRST128', 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict'));
  });
});

describe('errors', () => {
  test('PGRST100: an unknown operator', async () => {
    const res = await s.lib().from('books').select('id').filter('id', 'zz', 1);
    assert.equal(res.status, 400);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST100', '"failed to parse filter (zz.1)" (line 1, column 1)',
      'unexpected "z" expecting "not" or operator (eq, gt, ...)'));
  });

  test('PGRST100: an unclosed embed in select', async () => {
    const res = await s.lib().from('books').select('id,authors(name');
    assert.equal(res.status, 400);
    assert.equal(res.error.code, 'PGRST100');
    assert.equal(res.error.message, '"failed to parse select parameter (id,authors(name)" (line 1, column 16)');
    // Parsec's "expecting" list is PostgREST's own grammar; only its start is shared.
    assert.match(res.error.details, /^unexpected end of input expecting /);
    assert.equal(res.error.hint, null);
  });

  test('PGRST102: an empty body, and keys that do not match', async () => {
    const empty = await s.lib('service').from('genres').insert(undefined);
    assert.equal(empty.status, 400);
    assert.deepEqual(bodyOf(empty.error), errorBody('PGRST102', 'Empty or invalid json'));
    const res = await s.raw('/genres', {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.stack.serviceRoleKey}` },
      body: JSON.stringify([{ id: 400, name: 'a' }, { id: 401 }]),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), errorBody('PGRST102', 'All object keys must match'));
    const invalid = await s.raw('/genres', {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.stack.serviceRoleKey}` }, body: '{"id": ',
    });
    assert.equal(invalid.status, 400);
    assert.deepEqual(await invalid.json(), errorBody('PGRST102', 'Empty or invalid json'));
  });

  // PostgREST 13 wording; 12 said "The schema must be one of the following: public, library" with no hint.
  test('PGRST106: .schema() not exposed', async () => {
    const res = await s.roles.anon.schema('nope').from('authors').select('id');
    assert.equal(res.status, 406);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST106', 'Invalid schema: nope', null, 'Only the following schemas are exposed: public, library'));
    const write = await s.roles.service.schema('nope').from('authors').insert({ id: 500, name: 'x' });
    assert.equal(write.status, 406);
    assert.equal(write.error.code, 'PGRST106');
  });

  test('PGRST108: filter, order and limit on a resource not embedded', async () => {
    const want = errorBody('PGRST108', "'authors' is not an embedded resource in this request", null,
      "Verify that 'authors' is included in the 'select' query parameter.");
    const filter = await s.lib().from('books').select('id').eq('authors.name', 'x');
    assert.equal(filter.status, 400);
    assert.deepEqual(bodyOf(filter.error), want);
    const order = await s.lib().from('books').select('id').order('name', { referencedTable: 'authors' });
    assert.deepEqual(bodyOf(order.error), want);
    const limit = await s.lib().from('books').select('id').limit(1, { referencedTable: 'authors' });
    assert.deepEqual(bodyOf(limit.error), want);
    const or = await s.lib().from('books').select('id').or('name.eq.x', { referencedTable: 'authors' });
    assert.deepEqual(bodyOf(or.error), want);
  });

  test('PGRST116: single() with 0 and with several rows', async () => {
    const none = await s.lib().from('authors').select('name').eq('id', 99).single();
    assert.equal(none.status, 406);
    assert.deepEqual(bodyOf(none.error), errorBody('PGRST116', 'Cannot coerce the result to a single JSON object', 'The result contains 0 rows'));
    const many = await s.lib().from('authors').select('name').single();
    assert.equal(many.status, 406);
    assert.deepEqual(bodyOf(many.error), errorBody('PGRST116', 'Cannot coerce the result to a single JSON object', 'The result contains 4 rows'));
  });

  test('PGRST116 on a write rolls it back', async () => {
    const res = await s.lib('service').from('books').update({ price: 2 }).eq('author_id', 2).select('id').single();
    assert.equal(res.status, 406);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST116', 'Cannot coerce the result to a single JSON object', 'The result contains 2 rows'));
    assert.deepEqual(await rows(s.lib().from('books').select('price').eq('author_id', 2).order('id')), [{ price: 10.99 }, { price: 11.5 }]);
  });

  test('PGRST118: ordering by a to-many embed', async () => {
    const res = await s.lib().from('authors').select('id, books!books_author_id_fkey(id)').order('books(title)');
    assert.equal(res.status, 400);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST118', "A related order on 'books' is not possible",
      "'authors' and 'books' do not form a many-to-one or one-to-one relationship"));
  });

  test('PGRST120: an operator other than is null on an embed', async () => {
    const res = await s.lib().from('authors').select('id, books!books_author_id_fkey(id)').eq('books', 1);
    assert.equal(res.status, 400);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST120', "Bad operator on the 'books' embedded resource",
      'Only is null or not is null filters are allowed on embedded resources'));
  });

  test('PGRST125: a path below a table', async () => {
    const res = await s.lib().from('books/extra').select('id');
    assert.equal(res.status, 404);
    assert.deepEqual(bodyOf(res.error), errorBody('PGRST125', 'Invalid path specified in request URL'));
  });
});

describe('the same reads under RLS (auth.uid())', () => {
  // Reviews 1 (user1) and 2 (user2) are public; 3 (user1) and 4 (user2) private.
  const roles = ['anon', 'user1', 'user2', 'service'];
  const reads = [
    ['private only', (q) => q.eq('private', true), { anon: [], user1: [3], user2: [4], service: [3, 4] }],
    ['one book', (q) => q.eq('book_id', 3), { anon: [], user1: [3], user2: [4], service: [3, 4] }],
    ['or()', (q) => q.or('private.eq.true,rating.gte.5'), { anon: [1], user1: [1, 3], user2: [1, 4], service: [1, 3, 4] }],
    ['another user\'s rows', (q) => q.eq('user_id', USER2), { anon: [2], user1: [2], user2: [2, 4], service: [2, 4] }],
    ['not()', (q) => q.not('body', 'ilike', '%note%'), { anon: [1, 2], user1: [1, 2], user2: [1, 2], service: [1, 2] }],
  ];
  for (const [name, apply, want] of reads) {
    test(name, async () => {
      for (const role of roles) {
        const { data, error, count, status } = await apply(s.lib(role).from('reviews').select('id, user_id', { count: 'exact' })).order('id');
        assert.equal(error, null, `${role}: ${JSON.stringify(error)}`);
        assert.equal(status, 200, role);
        assert.deepEqual(idsOf(data), want[role], role);
        assert.equal(count, want[role].length, role);
      }
    });
  }

  test('each user sees only their own private rows, owned by them', async () => {
    const u1 = await rows(s.lib('user1').from('reviews').select('id, user_id, body').eq('private', true));
    assert.deepEqual(u1, [{ id: 3, user_id: USER1, body: 'My private note' }]);
    const u2 = await rows(s.lib('user2').from('reviews').select('id, user_id, body').eq('private', true));
    assert.deepEqual(u2, [{ id: 4, user_id: USER2, body: 'Their private note' }]);
  });

  test('head counts and an embed follow the policies', async () => {
    const want = { anon: 2, user1: 3, user2: 3, service: 4 };
    for (const role of roles) {
      const { count, status } = await s.lib(role).from('reviews').select('*', { count: 'exact', head: true });
      assert.equal(status, 200, role);
      assert.equal(count, want[role], role);
    }
    const embedded = { anon: [1, 2], user1: [1, 2, 3], user2: [1, 2, 4], service: [1, 2, 3, 4] };
    for (const role of roles) {
      const data = await rows(s.lib(role).from('books').select('id, reviews(id)').in('id', [1, 3]).order('id').order('id', { referencedTable: 'reviews' }));
      assert.deepEqual(data.flatMap((b) => idsOf(b.reviews)), embedded[role], role);
    }
  });

  test('a function filtering on auth.uid()', async () => {
    const want = { anon: [], user1: [1, 3], user2: [2, 4], service: [] };
    for (const role of roles) {
      assert.deepEqual(idsOf(await rows(s.lib(role).rpc('my_reviews').select('id'))), want[role], role);
    }
    assert.deepEqual(idsOf(await rows(s.lib('user1').rpc('my_reviews').select('id').eq('private', true))), [3]);
  });
});
