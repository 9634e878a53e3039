// /messages and notifications (issue 13): a user messages the owner of a
// listing from its page and the owner's open inbox shows it live, without a
// reload; the owner's reply reaches the sender live too, and the unread
// badges move. A listing approved by the back office notifies its owner
// live through the bell. Every step is cross-checked in the database.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';

import { submitSignIn } from '../lib/app.mjs';
import { PHONE, expectPath, expectToast, pathOf, textOf, visible, withBrowser } from '../lib/browser.mjs';
import { demo, sql, useDemoStack } from '../lib/stack.mjs';

/** Amina's user id (sql/seed/0001_demo_users.sql). */
const AMINA_ID = '0e5a0000-0000-4000-8000-000000000002';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** One row of the stack's database as an array of strings. */
async function row(stack, text, vars) {
  const rows = await sql(stack, text, vars);
  assert.equal(rows.length, 1, `one row from: ${text}`);
  return rows[0];
}

/** A new account made the way the back office does (auth admin API, e-mail confirmed). */
async function createUser(stack, fullName) {
  const user = { email: `otieno.${randomUUID().slice(0, 8)}@kejanest.test`, password: 'Keja-Nest-e2e-2024', fullName };
  const admin = stack.client(stack.serviceRoleKey);
  const { data, error } = await admin.auth.admin.createUser({
    email: user.email,
    password: user.password,
    email_confirm: true,
    user_metadata: { full_name: fullName },
  });
  if (error) throw new Error(`create user: ${error.message}`);
  const [name] = await row(stack, `select full_name from public.profiles where id = :'id'`, { id: data.user.id });
  assert.equal(name, fullName, 'the new account has its profile');
  return { ...user, id: data.user.id };
}

/** Opens `path` signed out, signs in on the way (the guard remembers the page) and lands back on it. */
async function signInTo(page, url, path, who) {
  await page.goto(`${url}${path}`);
  await expectPath(page, '/login');
  await submitSignIn(page, who);
  await expectPath(page, path);
}

/** The top bar's Messages link, whatever its count. */
const messagesLink = (page) => page.getByRole('banner').getByRole('link', { name: /^Messages/ });
/** The notifications bell, whatever its count. */
const bell = (page) => page.getByRole('banner').getByRole('button', { name: /^Notifications/ });

/** The bell's accessible name with `n` unread. */
const bellName = (n) => (n === 0 ? 'Notifications' : `Notifications, ${n} unread`);

/** The count a labelled badge announces ("Messages, 2 unread" → 2; "Messages" → 0). */
async function announcedCount(locator) {
  const name = (await locator.getAttribute('aria-label')) ?? (await textOf(locator));
  const m = /(\d+) unread/.exec(name);
  return m ? Number(m[1]) : 0;
}

describe('messages and notifications', { timeout: 300_000 }, () => {
  const app = useDemoStack();

  test("a message to a listing's owner and the reply arrive live on the other's screen", { timeout: 200_000 }, async () => {
    const buyer = await createUser(app.stack, 'Otieno Kamau');
    const [listingId, title] = await row(
      app.stack,
      `select id, title from public.properties
        where user_id = :'amina' and is_active and payment_status = 'paid' and paid_until > now()
        order by created_at desc, id limit 1`,
      { amina: AMINA_ID },
    );
    const [[before]] = await sql(app.stack, `select count(*) from public.conversations where owner_id = :'amina'`, { amina: AMINA_ID });
    assert.equal(before, '0', 'Amina starts with no conversations');
    const first = `Habari Amina, is "${title}" still available? I can view it on Saturday.`;
    const reply = 'Yes it is. Saturday at 10 am works, see you then.';
    const later = 'Please bring your ID, the caretaker will ask for it.';

    await withBrowser({ shots: 'messages-owner' }, async (owner) => {
      // Amina waits on her inbox, empty so far.
      await signInTo(owner.page, app.stack.url, '/messages', demo.amina);
      await visible(owner.page.getByRole('heading', { name: 'No messages yet' }));
      await visible(messagesLink(owner.page));
      assert.equal(await announcedCount(messagesLink(owner.page).locator('.sr-only')), 0);
      await visible(bell(owner.page));
      // The seed's P2P trades left Amina some unread notifications.
      const bellBefore = await announcedCount(bell(owner.page).locator('.sr-only'));
      await owner.shot('inbox-empty');

      // The buyer is on a phone: the list and the thread are separate screens.
      await withBrowser({ shots: 'messages-buyer', viewport: PHONE, isMobile: true }, async (b) => {
        // The buyer, signed out, is asked to sign in first and brought back to the listing.
        await b.page.goto(`${app.stack.url}/properties/${listingId}`);
        await b.page.getByRole('link', { name: 'Sign in to message the owner' }).click();
        await expectPath(b.page, '/login');
        await submitSignIn(b.page, buyer);
        await expectPath(b.page, `/properties/${listingId}`);
        await visible(b.page.getByRole('heading', { level: 1, name: title }));
        await b.page.getByRole('button', { name: 'Message the owner' }).click();
        const dialog = await visible(b.page.getByRole('dialog', { name: 'Message the owner' }));
        await dialog.getByRole('button', { name: 'Send message' }).click();
        await visible(dialog.getByRole('alert').filter({ hasText: 'Write a message first' }));
        await dialog.getByLabel('Your message').fill(first);
        await b.shot('contact-dialog');
        await dialog.getByRole('button', { name: 'Send message' }).click();
        await expectToast(b.page, 'Message sent');
        await b.shot('thread-phone');
        await expectPath(b.page, new RegExp(`^/messages/${UUID}$`));
        const conversationId = pathOf(b.page).split('/').pop();
        const buyerLog = b.page.getByRole('log', { name: 'Messages with Amina Wanjiru' });
        await visible(buyerLog.getByText(first));

        const [kind, listing, ownerId, buyerId, storedTitle] = await row(
          app.stack,
          `select listing_kind, listing_id, owner_id, buyer_id, listing_title from public.conversations where id = :'id'`,
          { id: conversationId },
        );
        assert.deepEqual([kind, listing, ownerId, buyerId, storedTitle], ['property', listingId, AMINA_ID, buyer.id, title]);
        const [sender, body] = await row(app.stack, `select sender_id, body from public.messages where conversation_id = :'id'`, {
          id: conversationId,
        });
        assert.deepEqual([sender, body], [buyer.id, first]);

        // Amina's open inbox shows it without a reload: the conversation, its unread count, the badges.
        const list = owner.page.getByRole('navigation', { name: 'Conversations' });
        const item = list.getByRole('link', { name: /Otieno Kamau/ });
        await visible(item);
        assert.match(await textOf(item), new RegExp(`Property · ${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        assert.match(await textOf(item), /1 unread/);
        await visible(owner.page.getByRole('link', { name: 'Messages, 1 unread' }));
        await visible(owner.page.getByRole('button', { name: bellName(bellBefore + 1), exact: true }));
        await owner.shot('inbox-live');
        const [[messageNotices]] = await sql(
          app.stack,
          `select count(*) from public.notifications where user_id = :'amina' and kind = 'message' and read_at is null
              and data ->> 'conversation_id' = :'id' and data ->> 'sender_name' = 'Otieno Kamau'`,
          { amina: AMINA_ID, id: conversationId },
        );
        assert.equal(messageNotices, '1', 'Amina has an unread message notification');

        // Amina opens it: read, so the badges clear (and the notification is read too).
        await item.click();
        await expectPath(owner.page, `/messages/${conversationId}`);
        const ownerLog = owner.page.getByRole('log', { name: 'Messages with Otieno Kamau' });
        await visible(ownerLog.getByText(first));
        await visible(owner.page.getByRole('link', { name: 'Messages', exact: true }));
        await visible(owner.page.getByRole('button', { name: bellName(bellBefore), exact: true }));
        assert.doesNotMatch(await textOf(list.getByRole('link', { name: /Otieno Kamau/ })), /unread/);
        const [ownerRead] = await row(app.stack, `select owner_read_at is not null from public.conversations where id = :'id'`, { id: conversationId });
        assert.equal(ownerRead, 't');

        // Amina replies with Enter; the buyer's open thread shows it without a reload.
        const box = owner.page.getByRole('textbox', { name: 'Message' });
        await box.fill(reply);
        await box.press('Enter');
        await visible(ownerLog.getByText(reply));
        await owner.page.waitForFunction((el) => el.value === '', await box.elementHandle());
        await visible(buyerLog.getByText(reply));
        await b.shot('reply-live');
        const items = buyerLog.getByRole('listitem');
        assert.equal(await items.count(), 2);
        assert.match(await textOf(items.nth(1)), /^Amina Wanjiru: /);
        // On the phone the thread is its own screen; reading the reply there left nothing unread.
        const phoneBar = b.page.getByRole('navigation', { name: 'Mobile navigation' });
        await visible(phoneBar.getByRole('link', { name: 'Messages', exact: true }));
        assert.equal(await b.page.getByRole('navigation', { name: 'Conversations' }).isVisible(), false, 'no list beside the thread on a phone');

        // Back on the list, a second reply moves the buyer's unread count live: on the
        // conversation and on the phone bar's Messages item.
        await b.page.getByRole('link', { name: 'All messages' }).click();
        await expectPath(b.page, '/messages');
        const buyerItem = b.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /Amina Wanjiru/ });
        await visible(buyerItem.getByText(reply));
        assert.doesNotMatch(await textOf(buyerItem), /unread/);
        await box.fill(later);
        await box.press('Enter');
        await visible(ownerLog.getByText(later));
        await visible(buyerItem.getByText(later));
        assert.match(await textOf(buyerItem), /1 unread/);
        await visible(phoneBar.getByRole('link', { name: 'Messages 1 unread' }));
        await b.shot('list-badge-live');
        await buyerItem.click();
        await expectPath(b.page, `/messages/${conversationId}`);
        await visible(buyerLog.getByText(later));
        await visible(phoneBar.getByRole('link', { name: 'Messages', exact: true }));

        const thread = await sql(
          app.stack,
          `select sender_id, body from public.messages where conversation_id = :'id' order by created_at`,
          { id: conversationId },
        );
        assert.deepEqual(thread, [
          [buyer.id, first],
          [AMINA_ID, reply],
          [AMINA_ID, later],
        ]);
        const [buyerRead] = await row(
          app.stack,
          `select buyer_read_at >= (select max(created_at) from public.messages where conversation_id = :'id')
             from public.conversations where id = :'id'`,
          { id: conversationId },
        );
        assert.equal(buyerRead, 't', 'the buyer read up to the last reply');

        // Amina reports the conversation to the admins; a second open report is refused.
        const report = async () => {
          await owner.page.getByRole('button', { name: 'Report' }).click();
          const dialog = await visible(owner.page.getByRole('dialog', { name: 'Report to KejaNest' }));
          await dialog.getByLabel('Reason').fill('Asked me to pay a viewing fee by M-Pesa first.');
          await dialog.getByRole('button', { name: 'Send report' }).click();
          return dialog;
        };
        await report();
        await expectToast(owner.page, 'Report sent');
        const [target, reporter, status] = await row(
          app.stack,
          `select target_kind, reporter_id, status from public.reports where target_id = :'id'`,
          { id: conversationId },
        );
        assert.deepEqual([target, reporter, status], ['conversation', AMINA_ID, 'open']);
        const again = await report();
        await visible(again.getByRole('alert').filter({ hasText: 'You have already reported this.' }));
        await owner.shot('already-reported');
        const [[reports]] = await sql(app.stack, `select count(*) from public.reports where target_id = :'id'`, { id: conversationId });
        assert.equal(reports, '1');
      });
    });
  });

  test('a listing approved by the back office shows up live in the bell', { timeout: 120_000 }, async () => {
    const [listingId, title] = await row(
      app.stack,
      `select id, title from public.properties where user_id = :'amina' and payment_status = 'pending'
        order by created_at desc, id limit 1`,
      { amina: AMINA_ID },
    );
    await withBrowser({ shots: 'notifications' }, async (b) => {
      const { page } = b;
      await signInTo(page, app.stack.url, '/profile', demo.amina);
      await visible(bell(page));
      const unreadBefore = await announcedCount(bell(page).locator('.sr-only'));

      // The admin's approval, as moderate_listing makes it (service_role claims).
      await sql(
        app.stack,
        `select set_config('request.jwt.claims', '{"role":"service_role"}', true);
         select public.moderate_listing('property', :'id', 'approved', null);`,
        { id: listingId },
      );
      await visible(page.getByRole('button', { name: bellName(unreadBefore + 1), exact: true }));
      assert.equal(pathOf(page), '/profile', 'no reload, no navigation');
      const [kind, link, paidUntil] = await row(
        app.stack,
        `select n.kind, n.link, n.data ->> 'paid_until' from public.notifications n
          where n.user_id = :'amina' and n.data ->> 'listing_id' = :'id' and n.read_at is null`,
        { amina: AMINA_ID, id: listingId },
      );
      assert.deepEqual([kind, link], ['listing_approved', '/my-properties']);
      assert.ok(paidUntil, 'the notice carries the end of the paid period');

      await bell(page).click();
      const menu = await visible(page.getByRole('menu'));
      const notice = menu.getByRole('menuitem').filter({ hasText: 'Listing approved' }).first();
      await visible(notice);
      assert.match(await textOf(notice), new RegExp(`"${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" is live until`));
      await b.shot('bell-approved');

      // Choosing it marks it read and opens the My page it links to.
      await notice.click();
      await expectPath(page, '/my-properties');
      const [read] = await row(
        app.stack,
        `select read_at is not null from public.notifications where user_id = :'amina' and data ->> 'listing_id' = :'id'`,
        { amina: AMINA_ID, id: listingId },
      );
      assert.equal(read, 't');
      await visible(page.getByRole('button', { name: bellName(unreadBefore), exact: true }));
    });
  });
});
