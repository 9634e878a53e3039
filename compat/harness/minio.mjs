// A real S3 server for the storage suites: MinIO built from the Go module
// proxy at a pinned version (cached between runs), started on a free
// loopback port with a temporary data directory, stopped by the caller.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from './ports.mjs';

/** The pinned MinIO module version (go install …@MINIO_VERSION). */
export const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const MINIO_MODULE = 'github.com/minio/minio';
const INSTALL_TIMEOUT_MS = 30 * 60_000;
const READY_TIMEOUT_MS = 60_000;

/** Where the binary is cached: $KEJANEST_TOOLS_DIR or ~/.cache/kejanest-tools. */
export function toolsDir() {
  return process.env.KEJANEST_TOOLS_DIR || join(homedir(), '.cache', 'kejanest-tools');
}

/** Returns the MinIO binary, running `go install` first when it is missing. */
export function ensureMinio() {
  const dir = toolsDir();
  const bin = join(dir, 'minio');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  execFileSync('go', ['install', `${MINIO_MODULE}@${MINIO_VERSION}`], {
    env: { ...process.env, GOBIN: dir, GOWORK: 'off' },
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (!existsSync(bin)) throw new Error(`go install ${MINIO_MODULE}@${MINIO_VERSION} left no ${bin}`);
  return bin;
}

/**
 * @typedef {object} Minio
 * @property {string} endpoint   http://127.0.0.1:<port>
 * @property {string} bucket     the S3 bucket the storage service should use
 * @property {string} region
 * @property {string} accessKey
 * @property {string} secretKey
 * @property {string} dataDir    MinIO's data directory (objects appear under <dataDir>/<bucket>/)
 * @property {() => Promise<void>} stop
 */

const START_ATTEMPTS = 3;

/** A MinIO that ended before it answered: most likely its picked port was taken since. */
class MinioExited extends Error {}

/**
 * Starts MinIO; call stop() when done. A picked port is only free until
 * someone binds it, and MinIO exits when it cannot ("Specified port is
 * already in use"), so a server that exits during start-up is started
 * again on fresh ports. @returns {Promise<Minio>}
 */
export async function startMinio() {
  const bin = ensureMinio();
  const dataDir = mkdtempSync(join(tmpdir(), 'kejanest-minio-'));
  const accessKey = 'kejanest-test';
  const secretKey = 'kejanest-test-secret-key';
  let child;
  let endpoint;
  for (let attempt = 1; ; attempt++) {
    try {
      ({ child, endpoint } = await startOn(bin, dataDir, accessKey, secretKey, await freePort(), await freePort()));
      break;
    } catch (err) {
      if (!(err instanceof MinioExited) || attempt === START_ATTEMPTS) {
        rmSync(dataDir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  let stopped = false;
  return {
    endpoint, bucket: 'kejanest-storage', region: 'us-east-1', accessKey, secretKey, dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs MinIO on port and waits until it answers its health check. */
async function startOn(bin, dataDir, accessKey, secretKey, port, consolePort) {
  const child = spawn(bin, ['server', dataDir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'], {
    env: { ...process.env, MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey, MINIO_BROWSER: 'off', MINIO_UPDATE: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new MinioExited(`minio exited with ${child.exitCode}\n${log}`);
    try {
      // A stranger's socket on the port may accept and never answer.
      const res = await fetch(`${endpoint}/minio/health/live`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return { child, endpoint };
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`minio not ready within ${READY_TIMEOUT_MS} ms\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The environment the storage suites hand to startStack() for the S3 pass:
 * devstack's per-service overrides (KEJANEST_<SERVICE>_<NAME>=v reaches
 * that service as NAME=v, after devstack's own settings), so storage runs
 * with STORAGE_BACKEND=s3, STORAGE_S3_ENDPOINT/BUCKET/REGION and the
 * AWS_* credentials of this MinIO.
 * @param {Minio} m
 */
export function s3StackEnv(m) {
  return {
    KEJANEST_STORAGE_STORAGE_BACKEND: 's3',
    KEJANEST_STORAGE_STORAGE_S3_ENDPOINT: m.endpoint,
    KEJANEST_STORAGE_STORAGE_S3_BUCKET: m.bucket,
    KEJANEST_STORAGE_STORAGE_S3_REGION: m.region,
    KEJANEST_STORAGE_AWS_ACCESS_KEY_ID: m.accessKey,
    KEJANEST_STORAGE_AWS_SECRET_ACCESS_KEY: m.secretKey,
  };
}
