// Starts a whole KejaNest stack for a test file: `bin/devstack -ephemeral`
// picks free ports, creates a fresh database (dropped when the stack stops)
// and prints one JSON line when every service is healthy. Every Node suite
// (compatibility, end-to-end) starts its stack through this module.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { createClient } from '@supabase/supabase-js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const READY_TIMEOUT_MS = 60_000;

/**
 * @typedef {object} Stack
 * @property {string} url             gateway origin, e.g. http://127.0.0.1:40123
 * @property {string} anonKey
 * @property {string} serviceRoleKey
 * @property {string} publishableKey
 * @property {string} secretKey
 * @property {string} jwtSecret
 * @property {string} databaseUrl     superuser URL of the stack's own database
 * @property {string} logDir
 * @property {(key?: string, options?: object) => import('@supabase/supabase-js').SupabaseClient} client
 * @property {() => Promise<void>} stop
 */

/**
 * @param {{env?: Record<string,string>, sql?: string[]}} [options] sql: fixture files applied after
 *   the migrations and before the services start (paths relative to the cwd or absolute)
 * @returns {Promise<Stack>}
 */
export async function startStack({ env = {}, sql = [] } = {}) {
  const bin = join(repoRoot, 'bin', 'devstack');
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: run "make build" first (make test does)`);
  }
  const args = ['-ephemeral', ...sql.flatMap((f) => ['-sql', resolve(f)])];
  const child = spawn(bin, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });

  const lines = createInterface({ input: child.stdout });
  const ready = new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`stack not ready within ${READY_TIMEOUT_MS} ms\n${stderr}`)), READY_TIMEOUT_MS);
    lines.on('line', (line) => {
      try {
        const msg = JSON.parse(line);
        if (msg.event === 'ready') {
          clearTimeout(timer);
          resolveReady(msg);
        }
      } catch { /* not ours */ }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`devstack exited with ${code} before it was ready\n${stderr}`));
    });
  });
  const info = await ready;

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  };
  return {
    ...info,
    stop,
    /** Service logs, for a failing test's message. */
    logs() {
      if (!existsSync(info.logDir)) return '';
      return readdirSync(info.logDir)
        .map((f) => `--- ${f}\n${readFileSync(join(info.logDir, f), 'utf8').split('\n').slice(-30).join('\n')}`)
        .join('\n');
    },
    client(key = info.anonKey, options = {}) {
      return createClient(info.url, key, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        // Node 20 has no global WebSocket; supabase-js takes one as transport.
        realtime: { transport: WebSocket },
        ...options,
      });
    },
  };
}
