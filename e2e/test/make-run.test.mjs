// `make run`, the README's first command, as a newcomer meets it: no
// DATABASE_URL, so bin/devstack creates and starts its own PostgreSQL
// cluster, migrates, seeds the demo data, starts every service on the
// documented ports and prints the URL and the demo logins. One of those
// logins then signs in through the app in Chromium. Ctrl-C stops everything,
// the cluster included; a second run reuses the cluster and the data.
//
// The repository is not touched: the run gets its own root (a temporary
// folder holding links to sql/, bin/ and frontend/), so its .data/ is
// thrown away afterwards. `make build` must have run (make test does).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { freePort } from '../../compat/harness/ports.mjs';
import { repoRoot } from '../../compat/harness/stack.mjs';
import { submitSignIn } from '../lib/app.mjs';
import { expectPath, visible, withBrowser } from '../lib/browser.mjs';

const BANNER_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

/** Whether something accepts connections on a loopback port. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts bin/devstack as `make run` does and waits for its banner; returns
 * the process, the banner text and how long it took.
 */
async function makeRun(root, env) {
  const began = Date.now();
  const child = spawn(join(root, 'bin', 'devstack'), ['-root', root], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const banner = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${BANNER_TIMEOUT_MS} ms\n${out}\n${err}`)), BANNER_TIMEOUT_MS);
    child.stdout.on('data', () => {
      if (out.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`devstack exited with ${code} before its banner\n${out}\n${err}`));
    });
  });
  return { child, banner, tookMs: Date.now() - began, stderr: () => err };
}

/** A newcomer's environment: no DATABASE_URL, the embedded cluster on a free port. */
async function newcomerEnv() {
  const pgPort = await freePort();
  const env = { ...process.env, POSTGRES_PORT: String(pgPort), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  return { env, pgPort };
}

/** Sends Ctrl-C's signal and waits for the exit; returns the exit code. */
async function ctrlC(child) {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  const [code, signal] = await exited;
  clearTimeout(timer);
  assert.equal(signal, null, `devstack did not stop on SIGINT within ${STOP_TIMEOUT_MS} ms`);
  return code;
}

/** The value printed after `label` on its banner line. */
function bannerValue(banner, label) {
  const m = new RegExp(`^\\s*${label}\\s+(\\S+)`, 'm').exec(banner);
  assert.ok(m, `the banner has no "${label}" line:\n${banner}`);
  return m[1];
}

describe('make run', { timeout: 400_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'kejanest-make-run-'));
  // The cluster runs as the postgres user when we are root: it must reach
  // root/.data through this folder.
  chmodSync(root, 0o755);
  for (const dir of ['sql', 'bin', 'frontend']) symlinkSync(join(repoRoot, dir), join(root, dir));
  const running = new Set();
  after(async () => {
    for (const child of running) await ctrlC(child).catch(() => child.kill('SIGKILL'));
    rmSync(root, { recursive: true, force: true });
  });

  test('starts its own PostgreSQL and the whole stack, seeds the demo data, and stops on Ctrl-C', { timeout: 300_000 }, async (t) => {
    assert.ok(existsSync(join(repoRoot, 'bin', 'devstack')), 'bin/devstack is missing: run "make build" first');
    for (const port of [54321, 3000, 3001, 9999, 4000, 5000]) {
      assert.equal(await listening(port), false, `port ${port} is taken: stop whatever holds it (another make run?)`);
    }
    const { env, pgPort } = await newcomerEnv();

    const first = await makeRun(root, env);
    running.add(first.child);
    const url = bannerValue(first.banner, 'App and API URL');
    const anonKey = bannerValue(first.banner, 'anon key');
    assert.equal(url, 'http://127.0.0.1:54321', 'the gateway is on the documented port');
    assert.ok(existsSync(join(root, '.data', 'postgres')), 'the cluster lives in .data/postgres');
    assert.ok(await listening(pgPort), `the embedded PostgreSQL listens on POSTGRES_PORT (${pgPort})`);
    const logins = [...first.banner.matchAll(/^\s+(\S+@\S+) \/ (\S+)/gm)].map(([, email, password]) => ({ email, password }));
    assert.deepEqual(logins.map((l) => l.email), ['admin@kejanest.test', 'amina@kejanest.test', 'brian@kejanest.test']);

    // The demo data is there, through the public API with the printed key.
    const res = await fetch(`${url}/rest/v1/properties?select=id&is_active=eq.true`, {
      headers: { apikey: anonKey, Prefer: 'count=exact', Range: '0-0' },
    });
    assert.equal(res.status, 206, await res.clone().text());
    const seeded = Number(res.headers.get('content-range')?.split('/')[1]);
    assert.ok(seeded > 0, `active demo properties: ${res.headers.get('content-range')}`);

    // A printed demo login signs in through the app.
    await withBrowser({ shots: 'make-run' }, async (b) => {
      const { page } = b;
      await page.goto(`${url}/login`);
      await submitSignIn(page, logins[1]);
      await expectPath(page, '/home');
      await visible(page.getByRole('heading', { level: 1 }));
      await b.shot('signed-in');
    });

    assert.equal(await ctrlC(first.child), 0, `devstack exit code\n${first.stderr()}`);
    running.delete(first.child);
    assert.equal(await listening(54321), false, 'the gateway stopped');
    assert.equal(await listening(pgPort), false, 'Ctrl-C stopped the embedded PostgreSQL too');

    // A second run reuses the initialised cluster and keeps the data.
    const second = await makeRun(root, env);
    running.add(second.child);
    assert.ok(second.tookMs < first.tookMs, `the second run (${second.tookMs} ms) is quicker than the first (${first.tookMs} ms)`);
    const again = await fetch(`${url}/rest/v1/properties?select=id&is_active=eq.true`, {
      headers: { apikey: anonKey, Prefer: 'count=exact', Range: '0-0' },
    });
    assert.equal(Number(again.headers.get('content-range')?.split('/')[1]), seeded, 'the data survived the restart, seeded once');
    assert.equal(await ctrlC(second.child), 0, `devstack exit code\n${second.stderr()}`);
    running.delete(second.child);
    t.diagnostic(`banner after ${first.tookMs} ms on the first run, ${second.tookMs} ms on the second`);
  });

  test('stops at once, naming the port, when a documented port is taken', { timeout: 60_000 }, async () => {
    // devstack binds every port before it starts anything (platform/listenfd),
    // so a taken one is reported before PostgreSQL or any service starts.
    const squatter = createServer();
    squatter.listen(54324, '127.0.0.1');
    await once(squatter, 'listening');
    try {
      const { env, pgPort } = await newcomerEnv();
      const began = Date.now();
      await assert.rejects(makeRun(root, env), (err) => {
        assert.match(err.message, /^devstack exited with [1-9]\d* before its banner/, 'devstack exits with an error');
        assert.match(err.message, /devstack: listen tcp 127\.0\.0\.1:54324: bind: address already in use \(is another make run going\?\)/,
          `devstack's own error names the port:\n${err.message}`);
        return true;
      });
      assert.ok(Date.now() - began < 10_000, `it stopped after ${Date.now() - began} ms`);
      assert.equal(await listening(pgPort), false, 'the embedded PostgreSQL was not started');
      assert.equal(await listening(54321), false, 'the gateway was not started');
    } finally {
      squatter.close();
    }
  });
});
