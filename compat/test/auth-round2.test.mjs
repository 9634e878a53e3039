// authsvc's second round through the official client (@supabase/supabase-js):
// SSO and Web3 answering with GoTrue's disabled-feature errors,
// signInWithIdToken with a real Google-like id_token (minted by the
// harness's OpenID Connect provider, panva's oidc-provider, in a code flow
// this suite runs as the app would with Google's SDK), and manual identity
// linking and unlinking (linkIdentity through the provider and with an
// id_token, getUserIdentities, unlinkIdentity), and the OAuth 2.1 server's
// admin API (auth.admin.oauth.*).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { startStack } from '../harness/stack.mjs';
import { followRedirects, startOIDCProvider } from '../harness/oidc.mjs';

const uniq = () => randomBytes(4).toString('hex');
const fragmentOf = (location) => new URLSearchParams(location.slice(location.indexOf('#') + 1));

let oidc, stack;
const google = { clientId: 'kejanest-round2-client', clientSecret: 'oidc-secret-' + uniq() };
// Where the "app" (this suite, playing Google's SDK) receives its own code.
const appRedirect = () => `${stack.url}/native-app`;

before(async () => {
  oidc = await startOIDCProvider(google);
  const forAuth = (env) => Object.fromEntries(Object.entries(env).map(([k, v]) => [`KEJANEST_AUTHSVC_${k}`, v]));
  stack = await startStack({
    env: forAuth({
      GOTRUE_MAILER_AUTOCONFIRM: 'true',
      GOTRUE_PASSWORD_HASH_COST: '6',
      GOTRUE_EXTERNAL_GOOGLE_ENABLED: 'true',
      GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID: google.clientId,
      GOTRUE_EXTERNAL_GOOGLE_SECRET: google.clientSecret,
      GOTRUE_EXTERNAL_GOOGLE_ISSUER: oidc.issuer,
      GOTRUE_SECURITY_MANUAL_LINKING_ENABLED: 'true',
      GOTRUE_OAUTH_SERVER_ENABLED: 'true',
    }),
  });
  oidc.configure({ redirectUris: [`${stack.url}/auth/v1/callback`, appRedirect()] });
});

after(async () => {
  await stack?.stop();
  await oidc?.stop();
});

const client = (options = {}) => createClient(stack.url, stack.anonKey, {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, ...options },
  realtime: { transport: WebSocket },
});

async function passwordUser() {
  const email = `r2-${uniq()}@example.com`;
  const password = 'correct-horse-9';
  const sb = client();
  const { error } = await sb.auth.signUp({ email, password });
  assert.equal(error, null);
  const signedIn = await sb.auth.signInWithPassword({ email, password });
  assert.equal(signedIn.error, null);
  return { sb, email, user: signedIn.data.user };
}

/**
 * An id_token for user as Google's SDK hands it to an app: a real code flow
 * at the provider, as this client, with the SHA-256 of rawNonce as the
 * nonce (what GoTrue expects), redeemed by the app itself.
 */
async function mintIdToken(user, rawNonce) {
  oidc.state.nextUser = user;
  const verifier = randomBytes(32).toString('base64url');
  const q = new URLSearchParams({
    client_id: google.clientId,
    redirect_uri: appRedirect(),
    response_type: 'code',
    scope: 'openid email profile',
    state: uniq(),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  if (rawNonce) q.set('nonce', createHash('sha256').update(rawNonce).digest('hex'));
  const landed = new URL(await followRedirects(`${oidc.issuer}/auth?${q}`, appRedirect()));
  const code = landed.searchParams.get('code');
  assert.ok(code, landed.toString());
  const res = await fetch(`${oidc.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code, redirect_uri: appRedirect(), code_verifier: verifier,
      client_id: google.clientId, client_secret: google.clientSecret,
    }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return { idToken: body.id_token, accessToken: body.access_token };
}

const googleUser = (name) => {
  const sub = `g-${name}-${uniq()}`;
  return { sub, email: `${sub}@gmail.example`, email_verified: true, name: `Google ${name}` };
};

describe('disabled features', () => {
  test('signInWithSSO: 404 saml_provider_disabled', async () => {
    const byDomain = await client().auth.signInWithSSO({ domain: 'example.com' });
    assert.equal(byDomain.data, null);
    assert.equal(byDomain.error.status, 404);
    assert.equal(byDomain.error.code, 'saml_provider_disabled');
    assert.equal(byDomain.error.message, 'SAML 2.0 is disabled');
    const byProvider = await client({ flowType: 'pkce' }).auth.signInWithSSO({ providerId: '00000000-0000-0000-0000-000000000000' });
    assert.equal(byProvider.error.code, 'saml_provider_disabled');
  });

  test('signInWithWeb3: 422 web3_provider_disabled', async () => {
    const { data, error } = await client().auth.signInWithWeb3({ chain: 'solana', message: 'example.com wants you to sign in', signature: new Uint8Array(64) });
    assert.equal(data.session, null);
    assert.equal(error.status, 422);
    assert.equal(error.code, 'web3_provider_disabled');
    assert.equal(error.message, 'Web3 provider is disabled');
  });
});

describe('signInWithIdToken (Google)', () => {
  test('a provider id_token with its nonce signs up, then signs in the same user', async () => {
    const g = googleUser('idt');
    const nonce = uniq();
    const { idToken, accessToken } = await mintIdToken(g, nonce);
    const sb = client();
    const { data, error } = await sb.auth.signInWithIdToken({ provider: 'google', token: idToken, access_token: accessToken, nonce });
    assert.equal(error, null);
    assert.ok(data.session.access_token);
    assert.equal(data.user.email, g.email);
    assert.ok(data.user.email_confirmed_at, 'email_verified from the provider confirms the address');
    assert.equal(data.user.app_metadata.provider, 'google');
    assert.equal(data.user.user_metadata.full_name, g.name);
    assert.equal(data.user.identities[0].id, g.sub);
    const me = await sb.auth.getUser();
    assert.equal(me.data.user.id, data.user.id);

    const again = await mintIdToken(g, null);
    const second = await client().auth.signInWithIdToken({ provider: 'google', token: again.idToken });
    assert.equal(second.error, null);
    assert.equal(second.data.user.id, data.user.id);
  });

  test('refusals: nonce, access token, provider', async () => {
    const g = googleUser('refused');
    const nonce = uniq();
    const { idToken } = await mintIdToken(g, nonce);
    const sb = client();
    const wrongNonce = await sb.auth.signInWithIdToken({ provider: 'google', token: idToken, nonce: 'not-' + nonce });
    assert.equal(wrongNonce.error.status, 400);
    assert.equal(wrongNonce.error.message, 'Nonces mismatch');
    const noNonce = await sb.auth.signInWithIdToken({ provider: 'google', token: idToken });
    assert.equal(noNonce.error.message, 'Passed nonce and nonce in id_token should either both exist or not.');
    // (at_hash, when a token carries one, is checked in authsvc's unit
    // tests: oidc-provider leaves it out of a code flow's id_token.)
    const tampered = idToken.slice(0, -4) + (idToken.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const forged = await sb.auth.signInWithIdToken({ provider: 'google', token: tampered, nonce });
    assert.equal(forged.error.message, 'Bad ID token');
    const github = await sb.auth.signInWithIdToken({ provider: 'github', token: idToken, nonce });
    assert.equal(github.error.status, 400);
    assert.equal(github.error.code, 'validation_failed');
    assert.equal(github.error.message, 'Custom OIDC provider "github" not allowed');
    const users = await createClient(stack.url, stack.serviceRoleKey, { auth: { persistSession: false }, realtime: { transport: WebSocket } }).auth.admin.listUsers({ perPage: 1000 });
    assert.ok(!users.data.users.some((u) => u.email === g.email), 'no user from a refused token');
  });
});

describe('manual identity linking', () => {
  test('linkIdentity through the provider, getUserIdentities, unlinkIdentity', async () => {
    const { sb, email, user } = await passwordUser();
    const g = googleUser('link');
    oidc.state.nextUser = g;
    const { data, error } = await sb.auth.linkIdentity({ provider: 'google', options: { redirectTo: `${stack.url}/linked`, skipBrowserRedirect: true } });
    assert.equal(error, null);
    assert.equal(data.provider, 'google');
    const landed = await followRedirects(data.url, `${stack.url}/linked`);
    const frag = fragmentOf(landed);
    assert.equal(frag.get('error'), null, landed);
    // The callback signs the same user in.
    const linkedSession = await client().auth.setSession({ access_token: frag.get('access_token'), refresh_token: frag.get('refresh_token') });
    assert.equal(linkedSession.data.user.id, user.id);
    assert.equal(linkedSession.data.user.email, email);

    const ids = await sb.auth.getUserIdentities();
    assert.equal(ids.error, null);
    assert.deepEqual(ids.data.identities.map((i) => i.provider).sort(), ['email', 'google']);
    const googleIdentity = ids.data.identities.find((i) => i.provider === 'google');
    assert.equal(googleIdentity.id, g.sub);
    assert.equal(googleIdentity.identity_data.email, g.email);

    // The same Google account cannot be linked to another user.
    const other = await passwordUser();
    oidc.state.nextUser = g;
    const twice = await other.sb.auth.linkIdentity({ provider: 'google', options: { redirectTo: `${stack.url}/linked`, skipBrowserRedirect: true } });
    const refused = fragmentOf(await followRedirects(twice.data.url, `${stack.url}/linked`));
    assert.equal(refused.get('error_code'), 'identity_already_exists');
    assert.equal(refused.get('error_description'), 'Identity is already linked to another user');

    const un = await sb.auth.unlinkIdentity(googleIdentity);
    assert.equal(un.error, null);
    const left = await sb.auth.getUserIdentities();
    assert.deepEqual(left.data.identities.map((i) => i.provider), ['email']);
    const last = await sb.auth.unlinkIdentity(left.data.identities[0]);
    assert.equal(last.error.status, 422);
    assert.equal(last.error.code, 'single_identity_not_deletable');
    assert.equal(last.error.message, 'User must have at least 1 identity after unlinking');
    const someoneElses = await sb.auth.unlinkIdentity((await other.sb.auth.getUserIdentities()).data.identities[0]);
    assert.equal(someoneElses.error.code, 'single_identity_not_deletable', 'checked on the caller first, as GoTrue does');
  });

  test('linkIdentity with an id_token; unlinking the email identity moves the email', async () => {
    const { sb, user } = await passwordUser();
    const g = googleUser('linktoken');
    const nonce = uniq();
    const { idToken } = await mintIdToken(g, nonce);
    const { data, error } = await sb.auth.linkIdentity({ provider: 'google', token: idToken, nonce });
    assert.equal(error, null);
    assert.equal(data.user.id, user.id);
    assert.deepEqual(data.user.identities.map((i) => i.provider).sort(), ['email', 'google']);

    const emailIdentity = data.user.identities.find((i) => i.provider === 'email');
    assert.equal((await sb.auth.unlinkIdentity(emailIdentity)).error, null);
    const { data: after } = await sb.auth.getUser();
    assert.equal(after.user.email, g.email, "the remaining identity's verified email becomes the user's");
    assert.ok(after.user.email_confirmed_at);
    assert.equal(after.user.app_metadata.provider, 'google');
    assert.deepEqual(after.user.app_metadata.providers, ['google']);
    // And Google alone signs in now.
    const again = await mintIdToken(g, null);
    const signedIn = await client().auth.signInWithIdToken({ provider: 'google', token: again.idToken });
    assert.equal(signedIn.data.user.id, user.id);
  });
});

describe('OAuth 2.1 server admin API', () => {
  const adminClient = () => createClient(stack.url, stack.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket },
  });

  test('create, list, get, update, regenerate the secret, delete', async () => {
    const oauth = adminClient().auth.admin.oauth;
    const created = await oauth.createClient({ client_name: 'Partner ' + uniq(), redirect_uris: ['https://partner.example/cb'] });
    assert.equal(created.error, null);
    const c = created.data;
    assert.equal(c.client_type, 'confidential');
    assert.equal(c.registration_type, 'manual');
    assert.deepEqual(c.grant_types, ['authorization_code', 'refresh_token']);
    assert.deepEqual(c.response_types, ['code']);
    assert.ok(c.client_secret && c.client_secret.length >= 43, 'the secret, shown once');

    const pub = await oauth.createClient({ client_name: 'SPA', redirect_uris: ['http://localhost:5173/cb'], token_endpoint_auth_method: 'none' });
    assert.equal(pub.data.client_type, 'public');
    assert.equal(pub.data.client_secret, undefined);

    const list = await oauth.listClients();
    assert.equal(list.error, null);
    const ids = list.data.clients.map((x) => x.client_id);
    assert.ok(ids.includes(c.client_id) && ids.includes(pub.data.client_id));
    assert.ok(list.data.clients.every((x) => x.client_secret === undefined), 'no secret in a list');

    const got = await oauth.getClient(c.client_id);
    assert.equal(got.data.client_name, c.client_name);
    assert.equal(got.data.client_secret, undefined);

    const updated = await oauth.updateClient(c.client_id, { client_name: 'Renamed', redirect_uris: ['https://partner.example/cb2'] });
    assert.equal(updated.error, null);
    assert.equal(updated.data.client_name, 'Renamed');
    assert.deepEqual(updated.data.redirect_uris, ['https://partner.example/cb2']);

    const regen = await oauth.regenerateClientSecret(c.client_id);
    assert.equal(regen.error, null);
    assert.ok(regen.data.client_secret && regen.data.client_secret !== c.client_secret);
    const refused = await oauth.regenerateClientSecret(pub.data.client_id);
    assert.equal(refused.error.status, 400);
    assert.equal(refused.error.message, 'Cannot regenerate secret for public client');

    const del = await oauth.deleteClient(c.client_id);
    assert.equal(del.error, null);
    const gone = await oauth.getClient(c.client_id);
    assert.equal(gone.error.status, 404);
    assert.equal(gone.error.code, 'oauth_client_not_found');
  });

  test('validation and admin-only', async () => {
    const bad = await adminClient().auth.admin.oauth.createClient({ client_name: 'x', redirect_uris: ['http://partner.example/cb'] });
    assert.equal(bad.error.status, 400);
    assert.equal(bad.error.code, 'validation_failed');
    assert.equal(bad.error.message, "invalid redirect_uri 'http://partner.example/cb': HTTP scheme only allowed for localhost");
    const asUser = await createClient(stack.url, stack.anonKey, { auth: { persistSession: false }, realtime: { transport: WebSocket } })
      .auth.admin.oauth.listClients();
    assert.equal(asUser.error.status, 403);
    assert.equal(asUser.error.code, 'not_admin');
  });
});

// JWT_JWKS as a URL: every verifying service fetches the key set from an
// issuer (here a server of this suite's, publishing authsvc's public key and
// later a rotated one), refetching on a kid it does not know.
describe('JWT_JWKS as a URL', () => {
  const b64url = (b) => Buffer.from(b).toString('base64url');
  const newKey = (kid) => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = privateKey.export({ format: 'jwk' });
    return { kid, privateKey, pub: { kty: 'EC', kid, use: 'sig', alg: 'ES256', crv: jwk.crv, x: jwk.x, y: jwk.y }, priv: jwk };
  };
  const mint = (key, claims) => {
    const head = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: key.kid }));
    const body = b64url(JSON.stringify(claims));
    const sig = sign('sha256', Buffer.from(`${head}.${body}`), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${head}.${body}.${b64url(sig)}`;
  };
  const k1 = newKey('url-k1');
  const k2 = newKey('url-k2');
  let published = [k1.pub];
  let fetches = 0;
  let issuer, urlStack;

  before(async () => {
    issuer = createServer((req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: published }));
    });
    issuer.listen(0, '127.0.0.1');
    await once(issuer, 'listening');
    urlStack = await startStack({
      env: {
        JWT_KEYS: JSON.stringify([{ ...k1.pub, key_ops: ['sign', 'verify'], d: k1.priv.d }]),
        JWT_JWKS: `http://127.0.0.1:${issuer.address().port}/auth/v1/.well-known/jwks.json`,
        KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM: 'true',
      },
    });
  });
  after(async () => {
    await urlStack?.stop();
    await new Promise((r) => issuer ? issuer.close(r) : r());
  });

  const as = (token) => createClient(urlStack.url, urlStack.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket },
    global: { headers: { Authorization: `Bearer ${token}` } },
  });

  test("authsvc's ES256 session, then a rotated key, verified by rest and storage through the fetched set", { timeout: 120_000 }, async () => {
    const { data, error } = await createClient(urlStack.url, urlStack.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket },
    }).auth.signUp({ email: `url-${uniq()}@example.com`, password: 'password-123456' });
    assert.equal(error, null);
    assert.equal(JSON.parse(Buffer.from(data.session.access_token.split('.')[0], 'base64url')).kid, 'url-k1');
    const user = as(data.session.access_token);
    const buckets = await user.storage.listBuckets();
    assert.equal(buckets.error, null, 'storage verifies the session with the fetched key');
    const rest = await user.from('properties').select('id').limit(1);
    assert.equal(rest.error, null, 'rest verifies it too');
    assert.ok(fetches >= 1);

    // The issuer rotates: tokens signed with the new key are accepted once
    // a service refetches on the unknown kid.
    published = [k1.pub, k2.pub];
    const claims = { role: 'authenticated', sub: randomUUID(), aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 600 };
    const rotated = as(mint(k2, claims));
    // Within 30 s of a service's last fetch an unknown kid does not fetch
    // again (a stream of forged kids must not become a stream of requests
    // to the issuer): refused for now.
    const early = await rotated.from('properties').select('id').limit(1);
    assert.equal(early.status, 401);
    await new Promise((r) => setTimeout(r, 31_000));
    const before = fetches;
    assert.equal((await rotated.storage.listBuckets()).error, null);
    assert.equal((await rotated.from('properties').select('id').limit(1)).error, null);
    assert.ok(fetches > before, 'the unknown kid made the services fetch the set again');

    // A key the issuer never published is refused.
    const forged = as(mint(newKey('url-k2'), claims));
    const refused = await forged.from('properties').select('id').limit(1);
    assert.equal(refused.status, 401);
    assert.equal(refused.error.code, 'PGRST301');
  });
});
