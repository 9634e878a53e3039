// rest through supabase-js: PostgREST's documented results for every filter
// operator, embedding form, Prefer option, count mode, single-object and
// CSV response and upsert mode, as anon, two signed-in users and
// service_role, against the fixture schema "library"
// (compat/fixtures/rest.sql); then the app's exact calls
// (shared/spec/app-wire-calls.md) against the marketplace tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, OTIENO, USER1, USER2, WANJIKU, idsOf, startPgrstStack } from '../fixtures/pgrst-stack.mjs';

let s;
before(async () => { s = await startPgrstStack(); });
after(async () => { await s?.stack.stop(); });

const NGUGI = 'Ngũgĩ wa Thiong\'o';

/** Runs a query and returns its rows, failing on an error. */
async function rows(q) {
  const { data, error } = await q;
  assert.equal(error, null, JSON.stringify(error));
  return data;
}

describe('filters', () => {
  const books = () => s.lib().from('books').select('id').order('id');
  const cases = [
    ['eq', (q) => q.eq('author_id', 1), [1, 2]],
    ['neq', (q) => q.neq('author_id', 1), [3, 4, 5]],
    ['gt', (q) => q.gt('price', 11.5), [1, 2]],
    ['gte', (q) => q.gte('price', 11.5), [1, 2, 4]],
    ['lt', (q) => q.lt('price', 10.99), [5]],
    ['lte', (q) => q.lte('price', 10.99), [3, 5]],
    ['like', (q) => q.like('title', '%Fall%'), [3]],
    ['ilike', (q) => q.ilike('title', '%THE%'), [5]],
    ['likeAnyOf', (q) => q.likeAnyOf('title', ['Weep%', 'Arrow%']), [1, 4]],
    ['likeAllOf', (q) => q.likeAllOf('title', ['%o%', '%d%']), [1, 2, 4, 5]],
    ['ilikeAnyOf', (q) => q.ilikeAnyOf('title', ['weep%', 'arrow%']), [1, 4]],
    ['match via filter', (q) => q.filter('title', 'match', '^T'), [3, 5]],
    ['regexMatch', (q) => q.regexMatch('title', '^T'), [3, 5]],
    ['regexIMatch', (q) => q.regexIMatch('title', '^t'), [3, 5]],
    ['in', (q) => q.in('id', [1, 3, 5]), [1, 3, 5]],
    ['in with commas', (q) => q.in('title', ['Weep Not, Child', 'Arrow of God']), [1, 4]],
    ['not in', (q) => q.not('id', 'in', '(1,2,3,4)'), [5, 6]],
    ['notIn', (q) => (q.notIn ? q.notIn('id', [1, 2, 3, 4]) : q.not('id', 'in', '(1,2,3,4)')), [5, 6]],
    ['is null', (q) => q.is('author_id', null), [6]],
    ['not is null', (q) => q.not('editor_id', 'is', null), [1, 3]],
    ['is false', (q) => q.is('in_print', false), [4]],
    ['isDistinct', (q) => (q.isDistinct ? q.isDistinct('editor_id', 1) : q.filter('editor_id', 'isdistinct', 1)), [1, 2, 4, 5, 6]],
    ['contains array', (q) => q.contains('tags', ['kenya']), [1, 2, 5]],
    ['containedBy array', (q) => q.containedBy('tags', ['classic', 'kenya', 'nigeria']), [1, 3, 4, 6]],
    ['overlaps array', (q) => q.overlaps('tags', ['politics', 'family']), [2, 5]],
    ['contains jsonb', (q) => q.contains('metadata', { edition: 1 }), [1]],
    ['textSearch', (q) => q.textSearch('search', 'mau'), [1]],
    ['textSearch plain', (q) => q.textSearch('search', 'coming colonialism', { type: 'plain' }), [3]],
    ['textSearch phrase', (q) => q.textSearch('search', 'four generations', { type: 'phrase', config: 'english' }), [5]],
    ['textSearch websearch', (q) => q.textSearch('search', 'kenyan women', { type: 'websearch', config: 'english' }), [5]],
    ['textSearch on text column', (q) => q.textSearch('summary', 'okonkwo', { config: 'english' }), [3]],
    ['match object', (q) => q.match({ author_id: 2, in_print: true }), [3]],
    ['not', (q) => q.not('price', 'gt', 11), [3, 5]],
    ['or', (q) => q.or('author_id.eq.3,price.gt.14'), [2, 5]],
    ['or nested and', (q) => q.or('and(author_id.eq.1,price.lt.13),id.eq.5'), [1, 5]],
    ['filter verbatim', (q) => q.filter('id', 'in', '(2,4)'), [2, 4]],
    ['json path', (q) => q.eq('metadata->>isbn', '978-0143106692'), [1]],
    ['json path json value', (q) => q.eq('metadata->edition', 2), [2]],
  ];
  for (const [name, apply, want] of cases) {
    test(name, async () => {
      assert.deepEqual(idsOf(await rows(apply(books()))), want);
    });
  }

  test('range operators', async () => {
    const ev = () => s.lib().from('events').select('id').order('id');
    assert.deepEqual(idsOf(await rows(ev().rangeLt('seats', '[100,200)'))), [1, 2]);
    assert.deepEqual(idsOf(await rows(ev().rangeGt('seats', '[0,1)'))), [1, 2]);
    assert.deepEqual(idsOf(await rows(ev().rangeLte('seats', '[1,60)'))), [1]);
    assert.deepEqual(idsOf(await rows(ev().rangeGte('seats', '[40,60)'))), [2]);
    assert.deepEqual(idsOf(await rows(ev().rangeAdjacent('seats', '[100,120)'))), [2]);
    assert.deepEqual(idsOf(await rows(ev().overlaps('during', '[2024-03-01 11:00+00,2024-03-01 13:00+00)'))), [1]);
  });
});

describe('selection, order and pagination', () => {
  test('columns, aliases, casts, JSON paths', async () => {
    const data = await rows(s.lib().from('books').select('id, isbn:metadata->>isbn, metadata->edition, cost:price::text').eq('id', 1));
    assert.deepEqual(data, [{ id: 1, isbn: '978-0143106692', edition: 1, cost: '12.50' }]);
  });

  test('order with nulls and limit/range', async () => {
    assert.deepEqual(idsOf(await rows(s.lib().from('books').select('id').order('editor_id', { ascending: false, nullsFirst: false }).order('id'))), [1, 3, 2, 4, 5, 6]);
    assert.deepEqual(idsOf(await rows(s.lib().from('books').select('id').order('id').limit(2))), [1, 2]);
    assert.deepEqual(idsOf(await rows(s.lib().from('books').select('id').order('id').range(2, 3))), [3, 4]);
  });

  test('counts: exact, planned, estimated, head', async () => {
    const exact = await s.lib().from('authors').select('id', { count: 'exact' }).limit(2);
    assert.equal(exact.count, 4);
    assert.equal(exact.status, 206);
    const planned = await s.lib().from('authors').select('id', { count: 'planned' });
    assert.equal(planned.count, 4);
    const estimated = await s.lib().from('authors').select('id', { count: 'estimated' });
    assert.equal(estimated.count, 4);
    const head = await s.lib().from('books').select('*', { count: 'exact', head: true }).eq('in_print', true);
    assert.equal(head.count, 5);
    assert.equal(head.data, null);
    assert.equal(head.status, 200);
  });

  test('single and maybeSingle', async () => {
    const one = await s.lib().from('authors').select('name').eq('id', 2).single();
    assert.deepEqual(one.data, { name: 'Chinua Achebe' });
    const none = await s.lib().from('authors').select('name').eq('id', 99).single();
    assert.equal(none.status, 406);
    assert.equal(none.error.code, 'PGRST116');
    assert.equal(none.error.details, 'The result contains 0 rows');
    const many = await s.lib().from('authors').select('name').single();
    assert.equal(many.error.code, 'PGRST116');
    const maybe = await s.lib().from('authors').select('name').eq('id', 99).maybeSingle();
    assert.equal(maybe.error, null);
    assert.equal(maybe.data, null);
    const maybeOne = await s.lib().from('authors').select('name').eq('id', 3).maybeSingle();
    assert.deepEqual(maybeOne.data, { name: 'Margaret Ogola' });
  });

  test('csv', async () => {
    const { data, error } = await s.lib().from('authors').select('id,country').lte('id', 2).order('id').csv();
    assert.equal(error, null);
    assert.equal(data, 'id,country\n1,Kenya\n2,Nigeria');
  });

  test('stripNulls', async () => {
    const data = await rows(s.lib().from('authors').select('id,country').eq('id', 4).stripNulls());
    assert.deepEqual(data, [{ id: 4 }]);
  });

  test('aggregates', async () => {
    const data = await rows(s.lib().from('books').select('author_id, count()').not('author_id', 'is', null).order('author_id'));
    assert.deepEqual(data, [{ author_id: 1, count: 2 }, { author_id: 2, count: 2 }, { author_id: 3, count: 1 }]);
    const sums = await rows(s.lib().from('books').select('price.sum(), pages.max()'));
    assert.deepEqual(sums, [{ sum: 58.99, max: 345 }]);
  });
});

describe('embedding', () => {
  test('many-to-one with constraint hint, and a null parent', async () => {
    const data = await rows(s.lib().from('books').select('id, authors!books_author_id_fkey(name)').in('id', [1, 6]).order('id'));
    assert.deepEqual(data, [{ id: 1, authors: { name: NGUGI } }, { id: 6, authors: null }]);
  });

  test('column hints with aliases', async () => {
    const data = await rows(s.lib().from('books').select('author:authors!author_id(name), editor:authors!editor_id(name)').eq('id', 1));
    assert.deepEqual(data, [{ author: { name: NGUGI }, editor: { name: 'Chinua Achebe' } }]);
  });

  test('one-to-many, filtered, ordered and limited inside', async () => {
    const data = await rows(s.lib().from('authors').select('name, books!books_author_id_fkey(id)').eq('id', 1)
      .gt('books.price', 10).order('id', { referencedTable: 'books', ascending: false }).limit(1, { referencedTable: 'books' }));
    assert.deepEqual(data, [{ name: NGUGI, books: [{ id: 2 }] }]);
  });

  test('many-to-many and one-to-one', async () => {
    const m2m = await rows(s.lib().from('books').select('id, genres(name)').eq('id', 2).order('name', { referencedTable: 'genres' }));
    assert.deepEqual(m2m, [{ id: 2, genres: [{ name: 'Fiction' }, { name: 'Politics' }] }]);
    const o2o = await rows(s.lib().from('publishers').select('name, publisher_details(address)').order('id'));
    assert.deepEqual(o2o, [{ name: 'East African Educational', publisher_details: { address: 'Nairobi' } }, { name: 'Heinemann', publisher_details: null }]);
  });

  test('self relationship', async () => {
    const data = await rows(s.lib().from('employees').select('name, manager:manager_id(name), reports:employees(name)').eq('id', 2));
    assert.deepEqual(data, [{ name: 'Otieno', manager: { name: 'Wanjiru' }, reports: [{ name: 'Kamau' }] }]);
  });

  test('!inner filters parents, counted', async () => {
    const { data, count } = await s.lib().from('books').select('id, authors!books_author_id_fkey!inner(country)', { count: 'exact' })
      .eq('authors.country', 'Kenya').order('id');
    assert.deepEqual(idsOf(data), [1, 2, 5]);
    assert.equal(count, 3);
  });

  test('presence filters on an embed', async () => {
    const none = await rows(s.lib().from('authors').select('name, books!books_author_id_fkey(id)').is('books', null));
    assert.deepEqual(none, [{ name: 'Anonymous', books: [] }]);
    const some = await rows(s.lib().from('authors').select('id, books!books_author_id_fkey()').not('books', 'is', null).order('id'));
    assert.deepEqual(some, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  test('spread and related order', async () => {
    const spread = await rows(s.lib().from('books').select('id, ...authors!books_author_id_fkey(author:name)').eq('id', 3));
    assert.deepEqual(spread, [{ id: 3, author: 'Chinua Achebe' }]);
    const ordered = await rows(s.lib().from('books').select('id, authors!books_author_id_fkey(name)').not('author_id', 'is', null)
      .order('authors(name)', { ascending: false }).order('id'));
    assert.deepEqual(idsOf(ordered), [1, 2, 5, 3, 4]);
  });

  test('or on a referenced table', async () => {
    const data = await rows(s.lib().from('authors').select('id, books!books_author_id_fkey(id)').eq('id', 2).or('id.eq.4,pages.lt.100', { referencedTable: 'books' }));
    assert.deepEqual(data, [{ id: 2, books: [{ id: 4 }] }]);
  });

  test('view relationships', async () => {
    const data = await rows(s.lib().from('book_view').select('id, authors(name), genres(name)').eq('id', 3).order('name', { referencedTable: 'genres' }));
    assert.deepEqual(data, [{ id: 3, authors: { name: 'Chinua Achebe' }, genres: [{ name: 'Fiction' }, { name: 'History' }] }]);
  });

  test('ambiguous and missing relationships', async () => {
    const amb = await s.lib().from('books').select('id, authors(name)');
    assert.equal(amb.status, 300);
    assert.equal(amb.error.code, 'PGRST201');
    assert.equal(amb.error.details.length, 2);
    const none = await s.lib().from('authors').select('name, genres(name)');
    assert.equal(none.status, 400);
    assert.equal(none.error.code, 'PGRST200');
  });
});

describe('writes', () => {
  test('insert minimal returns 201 with no body', async () => {
    const { data, error, status } = await s.lib('service').from('genres').insert({ id: 100, name: 'Poetry' });
    assert.equal(error, null);
    assert.equal(status, 201);
    assert.equal(data, null);
  });

  test('insert representation, bulk with columns and count', async () => {
    const { data, count, status } = await s.lib('service').from('authors')
      .insert([{ id: 100, name: 'Grace Ogot' }, { id: 101, name: 'Meja Mwangi', country: 'Kenya' }], { count: 'exact' }).select('id, country');
    assert.equal(status, 201);
    assert.equal(count, 2);
    assert.deepEqual(data, [{ id: 100, country: null }, { id: 101, country: 'Kenya' }]);
  });

  test('insert defaults (defaultToNull: false)', async () => {
    const data = await rows(s.lib('service').from('books').insert([{ title: 'Matigari' }], { defaultToNull: false }).select('title, tags, in_print'));
    assert.deepEqual(data, [{ title: 'Matigari', tags: [], in_print: true }]);
  });

  test('upsert: merge by primary key and by on_conflict, ignore duplicates', async () => {
    const merged = await s.lib('service').from('settings').upsert({ key: 'theme', value: 'light' }, { onConflict: 'key' }).select('key, value');
    assert.equal(merged.status, 200, 'only updated');
    assert.deepEqual(merged.data, [{ key: 'theme', value: 'light' }]);
    const inserted = await s.lib('service').from('settings').upsert({ key: 'lang', value: 'sw' }, { onConflict: 'key' }).select('key');
    assert.equal(inserted.status, 201);
    const ignored = await s.lib('service').from('settings').upsert({ key: 'theme', value: 'x' }, { onConflict: 'key', ignoreDuplicates: true }).select('key');
    assert.deepEqual(ignored.data, []);
    const pk = await s.lib('service').from('genres').upsert([{ id: 1, name: 'Fiction' }, { id: 101, name: 'Drama' }]).select('id, name');
    assert.equal(pk.status, 201);
    assert.deepEqual(pk.data, [{ id: 1, name: 'Fiction' }, { id: 101, name: 'Drama' }]);
  });

  test('update and delete with counts and representation', async () => {
    const upd = await s.lib('service').from('books').update({ pages: 300 }, { count: 'exact' }).in('id', [2, 3]).select('id, pages').order('id');
    assert.equal(upd.status, 200);
    assert.equal(upd.count, 2);
    assert.deepEqual(upd.data, [{ id: 2, pages: 300 }, { id: 3, pages: 300 }]);
    const del = await s.lib('service').from('book_genres').delete({ count: 'exact' }).eq('book_id', 5);
    assert.equal(del.status, 204);
    assert.equal(del.count, 1);
  });

  test('unfiltered update and delete are refused', async () => {
    const upd = await s.lib('service').from('books').update({ price: 1 });
    assert.equal(upd.error.code, '21000');
    const del = await s.lib('service').from('genres').delete();
    assert.equal(del.error.code, '21000');
    assert.equal(del.status, 400);
  });

  test('rollback() and maxAffected()', async () => {
    const rb = await s.lib('service').from('genres').insert({ id: 200, name: 'Gone' }).select().rollback();
    assert.deepEqual(rb.data, [{ id: 200, name: 'Gone' }]);
    const after = await rows(s.lib().from('genres').select('id').eq('id', 200));
    assert.deepEqual(after, []);
    const max = await s.lib('service').from('books').update({ price: 1 }).eq('author_id', 2).maxAffected(1);
    assert.equal(max.status, 400);
    assert.equal(max.error.code, 'PGRST124');
    const price = await rows(s.lib().from('books').select('price').eq('id', 3));
    assert.deepEqual(price, [{ price: 10.99 }]);
  });

  test('constraint errors map to PostgREST statuses', async () => {
    const dup = await s.lib('service').from('genres').insert({ id: 2, name: 'Dup' });
    assert.equal(dup.status, 409);
    assert.equal(dup.error.code, '23505');
    const fk = await s.lib('service').from('book_genres').insert({ book_id: 999, genre_id: 1 });
    assert.equal(fk.status, 409);
    assert.equal(fk.error.code, '23503');
    const col = await s.lib('service').from('genres').insert({ id: 3, nope: 1 });
    assert.equal(col.status, 400);
    assert.equal(col.error.code, 'PGRST204');
  });
});

describe('roles and RLS', () => {
  test('reads follow the policies', async () => {
    const want = { anon: [1, 2], user1: [1, 2, 3], user2: [1, 2, 4], service: [1, 2, 3, 4] };
    for (const [role, ids] of Object.entries(want)) {
      assert.deepEqual(idsOf(await rows(s.lib(role).from('reviews').select('id').lte('id', 4).order('id'))), ids, role);
    }
  });

  test('users write only their own rows', async () => {
    const own = await s.lib('user1').from('reviews').insert({ book_id: 2, rating: 5 }).select('user_id');
    assert.equal(own.status, 201);
    assert.deepEqual(own.data, [{ user_id: USER1 }]);
    const other = await s.lib('user1').from('reviews').insert({ book_id: 2, rating: 5, user_id: USER2 });
    assert.equal(other.status, 403);
    assert.equal(other.error.code, '42501');
    const anon = await s.lib('anon').from('reviews').insert({ book_id: 2, rating: 5 });
    assert.equal(anon.status, 401);
    assert.equal(anon.error.code, '42501');
    const notMine = await s.lib('user2').from('reviews').update({ rating: 1 }, { count: 'exact' }).eq('id', 1);
    assert.equal(notMine.count, 0);
    const mine = await s.lib('user1').from('reviews').update({ rating: 4 }).eq('id', 1).select('rating');
    assert.deepEqual(mine.data, [{ rating: 4 }]);
  });

  test('privileges: 401 anonymous, 403 signed in', async () => {
    assert.equal((await s.lib('anon').from('secrets').select()).status, 401);
    assert.equal((await s.lib('user2').from('secrets').select()).status, 403);
    assert.deepEqual(await rows(s.lib('service').from('secrets').select()), [{ id: 1, value: 'hidden' }]);
  });
});

describe('wire details', () => {
  test('Content-Range, Preference-Applied, Server-Timing and profiles', async () => {
    const res = await s.raw('/publishers?select=id&limit=1', { headers: { Prefer: 'count=exact' } });
    assert.equal(res.status, 206);
    assert.equal(res.headers.get('content-range'), '0-0/2');
    assert.equal(res.headers.get('preference-applied'), 'count=exact');
    assert.match(res.headers.get('server-timing') ?? '', /transaction;dur=/);
    const bad = await s.raw('/authors', { headers: { 'Accept-Profile': 'nope' } });
    assert.equal(bad.status, 406);
    assert.equal((await bad.json()).code, 'PGRST106');
  });

  test('Location with return=headers-only', async () => {
    const res = await s.raw('/genres', { method: 'POST', headers: { 'Content-Type': 'application/json', Prefer: 'return=headers-only', Authorization: `Bearer ${s.stack.serviceRoleKey}` }, body: JSON.stringify({ id: 300, name: 'Z' }) });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('location'), '/genres?id=eq.300');
  });

  test('errors: missing table with a hint, bad JWT', async () => {
    const missing = await s.lib().from('autors').select();
    assert.equal(missing.status, 404);
    assert.equal(missing.error.code, 'PGRST205');
    assert.equal(missing.error.hint, "Perhaps you meant the table 'library.authors'");
    const res = await s.raw('/authors', { headers: { Authorization: 'Bearer not.a.jwt' } });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
  });

  test('OpenAPI at the root', async () => {
    const res = await s.raw('/', { headers: { Accept: 'application/openapi+json' } });
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.paths['/books'], 'books path');
    assert.ok(doc.definitions.authors.properties.name, 'authors definition');
  });
});

describe("the app's calls", () => {
  const wanjikuRole = async () => s.app.wanjiku.from('user_roles').select('role').eq('user_id', WANJIKU).single();

  test('role of user (single), and 406 for none', async () => {
    const { data, status } = await wanjikuRole();
    assert.equal(status, 200);
    assert.deepEqual(data, { role: 'user' });
    const admin = await s.app.admin.from('user_roles').select('role').eq('user_id', ADMIN).single();
    assert.deepEqual(admin.data, { role: 'admin' });
    const none = await s.app.anon.from('user_roles').select('role').eq('user_id', WANJIKU).single();
    assert.equal(none.status, 406);
    assert.equal(none.error.code, 'PGRST116');
  });

  test('add role: 201, empty body', async () => {
    const { data, error, status } = await s.app.otieno.from('user_roles').insert({ user_id: OTIENO, role: 'user' });
    assert.equal(error, null);
    assert.equal(status, 201);
    assert.equal(data, null);
  });

  test('list profiles newest first (admin) and own profile (user)', async () => {
    const all = await rows(s.app.admin.from('profiles').select('*').order('created_at', { ascending: false }));
    assert.deepEqual(all.map((p) => p.id), [OTIENO, WANJIKU, ADMIN]);
    const own = await rows(s.app.wanjiku.from('profiles').select('*').order('created_at', { ascending: false }));
    assert.deepEqual(own.map((p) => p.full_name), ['Wanjiku']);
  });

  test('dashboard counts with head requests', async () => {
    const profiles = await s.app.admin.from('profiles').select('*', { count: 'exact', head: true });
    assert.equal(profiles.count, 3);
    const kyc = await s.app.admin.from('kyc_verifications').select('*', { count: 'exact', head: true }).eq('verification_status', 'pending');
    assert.equal(kyc.status, 200);
    assert.equal(kyc.count, 2);
    const drones = await s.app.admin.from('service_providers').select('*', { count: 'exact', head: true }).eq('category', 'Drone Services');
    assert.equal(drones.count, 0);
  });

  test('KYC status (single)', async () => {
    const { data } = await s.app.wanjiku.from('kyc_verifications').select('verification_status').eq('user_id', WANJIKU).single();
    assert.deepEqual(data, { verification_status: 'pending' });
  });

  test('properties browse with ilike, eq and order (anonymous)', async () => {
    const q = 'nairobi';
    const data = await rows(s.app.anon.from('properties').select('id, title, location, created_at').eq('is_active', true).ilike('location', `%${q}%`)
      .eq('type', 'One Bedroom').eq('purpose', 'Rent').order('created_at', { ascending: false }));
    assert.deepEqual(data.map((p) => p.title), ['Westlands 1BR', 'Kilimani 1BR']);
  });

  test('my listings and dashboard projections', async () => {
    const mine = await rows(s.app.otieno.from('properties').select('*').eq('user_id', OTIENO).order('created_at', { ascending: false }));
    assert.deepEqual(mine.map((p) => p.title), ['Draft', 'Nyali bedsitter']);
    const proj = await rows(s.app.otieno.from('properties').select('id, is_active, payment_status').eq('user_id', OTIENO).order('created_at'));
    assert.deepEqual(Object.keys(proj[0]).sort(), ['id', 'is_active', 'payment_status']);
  });

  test('toggle service: PATCH 204', async () => {
    const { status, error } = await s.app.wanjiku.from('service_providers').update({ is_active: false }).eq('id', 'cccccccc-0000-0000-0000-000000000001');
    assert.equal(error, null);
    assert.equal(status, 204);
  });

  test('delete profile: 204 even when RLS hides it', async () => {
    const { status, error } = await s.app.wanjiku.from('profiles').delete().eq('id', OTIENO);
    assert.equal(error, null);
    assert.equal(status, 204);
    const still = await s.app.admin.from('profiles').select('id', { count: 'exact', head: true });
    assert.equal(still.count, 3);
  });

  test('upsert on a primary-key table (service role)', async () => {
    const { status, error } = await s.app.service.from('user_verifications')
      .upsert({ user_id: WANJIKU, email_verified: false, updated_at: new Date().toISOString() }, { onConflict: 'user_id' });
    assert.equal(error, null);
    assert.equal(status, 201);
    const again = await s.app.service.from('user_verifications').upsert({ user_id: WANJIKU, email_verified: true });
    assert.equal(again.status, 200, 'only updated');
  });

  test('the app creates an offer and lists offers with the owner\'s name', async () => {
    const offer = {
      user_id: WANJIKU, action: 'buy', currency: 'nestcoins', amount: 100, rate_per_unit: 10,
      min_limit: 50, max_limit: 500, payment_methods: ['M-Pesa', 'Airtel Money'],
      auto_cancel_duration: '1 day', expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    };
    const created = await s.app.wanjiku.from('p2p_offers').insert(offer);
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.equal(created.status, 201);
    const { data, error, status } = await s.app.otieno.from('p2p_offers').select('*, owner:public_profiles(full_name, kyc_verified)')
      .eq('status', 'active').order('created_at', { ascending: false });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(status, 200);
    const mine = data.find((o) => o.user_id === WANJIKU);
    assert.ok(mine, 'the new offer is listed to another user');
    assert.deepEqual(mine.owner, { full_name: 'Wanjiku', kyc_verified: false });
    assert.deepEqual(mine.payment_methods, ['M-Pesa', 'Airtel Money']);

    // The owner's profile row itself (and the phone number in it) is not
    // another user's to read, whether embedded or selected whole.
    const embedded = await s.app.otieno.from('p2p_offers').select('id, profiles(full_name, phone_number)').eq('id', mine.id).single();
    assert.equal(embedded.error, null, JSON.stringify(embedded.error));
    assert.equal(embedded.data.profiles, null);
    const whole = await s.app.otieno.from('profiles').select('*').eq('id', WANJIKU);
    assert.deepEqual(whole.data, []);
    const phone = await s.app.otieno.from('public_profiles').select('phone_number').eq('id', WANJIKU);
    assert.equal(phone.status, 400);
    assert.equal(phone.error.code, '42703');
  });

  test('listing contacts are for signed-in users: a visitor lists columns, select=* is refused', async () => {
    const star = await s.app.anon.from('properties').select('*').eq('is_active', true).limit(1);
    assert.equal(star.status, 401);
    assert.equal(star.error.code, '42501');
    const contact = await s.app.anon.from('products').select('id, contact').limit(1);
    assert.equal(contact.status, 401);
    assert.equal(contact.error.code, '42501');
    const listed = await rows(s.app.anon.from('properties').select('id, title').eq('is_active', true).limit(1));
    assert.equal(listed.length, 1);
    const signedIn = await rows(s.app.otieno.from('properties').select('*').eq('is_active', true).limit(1));
    assert.ok('contact' in signedIn[0]);
  });

  test('an offer below the minimum amount is refused with the spec\'s message', async () => {
    const { error, status } = await s.app.wanjiku.from('p2p_offers').insert({
      user_id: WANJIKU, action: 'buy', currency: 'keys', amount: 5, rate_per_unit: 10,
      min_limit: 1, max_limit: 5, payment_methods: ['M-Pesa'], auto_cancel_duration: '1 hour',
    });
    assert.equal(status, 400);
    assert.equal(error.code, 'P0001');
    assert.equal(error.message, 'Minimum amount is 10');
  });

  test('an embed with no relationship is PGRST200', async () => {
    const { error, status } = await s.app.anon.from('properties').select('id, wallets(currency)').limit(1);
    assert.equal(status, 400);
    assert.equal(error.code, 'PGRST200');
  });
});
