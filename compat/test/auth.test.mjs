// authsvc through the gateway with the official client (@supabase/supabase-js):
// sign-up with and without autoconfirm (following the link from the dev
// mailbox), password sign-in and errors, auth events, refresh, updateUser,
// sign-out, recovery, magic link / email OTP, phone OTP (through a fake
// Twilio API), TOTP MFA, Google sign-in against a local OpenID Connect
// provider started here (panva's oidc-provider, harness/oidc.mjs: implicit
// and PKCE), the admin API and bans.
//
// The suite starts its own mail catcher (authsvc/cmd/devmail, built here),
// OIDC provider and SMS endpoint, and passes GOTRUE_* settings to the stack.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { repoRoot, startStack } from '../harness/stack.mjs';
import { followRedirects, startOIDCProvider } from '../harness/oidc.mjs';
import { freePort } from '../harness/ports.mjs';

const password = 'correct-horse-9';
const uniq = () => randomBytes(4).toString('hex');

// ---------- helpers: free ports, devmail, fake SMS ----------
// (the OpenID Connect provider, panva's oidc-provider, is in harness/oidc.mjs)

async function startDevmail() {
  const dir = mkdtempSync(join(tmpdir(), 'devmail-'));
  const bin = join(dir, 'devmail');
  execFileSync('go', ['build', '-o', bin, './authsvc/cmd/devmail'], { cwd: repoRoot, stdio: 'inherit' });
  const smtpPort = await freePort();
  const webPort = await freePort();
  const child = spawn(bin, [], {
    env: { ...process.env, DEVMAIL_SMTP_ADDR: `127.0.0.1:${smtpPort}`, DEVMAIL_WEB_ADDR: `127.0.0.1:${webPort}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const web = `http://127.0.0.1:${webPort}`;
  let healthy = false;
  for (let i = 0; i < 100 && !healthy && child.exitCode === null; i++) {
    try { healthy = (await fetch(`${web}/health`)).ok; } catch { /* not yet */ }
    if (!healthy) await new Promise((r) => setTimeout(r, 50));
  }
  if (!healthy || child.exitCode !== null) {
    child.kill('SIGKILL');
    throw new Error(`devmail did not start on ${smtpPort}/${webPort} (exit ${child.exitCode})`);
  }
  return {
    smtpPort, web,
    stop: async () => { child.kill('SIGTERM'); if (child.exitCode === null) await once(child, 'exit'); },
    /** Newest message to addr, waiting for it to arrive. */
    async latest(addr, { after = 0 } = {}) {
      for (let i = 0; i < 100; i++) {
        const list = await (await fetch(`${web}/api/messages?to=${encodeURIComponent(addr)}`)).json();
        if (list.length && list[0].id > after) return list[0];
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no mail to ${addr}`);
    },
  };
}

function codeOf(msg) {
  const m = /enter the code: (\d{6,10})/i.exec(msg.html);
  assert.ok(m, `a code in ${msg.html}`);
  return m[1];
}

// A Twilio-shaped SMS endpoint that keeps the texts.
async function startFakeTwilio() {
  const texts = new Map();
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const to = form.get('To').replace(/^\+/, '');
      texts.set(to, [...(texts.get(to) ?? []), form.get('Body')]);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sid: 'SM' + uniq(), status: 'queued' }));
    });
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  return {
    url: `http://127.0.0.1:${srv.address().port}`,
    last: (phone) => (texts.get(phone.replace(/^\+/, '')) ?? []).at(-1),
    stop: () => new Promise((r) => srv.close(r)),
  };
}

// RFC 6238 TOTP (SHA1, 6 digits, 30 s) from a base32 secret.
function totp(secret, t = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(t / 1000 / 30)));
  const h = createHmac('sha1', key).update(counter).digest();
  const o = h[h.length - 1] & 0xf;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const claimsOf = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
const fragmentOf = (location) => new URLSearchParams(location.slice(location.indexOf('#') + 1));

// ---------------------------------- suite ----------------------------------

let devmail, twilio, oidc, stack, autoStack;
const google = { clientId: 'kejanest-test-client', clientSecret: 'oidc-secret-' + uniq() };

before(async () => {
  // devmail first: its ports are picked free and bound only when it
  // starts, and the other two bind free ports of their own.
  devmail = await startDevmail();
  [twilio, oidc] = await Promise.all([startFakeTwilio(), startOIDCProvider(google)]);
  const common = {
    GOTRUE_SMTP_HOST: '127.0.0.1',
    GOTRUE_SMTP_PORT: String(devmail.smtpPort),
    GOTRUE_SMTP_ADMIN_EMAIL: 'admin@kejanest.test',
    GOTRUE_SMTP_MAX_FREQUENCY: '1s',
    GOTRUE_RATE_LIMIT_EMAIL_SENT: '1000/1h',
    GOTRUE_RATE_LIMIT_OTP: '1000/5m',
    GOTRUE_PASSWORD_HASH_COST: '6',
  };
  // KEJANEST_AUTHSVC_<NAME> reaches authsvc alone and wins over devstack's
  // own settings (its mailbox, for one: this suite reads its own).
  const forAuth = (env) => Object.fromEntries(Object.entries(env).map(([k, v]) => [`KEJANEST_AUTHSVC_${k}`, v]));
  [stack, autoStack] = await Promise.all([
    startStack({
      env: forAuth({
        ...common,
        GOTRUE_MAILER_AUTOCONFIRM: 'false',
        GOTRUE_EXTERNAL_PHONE_ENABLED: 'true',
        GOTRUE_SMS_PROVIDER: 'twilio',
        GOTRUE_SMS_API_URL: twilio.url,
        GOTRUE_SMS_TWILIO_ACCOUNT_SID: 'AC-test',
        GOTRUE_SMS_TWILIO_AUTH_TOKEN: 'twilio-token',
        GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID: 'MG-test',
        GOTRUE_SMS_MAX_FREQUENCY: '1s',
        GOTRUE_EXTERNAL_GOOGLE_ENABLED: 'true',
        GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID: google.clientId,
        GOTRUE_EXTERNAL_GOOGLE_SECRET: google.clientSecret,
        GOTRUE_EXTERNAL_GOOGLE_ISSUER: oidc.issuer,
        GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
      }),
    }),
    startStack({ env: forAuth({ ...common, GOTRUE_MAILER_AUTOCONFIRM: 'true' }) }),
  ]);
  // authsvc's redirect_uri is <API_EXTERNAL_URL>/auth/v1/callback, the
  // gateway's: known only now. authsvc discovers the provider on first use.
  oidc.configure({ redirectUris: [`${stack.url}/auth/v1/callback`] });
});

after(async () => {
  await Promise.all([stack?.stop(), autoStack?.stop()]);
  await Promise.all([devmail?.stop(), twilio?.stop(), oidc?.stop()]);
});

const client = (s = stack, options = {}) => createClient(s.url, s.anonKey, {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, ...options },
  realtime: { transport: WebSocket },
});
const admin = (s = stack) => createClient(s.url, s.serviceRoleKey, {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  realtime: { transport: WebSocket },
});

async function confirmedUser(s = stack, extra = {}) {
  const email = `u-${uniq()}@example.com`;
  const { data, error } = await admin(s).auth.admin.createUser({ email, password, email_confirm: true, ...extra });
  assert.equal(error, null);
  return { email, user: data.user };
}

describe('sign-up', () => {
  test('with autoconfirm: a session at once, data in user_metadata and the JWT', async () => {
    const sb = client(autoStack);
    const email = `auto-${uniq()}@example.com`;
    const { data, error } = await sb.auth.signUp({ email, password, options: { data: { full_name: 'Wanjiru', role: 'landlord' } } });
    assert.equal(error, null);
    assert.ok(data.session?.access_token, 'a session');
    assert.equal(data.user.user_metadata.full_name, 'Wanjiru');
    const claims = claimsOf(data.session.access_token);
    assert.equal(claims.user_metadata.role, 'landlord');
    assert.equal(claims.role, 'authenticated');
    assert.equal(claims.aal, 'aal1');
    assert.equal(claims.is_anonymous, false);
    assert.equal(claims.iss, `${autoStack.url}/auth/v1`);
    const again = await sb.auth.signUp({ email, password });
    assert.equal(again.error.code, 'user_already_exists');
    assert.equal(again.error.status, 422);
  });

  test('without autoconfirm: confirm through the link in the dev mailbox', async () => {
    const sb = client();
    const email = `conf-${uniq()}@example.com`;
    const { data, error } = await sb.auth.signUp({ email, password, options: { emailRedirectTo: `${stack.url}/welcome` } });
    assert.equal(error, null);
    assert.equal(data.session, null);
    assert.ok(data.user.confirmation_sent_at);
    const early = await sb.auth.signInWithPassword({ email, password });
    assert.equal(early.error.code, 'email_not_confirmed');

    const mail = await devmail.latest(email);
    assert.equal(mail.subject, 'Confirm Your Signup');
    const link = mail.links[0];
    assert.ok(link.startsWith(`${stack.url}/auth/v1/verify?`), link);
    const res = await fetch(link, { redirect: 'manual' });
    assert.equal(res.status, 303);
    const loc = res.headers.get('location');
    assert.ok(loc.startsWith(`${stack.url}/welcome#access_token=`), loc);
    const frag = fragmentOf(loc);
    assert.equal(frag.get('type'), 'signup');
    const set = await sb.auth.setSession({ access_token: frag.get('access_token'), refresh_token: frag.get('refresh_token') });
    assert.equal(set.error, null);
    assert.ok(set.data.user.email_confirmed_at);

    const reused = await fetch(link, { redirect: 'manual' });
    assert.match(reused.headers.get('location'), /#error=access_denied&error_code=otp_expired/);
    const ok = await client().auth.signInWithPassword({ email, password });
    assert.equal(ok.error, null);
  });

  test('PKCE: the mailed link answers ?code=, exchanged for a session', async () => {
    const sb = client(stack, { flowType: 'pkce' });
    const email = `pkce-${uniq()}@example.com`;
    const { data, error } = await sb.auth.signUp({ email, password, options: { emailRedirectTo: `${stack.url}/confirmed` } });
    assert.equal(error, null);
    assert.equal(data.session, null);
    const mail = await devmail.latest(email);
    assert.match(mail.links[0], /token=pkce_/);
    const res = await fetch(mail.links[0], { redirect: 'manual' });
    assert.equal(res.status, 303);
    const code = new URL(res.headers.get('location')).searchParams.get('code');
    assert.ok(code, res.headers.get('location'));
    const ex = await sb.auth.exchangeCodeForSession(code);
    assert.equal(ex.error, null);
    assert.equal(ex.data.user.email, email);
    assert.ok(ex.data.user.email_confirmed_at);
  });

  test('anonymous sign-in', async () => {
    const { data, error } = await client().auth.signInAnonymously({ options: { data: { guest: true } } });
    assert.equal(error, null);
    assert.equal(data.user.is_anonymous, true);
    assert.equal(claimsOf(data.session.access_token).is_anonymous, true);
  });
});

describe('sessions', () => {
  test('password sign-in, wrong password, events, refresh, updateUser, sign-out', async () => {
    const { email } = await confirmedUser();
    const sb = client();
    const events = [];
    const { data: sub } = sb.auth.onAuthStateChange((event) => { events.push(event); });

    const wrong = await sb.auth.signInWithPassword({ email, password: 'nope-nope' });
    assert.equal(wrong.error.code, 'invalid_credentials');
    assert.equal(wrong.error.message, 'Invalid login credentials');
    assert.equal(wrong.error.status, 400);

    const { data, error } = await sb.auth.signInWithPassword({ email, password });
    assert.equal(error, null);
    const first = data.session;

    const refreshed = await sb.auth.refreshSession();
    assert.equal(refreshed.error, null);
    assert.notEqual(refreshed.data.session.refresh_token, first.refresh_token);

    const upd = await sb.auth.updateUser({ data: { full_name: 'Otieno', phone_number: '0712' } });
    assert.equal(upd.error, null);
    assert.equal(upd.data.user.user_metadata.full_name, 'Otieno');
    const del = await sb.auth.updateUser({ data: { phone_number: null } });
    assert.equal('phone_number' in del.data.user.user_metadata, false);

    const current = (await sb.auth.getSession()).data.session.refresh_token;
    assert.equal((await sb.auth.signOut()).error, null);
    await new Promise((r) => setTimeout(r, 20));
    sub.subscription.unsubscribe();
    for (const e of ['INITIAL_SESSION', 'SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'SIGNED_OUT']) {
      assert.ok(events.includes(e), `${e} in ${events}`);
    }
    const dead = await fetch(`${stack.url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
      body: JSON.stringify({ refresh_token: current }),
    });
    assert.equal(dead.status, 400);
    assert.equal((await dead.json()).code, 'refresh_token_not_found');
  });

  test('recovery: code by mail, then a new password', async () => {
    const { email } = await confirmedUser();
    const sb = client();
    assert.equal((await sb.auth.resetPasswordForEmail(email, { redirectTo: `${stack.url}/reset` })).error, null);
    const mail = await devmail.latest(email);
    assert.equal(mail.subject, 'Reset Your Password');
    const { data, error } = await sb.auth.verifyOtp({ email, token: codeOf(mail), type: 'recovery' });
    assert.equal(error, null);
    assert.ok(data.session);
    assert.equal((await sb.auth.updateUser({ password: 'brand-new-pass-1' })).error, null);
    assert.equal((await client().auth.signInWithPassword({ email, password: 'brand-new-pass-1' })).error, null);
  });

  test('magic link and email OTP', async () => {
    const { email } = await confirmedUser();
    const sb = client();
    assert.equal((await sb.auth.signInWithOtp({ email, options: { emailRedirectTo: `${stack.url}/in` } })).error, null);
    let mail = await devmail.latest(email);
    assert.equal(mail.subject, 'Your Magic Link');
    const res = await fetch(mail.links[0], { redirect: 'manual' });
    assert.equal(res.status, 303);
    assert.ok(fragmentOf(res.headers.get('location')).get('access_token'));

    await new Promise((r) => setTimeout(r, 1100)); // GOTRUE_SMTP_MAX_FREQUENCY=1s
    assert.equal((await sb.auth.signInWithOtp({ email })).error, null);
    mail = await devmail.latest(email, { after: mail.id });
    const { data, error } = await sb.auth.verifyOtp({ email, token: codeOf(mail), type: 'email' });
    assert.equal(error, null);
    assert.equal(data.user.email, email);
    const again = await client().auth.verifyOtp({ email, token: codeOf(mail), type: 'email' });
    assert.equal(again.error.code, 'otp_expired');
  });

  test('phone OTP through the SMS provider', async () => {
    const phone = '2547' + String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
    const sb = client();
    assert.equal((await sb.auth.signInWithOtp({ phone: '+' + phone })).error, null);
    const text = twilio.last(phone);
    assert.ok(text, 'an SMS reached the provider');
    const code = /(\d{6})/.exec(text)[1];
    const { data, error } = await sb.auth.verifyOtp({ phone: '+' + phone, token: code, type: 'sms' });
    assert.equal(error, null);
    assert.equal(data.user.phone, phone);
    assert.ok(data.user.phone_confirmed_at);
  });
});

describe('MFA', () => {
  test('TOTP enroll, challenge, verify (aal2), unenroll', async () => {
    const { email } = await confirmedUser();
    const sb = client();
    await sb.auth.signInWithPassword({ email, password });
    const { data: f, error } = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app', issuer: 'KejaNest' });
    assert.equal(error, null);
    assert.match(f.totp.uri, /^otpauth:\/\/totp\//);
    assert.match(f.totp.qr_code, /^data:image\/svg\+xml;utf-8,<svg/);
    const dup = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' });
    assert.equal(dup.error.code, 'mfa_factor_name_conflict');

    const { data: ch } = await sb.auth.mfa.challenge({ factorId: f.id });
    const bad = await sb.auth.mfa.verify({ factorId: f.id, challengeId: ch.id, code: '000000' === totp(f.totp.secret) ? '111111' : '000000' });
    assert.equal(bad.error.code, 'mfa_verification_failed');
    const { data: ch2 } = await sb.auth.mfa.challenge({ factorId: f.id });
    const ok = await sb.auth.mfa.verify({ factorId: f.id, challengeId: ch2.id, code: totp(f.totp.secret) });
    assert.equal(ok.error, null);
    const claims = claimsOf(ok.data.access_token);
    assert.equal(claims.aal, 'aal2');
    assert.ok(claims.amr.some((a) => a.method === 'totp'));
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    assert.equal(aal.data.currentLevel, 'aal2');

    const other = client();
    await other.auth.signInWithPassword({ email, password });
    const refused = await other.auth.mfa.unenroll({ factorId: f.id });
    assert.equal(refused.error.code, 'insufficient_aal');
    const un = await sb.auth.mfa.unenroll({ factorId: f.id });
    assert.equal(un.error, null);
    assert.equal(un.data.id, f.id);
  });
});

describe('Google (OpenID Connect)', () => {
  // Each walk is a fresh browser (its own cookie jar), so the provider asks
  // for a login every time and signs in oidc.state.nextUser.
  const follow = (url, until) => followRedirects(url, until);
  const callbackURL = () => `${stack.url}/auth/v1/callback`;

  // What one sign-in did at the provider: the authorization request authsvc
  // sent and the token request it made. The provider itself enforces
  // redirect_uri, client authentication, one-time codes and, when the
  // authorization carried a code_challenge, the code_verifier; here the
  // suite checks that authsvc's requests were the expected ones.
  async function signInAtProvider(run) {
    const { authorizations, tokens } = oidc.state;
    const a0 = authorizations.length;
    const t0 = tokens.length;
    const out = await run();
    assert.equal(authorizations.length - a0, 1, 'one authorization request');
    assert.equal(tokens.length - t0, 1, 'one code exchange');
    const authz = authorizations.at(-1);
    const token = tokens.at(-1);
    assert.equal(authz.client_id, google.clientId);
    assert.equal(authz.redirect_uri, callbackURL());
    assert.equal(authz.response_type, 'code');
    assert.deepEqual(authz.scope.split(' ').sort(), ['email', 'openid', 'profile']);
    assert.ok(authz.state, 'authsvc sends a state');
    assert.equal(token.params.grant_type, 'authorization_code');
    assert.equal(token.params.redirect_uri, callbackURL());
    const id = claimsOf(token.idToken);
    assert.equal(id.iss, oidc.issuer);
    assert.equal(id.aud, google.clientId);
    assert.equal(id.sub, oidc.state.nextUser.sub);
    // Nonce and PKCE towards the provider, when authsvc uses them: the
    // id_token carries the nonce back, and the code was redeemed with the
    // verifier of the challenge (oidc-provider refuses any other).
    if (authz.nonce) assert.equal(id.nonce, authz.nonce);
    else assert.equal(id.nonce, undefined);
    if (authz.code_challenge) {
      assert.equal(authz.code_challenge_method, 'S256');
      assert.ok(token.params.code_verifier, 'a code_verifier with the code');
    } else {
      assert.equal(token.params.code_verifier, undefined);
    }
    return out;
  }

  test('implicit flow: session in the fragment, user from the id_token', async () => {
    const sub = 'g-' + uniq();
    oidc.state.nextUser = { sub, email: `${sub}@gmail.example`, email_verified: true, name: 'Achieng Google', picture: 'https://img.example/a.png' };
    const sb = client();
    const { data, error } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: `${stack.url}/home`, skipBrowserRedirect: true } });
    assert.equal(error, null);
    const landed = await signInAtProvider(() => follow(data.url, `${stack.url}/home`));
    const frag = fragmentOf(landed);
    assert.equal(frag.get('error'), null, landed);
    assert.ok(frag.get('provider_token'));
    const set = await sb.auth.setSession({ access_token: frag.get('access_token'), refresh_token: frag.get('refresh_token') });
    assert.equal(set.error, null);
    const u = set.data.user;
    assert.equal(u.email, `${sub}@gmail.example`);
    assert.ok(u.email_confirmed_at, 'email_verified from the provider confirms the address');
    assert.equal(u.app_metadata.provider, 'google');
    assert.equal(u.user_metadata.full_name, 'Achieng Google');
    assert.equal(u.user_metadata.avatar_url, 'https://img.example/a.png');
    assert.equal(u.user_metadata.iss, oidc.issuer);
    assert.equal(u.identities[0].provider, 'google');
    assert.equal(u.identities[0].id, sub);
    assert.ok(claimsOf(frag.get('access_token')).amr.some((a) => a.method === 'oauth'));
  });

  test('PKCE flow: ?code= exchanged for a session', async () => {
    const sub = 'g-' + uniq();
    oidc.state.nextUser = { sub, email: `${sub}@gmail.example`, email_verified: true, name: 'PKCE User' };
    const sb = client(stack, { flowType: 'pkce' });
    const { data } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: `${stack.url}/cb`, skipBrowserRedirect: true } });
    assert.match(data.url, /code_challenge=/);
    const landed = await signInAtProvider(() => follow(data.url, `${stack.url}/cb`));
    const code = new URL(landed).searchParams.get('code');
    assert.ok(code, landed);
    const ex = await sb.auth.exchangeCodeForSession(code);
    assert.equal(ex.error, null);
    assert.equal(ex.data.user.email, `${sub}@gmail.example`);
    assert.equal(ex.data.user.user_metadata.full_name, 'PKCE User');
  });

  test('the callback refuses a forged state and a code from another sign-in', async () => {
    // Two sign-ins stopped at the callback: the victim's code, the attacker's state.
    const atCallback = async (user) => {
      oidc.state.nextUser = user;
      const { data } = await client().auth.signInWithOAuth({ provider: 'google', options: { redirectTo: `${stack.url}/home`, skipBrowserRedirect: true } });
      const at = new URL(await follow(data.url, callbackURL()));
      return { code: at.searchParams.get('code'), state: at.searchParams.get('state'), authz: oidc.state.authorizations.at(-1) };
    };
    const vsub = 'victim-' + uniq();
    const victim = await atCallback({ sub: vsub, email: `${vsub}@gmail.example`, email_verified: true, name: 'Victim' });
    const asub = 'attacker-' + uniq();
    const attacker = await atCallback({ sub: asub, email: `${asub}@gmail.example`, email_verified: true, name: 'Attacker' });
    assert.ok(victim.code && attacker.state);

    const forged = await fetch(`${callbackURL()}?code=${encodeURIComponent(victim.code)}&state=forged`, { redirect: 'manual' });
    assert.equal(forged.status, 400);
    assert.equal((await forged.json()).error_code, 'bad_oauth_state');

    // Code injection: the victim's code with the attacker's (valid) state.
    // Only a nonce or PKCE bound to the state can tell the two apart.
    assert.ok(attacker.authz.nonce || attacker.authz.code_challenge, 'authsvc binds the code to its state with a nonce or PKCE');
    const injected = await fetch(`${callbackURL()}?code=${encodeURIComponent(victim.code)}&state=${encodeURIComponent(attacker.state)}`, { redirect: 'manual' });
    assert.equal(injected.status, 302);
    const frag = fragmentOf(injected.headers.get('location'));
    assert.equal(frag.get('access_token'), null, 'no session from a code injected into another sign-in');
    assert.equal(frag.get('error_code'), 'bad_oauth_callback');
  });
});

describe('admin API', () => {
  test('create, list with pagination, ban (sign-in refused), delete', async () => {
    const svc = admin();
    const { email, user } = await confirmedUser();
    const list = await svc.auth.admin.listUsers({ page: 1, perPage: 2 });
    assert.equal(list.error, null);
    assert.equal(list.data.users.length, 2);
    assert.ok(list.data.total >= 2);

    const notAdmin = await client().auth.admin.listUsers();
    assert.ok(notAdmin.error);

    const ban = await svc.auth.admin.updateUserById(user.id, { ban_duration: '24h' });
    assert.equal(ban.error, null);
    assert.ok(ban.data.user.banned_until);
    const refused = await client().auth.signInWithPassword({ email, password });
    assert.equal(refused.error.code, 'user_banned');

    assert.equal((await svc.auth.admin.deleteUser(user.id)).error, null);
    const gone = await svc.auth.admin.getUserById(user.id);
    assert.equal(gone.error.status, 404);
  });

  test('soft delete: the user stays, its address and password do not', async () => {
    const svc = admin();
    const { email, user } = await confirmedUser();
    const del = await svc.auth.admin.deleteUser(user.id, true);
    assert.equal(del.error, null);
    const kept = await svc.auth.admin.getUserById(user.id);
    assert.equal(kept.error, null);
    assert.ok(kept.data.user.deleted_at);
    assert.notEqual(kept.data.user.email, email);
    const refused = await client().auth.signInWithPassword({ email, password });
    assert.equal(refused.error.code, 'invalid_credentials');
    const again = await svc.auth.admin.createUser({ email, password, email_confirm: true });
    assert.equal(again.error, null);
    assert.notEqual(again.data.user.id, user.id);
    assert.equal((await svc.auth.admin.deleteUser(user.id, true)).error, null);
  });
});
