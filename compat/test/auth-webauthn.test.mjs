// WebAuthn MFA factors through the gateway, as auth-js's mfa.webauthn
// drives them (POST /factors, /factors/{id}/challenge, /factors/{id}/verify),
// answered by the software authenticator of harness/webauthn.mjs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { startStack } from '../harness/stack.mjs';
import { b64u, softAuthenticator, userHandle as handleOf } from '../harness/webauthn.mjs';

let stack;
before(async () => {
  stack = await startStack({
    env: {
      KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM: 'true',
      KEJANEST_AUTHSVC_GOTRUE_PASSWORD_HASH_COST: '6',
      KEJANEST_AUTHSVC_GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED: 'true',
      KEJANEST_AUTHSVC_GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED: 'true',
    },
  });
});
after(async () => { await stack?.stop(); });

const client = (options = {}) => createClient(stack.url, stack.anonKey, {
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: WebSocket },
  ...options,
});

const rp = { rp_id: 'localhost', rp_origins: ['http://localhost:5173'] };
async function call(path, token, body) {
  const res = await fetch(`${stack.url}/auth/v1${path}`, {
    method: 'POST',
    headers: { apikey: stack.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const claims = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

test('a WebAuthn factor enrols, verifies to aal2, steps up a new sign-in and refuses a wrong signature', async () => {
  const sb = client();
  const email = `wa-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'correct-horse-9';
  const { data: signUp, error } = await sb.auth.signUp({ email, password });
  assert.equal(error, null);
  const token = signUp.session.access_token;

  const enrolled = await call('/factors', token, { factor_type: 'webauthn', friendly_name: 'laptop' });
  assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));
  assert.equal(enrolled.body.type, 'webauthn');
  const factorId = enrolled.body.id;

  const ch = await call(`/factors/${factorId}/challenge`, token, { webauthn: rp });
  assert.equal(ch.status, 200, JSON.stringify(ch.body));
  assert.equal(ch.body.webauthn.type, 'create');
  const creation = ch.body.webauthn.credential_options.publicKey;
  assert.equal(creation.rp.id, 'localhost');
  assert.equal(creation.user.name, email);

  const auth = softAuthenticator();
  const v = await call(`/factors/${factorId}/verify`, token, {
    challenge_id: ch.body.id,
    webauthn: { type: 'create', ...rp, credential_response: auth.create(creation.challenge, 'localhost', rp.rp_origins[0]) },
  });
  assert.equal(v.status, 200, JSON.stringify(v.body));
  assert.equal(claims(v.body.access_token).aal, 'aal2');
  assert.ok(claims(v.body.access_token).amr.some((m) => m.method === 'mfa/webauthn'));

  // A fresh password sign-in is aal1 until a request ceremony.
  const { data: again } = await sb.auth.signInWithPassword({ email, password });
  const token2 = again.session.access_token;
  assert.equal(claims(token2).aal, 'aal1');
  const ch2 = await call(`/factors/${factorId}/challenge`, token2, { webauthn: { rpId: 'localhost', rpOrigins: rp.rp_origins } });
  assert.equal(ch2.status, 200, JSON.stringify(ch2.body));
  assert.equal(ch2.body.webauthn.type, 'request');
  const request = ch2.body.webauthn.credential_options.publicKey;
  assert.deepEqual(request.allowCredentials.map((c) => c.id), [b64u(auth.credId)]);
  const userHandle = handleOf(claims(token2).sub);

  const bad = await call(`/factors/${factorId}/verify`, token2, {
    challenge_id: ch2.body.id,
    webauthn: { type: 'request', credential_response: auth.get(request.challenge, 'localhost', rp.rp_origins[0], userHandle, { tamper: true }) },
  });
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
  assert.equal(bad.body.error_code ?? bad.body.code, 'mfa_verification_failed');

  const ok = await call(`/factors/${factorId}/verify`, token2, {
    challenge_id: ch2.body.id,
    webauthn: { type: 'request', credential_response: auth.get(request.challenge, 'localhost', rp.rp_origins[0], userHandle) },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(claims(ok.body.access_token).aal, 'aal2');

  // supabase-js lists the verified factor.
  const { data: user } = await client().auth.getUser(ok.body.access_token);
  assert.deepEqual(user.user.factors.map((f) => [f.factor_type, f.status]), [['webauthn', 'verified']]);
});
