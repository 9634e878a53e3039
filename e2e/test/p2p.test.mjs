// The P2P exchange (issue 14), end to end in Chromium with two users in two
// browser contexts (Amina and Brian of the demo data): offers appear on the
// other's board live, trades open, get paid, released, cancelled, expired by
// the sweep (the clock driven by the test through run_expiry_sweeps), and
// disputed then resolved by the admin through the RPC; both trade pages
// follow every step live. Each step is cross-checked in the database:
// balances, escrow, and the ledger summing to zero per currency. Refused
// actions show the server's message and change nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { submitSignIn } from '../lib/app.mjs';
import { expectPath, expectToast, openBrowser, visible } from '../lib/browser.mjs';
import { demo, sql, useDemoStack } from '../lib/stack.mjs';

const brianLogin = { email: 'brian@kejanest.test', password: 'Brian-Demo-2024' };
const AMINA = '0e5a0000-0000-4000-8000-000000000002';
const BRIAN = '0e5a0000-0000-4000-8000-000000000003';
const LIVE = 15_000;

/** One value from the database. */
async function value(stack, text, vars) {
  const rows = await sql(stack, text, vars);
  assert.equal(rows.length, 1, `one row from: ${text}`);
  return rows[0][0];
}

async function balance(stack, user, currency = 'nestcoins') {
  return Number(await value(stack, `select balance from public.wallets where user_id = :'u' and currency = :'c' and kind = 'user'`, { u: user, c: currency }));
}

async function escrow(stack, currency = 'nestcoins') {
  return Number(await value(stack, `select balance from public.wallets where kind = 'escrow' and currency = :'c'`, { c: currency }));
}

/** The ledger's invariants: every currency sums to zero; escrow holds exactly the open trades. */
async function assertLedger(stack) {
  const unbalanced = await sql(stack, `select currency, sum(balance) from public.wallets group by currency having sum(balance) <> 0`);
  assert.deepEqual(unbalanced, [], 'every currency sums to zero');
  const escrowOff = await sql(
    stack,
    `select w.currency from public.wallets w where w.kind = 'escrow'
        and w.balance <> coalesce((select sum(t.amount) from public.p2p_trades t
                                    where t.currency = w.currency and t.status in ('escrow_locked', 'paid', 'disputed')), 0)`,
  );
  assert.deepEqual(escrowOff, [], 'escrow equals the open trades');
}

/** Runs SQL as a signed-in user (their JWT claims, role authenticated); resolves to rows or rejects with the server's message. */
async function asUser(stack, userId, text, vars = {}) {
  try {
    return await sql(
      stack,
      `select set_config('request.jwt.claims', json_build_object('sub', :'uid', 'role', 'authenticated')::text, true);
       set local role authenticated;
       ${text}`,
      { uid: userId, ...vars },
    );
  } catch (error) {
    const m = /ERROR:\s+(.*)/.exec(String(error.stderr ?? error.message));
    throw new Error(m ? m[1].trim() : String(error));
  }
}

/** Signs `who` in through /login and opens `path`. */
async function signedIn(stack, who, shots, path = '/p2p') {
  const b = await openBrowser({ shots });
  await b.page.goto(`${stack.url}/login`);
  await submitSignIn(b.page, who);
  await b.page.goto(`${stack.url}${path}`);
  return b;
}

async function openBoard(page) {
  await visible(page.getByRole('heading', { level: 1, name: 'P2P Exchange' }));
  await visible(page.locator('[data-testid="offer-card"]').first());
}

/** Fills and sends 'Create New P2P Offer'; returns the new offer's id from the database. */
async function createOffer(stack, page, owner, { action, amount, rate, min, max, methods }) {
  const before = await value(stack, `select count(*) from public.p2p_offers where user_id = :'u'`, { u: owner });
  await page.getByRole('button', { name: 'Create Offer' }).first().click();
  const dialog = await visible(page.getByRole('dialog', { name: 'Create New P2P Offer' }));
  await dialog.getByLabel('I want to').selectOption(action);
  await dialog.getByLabel('Currency').selectOption('nestcoins');
  await dialog.getByLabel('Amount').fill(String(amount));
  await dialog.getByLabel('Rate per unit (KES)').fill(String(rate));
  await dialog.getByLabel('Minimum per trade').fill(String(min));
  await dialog.getByLabel('Maximum per trade').fill(String(max));
  for (const m of methods) await dialog.getByLabel(m, { exact: true }).check();
  if (action === 'sell') await visible(dialog.getByText(/Your Nestcoins balance: [\d,]+/));
  await dialog.getByRole('button', { name: 'Create Offer' }).click();
  await expectToast(page, 'Offer created successfully!');
  const id = await value(stack, `select id from public.p2p_offers where user_id = :'u' order by created_at desc limit 1`, { u: owner });
  assert.equal(Number(await value(stack, `select count(*) from public.p2p_offers where user_id = :'u'`, { u: owner })), Number(before) + 1);
  return id;
}

function card(page, offerId) {
  return page.locator(`[data-offer-id="${offerId}"]`);
}

/** Opens a trade on `offerId` from the taker's board; returns the trade id (from the URL). */
async function openTrade(page, offerId, { button, amount, method = 'M-Pesa', instructions }) {
  const c = await visible(card(page, offerId), LIVE);
  await c.getByRole('button', { name: button }).click();
  const dialog = await visible(page.getByRole('dialog'));
  await dialog.getByLabel(/^Amount/).fill(String(amount));
  await dialog.getByLabel('Payment method').selectOption(method);
  if (instructions) await dialog.getByLabel('Where should the buyer pay you?').fill(instructions);
  await dialog.getByRole('button', { name: 'Start trade' }).click();
  await expectToast(page, 'Trade initiated! Currency locked in escrow.');
  await expectPath(page, /^\/p2p\/trades\/[0-9a-f-]{36}$/);
  return new URL(page.url()).pathname.split('/').pop();
}

async function expectStatus(page, text) {
  await visible(page.getByTestId('trade-status').filter({ hasText: text }), LIVE);
}

async function tradeStatus(stack, id) {
  return value(stack, `select status from public.p2p_trades where id = :'id'`, { id });
}

async function pay(page, code = 'SGK3H8PQ2X') {
  await page.getByLabel('M-Pesa code').fill(code);
  await page.getByRole('button', { name: 'I have paid' }).click();
  await expectToast(page, 'Payment confirmed. The seller has been told.');
}

async function release(page, amount) {
  await page.getByRole('button', { name: 'Release coins' }).click();
  const dialog = await visible(page.getByRole('dialog', { name: `Release ${amount} Nestcoins?` }));
  await dialog.getByRole('button', { name: `Release ${amount} Nestcoins` }).click();
  await expectToast(page, 'Coins released');
}

describe('P2P exchange', { concurrency: false }, () => {
  const app = useDemoStack();

  test('a sell offer: live on the board, traded, paid with a code, released; both pages and balances follow', { timeout: 240_000 }, async () => {
    const { stack } = app;
    const amina = await signedIn(stack, demo.amina, 'p2p-sell-amina');
    const brian = await signedIn(stack, brianLogin, 'p2p-sell-brian');
    try {
      await openBoard(amina.page);
      await openBoard(brian.page);
      const aminaStart = await balance(stack, AMINA);
      const brianStart = await balance(stack, BRIAN);
      const escrowStart = await escrow(stack);

      const offer = await createOffer(stack, amina.page, AMINA, { action: 'sell', amount: 300, rate: 2.5, min: 10, max: 200, methods: ['M-Pesa', 'Airtel Money'] });
      assert.equal(await value(stack, `select status || ' ' || rate_per_unit from public.p2p_offers where id = :'id'`, { id: offer }), 'active 2.50');
      // Amina sees her own offer as hers; Brian sees it arrive without reloading.
      await visible(card(amina.page, offer).getByText('Your Offer'));
      assert.equal(await card(amina.page, offer).getByRole('button', { name: 'Buy Now' }).count(), 0);
      await visible(card(brian.page, offer), LIVE);
      await brian.shot('offer-arrived-live');

      const trade = await openTrade(brian.page, offer, { button: 'Buy Now', amount: 100 });
      assert.equal(await tradeStatus(stack, trade), 'escrow_locked');
      assert.equal(await balance(stack, AMINA), aminaStart - 100);
      assert.equal(await escrow(stack), escrowStart + 100);
      assert.equal(await value(stack, `select remaining_amount from public.p2p_offers where id = :'id'`, { id: offer }), '200');
      await assertLedger(stack);
      await visible(brian.page.getByRole('timer', { name: 'Pay within' }));

      // The seller learns of the trade live on the board and opens it.
      const strip = amina.page.getByRole('region', { name: 'Your open trades' });
      await visible(strip.getByRole('link', { name: /Sell 100 Nestcoins/ }).filter({ hasText: 'Brian Otieno' }).first(), LIVE);
      await amina.page.goto(`${stack.url}/p2p/trades/${trade}`);
      await expectStatus(amina.page, 'Awaiting payment');
      await amina.page.getByLabel('Where should the buyer pay you?').fill('M-Pesa 0712 345 678, Amina Wanjiru');
      await amina.page.getByRole('button', { name: 'Save instructions' }).click();
      await visible(brian.page.getByTestId('payment-instructions').filter({ hasText: 'M-Pesa 0712 345 678, Amina Wanjiru' }), LIVE);

      // Chat, live both ways.
      await brian.page.getByLabel('Message').fill('Sending the KES now');
      await brian.page.getByRole('button', { name: 'Send' }).click();
      await visible(amina.page.getByText('Sending the KES now'), LIVE);

      // A malformed code is refused before it is sent.
      await brian.page.getByLabel('M-Pesa code').fill('SGK3');
      await brian.page.getByRole('button', { name: 'I have paid' }).click();
      await visible(brian.page.getByText('Enter the 10-character M-Pesa code, e.g. SGK3H8PQ2X'));
      await pay(brian.page);
      assert.equal(await tradeStatus(stack, trade), 'paid');
      assert.equal(await value(stack, `select payment_reference from public.p2p_trades where id = :'id'`, { id: trade }), 'SGK3H8PQ2X');
      await expectStatus(amina.page, 'Paid – awaiting release');
      await visible(amina.page.getByRole('timer', { name: 'Seller must release within' }));
      await amina.shot('paid-live');

      await release(amina.page, 100);
      await expectStatus(brian.page, 'Completed');
      await expectStatus(amina.page, 'Completed');
      assert.equal(await tradeStatus(stack, trade), 'completed');
      assert.equal(await balance(stack, BRIAN), brianStart + 100);
      assert.equal(await balance(stack, AMINA), aminaStart - 100);
      assert.equal(await escrow(stack), escrowStart);
      await assertLedger(stack);
      // The timeline shows every step.
      const timeline = brian.page.getByTestId('timeline');
      for (const step of ['Trade opened, coins locked in escrow', 'Paid – awaiting release', 'Completed']) await visible(timeline.getByText(step));

      // Brian rates Amina; the board shows her record.
      await brian.page.getByRole('radio', { name: '5 stars' }).click();
      await brian.page.getByLabel('Comment (optional)').fill('Released fast');
      await brian.page.getByRole('button', { name: 'Submit rating' }).click();
      await visible(brian.page.getByTestId('my-rating').filter({ hasText: 'You rated Amina Wanjiru 5 ★' }));
      assert.equal(
        await value(stack, `select stars || ' ' || ratee_id from public.p2p_trade_ratings where trade_id = :'id' and rater_id = :'r'`, { id: trade, r: BRIAN }),
        `5 ${AMINA}`,
      );
      await brian.page.goto(`${stack.url}/p2p`);
      await visible(card(brian.page, offer).getByTestId('owner-record').filter({ hasText: '★' }));
      await brian.shot('board-with-record');
    } finally {
      await amina.close();
      await brian.close();
    }
  });

  test('a buy offer: the taker sells into escrow with payment instructions, the owner pays, the taker releases', { timeout: 240_000 }, async () => {
    const { stack } = app;
    const amina = await signedIn(stack, demo.amina, 'p2p-buy-amina');
    const brian = await signedIn(stack, brianLogin, 'p2p-buy-brian');
    try {
      await openBoard(amina.page);
      await openBoard(brian.page);
      const aminaStart = await balance(stack, AMINA);
      const brianStart = await balance(stack, BRIAN);
      const offer = await createOffer(stack, brian.page, BRIAN, { action: 'buy', amount: 200, rate: 3, min: 20, max: 100, methods: ['M-Pesa'] });
      const trade = await openTrade(amina.page, offer, { button: 'Sell Now', amount: 60, instructions: 'Till 552211 (Amina W.)' });
      assert.equal(await value(stack, `select seller_id || ' ' || buyer_id || ' ' || status from public.p2p_trades where id = :'id'`, { id: trade }), `${AMINA} ${BRIAN} escrow_locked`);
      assert.equal(await balance(stack, AMINA), aminaStart - 60);
      await assertLedger(stack);
      await brian.page.goto(`${stack.url}/p2p/trades/${trade}`);
      await visible(brian.page.getByRole('heading', { level: 1, name: 'You are buying 60 Nestcoins' }));
      await visible(brian.page.getByTestId('payment-instructions').filter({ hasText: 'Till 552211 (Amina W.)' }));
      await pay(brian.page, 'QWE123RTY9');
      await expectStatus(amina.page, 'Paid – awaiting release');
      await release(amina.page, 60);
      await expectStatus(brian.page, 'Completed');
      assert.equal(await balance(stack, BRIAN), brianStart + 60);
      assert.equal(await balance(stack, AMINA), aminaStart - 60);
      await assertLedger(stack);
    } finally {
      await amina.close();
      await brian.close();
    }
  });

  test('cancel by the buyer, expiry by the sweep, a dispute resolved by the admin, and refusals that change nothing', { timeout: 300_000 }, async () => {
    const { stack } = app;
    const amina = await signedIn(stack, demo.amina, 'p2p-edge-amina');
    const brian = await signedIn(stack, brianLogin, 'p2p-edge-brian');
    try {
      await openBoard(amina.page);
      await openBoard(brian.page);
      let aminaStart = await balance(stack, AMINA);
      const brianStart = await balance(stack, BRIAN);
      const offer = await createOffer(stack, amina.page, AMINA, { action: 'sell', amount: 150, rate: 2, min: 10, max: 100, methods: ['M-Pesa'] });

      // Own offer: the owner gets no trade button, and the server refuses it anyway.
      assert.equal(await card(amina.page, offer).getByRole('button', { name: 'Buy Now' }).count(), 0);
      await assert.rejects(
        asUser(stack, AMINA, `select public.open_p2p_trade(:'o', 20, 2, 'M-Pesa')`, { o: offer }),
        /You cannot trade on your own offer/,
      );

      // Cancel by the buyer: the coins go back to the seller, the amount back to the offer.
      const cancelled = await openTrade(brian.page, offer, { button: 'Buy Now', amount: 30 });
      assert.equal(await balance(stack, AMINA), aminaStart - 30);
      await amina.page.goto(`${stack.url}/p2p/trades/${cancelled}`);
      await expectStatus(amina.page, 'Awaiting payment');
      await brian.page.getByRole('button', { name: 'Cancel trade' }).click();
      await brian.page.getByRole('dialog', { name: 'Cancel this trade?' }).getByRole('button', { name: 'Cancel trade' }).click();
      await expectToast(brian.page, 'Trade cancelled');
      await expectStatus(amina.page, 'Cancelled');
      assert.equal(await tradeStatus(stack, cancelled), 'cancelled');
      assert.equal(await balance(stack, AMINA), aminaStart);
      assert.equal(await value(stack, `select remaining_amount from public.p2p_offers where id = :'id'`, { id: offer }), '150');
      await assertLedger(stack);

      // Expiry: the test drives the sweep's clock past the payment deadline.
      await brian.page.goto(`${stack.url}/p2p`);
      const expiring = await openTrade(brian.page, offer, { button: 'Buy Now', amount: 40 });
      await amina.page.goto(`${stack.url}/p2p/trades/${expiring}`);
      await expectStatus(amina.page, 'Awaiting payment');
      // Other overdue trades of Amina's (the demo data's) expire in the same sweep: count their refunds too.
      const due = Number(
        await value(
          stack,
          `select coalesce(sum(amount), 0) from public.p2p_trades where status = 'escrow_locked' and seller_id = :'a'
              and payment_deadline <= (select payment_deadline + interval '1 second' from public.p2p_trades where id = :'id')`,
          { a: AMINA, id: expiring },
        ),
      );
      const beforeSweep = await balance(stack, AMINA);
      const sweep = await sql(
        stack,
        `select set_config('request.jwt.claims', '{"role":"service_role"}', true);
         set local role service_role;
         select public.run_expiry_sweeps((select payment_deadline + interval '1 second' from public.p2p_trades where id = :'id')) ->> 'trades';`,
        { id: expiring },
      );
      const swept = Number(sweep.at(-1)[0]) >= 1;
      assert.ok(swept, 'the sweep ran');
      await expectStatus(brian.page, 'Expired');
      await expectStatus(amina.page, 'Expired');
      assert.equal(await tradeStatus(stack, expiring), 'expired');
      assert.equal(await balance(stack, AMINA), beforeSweep + due);
      assert.equal(beforeSweep, aminaStart - 40);
      // From here on Amina's baseline includes the other refunds of that sweep.
      aminaStart += due - 40;
      await assertLedger(stack);

      // Beyond what is left: the client allows it (within the limits), the server refuses, nothing changes.
      await brian.page.goto(`${stack.url}/p2p`);
      const tradesBefore = await value(stack, `select count(*) from public.p2p_trades where offer_id = :'id'`, { id: offer });
      const sold = await openTrade(brian.page, offer, { button: 'Buy Now', amount: 100 });
      await brian.page.goto(`${stack.url}/p2p`);
      await visible(card(brian.page, offer).getByText(/^50 Nestcoins$/), LIVE);
      await card(brian.page, offer).getByRole('button', { name: 'Buy Now' }).click();
      const dialog = await visible(brian.page.getByRole('dialog'));
      await dialog.getByLabel(/^Amount/).fill('80');
      await dialog.getByLabel('Payment method').selectOption('M-Pesa');
      await dialog.getByRole('button', { name: 'Start trade' }).click();
      await visible(dialog.getByRole('alert').filter({ hasText: 'Only 50 nestcoins left on this offer' }));
      assert.equal(await value(stack, `select count(*) from public.p2p_trades where offer_id = :'id'`, { id: offer }), String(Number(tradesBefore) + 1));
      await dialog.getByRole('button', { name: 'Cancel' }).first().click();

      // Paying twice: a stale page (its realtime socket cut) still offers 'I have paid'; the server refuses.
      const stale = await brian.context.newPage();
      await stale.routeWebSocket(/\/realtime\//, () => {});
      await stale.goto(`${stack.url}/p2p/trades/${sold}`);
      await expectStatus(stale, 'Awaiting payment');
      await brian.page.goto(`${stack.url}/p2p/trades/${sold}`);
      await pay(brian.page, 'ABC123XYZ0');
      await stale.getByLabel('M-Pesa code').fill('ZZZ999YYY8');
      await stale.getByRole('button', { name: 'I have paid' }).click();
      await visible(stale.getByTestId('trade-state').getByRole('alert').filter({ hasText: 'Only a trade awaiting payment can be marked as paid (this trade is paid)' }));
      assert.equal(await value(stack, `select payment_reference from public.p2p_trades where id = :'id'`, { id: sold }), 'ABC123XYZ0');
      await stale.close();

      // Release by the buyer: the page never offers it, and the server refuses it.
      assert.equal(await brian.page.getByRole('button', { name: 'Release coins' }).count(), 0);
      await assert.rejects(asUser(stack, BRIAN, `select public.release_trade(:'t')`, { t: sold }), /Only the seller can release this trade/);
      assert.equal(await tradeStatus(stack, sold), 'paid');

      // A dispute, then the admin's resolution through the RPC; both pages show the outcome live.
      await amina.page.goto(`${stack.url}/p2p/trades/${sold}`);
      await expectStatus(amina.page, 'Paid – awaiting release');
      await brian.page.getByRole('button', { name: 'Open dispute' }).click();
      const disputeDialog = await visible(brian.page.getByRole('dialog', { name: 'Open a dispute' }));
      await disputeDialog.getByLabel('Reason').fill('I paid, the seller does not release');
      await disputeDialog.getByRole('button', { name: 'Open dispute' }).click();
      await expectToast(brian.page, 'Dispute opened');
      await expectStatus(amina.page, 'In dispute');
      await visible(amina.page.getByText('Reason: I paid, the seller does not release'));
      assert.equal(await tradeStatus(stack, sold), 'disputed');
      const escrowDisputed = await escrow(stack);
      // As the back office does (service_role claims): the demo admin's own
      // token would need aal2 and the access code (0029).
      await sql(stack, `select set_config('request.jwt.claims', '{"role":"service_role"}', true);
        select public.resolve_trade_dispute(:'t', 'buyer', 'M-Pesa statement shows the payment')`, { t: sold });
      await expectStatus(brian.page, 'Resolved');
      await expectStatus(amina.page, 'Resolved');
      await visible(brian.page.getByText(/in favour of the buyer/));
      await visible(amina.page.getByText('Administrator notes: M-Pesa statement shows the payment'));
      assert.equal(await tradeStatus(stack, sold), 'resolved');
      assert.equal(await escrow(stack), escrowDisputed - 100);
      assert.equal(await balance(stack, BRIAN), brianStart + 100);
      assert.equal(await balance(stack, AMINA), aminaStart - 100);
      await assertLedger(stack);

      // The owner cancels the offer's rest: it leaves Brian's board live.
      await brian.page.goto(`${stack.url}/p2p`);
      await visible(card(brian.page, offer), LIVE);
      await amina.page.goto(`${stack.url}/p2p`);
      await card(amina.page, offer).getByRole('button', { name: 'Cancel offer' }).click();
      await amina.page.getByRole('dialog', { name: 'Cancel this offer?' }).getByRole('button', { name: 'Cancel offer' }).click();
      await expectToast(amina.page, 'Offer cancelled');
      await card(brian.page, offer).waitFor({ state: 'detached', timeout: LIVE });
      assert.equal(await value(stack, `select status from public.p2p_offers where id = :'id'`, { id: offer }), 'cancelled');
      await assertLedger(stack);
    } finally {
      await amina.close();
      await brian.close();
    }
  });
});
