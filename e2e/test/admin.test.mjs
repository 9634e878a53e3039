// The admin panel (issue 15), as the demo admin in Chromium, each step
// cross-checked in the database: the server-checked access code (a wrong
// code refused and audited, the right one admitting this session), the
// dashboard moving live when a second browser creates a listing, suspend
// then unsuspend (the user's next sign-in refused, then allowed), a KYC
// approval with its document shown through a signed URL, a listing approved
// and one rejected, a dispute resolved, analytics drawn from data, and a
// non-admin refused at the routes and the functions (and the refusal of the
// access code audited). The demo admin has a verified TOTP factor
// (sql/seed/0005_demo_admin_mfa.sql): after the password, /admin/login asks
// for its code first (a wrong one refused, the right one lifting the session
// to aal2). Also: "Delete profile" on the users table, and the dashboard's
// Live indicator going Offline when the realtime socket drops and coming
// back by itself, the figures catching up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { submitSignIn } from '../lib/app.mjs';
import { expectPath, expectToast, numberIn, textOf, visible, withBrowser } from '../lib/browser.mjs';
import { makePhoto } from '../lib/photo.mjs';
import { demo, sql, useDemoStack } from '../lib/stack.mjs';
import { totp, wrongTotp } from '../lib/totp.mjs';

/** The demo access code (sql/migrations/0028_admin.sql). */
const ACCESS_CODE = 'KEJA-ADMIN-2024';
/** The demo admin's TOTP secret (sql/seed/0005_demo_admin_mfa.sql, logins.txt). */
const TOTP_SECRET = 'KEJANESTADMINDEMOTOTPSECRET23456';
const ADMIN_ID = '0e5a0000-0000-4000-8000-000000000001';
const AMINA_ID = '0e5a0000-0000-4000-8000-000000000002';
const BRIAN_ID = '0e5a0000-0000-4000-8000-000000000003';
const brian = { email: 'brian@kejanest.test', password: 'Brian-Demo-2024' };

async function one(stack, text, vars) {
  const rows = await sql(stack, text, vars);
  assert.equal(rows.length, 1, `one row from: ${text} (got ${JSON.stringify(rows)})`);
  return rows[0];
}

/** Polls `fn` until it returns true. */
async function eventually(fn, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Passes the MFA step of /admin/login with the authenticator's current code. */
async function passMfa(page) {
  await visible(page.getByRole('heading', { level: 1, name: 'Two-factor verification' }));
  await page.getByLabel('Authentication code').fill(totp(TOTP_SECRET));
  await page.getByRole('button', { name: 'Verify code' }).click();
  await expectToast(page, 'Two-factor verification complete');
  await visible(page.getByRole('heading', { level: 1, name: 'Admin Verification' }));
}

/** Signs the admin in, through the second factor and the access code; lands on the dashboard. */
async function enterAdmin(page, url) {
  await page.goto(`${url}/admin/login`);
  await expectPath(page, '/login');
  await submitSignIn(page, demo.admin);
  await expectPath(page, '/admin/login');
  await passMfa(page);
  await page.getByLabel('Access code').fill(ACCESS_CODE);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expectToast(page, 'Admin verified successfully');
  await expectPath(page, '/admin/dashboard');
}

/** Goes to an admin section through the sidebar. */
async function openSection(page, name) {
  await page.getByRole('complementary').getByRole('link', { name, exact: true }).click();
}

describe('admin panel', { timeout: 600_000 }, () => {
  const app = useDemoStack();

  test('MFA then access code: wrong codes are refused (the code audited), the right ones admit this session', { timeout: 150_000 }, async () => {
    await withBrowser({ shots: 'admin-access' }, async (b) => {
      const { page } = b;
      const url = app.stack.url;
      await page.goto(`${url}/admin/login`);
      await expectPath(page, '/login');
      await submitSignIn(page, demo.admin);
      await expectPath(page, '/admin/login');
      // The second factor comes first: the session is aal1.
      await visible(page.getByRole('heading', { level: 1, name: 'Two-factor verification' }));
      const aal = () => one(app.stack, `select s.aal from auth.sessions s where s.user_id = :'id' order by s.created_at desc limit 1`, { id: ADMIN_ID });
      assert.deepEqual(await aal(), ['aal1']);
      // Until then the admin reads like a user: no admin RLS reads, no admin functions.
      const { aalOne, stats } = await page.evaluate(async (apikey) => {
        const key = Object.keys(localStorage).find((k) => k.endsWith('-auth-token'));
        const { access_token: token } = JSON.parse(localStorage.getItem(key));
        const headers = { Authorization: `Bearer ${token}`, apikey, 'Content-Type': 'application/json' };
        const audit = await fetch('/rest/v1/admin_audit?select=id&limit=1', { headers });
        const rpc = await fetch('/rest/v1/rpc/get_dashboard_stats', { method: 'POST', headers, body: '{}' });
        return { aalOne: await audit.json(), stats: await rpc.json() };
      }, app.stack.anonKey);
      assert.deepEqual(aalOne, [], 'is_admin() is false at aal1');
      assert.equal(stats.message, 'Two-factor verification required');
      await page.getByLabel('Authentication code').fill('12');
      await page.getByRole('button', { name: 'Verify code' }).click();
      await visible(page.getByRole('alert').filter({ hasText: 'Enter the 6-digit code' }));
      await page.getByLabel('Authentication code').fill(wrongTotp(TOTP_SECRET));
      await page.getByRole('button', { name: 'Verify code' }).click();
      await expectToast(page, 'Invalid verification code. Check your authenticator app and try again.');
      assert.deepEqual(await aal(), ['aal1'], 'a wrong code leaves the session at aal1');
      await b.shot('mfa');
      await passMfa(page);
      assert.deepEqual(await aal(), ['aal2'], 'the right code lifts the session to aal2');
      // Empty: the field's own message, no call.
      await page.getByRole('button', { name: 'Verify' }).click();
      await visible(page.getByRole('alert').filter({ hasText: 'Access code is required' }));
      const refusedBefore = Number((await one(app.stack, `select count(*) from public.admin_audit where action = 'access.refused'`))[0]);
      await page.getByLabel('Access code').fill('not-the-code');
      await page.getByRole('button', { name: 'Verify' }).click();
      await expectToast(page, 'Invalid access code');
      await expectPath(page, '/admin/login');
      const [refused] = await one(app.stack, `select count(*) from public.admin_audit where action = 'access.refused' and subject_user_id = :'id'`, { id: ADMIN_ID });
      assert.equal(Number(refused), refusedBefore + 1, 'the refusal is audited');
      assert.equal((await one(app.stack, `select count(*) from app_private.admin_sessions where user_id = :'id'`, { id: ADMIN_ID }))[0], '0');
      // The local flag alone does not open the dashboard: the server decides.
      await page.evaluate(() => localStorage.setItem('adminVerified', 'true'));
      await page.goto(`${url}/admin/dashboard`);
      await expectPath(page, '/admin/login');

      await page.getByLabel('Access code').fill(ACCESS_CODE);
      await page.getByRole('button', { name: 'Verify' }).click();
      await expectToast(page, 'Admin verified successfully');
      await expectPath(page, '/admin/dashboard');
      await visible(page.getByRole('heading', { level: 1, name: 'Admin Dashboard' }));
      const [sessions] = await one(app.stack, `select count(*) from app_private.admin_sessions a join auth.sessions s on s.id = a.session_id where a.user_id = :'id'`, { id: ADMIN_ID });
      assert.equal(sessions, '1', 'this auth session is admin-verified');
      // Once verified, the code screen is skipped.
      await page.goto(`${url}/admin/login`);
      await expectPath(page, '/admin/dashboard');
      // Logout ends it: flag cleared, session gone.
      await page.getByRole('complementary').getByRole('button', { name: 'Logout' }).click();
      await expectToast(page, 'Logged out successfully');
      await expectPath(page, '/');
      assert.equal(await page.evaluate(() => localStorage.getItem('adminVerified')), null);
      await eventually(
        async () => (await one(app.stack, `select count(*) from app_private.admin_sessions where user_id = :'id'`, { id: ADMIN_ID }))[0] === '0',
        'the verified session to end with sign-out',
      );
    });
  });

  test('the dashboard moves live when a second browser creates a listing', { timeout: 150_000 }, async () => {
    await withBrowser({ shots: 'admin-dashboard' }, async (admin) => {
      await enterAdmin(admin.page, app.stack.url);
      await visible(admin.page.getByRole('status').filter({ hasText: 'Live' }));
      const figure = admin.page.locator('[data-stat="totalProperties"]');
      const before = numberIn(await textOf(await visible(figure)));
      const [dbBefore] = await one(app.stack, `select count(*) from public.properties`);
      assert.equal(before, Number(dbBefore), 'the card shows the database count');
      await admin.shot('dashboard');

      await withBrowser({ shots: 'admin-dashboard-owner' }, async (owner) => {
        await owner.page.goto(`${app.stack.url}/login`);
        await submitSignIn(owner.page, demo.amina);
        // The owner's browser writes the listing through the API with its own session.
        const status = await owner.page.evaluate(async (apikey) => {
          const key = Object.keys(localStorage).find((k) => k.endsWith('-auth-token'));
          const { access_token: token } = JSON.parse(localStorage.getItem(key));
          const res = await fetch('/rest/v1/properties', {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, apikey, 'Content-Type': 'application/json', Prefer: 'return=minimal' },
            body: JSON.stringify({ title: 'Live dashboard flat', type: 'Bedsitter', purpose: 'Rent', price: 12000, location: 'Ruaka' }),
          });
          return res.status;
        }, app.stack.anonKey);
        assert.equal(status, 201, 'the owner created a listing');
      });
      const started = Date.now();
      await admin.page.locator('[data-stat="totalProperties"]', { hasText: String(before + 1) }).waitFor({ timeout: 5_000 });
      const took = Date.now() - started;
      const [dbAfter] = await one(app.stack, `select count(*) from public.properties`);
      assert.equal(Number(dbAfter), before + 1);
      assert.ok(took < 3_000, `the figure moved after ${took} ms`);
    });
  });

  test('suspend then unsuspend: the next sign-in is refused, then allowed', { timeout: 150_000 }, async () => {
    await withBrowser({ shots: 'admin-users' }, async (b) => {
      const { page } = b;
      await enterAdmin(page, app.stack.url);
      await openSection(page, 'Users');
      await expectPath(page, '/admin/users');
      await page.getByRole('searchbox', { name: 'Search users' }).fill('brian@');
      const row = page.getByRole('row').filter({ hasText: brian.email });
      await visible(row);
      await eventually(async () => (await page.getByRole('row').count()) === 2, 'the search to leave the header and one match');
      await row.getByRole('button', { name: 'Suspend' }).click();
      const dialog = await visible(page.getByRole('dialog'));
      await dialog.getByRole('button', { name: 'Suspend User' }).click();
      await visible(dialog.getByRole('alert').filter({ hasText: 'Please select a suspension duration' }));
      await dialog.getByLabel('Suspension duration').selectOption('10_days');
      await dialog.getByLabel('Reason (optional)').fill('Chargeback on a P2P trade');
      await dialog.getByRole('button', { name: 'Suspend User' }).click();
      await expectToast(page, 'User suspended successfully');
      await visible(row.getByText('Suspended (10 days)'));
      const s = await one(app.stack, `select u.banned_until > now() + interval '9 days', s.reason from auth.users u
        join public.user_suspensions s on s.user_id = u.id and s.lifted_at is null where u.id = :'id'`, { id: BRIAN_ID });
      assert.deepEqual(s, ['t', 'Chargeback on a P2P trade']);
      const client = app.stack.client();
      const refused = await client.auth.signInWithPassword(brian);
      assert.ok(refused.error, 'a suspended user cannot sign in');

      await row.getByRole('button', { name: 'Unsuspend' }).click();
      await expectToast(page, 'User unsuspended successfully');
      await visible(row.getByText('Active'));
      assert.equal((await one(app.stack, `select banned_until is null from auth.users where id = :'id'`, { id: BRIAN_ID }))[0], 't');
      const allowed = await app.stack.client().auth.signInWithPassword(brian);
      assert.equal(allowed.error, null, 'the user signs in again');
      const audit = await sql(app.stack, `select action from public.admin_audit where subject_user_id = :'id' and action like 'user.%' order by id`, { id: BRIAN_ID });
      assert.deepEqual(audit.map((r) => r[0]), ['user.suspend', 'user.unsuspend']);
      // The user detail view shows the audit trail.
      await row.getByRole('link', { name: 'View' }).click();
      await expectPath(page, `/admin/users/${BRIAN_ID}`);
      await visible(page.locator('[data-action="user.suspend"]'));
    });
  });

  test('KYC: the document is shown through a signed URL and the submission approved', { timeout: 150_000 }, async () => {
    // Brian's document, uploaded to the private bucket as he would.
    const service = app.stack.client(app.stack.serviceRoleKey);
    const path = `${BRIAN_ID}/id-front-e2e.png`;
    const { error } = await service.storage.from('kyc').upload(path, makePhoto(400, 300), { contentType: 'image/png', upsert: true });
    assert.equal(error, null, error?.message);
    await sql(app.stack, `update public.kyc_verifications set id_document_front_url = :'path', verification_status = 'pending' where user_id = :'id'`, { path, id: BRIAN_ID });
    const [name] = await one(app.stack, `select full_name from public.profiles where id = :'id'`, { id: BRIAN_ID });

    await withBrowser({ shots: 'admin-kyc' }, async (b) => {
      const { page } = b;
      await enterAdmin(page, app.stack.url);
      await openSection(page, 'KYC Verification');
      const card = page.getByRole('article', { name });
      await visible(card);
      const img = card.getByRole('img', { name: 'ID front' });
      await visible(img);
      await eventually(() => img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the document image to load');
      const src = await img.getAttribute('src');
      assert.match(src, /\/storage\/v1\/object\/sign\/kyc\//, 'a signed URL of the private bucket');
      assert.equal(await card.getByRole('img', { name: 'ID back' }).count(), 0, 'a missing document shows no image');
      await b.shot('kyc');
      await card.getByLabel('Admin notes (optional)').fill('ID matches the selfie');
      await card.getByRole('button', { name: 'Approve' }).click();
      await expectToast(page, 'KYC approved successfully');
      const row = await one(app.stack, `select verification_status, admin_notes, reviewed_by from public.kyc_verifications where user_id = :'id'`, { id: BRIAN_ID });
      assert.deepEqual(row, ['approved', 'ID matches the selfie', ADMIN_ID]);
      await visible(card.getByRole('button', { name: 'Approve' }).and(page.locator(':disabled')));
      assert.equal((await one(app.stack, `select count(*) from public.admin_audit where action = 'kyc.approve' and subject_user_id = :'id'`, { id: BRIAN_ID }))[0], '1');
    });
  });

  test('listings: one approved and one rejected with a reason, the owner notified', { timeout: 150_000 }, async () => {
    const ids = await sql(app.stack, `insert into public.properties (user_id, title, type, purpose, price, location, payment_status, pending_days)
      values (:'owner', 'E2E Approve Me', 'One Bedroom', 'Rent', 25000, 'Kilimani', 'pending', 7),
             (:'owner', 'E2E Reject Me', 'One Bedroom', 'Rent', 26000, 'Kilimani', 'pending', 7) returning id, title`, { owner: AMINA_ID });
    const byTitle = Object.fromEntries(ids.map(([id, title]) => [title, id]));
    await withBrowser({ shots: 'admin-listings' }, async (b) => {
      const { page } = b;
      await enterAdmin(page, app.stack.url);
      await openSection(page, 'Properties');
      await expectPath(page, '/admin/properties');
      const approve = page.getByRole('article', { name: 'E2E Approve Me' });
      await approve.getByRole('button', { name: 'Approve' }).click();
      await expectToast(page, 'Listing approved');
      const reject = page.getByRole('article', { name: 'E2E Reject Me' });
      await reject.getByRole('button', { name: 'Reject' }).click();
      const dialog = await visible(page.getByRole('dialog'));
      await dialog.getByRole('button', { name: 'Reject' }).click();
      await visible(dialog.getByRole('alert').filter({ hasText: 'Please give a reason' }));
      await dialog.getByLabel('Reason', { exact: true }).fill('Photos do not show the flat');
      await dialog.getByRole('button', { name: 'Reject' }).click();
      await expectToast(page, 'Listing rejected');
      await visible(reject.getByText('Rejected'));
    });
    assert.deepEqual(await one(app.stack, `select payment_status, is_active from public.properties where id = :'id'`, { id: byTitle['E2E Approve Me'] }), ['paid', 't']);
    assert.deepEqual(
      await one(app.stack, `select payment_status, is_active, moderation_notes from public.properties where id = :'id'`, { id: byTitle['E2E Reject Me'] }),
      ['rejected', 'f', 'Photos do not show the flat'],
    );
    const notes = await sql(app.stack, `select count(*) from public.notifications where user_id = :'owner' and created_at > now() - interval '5 minutes'
      and (data::text like '%' || :'a' || '%' or data::text like '%' || :'b' || '%' or link like '%' || :'a' || '%' or link like '%' || :'b' || '%')`,
      { owner: AMINA_ID, a: byTitle['E2E Approve Me'], b: byTitle['E2E Reject Me'] });
    assert.ok(Number(notes[0][0]) >= 2, `the owner is notified of both decisions (${notes[0][0]})`);
    const audit = await sql(app.stack, `select action, coalesce(reason, '') from public.admin_audit where target_id in (:'a', :'b') order by id`,
      { a: byTitle['E2E Approve Me'], b: byTitle['E2E Reject Me'] });
    assert.deepEqual(audit, [['listing.approve', ''], ['listing.reject', 'Photos do not show the flat']]);
  });

  test('a P2P dispute is resolved to the buyer with a recorded reason', { timeout: 150_000 }, async () => {
    const claims = (id) => JSON.stringify({ sub: id, role: 'authenticated', aud: 'authenticated' });
    const rows = await sql(
      app.stack,
      `select set_config('request.jwt.claims', '{"role":"service_role"}', true);
       select public.issue_currency(:'seller', 'keys', 200, 'e2e', 'e2e-dispute-keys');
       insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit, payment_methods, auto_cancel_duration, expires_at)
       values (:'seller', 'sell', 'keys', 100, 15, 10, 100, '{M-Pesa}', '7 days', now() + interval '7 days') returning 'offer', id::text;`,
      { seller: AMINA_ID },
    );
    const offerId = rows.find((r) => r[0] === 'offer')[1];
    const trade = await sql(
      app.stack,
      `select set_config('request.jwt.claims', :'buyerClaims', true);
       create temp table e2e_trade on commit drop as select (public.open_p2p_trade(:'offer', 20, 15, 'M-Pesa')).id;
       select public.mark_trade_paid((select id from e2e_trade), 'QFT7E2E9XY');
       select public.dispute_trade((select id from e2e_trade), 'I paid but the keys never came');
       select 'trade', id::text from e2e_trade;`,
      { buyerClaims: claims(BRIAN_ID), offer: offerId },
    );
    const tradeId = trade.find((r) => r[0] === 'trade')[1];
    await withBrowser({ shots: 'admin-disputes' }, async (b) => {
      const { page } = b;
      await enterAdmin(page, app.stack.url);
      await openSection(page, 'P2P Disputes');
      const card = page.getByRole('article').filter({ hasText: 'I paid but the keys never came' });
      await visible(card);
      await visible(card.getByText('QFT7E2E9XY'));
      await visible(card.getByText('paid → disputed'));
      await card.getByRole('button', { name: 'Resolve dispute' }).click();
      await visible(card.getByRole('alert').filter({ hasText: 'Choose who receives the escrow' }));
      await card.getByRole('radio', { name: /The buyer/ }).check();
      await card.getByLabel('Reason for the decision').fill('M-Pesa statement shows the payment');
      await card.getByRole('button', { name: 'Resolve dispute' }).click();
      await expectToast(page, 'Dispute resolved');
      await visible(card.getByText('Resolved to Buyer'));
    });
    assert.deepEqual(
      await one(app.stack, `select status, resolution, resolution_notes, resolved_by from public.p2p_trades where id = :'id'`, { id: tradeId }),
      ['resolved', 'buyer', 'M-Pesa statement shows the payment', ADMIN_ID],
    );
    assert.equal((await one(app.stack, `select count(*) from public.admin_audit where action = 'dispute.resolve' and target_id = :'id'`, { id: tradeId }))[0], '1');
  });

  test('analytics are drawn from the admin_analytics aggregates', { timeout: 120_000 }, async () => {
    await withBrowser({ shots: 'admin-analytics' }, async (b) => {
      const { page } = b;
      await enterAdmin(page, app.stack.url);
      await openSection(page, 'Analytics');
      await expectPath(page, '/admin/analytics');
      const signups = page.getByRole('img', { name: /^Sign-ups per day:/ });
      await visible(signups);
      assert.equal(await signups.locator('rect[data-value]').count(), 30);
      const analytics = await sql(
        app.stack,
        `select set_config('request.jwt.claims', '{"role":"service_role"}', true);
         select public.admin_analytics(30) -> 'listings' -> 0 ->> 'total';`,
      );
      const total = analytics.at(-1)[0];
      const listings = page.getByRole('img', { name: /^Listings by kind:/ });
      await visible(listings);
      assert.match(await listings.getAttribute('aria-label'), new RegExp(`Properties ${total}\\b`), 'the chart shows the aggregate');
      assert.ok(Number(total) > 0, 'there is data');
      const values = await page.locator('rect[data-value]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-value'))));
      assert.ok(values.some((v) => v > 0), 'some bars have height');
      await page.getByRole('button', { name: 'Last 90 days' }).click();
      await eventually(async () => (await signups.locator('rect[data-value]').count()) === 90, 'the 90-day series');
      await b.shot('analytics');
    });
  });

  test('delete profile: confirmed, the account closed, its listings off the site, audited', { timeout: 150_000 }, async () => {
    const service = app.stack.client(app.stack.serviceRoleKey);
    const leaving = { email: `leaving.${Date.now()}@kejanest.test`, password: 'Leaving-Demo-2024' };
    const created = await service.auth.admin.createUser({ ...leaving, email_confirm: true, user_metadata: { full_name: 'Leaving Tenant' } });
    assert.equal(created.error, null, created.error?.message);
    const id = created.data.user.id;
    const [listing] = await one(app.stack, `insert into public.properties (user_id, title, type, purpose, price, location)
      values (:'id', 'Leaving flat', 'Bedsitter', 'Rent', 8000, 'Ruaka') returning id`, { id });
    await sql(app.stack, `update public.properties set is_active = true, payment_status = 'paid', paid_until = now() + interval '30 days'
      where id = :'listing'`, { listing });

    await withBrowser({ shots: 'admin-delete' }, async (b) => {
      const { page } = b;
      await enterAdmin(page, app.stack.url);
      await openSection(page, 'Users');
      await page.getByRole('searchbox', { name: 'Search users' }).fill(leaving.email);
      const row = page.getByRole('row').filter({ hasText: leaving.email });
      await visible(row);
      // The admin's own row offers no deletion.
      await page.getByRole('searchbox', { name: 'Search users' }).fill('admin@kejanest.test');
      const adminRow = page.getByRole('row').filter({ hasText: 'admin@kejanest.test' });
      assert.equal(await (await visible(adminRow)).getByRole('button', { name: 'Delete profile' }).isDisabled(), true);
      await page.getByRole('searchbox', { name: 'Search users' }).fill(leaving.email);
      await row.getByRole('button', { name: 'Delete profile' }).click();
      const dialog = await visible(page.getByRole('dialog'));
      await visible(dialog.getByText('Are you sure you want to delete this user profile? This action cannot be undone.'));
      await dialog.getByLabel('Reason (optional)').fill('Asked to close the account');
      await b.shot('delete-confirm');
      await dialog.getByRole('button', { name: 'Delete profile' }).click();
      await expectToast(page, 'User profile deleted successfully');
      await visible(page.getByText('No users found'));
    });
    const state = await one(app.stack, `select u.deleted_at is not null, u.banned_until > now(), p.full_name is null, l.is_active
      from auth.users u join public.profiles p on p.id = u.id join public.properties l on l.user_id = u.id where u.id = :'id'`, { id });
    assert.deepEqual(state, ['t', 't', 't', 'f'], 'closed, banned, anonymised, listing off the site');
    assert.deepEqual(await one(app.stack, `select action, reason from public.admin_audit where subject_user_id = :'id'`, { id }),
      ['user.delete', 'Asked to close the account']);
    const signIn = await app.stack.client().auth.signInWithPassword(leaving);
    assert.ok(signIn.error, 'a deleted user cannot sign in');
    // The address was anonymised (Supabase's soft delete), so it signs up again as a new account.
    const again = await app.stack.client().auth.signUp(leaving);
    assert.equal(again.error, null, again.error?.message);
    // (Sign-up of a taken address also answers without an error, with a made-up user: the row decides.)
    const [holder] = await one(app.stack, `select id::text from auth.users where lower(email) = lower(:'email')`, { email: leaving.email });
    assert.notEqual(holder, id, 'the deleted account no longer holds the address');
    assert.equal(holder, again.data.user?.id, 'the new account holds it');
  });

  test('the Live indicator shows Offline when the realtime socket drops, recovers by itself, and the figures catch up', { timeout: 180_000 }, async () => {
    await withBrowser({ shots: 'admin-socket' }, async (b) => {
      const { page } = b;
      await enterAdmin(page, app.stack.url);
      const indicator = (state) => page.locator(`[role="status"][data-live="${state}"]`);
      await visible(indicator('live'));
      const figure = page.locator('[data-stat="totalProperties"]');
      const before = numberIn(await textOf(await visible(figure)));
      // The realtime server dies (devstack restarts it after a short backoff).
      app.stack.killReplica('realtime', 0);
      await indicator('offline').waitFor({ timeout: 30_000 });
      await visible(page.getByText('Offline, reconnecting…'));
      await b.shot('offline');
      // A listing created while the socket is down.
      await sql(app.stack, `insert into public.properties (user_id, title, type, purpose, price, location)
        values (:'id', 'Created while offline', 'Bedsitter', 'Rent', 9000, 'Ruaka')`, { id: AMINA_ID });
      // supabase-js reconnects on its own; the dashboard re-fetches on rejoin.
      await indicator('live').waitFor({ timeout: 90_000 });
      await page.locator('[data-stat="totalProperties"]', { hasText: String(before + 1) }).waitFor({ timeout: 15_000 });
      const [count] = await one(app.stack, `select count(*) from public.properties`);
      assert.equal(Number(count), before + 1);
    });
  });

  test('a non-admin is refused at the admin routes and functions', { timeout: 120_000 }, async () => {
    await withBrowser({ shots: 'admin-refused' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/login`);
      await submitSignIn(page, demo.amina);
      await page.goto(`${app.stack.url}/admin/users`);
      await expectPath(page, /^\/(home)?$/);
      await expectToast(page, 'You do not have admin privileges.');
    });
    assert.equal((await one(app.stack, `select role from public.user_roles where user_id = :'id'`, { id: AMINA_ID }))[0], 'user');
    const client = app.stack.client();
    const { error } = await client.auth.signInWithPassword(demo.amina);
    assert.equal(error, null);
    for (const [fn, args] of [
      ['get_dashboard_stats', {}],
      ['admin_list_users', { p_search: null, p_limit: 10, p_offset: 0 }],
      ['admin_analytics', { p_days: 30 }],
      ['admin_delete_user', { p_user_id: BRIAN_ID }],
    ]) {
      const res = await client.rpc(fn, args);
      assert.equal(res.error?.message, 'Admin privileges required', `${fn} refused`);
    }
    // The access code is refused as a result, so the refusal's audit row stays.
    const refusal = await client.rpc('verify_admin_access', { p_code: ACCESS_CODE });
    assert.equal(refusal.error, null);
    assert.deepEqual(refusal.data, { verified: false, error: 'not_admin' });
    const audited = await one(app.stack, `select action, reason, actor_id::text from public.admin_audit where subject_user_id = :'id' order by id desc limit 1`, { id: AMINA_ID });
    assert.deepEqual(audited, ['access.refused', 'Not an administrator', AMINA_ID]);
    const audit = await client.from('admin_audit').select('id');
    assert.deepEqual(audit.data, [], 'the audit is hidden from users');
  });
});
