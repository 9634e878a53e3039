// A visitor who is not signed in: the landing walk from `/` to a property's
// detail page, the theme toggle, the phone's bottom bar, the Kiswahili
// switch and the install card (marketplace-spec §2, §8, §9; issue 8).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  DESKTOP,
  PHONE,
  expectPath,
  expectToast,
  numberIn,
  withBrowser,
  pathOf,
  textOf,
  visible,
} from '../lib/browser.mjs';
import { sql, useDemoStack } from '../lib/stack.mjs';

const LOCATIONS = ['Nairobi', 'Mombasa', 'Kisumu', 'Nakuru', 'Eldoret', 'Westlands', 'Kilimani', 'Karen'];
const TYPE_TILES = ['Single Room', 'Bedsitter', 'One Bedroom', 'Two Bedroom', 'Three Bedroom', 'Commercial'];

/** How many active properties the list should report, by the app's own rule (spec §7). */
async function activeCount(stack, { query = '', type = '', purpose = '', location = '' } = {}) {
  const [[count]] = await sql(
    stack,
    `select count(*) from public.properties p
      where p.is_active
        and (:'type' = '' or p.type = :'type')
        and (:'purpose' = '' or p.purpose = :'purpose')
        and (:'location' = '' or p.location ilike '%' || :'location' || '%')
        and (:'query' = '' or p.search @@ public.search_query(:'query'));`,
    { query, type, purpose, location },
  );
  return Number(count);
}

describe('a visitor', { timeout: 240_000 }, () => {
  const app = useDemoStack();

  test('walks from the landing screen through search and filters to a property', { timeout: 120_000 }, async () => {
    await withBrowser({ shots: 'visitor-walk' }, async (b) => {
      const { page } = b;
      // The page's clock is held so the one-second redirect and the
      // two-second count-up can be checked exactly, however slow the machine.
      await page.clock.install();
      await page.clock.pauseAt(Date.now() + 1000);

      // `/`: the redirect screen.
      await page.goto(`${app.stack.url}/`);
      await visible(page.getByRole('heading', { name: 'Redirecting to KejaNest' }));
      await visible(page.getByRole('status', { name: /Redirecting to KejaNest/ }).or(page.getByRole('status').filter({ hasText: 'Redirecting to KejaNest' })).first());
      const stats = { 'Properties Listed': 5000, 'Happy Clients': 2500, 'Cities Covered': 12 };
      const statValue = async (label) =>
        numberIn(await textOf(page.getByText(label, { exact: true }).locator('xpath=preceding-sibling::*[1]')));
      for (const label of Object.keys(stats)) assert.equal(await statValue(label), 0, `${label} counts up from 0`);
      for (const name of LOCATIONS) {
        const tile = page.getByRole('link', { name, exact: true });
        assert.equal(await tile.getAttribute('href'), `/properties?location=${encodeURIComponent(name)}`);
      }
      assert.match(await page.title(), /^KejaNest\b.*Real Estate and Household Items in Kenya$/);
      const description = await page.locator('meta[name="description"]').getAttribute('content');
      assert.match(description ?? '', /Kenya's leading platform for property listings, marketplace items and real estate services/);

      // Half a second in: a quarter of the way (the count takes 2 s).
      await page.clock.runFor(500);
      for (const [label, target] of Object.entries(stats)) {
        const value = await statValue(label);
        assert.ok(Math.abs(value - target / 4) <= Math.max(1, target * 0.05), `${label} shows ${value} at 0.5 s of 2 s towards ${target}`);
      }
      await b.shot('redirect-screen');

      // Still here just before one second, at /home at one second.
      await page.clock.runFor(499);
      assert.equal(pathOf(page), '/', 'the redirect screen stays for 1 s');
      await page.clock.runFor(1);
      await expectPath(page, '/home', 10_000);
      await page.clock.resume();

      // /home: search, type and location tiles.
      await visible(page.getByRole('heading', { level: 1, name: /KejaNest/ }));
      for (const name of TYPE_TILES) await visible(page.getByRole('link', { name, exact: true }).first());
      const tiles = page.getByRole('region', { name: 'Popular locations' }).getByRole('link');
      assert.deepEqual(await tiles.allInnerTexts().then((t) => t.map((s) => s.trim())), LOCATIONS);
      await b.shot('home');

      await page.getByRole('searchbox', { name: 'Search properties' }).fill('Kilimani');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await expectPath(page, '/properties?query=Kilimani');

      // The property list reports what the database holds for that search.
      await visible(page.getByRole('heading', { level: 1, name: 'Properties' }));
      const searched = await activeCount(app.stack, { query: 'Kilimani' });
      assert.ok(searched > 0, 'the demo data has properties in Kilimani');
      await visible(page.getByText(`${searched} results`, { exact: true }));
      await b.shot('search-results');

      // Filters: type and purpose go into the URL and narrow the list.
      await page.getByRole('combobox', { name: 'Property type' }).selectOption('Bedsitter');
      await expectPath(page, /^\/properties\?(?=.*query=Kilimani)(?=.*type=Bedsitter)/);
      await page.getByRole('combobox', { name: 'Purpose' }).selectOption({ label: 'For Rent' });
      await expectPath(page, /^\/properties\?(?=.*query=Kilimani)(?=.*type=Bedsitter)(?=.*purpose=Rent)/);
      const filtered = await activeCount(app.stack, { query: 'Kilimani', type: 'Bedsitter', purpose: 'Rent' });
      assert.ok(filtered > 0 && filtered < searched, `filters narrow ${searched} to ${filtered}`);
      await visible(page.getByText(`${filtered} results`, { exact: true }));
      const cards = page.getByRole('main').getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3 }) });
      await cards.first().waitFor();
      assert.equal(await cards.count(), Math.min(filtered, 12));
      for (const card of await cards.all()) {
        const text = await textOf(card);
        assert.match(text, /Rental/, 'every card is a rental');
        assert.match(text, /Bedsitter/, 'every card is a bedsitter');
        assert.match(text, /\/month/, 'rent is shown per month');
      }
      await b.shot('filtered-results');

      // The first card opens its detail page.
      const title = await textOf(cards.first().getByRole('heading'));
      await cards.first().getByRole('link').click();
      await expectPath(page, /^\/properties\/[0-9a-f-]{36}$/);
      const id = pathOf(page).split('/').pop();
      const [[dbTitle, dbPrice, dbDeposit, dbLocation]] = await sql(
        app.stack,
        `select title, price, coalesce(deposit::text, ''), location from public.properties where id = :'id'`,
        { id },
      );
      assert.equal(dbTitle, title, 'the detail page is the card that was clicked');
      await visible(page.getByRole('heading', { level: 1, name: title }));
      const price = await textOf(page.getByRole('main').locator('p').filter({ hasText: /\d.*\/month$/ }).first());
      assert.equal(numberIn(price), Number(dbPrice), `price "${price}"`);
      await visible(page.getByRole('main').getByText(dbLocation, { exact: true }).first());
      if (dbDeposit) {
        const deposit = await textOf(page.getByRole('term').filter({ hasText: 'Deposit' }).locator('xpath=following-sibling::dd[1]'));
        assert.equal(numberIn(deposit), Number(dbDeposit));
      }
      await visible(page.getByRole('link', { name: "Sign in to see the owner's contact" }));
      assert.match(await page.title(), new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      await b.shot('property-detail');
      assert.deepEqual(b.errors, [], 'no uncaught errors in the page');
    });
  });

  test('location tiles filter by location, and Clear Filters shows everything again', { timeout: 90_000 }, async () => {
    await withBrowser({ shots: 'visitor-location' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      await page.getByRole('region', { name: 'Popular locations' }).getByRole('link', { name: 'Nairobi' }).click();
      await expectPath(page, '/properties?location=Nairobi');
      assert.equal(await page.getByRole('textbox', { name: 'Location' }).inputValue(), 'Nairobi');
      await visible(page.getByText(`${await activeCount(app.stack, { location: 'Nairobi' })} results`, { exact: true }));
      await b.shot('nairobi');
      await page.getByRole('button', { name: 'Clear Filters' }).click();
      await expectPath(page, '/properties');
      await visible(page.getByText(`${await activeCount(app.stack)} results`, { exact: true }));
      assert.equal(await page.getByRole('textbox', { name: 'Location' }).inputValue(), '');
      await b.shot('cleared');
    });
  });

  test('switches between light and dark, remembers it, and falls back to the system', { timeout: 90_000 }, async () => {
    await withBrowser({ shots: 'theme', colorScheme: 'light' }, async (b) => {
      const { page } = b;
      const isDark = () => page.evaluate(() => document.documentElement.classList.contains('dark'));
      await page.goto(`${app.stack.url}/home`);
      await visible(page.getByRole('heading', { level: 1 }));
      assert.equal(await isDark(), false, 'a light system gives the light theme');

      await page.getByRole('button', { name: 'Switch to dark mode' }).click();
      await expectToast(page, 'Dark mode activated');
      assert.equal(await isDark(), true);
      assert.equal(await page.evaluate(() => localStorage.getItem('theme')), 'dark');
      await b.shot('dark');

      await page.reload();
      await visible(page.getByRole('button', { name: 'Switch to light mode' }));
      assert.equal(await isDark(), true, 'the choice survives a reload');

      await page.getByRole('button', { name: 'Switch to light mode' }).click();
      await expectToast(page, 'Light mode activated');
      assert.equal(await isDark(), false);
      assert.equal(await page.evaluate(() => localStorage.getItem('theme')), 'light');
      await b.shot('light');
    });

    await withBrowser({ shots: 'theme-system', colorScheme: 'dark' }, async (dark) => {
      await dark.page.goto(`${app.stack.url}/home`);
      await visible(dark.page.getByRole('button', { name: 'Switch to light mode' }));
      assert.equal(await dark.page.evaluate(() => document.documentElement.classList.contains('dark')), true,
        'with nothing stored, a dark system gives the dark theme');
      await dark.shot('system-dark');
    });
  });

  test('on a phone uses the bottom bar, whose Messages needs sign-in', { timeout: 90_000 }, async () => {
    await withBrowser({ shots: 'phone', viewport: PHONE, isMobile: true }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      const bar = await visible(page.getByRole('navigation', { name: 'Mobile navigation' }));
      assert.equal(await page.getByRole('navigation', { name: 'Main navigation' }).isVisible(), false,
        'the top links are hidden on a phone');
      const items = await bar.getByRole('link').allInnerTexts();
      assert.deepEqual(items.map((s) => s.trim()), ['Home', 'Search', 'P2P', 'Messages', 'Profile']);
      assert.equal(await bar.getByRole('link', { name: 'Home' }).getAttribute('aria-current'), 'page');
      assert.equal(await bar.getByRole('link', { name: 'Profile' }).getAttribute('href'), '/login',
        'Profile leads a signed-out visitor to /login');
      const background = (name) =>
        bar.getByRole('link', { name }).evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.notEqual(await background('P2P'), await background('Search'), 'P2P is highlighted');
      await b.shot('bottom-bar');

      await bar.getByRole('link', { name: 'Messages' }).click();
      await expectPath(page, '/login');
      await expectToast(page, 'Please sign in to access this page', { close: false });
      await b.shot('messages-needs-sign-in');

      // Under 768 px only.
      await page.setViewportSize({ width: 767, height: 900 });
      await visible(bar);
      await page.setViewportSize({ width: 768, height: 900 });
      await bar.waitFor({ state: 'hidden' });
      await visible(page.getByRole('navigation', { name: 'Main navigation' }).or(page.getByRole('button', { name: 'Open menu' })).first());
    });
  });

  test('switches the site to Kiswahili and back', { timeout: 90_000 }, async () => {
    await withBrowser({ shots: 'kiswahili' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/home`);
      const english = await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link').allInnerTexts();
      assert.deepEqual(english.map((s) => s.trim()), ['Home', 'Properties', 'Marketplace', 'Lands', 'P2P', 'Services', 'Pricing', 'About Us']);

      await page.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'Kiswahili' });
      const nav = await visible(page.getByRole('navigation', { name: 'Urambazaji mkuu' }));
      const swahili = (await nav.getByRole('link').allInnerTexts()).map((s) => s.trim());
      assert.deepEqual(swahili, ['Nyumbani', 'Nyumba', 'Sokoni', 'Ardhi', 'P2P', 'Huduma', 'Bei', 'Kuhusu Sisi']);
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'sw');
      await visible(page.getByRole('searchbox', { name: 'Tafuta nyumba' }));
      await visible(page.getByRole('button', { name: 'Tafuta', exact: true }));
      await b.shot('home-sw');

      // The choice is kept, and the listing pages speak Kiswahili too.
      await page.goto(`${app.stack.url}/properties`);
      await visible(page.getByRole('heading', { level: 1, name: 'Nyumba' }));
      await visible(page.getByRole('combobox', { name: 'Aina ya nyumba' }));
      await visible(page.getByText(/^Matokeo \d+$/));
      for (const english of ['Property type', 'Clear Filters', 'List Property', 'Search properties']) {
        assert.equal(await page.getByText(english, { exact: true }).count(), 0, `"${english}" is translated`);
      }
      await b.shot('properties-sw');

      await page.getByRole('combobox', { name: 'Lugha' }).selectOption({ label: 'English' });
      await visible(page.getByRole('heading', { level: 1, name: 'Properties' }));
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    });
  });

  test('sees the install card when the browser offers installation, and can dismiss it', { timeout: 60_000 }, async () => {
    await withBrowser({ shots: 'install', installCard: 'keep' }, async (b) => {
      const { page } = b;
      const card = page.getByRole('region', { name: 'Install KejaNest' });
      await page.goto(`${app.stack.url}/home`);
      await visible(card, 30_000);
      await visible(card.getByText('Install our app for a better experience with offline access and quick launch.'));
      await visible(card.getByRole('button', { name: 'Install' }));
      await b.shot('card');
      await card.getByRole('button', { name: 'Not now' }).click();
      await card.waitFor({ state: 'detached' });
    });
  });
});
