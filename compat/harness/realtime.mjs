// What the realtime suites share: supabase-js clients whose realtime socket
// carries a chosen token, a channel subscription awaited as a promise, and a
// poll for something a callback collects.
import WebSocket from 'ws';

/**
 * Returns client() for `stack`, making supabase-js clients over the `ws`
 * transport (optionally protocol `vsn`) whose realtime socket uses `token`,
 * track(c) to add a client made elsewhere, and closeAll() to remove every
 * channel they opened.
 * @param {() => import('./stack.mjs').Stack} getStack  the suite's stack (started in before())
 */
export function realtimeClients(getStack) {
  const clients = [];
  return {
    async client({ token, vsn } = {}) {
      const options = { realtime: { transport: WebSocket, ...(vsn ? { vsn } : {}) } };
      // With accessToken, supabase-js hands realtime this token (instead of
      // resetting it to the anon key when it sees no session).
      if (token) options.accessToken = async () => token;
      const c = getStack().client(getStack().anonKey, options);
      if (token) await c.realtime.setAuth();
      clients.push(c);
      return c;
    },
    track(c) {
      clients.push(c);
      return c;
    },
    async closeAll() {
      for (const c of clients) await c.removeAllChannels().catch(() => {});
    },
  };
}

/** Subscribes `channel` and resolves with it once SUBSCRIBED; rejects on an error or timeout. */
export function subscribed(channel, timeout = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${channel.topic}: not subscribed within ${timeout} ms`)), timeout);
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') { clearTimeout(timer); resolve(channel); }
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') { clearTimeout(timer); reject(err ?? new Error(status)); }
    });
  });
}

/** Polls fn every 25 ms until it returns something truthy, which it resolves with. */
export async function waitFor(fn, what, timeout = 8000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
