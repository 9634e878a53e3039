// RFC 6238 TOTP codes (HMAC-SHA-1, 6 digits, 30-second steps: what authsvc
// and authenticator apps use), computed from a base32 secret with node:crypto.
import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Decodes RFC 4648 base32 (padding and case ignored). */
export function base32Decode(secret) {
  const clean = secret.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out = [];
  for (const ch of clean) {
    const idx = BASE32.indexOf(ch);
    if (idx < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The RFC 4226 HOTP code of `counter`. */
export function hotp(secret, counter, digits = 6) {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', base32Decode(secret)).update(msg).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const bin = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** The TOTP code of `secret` at `timeMs` (default now), step 30 s. */
export function totp(secret, timeMs = Date.now(), step = 30) {
  return hotp(secret, Math.floor(timeMs / 1000 / step));
}

/** A 6-digit code that is none of the codes valid around `timeMs` (±1 step). */
export function wrongTotp(secret, timeMs = Date.now(), step = 30) {
  const valid = new Set([-1, 0, 1].map((d) => totp(secret, timeMs + d * step * 1000, step)));
  for (let n = 0; ; n++) {
    const code = String((Number(totp(secret, timeMs, step)) + 500_000 + n) % 1_000_000).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}
