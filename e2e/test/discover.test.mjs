// Finding things (issue 13): /search from the phone's bottom bar, results
// grouped by kind with counts cross-checked in SQL; the heart that saves a
// listing, /saved, and public.saved_listings behind them; the contact form
// of /contact and /about storing public.contact_messages, with the server's
// rate limit; and the Google button, hidden while the stack has no Google
// sign-in configured.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { openAccountMenu, submitSignIn } from '../lib/app.mjs';
import { PHONE, expectPath, expectToast, pathOf, textOf, visible, withBrowser } from '../lib/browser.mjs';
import { demo, sql, useDemoStack } from '../lib/stack.mjs';

/** Amina's user id (sql/seed/0001_demo_users.sql). */
const AMINA_ID = '0e5a0000-0000-4000-8000-000000000002';

/**
 * Active listings of each kind whose full-text vector holds every word of
 * `q` as a prefix (sql/migrations/0027_listing_search.sql): what /search and
 * each kind's own screen ask for. Products' vectors hold their category too.
 */
async function searchCounts(stack, q) {
  const [row] = await sql(
    stack,
    `with p as (select public.search_query(:'q') as v)
     select (select count(*) from public.properties t, p where t.is_active and t.search @@ p.v),
            (select count(*) from public.products t, p where t.is_active and t.search @@ p.v),
            (select count(*) from public.lands t, p where t.is_active and t.search @@ p.v),
            (select count(*) from public.service_providers t, p where t.is_active and t.search @@ p.v);`,
    { q },
  );
  const [property, product, land, service] = row.map(Number);
  return { Properties: property, Marketplace: product, Land: land, Services: service };
}

/** Checks each kind's group on /search against `counts`: its count line, up to six cards, or no group at all. */
async function expectGroups(page, counts) {
  const main = page.getByRole('main');
  for (const [kind, count] of Object.entries(counts)) {
    const group = main.getByRole('region', { name: new RegExp(`^${kind} `) });
    if (count === 0) {
      assert.equal(await group.count(), 0, `no ${kind} group without matches`);
      continue;
    }
    await visible(group);
    assert.equal(await textOf(group.getByRole('heading', { level: 2 })), `${kind} ${count === 1 ? '1 result' : `${count} results`}`);
    assert.equal(await group.getByRole('listitem').count(), Math.min(count, 6), `${kind} shows at most six`);
  }
}

/** Waits until `text` (SQL) returns `expected` rows (as arrays of strings). */
async function waitForRows(stack, text, vars, expected, { timeoutMs = 15_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await sql(stack, text, vars);
    try {
      assert.deepEqual(rows, expected);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits until the toggle button's aria-pressed reads `expected` ('true' or 'false'). */
async function expectPressed(button, expected, { timeoutMs = 15_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pressed = await button.getAttribute('aria-pressed');
    if (pressed === expected) return;
    if (Date.now() > deadline) assert.fail(`aria-pressed is ${pressed}, expected ${expected}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const savedRowsSql = `select listing_kind, listing_id::text from public.saved_listings where user_id = :'user' order by listing_kind, listing_id;`;

describe('discover', { timeout: 600_000 }, () => {
  const app = useDemoStack();

  test('searches from the bottom bar, grouped by kind with the counts of the database, and opens a result', { timeout: 150_000 }, async () => {
    await withBrowser({ shots: 'search', viewport: PHONE, isMobile: true }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      const bar = await visible(page.getByRole('navigation', { name: 'Mobile navigation' }));
      await bar.getByRole('link', { name: 'Search' }).click();
      await expectPath(page, '/search');
      await visible(page.getByRole('heading', { level: 1, name: 'Search' }));
      await visible(page.getByRole('heading', { name: 'What are you looking for?' }));

      const box = page.getByRole('searchbox', { name: 'Search listings' });
      await box.fill('nairobi');
      await box.press('Enter');
      await expectPath(page, '/search?q=nairobi');
      const counts = await searchCounts(app.stack, 'nairobi');
      assert.ok(counts.Properties > 6 && Object.values(counts).every((n) => n > 0), `the seed has Nairobi listings of each kind: ${JSON.stringify(counts)}`);
      await expectGroups(page, counts);
      await b.shot('nairobi');

      // A comma, a dot, brackets and a colon are PostgREST's own syntax, and tsquery's: they only separate words.
      for (const q of ['Kilimani, Nairobi', 'Bamburi, Mombasa', '(plot: 7).']) {
        await box.fill(q);
        await box.press('Enter');
        await expectPath(page, `/search?${new URLSearchParams({ q })}`);
        const expected = await searchCounts(app.stack, q);
        if (Object.values(expected).every((n) => n === 0)) {
          await visible(page.getByRole('heading', { name: `No results for "${q}"` }));
        } else {
          await expectGroups(page, expected);
        }
      }
      await b.shot('bamburi');

      // Products match their category too.
      await box.fill('furniture');
      await box.press('Enter');
      await expectGroups(page, await searchCounts(app.stack, 'furniture'));

      // A listing made for this test: found, and opened.
      const [[id]] = await sql(
        app.stack,
        `insert into public.properties (user_id, title, type, purpose, price, location, description, is_active, payment_status, paid_until)
         values (:'owner', 'Zebrawood Cottage with a garden', 'Two Bedroom', 'Rent', 55000, 'Kitisuru, Nairobi',
                 'A quiet cottage behind zebrawood trees.', true, 'paid', now() + interval '30 days')
         returning id;`,
        { owner: '0e5a0000-0000-4000-8000-000000000003' },
      );
      await box.fill('zebrawood');
      await box.press('Enter');
      await expectGroups(page, { Properties: 1, Marketplace: 0, Land: 0, Services: 0 });
      const group = page.getByRole('main').getByRole('region', { name: /^Properties / });
      await b.shot('zebrawood');
      await group.getByRole('link', { name: 'Zebrawood Cottage with a garden' }).click();
      await expectPath(page, `/properties/${id}`);
      await visible(page.getByRole('heading', { level: 1, name: 'Zebrawood Cottage with a garden' }));

      // Gone inactive, it is no longer found.
      await sql(app.stack, `update public.properties set is_active = false where id = :'id';`, { id });
      await page.goBack();
      await expectPath(page, '/search?q=zebrawood');
      await page.reload();
      await visible(page.getByRole('heading', { name: 'No results for "zebrawood"' }));
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('saves listings with the heart, lists them on /saved, and unsaves them', { timeout: 180_000 }, async () => {
    await withBrowser({ shots: 'saved' }, async (b) => {
      const { page } = b;
      const main = page.getByRole('main');
      // Two listings of other owners: the newest active property and land.
      const [[propertyId, propertyTitle]] = await sql(
        app.stack,
        `select id, title from public.properties where is_active and user_id <> :'user' order by created_at desc limit 1;`,
        { user: AMINA_ID },
      );
      const [[landId, landTitle]] = await sql(
        app.stack,
        `select id, title from public.lands where is_active and userid <> :'user' order by "createdAt" desc limit 1;`,
        { user: AMINA_ID },
      );

      // A visitor's heart asks them to log in, and brings them back.
      await page.goto(`${app.stack.url}/properties`);
      // (Titles can repeat in the demo data; the newest is the first card.)
      const propertyHeart = main.getByRole('button', { name: `Save ${propertyTitle}`, exact: true }).first();
      await propertyHeart.click();
      await expectPath(page, '/login');
      assert.equal(await expectToast(page, 'Please log in to continue with this action'), 'info');
      await submitSignIn(page, demo.amina);
      await expectPath(page, '/properties');

      // Saved from the card: the heart is pressed and the row is Amina's.
      await visible(propertyHeart);
      await expectPressed(propertyHeart, 'false');
      await propertyHeart.click();
      await expectPressed(propertyHeart, 'true');
      await waitForRows(app.stack, savedRowsSql, { user: AMINA_ID }, [['property', propertyId]]);
      await b.shot('card-saved');

      // Saved from a detail page.
      await page.goto(`${app.stack.url}/lands/${landId}`);
      await visible(page.getByRole('heading', { level: 1, name: landTitle }));
      const landSave = main.getByRole('button', { name: `Save ${landTitle}`, exact: true }).first();
      await visible(landSave);
      await expectPressed(landSave, 'false');
      await landSave.click();
      await waitForRows(app.stack, savedRowsSql, { user: AMINA_ID }, [['land', landId], ['property', propertyId]].sort((x, y) => x[0].localeCompare(y[0])));
      // The page remembers it after a reload.
      await page.reload();
      await expectPressed(landSave, 'true');
      await b.shot('detail-saved');

      // /saved from the account menu: grouped by kind.
      await (await openAccountMenu(page)).getByRole('menuitem', { name: 'Saved Listings' }).click();
      await expectPath(page, '/saved');
      await visible(page.getByRole('heading', { level: 1, name: 'Saved Listings' }));
      const properties = main.getByRole('region', { name: 'Properties 1 saved' });
      await visible(properties.getByRole('link', { name: propertyTitle }));
      const lands = main.getByRole('region', { name: 'Land 1 saved' });
      await visible(lands.getByRole('link', { name: landTitle }));
      await b.shot('saved-page');

      // The owner pauses the land: still saved, no longer available.
      await sql(app.stack, `update public.lands set is_active = false where id = :'id';`, { id: landId });
      await page.reload();
      await visible(lands.getByText('No longer available', { exact: true }));
      assert.equal(await lands.getByRole('link', { name: landTitle }).count(), 0, 'an invisible listing is not shown');
      await b.shot('no-longer-available');
      await lands.getByRole('button', { name: 'Remove unavailable listing from saved listings' }).click();
      await lands.waitFor({ state: 'detached' });
      await waitForRows(app.stack, savedRowsSql, { user: AMINA_ID }, [['property', propertyId]]);

      // Unsaved with the heart on the property's page; /saved is empty then.
      await properties.getByRole('link', { name: propertyTitle }).click();
      await expectPath(page, `/properties/${propertyId}`);
      const detailHeart = main.getByRole('button', { name: `Save ${propertyTitle}`, exact: true }).first();
      await expectPressed(detailHeart, 'true');
      await detailHeart.click();
      await expectPressed(detailHeart, 'false');
      await waitForRows(app.stack, savedRowsSql, { user: AMINA_ID }, []);
      await page.goto(`${app.stack.url}/saved`);
      await visible(page.getByRole('heading', { name: "You haven't saved any listings yet" }));
      assert.equal(await main.getByRole('link', { name: 'Properties', exact: true }).getAttribute('href'), '/properties');
      await b.shot('saved-empty');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('the contact form stores messages from /about and /contact, and says when the server limits them', { timeout: 150_000 }, async () => {
    await withBrowser({ shots: 'contact' }, async (b) => {
      const { page } = b;
      const stored = (email) =>
        sql(app.stack, `select name, email, message, user_id is null, status from public.contact_messages where email = :'email' order by id;`, { email });

      // /about: the same form, now sent.
      await page.goto(`${app.stack.url}/about`);
      const contact = page.getByRole('region', { name: 'Contact us' });
      const aboutForm = contact.locator('form').filter({ has: page.getByRole('button', { name: 'Send Message' }) });
      await aboutForm.getByLabel('First name').fill('Otieno');
      await aboutForm.getByLabel('Last name').fill('Ouma');
      await aboutForm.getByLabel('Email').fill('Otieno.Ouma@Example.com');
      await aboutForm.getByLabel('Message').fill('Do you list plots in Kisumu?');
      await aboutForm.getByRole('button', { name: 'Send Message' }).click();
      await visible(contact.getByRole('status').filter({ hasText: 'Message sent' }));
      assert.deepEqual(await stored('otieno.ouma@example.com'), [['Otieno Ouma', 'otieno.ouma@example.com', 'Do you list plots in Kisumu?', 't', 'new']]);
      await b.shot('about-sent');

      // /contact from the About page's call to action: nothing goes out until the form is right.
      await page.getByRole('main').getByRole('link', { name: 'Contact us', exact: true }).click();
      await expectPath(page, '/contact');
      await visible(page.getByRole('heading', { level: 1, name: 'Contact us' }));
      const send = page.getByRole('button', { name: 'Send Message' });
      await send.click();
      for (const message of ['Enter your first name', 'Enter your last name', 'Please enter your email address', 'Message must be at least 10 characters']) {
        await visible(page.getByRole('alert').filter({ hasText: message }));
      }
      await page.getByLabel('First name').fill('Achieng');
      await page.getByLabel('Last name').fill('Otieno');
      await page.getByLabel('Email').fill('achieng@');
      await page.getByLabel('Message').fill('Too short');
      await send.click();
      await visible(page.getByRole('alert').filter({ hasText: 'Enter a valid email address' }));
      await b.shot('contact-invalid');
      assert.deepEqual(await stored('achieng@'), []);

      // Three messages from one address an hour; the fourth is refused by the database.
      await page.getByLabel('Email').fill('achieng@example.com');
      for (let n = 1; n <= 3; n++) {
        await page.getByLabel('Message').fill(`Message number ${n}: is the Kilimani flat still available?`);
        await send.click();
        const status = await visible(page.getByRole('status').filter({ hasText: 'Message sent' }));
        assert.match(await textOf(status), /We will reply to achieng@example\.com/);
        await status.getByRole('button', { name: 'Send another message' }).click();
        await page.getByLabel('First name').fill('Achieng');
        await page.getByLabel('Last name').fill('Otieno');
        await page.getByLabel('Email').fill('achieng@example.com');
      }
      await page.getByLabel('Message').fill('Message number 4: one more question.');
      await send.click();
      const refused = await visible(page.getByRole('alert').filter({ hasText: 'Too many messages' }));
      assert.match(await textOf(refused), /Please wait a while before sending another message\./);
      assert.equal(await page.getByLabel('Message').inputValue(), 'Message number 4: one more question.', 'what was typed stays');
      await b.shot('rate-limited');
      const rows = await stored('achieng@example.com');
      assert.deepEqual(rows.map(([name, , message]) => [name, message.slice(0, 16)]), [
        ['Achieng Otieno', 'Message number 1'],
        ['Achieng Otieno', 'Message number 2'],
        ['Achieng Otieno', 'Message number 3'],
      ]);
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('the Google button is hidden while the server has no Google sign-in', { timeout: 90_000 }, async () => {
    const response = await fetch(`${app.stack.url}/auth/v1/settings`, { headers: { apikey: app.stack.anonKey } });
    assert.equal(response.status, 200);
    const settings = await response.json();
    assert.equal(settings.external.google, false, 'the demo stack configures no Google sign-in');

    await withBrowser({ shots: 'google' }, async (b) => {
      const { page } = b;
      for (const [path, submit] of [['/login', 'Sign In'], ['/register', 'Create Account']]) {
        const read = page.waitForResponse((r) => new URL(r.url()).pathname === '/auth/v1/settings');
        await page.goto(`${app.stack.url}${path}`);
        await visible(page.getByRole('button', { name: submit, exact: true }));
        assert.equal((await read).status(), 200);
        // Let the answer render, then check nothing leads to the server's error.
        await page.waitForTimeout(300);
        assert.equal(await page.getByRole('button', { name: 'Continue with Google' }).count(), 0, `${path}: no Google button`);
        assert.equal(await page.getByText('or', { exact: true }).count(), 0, `${path}: no 'or' separator`);
      }
      await b.shot('login-without-google');
      assert.equal(pathOf(page), '/register');
    });
  });
});
