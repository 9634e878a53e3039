// The screens the other files do not walk (issue 8: "Screenshots of each
// screen are written by the test run"): /about with its do-nothing forms,
// /terms and /privacy, /marketplace, /lands and /services with their filters
// and a detail page each, /pricing signed out with the packages sheet, the
// password reset through the development mailbox, and the listing forms'
// validation on an empty submit. Lists are compared with the database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { openAccountMenu, submitSignIn } from '../lib/app.mjs';
import { expectPath, expectToast, numberIn, pathOf, textOf, visible, withBrowser } from '../lib/browser.mjs';
import { demo, sql, useDemoStack, waitForMail } from '../lib/stack.mjs';

/** Spec §9 / the browse screens: 12 listings a page (server-side pagination). */
const PAGE_SIZE = 12;

/** The cards of a listings grid: list items holding a card title (h3). */
function cards(page) {
  return page.getByRole('main').getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3 }) });
}

/**
 * Waits until the grid shows what `total` matching rows should give on page
 * 1: min(total, 12) cards, and "Page 1 of N" only when there is more than a
 * page; with no rows, the empty state `empty`.
 */
async function expectGrid(page, total, empty) {
  if (total === 0) {
    await visible(page.getByRole('heading', { level: 2, name: empty }));
    assert.equal(await cards(page).count(), 0);
    return;
  }
  const pages = Math.ceil(total / PAGE_SIZE);
  const pager = page.getByRole('navigation', { name: 'Pages' });
  if (pages > 1) await visible(pager.getByText(`Page 1 of ${pages}`, { exact: true }));
  const want = Math.min(total, PAGE_SIZE);
  try {
    await page.waitForFunction(
      ([n, hasPager]) => {
        const main = document.querySelector('main');
        const shown = main ? [...main.querySelectorAll('li')].filter((li) => li.querySelector('h3')).length : 0;
        return shown === n && Boolean(main?.querySelector('nav[aria-label="Pages"]')) === hasPager;
      },
      [want, pages > 1],
    );
  } catch (error) {
    const shown = await cards(page).count();
    const paged = await pager.count();
    assert.fail(`expected ${want} cards${pages > 1 ? ` and "Page 1 of ${pages}"` : ' and no pages'} for ${total} rows; ` +
      `the page shows ${shown} cards${paged ? ' with pages' : ''} (${error.message.split('\n')[0]})`);
  }
}

/** Waits until a form control holds `want` (the page re-renders just after the URL changes). */
async function expectValue(control, want, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let value;
  while ((value = await control.inputValue()) !== want) {
    if (Date.now() > deadline) assert.fail(`the control holds "${value}", expected "${want}"`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The error message tied to a form control (its aria-describedby alert), after checking it is marked invalid. */
async function fieldError(page, label) {
  const control = page.getByLabel(label, { exact: true });
  assert.equal(await control.getAttribute('aria-invalid'), 'true', `"${label}" is marked invalid`);
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  const messages = [];
  for (const id of ids) {
    const alert = page.locator(`[id="${id}"][role="alert"]`);
    if (await alert.count()) messages.push(await textOf(alert));
  }
  return messages.join(' | ');
}

/** Records the app's data and auth calls (anything but GET reads) made while `fn` runs. */
async function writesDuring(page, base, fn) {
  const seen = [];
  const listener = (request) => {
    const u = new URL(request.url());
    if (u.origin === base && /^\/(rest|auth|functions|storage)\//.test(u.pathname) && request.method() !== 'GET' && request.method() !== 'HEAD') {
      seen.push(`${request.method()} ${u.pathname}`);
    }
  };
  page.on('request', listener);
  try {
    await fn();
    // Give a stray call time to leave the page.
    await page.waitForTimeout(300);
  } finally {
    page.off('request', listener);
  }
  return seen;
}

describe('screens', { timeout: 300_000 }, () => {
  const app = useDemoStack();

  test('/about shows every section, and its newsletter box sends nothing', { timeout: 60_000 }, async () => {
    await withBrowser({ shots: 'screens-about' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'About Us' }).click();
      await expectPath(page, '/about');
      await visible(page.getByRole('heading', { level: 1, name: 'About KejaNest' }));
      assert.equal(await page.title(), 'About KejaNest | KejaNest');
      assert.match((await page.locator('meta[name="description"]').getAttribute('content')) ?? '', /Kenyan platform/);

      // Spec §1: founded August 2024 by one founder; 10,000+ properties, 8 cities, 25,000+ customers.
      const story = page.getByRole('region', { name: 'Our story' });
      await visible(story.getByText(/founded in August 2024 by one founder/));
      const stat = (label) => story.getByRole('term').filter({ hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');
      assert.equal(await textOf(stat('Listed properties')), '10,000+');
      assert.equal(await textOf(stat('Cities')), '8');
      assert.equal(await textOf(stat('Customers')), '25,000+');
      await b.shot('top');

      // Services link to the three listing screens.
      const offer = page.getByRole('region', { name: 'What we offer' });
      for (const [name, href] of [['Properties', '/properties'], ['Marketplace', '/marketplace'], ['Services', '/services']]) {
        assert.equal(await offer.getByRole('link', { name, exact: true }).getAttribute('href'), href);
      }
      await visible(page.getByRole('region', { name: /KejaNest 2\.0/ }).getByText('Coming Q4 2024', { exact: true }));
      const values = page.getByRole('region', { name: 'Our core values' }).getByRole('heading', { level: 3 });
      assert.deepEqual((await values.allInnerTexts()).map((s) => s.trim()), ['Transparency', 'Community', 'Innovation', 'Service Excellence']);
      const founder = page.getByRole('region', { name: 'Meet the founder' });
      assert.ok((await founder.getByRole('link').count()) >= 1, 'the founder card has social links');
      await founder.scrollIntoViewIfNeeded();
      await b.shot('values-founder');

      // Contact block: hours and headquarters as the spec gives them.
      const contact = page.getByRole('region', { name: 'Contact us' });
      await visible(contact.getByText('Monday-Friday 8:30 AM - 5:30 PM', { exact: true }));
      await visible(contact.getByText(/Nairobi/).first());

      // The contact form (first name, last name, email, message, Send Message) now stores the
      // message (issue 13; e2e/test/discover.test.mjs sends it). The 'Get Updates' box still
      // submits nothing (spec §2, §7): no call, no toast, no navigation.
      const contactForm = contact.locator('form').filter({ has: page.getByRole('button', { name: 'Send Message' }) });
      for (const label of ['First name', 'Last name', 'Email', 'Message']) await visible(contactForm.getByLabel(label));
      const calls = await writesDuring(page, app.stack.url, async () => {
        const updates = page.getByRole('heading', { name: 'Get Updates' }).locator('xpath=..');
        await updates.getByRole('textbox').fill('achieng@example.com');
        await updates.getByRole('button', { name: 'Subscribe' }).click();
        await page.getByRole('heading', { name: 'Get Updates' }).scrollIntoViewIfNeeded();
      });
      assert.deepEqual(calls, [], 'the newsletter box makes no call');
      assert.equal(pathOf(page), '/about');
      assert.equal(await page.getByRole('region', { name: /\(F8\)$/ }).getByRole('listitem').count(), 0, 'no toast');
      await b.shot('forms-sent-nothing');

      // Calls to action: /register and /contact.
      assert.equal(await page.getByRole('link', { name: 'Create an account' }).getAttribute('href'), '/register');
      assert.equal(await page.getByRole('main').getByRole('link', { name: 'Contact us', exact: true }).getAttribute('href'), '/contact');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await expectPath(page, '/register');
      await visible(page.getByRole('heading', { name: 'Create your account' }));
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('/terms and /privacy open from the footer, at the top, with their sections', { timeout: 60_000 }, async () => {
    await withBrowser({ shots: 'screens-legal' }, async (b) => {
      const { page } = b;
      const pages = [
        { link: 'Terms of Service', path: '/terms', sections: 7, law: /laws of Kenya/ },
        { link: 'Privacy Policy', path: '/privacy', sections: 6, law: /Data Protection Act, 2019/ },
      ];
      for (const { link, path, sections, law } of pages) {
        await page.goto(`${app.stack.url}/home`);
        await visible(page.getByRole('heading', { level: 1 }));
        const footerLink = page.getByRole('contentinfo').getByRole('link', { name: link, exact: true });
        await footerLink.scrollIntoViewIfNeeded();
        assert.ok(await page.evaluate(() => window.scrollY) > 0, 'the footer is below the fold');
        await footerLink.click();
        await expectPath(page, path);
        await visible(page.getByRole('heading', { level: 1, name: link }));
        await page.waitForFunction(() => window.scrollY === 0);
        assert.equal(await page.title(), `${link} | KejaNest`);
        await visible(page.getByText(/^Last updated: /));
        const headings = page.getByRole('main').getByRole('heading', { level: 2 });
        assert.equal(await headings.count(), sections);
        const titles = (await headings.allInnerTexts()).map((s) => s.trim());
        titles.forEach((title, i) => assert.match(title, new RegExp(`^${i + 1}\\. \\S`), `section ${i + 1} is numbered`));
        await visible(page.getByRole('main').getByText(law).first());
        await b.shot(path.slice(1));
      }
    });
  });

  test('/marketplace filters by category, condition and location, and opens a product', { timeout: 90_000 }, async () => {
    /** Active products matching the filters (spec §7: is_active, category, status, location contains). */
    const count = async ({ category = '', status = '', location = '' } = {}) => {
      const [[n]] = await sql(
        app.stack,
        `select count(*) from public.products where is_active
           and (:'category' = '' or category = :'category') and (:'status' = '' or status = :'status')
           and (:'location' = '' or location ilike '%' || :'location' || '%');`,
        { category, status, location },
      );
      return Number(n);
    };
    await withBrowser({ shots: 'screens-marketplace' }, async (b) => {
      const { page } = b;
      // The footer's category links lead to the filtered marketplace.
      await page.goto(`${app.stack.url}/home`);
      await page.getByRole('contentinfo').getByRole('link', { name: 'Electronics', exact: true }).click();
      await expectPath(page, '/marketplace?category=Electronics');
      await visible(page.getByRole('heading', { level: 1, name: 'Marketplace' }));
      const category = page.getByRole('combobox', { name: 'Category' });
      assert.equal(await category.inputValue(), 'Electronics');
      const electronics = await count({ category: 'Electronics' });
      assert.ok(electronics > PAGE_SIZE, `the demo data has more than a page of electronics (${electronics})`);
      await expectGrid(page, electronics);
      await b.shot('electronics');

      // Condition: New.
      await page.getByRole('combobox', { name: 'Condition' }).selectOption({ label: 'New' });
      await expectPath(page, /^\/marketplace\?(?=.*category=Electronics)(?=.*status=New)/);
      const fresh = await count({ category: 'Electronics', status: 'New' });
      assert.ok(fresh > 0 && fresh < electronics);
      await expectGrid(page, fresh);
      for (const card of await cards(page).all()) {
        const text = await textOf(card);
        assert.match(text, /\bNew\b/, 'every card is new');
        assert.match(text, /\bElectronics\b/, 'every card is electronics');
        assert.match(text, /Ksh\s?[\d,]+/, 'price in KES without decimals');
        assert.doesNotMatch(text, /Ksh\s?[\d,]+\.\d/, 'no decimals');
      }
      await b.shot('electronics-new');

      // Location (applied on Enter), with all categories.
      await category.selectOption({ label: 'All Categories' });
      await expectPath(page, '/marketplace?status=New');
      const location = page.getByRole('textbox', { name: 'Location' });
      await location.fill('Nairobi');
      await location.press('Enter');
      await expectPath(page, /^\/marketplace\?(?=.*status=New)(?=.*location=Nairobi)/);
      const inNairobi = await count({ status: 'New', location: 'Nairobi' });
      assert.ok(inNairobi > 0);
      await expectGrid(page, inNairobi);
      for (const card of await cards(page).all()) assert.match(await textOf(card), /Nairobi/i);
      await b.shot('new-in-nairobi');

      // Clear Filters shows everything again.
      await page.getByRole('button', { name: 'Clear Filters' }).click();
      await expectPath(page, '/marketplace');
      await expectValue(location, '');
      await expectGrid(page, await count());

      // A product's page: the card clicked, its facts from the database.
      const card = cards(page).first();
      const name = await textOf(card.getByRole('heading', { level: 3 }));
      await card.getByRole('link').first().click();
      await expectPath(page, /^\/marketplace\/[0-9a-f-]{36}$/);
      const id = pathOf(page).split('/').pop();
      const [[dbName, dbPrice, dbStatus, dbCategory, dbLocation]] = await sql(
        app.stack,
        `select name, price, status, category, location from public.products where id = :'id'`,
        { id },
      );
      assert.equal(dbName, name, 'the detail page is the card that was clicked');
      await visible(page.getByRole('heading', { level: 1, name }));
      const price = await textOf(page.getByRole('heading', { level: 1 }).locator('xpath=following-sibling::p[contains(., "Ksh")][1]'));
      assert.equal(numberIn(price), Number(dbPrice), `price "${price}"`);
      const fact = (term) => page.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
      assert.equal(await textOf(fact('Condition')), dbStatus);
      assert.equal(await textOf(fact('Category')), dbCategory);
      await visible(page.getByRole('main').getByText(dbLocation, { exact: true }).first());
      await visible(page.getByRole('link', { name: "Sign in to see the owner's contact" }));
      assert.equal(await page.title(), `${name} - ${dbCategory} | KejaNest`);
      await b.shot('product-detail');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('/lands: search, sort, type and purpose, Clear Filters, and a land', { timeout: 90_000 }, async () => {
    /** Active lands matching the filters (spec §2: search over title, location, description, case-insensitive). */
    const count = async ({ search = '', type = '', purpose = '' } = {}) => {
      const [[n]] = await sql(
        app.stack,
        `select count(*) from public.lands where is_active
           and (:'type' = '' or type = :'type') and (:'purpose' = '' or purpose = :'purpose')
           and (:'search' = '' or search @@ public.search_query(:'search'));`,
        { search, type, purpose },
      );
      return Number(n);
    };
    await withBrowser({ shots: 'screens-lands' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/lands`);
      await visible(page.getByRole('heading', { level: 1, name: 'Land for Sale and Lease' }));
      const all = await count();
      assert.ok(all > PAGE_SIZE, `more than a page of land (${all})`);
      await expectGrid(page, all);
      assert.equal(await page.getByRole('link', { name: 'List Your Land' }).getAttribute('href'), '/list-land');
      const sort = page.getByRole('combobox', { name: 'Sort by' });
      assert.deepEqual((await sort.locator('option').allInnerTexts()).map((s) => s.trim()), ['Newest First', 'Price: Low to High', 'Price: High to Low']);
      const type = page.getByRole('combobox', { name: 'Land Type' });
      assert.deepEqual((await type.locator('option').allInnerTexts()).map((s) => s.trim()),
        ['All Types', 'Residential', 'Commercial', 'Agricultural', 'Industrial', 'Mixed Use']);
      const purpose = page.getByRole('combobox', { name: 'Purpose' });
      assert.deepEqual((await purpose.locator('option').allInnerTexts()).map((s) => s.trim()), ['All Purposes', 'For Sale', 'For Lease']);
      await b.shot('all');

      // Search finds the words (as prefixes, any case) in title, location and description.
      const search = page.getByRole('searchbox', { name: 'Search land' });
      await search.fill('mombasa');
      await search.press('Enter');
      await expectPath(page, '/lands?search=mombasa');
      const found = await count({ search: 'mombasa' });
      assert.ok(found > 0 && found < all, `search narrows ${all} to ${found}`);
      await expectGrid(page, found);
      await b.shot('search');

      // Sort by price, low to high: the cards' prices rise and start at the cheapest match.
      await sort.selectOption({ label: 'Price: Low to High' });
      await expectPath(page, /^\/lands\?(?=.*search=mombasa)(?=.*sort=price-asc)/);
      const [[cheapest]] = await sql(
        app.stack,
        `select min(price) from public.lands where is_active and search @@ public.search_query('mombasa')`,
      );
      await visible(cards(page).first().getByText(new RegExp(`^Ksh\\s?${Number(cheapest).toLocaleString('en-KE')}(/month)?$`)));
      const prices = [];
      for (const card of await cards(page).all()) prices.push(numberIn(await textOf(card.locator('p').filter({ hasText: /^Ksh/ }).first())));
      assert.deepEqual(prices, [...prices].sort((x, y) => x - y), `prices rise: ${prices.join(', ')}`);
      await b.shot('sorted');

      // Clear Filters resets search and sort.
      await page.getByRole('button', { name: 'Clear Filters' }).click();
      await expectPath(page, '/lands');
      await expectValue(search, '');
      await expectValue(sort, 'newest');
      await expectGrid(page, all);

      // Type and purpose: Industrial land for lease.
      await type.selectOption({ label: 'Industrial' });
      await purpose.selectOption({ label: 'For Lease' });
      await expectPath(page, /^\/lands\?(?=.*type=Industrial)(?=.*purpose=Lease)/);
      const leases = await count({ type: 'Industrial', purpose: 'Lease' });
      assert.ok(leases > 0);
      await expectGrid(page, leases);
      // Card rules (spec §2, §9): badges, '/month' for leases, first 2 features and '+N'.
      for (const card of await cards(page).all()) {
        const title = await textOf(card.getByRole('heading', { level: 3 }));
        const [[features]] = await sql(app.stack, `select array_to_json(features) from public.lands where title = :'title' and is_active limit 1`, { title });
        const list = JSON.parse(features ?? '[]') ?? [];
        const text = await textOf(card);
        assert.match(text, /For Lease/);
        assert.match(text, /Industrial/);
        assert.match(text, /\/month/);
        const chips = (await card.getByRole('list', { name: 'Features' }).getByRole('listitem').allInnerTexts().catch(() => [])).map((s) => s.trim());
        const expected = [...list.slice(0, 2), ...(list.length > 2 ? [`+${list.length - 2}`] : [])];
        assert.deepEqual(chips, expected, `features of "${title}"`);
      }
      await b.shot('industrial-lease');

      // Nothing matches: the empty state.
      await search.fill('no such plot anywhere');
      await search.press('Enter');
      await expectGrid(page, 0, 'No land listings found');
      await visible(page.getByText('Try adjusting your filters or search terms', { exact: true }));
      await b.shot('empty');
      await page.getByRole('button', { name: 'Clear Filters' }).click();
      await expectPath(page, '/lands');
      await expectValue(type, '');
      await expectValue(purpose, '');
      await expectValue(search, '');
      await expectGrid(page, all);

      // View Details of the newest land.
      const [[newestId, newestTitle, newestPrice, newestType, newestPurpose]] = await sql(
        app.stack,
        `select id, title, price, type, purpose from public.lands where is_active order by "createdAt" desc limit 1`,
      );
      assert.equal(await textOf(cards(page).first().getByRole('heading', { level: 3 })), newestTitle, 'newest first');
      await cards(page).first().getByRole('link', { name: 'View Details' }).click();
      await expectPath(page, `/lands/${newestId}`);
      await visible(page.getByRole('heading', { level: 1, name: newestTitle }));
      const fact = (term) => page.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
      assert.equal(await textOf(fact('Land Type')), newestType);
      assert.equal(await textOf(fact('Purpose')), newestPurpose === 'Lease' ? 'For Lease' : 'For Sale');
      const price = await textOf(page.getByRole('heading', { level: 1 }).locator('xpath=following-sibling::p[contains(., "Ksh")][1]'));
      assert.equal(numberIn(price), Number(newestPrice));
      await b.shot('land-detail');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('/services: the three tabs, search, and a provider through View Profile', { timeout: 90_000 }, async () => {
    /** Active providers on a tab, matching a search over name, location and services (spec §7). */
    const count = async ({ category = '', search = '' } = {}) => {
      const [[n]] = await sql(
        app.stack,
        `select count(*) from public.service_providers p where is_active
           and (:'category' = '' or category = :'category')
           and (:'search' = '' or name ilike '%' || :'search' || '%' or location ilike '%' || :'search' || '%'
                or exists (select 1 from unnest(p.services) s where s ilike '%' || :'search' || '%'));`,
        { category, search },
      );
      return Number(n);
    };
    await withBrowser({ shots: 'screens-services' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Services' }).click();
      await expectPath(page, '/services');
      await visible(page.getByRole('heading', { level: 1, name: 'Home Services' }));
      assert.equal(await page.getByRole('link', { name: 'List Your Service' }).getAttribute('href'), '/list-service');
      assert.equal(await page.getByRole('main').getByRole('link', { name: 'My Services' }).getAttribute('href'), '/my-services');
      const tabs = page.getByRole('tablist', { name: 'Service categories' }).getByRole('tab');
      assert.deepEqual((await tabs.allInnerTexts()).map((s) => s.trim()), ['All Services', 'Drone Services', 'Moving Services']);
      await visible(page.getByRole('tab', { name: 'All Services', selected: true }));
      await expectGrid(page, await count());
      await b.shot('all');

      for (const [tab, category, badge] of [['Drone Services', 'Drone', 'Drone'], ['Moving Services', 'Moving', 'Moving']]) {
        await page.getByRole('tab', { name: tab }).click();
        await expectPath(page, `/services?category=${category}`);
        await visible(page.getByRole('tab', { name: tab, selected: true }));
        const n = await count({ category });
        assert.ok(n > 0);
        await expectGrid(page, n);
        // The category badge, not the card's first words: a card also carries its save heart.
        for (const card of await cards(page).all()) {
          assert.ok((await card.getByText(badge, { exact: true }).count()) >= 1, `every card is ${badge}: ${await textOf(card)}`);
        }
        await b.shot(category.toLowerCase());
      }

      // Search on the Moving tab, over name, location and services.
      const search = page.getByRole('searchbox', { name: 'Search services' });
      await search.fill('mombasa');
      await search.press('Enter');
      await expectPath(page, /^\/services\?(?=.*category=Moving)(?=.*search=mombasa)/);
      const found = await count({ category: 'Moving', search: 'mombasa' });
      assert.ok(found > 0 && found < (await count({ category: 'Moving' })), `search finds ${found}`);
      await expectGrid(page, found);
      await b.shot('search');

      // Card rules (spec §9): at most 3 services then '+N more', 2 prices in KSh.
      const card = cards(page).first();
      const name = await textOf(card.getByRole('heading', { level: 3 }));
      const [[id, servicesJson, pricingJson]] = await sql(
        app.stack,
        `select id, array_to_json(services), pricing::text from public.service_providers where name = :'name' and is_active limit 1`,
        { name },
      );
      const services = JSON.parse(servicesJson);
      const pricing = JSON.parse(pricingJson);
      const chips = (await card.getByRole('list', { name: 'Services' }).getByRole('listitem').allInnerTexts()).map((s) => s.trim());
      assert.deepEqual(chips, [...services.slice(0, 3), ...(services.length > 3 ? [`+${services.length - 3} more`] : [])]);
      const priceTerms = card.getByRole('term');
      assert.equal(await priceTerms.count(), Math.min(2, pricing.length));
      for (let i = 0; i < (await priceTerms.count()); i++) {
        assert.equal(await textOf(priceTerms.nth(i)), pricing[i].title);
        assert.equal(numberIn(await textOf(priceTerms.nth(i).locator('xpath=following-sibling::dd[1]'))), pricing[i].price);
      }

      // View Profile: every service and price.
      await card.getByRole('link', { name: 'View Profile' }).click();
      await expectPath(page, `/service-provider/${id}`);
      await visible(page.getByRole('heading', { level: 1, name }));
      const serviceList = page.getByRole('heading', { level: 2, name: 'Services' }).locator('xpath=following-sibling::ul[1]');
      assert.deepEqual((await serviceList.getByRole('listitem').allInnerTexts()).map((s) => s.trim()), services);
      const rows = page.getByRole('heading', { level: 2, name: 'Pricing' }).locator('xpath=following-sibling::table[1]').getByRole('row');
      assert.equal(await rows.count(), pricing.length);
      await visible(page.getByRole('link', { name: "Sign in to see the owner's contact" }));
      await b.shot('provider-detail');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('/pricing signed out: balance 0, the fee tables, the calculator, the packages sheet and Go to Wallet (to sign in)', { timeout: 90_000 }, async () => {
    await withBrowser({ shots: 'screens-pricing' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Pricing' }).click();
      await expectPath(page, '/pricing');
      await visible(page.getByRole('heading', { level: 1, name: 'Nestcoins Pricing' }));
      const balance = page.getByText('Your Nestcoin balance', { exact: true }).locator('xpath=following-sibling::*[1]');
      assert.equal(await textOf(balance), '0 Nestcoins');

      // The five tabs, each table as the database's fee rates (spec §9).
      const rates = await sql(app.stack, `select category, label, per_day from public.listing_fee_rates order by category, sort_order`);
      for (const [tab, category] of [['Sale', 'sale'], ['Rent', 'rent'], ['Services', 'services'], ['Market', 'market'], ['Land', 'land']]) {
        await page.getByRole('tab', { name: tab, exact: true }).click();
        const panel = await visible(page.getByRole('tabpanel', { name: tab }));
        const rows = await panel.getByRole('row').filter({ has: page.getByRole('cell') }).all();
        const shown = [];
        for (const row of rows) shown.push((await row.getByRole('cell').allInnerTexts()).map((s) => s.trim()));
        const expected = rates.filter(([c]) => c === category).map(([, label, perDay]) => [label, perDay]);
        assert.ok(expected.length > 0);
        assert.deepEqual(shown, expected, `the ${tab} table`);
        if (tab === 'Rent') await b.shot('rent-table');
      }

      // The calculator: Rent → Bedsitter (33 a day, spec §9); with balance 0 the button is 'Purchase Nestcoins'.
      await page.getByRole('combobox', { name: 'Category' }).selectOption({ label: 'Rent' });
      await page.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'Bedsitter' });
      const days = page.getByRole('textbox', { name: 'Number of days' });
      await days.fill('3');
      await days.blur();
      const value = (term) => page.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
      await visible(value('Total').filter({ hasText: '99 Nestcoins' }));
      assert.equal(await textOf(value('Per day')), '33 Nestcoins');
      assert.equal(await textOf(value('Days')), '3');
      assert.equal(await textOf(value('Your balance')), '0 Nestcoins');
      // Not a whole number ≥ 1: becomes 1.
      await days.fill('0');
      await days.blur();
      await visible(value('Total').filter({ hasText: '33 Nestcoins' }));
      assert.equal(await days.inputValue(), '1');
      const purchase = page.getByRole('button', { name: 'Purchase Nestcoins' });
      assert.equal(await purchase.count(), 2, 'the balance card and the calculator both offer to purchase');
      assert.equal(await page.getByRole('link', { name: 'List Now' }).count(), 0);
      const [calcBg, cardBg] = await Promise.all([purchase.nth(1), purchase.nth(0)].map((l) => l.evaluate((el) => getComputedStyle(el).backgroundColor)));
      assert.notEqual(calcBg, cardBg, "the calculator's button has the destructive style");
      await b.shot('calculator');

      // The packages sheet opens from the calculator and closes with its close button.
      await purchase.nth(1).click();
      const sheet = await visible(page.getByRole('dialog', { name: 'Purchase Nestcoins' }));
      const packages = await sql(app.stack, `select name, coins, price from public.nestcoin_packages where is_active order by sort_order`);
      assert.equal(packages.length, 10);
      const items = sheet.getByRole('listitem');
      assert.equal(await items.count(), packages.length);
      for (const [i, [name, coins, price]] of packages.entries()) {
        const text = await textOf(items.nth(i));
        assert.ok(text.startsWith(name), `package ${i + 1} is ${name}: "${text}"`);
        assert.match(text, new RegExp(`${Number(coins).toLocaleString('en-KE')} Nestcoins · Ksh\\s?${Number(price).toLocaleString('en-KE')}\\b`));
        await visible(items.nth(i).getByRole('button', { name: `Buy ${name}` }).filter({ hasText: 'Buy Now' }));
      }
      await b.shot('packages-sheet');
      await sheet.getByRole('button', { name: 'Close' }).click();
      await sheet.waitFor({ state: 'detached' });

      // From the balance card; signed out, Buy Now's pay step asks the visitor to sign in
      // (issue 16; e2e/test/payments.test.mjs pays) and makes no call, then the sheet closes.
      await purchase.nth(0).click();
      await visible(sheet);
      const calls = await writesDuring(page, app.stack.url, async () => {
        await sheet.getByRole('button', { name: 'Buy Side Hustle' }).click();
        await visible(sheet.getByRole('heading', { name: 'Sign in to buy Nestcoins' }));
        await visible(sheet.getByText(/^You chose Side Hustle: 275 Nestcoins for Ksh.500\./));
        assert.equal(await sheet.getByRole('link', { name: 'Sign in' }).getAttribute('href'), '/login');
        assert.equal(await sheet.getByRole('textbox').count(), 0, 'no phone field before signing in');
        await sheet.getByRole('button', { name: 'Close' }).click();
        await sheet.waitFor({ state: 'detached' });
      });
      assert.deepEqual(calls, [], 'Buy Now calls nothing');
      assert.equal(await textOf(balance), '0 Nestcoins');
      // And Escape closes it too.
      await purchase.nth(0).click();
      await visible(sheet);
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'detached' });
      await b.shot('sheet-closed');

      // Signed out, the wallet's guard sends the visitor on to /login with
      // its message (spec §5); waiting for /wallet itself raced that redirect.
      assert.equal(await page.getByRole('link', { name: 'Go to Wallet' }).getAttribute('href'), '/wallet');
      await page.getByRole('link', { name: 'Go to Wallet' }).click();
      await expectPath(page, '/login');
      await visible(page.getByText('Please log in to continue with this action').first());
      await visible(page.getByRole('main').getByRole('heading', { level: 1 }));
      await b.shot('wallet-guard');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('forgot password: the recovery mail, a new password, and sign-in with it', { timeout: 120_000 }, async () => {
    // Brian, not Amina: the other tests sign in with Amina's demo password.
    const brian = { email: 'brian@kejanest.test', password: 'Brian-Demo-2024' };
    const fresh = 'Brian-New-Pass-2026';
    await withBrowser({ shots: 'screens-reset' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      await (await openAccountMenu(page)).getByRole('menuitem', { name: 'Log in' }).click();
      await expectPath(page, '/login');
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await expectPath(page, '/forgot-password');
      await visible(page.getByRole('heading', { name: 'Forgot your password?' }));
      await page.getByRole('button', { name: 'Send reset link' }).click();
      assert.equal(await fieldError(page, 'Email'), 'Enter a valid email address');
      await b.shot('forgot-empty');
      await page.getByLabel('Email', { exact: true }).fill(brian.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await visible(page.getByRole('status').getByText(`If an account exists for ${brian.email}, we have sent a link to reset your password.`));
      await b.shot('forgot-sent');

      const mail = await waitForMail(app.stack, brian.email, { subject: /reset/i });
      assert.match(mail.subject, /Reset Your Password/);
      await page.goto(`${app.stack.mailboxUrl}/?to=${encodeURIComponent(brian.email)}`);
      await b.shot('mailbox');
      await page.getByRole('link', { name: 'Reset Password' }).first().click();
      await expectPath(page, /^\/reset-password/);
      await visible(page.getByRole('heading', { name: 'Set a new password' }));
      const newPassword = page.getByLabel('New password', { exact: true });
      const confirm = page.getByLabel('Confirm password', { exact: true });
      await visible(newPassword);

      // The form's own rules first.
      await newPassword.fill('short');
      await confirm.fill('short');
      await page.getByRole('button', { name: 'Save password' }).click();
      assert.equal(await fieldError(page, 'New password'), 'Password must be at least 8 characters long.');
      await newPassword.fill(fresh);
      await confirm.fill(`${fresh}x`);
      await page.getByRole('button', { name: 'Save password' }).click();
      assert.equal(await fieldError(page, 'Confirm password'), 'Passwords do not match');
      await b.shot('reset-mismatch');
      await confirm.fill(fresh);
      await page.getByRole('button', { name: 'Save password' }).click();
      await expectToast(page, 'Password updated successfully');
      await expectPath(page, '/home');
      const [[changed]] = await sql(
        app.stack,
        `select encrypted_password = extensions.crypt(:'pw', encrypted_password) from auth.users where email = :'email'`,
        { pw: fresh, email: brian.email },
      );
      assert.equal(changed, 't', 'the database holds the new password');
      await b.shot('reset-done');

      // Signed out, the old password is refused and the new one works.
      await (await openAccountMenu(page)).getByRole('menuitem', { name: 'Log out' }).click();
      await expectToast(page, 'Signed out successfully.');
      await (await openAccountMenu(page)).getByRole('menuitem', { name: 'Log in' }).click();
      await expectPath(page, '/login');
      await page.getByLabel('Email', { exact: true }).fill(brian.email);
      await page.getByLabel('Password', { exact: true }).fill(brian.password);
      await page.getByRole('button', { name: 'Sign In', exact: true }).click();
      await visible(page.getByRole('alert').filter({ hasText: /invalid/i }));
      assert.equal(pathOf(page), '/login');
      await b.shot('old-password-refused');
      await submitSignIn(page, { email: brian.email, password: fresh });
      await expectPath(page, '/home');
      await visible((await openAccountMenu(page)).getByText(brian.email, { exact: true }));
      await b.shot('signed-in-new-password');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('the listing forms show their validation messages on an empty submit and save nothing', { timeout: 120_000 }, async () => {
    const owned = async () => {
      const [[products, lands, services]] = await sql(
        app.stack,
        `select (select count(*) from public.products p where p.user_id = u.id),
                (select count(*) from public.lands l where l.userid = u.id),
                (select count(*) from public.service_providers s where s.userid = u.id)
           from auth.users u where u.email = :'email'`,
        { email: demo.amina.email },
      );
      return { products, lands, services };
    };
    const before = await owned();
    const forms = [
      {
        nav: 'Marketplace', cta: 'List Product', path: '/list-product', heading: 'List a Product',
        errors: {
          'Product name': 'Name is required',
          'Price (KES)': 'Enter a price in KES (a whole number, 0 or more)',
          Location: 'Location is required',
          'Contact phone': 'Enter a Kenyan phone number, e.g. 0712 345 678',
        },
        valid: ['Category', 'Condition', 'Value range', 'Description'],
      },
      {
        nav: 'Lands', cta: 'List Your Land', path: '/list-land', heading: 'List Your Land',
        errors: {
          Title: 'Title is required',
          'Price (KES)': 'Enter a price in KES (a whole number, 0 or more)',
          Location: 'Location is required',
          Size: 'Size must be greater than 0',
        },
        valid: ['Land Type', 'Purpose', 'Unit', 'Description', 'Features'],
      },
      {
        nav: 'Services', cta: 'List Your Service', path: '/list-service', heading: 'List Your Service',
        errors: {
          'Business name': 'Name is required',
          Location: 'Location is required',
          'Services offered': 'Add at least one service',
          'Contact phone': 'Enter a Kenyan phone number, e.g. 0712 345 678',
        },
        valid: ['Category', 'Description'],
      },
    ];
    await withBrowser({ shots: 'screens-forms' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      await (await openAccountMenu(page)).getByRole('menuitem', { name: 'Log in' }).click();
      await submitSignIn(page, demo.amina);
      await expectPath(page, '/home');

      for (const form of forms) {
        await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: form.nav, exact: true }).click();
        await page.getByRole('main').getByRole('link', { name: form.cta }).click();
        await expectPath(page, form.path);
        await visible(page.getByRole('heading', { level: 1, name: form.heading }));
        const calls = await writesDuring(page, app.stack.url, async () => {
          await page.getByRole('button', { name: 'Save and continue to payment' }).click();
          await visible(page.getByRole('alert').filter({ hasText: Object.values(form.errors)[0] }).first());
        });
        assert.deepEqual(calls, [], `${form.path}: an invalid form sends nothing`);
        for (const [label, message] of Object.entries(form.errors)) {
          assert.equal(await fieldError(page, label), message, `${form.path}: ${label}`);
        }
        for (const label of form.valid) {
          assert.notEqual(await page.getByLabel(label, { exact: true }).getAttribute('aria-invalid'), 'true', `${form.path}: ${label} is valid`);
        }
        assert.equal(await page.getByRole('main').getByRole('alert').count(), Object.keys(form.errors).length,
          `${form.path}: exactly the expected messages`);
        // The first invalid field has the focus, so the user sees where to start.
        assert.equal(await page.getByLabel(Object.keys(form.errors)[0], { exact: true }).evaluate((el) => el === document.activeElement), true);
        await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
        await b.shot(`${form.path.slice(1)}-empty`);
      }
      assert.deepEqual(await owned(), before, 'no listing was saved');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });
});
