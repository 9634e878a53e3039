// Starts a whole KejaNest stack for a test file: `bin/devstack -ephemeral`
// picks free ports, creates a fresh database (dropped when the stack stops)
// and prints one JSON line when every service is healthy. Every Node suite
// (compatibility, end-to-end) starts its stack through this module.
// startStack({ replicas: N }) runs N replicas of rest, rpc, authsvc,
// realtime and storage behind the gateway (`devstack -replicas N`).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
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
 * @property {Record<string, number>} ports  each service's (first replica's) port: Gateway, Rest, RPC, Auth, Realtime, Storage, MailSMTP, MailWeb
 * @property {Record<string, Replica[]>} replicas  every replica of rest, rpc, authsvc, realtime and storage
 *   (one each unless startStack was given replicas), in the order the gateway lists them
 * @property {(key?: string, options?: object) => import('@supabase/supabase-js').SupabaseClient} client
 * @property {(service: string, index: number) => number|null} replicaPid  the pid now serving that replica's port
 * @property {(service: string, index: number, signal?: string) => number} killReplica  signals it (SIGKILL by default), returns the pid
 * @property {() => Promise<Record<string, ReplicaStats[]>>} replicaStats  the gateway's per-replica /metrics series
 * @property {() => Promise<void>} stop
 */

/**
 * @typedef {object} Replica
 * @property {string} name  devstack's name of the child and its log file: rest (one replica), rest-1, rest-2 …
 * @property {number} port
 * @property {string} url   its base URL, as the gateway lists it
 * @property {string} log   its log file
 */

/**
 * @typedef {Replica & {responses: number, refused: number, inFlight: number, backoff: number}} ReplicaStats
 *   the gateway's counters for one replica; all 0 for a service that runs once (the gateway keeps
 *   per-replica series only for services with several)
 */

/**
 * @param {{env?: Record<string,string>, sql?: string[], replicas?: number}} [options] sql: fixture files
 *   applied after the migrations and before the services start (paths relative to the cwd or absolute);
 *   replicas: instances of each stateless service (devstack's -replicas; default DEVSTACK_REPLICAS, else 1)
 * @returns {Promise<Stack>}
 */
export async function startStack({ env = {}, sql = [], replicas } = {}) {
  // DEVSTACK_BIN_DIR runs a second build of the binaries beside bin/ (devstack
  // reads the same variable for the services it starts).
  const bin = join(process.env.DEVSTACK_BIN_DIR || join(repoRoot, 'bin'), 'devstack');
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: run "make build" first (make test does)`);
  }
  const args = ['-ephemeral', ...sql.flatMap((f) => ['-sql', resolve(f)])];
  if (replicas !== undefined) args.push('-replicas', String(replicas));
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
  const replicaOf = (service, index) => {
    const r = info.replicas?.[service]?.[index];
    if (!r) throw new Error(`no replica ${index} of ${service}: the stack has ${JSON.stringify(info.replicas)}`);
    return r;
  };
  return {
    ...info,
    stop,
    replicaPid(service, index) {
      return pidListeningOn(replicaOf(service, index).port, child.pid);
    },
    killReplica(service, index, signal = 'SIGKILL') {
      const pid = pidListeningOn(replicaOf(service, index).port, child.pid);
      if (!pid) throw new Error(`${replicaOf(service, index).name} is not running`);
      process.kill(pid, signal);
      return pid;
    },
    async replicaStats() {
      const res = await fetch(`${info.url}/metrics`);
      if (!res.ok) throw new Error(`/metrics: ${res.status}`);
      const series = parseReplicaSeries(await res.text());
      return Object.fromEntries(Object.entries(info.replicas).map(([service, list]) => [service, list.map((r) => {
        const s = series.get(`${GATEWAY_SERVICE[service] ?? service} 127.0.0.1:${r.port}`) ?? {};
        return { ...r, responses: 0, refused: 0, inFlight: 0, backoff: 0, ...s };
      })]));
    },
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

// The gateway's metric label of each devstack service that differs.
const GATEWAY_SERVICE = { authsvc: 'auth' };

const REPLICA_METRICS = {
  gateway_upstream_responses_total: 'responses',
  gateway_upstream_refused_total: 'refused',
  gateway_upstream_in_flight: 'inFlight',
  gateway_upstream_backoff: 'backoff',
};

/** Per-replica series of a Prometheus text page, keyed by "service host:port". */
function parseReplicaSeries(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!m || !(m[1] in REPLICA_METRICS)) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const key = `${labels.service} ${labels.replica}`;
    out.set(key, { ...out.get(key), [REPLICA_METRICS[m[1]]]: Number(m[3]) });
  }
  return out;
}

/**
 * The pid of the child of parent that listens on the loopback TCP port, or
 * null: the port's listening socket in /proc/net/tcp{,6}, found among the
 * open files of parent's children. A restarted replica has a new pid, so
 * this is looked up each time rather than remembered.
 */
function pidListeningOn(port, parent) {
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try { text = readFileSync(table, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st … inode; st 0A is LISTEN
      if (cols.length > 9 && cols[3] === '0A' && parseInt(cols[1].split(':')[1], 16) === port) inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return null;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try { stat = readFileSync(`/proc/${entry}/stat`, 'utf8'); } catch { continue; }
    // "pid (comm) state ppid …", and comm may hold spaces or parentheses
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== parent) continue;
    let fds;
    try { fds = readdirSync(`/proc/${entry}/fd`); } catch { continue; }
    for (const fd of fds) {
      let link;
      try { link = readlinkSync(`/proc/${entry}/fd/${fd}`); } catch { continue; }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1])) return Number(entry);
    }
  }
  return null;
}
