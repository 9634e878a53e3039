// Every guard of marketplace-spec §2 and §5: where a signed-out visitor, a
// signed-in user and the admin are sent, the message each one reads, and the
// page they return to after signing in (origin memory).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { openAccountMenu, submitSignIn } from '../lib/app.mjs';
import { expectPath, expectToast, pathOf, visible, withBrowser } from '../lib/browser.mjs';
import { demo, useDemoStack } from '../lib/stack.mjs';
import { totp } from '../lib/totp.mjs';

/** Goes to `path` from /home as a typed-in address, so history has /home behind it. */
async function visitFromHome(page, url, path) {
  await page.goto(`${url}/home`);
  await visible(page.getByRole('heading', { level: 1 }));
  await page.goto(`${url}${path}`);
}

/**
 * Fails at once on the app's stand-in for unbuilt screens ("Coming soon"), so
 * a route that lost its screen reports the real reason instead of timing out
 * on a missing guard.
 */
async function assertScreenExists(page) {
  const heading = await visible(page.getByRole('main').getByRole('heading', { level: 1 }).first());
  const text = (await heading.innerText()).trim();
  assert.notEqual(text, 'Coming soon', `${pathOf(page)} is not built yet: it shows "Coming soon"`);
}

/** Signs in through /login (reached from the account menu) as `who`. */
async function signInFromMenu(page, url, who) {
  await page.goto(`${url}/home`);
  await (await openAccountMenu(page)).getByRole('menuitem', { name: 'Log in' }).click();
  await expectPath(page, '/login');
  await submitSignIn(page, who);
}

describe('guards', { timeout: 300_000 }, () => {
  const app = useDemoStack();

  test('the navigation sends a signed-out visitor to sign in, then on to the page they chose', { timeout: 90_000 }, async () => {
    await withBrowser({ shots: 'guard-nav' }, async (b) => {
      const { page } = b;
      const nav = () => page.getByRole('navigation', { name: 'Main navigation' });
      for (const name of ['Marketplace', 'Lands', 'P2P', 'Properties']) {
        await page.goto(`${app.stack.url}/home`);
        await nav().getByRole('link', { name, exact: true }).click();
        await expectPath(page, '/login');
        assert.equal(await expectToast(page, 'Please sign in to access this page', { close: name !== 'Properties' }), 'info');
      }
      await b.shot('properties-needs-sign-in');
      // Free pages go straight through.
      for (const [name, path] of [['Services', '/services'], ['Pricing', '/pricing'], ['About Us', '/about']]) {
        assert.equal(await nav().getByRole('link', { name, exact: true }).getAttribute('href'), path);
      }

      // Signing in returns the visitor to /properties, where they were going.
      await submitSignIn(page, demo.amina);
      await expectPath(page, '/properties');
      await visible(page.getByRole('heading', { level: 1, name: 'Properties' }));
      await b.shot('back-at-properties');
    });
  });

  test('listing forms send a signed-out visitor to sign in, replacing history, and back after', { timeout: 120_000 }, async () => {
    await withBrowser({ shots: 'guard-forms' }, async (b) => {
      const { page } = b;
      for (const path of ['/list-product', '/list-land', '/list-service', '/list-property']) {
        await visitFromHome(page, app.stack.url, path);
        await expectPath(page, '/login');
        const close = path !== '/list-property';
        assert.equal(await expectToast(page, 'Please log in to continue with this action', { close }), 'info');
        if (close) {
          // The guarded page was replaced in history: Back returns to /home.
          await page.goBack();
          await expectPath(page, '/home');
        }
      }
      await b.shot('list-property-needs-sign-in');
      await submitSignIn(page, demo.amina);
      await expectPath(page, '/list-property');
      await visible(page.getByRole('heading', { level: 1, name: 'List a Property' }));
      await b.shot('back-at-list-property');
    });
  });

  test("a listing's contact asks the visitor to sign in and brings them back to the listing", { timeout: 90_000 }, async () => {
    await withBrowser({ shots: 'guard-contact' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/properties`);
      const firstCard = page.getByRole('main').getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3 }) }).first();
      await firstCard.getByRole('link').click();
      await expectPath(page, /^\/properties\/[0-9a-f-]{36}$/);
      const detail = pathOf(page);
      await page.getByRole('link', { name: "Sign in to see the owner's contact" }).click();
      await expectPath(page, '/login');
      await submitSignIn(page, demo.amina);
      await expectPath(page, detail);
      await visible(page.getByRole('link', { name: /^Call \+?\d[\d ]+$/ }));
      await b.shot('contact-revealed');
    });
  });

  test('signed-in pages send a signed-out visitor to sign in and back after', { timeout: 120_000 }, async () => {
    await withBrowser({ shots: 'guard-account-pages' }, async (b) => {
      const { page } = b;
      // §2: "Signed-in routes (signed-out users go to /login, remembering the origin)";
      // /my-properties and /my-p2p-offers also have their own signed-out screens (§2).
      const ownScreen = {
        '/my-properties': () => page.getByRole('heading', { name: 'Sign In Required' }),
        '/my-p2p-offers': () => page.getByText('You must be logged in to view your P2P offers.'),
      };
      for (const path of ['/my-properties', '/my-products', '/my-lands', '/my-services', '/my-p2p-offers', '/profile']) {
        await visitFromHome(page, app.stack.url, path);
        await assertScreenExists(page);
        if (ownScreen[path]) {
          await visible(page.getByRole('link', { name: /sign in|log ?in/i }).or(ownScreen[path]()).first());
          if (pathOf(page) === path) {
            await visible(ownScreen[path]());
            continue;
          }
        }
        await expectPath(page, '/login');
        await expectToast(page, 'Please log in to continue with this action', { close: path !== '/profile' });
      }
      await submitSignIn(page, demo.amina);
      await expectPath(page, '/profile');
      assert.equal(await page.getByRole('heading', { name: 'Coming soon' }).count(), 0, '/profile is a real page');
    });
  });

  test('/p2p tells a signed-out visitor to log in', { timeout: 60_000 }, async () => {
    await withBrowser({ shots: 'guard-p2p' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/p2p`);
      await assertScreenExists(page);
      await visible(page.getByText('Please login to access P2P trading'));
      await page.getByRole('main').getByRole('link', { name: /log ?in/i }).click();
      await expectPath(page, '/login');
    });
  });

  test('the admin area turns away visitors and users, and asks the admin for the access code', { timeout: 120_000 }, async () => {
    // §5 admin guard: not signed in → /login with its message.
    await withBrowser({ shots: 'guard-admin-visitor' }, async (b) => {
      await b.page.goto(`${app.stack.url}/admin/dashboard`);
      await assertScreenExists(b.page);
      await expectPath(b.page, '/login');
      await expectToast(b.page, 'You need to be logged in to access the admin page');
    });
    // A signed-in user who is not the admin → / with its message.
    await withBrowser({ shots: 'guard-admin-user' }, async (b) => {
      await signInFromMenu(b.page, app.stack.url, demo.amina);
      await b.page.goto(`${app.stack.url}/admin/dashboard`);
      await assertScreenExists(b.page);
      await expectPath(b.page, /^\/(home)?$/);
      const toast = b.page.getByRole('region', { name: /\(F8\)$/ }).getByRole('listitem');
      await visible(toast.filter({ hasText: /^(You do not have admin privileges\.|You don't have admin privileges)/ }));
    });
    // The admin: password sign-in goes to the access-code screen (no flag yet),
    // the dashboard redirects there too, and a wrong code is refused.
    await withBrowser({ shots: 'guard-admin' }, async (b) => {
      const { page } = b;
      await signInFromMenu(page, app.stack.url, demo.admin);
      await expectPath(page, '/admin/login');
      await assertScreenExists(page);
      await page.goto(`${app.stack.url}/admin/dashboard`);
      await expectPath(page, '/admin/login');
      // The demo admin's second factor comes first (sql/seed/0005_demo_admin_mfa.sql).
      await page.getByLabel('Authentication code').fill(totp('KEJANESTADMINDEMOTOTPSECRET23456'));
      await page.getByRole('button', { name: 'Verify code' }).click();
      await expectToast(page, 'Two-factor verification complete');
      const code = page.getByRole('textbox').first();
      await code.fill('not-the-code');
      await page.getByRole('button', { name: /verify|continue|submit|enter/i }).click();
      await expectToast(page, 'Invalid access code');
      await b.shot('admin-code');
    });
  });
});
