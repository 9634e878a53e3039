// Buying Nestcoins through supabase-js's functions client, unchanged:
// functions.invoke('mpesa-stk-push') through the gateway (apikey enforced)
// to the payments service, the Daraja simulator's callback back through the
// gateway's open /functions/v1/mpesa-callback, and the outcome arriving on
// the buyer's purchase row through realtime.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { FunctionsHttpError } from '@supabase/supabase-js';
import { startStack } from '../harness/stack.mjs';

let stack;
let service;
let packageId;
const clients = [];
before(async () => {
  stack = await startStack({
    env: {
      KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM: 'true',
      KEJANEST_GATEWAY_GATEWAY_REQUIRE_APIKEY: 'true',
      KEJANEST_DARAJASIM_DARAJASIM_CALLBACK_DELAY: '300ms',
    },
  });
  service = stack.client(stack.serviceRoleKey);
  const { data, error } = await service.from('nestcoin_packages').select('id').eq('name', 'Side Hustle').single();
  if (error) throw new Error(`package: ${error.message}`);
  packageId = data.id;
});
after(async () => {
  for (const c of clients) await c.removeAllChannels().catch(() => {});
  await stack?.stop();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A signed-in buyer's client. */
async function buyer() {
  const email = `buyer-${randomUUID().slice(0, 8)}@example.test`;
  const password = 'mpesa-password-1';
  const created = await service.auth.admin.createUser({ email, password, email_confirm: true });
  if (created.error) throw new Error(`create user: ${created.error.message}`);
  const c = stack.client();
  clients.push(c);
  const { error } = await c.auth.signInWithPassword({ email, password });
  if (error) throw new Error(`sign in: ${error.message}`);
  return c;
}

/** Subscribes to the buyer's purchase rows and resolves each row id's first settled state. */
async function watchPurchases(c) {
  const settled = new Map();
  const waiters = new Map();
  const ch = c.channel(`purchases-${randomUUID()}`)
    .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'nestcoin_purchases' }, (msg) => {
      const row = msg.new;
      if (row.status === 'pending' || settled.has(row.id)) return;
      settled.set(row.id, row);
      waiters.get(row.id)?.(row);
    });
  await new Promise((resolve, reject) => {
    ch.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status));
    });
  });
  return (id, timeout = 15000) => settled.has(id) ? Promise.resolve(settled.get(id)) : Promise.race([
    new Promise((resolve) => waiters.set(id, resolve)),
    sleep(timeout).then(() => { throw new Error(`purchase ${id} did not settle within ${timeout} ms\n${stack.logs()}`); }),
  ]);
}

async function nestcoins(c) {
  const { data, error } = await c.from('wallets').select('balance').eq('currency', 'nestcoins').single();
  if (error) throw new Error(`wallet: ${error.message}`);
  return Number(data.balance);
}

/** The JSON body of a FunctionsHttpError. */
async function errorBody(error) {
  assert.ok(error instanceof FunctionsHttpError, `expected a FunctionsHttpError, got ${error?.name}: ${error?.message}`);
  return { status: error.context.status, body: await error.context.json() };
}

describe('mpesa-stk-push', () => {
  test('a payment arrives live on the purchase row and credits the wallet', async () => {
    const c = await buyer();
    const settled = await watchPurchases(c);
    const { data, error } = await c.functions.invoke('mpesa-stk-push', { body: { package_id: packageId, phone: '0708 374 149' } });
    assert.equal(error, null, error?.message);
    assert.equal(data.status, 'pending');
    assert.equal(data.phone, '254708374149');
    assert.equal(data.amount_kes, 500);
    assert.equal(data.coins, 275);
    assert.match(data.checkout_request_id, /^ws_CO_/);
    assert.equal(typeof data.customer_message, 'string');
    const row = await settled(data.purchase_id);
    assert.equal(row.status, 'paid');
    assert.equal(row.result_code, 0);
    assert.equal(row.resolved_via, 'callback');
    assert.match(row.payment_reference, /^[A-Z0-9]{10}$/);
    assert.equal(await nestcoins(c), 275);
  });

  test('a cancelled prompt fails the purchase and leaves the balance', async () => {
    const c = await buyer();
    const settled = await watchPurchases(c);
    const { data, error } = await c.functions.invoke('mpesa-stk-push', { body: { package_id: packageId, phone: '254700000001' } });
    assert.equal(error, null, error?.message);
    const row = await settled(data.purchase_id);
    assert.equal(row.status, 'failed');
    assert.equal(row.failure_code, 'cancelled');
    assert.equal(row.result_code, 1032);
    assert.equal(row.failure_reason, 'Request cancelled by user');
    assert.equal(await nestcoins(c), 0);
  });

  test('signed out, a bad phone and an unknown package are refused', async () => {
    const anon = stack.client();
    clients.push(anon);
    let { status, body } = await errorBody((await anon.functions.invoke('mpesa-stk-push', { body: { package_id: packageId } })).error);
    assert.equal(status, 401);
    assert.equal(body.code, 401);
    const c = await buyer();
    ({ status, body } = await errorBody((await c.functions.invoke('mpesa-stk-push', { body: { package_id: packageId, phone: '020 123 4567' } })).error));
    assert.equal(status, 400);
    assert.equal(body.code, 'invalid_phone');
    ({ status, body } = await errorBody((await c.functions.invoke('mpesa-stk-push', { body: { package_id: randomUUID(), phone: '0708374149' } })).error));
    assert.equal(status, 404);
    assert.equal(body.code, 'package_not_found');
  });
});

describe('mpesa-callback', () => {
  test('reaches the service without an apikey, and a forged one is refused', async () => {
    const res = await fetch(`${stack.url}/functions/v1/mpesa-callback?p=${randomUUID()}&s=${'A'.repeat(43)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Body: { stkCallback: { CheckoutRequestID: 'ws_CO_forged', ResultCode: 0, ResultDesc: 'ok',
        CallbackMetadata: { Item: [{ Name: 'MpesaReceiptNumber', Value: 'TKFORGED00' }, { Name: 'Amount', Value: 500 }] } } } }),
    });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { ResultCode: 1, ResultDesc: 'Rejected' });
    // Every other function still needs the key.
    const other = await fetch(`${stack.url}/functions/v1/mpesa-stk-push`, { method: 'POST', body: '{}' });
    assert.equal(other.status, 401);
  });
});
