// Realtime through the gateway with the official supabase-js client:
// postgres_changes under RLS (two users and anon), filters, `*` tables,
// broadcast (public/private, self, ack, REST), presence, token refresh,
// and both serializer versions (1.0.0 objects, 2.0.0 arrays).
//
// Rows are written through rest with the service role key; DDL (adding a
// table to the publication) goes through psql on the stack's database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { startStack } from '../harness/stack.mjs';
import { realtimeClients, subscribed, waitFor } from '../harness/realtime.mjs';

let stack;
let db;
const { client, track, closeAll } = realtimeClients(() => stack);
before(async () => {
  stack = await startStack({ sql: ['fixtures/realtime.sql'] });
  db = stack.client(stack.serviceRoleKey);
});
after(async () => {
  await closeAll();
  await stack?.stop();
});

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** A user access token as authsvc issues it (HS256 with the stack secret). */
function mint(sub, { expiresIn = 3600, role = 'authenticated' } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'HS256', typ: 'JWT' });
  const body = b64url({
    iss: `${stack.url}/auth/v1`, sub, aud: 'authenticated', exp: now + expiresIn, iat: now - 10, role,
    email: `${sub.slice(0, 8)}@example.test`, phone: '', app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: {}, is_anonymous: false,
  });
  const sig = createHmac('sha256', stack.jwtSecret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Unwraps a postgrest-js result, failing on an error. */
async function must(query) {
  const { data, error } = await query;
  if (error) throw new Error(`rest: ${error.message}`);
  return data;
}
const insert = (table, row) => must(db.from(table).insert(row).select().single());

const hasPsql = (() => {
  try { execFileSync('psql', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
})();

function sql(query) {
  return execFileSync('psql', [stack.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qAtc', query], { encoding: 'utf8' }).trim();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Subscribes to postgres_changes and collects the callbacks' payloads. */
async function watch(c, name, bindings) {
  const got = [];
  const system = [];
  let ch = c.channel(name);
  for (const b of bindings) ch = ch.on('postgres_changes', b, (p) => got.push(p));
  ch.on('system', {}, (p) => system.push(p));
  await subscribed(ch);
  await waitFor(() => system.find((s) => s.message === 'Subscribed to PostgreSQL'), `${name} system message`);
  return { ch, got, system };
}

const summary = (got) => got.map((p) => `${p.eventType} ${(p.eventType === 'DELETE' ? p.old : p.new).body ?? (p.eventType === 'DELETE' ? p.old : p.new).id}`);

describe('postgres_changes', () => {
  test('each client receives exactly what RLS allows, with the payload supabase-js expects', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const binding = { event: '*', schema: 'public', table: 'rt_notes' };
    const [a, b, anon] = await Promise.all([
      watch(await client({ token: mint(alice) }), 'rls-a', [binding]),
      watch(await client({ token: mint(bob) }), 'rls-b', [binding]),
      watch(await client(), 'rls-anon', [binding]),
    ]);
    const id1 = (await insert('rt_notes', { owner: alice, body: 'a-private', secret: 's1' })).id;
    const id2 = (await insert('rt_notes', { owner: bob, body: 'b-private' })).id;
    await insert('rt_notes', { owner: alice, body: 'a-public', is_public: true, secret: 's3' });
    // Rows are re-read after commit (Supabase checks visibility against the
    // table by key too): let the inserts arrive before changing the rows.
    await waitFor(() => a.got.length === 2 && b.got.length === 2, 'inserts');
    await must(db.from('rt_notes').update({ score: 7 }).eq('id', id1));
    await must(db.from('rt_notes').delete().eq('id', id2));
    await insert('rt_notes', { body: 'sentinel', is_public: true });
    for (const w of [a, b, anon]) await waitFor(() => w.got.find((p) => p.new?.body === 'sentinel'), 'sentinel');
    await sleep(200);

    // A DELETE reaches only who could have read the row. rt_notes logs only
    // the key of a deleted row (default replica identity), so the policy
    // (is_public or owner) cannot pass on it and nobody here gets bob's
    // DELETE; rt_owned below, with the whole old row, shows the owner does.
    assert.deepEqual(summary(a.got), ['INSERT a-private', 'INSERT a-public', 'UPDATE a-private', 'INSERT sentinel']);
    assert.deepEqual(summary(b.got), ['INSERT b-private', 'INSERT a-public', 'INSERT sentinel']);
    assert.deepEqual(summary(anon.got), ['INSERT a-public', 'INSERT sentinel']);

    const ins = a.got[0];
    assert.equal(ins.schema, 'public');
    assert.equal(ins.table, 'rt_notes');
    assert.equal(ins.eventType, 'INSERT');
    assert.match(ins.commit_timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(ins.errors, null);
    assert.deepEqual(ins.old, {});
    assert.equal(ins.new.id, Number(id1), 'int8 converted by column type');
    assert.equal(ins.new.is_public, false);
    assert.equal(ins.new.secret, 's1');
    const upd = a.got[2];
    assert.equal(upd.new.score, 7);
    assert.deepEqual(upd.old, { id: Number(id1) });
    // anon may not select the secret column
    const anonPublic = anon.got[0];
    assert.equal(anonPublic.new.body, 'a-public');
    assert.ok(!('secret' in anonPublic.new), 'secret hidden from anon');
  });

  test('a DELETE reaches its owner and nobody else (stricter than Supabase)', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const binding = { event: '*', schema: 'public', table: 'rt_owned' };
    const [a, b, anon] = await Promise.all([
      watch(await client({ token: mint(alice) }), 'owned-a', [binding]),
      watch(await client({ token: mint(bob) }), 'owned-b', [binding]),
      watch(await client(), 'owned-anon', [binding]),
    ]);
    const id = (await insert('rt_owned', { owner: bob, body: 'kyc-like' })).id;
    await waitFor(() => b.got.length === 1, 'insert');
    await must(db.from('rt_owned').delete().eq('id', id));
    await waitFor(() => b.got.length === 2, 'delete');
    // A change alice may see, after which nothing more can be in flight.
    await insert('rt_owned', { owner: alice, body: 'sentinel' });
    await waitFor(() => a.got.length === 1, 'sentinel');
    await sleep(200);
    assert.deepEqual(b.got.map((p) => p.eventType), ['INSERT', 'DELETE']);
    assert.deepEqual(b.got[1].old, { id: Number(id), owner: bob, body: 'kyc-like' });
    assert.deepEqual(a.got.map((p) => `${p.eventType} ${p.new.body}`), ['INSERT sentinel']);
    assert.deepEqual(anon.got, []);
  });

  test('filters and event bindings', async () => {
    const alice = randomUUID();
    const w = await watch(await client({ token: mint(alice) }), 'filters', [
      { event: 'INSERT', schema: 'public', table: 'rt_notes', filter: 'score=gt.5' },
      { event: 'UPDATE', schema: 'public', table: 'rt_notes', filter: 'body=in.(x,"y,z")' },
      { event: 'DELETE', schema: 'public', table: 'rt_notes', filter: `owner=eq.${alice}` },
    ]);
    await insert('rt_notes', { owner: alice, body: 'low', score: 1 });
    await insert('rt_notes', { owner: alice, body: 'high', score: 9 });
    await waitFor(() => w.got.length === 1, 'insert');
    await must(db.from('rt_notes').update({ body: 'y,z' }).eq('owner', alice).eq('body', 'low'));
    await must(db.from('rt_notes').update({ body: 'other' }).eq('owner', alice).eq('body', 'high'));
    await must(db.from('rt_notes').delete().eq('owner', alice).eq('body', 'other'));
    await insert('rt_notes', { owner: alice, body: 'end', score: 10 });
    await waitFor(() => w.got.find((p) => p.new?.body === 'end'), 'end');
    await sleep(200);
    // The DELETE filter on owner cannot match: old_record carries only the key.
    assert.deepEqual(w.got.map((p) => `${p.eventType} ${p.new.body ?? ''}`), ['INSERT high', 'UPDATE y,z', 'INSERT end']);
  });

  test('a binding without a table streams every table of the schema', async () => {
    const w = await watch(await client(), 'all-tables', [{ event: '*', schema: 'public' }]);
    await insert('rt_tags', { id: 1, label: 'one' });
    await insert('rt_notes', { body: 'star', is_public: true });
    await must(db.from('rt_tags').update({ label: 'uno' }).eq('id', 1));
    await waitFor(() => w.got.length >= 3, 'three changes');
    assert.deepEqual(w.got.map((p) => `${p.table} ${p.eventType}`), ['rt_tags INSERT', 'rt_notes INSERT', 'rt_tags UPDATE']);
    assert.equal(w.got[2].new.label, 'uno');
  });

  test('a table added to the publication streams without a restart', async () => {
    assert.ok(hasPsql, 'psql is required (.ci/run installs postgresql-client)');
    sql(`create table public.rt_late (id int primary key, v text); grant select on public.rt_late to anon;
         alter publication supabase_realtime add table public.rt_late`);
    const w = await watch(await client(), 'late', [{ event: 'INSERT', schema: 'public', table: 'rt_late' }]);
    sql(`insert into rt_late values (1, 'hello')`);
    await waitFor(() => w.got.length === 1, 'late insert');
    assert.deepEqual(w.got[0].new, { id: 1, v: 'hello' });
  });

  test('the admin dashboard channel: five tables in one join, reply in request order', async () => {
    const tables = ['properties', 'products', 'profiles', 'service_providers', 'kyc_verifications'];
    // supabase-js compares the reply with its bindings position by position
    // and reports CHANNEL_ERROR on a mismatch, so SUBSCRIBED proves the order.
    const w = await watch(await client({ token: mint(randomUUID()) }), 'admin-dashboard',
      tables.map((table) => ({ event: '*', schema: 'public', table })));
    assert.equal(w.system[0].channel, 'admin-dashboard');
    assert.equal(w.system[0].extension, 'postgres_changes');
    assert.equal(w.system[0].status, 'ok');
  });

  test('vsn 1.0.0 and 2.0.0 deliver the same changes', async () => {
    const v1 = await watch(await client({ vsn: '1.0.0' }), 'vsn1', [{ event: 'INSERT', schema: 'public', table: 'rt_tags' }]);
    const v2 = await watch(await client({ vsn: '2.0.0' }), 'vsn2', [{ event: 'INSERT', schema: 'public', table: 'rt_tags' }]);
    await insert('rt_tags', { id: 42, label: 'vsn' });
    await waitFor(() => v1.got.length === 1 && v2.got.length === 1, 'both');
    assert.deepEqual(v1.got[0].new, { id: 42, label: 'vsn' });
    assert.deepEqual(v2.got[0].new, v1.got[0].new);
  });
});

describe('token refresh', () => {
  test('a refreshed token re-authorizes; an expired one closes the channel with a system error', async () => {
    const alice = randomUUID();
    let token = mint(alice);
    const c = track(stack.client(stack.anonKey, { realtime: { transport: WebSocket }, accessToken: async () => token }));
    await c.realtime.setAuth();
    const w = await watch(c, 'refresh', [{ event: 'INSERT', schema: 'public', table: 'rt_notes' }]);
    const bob = randomUUID();
    // Switch identity on the live socket: now bob's private rows arrive.
    token = mint(bob);
    await c.realtime.setAuth();
    await sleep(300);
    await insert('rt_notes', { owner: bob, body: 'for-bob' });
    await insert('rt_notes', { owner: alice, body: 'for-alice' });
    await insert('rt_notes', { body: 'refresh-end', is_public: true });
    await waitFor(() => w.got.find((p) => p.new.body === 'refresh-end'), 'end');
    assert.deepEqual(w.got.map((p) => p.new.body), ['for-bob', 'refresh-end']);

    token = mint(bob, { expiresIn: -120 });
    await c.realtime.setAuth();
    await waitFor(() => w.system.find((s) => s.extension === 'system' && s.status === 'error'), 'system error');
    assert.match(w.system.find((s) => s.status === 'error').message, /^Token has expired \d+ seconds ago$/);
    await waitFor(() => w.ch.state === 'closed' || w.ch.state === 'errored', 'channel closed');
  });
});

describe('broadcast', () => {
  test('public channel: self and ack', async () => {
    const a = await client();
    const b = await client();
    const gotA = [];
    const gotB = [];
    const chA = a.channel('chat', { config: { broadcast: { self: true, ack: true } } }).on('broadcast', { event: 'msg' }, (p) => gotA.push(p));
    const chB = b.channel('chat').on('broadcast', { event: 'msg' }, (p) => gotB.push(p));
    await Promise.all([subscribed(chA), subscribed(chB)]);
    assert.equal(await chA.send({ type: 'broadcast', event: 'msg', payload: { n: 1 } }), 'ok');
    assert.equal(await chB.send({ type: 'broadcast', event: 'msg', payload: { n: 2 } }), 'ok');
    await waitFor(() => gotA.length === 2 && gotB.length === 1, 'messages');
    assert.deepEqual(gotA.map((p) => p.payload.n), [1, 2]);
    assert.deepEqual(gotB.map((p) => p.payload.n), [1], 'no self echo without self:true');
    assert.equal(gotB[0].event, 'msg');
    assert.equal(gotB[0].type, 'broadcast');
  });

  test('vsn 1.0.0 sockets get 2.0.0 senders\' broadcasts', async () => {
    const a = await client({ vsn: '1.0.0' });
    const b = await client({ vsn: '2.0.0' });
    const got = [];
    const chA = a.channel('mixed').on('broadcast', { event: 'e' }, (p) => got.push(p));
    const chB = b.channel('mixed');
    await Promise.all([subscribed(chA), subscribed(chB)]);
    await chB.send({ type: 'broadcast', event: 'e', payload: { from: 'v2' } });
    await waitFor(() => got.length === 1, 'v1 receives');
    assert.deepEqual(got[0].payload, { from: 'v2' });
  });

  test('private channels are authorized by realtime.messages policies', async () => {
    const user = await client({ token: mint(randomUUID()) });
    const other = await client({ token: mint(randomUUID()) });
    const got = [];
    const ch = user.channel('room-1', { config: { private: true, broadcast: { ack: true } } });
    const ch2 = other.channel('room-1', { config: { private: true } }).on('broadcast', { event: 'e' }, (p) => got.push(p));
    await Promise.all([subscribed(ch), subscribed(ch2)]);
    assert.equal(await ch.send({ type: 'broadcast', event: 'e', payload: { ok: true } }), 'ok');
    await waitFor(() => got.length === 1, 'private broadcast');

    const closed = user.channel('room-closed', { config: { private: true, broadcast: { ack: true } } });
    await subscribed(closed);
    assert.notEqual(await closed.send({ type: 'broadcast', event: 'e', payload: {} }), 'ok', 'write denied');

    const anon = await client();
    await assert.rejects(subscribed(anon.channel('room-1', { config: { private: true } })), /permissions to read/);
  });

  test('REST broadcast reaches subscribers (batch endpoint and httpSend)', async () => {
    const got = [];
    const listener = (await client()).channel('rest-room').on('broadcast', { event: '*' }, (p) => got.push(p));
    await subscribed(listener);
    const res = await fetch(`${stack.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic: 'rest-room', event: 'one', payload: { n: 1 }, private: false }] }),
    });
    assert.equal(res.status, 202);
    const sender = (await client()).channel('rest-room');
    assert.deepEqual(await sender.httpSend('two', { n: 2 }), { success: true });
    await waitFor(() => got.length === 2, 'REST messages');
    assert.deepEqual(got.map((p) => [p.event, p.payload.n]), [['one', 1], ['two', 2]]);
  });
});

describe('presence', () => {
  test('sync, join and leave', async () => {
    const a = await client();
    const b = await client();
    const joins = [];
    const leaves = [];
    const chA = a.channel('lobby', { config: { presence: { key: 'alice' } } })
      .on('presence', { event: 'join' }, ({ key }) => joins.push(key))
      .on('presence', { event: 'leave' }, ({ key }) => leaves.push(key))
      .on('presence', { event: 'sync' }, () => {});
    const chB = b.channel('lobby', { config: { presence: { key: 'bob' } } }).on('presence', { event: 'sync' }, () => {});
    await Promise.all([subscribed(chA), subscribed(chB)]);
    assert.equal(await chA.track({ status: 'online' }), 'ok');
    assert.equal(await chB.track({ status: 'away' }), 'ok');
    await waitFor(() => Object.keys(chA.presenceState()).length === 2, 'two present');
    const state = chA.presenceState();
    assert.equal(state.alice[0].status, 'online');
    assert.equal(state.bob[0].status, 'away');
    assert.ok(state.bob[0].presence_ref, 'presence_ref');
    assert.ok(joins.includes('bob'));
    assert.equal(await chB.untrack(), 'ok');
    await waitFor(() => leaves.includes('bob') && !chA.presenceState().bob, 'bob left');
  });
});
