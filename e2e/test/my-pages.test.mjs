// The signed-in "My" pages (issue 13): each listing page's delete and
// activate/deactivate, a draft left at the pay step continued from its My
// page and paid, the wallet's history and fees-per-listing after that fee,
// /my-p2p-offers' delete, and the /home dashboard's numbers — each step
// cross-checked in the database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { submitSignIn } from '../lib/app.mjs';
import { expectPath, expectToast, numberIn, textOf, visible, withBrowser } from '../lib/browser.mjs';
import { demo, nestcoinBalance, sql, useDemoStack } from '../lib/stack.mjs';

/** Amina's user id (sql/seed/0001_demo_users.sql). */
const AMINA_ID = '0e5a0000-0000-4000-8000-000000000002';
/** Spec §9: a residential land costs 60 Nestcoins per day. */
const RESIDENTIAL_PER_DAY = 60;

/** A title no seed row has, so a card is found by it alone. */
const unique = (what) => `E2E ${what} ${Date.now().toString(36)}`;

/** Opens `path` signed out, signs in as Amina on /login and comes back to it. */
async function signInTo(page, url, path) {
  await page.goto(`${url}${path}`);
  await expectPath(page, '/login');
  await submitSignIn(page, demo.amina);
  await expectPath(page, path);
}

/** The owner's controls under one card of a My page. */
const cardActions = (page, title) => page.getByRole('group', { name: `Actions for ${title}` });

/** One row of the database as an array of strings. */
async function row(stack, text, vars) {
  const rows = await sql(stack, text, vars);
  assert.equal(rows.length, 1, `one row from: ${text}`);
  return rows[0];
}

/**
 * The fixtures of one listing table, inserted as the back office would (as
 * the database owner): a live listing of Amina's (paid for 10 more days) and
 * an unpaid one. Returns their ids.
 */
const listingKinds = {
  property: {
    page: '/my-properties',
    heading: 'My Properties',
    table: 'properties',
    insert: `insert into public.properties (user_id, title, type, purpose, price, location, description, payment_status, is_active, paid_until)
             values (:'uid', :'title', 'Bedsitter', 'Rent', 9000, 'Kilimani, Nairobi', 'E2E fixture', :'status', :'active', nullif(:'until', '')::timestamptz) returning id`,
    toggled: ['Listing deactivated', 'Listing activated'],
    deleted: 'Property deleted successfully',
  },
  product: {
    page: '/my-products',
    heading: 'My Products',
    table: 'products',
    insert: `insert into public.products (user_id, name, price, status, category, location, description, payment_status, is_active, paid_until)
             values (:'uid', :'title', 4500, 'Used', 'Furniture', 'Nakuru', 'E2E fixture', :'status', :'active', nullif(:'until', '')::timestamptz) returning id`,
    toggled: ['Listing deactivated', 'Listing activated'],
    deleted: 'Product deleted successfully',
  },
  land: {
    page: '/my-lands',
    heading: 'My Lands',
    table: 'lands',
    insert: `insert into public.lands (userid, title, location, description, type, purpose, price, size, payment_status, is_active, paid_until)
             values (:'uid', :'title', 'Juja, Kiambu', 'E2E fixture', 'Residential', 'Sale', 1500000, 0.5, :'status', :'active', nullif(:'until', '')::timestamptz) returning id`,
    toggled: ['Listing deactivated', 'Listing activated'],
    deleted: 'Land listing deleted successfully',
  },
  service: {
    page: '/my-services',
    heading: 'My Services',
    table: 'service_providers',
    insert: `insert into public.service_providers (userid, name, category, location, description, services, payment_status, is_active, paid_until)
             values (:'uid', :'title', 'Moving', 'Nairobi', 'E2E fixture', array['Packing','Loading'], :'status', :'active', nullif(:'until', '')::timestamptz) returning id`,
    toggled: ['Service deactivated successfully', 'Service activated successfully'],
    deleted: 'Service deleted successfully',
  },
};

async function insertListing(stack, kind, title, live) {
  const [[id]] = await sql(stack, listingKinds[kind].insert, {
    uid: AMINA_ID,
    title,
    status: live ? 'paid' : 'unpaid',
    active: live ? 'true' : 'false',
    until: live ? new Date(Date.now() + 10 * 86_400_000).toISOString() : '',
  });
  return id;
}

const isActive = async (stack, kind, id) => (await row(stack, `select is_active from public.${listingKinds[kind].table} where id = :'id'`, { id }))[0];

describe('my pages', { timeout: 600_000 }, () => {
  const app = useDemoStack();

  test('each listing page deactivates, activates and deletes its own listings', { timeout: 240_000 }, async () => {
    const fixtures = {};
    for (const kind of Object.keys(listingKinds)) {
      const live = unique(`${kind} live`);
      const spare = unique(`${kind} spare`);
      fixtures[kind] = { live, spare, liveId: await insertListing(app.stack, kind, live, true), spareId: await insertListing(app.stack, kind, spare, false) };
    }
    await withBrowser({ shots: 'my-listings' }, async (b) => {
      const { page } = b;
      await signInTo(page, app.stack.url, '/my-lands');
      for (const [kind, spec] of Object.entries(listingKinds)) {
        const { live, spare, liveId, spareId } = fixtures[kind];
        await page.goto(`${app.stack.url}${spec.page}`);
        await visible(page.getByRole('heading', { level: 1, name: spec.heading }));
        // Only Amina's rows are on her page: as many cards as the database holds for her.
        const owner = kind === 'property' || kind === 'product' ? 'user_id' : 'userid';
        const [[mine]] = await sql(app.stack, `select count(*) from public.${spec.table} where ${owner} = :'uid'`, { uid: AMINA_ID });
        const liveCard = cardActions(page, live);
        await visible(liveCard);
        assert.equal(await page.getByRole('group', { name: /^Actions for / }).count(), Number(mine), `${spec.page} shows every listing of Amina's`);
        await visible(liveCard.getByText(/^Active until /));

        await liveCard.getByRole('button', { name: 'Deactivate' }).click();
        await expectToast(page, spec.toggled[0]);
        await visible(liveCard.getByRole('button', { name: 'Activate' }));
        assert.equal(await isActive(app.stack, kind, liveId), 'f', `${kind} switched off in the database`);
        await visible(liveCard.getByText(/^Inactive · paid until /));
        await b.shot(`${kind}-deactivated`);
        await liveCard.getByRole('button', { name: 'Activate' }).click();
        await expectToast(page, spec.toggled[1]);
        await visible(liveCard.getByRole('button', { name: 'Deactivate' }));
        assert.equal(await isActive(app.stack, kind, liveId), 't', `${kind} switched on again in the database`);

        // An unpaid listing offers Continue, not Activate (services: Activate, refused by the server).
        const spareCard = cardActions(page, spare);
        await visible(spareCard.getByRole('button', { name: 'Continue' }));
        if (kind === 'service') {
          await spareCard.getByRole('button', { name: 'Activate' }).click();
          const toast = page.getByRole('region', { name: /\(F8\)$/ }).getByRole('listitem').filter({ hasText: 'Failed to update service' });
          await visible(toast.filter({ hasText: 'Pay the listing fee to activate this listing' }));
          await toast.getByRole('button').click();
          assert.equal(await isActive(app.stack, kind, spareId), 'f', 'the server refused to switch on an unpaid service');
        } else {
          assert.equal(await spareCard.getByRole('button', { name: /^(Activate|Deactivate)$/ }).count(), 0);
        }

        // Delete: Cancel keeps it, Delete removes it.
        await spareCard.getByRole('button', { name: 'Delete' }).click();
        let dialog = await visible(page.getByRole('dialog', { name: 'Delete this listing?' }));
        await visible(dialog.getByText(`"${spare}" will be removed permanently.`, { exact: false }));
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'detached' });
        const [[kept]] = await sql(app.stack, `select count(*) from public.${spec.table} where id = :'id'`, { id: spareId });
        assert.equal(kept, '1', 'Cancel deletes nothing');
        await spareCard.getByRole('button', { name: 'Delete' }).click();
        dialog = await visible(page.getByRole('dialog', { name: 'Delete this listing?' }));
        await b.shot(`${kind}-confirm-delete`);
        await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
        await expectToast(page, spec.deleted);
        await spareCard.waitFor({ state: 'detached' });
        const [[gone]] = await sql(app.stack, `select count(*) from public.${spec.table} where id = :'id'`, { id: spareId });
        assert.equal(gone, '0', `${kind} deleted in the database`);
      }
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('a draft left at the pay step is continued from My Lands, and /wallet shows its listing fee', { timeout: 240_000 }, async () => {
    const title = unique('draft plot');
    const days = 2;
    const total = RESIDENTIAL_PER_DAY * days;
    await withBrowser({ shots: 'my-draft' }, async (b) => {
      const { page } = b;
      await signInTo(page, app.stack.url, '/list-land');

      // Step 1 saved, step 2 (payment) left alone.
      await visible(page.getByRole('heading', { level: 1, name: 'List Your Land' }));
      await page.getByLabel('Title', { exact: true }).fill(title);
      await page.getByLabel('Land Type', { exact: true }).selectOption('Residential');
      await page.getByLabel('Purpose', { exact: true }).selectOption('Sale');
      await page.getByLabel('Price (KES)').fill('1500000');
      await page.getByLabel('Location', { exact: true }).fill('Juja, Kiambu');
      await page.getByLabel('Size', { exact: true }).fill('0.5');
      await page.getByRole('button', { name: 'Save and continue to payment' }).click();
      await visible(page.getByRole('region', { name: 'Pay and publish' }));
      const [id, status, active] = await row(app.stack, `select id, payment_status, is_active from public.lands where userid = :'uid' and title = :'title'`, {
        uid: AMINA_ID,
        title,
      });
      assert.deepEqual([status, active], ['unpaid', 'f'], 'the draft is saved unpaid and hidden');
      const before = await nestcoinBalance(app.stack, demo.amina.email);

      // Found again on My Lands with Continue, which leads to the pay step.
      await page.goto(`${app.stack.url}/my-lands`);
      const card = await visible(cardActions(page, title));
      await visible(card.getByText('Unpaid', { exact: true }));
      await visible(card.getByText('Draft: not published yet. Continue to pay the listing fee and publish it.'));
      await b.shot('draft-on-my-lands');
      await card.getByRole('button', { name: 'Continue' }).click();
      const pay = await visible(page.getByRole('dialog', { name: `Listing fee for ${title}` }));
      const daysField = pay.getByLabel('Number of days');
      await daysField.fill(String(days));
      await daysField.blur();
      await b.shot('continue-pay-step');
      await pay.getByRole('button', { name: `Pay ${total} Nestcoins` }).click();
      await visible(pay.getByRole('heading', { name: 'Your listing is live' }));
      // The open dialog hides the toast area from the accessibility tree: found by its text.
      await visible(page.getByText(`${total} Nestcoins paid`, { exact: true }));
      await pay.getByRole('button', { name: 'Close' }).click();
      await visible(card.getByText(/^Active until /));

      // The database: the land is live for 2 days, and one ledger transfer moved the fee.
      const [paid, live, hoursLeft] = await row(
        app.stack,
        `select payment_status, is_active, round(extract(epoch from paid_until - now()) / 3600) from public.lands where id = :'id'`,
        { id },
      );
      assert.deepEqual([paid, live], ['paid', 't']);
      assert.ok(Math.abs(Number(hoursLeft) - 24 * days) <= 1, `paid for ${days} days (${hoursLeft} h left)`);
      const transfers = await sql(
        app.stack,
        `select t.kind, t.amount, t.currency, t.memo, c.kind
           from public.wallet_transfers t
           join public.wallets d on d.id = t.debit_wallet_id
           join public.wallets c on c.id = t.credit_wallet_id
          where d.user_id = :'uid' and t.reference = 'land:' || :'id'`,
        { uid: AMINA_ID, id },
      );
      assert.deepEqual(transfers, [['listing_fee', String(total), 'nestcoins', `${days} days at ${RESIDENTIAL_PER_DAY} Nestcoins per day`, 'fees']]);
      const after = await nestcoinBalance(app.stack, demo.amina.email);
      assert.equal(after, before - total);

      // /wallet: the balance, the fee at the top of the history, linked to the land.
      await page.goto(`${app.stack.url}/wallet`);
      await visible(page.getByRole('heading', { level: 1, name: 'My Wallet' }));
      const balances = page.getByRole('region', { name: 'Balances' });
      const balanceOf = (currency) => balances.getByRole('term').filter({ hasText: currency }).locator('xpath=following-sibling::dd[1]');
      await visible(balanceOf('Nestcoins').filter({ hasText: after.toLocaleString('en-KE') }));
      const [[crystals, keys]] = await sql(
        app.stack,
        `select max(balance) filter (where currency = 'crystals'), max(balance) filter (where currency = 'keys') from public.wallets where user_id = :'uid'`,
        { uid: AMINA_ID },
      );
      assert.equal(numberIn(await textOf(balanceOf('Crystals'))), Number(crystals));
      assert.equal(numberIn(await textOf(balanceOf('Keys'))), Number(keys));

      const history = page.getByRole('table', { name: 'History' });
      const first = history.getByRole('row').nth(1);
      await visible(first.getByRole('link', { name: title }));
      assert.match(await textOf(first), new RegExp(`Listing fee ${title} ${days} days at ${RESIDENTIAL_PER_DAY} Nestcoins per day -${total} Nestcoins`));
      assert.equal(await first.getByRole('link', { name: title }).getAttribute('href'), `/lands/${id}`);
      const [[all]] = await sql(app.stack, `select count(*) from public.wallet_history where user_id = :'uid'`, { uid: AMINA_ID });
      await visible(page.getByText(`${all} transactions`, { exact: true }));
      await b.shot('wallet-history');

      // Filtered to listing fees (in the URL), then to a currency without any.
      await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Listing fee' });
      await expectPath(page, '/wallet?kind=listing_fee');
      const [[fees]] = await sql(app.stack, `select count(*) from public.wallet_history where user_id = :'uid' and kind = 'listing_fee'`, { uid: AMINA_ID });
      await visible(page.getByText(`${fees} transactions`, { exact: true }));
      const kinds = await history.getByRole('row').locator('td:nth-child(2)').allInnerTexts();
      assert.ok(kinds.length > 0 && kinds.every((kind) => kind.trim() === 'Listing fee'), `only listing fees: ${kinds}`);
      await page.getByLabel('Currency', { exact: true }).selectOption({ label: 'Keys' });
      await expectPath(page, '/wallet?kind=listing_fee&currency=keys');
      await visible(page.getByRole('heading', { name: 'No transactions match these filters' }));
      await b.shot('wallet-filtered-empty');
      await page.reload();
      await visible(page.getByRole('heading', { name: 'No transactions match these filters' }));
      assert.equal(await page.getByLabel('Currency', { exact: true }).inputValue(), 'keys', 'the filters survive a reload');
      await page.getByRole('button', { name: 'Clear filters' }).first().click();
      await expectPath(page, '/wallet');

      // Listing fees paid per listing: one row per listing the ledger charged, this land among them.
      const perListing = page.getByRole('table', { name: 'Listing fees paid per listing' });
      const landRow = perListing.getByRole('row').filter({ has: page.getByRole('link', { name: title }) });
      await visible(landRow);
      const cells = (await landRow.getByRole('cell').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
      assert.deepEqual(cells.slice(0, 3), [`${total} 1 payment`, '0', String(total)]);
      assert.equal(await landRow.getByRole('link', { name: 'My page' }).getAttribute('href'), '/my-lands');
      const [[listings]] = await sql(
        app.stack,
        `select count(distinct reference) from public.wallet_history where user_id = :'uid' and kind in ('listing_fee', 'listing_refund')`,
        { uid: AMINA_ID },
      );
      assert.equal(await perListing.getByRole('row').count(), Number(listings) + 1, 'one row per listing charged (plus the header)');
      await b.shot('wallet-fees-per-listing');

      // Buying Nestcoins: the packages, and the M-Pesa pay step, which orders nothing until Pay
      // (e2e/test/payments.test.mjs pays).
      const orders = async () =>
        (await sql(app.stack, `select count(*) from public.nestcoin_purchases where user_id = :'uid'`, { uid: AMINA_ID }))[0][0];
      const ordersBefore = await orders();
      await balances.getByRole('button', { name: 'Buy Nestcoins' }).click();
      const sheet = await visible(page.getByRole('dialog', { name: 'Purchase Nestcoins' }));
      await sheet.getByRole('button', { name: 'Buy Side Hustle' }).click();
      await visible(sheet.getByRole('heading', { name: 'Pay with M-Pesa' }));
      await visible(sheet.getByRole('button', { name: /^Pay Ksh.500 with M-Pesa$/ }));
      await b.shot('purchase-pay-step');
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'detached' });
      assert.equal(await orders(), ordersBefore, 'no purchase order was made');
      assert.equal(await nestcoinBalance(app.stack, demo.amina.email), after);
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('/my-p2p-offers lists her offers and deletes one after confirmation', { timeout: 120_000 }, async () => {
    const [[offerId]] = await sql(
      app.stack,
      `insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit, payment_methods, auto_cancel_duration)
       values (:'uid', 'buy', 'crystals', 777, 1.25, 10, 300, array['M-Pesa', 'Airtel Money'], '3 days') returning id`,
      { uid: AMINA_ID },
    );
    await withBrowser({ shots: 'my-offers' }, async (b) => {
      const { page } = b;
      // Signed out: the page's own message and a sign-in link back here.
      await page.goto(`${app.stack.url}/my-p2p-offers`);
      await visible(page.getByText('You must be logged in to view your P2P offers.'));
      await page.getByRole('main').getByRole('link', { name: 'Sign in' }).click();
      await expectPath(page, '/login');
      await submitSignIn(page, demo.amina);
      await expectPath(page, '/my-p2p-offers');
      await visible(page.getByRole('heading', { level: 1, name: 'My P2P Offers' }));

      const card = await visible(page.getByRole('article', { name: 'Buy 777 Crystals at Ksh 1.25' }));
      const [[mine]] = await sql(app.stack, `select count(*) from public.p2p_offers where user_id = :'uid'`, { uid: AMINA_ID });
      assert.equal(await page.getByRole('main').getByRole('article').count(), Number(mine), 'every offer of hers, whatever its status');
      const fact = async (term) => textOf(card.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]'));
      assert.equal(await fact('Amount'), '777 Crystals');
      assert.equal(await fact('Remaining'), '777');
      assert.match(await fact('Rate per unit'), /^Ksh\s1\.25$/);
      assert.equal(await fact('Limits per trade'), '10 – 300');
      assert.match(await fact('Payment methods'), /^M-Pesa\s*Airtel Money$/);
      await visible(card.getByText('Active', { exact: true }));
      await b.shot('offers');
      assert.equal(await page.getByRole('link', { name: 'Create Offer' }).first().getAttribute('href'), '/p2p');

      // Her seeded offer with trades still open says so in its dialog (and is kept).
      const [[busyAmount, busyRate, openTrades]] = await sql(
        app.stack,
        `select o.amount, o.rate_per_unit, (select count(*) from public.p2p_trades t where t.offer_id = o.id and t.status in ('escrow_locked', 'paid', 'disputed'))
           from public.p2p_offers o where o.user_id = :'uid' and exists (select 1 from public.p2p_trades t where t.offer_id = o.id)`,
        { uid: AMINA_ID },
      );
      await cardActions(page, `Sell ${busyAmount} Nestcoins at Ksh ${busyRate}`).getByRole('button', { name: 'Delete' }).click();
      let dialog = await visible(page.getByRole('dialog', { name: 'Delete this offer?' }));
      await visible(dialog.getByText(`It has ${openTrades} open trades.`, { exact: false }));
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });

      const offerCard = cardActions(page, 'Buy 777 Crystals at Ksh 1.25');
      await offerCard.getByRole('button', { name: 'Delete' }).click();
      dialog = await visible(page.getByRole('dialog', { name: 'Delete this offer?' }));
      await visible(dialog.getByText('Your offer to buy 777 Crystals will be removed.', { exact: false }));
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal((await sql(app.stack, `select count(*) from public.p2p_offers where id = :'id'`, { id: offerId }))[0][0], '1', 'Cancel deletes nothing');

      await offerCard.getByRole('button', { name: 'Delete' }).click();
      dialog = await visible(page.getByRole('dialog', { name: 'Delete this offer?' }));
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await expectToast(page, 'Offer deleted successfully!');
      await card.waitFor({ state: 'detached' });
      assert.equal((await sql(app.stack, `select count(*) from public.p2p_offers where id = :'id'`, { id: offerId }))[0][0], '0', 'deleted in the database');
      assert.equal(await page.getByRole('main').getByRole('article').count(), Number(mine) - 1);
      await b.shot('offer-deleted');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test("/home shows a signed-in user's dashboard with the database's numbers", { timeout: 120_000 }, async () => {
    await withBrowser({ shots: 'my-dashboard' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      await visible(page.getByRole('heading', { level: 1 }));
      assert.equal(await page.getByRole('heading', { name: 'Your dashboard' }).count(), 0, 'visitors get no dashboard');
      await signInTo(page, app.stack.url, '/wallet');
      await page.goto(`${app.stack.url}/home`);
      const dashboard = await visible(page.getByRole('region', { name: 'Your dashboard' }));
      const numberOf = async (card, label) =>
        numberIn(await textOf(dashboard.getByRole('article', { name: card }).getByRole('term').filter({ hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]')));
      await visible(dashboard.getByRole('article', { name: 'My Properties' }).getByRole('term').first());
      await b.shot('dashboard');

      const states = `count(*) filter (where is_active), count(*) filter (where payment_status = 'pending'),
        count(*) filter (where payment_status = 'unpaid'), count(*) filter (where payment_status = 'rejected'),
        count(*) filter (where is_active and paid_until between now() and now() + interval '3 days')`;
      for (const [card, table, owner] of [
        ['My Properties', 'properties', 'user_id'],
        ['My Products', 'products', 'user_id'],
        ['My Lands', 'lands', 'userid'],
        ['My Services', 'service_providers', 'userid'],
      ]) {
        const [counts] = await sql(app.stack, `select ${states} from public.${table} where ${owner} = :'uid'`, { uid: AMINA_ID });
        const shown = [];
        for (const label of ['Active', 'Pending approval', 'Unpaid drafts to continue', 'Rejected', 'Expiring within 3 days']) shown.push(String(await numberOf(card, label)));
        assert.deepEqual(shown, counts, `${card}: active, pending, unpaid, rejected, expiring`);
        assert.equal(await dashboard.getByRole('article', { name: card }).getByRole('link', { name: card }).getAttribute('href'), `/${card.toLowerCase().replace(' ', '-')}`);
      }
      const [[activeOffers, allOffers, trades, balance]] = await sql(
        app.stack,
        `select (select count(*) from public.p2p_offers where user_id = :'uid' and status = 'active'),
                (select count(*) from public.p2p_offers where user_id = :'uid'),
                (select count(*) from public.p2p_trades where :'uid' in (buyer_id, seller_id) and status in ('escrow_locked', 'paid', 'disputed')),
                (select balance from public.wallets where user_id = :'uid' and currency = 'nestcoins')`,
        { uid: AMINA_ID },
      );
      assert.equal(await numberOf('My P2P Offers', 'Active'), Number(activeOffers));
      assert.equal(await numberOf('My P2P Offers', 'All offers'), Number(allOffers));
      const balanceCard = dashboard.getByRole('article', { name: 'Nestcoin balance' });
      assert.equal(numberIn(await textOf(balanceCard.locator('p').first())), Number(balance));
      const tradesCard = dashboard.getByRole('article', { name: 'Open P2P trades' });
      assert.equal(numberIn(await textOf(tradesCard.locator('p').first())), Number(trades));
      assert.ok(Number(trades) > 0, 'the seed leaves Amina with open trades');

      await balanceCard.getByRole('link', { name: 'Open wallet' }).click();
      await expectPath(page, '/wallet');
      await visible(page.getByRole('heading', { level: 1, name: 'My Wallet' }));
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });
});
