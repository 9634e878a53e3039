// The scale-out shape on one machine: `devstack -replicas 2` runs two
// replicas of rest, rpc, authsvc, realtime and storage behind the one
// gateway, and the official supabase-js drives it as any app would.
//
// Which replica served what is read from the gateway's per-replica /metrics
// series (responses, refusals, open sockets). Checked: REST, auth and
// storage requests land on both replicas and work; two realtime clients
// land on different replicas and still share broadcast and presence
// (relayed through PostgreSQL); a rest replica killed with SIGKILL costs
// no request while devstack restarts it; and authsvc's per-IP rate limit
// holds across both replicas (counted in PostgreSQL, not per process).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { startStack } from '../harness/stack.mjs';

// Sign-ups per IP (GOTRUE_RATE_LIMIT_OTP covers /signup, /otp, /recover,
// /resend). Only the rate-limit test signs up; the others create users
// through the admin API, which it does not count.
const OTP_LIMIT = 4;

let stack;
let service; // service_role client
const clients = [];
before(async () => {
  const began = Date.now();
  stack = await startStack({
    replicas: 2,
    sql: ['fixtures/realtime.sql'],
    env: {
      KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM: 'true',
      KEJANEST_AUTHSVC_GOTRUE_RATE_LIMIT_OTP: `${OTP_LIMIT}/1h`,
    },
  });
  console.log(`# 2-replica stack ready in ${Date.now() - began} ms`);
  service = stack.client(stack.serviceRoleKey);
});
after(async () => {
  for (const c of clients) await c.removeAllChannels().catch(() => {});
  await stack?.stop();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(fn, what, timeout = 8000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Unwraps a supabase-js result, failing with the error's message. */
async function must(what, query) {
  const { data, error } = await query;
  if (error) throw new Error(`${what}: ${error.message} (${error.status ?? error.code ?? ''})`);
  return data;
}

/** Runs fn and reports how many responses each replica of service sent meanwhile. */
async function landed(svc, fn) {
  const before = (await stack.replicaStats())[svc];
  const result = await fn();
  const after = (await stack.replicaStats())[svc];
  return { result, counts: after.map((r, i) => r.responses - before[i].responses) };
}

function assertBoth(svc, counts) {
  assert.equal(counts.length, 2, `${svc} has ${counts.length} replicas`);
  assert.ok(counts.every((n) => n > 0), `${svc}: responses per replica ${JSON.stringify(counts)}, want some on each`);
}

/** A user made through the admin API (which no per-IP limit counts). */
async function makeUser() {
  const email = `rep-${randomUUID().slice(0, 8)}@example.test`;
  const password = 'replica-password-1';
  const { user } = await must('create user', service.auth.admin.createUser({ email, password, email_confirm: true }));
  return { id: user.id, email, password };
}

function subscribed(channel, timeout = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${channel.topic}: not subscribed within ${timeout} ms`)), timeout);
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') { clearTimeout(timer); resolve(channel); }
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') { clearTimeout(timer); reject(err ?? new Error(status)); }
    });
  });
}

/** Whether something accepts connections on the loopback port. */
function accepts(port) {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

describe('devstack -replicas 2', () => {
  test('the ready line lists two replicas of each service, each with its own port and log', () => {
    const ports = new Set([stack.ports.Gateway]);
    for (const svc of ['rest', 'rpc', 'authsvc', 'realtime', 'storage']) {
      const list = stack.replicas[svc];
      assert.deepEqual(list.map((r) => r.name), [`${svc}-1`, `${svc}-2`]);
      for (const r of list) {
        assert.ok(!ports.has(r.port), `${r.name}'s port ${r.port} is used twice`);
        ports.add(r.port);
        assert.equal(r.url, `http://127.0.0.1:${r.port}`);
        assert.ok(existsSync(r.log), `${r.log} exists`);
      }
    }
    // The old fields still name the first replica.
    assert.equal(stack.ports.Rest, stack.replicas.rest[0].port);
    assert.equal(stack.ports.Auth, stack.replicas.authsvc[0].port);
  });

  test('REST reads and writes, password sign-in and storage work through the gateway, on both replicas', async () => {
    const user = await makeUser();

    const signIns = await landed('authsvc', async () => {
      const tokens = [];
      for (let i = 0; i < 4; i++) {
        const { session } = await must('sign in', stack.client().auth.signInWithPassword({ email: user.email, password: user.password }));
        tokens.push(session.access_token);
      }
      return tokens;
    });
    assertBoth('authsvc', signIns.counts);
    const token = signIns.result.at(-1);

    const bodies = Array.from({ length: 6 }, (_, i) => `note ${i} ${randomUUID().slice(0, 6)}`);
    const writes = await landed('rest', async () => {
      for (const body of bodies) await must('insert', service.from('rt_notes').insert({ owner: user.id, body }));
    });
    assertBoth('rest', writes.counts);

    // Read back as the user (RLS: own rows only), each read on either replica.
    const asUser = stack.client(stack.anonKey, { global: { headers: { Authorization: `Bearer ${token}` } } });
    const reads = await landed('rest', async () => {
      const seen = [];
      for (let i = 0; i < 4; i++) {
        seen.push(await must('select', asUser.from('rt_notes').select('body').eq('owner', user.id).order('id')));
      }
      return seen;
    });
    assertBoth('rest', reads.counts);
    for (const rows of reads.result) assert.deepEqual(rows.map((r) => r.body), bodies);

    // rpc too.
    const calls = await landed('rpc', async () => {
      for (let i = 0; i < 4; i++) await must('rpc', asUser.rpc('is_admin'));
    });
    assertBoth('rpc', calls.counts);

    // Both storage replicas use the one root on disk: what one stores,
    // the other serves.
    const bucket = `rep-${randomUUID().slice(0, 8)}`;
    await must('create bucket', service.storage.createBucket(bucket, { public: false }));
    const objects = await landed('storage', async () => {
      for (let i = 0; i < 4; i++) {
        await must('upload', service.storage.from(bucket).upload(`dir/f${i}.txt`, `object ${i}`, { contentType: 'text/plain' }));
      }
      const texts = [];
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 4; i++) texts.push(await (await must('download', service.storage.from(bucket).download(`dir/f${i}.txt`))).text());
      }
      await must('remove', service.storage.from(bucket).remove([0, 1, 2, 3].map((i) => `dir/f${i}.txt`)));
      return texts;
    });
    assertBoth('storage', objects.counts);
    assert.deepEqual(objects.result, [0, 1, 2, 3, 0, 1, 2, 3].map((i) => `object ${i}`));
  });

  test('two realtime clients land on different replicas and share broadcast and presence', async () => {
    const topic = `replicas-${randomUUID().slice(0, 8)}`;
    const open = async () => (await stack.replicaStats()).realtime.map((r) => r.inFlight);
    assert.deepEqual(await open(), [0, 0], 'no socket open before the test');

    const a = stack.client();
    const b = stack.client();
    clients.push(a, b);
    const gotA = [];
    const gotB = [];
    const chA = a.channel(topic, { config: { presence: { key: 'alice' } } })
      .on('broadcast', { event: 'hello' }, (m) => gotA.push(m.payload))
      .on('presence', { event: 'sync' }, () => {});
    const chB = b.channel(topic, { config: { presence: { key: 'bob' } } })
      .on('broadcast', { event: 'hello' }, (m) => gotB.push(m.payload))
      .on('presence', { event: 'sync' }, () => {});

    // One at a time, so the gateway sees the first socket in flight when
    // the second arrives: least in-flight sends it to the other replica.
    await subscribed(chA);
    const afterA = await waitFor(async () => { const o = await open(); return o[0] + o[1] === 1 && o; }, 'the first socket');
    await subscribed(chB);
    const afterB = await waitFor(async () => { const o = await open(); return o[0] + o[1] === 2 && o; }, 'the second socket');
    assert.deepEqual(afterB, [1, 1], `open sockets per realtime replica ${JSON.stringify(afterB)} (after the first: ${JSON.stringify(afterA)})`);

    // Broadcast crosses replicas (NOTIFY realtime_broadcast) both ways.
    assert.equal(await chA.send({ type: 'broadcast', event: 'hello', payload: { from: 'alice' } }), 'ok');
    await waitFor(() => gotB.some((p) => p.from === 'alice'), 'alice\'s broadcast at bob, on the other replica');
    assert.equal(await chB.send({ type: 'broadcast', event: 'hello', payload: { from: 'bob' } }), 'ok');
    await waitFor(() => gotA.some((p) => p.from === 'bob'), 'bob\'s broadcast at alice, on the other replica');

    // Presence crosses replicas (realtime.presences + NOTIFY realtime_presence).
    assert.equal(await chA.track({ status: 'online' }), 'ok');
    await waitFor(() => chB.presenceState().alice, 'alice in bob\'s presenceState, from the other replica');
    assert.equal(chB.presenceState().alice[0].status, 'online');
    assert.equal(await chB.track({ status: 'away' }), 'ok');
    await waitFor(() => chA.presenceState().bob, 'bob in alice\'s presenceState, from the other replica');
    assert.equal(chA.presenceState().bob[0].status, 'away');
    assert.equal(await chA.untrack(), 'ok');
    await waitFor(() => !chB.presenceState().alice, 'alice gone from bob\'s presenceState');

    await a.removeAllChannels();
    await b.removeAllChannels();
  });

  test('a rest replica killed with SIGKILL costs no request; devstack restarts it and it serves again', async () => {
    const user = await makeUser();
    const victim = stack.replicas.rest[0];
    const before = (await stack.replicaStats()).rest;
    const pid = stack.killReplica('rest', 0);
    const killed = Date.now();
    // The outage has begun once nothing listens on the port any more.
    await waitFor(async () => stack.replicaPid('rest', 0) !== pid && !(await accepts(victim.port)), `${victim.name} to be gone`, 3000);

    // A burst during the outage: reads and writes, five at a time.
    const results = [];
    const jobs = Array.from({ length: 30 }, (_, i) => async () => {
      const r = i % 3 === 0
        ? await service.from('rt_notes').insert({ owner: user.id, body: `burst ${i}` })
        : await service.from('rt_notes').select('id').eq('owner', user.id).limit(1);
      results.push({ i, status: r.status, error: r.error?.message });
    });
    const burstStarted = Date.now();
    for (let i = 0; i < jobs.length; i += 5) await Promise.all(jobs.slice(i, i + 5).map((j) => j()));
    const burstTook = Date.now() - burstStarted;
    const failed = results.filter((r) => r.error || r.status >= 300);
    assert.deepEqual(failed, [], `requests failed during the outage of ${victim.name}`);
    const during = (await stack.replicaStats()).rest;
    assert.ok(during[0].refused > before[0].refused,
      `the gateway met no refusal from ${victim.name}: the burst (${burstTook} ms) missed the outage`);
    const answered = during.map((r, i) => r.responses - before[i].responses);
    assert.ok(answered[1] > 0 && answered[0] + answered[1] >= jobs.length, `responses per replica during the burst: ${JSON.stringify(answered)}`);

    // devstack starts it again (100 ms backoff, then its health), and the
    // gateway uses it again once its back-off ends.
    const newPid = await waitFor(() => { const p = stack.replicaPid('rest', 0); return p && p !== pid && p; }, `${victim.name} restarted`, 20_000);
    const restarted = Date.now() - killed;
    await waitFor(async () => {
      await must('probe', service.from('rt_notes').select('id').limit(1));
      return (await stack.replicaStats()).rest[0].responses > during[0].responses;
    }, `${victim.name} answering through the gateway again`, 15_000);
    console.log(`# ${victim.name}: killed pid ${pid}, burst of 30 in ${burstTook} ms all ok, restarted as pid ${newPid} after ${restarted} ms, serving again after ${Date.now() - killed} ms`);
  });

  test('authsvc\'s per-IP sign-up limit is one budget across both replicas', async () => {
    // Sequential requests alternate between the replicas, so 2x the limit
    // puts a full limit's worth on each: per-process counting would let
    // all of them through.
    const outcome = await landed('authsvc', async () => {
      const statuses = [];
      for (let i = 0; i < 2 * OTP_LIMIT; i++) {
        const { error } = await stack.client().auth.signUp({ email: `limit-${i}-${randomUUID().slice(0, 6)}@example.test`, password: 'limit-password-1' });
        statuses.push(error ? `${error.status} ${error.code ?? ''}`.trim() : 'ok');
      }
      return statuses;
    });
    assertBoth('authsvc', outcome.counts);
    console.log(`# sign-ups per authsvc replica ${JSON.stringify(outcome.counts)}: ${JSON.stringify(outcome.result)}`);
    const ok = outcome.result.filter((s) => s === 'ok').length;
    assert.equal(ok, OTP_LIMIT,
      `with GOTRUE_RATE_LIMIT_OTP=${OTP_LIMIT}/1h, ${ok} of ${2 * OTP_LIMIT} sign-ups spread over the replicas ${JSON.stringify(outcome.counts)} succeeded: ${JSON.stringify(outcome.result)}`);
    assert.deepEqual(outcome.result.slice(OTP_LIMIT), Array(OTP_LIMIT).fill('429 over_request_rate_limit'));
  });
});
