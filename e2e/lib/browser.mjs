// Debian's Chromium driven by playwright-core, one fresh profile per test,
// plus the few waiting helpers the suites share (playwright-core has no
// `expect`, so every assertion here waits on a condition, never a sleep).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** The flags every run uses: no sandbox (root in CI), no GPU, no background traffic. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Waits are generous (a 2-core machine with other work) but bounded. */
export const ACTION_TIMEOUT_MS = 15_000;
export const NAVIGATION_TIMEOUT_MS = 30_000;

export const screenshotDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Opens Chromium with a fresh profile. `shots` names the screenshot prefix
 * of the test. Close it with `await browser.close()` (in a finally / after).
 */
export async function openBrowser({ viewport = DESKTOP, colorScheme = 'light', shots = 'shot', isMobile = false, installCard = 'dismiss' } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'kejanest-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
    isMobile,
    hasTouch: isMobile,
    colorScheme,
    locale: 'en-KE',
    timezoneId: 'Africa/Nairobi',
  });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  if (installCard === 'dismiss') await dismissInstallCard(page);

  let n = 0;
  mkdirSync(screenshotDir, { recursive: true });
  return {
    context,
    page,
    /** Uncaught page errors seen so far (a test may assert there were none). */
    errors,
    /** Writes screenshots/<prefix>-NN-<name>.png of what the user sees now. */
    async shot(name, target = page) {
      n += 1;
      const file = join(screenshotDir, `${shots}-${String(n).padStart(2, '0')}-${name}.png`);
      await target.screenshot({ path: file, animations: 'disabled' });
      return file;
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Chromium offers to install the app (a PWA), so the app shows its install
 * card; like a user who is not interested, tests dismiss it whenever it
 * would cover what they click. The card itself has its own test.
 *
 * The dismiss button is pressed from the keyboard: on desktop widths an open
 * toast sits over the bottom of the card, and a pointer click there lands on
 * the toast's close button instead.
 */
export async function dismissInstallCard(page) {
  const card = page.getByRole('region', { name: /^(Install|Sakinisha) KejaNest$/ });
  await page.addLocatorHandler(card, async () => {
    await card.getByRole('button').last().press('Enter');
  });
}

/** The app's toast area (Radix: a region named "Notifications (F8)"). */
export function toasts(page) {
  return page.getByRole('region', { name: /\(F8\)$/ });
}

/**
 * Waits for a toast with exactly this title, returns its variant, then closes
 * it as a user would so it covers nothing afterwards.
 */
export async function expectToast(page, title, { close = true } = {}) {
  const toast = toasts(page).getByRole('listitem').filter({ hasText: title });
  try {
    await toast.first().waitFor({ state: 'visible' });
  } catch (error) {
    const shown = await toasts(page).getByRole('listitem').allInnerTexts().catch(() => []);
    error.message = `no toast "${title}" (toasts on screen: ${JSON.stringify(shown)})\n${error.message}`;
    throw error;
  }
  const text = (await toast.first().innerText()).trim();
  assert.ok(text.startsWith(title), `toast reads "${text}", expected "${title}"`);
  const variant = await toast.first().getAttribute('data-variant');
  if (close) {
    // It may time out on its own meanwhile (5 s); either way it goes.
    await toast.first().getByRole('button').click({ timeout: 5_000 }).catch(() => {});
    await toast.first().waitFor({ state: 'detached' });
  }
  return variant;
}

/** Waits until the page's URL (path + search) satisfies `expected` (string or RegExp). */
export async function expectPath(page, expected, timeout = NAVIGATION_TIMEOUT_MS) {
  const matches = (url) => {
    const u = new URL(url);
    const path = u.pathname + u.search;
    return typeof expected === 'string' ? path === expected : expected.test(path);
  };
  try {
    await page.waitForURL(matches, { timeout, waitUntil: 'commit' });
  } catch (error) {
    const u = new URL(page.url());
    assert.fail(`expected the page at ${expected}, it is at ${u.pathname}${u.search} (${error.message.split('\n')[0]})`);
  }
}

/** Waits for a locator to be visible; returns it. */
export async function visible(locator, timeout) {
  await locator.waitFor({ state: 'visible', timeout });
  return locator;
}

/** Visible text of a locator, whitespace collapsed. */
export async function textOf(locator) {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

/** Reads a whole number such as "Ksh 1,200" or "401 Nestcoins" from text. */
export function numberIn(text) {
  const m = /-?\d[\d,]*/.exec(text);
  assert.ok(m, `no number in "${text}"`);
  return Number(m[0].replaceAll(',', ''));
}

/** The path + search of the page now. */
export function pathOf(page) {
  const u = new URL(page.url());
  return u.pathname + u.search;
}

/**
 * Runs `fn(browser)` with a fresh browser and always closes it; when `fn`
 * throws, the screen at that moment is saved as <prefix>-failure.png and the
 * page's uncaught errors are added to the message.
 */
export async function withBrowser(options, fn) {
  const b = await openBrowser(options);
  try {
    await fn(b);
  } catch (error) {
    await b.page
      .screenshot({ path: join(screenshotDir, `${options.shots ?? 'shot'}-failure.png`), timeout: 5_000 })
      .catch(() => {});
    if (b.errors.length) error.message += `\npage errors: ${b.errors.join(' | ')}`;
    error.message += `\npage: ${b.page.url()}`;
    throw error;
  } finally {
    await b.close();
  }
}
