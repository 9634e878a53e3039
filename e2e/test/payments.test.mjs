// Buying Nestcoins with M-Pesa (issue 16), in Chromium against the demo stack
// with the Daraja simulator: a new user buys a package on /pricing with the
// simulator's paying number (prefilled from her profile), watches "Check your
// phone" turn into the receipt as the purchase row changes over Realtime, sees
// the balance rise without a reload, and publishes a land listing with those
// coins; a second purchase on /wallet, cancelled on the phone (254700000001),
// shows the cancelled message and leaves the balance alone. Each step is
// cross-checked in the database: the purchase row, the ledger transfer keyed
// to it, the balances, and the ledger summing to zero per currency.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { submitSignIn } from '../lib/app.mjs';
import { expectPath, textOf, visible, withBrowser } from '../lib/browser.mjs';
import { nestcoinBalance, sql, startDemoStack } from '../lib/stack.mjs';

/** The simulator's numbers (README, "The Daraja simulator"). */
const PAYS = '254708374149';
const CANCELS = '0700 000 001';
/** Residential land costs 60 Nestcoins a day (spec §9). */
const RESIDENTIAL_PER_DAY = 60;

/** One row of the stack's database as an array of strings. */
async function row(stack, text, vars) {
  const rows = await sql(stack, text, vars);
  assert.equal(rows.length, 1, `one row from: ${text}`);
  return rows[0];
}

/** Every currency's wallets sum to zero: what was issued sits as a negative on the issuer. */
async function assertLedgerBalanced(stack) {
  const sums = await sql(stack, `select currency, sum(balance) from public.wallets group by currency order by currency`);
  assert.ok(sums.length > 0);
  for (const [currency, sum] of sums) assert.equal(sum, '0', `the ${currency} ledger sums to zero`);
}

/**
 * Records what Realtime pushed to the page: every websocket frame carrying a
 * nestcoin_purchases change, parsed. Registered before the page opens its socket.
 */
function recordPurchaseFrames(page) {
  const frames = [];
  page.on('websocket', (ws) => {
    ws.on('framereceived', ({ payload }) => {
      const text = typeof payload === 'string' ? payload : payload.toString('utf8');
      if (!text.includes('nestcoin_purchases')) return;
      try {
        frames.push(JSON.parse(text));
      } catch {
        // Not a Phoenix JSON frame.
      }
    });
  });
  /** The purchase rows Realtime delivered for `id` (Phoenix v2 frames are [join_ref, ref, topic, event, payload]). */
  return (id) =>
    frames
      .map((frame) => (Array.isArray(frame) ? frame[4] : frame.payload))
      .map((payload) => payload?.data?.record)
      .filter((record) => record?.id === id);
}

describe('buying Nestcoins with M-Pesa', { timeout: 420_000 }, () => {
  const app = {};
  const buyer = {
    name: 'Akinyi Otieno',
    email: `akinyi.${randomUUID().slice(0, 8)}@kejanest.test`,
    password: 'Keja-Nest-mpesa-2024',
  };

  before(async () => {
    // A short payer: the simulator calls back 2 s after the push.
    app.stack = await startDemoStack({ env: { KEJANEST_DARAJASIM_DARAJASIM_CALLBACK_DELAY: '2s' } });
    const service = app.stack.client(app.stack.serviceRoleKey);
    const created = await service.auth.admin.createUser({
      email: buyer.email,
      password: buyer.password,
      email_confirm: true,
      user_metadata: { full_name: buyer.name },
    });
    if (created.error) throw new Error(`create user: ${created.error.message}`);
    buyer.id = created.data.user.id;
    // Her profile's number is the simulator's paying one, as the profile stores it.
    await sql(app.stack, `update public.profiles set phone_number = '+' || :'phone' where id = :'id'`, { phone: PAYS, id: buyer.id });
  });
  after(async () => {
    await app.stack?.stop();
  });

  test('a new user buys Hustle Boost on /pricing, sees the balance rise live, and publishes a land with those coins', { timeout: 240_000 }, async () => {
    const [[packageId, packCoins, packPrice]] = await sql(app.stack, `select id, coins, price from public.nestcoin_packages where name = 'Hustle Boost'`);
    assert.deepEqual([packCoins, packPrice], ['105', '200']);
    assert.equal(await nestcoinBalance(app.stack, buyer.email), 0);

    await withBrowser({ shots: 'payments-paid' }, async (b) => {
      const { page } = b;
      const purchaseFrames = recordPurchaseFrames(page);
      await page.goto(`${app.stack.url}/login`);
      await submitSignIn(page, buyer);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Pricing' }).click();
      await expectPath(page, '/pricing');
      const balance = page.getByTestId('wallet-balance');
      await visible(balance.filter({ hasText: /^0 Nestcoins$/ }));
      // Marks this document: a reload would lose it.
      await page.evaluate(() => {
        window.__sameDocument = true;
      });

      // Buy Now opens the pay step: the package, its coins and KES, her number prefilled the local way.
      await page.getByRole('button', { name: 'Purchase Nestcoins' }).first().click();
      const sheet = await visible(page.getByRole('dialog', { name: 'Purchase Nestcoins' }));
      await sheet.getByRole('button', { name: 'Buy Hustle Boost' }).click();
      const step = await visible(sheet.getByRole('region', { name: 'Pay with M-Pesa' }));
      const summary = (await step.getByRole('definition').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
      assert.deepEqual(summary, ['Hustle Boost', '105', 'Ksh 200']);
      const phone = step.getByLabel('M-Pesa phone number');
      await visible(step.getByText('The prompt goes to 0708 374 149', { exact: true }));
      assert.equal(await phone.inputValue(), '0708 374 149');
      // A landline is refused before anything is sent.
      await phone.fill('020 123 4567');
      await step.getByRole('button', { name: /^Pay Ksh.200 with M-Pesa$/ }).click();
      await visible(step.getByRole('alert').filter({ hasText: 'Enter a valid M-Pesa phone number, such as 0712 345 678' }));
      const [[none]] = await sql(app.stack, `select count(*) from public.nestcoin_purchases where user_id = :'id'`, { id: buyer.id });
      assert.equal(none, '0', 'no purchase for a refused number');
      await phone.fill('+254 708-374-149');
      await phone.blur();
      assert.equal(await phone.inputValue(), '0708 374 149', 'the number is shown normalised');
      await b.shot('pay-step');

      // Pay: the prompt is on its way, then the outcome arrives by itself.
      await step.getByRole('button', { name: /^Pay Ksh.200 with M-Pesa$/ }).click();
      const waiting = await visible(sheet.getByRole('region', { name: 'Check your phone' }));
      await visible(waiting.getByRole('status').filter({ hasText: 'Enter your M-Pesa PIN in the prompt on 0708 374 149 to pay Ksh 200 for 105 Nestcoins.' }));
      assert.match(await textOf(waiting.getByRole('timer')), /^Waiting for M-Pesa: 1:[0-3]\d left$/);
      await b.shot('check-your-phone');
      const [purchaseId, pendingStatus, pendingPhone, checkoutId] = await row(
        app.stack,
        `select id, status, phone, checkout_request_id from public.nestcoin_purchases where user_id = :'id'`,
        { id: buyer.id },
      );
      assert.equal(pendingPhone, PAYS);
      assert.ok(checkoutId, 'Daraja accepted the push');
      assert.ok(['pending', 'paid'].includes(pendingStatus));

      const paid = await visible(sheet.getByRole('region', { name: 'Payment received' }), 30_000);
      await visible(paid.getByRole('status').filter({ hasText: '105 Nestcoins were added to your wallet.' }));
      const newBalance = paid.getByTestId('purchase-new-balance');
      await visible(newBalance.filter({ hasText: /^105 Nestcoins$/ }));
      await b.shot('payment-received');

      // The database: paid by the callback with the receipt shown, credited once through the ledger.
      const [status, receipt, resolvedVia, resultCode, amount, coins] = await row(
        app.stack,
        `select status, payment_reference, resolved_via, result_code, amount_kes, coins from public.nestcoin_purchases where id = :'id'`,
        { id: purchaseId },
      );
      assert.deepEqual([status, resolvedVia, resultCode, amount, coins], ['paid', 'callback', '0', '200', '105']);
      assert.notEqual(receipt, checkoutId, 'the reference is the M-Pesa receipt');
      await visible(paid.getByText(receipt, { exact: true }));
      const transfers = await sql(
        app.stack,
        `select t.amount, t.kind, t.currency from public.wallet_transfers t
           join public.nestcoin_purchases p on p.transfer_id = t.id where p.id = :'id'`,
        { id: purchaseId },
      );
      assert.deepEqual(transfers, [['105', 'purchase', 'nestcoins']]);
      const [[keyed]] = await sql(app.stack, `select count(*) from public.wallet_transfers where idempotency_key = 'purchase:' || :'id'`, { id: purchaseId });
      assert.equal(keyed, '1', 'one ledger transfer for the purchase');
      assert.equal(await nestcoinBalance(app.stack, buyer.email), 105);
      await assertLedgerBalanced(app.stack);

      // It came live: Realtime delivered the paid row to the page.
      const delivered = purchaseFrames(purchaseId);
      assert.ok(delivered.some((record) => record.status === 'paid' && record.payment_reference === receipt), `Realtime sent the paid row (${JSON.stringify(delivered)})`);

      // The page's balance rose without a reload.
      await paid.getByRole('button', { name: 'Done' }).click();
      await sheet.waitFor({ state: 'detached' });
      await visible(balance.filter({ hasText: /^105 Nestcoins$/ }));
      assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the same document: no reload');
      await b.shot('pricing-balance-after');

      // The wallet's history has the purchase with its receipt.
      await page.getByRole('link', { name: 'Go to Wallet' }).click();
      await expectPath(page, '/wallet');
      const history = await visible(page.getByRole('table', { name: 'History' }));
      const purchaseRow = history.getByRole('row').filter({ hasText: `M-Pesa receipt ${receipt}` });
      await visible(purchaseRow.filter({ hasText: '+105 Nestcoins' }));

      // Publish a residential plot for one day with those coins: it goes live at once.
      const title = `E2E M-Pesa plot ${Date.now().toString(36)}`;
      await page.goto(`${app.stack.url}/list-land`);
      await visible(page.getByRole('heading', { level: 1, name: 'List Your Land' }));
      await page.getByLabel('Title', { exact: true }).fill(title);
      await page.getByLabel('Land Type', { exact: true }).selectOption('Residential');
      await page.getByLabel('Purpose', { exact: true }).selectOption('Sale');
      await page.getByLabel('Price (KES)').fill('1500000');
      await page.getByLabel('Location', { exact: true }).fill('Kitengela, Kajiado');
      await page.getByLabel('Size', { exact: true }).fill('0.25');
      await page.getByRole('button', { name: 'Save and continue to payment' }).click();
      const pay = await visible(page.getByRole('region', { name: 'Pay and publish' }));
      const term = (name) => pay.getByRole('term').filter({ hasText: new RegExp(`^${name}$`) }).locator('xpath=following-sibling::dd[1]');
      await visible(term('Your balance').filter({ hasText: '105 Nestcoins' }));
      await visible(term('Total').filter({ hasText: `${RESIDENTIAL_PER_DAY} Nestcoins` }));
      await pay.getByRole('button', { name: `Pay ${RESIDENTIAL_PER_DAY} Nestcoins` }).click();
      const live = await visible(page.getByRole('status').filter({ has: page.getByRole('heading', { name: 'Your listing is live' }) }));
      await visible(live.getByText(`New balance: ${105 - RESIDENTIAL_PER_DAY} Nestcoins`));
      await b.shot('listing-live');

      const [landStatus, landActive, feeAmount] = await row(
        app.stack,
        `select l.payment_status, l.is_active,
                (select sum(t.amount) from public.wallet_transfers t where t.kind = 'listing_fee' and t.reference = 'land:' || l.id)
           from public.lands l where l.userid = :'id' and l.title = :'title'`,
        { id: buyer.id, title },
      );
      assert.deepEqual([landStatus, landActive, feeAmount], ['paid', 't', String(RESIDENTIAL_PER_DAY)]);
      assert.equal(await nestcoinBalance(app.stack, buyer.email), 105 - RESIDENTIAL_PER_DAY);
      await assertLedgerBalanced(app.stack);
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
    assert.ok(packageId);
  });

  test('a purchase cancelled on the phone leaves the balance unchanged and says so', { timeout: 180_000 }, async () => {
    const before = await nestcoinBalance(app.stack, buyer.email);
    await withBrowser({ shots: 'payments-cancelled' }, async (b) => {
      const { page } = b;
      const purchaseFrames = recordPurchaseFrames(page);
      await page.goto(`${app.stack.url}/wallet`);
      await expectPath(page, '/login');
      await submitSignIn(page, buyer);
      await expectPath(page, '/wallet');
      const balances = page.getByRole('region', { name: 'Balances' });
      const nestcoins = balances.getByRole('term').filter({ hasText: /^Nestcoins$/ }).locator('xpath=following-sibling::dd[1]');
      await visible(nestcoins.filter({ hasText: new RegExp(`^${before}$`) }));

      await balances.getByRole('button', { name: 'Buy Nestcoins' }).click();
      const sheet = await visible(page.getByRole('dialog', { name: 'Purchase Nestcoins' }));
      await sheet.getByRole('button', { name: 'Buy Starter Pack' }).click();
      const step = await visible(sheet.getByRole('region', { name: 'Pay with M-Pesa' }));
      const phone = step.getByLabel('M-Pesa phone number');
      await visible(step.getByText('The prompt goes to 0708 374 149', { exact: true }));
      await phone.fill(CANCELS);
      await step.getByRole('button', { name: /^Pay Ksh.20 with M-Pesa$/ }).click();
      await visible(sheet.getByRole('region', { name: 'Check your phone' }));

      const failed = await visible(sheet.getByRole('region', { name: 'Payment not completed' }), 30_000);
      const alert = failed.getByRole('alert');
      await visible(alert.filter({ hasText: 'You cancelled the M-Pesa prompt. Nothing was charged.' }));
      await b.shot('cancelled');

      const [purchaseId, status, failureCode, resultCode, resultDesc, transferId, purchasePhone] = await row(
        app.stack,
        `select id, status, failure_code, result_code, result_desc, transfer_id, phone from public.nestcoin_purchases
          where user_id = :'id' and amount_kes = 20`,
        { id: buyer.id },
      );
      assert.deepEqual([status, failureCode, resultCode, transferId, purchasePhone], ['failed', 'cancelled', '1032', '', '254700000001']);
      await visible(alert.filter({ hasText: `M-Pesa said: ${resultDesc}` }));
      const [[keyed]] = await sql(app.stack, `select count(*) from public.wallet_transfers where idempotency_key = 'purchase:' || :'id'`, { id: purchaseId });
      assert.equal(keyed, '0', 'nothing was credited');
      assert.ok(purchaseFrames(purchaseId).some((record) => record.status === 'failed'), 'Realtime sent the failed row');

      // The balance is what it was, on the page and in the ledger.
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'detached' });
      await visible(nestcoins.filter({ hasText: new RegExp(`^${before}$`) }));
      assert.equal(await nestcoinBalance(app.stack, buyer.email), before);
      await assertLedgerBalanced(app.stack);
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });
});
