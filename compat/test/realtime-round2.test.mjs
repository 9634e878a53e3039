// Realtime, round 2 (issue 18) through supabase-js's RealtimeClient:
// Broadcast from Database (realtime.send, send_binary, broadcast_changes in
// a trigger) on public and private channels, replay on join, every
// postgres_changes filter operator with comma-separated (ANDed)
// conditions, refused filters (their syntax, and their columns, values and
// operators checked against the table at join), and the select option.
// The fixture tables, trigger and realtime.messages policies are created by
// this file through psql on the stack's database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { postgresChangesFilter } from '@supabase/realtime-js';
import { startStack } from '../harness/stack.mjs';
import { realtimeClients, subscribed, waitFor } from '../harness/realtime.mjs';

let stack;
const { client, closeAll } = realtimeClients(() => stack);
const member = randomUUID();
const outsider = randomUUID();

function sql(query) {
  return execFileSync('psql', [stack.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qAtc', query], { encoding: 'utf8' }).trim();
}

before(async () => {
  stack = await startStack();
  sql(`
    create table public.rt2_orders (id bigint generated always as identity primary key, item text, qty int);
    grant all on public.rt2_orders to service_role;
    create function public.rt2_orders_broadcast() returns trigger language plpgsql security definer set search_path = '' as $$
    begin
      perform realtime.broadcast_changes('rt2-orders', tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
      return null;
    end $$;
    create trigger rt2_orders_broadcast after insert or update or delete on public.rt2_orders
      for each row execute function public.rt2_orders_broadcast();

    create table public.rt2_members (user_id uuid, topic text);
    create policy rt2_members_read on realtime.messages for select to authenticated
      using (exists (select 1 from public.rt2_members m where m.user_id = (select auth.uid()) and m.topic = (select realtime.topic())));
    insert into public.rt2_members values ('${member}', 'rt2-orders'), ('${member}', 'rt2-private'), ('${member}', 'rt2-replay');

    create table public.rt2_items (id bigint generated always as identity primary key,
      value int, name text, flag boolean, note text, secret text);
    grant select on public.rt2_items to anon, authenticated;
    grant all on public.rt2_items to service_role;
    alter publication supabase_realtime add table public.rt2_items;
  `);
});
after(async () => {
  await closeAll();
  await stack?.stop();
});

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** A user access token as authsvc issues it (HS256 with the stack secret). */
function mint(sub) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'HS256', typ: 'JWT' });
  const body = b64url({ iss: `${stack.url}/auth/v1`, sub, aud: 'authenticated', exp: now + 3600, iat: now - 10, role: 'authenticated' });
  const sig = createHmac('sha256', stack.jwtSecret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Joins a topic over a plain websocket (protocol 1.0.0) and returns the join reply's payload. */
function rawJoin(topic, config) {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${stack.anonKey}&vsn=1.0.0`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { ws.close(); reject(new Error('no join reply')); }, 8000);
    ws.on('open', () => ws.send(JSON.stringify({ topic: `realtime:${topic}`, event: 'phx_join', payload: { config }, ref: '1', join_ref: '1' })));
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.event === 'phx_reply' && m.ref === '1') { clearTimeout(timer); ws.close(); resolve(m.payload); }
    });
    ws.on('error', reject);
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('Broadcast from Database', () => {
  test('a broadcast_changes trigger reaches an authorized private channel; others cannot join', async () => {
    const got = [];
    const ch = (await client({ token: mint(member) })).channel('rt2-orders', { config: { private: true } })
      .on('broadcast', { event: 'INSERT' }, (p) => got.push(p))
      .on('broadcast', { event: 'UPDATE' }, (p) => got.push(p));
    await subscribed(ch);
    // A public channel of the same name hears nothing: the trigger's sends are private.
    const pub = [];
    await subscribed((await client()).channel('rt2-orders').on('broadcast', { event: '*' }, (p) => pub.push(p)));

    const id = sql(`insert into public.rt2_orders (item, qty) values ('unga', 2) returning id`);
    sql(`update public.rt2_orders set qty = 3 where id = ${id}`);
    await waitFor(() => got.length === 2, 'INSERT and UPDATE broadcasts');
    const [ins, upd] = got;
    assert.equal(ins.type, 'broadcast');
    assert.equal(ins.event, 'INSERT');
    assert.equal(ins.payload.operation, 'INSERT');
    assert.equal(ins.payload.table, 'rt2_orders');
    assert.equal(ins.payload.schema, 'public');
    assert.deepEqual(ins.payload.record, { id: Number(id), item: 'unga', qty: 2 });
    assert.equal(ins.payload.old_record, null);
    assert.match(ins.payload.id, /^[0-9a-f-]{36}$/, 'realtime.send adds the message id to the payload');
    assert.equal(ins.meta?.id, ins.payload.id, 'meta.id is the realtime.messages id');
    assert.equal(upd.payload.old_record.qty, 2);
    assert.equal(upd.payload.record.qty, 3);
    await sleep(200);
    assert.equal(pub.length, 0, 'public channel of the same name');

    const other = (await client({ token: mint(outsider) })).channel('rt2-orders', { config: { private: true } });
    await assert.rejects(subscribed(other), /You do not have permissions to read from this Channel topic: rt2-orders/);
  });

  test('realtime.send to public and private channels, and send_binary', async () => {
    const pub = [];
    const priv = [];
    const bin = [];
    await subscribed((await client()).channel('rt2-public').on('broadcast', { event: 'hello' }, (p) => pub.push(p)));
    await subscribed((await client({ token: mint(member) })).channel('rt2-private', { config: { private: true } })
      .on('broadcast', { event: 'hello' }, (p) => priv.push(p)));
    await subscribed((await client({ vsn: '2.0.0' })).channel('rt2-public').on('broadcast', { event: 'bytes' }, (p) => bin.push(p)));

    sql(`select realtime.send('{"n": 1}'::jsonb, 'hello', 'rt2-public', false)`);
    sql(`select realtime.send('{"n": 2, "id": "mine"}'::jsonb, 'hello', 'rt2-private')`); // private by default
    sql(`select realtime.send('{"n": 3}'::jsonb, 'hello', 'rt2-private', false)`); // public: not for the private channel
    sql(`select realtime.send_binary('\\xdeadbeef00ff'::bytea, 'bytes', 'rt2-public', false)`);
    await waitFor(() => pub.length === 1 && priv.length === 1 && bin.length === 1, 'sends');
    await sleep(200);
    assert.deepEqual(pub.map((p) => p.payload.n), [1]);
    assert.deepEqual(priv.map((p) => p.payload), [{ n: 2, id: 'mine' }], 'an id in the payload is kept');
    assert.ok(bin[0].payload instanceof ArrayBuffer, 'binary payload');
    assert.deepEqual([...new Uint8Array(bin[0].payload)], [0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]);

    // A failing send (no such policy-less write for anon) is a warning, not an error.
    assert.equal(sql(`set role anon; select realtime.send('{}'::jsonb, 'x', 'rt2-private'); reset role; select 'ok'`), 'ok');
  });

  test('replay on join: since and limit, private channels only, meta.replayed', async () => {
    const since = Date.now() - 1000;
    for (const n of [1, 2, 3]) sql(`select realtime.send('{"n": ${n}}'::jsonb, 'r', 'rt2-replay')`);
    const got = [];
    const c = await client({ token: mint(member) });
    const ch = c.channel('rt2-replay', { config: { private: true, broadcast: { replay: { since, limit: 2 } } } })
      .on('broadcast', { event: 'r' }, (p) => got.push(p));
    await subscribed(ch);
    await waitFor(() => got.length === 2, 'replayed messages');
    assert.deepEqual(got.map((p) => p.payload.n), [2, 3], 'the newest two, oldest first');
    for (const p of got) {
      assert.equal(p.meta.replayed, true);
      assert.equal(p.meta.id, p.payload.id);
    }
    sql(`select realtime.send('{"n": 4}'::jsonb, 'r', 'rt2-replay')`);
    await waitFor(() => got.length === 3, 'live message after replay');
    assert.equal(got[2].payload.n, 4);
    assert.equal(got[2].meta.replayed, undefined);

    // since in the future: nothing to replay.
    const none = [];
    const later = await client({ token: mint(member) });
    await subscribed(later.channel('rt2-replay', { config: { private: true, broadcast: { replay: { since: Date.now() + 60_000 } } } })
      .on('broadcast', { event: 'r' }, (p) => none.push(p)));
    await sleep(300);
    assert.equal(none.length, 0);

    // supabase-js refuses replay on a public channel itself; the server does too.
    const reply = await rawJoin('rt2-replay-public', { broadcast: { replay: { since } }, private: false });
    assert.deepEqual(reply, { status: 'error', response: { reason: 'UnableToReplayMessages: Replay is not allowed for public channels' } });
    await assert.rejects(subscribed((await client({ token: mint(member) })).channel('rt2-replay',
      { config: { private: true, broadcast: { replay: { since, limit: 26 } } } })), /Replay params are not valid/);
  });
});

describe('postgres_changes filters', () => {
  /** Subscribes one channel per filter and collects the ids of inserted rows each receives. */
  async function watchFilters(filters, options = {}) {
    const c = await client();
    return Promise.all(filters.map(async (filter, i) => {
      const got = [];
      const system = [];
      const binding = { event: 'INSERT', schema: 'public', table: 'rt2_items', filter, ...options };
      const ch = c.channel(`rt2-f-${i}-${randomUUID().slice(0, 6)}`).on('postgres_changes', binding, (p) => got.push(p))
        .on('system', {}, (p) => system.push(p));
      await subscribed(ch);
      await waitFor(() => system.length > 0, `system message for ${filter}`);
      return { filter, got, system };
    }));
  }

  test('every operator, negation and comma-separated AND conditions', async () => {
    const rows = [
      { value: 1, name: 'Nairobi', flag: true, note: null },
      { value: 5, name: 'nakuru', flag: false, note: 'x' },
      { value: 9, name: 'Mombasa', flag: null, note: 'a,b' },
    ];
    const cases = [
      ['value=eq.5', [5]], ['value=neq.5', [1, 9]], ['value=lt.5', [1]], ['value=lte.5', [1, 5]],
      ['value=gt.5', [9]], ['value=gte.5', [5, 9]], ['value=in.(1,9)', [1, 9]],
      ['name=like.Na%', [1]], ['name=ilike.na%', [1, 5]], ['name=match.^N', [1]], ['name=imatch.^n', [1, 5]],
      ['note=is.null', [1]], ['note=not.is.null', [5, 9]], ['flag=is.true', [1]], ['flag=is.false', [5]],
      ['value=isdistinct.5', [1, 9]], ['note=isdistinct.x', [1, 9]], ['value=not.eq.5', [1, 9]], ['name=not.like.Na%', [5, 9]],
      ['note=eq."a,b"', [9]],
      // Two conditions are ANDed: rows outside the range are excluded.
      ['value=gte.2,value=lte.8', [5]],
      ['value=gt.0,name=ilike.n%', [1, 5]],
      [postgresChangesFilter().gte('value', 5).neq('name', 'Mombasa').build(), [5]],
    ];
    const watchers = await watchFilters(cases.map(([f]) => f));
    for (const w of watchers) {
      assert.ok(w.system.find((s) => s.message === 'Subscribed to PostgreSQL'), `${w.filter}: ${JSON.stringify(w.system)}`);
    }
    const res = await stack.client(stack.serviceRoleKey).from('rt2_items').insert(rows);
    assert.equal(res.error, null);
    await waitFor(() => watchers.every((w, i) => w.got.length >= cases[i][1].length), 'filtered inserts', 10_000);
    await sleep(500);
    for (const [i, w] of watchers.entries()) {
      assert.deepEqual(w.got.map((p) => p.new.value).sort((a, b) => a - b), cases[i][1], w.filter);
    }
  });

  test('unsupported filters are refused with Supabase\'s messages, and nothing is subscribed', async () => {
    const cases = [
      ['value=fts.5', 'Error parsing `filter` params: ["fts", "5"]'],
      ['undefined', 'Error parsing `filter` params: ["undefined"]'],
      ['or=(value.eq.1,value.eq.2)', 'Error parsing `filter` params: ["(value", "eq.1,value.eq.2)"]'],
      ['value=eq.1,', 'Error parsing `filter` params: filter must not contain empty segments (check for extra commas)'],
      ['value=in.1', 'Error parsing `filter` params: `in` filter value must be wrapped by parentheses'],
    ];
    const watchers = await watchFilters(cases.map(([f]) => f));
    sql(`insert into public.rt2_items (value, name) values (1, 'refused')`);
    await sleep(800);
    for (const [i, w] of watchers.entries()) {
      assert.equal(w.system[0].status, 'error', w.filter);
      assert.equal(w.system[0].extension, 'postgres_changes');
      assert.equal(w.system[0].message, cases[i][1]);
      assert.ok(!w.system.find((s) => s.message === 'Subscribed to PostgreSQL'), w.filter);
      assert.equal(w.got.length, 0, `${w.filter} delivered rows`);
    }
  });

  test('select sends only the chosen columns', async () => {
    const [w] = await watchFilters(['value=eq.77'], { select: ['id', 'name'] });
    sql(`insert into public.rt2_items (value, name, secret) values (77, 'chosen', 's')`);
    await waitFor(() => w.got.length === 1, 'selected insert');
    assert.deepEqual(Object.keys(w.got[0].new).sort(), ['id', 'name']);
    assert.equal(w.got[0].new.name, 'chosen');
  });
});

describe('postgres_changes bindings checked against the table at join', () => {
  test('an unknown column, a value of the wrong type, an operator the type lacks: Supabase\'s trigger errors, nothing subscribed', async () => {
    const c = await client();
    const failed = 'Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: ';
    const cases = [
      [{ filter: 'nope=eq.1' }, '[event: INSERT, schema: public, table: rt2_items, filters: [{"nope", "eq", "1", false}], select: nil]. Exception: ERROR P0001 (raise_exception) invalid column for filter nope'],
      [{ filter: 'value=gt.0,value=eq.abc' }, '[event: INSERT, schema: public, table: rt2_items, filters: [{"value", "gt", "0", false}, {"value", "eq", "abc", false}], select: nil]. Exception: ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "abc"'],
      [{ filter: 'value=in.(1,two)' }, '[event: INSERT, schema: public, table: rt2_items, filters: [{"value", "in", "{1,two}", false}], select: nil]. Exception: ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "two"'],
      [{ filter: 'value=like.1' }, '[event: INSERT, schema: public, table: rt2_items, filters: [{"value", "like", "1", false}], select: nil]. Exception: ERROR P0001 (raise_exception) operator like is not supported on column value of type integer: operator does not exist: integer ~~ integer'],
      [{ filter: 'name=is.true' }, '[event: INSERT, schema: public, table: rt2_items, filters: [{"name", "is", "true", false}], select: nil]. Exception: ERROR P0001 (raise_exception) is true filter requires a boolean column, got text'],
      [{ filter: 'value=eq.1', select: ['id', 'nope'] }, '[event: INSERT, schema: public, table: rt2_items, filters: [{"value", "eq", "1", false}], select: ["id", "nope"]]. Exception: ERROR P0001 (raise_exception) invalid column for select nope'],
    ];
    const watchers = await Promise.all(cases.map(async ([binding], i) => {
      const got = [];
      const system = [];
      // A valid binding beside the refused one: the channel's bindings are subscribed together or not at all.
      const ch = c.channel(`rt2-chk-${i}-${randomUUID().slice(0, 6)}`)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt2_items' }, (p) => got.push(p))
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt2_items', ...binding }, (p) => got.push(p))
        .on('system', {}, (p) => system.push(p));
      await subscribed(ch);
      await waitFor(() => system.length > 0, `system message for ${JSON.stringify(binding)}`);
      return { binding, got, system };
    }));
    // An accepted binding on the same table, for contrast.
    const ok = { got: [], system: [] };
    const good = c.channel(`rt2-chk-ok-${randomUUID().slice(0, 6)}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt2_items', filter: 'value=eq.4242,name=like.chk%,flag=is.true', select: ['id', 'value'] }, (p) => ok.got.push(p))
      .on('system', {}, (p) => ok.system.push(p));
    await subscribed(good);
    await waitFor(() => ok.system.length > 0, 'system message for the accepted binding');
    assert.equal(ok.system[0].message, 'Subscribed to PostgreSQL');

    sql(`insert into public.rt2_items (value, name, flag) values (4242, 'chk-row', true)`);
    await waitFor(() => ok.got.length === 1, 'the accepted binding\'s insert');
    assert.deepEqual(ok.got[0].new.value, 4242);
    await sleep(500);
    for (const [i, w] of watchers.entries()) {
      const what = JSON.stringify(w.binding);
      assert.equal(w.system[0].status, 'error', what);
      assert.equal(w.system[0].extension, 'postgres_changes', what);
      assert.equal(w.system[0].message, failed + cases[i][1], what);
      assert.ok(!w.system.find((s) => s.message === 'Subscribed to PostgreSQL'), what);
      assert.equal(w.got.length, 0, `${what} delivered rows`);
    }
  });
});
