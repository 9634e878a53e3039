// Free loopback ports for the servers a test starts itself (MinIO, devmail,
// a `make run` cluster), chosen the way platform/pgcluster.FreePort chooses
// them: a probed port is only free until someone binds it, and the kernel's
// own choice (port 0) comes from the ephemeral range it also hands to every
// outgoing connection. So the port is drawn at random from below that range,
// where only another listener could take it, and only by drawing the same one.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const POOL_LOW = 10_000;
const DEFAULT_POOL_HIGH = 32_768; // Linux's default ip_local_port_range starts here
const MIN_POOL_SIZE = 1_000;
const TRIES = 64;

/** The exclusive top of the pool: the start of the kernel's ephemeral range, when there is room below it. */
function poolHigh() {
  let text = '';
  try {
    text = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  } catch {
    return DEFAULT_POOL_HIGH;
  }
  const start = Number.parseInt(text.trim().split(/\s+/)[0], 10);
  if (!Number.isInteger(start)) return DEFAULT_POOL_HIGH;
  return start - POOL_LOW >= MIN_POOL_SIZE ? start : undefined;
}

/** Resolves to `port` when it can be bound on 127.0.0.1 now (0: the kernel's choice), else undefined. */
function probe(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address();
      srv.close(() => resolve(bound));
    });
  });
}

/** A loopback TCP port nothing listens on now. */
export async function freePort() {
  const high = poolHigh();
  if (high !== undefined) {
    for (let i = 0; i < TRIES; i++) {
      const port = await probe(POOL_LOW + Math.floor(Math.random() * (high - POOL_LOW)));
      if (port !== undefined) return port;
    }
  }
  const port = await probe(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}
