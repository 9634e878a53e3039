// The TOTP helper the admin walk signs in with, against RFC 6238's own
// SHA-1 test vectors (Appendix B), so a wrong code there is the helper's
// fault and not authsvc's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, hotp, totp, wrongTotp } from '../lib/totp.mjs';

// base32 of the ASCII seed "12345678901234567890".
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

test('base32 decodes the RFC seed', () => {
  assert.equal(base32Decode(SECRET).toString('ascii'), '12345678901234567890');
  assert.equal(base32Decode(SECRET.toLowerCase() + '====').toString('ascii'), '12345678901234567890');
  assert.throws(() => base32Decode('AB1C'), /not base32/);
});

test('RFC 6238 SHA-1 vectors', () => {
  const vectors = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, code] of vectors) {
    assert.equal(hotp(SECRET, Math.floor(seconds / 30), 8), code, `T=${seconds}`);
    assert.equal(totp(SECRET, seconds * 1000), code.slice(2), `6 digits at T=${seconds}`);
  }
});

test('wrongTotp is none of the codes valid around the time', () => {
  for (const seconds of [59, 1111111109, 1234567890]) {
    const ms = seconds * 1000;
    const wrong = wrongTotp(SECRET, ms);
    assert.match(wrong, /^\d{6}$/);
    for (const d of [-1, 0, 1]) assert.notEqual(wrong, totp(SECRET, ms + d * 30_000));
  }
});
