// Steps a user takes again and again, written once: the account menu and the
// sign-in form, found by their labels as a person reads them.
import { expectToast, visible } from './browser.mjs';

/**
 * Opens the account menu in the top bar and returns the open menu. The
 * install card can appear just after the click, and dismissing it moves the
 * focus, which closes the menu again (seen on a loaded machine): open it
 * until it stays open, three tries at most.
 */
export async function openAccountMenu(page) {
  const menu = page.getByRole('menu');
  for (let attempt = 1; ; attempt++) {
    await page.getByRole('button', { name: 'Account menu' }).click();
    try {
      return await visible(menu, 5_000);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** Fills and sends the sign-in form on /login; waits for the success toast. */
export async function submitSignIn(page, { email, password }) {
  await visible(page.getByRole('heading', { name: 'Welcome back' }));
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectToast(page, 'Signed in successfully!');
}
