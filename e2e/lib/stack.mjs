// The end-to-end suites' stack: the compatibility harness's ephemeral stack
// (bin/devstack -ephemeral: free ports, a fresh database, the gateway serving
// frontend/dist) with the demo data of sql/seed applied as fixtures, plus the
// two server-side doors a test may use: SQL as the database superuser (for
// back-office actions and cross-checks) and the development mailbox.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { promisify } from 'node:util';

import { repoRoot, startStack } from '../../compat/harness/stack.mjs';

const run = promisify(execFile);

/** The demo data files, in order (what `make run` seeds). */
export const seedFiles = readdirSync(join(repoRoot, 'sql', 'seed'))
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .map((f) => join(repoRoot, 'sql', 'seed', f));

/** The demo logins of sql/seed/logins.txt. */
export const demo = {
  admin: { email: 'admin@kejanest.test', password: 'KejaNest-Admin-2024' },
  amina: { email: 'amina@kejanest.test', password: 'Amina-Demo-2024' },
};

/**
 * Starts a stack with the demo data. `make build` must have run (it builds
 * bin/devstack and frontend/dist).
 * @returns {Promise<import('../../compat/harness/stack.mjs').Stack & { mailboxUrl: string }>}
 */
export function startDemoStack(options = {}) {
  return startStack({ ...options, sql: [...seedFiles, ...(options.sql ?? [])] });
}

/**
 * One demo stack for the enclosing describe(): started before its first test,
 * stopped after its last even when tests fail. Read it as `holder.stack`.
 */
export function useDemoStack() {
  const holder = { stack: undefined };
  before(async () => {
    holder.stack = await startDemoStack();
  });
  after(async () => {
    await holder.stack?.stop();
  });
  return holder;
}

/**
 * Runs SQL as the stack database's superuser through psql and returns the
 * rows as arrays of strings. `vars` become psql variables, used in the SQL as
 * :'name' (quoted literal), so values are never spliced into the text.
 */
export async function sql(stack, text, vars = {}) {
  const args = [stack.databaseUrl, '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '--single-transaction', '-F', '\t'];
  for (const [name, value] of Object.entries(vars)) args.push('-v', `${name}=${value}`);
  const child = run('psql', args, { timeout: 20_000 });
  child.child.stdin.end(text);
  const { stdout } = await child;
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\t'));
}

/**
 * Credits a user with Nestcoins the way the back office does: the ledger's
 * issue_currency function, called with service_role claims (as the seed and
 * the payment callback do), never through the app's UI.
 */
export async function creditNestcoins(stack, email, amount, reason) {
  const rows = await sql(
    stack,
    `select set_config('request.jwt.claims', '{"role":"service_role"}', true);
     select public.issue_currency(u.id, 'nestcoins', :'amount'::bigint, :'reason', 'e2e:' || u.id || ':' || :'reason')
       from auth.users u where u.email = :'email';`,
    { email, amount: String(amount), reason },
  );
  if (rows.length !== 2) throw new Error(`no user ${email} to credit`);
}

/** The user's Nestcoin balance as the ledger keeps it. */
export async function nestcoinBalance(stack, email) {
  const rows = await sql(
    stack,
    `select w.balance from public.wallets w join auth.users u on u.id = w.user_id
      where u.email = :'email' and w.currency = 'nestcoins' and w.kind = 'user';`,
    { email },
  );
  return rows.length ? Number(rows[0][0]) : null;
}

/**
 * Waits for a mail to `to` in the development mailbox (its JSON API,
 * GET /api/messages?to=) and returns the newest.
 */
export async function waitForMail(stack, to, { timeoutMs = 20_000, subject } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${stack.mailboxUrl}/api/messages?to=${encodeURIComponent(to)}`);
    if (!res.ok) throw new Error(`mailbox answered ${res.status}`);
    const messages = await res.json();
    const match = messages.find((m) => !subject || subject.test(m.subject));
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
