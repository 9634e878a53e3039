// Asymmetric signing keys across the stack, configured as Supabase's
// self-hosted setup does (docker/utils/add-new-auth-keys.sh): JWT_KEYS holds
// authsvc's private ES256 key (key_ops sign, verify) beside the legacy
// secret as an "oct" key, and JWT_JWKS the public set every other service
// verifies with. authsvc then signs sessions with ES256 and publishes the
// public key at /auth/v1/.well-known/jwks.json; rest, storage and realtime
// accept that session through the official supabase-js, legacy HS256 keys
// keep working, and a token signed by another key under the same kid is
// refused everywhere.
//
// Also here, because it needs the same stack: the gateway never turns the
// apikey into the Authorization header of GoTrue's user-token endpoints.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { startStack } from '../harness/stack.mjs';

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const decode = (seg) => JSON.parse(Buffer.from(seg, 'base64url').toString());

/** Signs claims ES256 (JOSE's raw r||s signature) with a node KeyObject. */
function signES256(claims, key, kid) {
  const input = `${b64url({ alg: 'ES256', typ: 'JWT', kid })}.${b64url(claims)}`;
  const sig = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}

// A 1x1 PNG: the images bucket takes images only.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

const kid = randomUUID();
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const priv = privateKey.export({ format: 'jwk' });
// A second key, never configured: what a forger holds.
const forger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

let stack;
let service;
let user; // { client, id, token }
before(async () => {
  const oct = { kty: 'oct', k: b64url('super-secret-jwt-token-with-at-least-32-characters-long'), alg: 'HS256' };
  const pub = { kty: 'EC', kid, use: 'sig', key_ops: ['verify'], alg: 'ES256', ext: true, crv: priv.crv, x: priv.x, y: priv.y };
  stack = await startStack({
    sql: ['fixtures/realtime.sql'],
    env: {
      JWT_KEYS: JSON.stringify([{ ...pub, key_ops: ['sign', 'verify'], d: priv.d }, oct]),
      JWT_JWKS: JSON.stringify({ keys: [pub, oct] }),
      KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM: 'true',
    },
  });
  assert.equal(stack.jwtSecret, 'super-secret-jwt-token-with-at-least-32-characters-long', 'the oct key above is the dev secret');
  service = stack.client(stack.serviceRoleKey);
  const client = stack.client();
  const email = `es256-${randomUUID().slice(0, 8)}@example.com`;
  const { data, error } = await client.auth.signUp({ email, password: 'password-123456' });
  assert.ifError(error);
  assert.ok(data.session, 'autoconfirm gives a session');
  user = { client, id: data.user.id, token: data.session.access_token };
});
after(async () => {
  await user?.client.removeAllChannels().catch(() => {});
  await stack?.stop();
});

describe('authsvc signs with the asymmetric key', () => {
  test('JWKS publishes the public key only', async () => {
    const res = await fetch(`${stack.url}/auth/v1/.well-known/jwks.json`);
    assert.equal(res.status, 200);
    const { keys } = await res.json();
    assert.equal(keys.length, 1, 'the oct key is never published');
    const [k] = keys;
    assert.equal(k.kid, kid);
    assert.equal(k.kty, 'EC');
    assert.equal(k.alg, 'ES256');
    assert.equal(k.use, 'sig');
    assert.deepEqual(k.key_ops, ['verify']);
    assert.equal(k.d, undefined, 'no private part');
  });

  test('the session is ES256 with the kid, and verifies with the published key', async () => {
    const [h, p, s] = user.token.split('.');
    assert.deepEqual(decode(h), { alg: 'ES256', kid, typ: 'JWT' });
    assert.equal(decode(p).sub, user.id);
    assert.equal(decode(p).role, 'authenticated');
    const { keys } = await (await fetch(`${stack.url}/auth/v1/.well-known/jwks.json`)).json();
    const key = createPublicKey({ key: keys[0], format: 'jwk' });
    assert.ok(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')));
  });

  test('getUser and refreshSession work with the ES256 session', async () => {
    const { data, error } = await user.client.auth.getUser();
    assert.ifError(error);
    assert.equal(data.user.id, user.id);
    const r = await user.client.auth.refreshSession();
    assert.ifError(r.error);
    assert.equal(decode(r.data.session.access_token.split('.')[0]).kid, kid);
    user.token = r.data.session.access_token;
  });
});

describe('every service accepts the ES256 session', () => {
  test('rest runs as the user: RLS sees only their rows', async () => {
    const other = randomUUID();
    const { error } = await service.from('rt_owned').insert([
      { owner: user.id, body: 'mine' },
      { owner: other, body: 'theirs' },
    ]);
    assert.ifError(error);
    const { data, error: e2 } = await user.client.from('rt_owned').select('owner, body');
    assert.ifError(e2);
    assert.deepEqual(data, [{ owner: user.id, body: 'mine' }]);
  });

  test('storage runs as the user: own folder yes, another user\'s no', async () => {
    await service.storage.createBucket('images', { public: true }).catch(() => {});
    const own = await user.client.storage.from('images').upload(`${user.id}/es256.png`, PNG, { contentType: 'image/png', upsert: true });
    assert.ifError(own.error);
    const { data: rows, error: le } = await user.client.storage.from('images').list(user.id);
    assert.ifError(le);
    assert.deepEqual(rows.map((r) => r.name), ['es256.png']);
    const theirs = await user.client.storage.from('images').upload(`${randomUUID()}/x.png`, PNG, { contentType: 'image/png' });
    assert.ok(theirs.error, 'RLS refuses another user\'s folder');
    assert.match(theirs.error.message, /row-level security/);
  });

  test('realtime: postgres_changes under the user\'s RLS', async () => {
    const got = [];
    const ch = user.client.channel(`es256-${randomUUID().slice(0, 8)}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt_owned' }, (m) => got.push(m.new.body));
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('not subscribed')), 15_000);
      ch.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') { clearTimeout(t); resolve(); }
        if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') { clearTimeout(t); reject(err ?? new Error(status)); }
      });
    });
    const { error } = await service.from('rt_owned').insert([
      { owner: randomUUID(), body: 'rt-theirs' },
      { owner: user.id, body: 'rt-mine' },
    ]);
    assert.ifError(error);
    const end = Date.now() + 10_000;
    while (!got.includes('rt-mine') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(got, ['rt-mine']);
  });

  test('legacy HS256 keys still work beside the JWKS', async () => {
    const { error } = await service.from('rt_owned').select('id').limit(1);
    assert.ifError(error);
    const { data, error: e2 } = await service.auth.admin.listUsers({ page: 1, perPage: 1 });
    assert.ifError(e2);
    assert.ok(data.users.length >= 1);
  });
});

describe('a token signed by another key under the published kid is refused', () => {
  const forged = () => signES256({
    sub: user.id, role: 'service_role', aud: 'authenticated',
    exp: Math.floor(Date.now() / 1000) + 3600, iat: Math.floor(Date.now() / 1000),
  }, forger, kid);

  test('rest', async () => {
    const res = await fetch(`${stack.url}/rest/v1/rt_owned?select=id`, { headers: { apikey: stack.anonKey, authorization: `Bearer ${forged()}` } });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, 'PGRST301');
  });

  test('storage', async () => {
    const res = await fetch(`${stack.url}/storage/v1/bucket`, { headers: { apikey: stack.anonKey, authorization: `Bearer ${forged()}` } });
    const body = await res.json();
    assert.notEqual(res.status, 200, JSON.stringify(body));
    assert.match(JSON.stringify(body), /InvalidJWT|signature/i);
  });

  test('auth', async () => {
    const res = await fetch(`${stack.url}/auth/v1/admin/users`, { headers: { apikey: stack.anonKey, authorization: `Bearer ${forged()}` } });
    assert.ok(res.status === 401 || res.status === 403, `status ${res.status}`);
  });

  test('gateway apikey', async () => {
    const res = await fetch(`${stack.url}/rest/v1/rt_owned?select=id`, { headers: { apikey: forged() } });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).message, 'Invalid API key');
  });

  test('an ES256 apikey signed by the configured key is accepted (ANON_KEY_ASYMMETRIC)', async () => {
    const anon = signES256({ role: 'anon', iss: 'supabase', exp: Math.floor(Date.now() / 1000) + 3600 }, createPrivateKey({ key: { ...priv }, format: 'jwk' }), kid);
    const res = await fetch(`${stack.url}/rest/v1/rt_owned?select=id`, { headers: { apikey: anon } });
    assert.equal(res.status, 200, await res.text());
  });
});

describe('GoTrue user-token endpoints get no Authorization from the apikey', () => {
  for (const [method, path] of [['GET', '/user'], ['PUT', '/user'], ['POST', '/logout'], ['GET', '/reauthenticate'], ['POST', '/factors'], ['GET', '/admin/users']]) {
    test(`${method} /auth/v1${path} with the apikey only`, async () => {
      const res = await fetch(`${stack.url}/auth/v1${path}`, {
        method,
        headers: { apikey: stack.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
        body: method === 'GET' ? undefined : '{}',
      });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('x-sb-error-code'), 'no_authorization');
      assert.deepEqual(await res.json(), { code: 'no_authorization', message: 'This endpoint requires a valid Bearer token' });
    });
  }

  test('the service-role key alone does not open the admin API either', async () => {
    const res = await fetch(`${stack.url}/auth/v1/admin/users`, { headers: { apikey: stack.serviceRoleKey } });
    assert.equal(res.status, 401);
    const body = await res.json();
    assert.equal(body.error_code, 'no_authorization');
    assert.equal(body.msg, 'This endpoint requires a valid Bearer token');
  });

  test('endpoints that take the apikey still get it (settings)', async () => {
    const res = await fetch(`${stack.url}/auth/v1/settings`, { headers: { apikey: stack.anonKey } });
    assert.equal(res.status, 200);
  });
});

describe('auth.admin behaves as GoTrue', () => {
  test('createUser keeps user_metadata as given (no sub, email or *_verified)', async () => {
    const email = `admin-${randomUUID().slice(0, 8)}@example.com`;
    const { data, error } = await service.auth.admin.createUser({ email, password: 'password-123456', email_confirm: true });
    assert.ifError(error);
    assert.deepEqual(data.user.user_metadata, {});
    assert.equal(data.user.identities[0].identity_data.sub, data.user.id);
    const withData = await service.auth.admin.createUser({ phone: '+254700000081', phone_confirm: true, user_metadata: { name: 'Akinyi' } });
    assert.ifError(withData.error);
    assert.deepEqual(withData.data.user.user_metadata, { name: 'Akinyi' });
  });

  test('listUsers refuses a negative page', async () => {
    const { data, error } = await service.auth.admin.listUsers({ page: -1, perPage: 10 });
    assert.ok(error, JSON.stringify(data));
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.message, 'Bad Pagination Parameters: strconv.ParseUint: parsing "-1": invalid syntax');
  });

  test('generateLink: action_link is /verify?token=…&type=…&redirect_to=…', async () => {
    const email = `link-${randomUUID().slice(0, 8)}@example.com`;
    await service.auth.admin.createUser({ email, email_confirm: true });
    const { data, error } = await service.auth.admin.generateLink({ type: 'magiclink', email, options: { redirectTo: stack.url } });
    assert.ifError(error);
    const link = data.properties.action_link;
    assert.equal(link, `${stack.url}/auth/v1/verify?token=${data.properties.hashed_token}&type=magiclink&redirect_to=${stack.url}`);
  });
});
