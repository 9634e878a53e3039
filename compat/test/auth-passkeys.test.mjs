// Passkeys through the gateway with supabase-js: auth.passkey.* (the
// two-step ceremony API auth-js exposes for native flows, which needs no
// navigator.credentials), auth.admin.passkey.*, and signInWithPasskey /
// registerPasskey against a stubbed navigator.credentials. The software
// authenticator of harness/webauthn.mjs answers every ceremony.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startStack } from '../harness/stack.mjs';
import { b64u, softAuthenticator, userHandle } from '../harness/webauthn.mjs';

const rpId = 'localhost';
const origin = 'http://localhost:5173';

let stack;
before(async () => {
  stack = await startStack({
    env: {
      KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM: 'true',
      KEJANEST_AUTHSVC_GOTRUE_PASSWORD_HASH_COST: '6',
      KEJANEST_AUTHSVC_GOTRUE_PASSKEY_ENABLED: 'true',
      KEJANEST_AUTHSVC_GOTRUE_WEBAUTHN_RP_ID: rpId,
      KEJANEST_AUTHSVC_GOTRUE_WEBAUTHN_RP_ORIGINS: origin,
      KEJANEST_AUTHSVC_GOTRUE_WEBAUTHN_RP_DISPLAY_NAME: 'KejaNest',
    },
  });
});
after(async () => { await stack?.stop(); });

const claims = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

// signedIn is a client holding a fresh user's session.
async function signedIn() {
  const sb = stack.client(stack.anonKey, { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } });
  const email = `pk-${randomBytes(4).toString('hex')}@example.com`;
  const { data, error } = await sb.auth.signUp({ email, password: 'correct-horse-9' });
  assert.equal(error, null);
  return { sb, email, user: data.user };
}

async function register(sb, auth) {
  const { data: start, error } = await sb.auth.passkey.startRegistration();
  assert.equal(error, null);
  return sb.auth.passkey.verifyRegistration({
    challengeId: start.challenge_id,
    credential: auth.create(start.options.challenge, rpId, origin),
  });
}

async function login(sb, auth, userId, opts) {
  const { data: start, error } = await sb.auth.passkey.startAuthentication();
  assert.equal(error, null);
  return sb.auth.passkey.verifyAuthentication({
    challengeId: start.challenge_id,
    credential: auth.get(start.options.challenge, rpId, origin, userHandle(userId), opts),
  });
}

test('a signed-in user registers a passkey and signs in with it, aal1 with amr passkey', async () => {
  const { sb, email, user } = await signedIn();
  const { data: start, error } = await sb.auth.passkey.startRegistration();
  assert.equal(error, null);
  assert.equal(start.options.rp.id, rpId);
  assert.equal(start.options.rp.name, 'KejaNest');
  assert.equal(start.options.user.name, email);
  assert.equal(start.options.authenticatorSelection.residentKey, 'required');
  assert.ok(start.expires_at > Date.now() / 1000);

  const auth = softAuthenticator();
  const { data: reg, error: regError } = await sb.auth.passkey.verifyRegistration({
    challengeId: start.challenge_id,
    credential: auth.create(start.options.challenge, rpId, origin),
  });
  assert.equal(regError, null);
  assert.match(reg.id, /^[0-9a-f-]{36}$/);

  // A second client, signed out, signs in with the passkey alone.
  const fresh = stack.client();
  const { data: opts } = await fresh.auth.passkey.startAuthentication();
  assert.equal(opts.options.rpId, rpId);
  assert.ok(!opts.options.allowCredentials?.length, 'a discoverable login names no credentials');
  const { data: signIn, error: signInError } = await fresh.auth.passkey.verifyAuthentication({
    challengeId: opts.challenge_id,
    credential: auth.get(opts.options.challenge, rpId, origin, userHandle(user.id)),
  });
  assert.equal(signInError, null);
  assert.equal(signIn.user.id, user.id);
  const c = claims(signIn.session.access_token);
  assert.equal(c.aal, 'aal1');
  assert.deepEqual(c.amr.map((m) => m.method), ['passkey']);
  const { data: me } = await fresh.auth.getUser(signIn.session.access_token);
  assert.equal(me.user.email, email);

  // The same challenge cannot be answered twice.
  const replay = await fresh.auth.passkey.verifyAuthentication({
    challengeId: opts.challenge_id,
    credential: auth.get(opts.options.challenge, rpId, origin, userHandle(user.id)),
  });
  assert.equal(replay.error?.code, 'webauthn_challenge_expired');
});

test('a wrong signature, a sign count that goes back and a deleted passkey are refused', async () => {
  const { sb, user } = await signedIn();
  const auth = softAuthenticator();
  assert.equal((await register(sb, auth)).error, null);

  const bad = await login(stack.client(), auth, user.id, { tamper: true });
  assert.equal(bad.error?.status, 400);
  assert.equal(bad.error?.code, 'invalid_credentials');

  assert.equal((await login(stack.client(), auth, user.id)).error, null);
  auth.rewind(3);
  const cloned = await login(stack.client(), auth, user.id);
  assert.equal(cloned.error?.code, 'invalid_credentials');

  const { data: list } = await sb.auth.passkey.list();
  assert.equal(list.length, 1);
  assert.equal((await sb.auth.passkey.delete({ passkeyId: list[0].id })).error, null);
  auth.rewind(-10);
  const gone = await login(stack.client(), auth, user.id);
  assert.equal(gone.error?.code, 'invalid_credentials');
});

test('passkeys are listed, renamed and deleted by their owner and by an admin, not by another user', async () => {
  const { sb, user } = await signedIn();
  const auth = softAuthenticator();
  const { data: reg } = await register(sb, auth);

  const { data: renamed, error } = await sb.auth.passkey.update({ passkeyId: reg.id, friendlyName: 'Work laptop' });
  assert.equal(error, null);
  assert.equal(renamed.friendly_name, 'Work laptop');
  const { data: list } = await sb.auth.passkey.list();
  assert.deepEqual(list.map((p) => [p.id, p.friendly_name]), [[reg.id, 'Work laptop']]);

  const { sb: other } = await signedIn();
  assert.deepEqual((await other.auth.passkey.list()).data, []);
  const stolen = await other.auth.passkey.update({ passkeyId: reg.id, friendlyName: 'mine' });
  assert.equal(stolen.error?.status, 404);
  assert.equal((await other.auth.passkey.delete({ passkeyId: reg.id })).error?.status, 404);

  const admin = stack.client(stack.serviceRoleKey);
  const { data: adminList, error: listError } = await admin.auth.admin.passkey.listPasskeys({ userId: user.id });
  assert.equal(listError, null);
  assert.deepEqual(adminList.map((p) => p.id), [reg.id]);
  assert.equal((await sb.auth.admin.passkey.listPasskeys({ userId: user.id })).error?.status, 403);
  assert.equal((await admin.auth.admin.passkey.deletePasskey({ userId: user.id, passkeyId: reg.id })).error, null);
  assert.deepEqual((await sb.auth.passkey.list()).data, []);
});

// signInWithPasskey and registerPasskey drive navigator.credentials; here a
// stub answers with the software authenticator, as a browser would with
// its own, returning PublicKeyCredential instances with toJSON.
test('registerPasskey and signInWithPasskey run the whole ceremony', async (t) => {
  const saved = Object.fromEntries(['window', 'document', 'navigator', 'PublicKeyCredential']
    .map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)]));
  t.after(() => {
    for (const [k, d] of Object.entries(saved)) {
      if (d) Object.defineProperty(globalThis, k, d);
      else delete globalThis[k];
    }
  });
  const auth = softAuthenticator();
  let owner;
  class PublicKeyCredential {
    constructor(json) { this.json = json; this.id = json.id; this.type = json.type; }
    toJSON() { return this.json; }
  }
  const challengeOf = (buf) => b64u(Buffer.from(buf));
  const credentials = {
    async create({ publicKey }) { return new PublicKeyCredential(auth.create(challengeOf(publicKey.challenge), publicKey.rp.id, origin)); },
    async get({ publicKey }) { return new PublicKeyCredential(auth.get(challengeOf(publicKey.challenge), publicKey.rpId, origin, userHandle(owner))); },
  };
  const noop = () => {};
  Object.defineProperty(globalThis, 'navigator', { value: { credentials, userAgent: 'node' }, configurable: true, writable: true });
  globalThis.PublicKeyCredential = PublicKeyCredential;
  globalThis.document = { addEventListener: noop, removeEventListener: noop, visibilityState: 'visible' };
  globalThis.window = { PublicKeyCredential, addEventListener: noop, removeEventListener: noop };

  const { sb, user } = await signedIn();
  owner = user.id;
  const reg = await sb.auth.registerPasskey();
  assert.equal(reg.error, null);
  assert.match(reg.data.id, /^[0-9a-f-]{36}$/);

  const fresh = stack.client();
  const events = [];
  fresh.auth.onAuthStateChange((event) => events.push(event));
  const { data, error } = await fresh.auth.signInWithPasskey();
  assert.equal(error, null);
  assert.equal(data.user.id, user.id);
  assert.ok(events.includes('SIGNED_IN'), `events ${events}`);
  const { data: session } = await fresh.auth.getSession();
  assert.equal(claims(session.session.access_token).sub, user.id);
});
