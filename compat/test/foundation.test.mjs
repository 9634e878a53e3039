// The foundation's stack-level contract: through the gateway, the official
// supabase-js client reaches every service and gets that service's own
// answer, and a browser on another origin passes CORS preflight.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startStack } from '../harness/stack.mjs';

let stack;
before(async () => { stack = await startStack(); });
after(async () => { await stack?.stop(); });

const otherOrigin = 'http://app.example.test:5173';

describe('gateway', () => {
  test('serves the app shell at /', async () => {
    const res = await fetch(`${stack.url}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /text\/html/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const html = await res.text();
    assert.match(html, /<div id="root">/);
  });

  test('answers SPA routes with the shell', async () => {
    const res = await fetch(`${stack.url}/properties/123?x=1`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<div id="root">/);
  });

  test('health and metrics', async () => {
    const health = await fetch(`${stack.url}/health`);
    assert.equal(health.status, 200);
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    assert.match(metrics, /^# (HELP|TYPE) /m);
  });

  test('request ids are returned', async () => {
    const res = await fetch(`${stack.url}/auth/v1/health`, { headers: { apikey: stack.anonKey } });
    assert.ok(res.headers.get('x-request-id'), 'x-request-id header');
  });
});

describe('supabase-js reaches each service', () => {
  test('rest: a PostgREST-shaped answer', async () => {
    const supabase = stack.client();
    const { data, error, status } = await supabase.from('no_such_table_here').select('*');
    assert.equal(data, null);
    assert.ok(error, 'an error for a table that does not exist');
    assert.match(error.code, /^PGRST\d{3}$/);
    assert.equal(typeof error.message, 'string');
    assert.ok('details' in error && 'hint' in error, 'all four PostgREST error keys');
    assert.ok(status >= 400 && status < 500, `status ${status}`);
  });

  test('rpc: a PostgREST-shaped answer', async () => {
    const supabase = stack.client();
    const { error, status } = await supabase.rpc('no_such_function', { a: 1 });
    assert.ok(error);
    assert.match(error.code, /^PGRST\d{3}$/);
    assert.ok(status >= 400 && status < 500, `status ${status}`);
  });

  test('auth: health and settings in GoTrue shape', async () => {
    const health = await fetch(`${stack.url}/auth/v1/health`, { headers: { apikey: stack.anonKey } });
    assert.equal(health.status, 200);
    const body = await health.json();
    assert.equal(body.name, 'GoTrue');
    const settings = await fetch(`${stack.url}/auth/v1/settings`, { headers: { apikey: stack.anonKey } });
    assert.equal(settings.status, 200);
    const s = await settings.json();
    assert.equal(typeof s.external, 'object');
    assert.equal(typeof s.disable_signup, 'boolean');
  });

  test('auth: supabase-js gets a coded error for a bogus token', async () => {
    const supabase = stack.client();
    const { data, error } = await supabase.auth.getUser('not-a-jwt');
    assert.equal(data.user, null);
    assert.ok(error, 'an auth error');
    assert.equal(typeof error.status, 'number');
    assert.ok(error.status >= 400, `status ${error.status}`);
  });

  test('storage: status through the gateway and a storage-shaped error', async () => {
    const status = await fetch(`${stack.url}/storage/v1/status`);
    assert.equal(status.status, 200);
    const supabase = stack.client(stack.serviceRoleKey);
    const { data, error } = await supabase.storage.getBucket('no-such-bucket');
    assert.equal(data, null);
    assert.ok(error, 'a storage error');
    assert.equal(error.__isStorageError, true);
  });

  test('realtime: the websocket answers a channel join', async () => {
    const supabase = stack.client();
    const status = await new Promise((resolve) => {
      const channel = supabase.channel('foundation-room');
      channel.subscribe((s, err) => {
        if (s === 'SUBSCRIBED' || s === 'CHANNEL_ERROR' || s === 'TIMED_OUT') resolve({ s, err, channel });
      });
    });
    await supabase.removeAllChannels();
    supabase.realtime.disconnect();
    assert.notEqual(status.s, 'TIMED_OUT', 'the server replied to phx_join');
    assert.ok(['SUBSCRIBED', 'CHANNEL_ERROR'].includes(status.s));
  });

  test('publishable key works as an apikey', async () => {
    const res = await fetch(`${stack.url}/auth/v1/settings`, { headers: { apikey: stack.publishableKey } });
    assert.equal(res.status, 200);
  });

  test('a forged apikey is refused', async () => {
    const forged = stack.anonKey.slice(0, -4) + 'AAAA';
    const res = await fetch(`${stack.url}/rest/v1/anything`, { headers: { apikey: forged } });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).message, 'Invalid API key');
  });
});

describe('development mailbox', () => {
  test('a sign-up confirmation lands in the stack\'s mailbox with its link', async () => {
    const supabase = stack.client();
    const email = `mailbox-${Date.now()}@kejanest.test`;
    const { error } = await supabase.auth.signUp({ email, password: 'Mailbox-Check-2024' });
    assert.equal(error, null);
    let mail;
    for (let i = 0; i < 100 && !mail; i++) {
      const list = await (await fetch(`${stack.mailboxUrl}/api/messages?to=${encodeURIComponent(email)}`)).json();
      mail = list[0];
      if (!mail) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(mail, 'a mail reached the mailbox');
    assert.ok(mail.links.some((l) => l.startsWith(`${stack.url}/auth/v1/verify?`)), `a verify link through the gateway: ${mail.links}`);
    const page = await fetch(stack.mailboxUrl);
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(email.replace(/[.]/g, '\\.')));
  });
});

describe('CORS preflight from another origin', () => {
  for (const path of ['/rest/v1/properties', '/rest/v1/rpc/fn', '/auth/v1/token?grant_type=password', '/storage/v1/object/images/a.png', '/realtime/v1/api/broadcast']) {
    test(path, async () => {
      const res = await fetch(`${stack.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: otherOrigin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,apikey,content-type,x-client-info,prefer,x-upsert',
        },
      });
      assert.ok(res.status === 204 || res.status === 200, `status ${res.status}`);
      assert.equal(res.headers.get('access-control-allow-origin'), otherOrigin);
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      const methods = res.headers.get('access-control-allow-methods');
      for (const m of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS']) assert.match(methods, new RegExp(`\\b${m}\\b`));
      const allowed = res.headers.get('access-control-allow-headers').toLowerCase();
      for (const h of ['authorization', 'apikey', 'content-type', 'x-client-info', 'prefer', 'x-upsert']) assert.ok(allowed.includes(h), `allows ${h}`);
    });
  }

  test('actual responses expose the headers clients read', async () => {
    const res = await fetch(`${stack.url}/auth/v1/health`, { headers: { Origin: otherOrigin, apikey: stack.anonKey } });
    assert.equal(res.headers.get('access-control-allow-origin'), otherOrigin);
    const exposed = res.headers.get('access-control-expose-headers').toLowerCase();
    for (const h of ['content-range', 'x-total-count', 'x-supabase-api-version', 'etag', 'content-length']) assert.ok(exposed.includes(h), `exposes ${h}`);
  });
});
