// /profile (issue 13): a signed-in user edits their name and phone, uploads
// an avatar that the account menu shows at once, and verifies their phone
// and e-mail with codes read where they were sent — the SMS from authsvc's
// log (the development SMS provider), the e-mail from the development
// mailbox — each step cross-checked in the database. The code never appears
// in the page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { openAccountMenu, submitSignIn } from '../lib/app.mjs';
import { expectPath, expectToast, visible, withBrowser } from '../lib/browser.mjs';
import { makePhoto } from '../lib/photo.mjs';
import { demo, sql, useDemoStack, waitForMail } from '../lib/stack.mjs';

/** Amina's user id (sql/seed/0001_demo_users.sql). */
const AMINA_ID = '0e5a0000-0000-4000-8000-000000000002';

/** Signs in as `who` on the way to /profile (the guard sends the visitor to /login and back). */
async function openProfile(page, url, who) {
  await page.goto(`${url}/profile`);
  await expectPath(page, '/login');
  await submitSignIn(page, who);
  await expectPath(page, '/profile');
  await visible(page.getByRole('heading', { level: 1, name: 'Profile Settings' }));
}

/** One row of the stack's database as an object of strings. */
async function row(stack, text, vars) {
  const rows = await sql(stack, text, vars);
  assert.equal(rows.length, 1, `one row from: ${text}`);
  return rows[0];
}

/**
 * Waits for the development SMS provider's log line to `phone` (authsvc
 * logs the whole text outside production) and returns the six-digit code.
 */
async function waitForSmsCode(stack, phone, { timeoutMs = 20_000 } = {}) {
  const logs = stack.replicas.authsvc.map((replica) => replica.log);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const log of logs) {
      const lines = readFileSync(log, 'utf8').split('\n').reverse();
      for (const line of lines) {
        if (!line.includes('sms sent')) continue;
        let entry;
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        const code = entry.phone === phone && /verification code is (\d{6})/.exec(entry.text ?? '')?.[1];
        if (code) return code;
      }
    }
    if (Date.now() > deadline) throw new Error(`no SMS to ${phone} in ${logs.join(', ')} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A code that is certainly not `code`. */
function wrongCode(code) {
  return code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
}

describe('profile', { timeout: 300_000 }, () => {
  const app = useDemoStack();

  test('edits name and phone, verifies the new phone by SMS, uploads an avatar the menu shows at once', { timeout: 180_000 }, async () => {
    await withBrowser({ shots: 'profile' }, async (b) => {
      const { page } = b;
      await openProfile(page, app.stack.url, demo.amina);
      const name = page.getByLabel('Full name', { exact: true });
      const phone = page.getByLabel('Phone number', { exact: true });
      assert.equal(await name.inputValue(), 'Amina Wanjiru');
      assert.equal(await phone.inputValue(), '0712345678');
      const email = page.getByLabel('Email', { exact: true });
      assert.equal(await email.inputValue(), demo.amina.email);
      assert.equal(await email.getAttribute('readonly'), '', 'the e-mail is read-only');
      await visible(page.getByText('Email cannot be changed', { exact: true }));
      // The seed approved Amina's KYC: a green card with a disabled 'Verified' button.
      await visible(page.getByText('Approved', { exact: true }));
      assert.equal(await page.getByRole('button', { name: 'Verified', exact: true }).isDisabled(), true);
      await b.shot('profile');

      // Spec §5: a one-letter name is refused before anything is sent.
      await name.fill('A');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await visible(page.getByRole('alert').filter({ hasText: 'Name must be at least 2 characters' }));
      await b.shot('name-too-short');
      const [savedName] = await row(app.stack, `select full_name from public.profiles where id = :'id'`, { id: AMINA_ID });
      assert.equal(savedName, 'Amina Wanjiru');

      // Saved: the phone in E.164, the name in the profile and the session's metadata.
      await name.fill('Amina Wanjiru Kamau');
      await phone.fill('0733 111 222');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await expectToast(page, 'Profile updated successfully');
      assert.equal(await phone.inputValue(), '+254733111222');
      const [dbName, dbPhone, metaName, phoneVerified] = await row(
        app.stack,
        `select p.full_name, p.phone_number, u.raw_user_meta_data ->> 'full_name', v.phone_verified
           from public.profiles p join auth.users u on u.id = p.id join public.user_verifications v on v.user_id = p.id
          where p.id = :'id'`,
        { id: AMINA_ID },
      );
      assert.deepEqual([dbName, dbPhone, metaName], ['Amina Wanjiru Kamau', '+254733111222', 'Amina Wanjiru Kamau']);
      assert.equal(phoneVerified, 'f', 'a changed phone number is no longer verified');
      const menu = await openAccountMenu(page);
      await visible(menu.getByText('Amina Wanjiru Kamau', { exact: true }));
      await page.keyboard.press('Escape');

      // The new phone number, verified with the code from the SMS.
      const phoneSection = page.getByRole('region', { name: 'Phone verification' });
      await visible(phoneSection.getByText('Not verified', { exact: true }));
      await phoneSection.getByRole('button', { name: 'Send code' }).click();
      await expectToast(page, 'Verification code sent to +254733111222');
      const smsCode = await waitForSmsCode(app.stack, '+254733111222');
      assert.equal(await page.getByText(smsCode).count(), 0, 'the code is not on the page');
      await phoneSection.getByLabel('Verification code').fill(smsCode);
      await phoneSection.getByRole('button', { name: 'Verify', exact: true }).click();
      await expectToast(page, 'Phone number verified successfully!');
      await visible(phoneSection.getByText('Verified', { exact: true }));
      const [phoneNowVerified] = await row(app.stack, `select phone_verified from public.user_verifications where user_id = :'id'`, {
        id: AMINA_ID,
      });
      assert.equal(phoneNowVerified, 't');

      // Avatar: too big is refused with the spec's message (nothing uploaded) …
      const noAvatar = page.getByLabel('Upload photo', { exact: true });
      await noAvatar.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(2 * 1024 * 1024 + 10) });
      await expectToast(page, 'Avatar image must be less than 2MB');
      // … a PNG under 2MB replaces the icon here and in the account menu at once.
      await noAvatar.setInputFiles({ name: 'amina.png', mimeType: 'image/png', buffer: makePhoto(480, 480) });
      await expectToast(page, 'Profile picture uploaded successfully');
      const picture = await visible(page.getByRole('img', { name: 'Your profile picture' }));
      await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await picture.elementHandle());
      const menuPicture = page.getByRole('button', { name: 'Account menu' }).locator('img');
      await page.waitForFunction((img) => img && img.complete && img.naturalWidth > 0, await menuPicture.elementHandle());
      assert.match(await menuPicture.getAttribute('src'), new RegExp(`/storage/v1/object/public/avatars/${AMINA_ID}\\?v=\\d+$`));
      const [objects, version] = await row(
        app.stack,
        `select (select count(*) from storage.objects where bucket_id = 'avatars' and name = :'id'),
                (select raw_user_meta_data ->> 'avatar_version' from auth.users where id = :'id')`,
        { id: AMINA_ID },
      );
      assert.equal(objects, '1', 'the avatar is stored under the user id');
      assert.ok((await menuPicture.getAttribute('src')).endsWith(`?v=${version}`), 'the menu shows the version just uploaded');
      await b.shot('avatar');
    });
  });

  test('verifies the e-mail with the code from the development mailbox', { timeout: 120_000 }, async () => {
    // The back office marks Amina's e-mail unverified so she can verify it again.
    await sql(app.stack, `update public.user_verifications set email_verified = false where user_id = :'id'`, { id: AMINA_ID });
    await withBrowser({ shots: 'verify-email' }, async (b) => {
      const { page } = b;
      await openProfile(page, app.stack.url, demo.amina);
      const section = page.getByRole('region', { name: 'Email verification' });
      await visible(section.getByText('Not verified', { exact: true }));
      await section.getByRole('button', { name: 'Send code' }).click();
      await expectToast(page, `Verification code sent to ${demo.amina.email}`);
      // The next code waits a minute.
      const resend = section.getByRole('button', { name: /^Resend code in \d+s$/ });
      await visible(resend);
      assert.equal(await resend.isDisabled(), true);
      await b.shot('code-sent');

      const mail = await waitForMail(app.stack, demo.amina.email, { subject: /verification code/i });
      const code = /verification code is (\d{6})/.exec(mail.text || mail.html)?.[1];
      assert.ok(code, `a six-digit code in the mail: ${mail.text || mail.html}`);
      assert.equal(await page.getByText(code).count(), 0, 'the code is not on the page');
      const [hash, expiresInSeconds] = await row(
        app.stack,
        `select email_verification_code, extract(epoch from email_verification_expires_at - now())::int
           from public.user_verifications where user_id = :'id'`,
        { id: AMINA_ID },
      );
      assert.match(hash, /^\$2[aby]\$/, 'the code is stored as a bcrypt hash');
      assert.ok(!hash.includes(code));
      assert.ok(Number(expiresInSeconds) > 8 * 60 && Number(expiresInSeconds) <= 10 * 60, `valid 10 minutes (${expiresInSeconds} s left)`);

      // A wrong code is refused and counted.
      const box = section.getByLabel('Verification code');
      await box.fill(wrongCode(code));
      await section.getByRole('button', { name: 'Verify', exact: true }).click();
      await expectToast(page, 'Invalid verification code');
      await visible(section.getByRole('alert').filter({ hasText: 'Invalid verification code' }));
      const [attempts] = await row(app.stack, `select email_verification_attempts from public.user_verifications where user_id = :'id'`, {
        id: AMINA_ID,
      });
      assert.equal(attempts, '1');
      await b.shot('wrong-code');

      await box.fill(code);
      await section.getByRole('button', { name: 'Verify', exact: true }).click();
      await expectToast(page, 'Email verified successfully!');
      await visible(section.getByText('Verified', { exact: true }));
      const [verified, left] = await row(
        app.stack,
        `select email_verified, email_verification_code is null from public.user_verifications where user_id = :'id'`,
        { id: AMINA_ID },
      );
      assert.deepEqual([verified, left], ['t', 't']);
      await b.shot('verified');
    });
  });
});
