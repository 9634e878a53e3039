// /kyc-verification (issue 13): a user submits identity documents to the
// private `kyc` bucket, sees them back through signed links, waits for the
// decision, is rejected with the admin's notes, resubmits, and is approved —
// the decisions made as the admin's process_kyc_verification does, each
// step cross-checked in the database and in storage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { submitSignIn } from '../lib/app.mjs';
import { expectPath, expectToast, visible, withBrowser } from '../lib/browser.mjs';
import { makePhoto } from '../lib/photo.mjs';
import { sql, useDemoStack } from '../lib/stack.mjs';

/** Brian (sql/seed/0001_demo_users.sql, logins.txt). */
const brian = { id: '0e5a0000-0000-4000-8000-000000000003', email: 'brian@kejanest.test', password: 'Brian-Demo-2024' };
const ADMIN_ID = '0e5a0000-0000-4000-8000-000000000001';
const NOTES = 'The ID photo is blurred; please upload a clearer copy.';

/** A one-page PDF, the shape of a scanned document. */
function makePdf() {
  return Buffer.from(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
      '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  );
}

/** The admin's decision, as process_kyc_verification makes it (service_role claims, the admin named). */
async function decide(stack, action, notes = null) {
  await sql(
    stack,
    `select set_config('request.jwt.claims', '{"role":"service_role"}', true);
     select public.process_kyc_verification(k.id, :'admin', :'action', nullif(:'notes', ''))
       from public.kyc_verifications k where k.user_id = :'id';`,
    { admin: ADMIN_ID, action, notes: notes ?? '', id: brian.id },
  );
}

async function submission(stack) {
  const rows = await sql(
    stack,
    `select verification_status, id_type, id_number, photo_url, id_document_front_url, id_document_back_url, coalesce(admin_notes, '')
       from public.kyc_verifications where user_id = :'id'`,
    { id: brian.id },
  );
  assert.equal(rows.length, 1, 'one submission');
  const [status, type, number, selfie, front, back, notes] = rows[0];
  return { status, type, number, selfie, front, back, notes };
}

/** Waits until an <img> has loaded a picture (not a broken link). */
async function loaded(page, locator) {
  await visible(locator);
  await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await locator.elementHandle());
}

describe('KYC verification', { timeout: 300_000 }, () => {
  const app = useDemoStack();

  test('submits documents privately, is rejected with notes, resubmits and is approved', { timeout: 200_000 }, async () => {
    // Brian starts without a submission (the seed gave him a pending one).
    await sql(app.stack, `delete from public.kyc_verifications where user_id = :'id'`, { id: brian.id });

    await withBrowser({ shots: 'kyc' }, async (b) => {
      const { page } = b;
      await page.goto(`${app.stack.url}/profile`);
      await expectPath(page, '/login');
      await submitSignIn(page, brian);
      await expectPath(page, '/profile');
      await visible(page.getByText('Not started', { exact: true }));
      await page.getByRole('link', { name: 'Start KYC Verification' }).click();
      await expectPath(page, '/kyc-verification');
      await visible(page.getByRole('heading', { level: 1, name: 'KYC Verification' }));

      // Nothing is sent until every field is right.
      await page.getByRole('button', { name: 'Submit for Verification' }).click();
      await visible(page.getByText('Upload a selfie photo', { exact: true }));
      await page.getByLabel('ID number', { exact: true }).fill('31298');
      await visible(page.getByText('A National ID number has 7 or 8 digits', { exact: true }));
      await b.shot('validation');

      await page.getByLabel('ID number', { exact: true }).fill('3129874');
      await page.getByLabel('Physical address', { exact: true }).fill('Oginga Odinga St, Milimani, Kisumu');
      await page.getByLabel('Selfie photo', { exact: true }).setInputFiles({ name: 'selfie.png', mimeType: 'image/png', buffer: makePhoto(600, 800) });
      await page.getByLabel('Front of ID', { exact: true }).setInputFiles({ name: 'front.png', mimeType: 'image/png', buffer: makePhoto(1200, 800) });
      await page.getByLabel('Back of ID', { exact: true }).setInputFiles({ name: 'back.pdf', mimeType: 'application/pdf', buffer: makePdf() });
      // What was uploaded comes back through signed links (the bucket is private).
      await loaded(page, page.getByRole('img', { name: 'Selfie photo' }));
      await loaded(page, page.getByRole('img', { name: 'Front of ID' }));
      await visible(page.getByRole('link', { name: 'Open Back of ID (PDF)' }));
      await b.shot('filled');
      await page.getByRole('button', { name: 'Submit for Verification' }).click();
      await expectToast(page, 'Your documents were submitted for review.');
      await visible(page.getByRole('region', { name: 'Pending Review' }));
      await visible(page.getByText('••••874', { exact: true }));
      await b.shot('pending');

      let row = await submission(app.stack);
      assert.deepEqual([row.status, row.type, row.number], ['pending', 'National ID', '3129874']);
      assert.match(row.selfie, new RegExp(`^${brian.id}/selfie-[0-9a-f-]+\\.(jpg|png)$`));
      assert.match(row.front, new RegExp(`^${brian.id}/id-front-[0-9a-f-]+\\.(jpg|png)$`));
      assert.match(row.back, new RegExp(`^${brian.id}/id-back-[0-9a-f-]+\\.pdf$`));
      const [[stored]] = await sql(
        app.stack,
        `select count(*) from storage.objects where bucket_id = 'kyc' and name in (:'a', :'b', :'c')`,
        { a: row.selfie, b: row.front, c: row.back },
      );
      assert.equal(stored, '3', 'the three documents are in the kyc bucket');
      const publicRead = await fetch(`${app.stack.url}/storage/v1/object/public/kyc/${row.front}`);
      assert.ok(!publicRead.ok, `a KYC document has no public URL (HTTP ${publicRead.status})`);

      // The admin rejects it with a note: Brian reads it and resubmits a sharper front.
      await decide(app.stack, 'rejected', NOTES);
      await page.reload();
      const rejected = await visible(page.getByRole('region', { name: 'Verification rejected' }));
      await visible(rejected.getByText(NOTES, { exact: true }));
      await b.shot('rejected');
      await rejected.getByRole('button', { name: 'Resubmit Documents' }).click();
      await visible(page.getByRole('heading', { name: 'Resubmit your documents' }));
      assert.equal(await page.getByLabel('ID number', { exact: true }).inputValue(), '3129874');
      const oldFront = row.front;
      await page.getByLabel('Front of ID', { exact: true }).setInputFiles({ name: 'front-2.png', mimeType: 'image/png', buffer: makePhoto(1000, 700) });
      await page.waitForFunction(
        (old) => [...document.querySelectorAll('img[alt="Front of ID"]')].some((img) => !img.src.includes(old) && img.complete && img.naturalWidth > 0),
        oldFront.split('/')[1],
      );
      await page.getByRole('button', { name: 'Resubmit for Verification' }).click();
      await expectToast(page, 'Your documents were submitted for review.');
      await visible(page.getByRole('region', { name: 'Pending Review' }));
      row = await submission(app.stack);
      assert.equal(row.status, 'pending', 'a resubmission waits for review again');
      assert.equal(row.notes, '', "the old decision's notes are cleared");
      assert.notEqual(row.front, oldFront);

      // Approved: the page and the profile card say so.
      await decide(app.stack, 'approved');
      await page.reload();
      const approved = await visible(page.getByRole('region', { name: 'Identity verified' }));
      await visible(approved.getByText(/^Your identity was verified on .+\.$/));
      await b.shot('approved');
      assert.equal((await submission(app.stack)).status, 'approved');
      await approved.getByRole('link', { name: 'Back to profile' }).click();
      await expectPath(page, '/profile');
      await visible(page.getByText('Approved', { exact: true }));
      assert.equal(await page.getByRole('button', { name: 'Verified', exact: true }).isDisabled(), true);
    });
  });
});
