// What the rest suites share: SQL as the superuser on the stack's database,
// raw requests through the gateway (for headers supabase-js hides), and a
// query's rows with its error asserted away.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

/**
 * @param {() => import('./stack.mjs').Stack} getStack  the suite's stack (started in before())
 */
export function restHelpers(getStack) {
  return {
    /** Runs SQL as the superuser on the stack's database and returns its output. */
    psql: (query) => execFileSync('psql', [getStack().databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qAtc', query], { encoding: 'utf8' }).trim(),
    /** A raw request to /rest/v1 through the gateway, as service_role unless init.headers says otherwise. */
    raw: (path, init = {}) => fetch(`${getStack().url}/rest/v1${path}`, {
      ...init,
      headers: { apikey: getStack().serviceRoleKey, Authorization: `Bearer ${getStack().serviceRoleKey}`, ...(init.headers ?? {}) },
    }),
    /** Awaits a supabase-js query and returns its data, failing on an error. */
    async rows(q) {
      const { data, error } = await q;
      assert.equal(error, null, JSON.stringify(error));
      return data;
    },
  };
}
