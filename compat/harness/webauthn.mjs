// A WebAuthn authenticator in software for the stack tests, built on
// node:crypto: an ES256 key, "none" attestation, and the CBOR,
// clientDataJSON and authenticatorData written here, so the server is
// checked against bytes its own library did not produce.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

export const b64u = (buf) => Buffer.from(buf).toString('base64url');
const sha256 = (b) => createHash('sha256').update(b).digest();

// Minimal CBOR: unsigned/negative ints, byte and text strings, maps.
const head = (major, n) => (n < 24 ? Buffer.from([(major << 5) | n])
  : n < 256 ? Buffer.from([(major << 5) | 24, n]) : Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]));
const cInt = (n) => (n < 0 ? head(1, -1 - n) : head(0, n));
const cBytes = (b) => Buffer.concat([head(2, b.length), b]);
const cText = (s) => Buffer.concat([head(3, Buffer.byteLength(s)), Buffer.from(s)]);

// userHandle turns a user's uuid into the WebAuthn user handle (its 16
// bytes, base64url) that authsvc registers credentials under.
export const userHandle = (userId) => b64u(Buffer.from(userId.replaceAll('-', ''), 'hex'));

// softAuthenticator holds one credential. create answers creation options,
// get answers request options (tamper corrupts the signature); every
// answer bumps the sign count, and rewind(n) sets it back n steps, as a
// cloned authenticator would.
export function softAuthenticator() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const credId = randomBytes(16);
  let count = 0;
  const cose = Buffer.concat([head(5, 5), cInt(1), cInt(2), cInt(3), cInt(-7), cInt(-1), cInt(1),
    cInt(-2), cBytes(Buffer.from(jwk.x, 'base64url')), cInt(-3), cBytes(Buffer.from(jwk.y, 'base64url'))]);
  const authData = (rpId, attested) => {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(++count);
    const parts = [sha256(rpId), Buffer.from([0x01 | 0x04 | (attested ? 0x40 : 0)]), counter];
    if (attested) {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(credId.length);
      parts.push(Buffer.alloc(16), len, credId, cose);
    }
    return Buffer.concat(parts);
  };
  const clientData = (type, challenge, origin) => Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  return {
    credId,
    rewind(n) { count -= n; },
    create(challenge, rpId, origin) {
      const att = Buffer.concat([head(5, 3), cText('fmt'), cText('none'), cText('attStmt'), head(5, 0),
        cText('authData'), cBytes(authData(rpId, true))]);
      return { id: b64u(credId), rawId: b64u(credId), type: 'public-key',
        response: { clientDataJSON: b64u(clientData('webauthn.create', challenge, origin)), attestationObject: b64u(att) } };
    },
    get(challenge, rpId, origin, userHandle, { tamper = false } = {}) {
      const cd = clientData('webauthn.get', challenge, origin);
      const ad = authData(rpId, false);
      const signed = Buffer.concat([ad, sha256(cd)]);
      if (tamper) signed[0] ^= 0xff;
      const signature = sign('sha256', signed, { key: privateKey, dsaEncoding: 'der' });
      return { id: b64u(credId), rawId: b64u(credId), type: 'public-key',
        response: { clientDataJSON: b64u(cd), authenticatorData: b64u(ad), signature: b64u(signature), userHandle } };
    },
  };
}
