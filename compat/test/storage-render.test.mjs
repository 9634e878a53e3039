// Storage image transformation (/render/image) through the gateway with the
// official supabase-js client: getPublicUrl, createSignedUrl and download
// with a `transform`, the answers decoded and their dimensions and format
// checked; WebP when the client's Accept allows it, the source's format
// otherwise or with format 'origin'; bad options and non-images refused
// with Supabase Storage's errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32, deflateSync } from 'node:zlib';
import { startStack } from '../harness/stack.mjs';

/** A PNG of w×h RGB pixels with gradients. */
function png(w, h) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; ihdr[9] = 2; // 8-bit RGB
  const rows = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) {
      row[1 + x * 3] = (x * 255 / w) | 0;
      row[2 + x * 3] = (y * 255 / h) | 0;
      row[3 + x * 3] = (x ^ y) & 0xff;
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The format and dimensions of an encoded image, read from its header:
 * PNG's IHDR, a JPEG's SOF marker, or a WebP's VP8/VP8L/VP8X chunk.
 */
function imageInfo(buf) {
  if (buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { format: 'png', width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) throw new Error(`bad JPEG marker at ${i}`);
      const m = buf[i + 1];
      const len = buf.readUInt16BE(i + 2);
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
        return { format: 'jpeg', height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
    throw new Error('JPEG without a frame header');
  }
  if (buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') {
    const kind = buf.toString('latin1', 12, 16);
    if (kind === 'VP8 ') {
      return { format: 'webp', width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
    }
    if (kind === 'VP8L') {
      const b = buf.readUInt32LE(21);
      return { format: 'webp', width: (b & 0x3fff) + 1, height: ((b >> 14) & 0x3fff) + 1 };
    }
    if (kind === 'VP8X') {
      return { format: 'webp', width: buf.readUIntLE(24, 3) + 1, height: buf.readUIntLE(27, 3) + 1 };
    }
  }
  throw new Error(`unknown image format: ${buf.subarray(0, 16).toString('hex')}`);
}

describe('storage image transformation', () => {
  let stack, anon, service;
  const pub = 'render-public';
  const priv = 'render-private';
  const source = png(600, 400);

  before(async () => {
    stack = await startStack();
    anon = stack.client();
    service = stack.client(stack.serviceRoleKey);
    for (const [id, isPublic] of [[pub, true], [priv, false]]) {
      const { error } = await service.storage.createBucket(id, { public: isPublic });
      assert.equal(error, null);
    }
    for (const bucket of [pub, priv]) {
      const { error } = await service.storage.from(bucket).upload('photos/house.png', source, { contentType: 'image/png' });
      assert.equal(error, null);
    }
    const { error } = await service.storage.from(pub).upload('notes.txt', Buffer.from('not an image'), { contentType: 'text/plain' });
    assert.equal(error, null);
  });

  after(async () => {
    await stack?.stop();
  });

  const get = async (url, headers = {}) => {
    const res = await fetch(url, { headers });
    return { res, body: Buffer.from(await res.arrayBuffer()) };
  };

  test('getPublicUrl with a transform renders the public image: WebP when accepted, else the origin format', async () => {
    const { data } = anon.storage.from(pub).getPublicUrl('photos/house.png', { transform: { width: 300, height: 150 } });
    assert.match(data.publicUrl, /\/storage\/v1\/render\/image\/public\/render-public\/photos\/house\.png\?width=300&height=150$/);

    let { res, body } = await get(data.publicUrl, { Accept: 'image/avif,image/webp,*/*' });
    assert.equal(res.status, 200, body.toString());
    assert.equal(res.headers.get('content-type'), 'image/webp');
    assert.deepEqual(imageInfo(body), { format: 'webp', width: 300, height: 150 });
    assert.match(res.headers.get('vary') ?? '', /accept/i);
    const webpETag = res.headers.get('etag');
    assert.ok(webpETag);
    assert.ok(body.length < source.length / 4, `a 300×150 WebP (${body.length} B) is far smaller than the 600×400 PNG (${source.length} B)`);

    ({ res, body } = await get(data.publicUrl, { Accept: 'image/png,*/*' }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.deepEqual(imageInfo(body), { format: 'png', width: 300, height: 150 });
    assert.notEqual(res.headers.get('etag'), webpETag, 'each variant has its own ETag');

    // Revalidation answers 304 without rendering again.
    ({ res } = await get(data.publicUrl, { Accept: 'image/webp', 'If-None-Match': webpETag }));
    assert.equal(res.status, 304);
  });

  test('format origin, resize modes and aspect ratio', async () => {
    const url = (transform) => anon.storage.from(pub).getPublicUrl('photos/house.png', { transform }).data.publicUrl;
    const cases = [
      [{ width: 200, format: 'origin' }, { format: 'png', width: 200, height: 133 }],
      [{ width: 100, height: 100, resize: 'contain', format: 'origin' }, { format: 'png', width: 100, height: 67 }],
      [{ width: 100, height: 100, resize: 'fill', format: 'origin' }, { format: 'png', width: 100, height: 100 }],
      [{ width: 100, height: 100, resize: 'cover', format: 'origin' }, { format: 'png', width: 100, height: 100 }],
      [{ height: 5000, format: 'origin' }, { format: 'png', width: 600, height: 400 }], // never enlarged
    ];
    for (const [transform, want] of cases) {
      const { res, body } = await get(url(transform), { Accept: 'image/webp' });
      assert.equal(res.status, 200, `${JSON.stringify(transform)}: ${body}`);
      assert.deepEqual(imageInfo(body), want, JSON.stringify(transform));
    }
  });

  test('createSignedUrl with a transform signs a render URL whose token carries the transform', async () => {
    const { data, error } = await service.storage.from(priv).createSignedUrl('photos/house.png', 60, {
      transform: { width: 120, height: 120, resize: 'contain', quality: 60 },
    });
    assert.equal(error, null);
    assert.match(data.signedUrl, /\/storage\/v1\/render\/image\/sign\/render-private\/photos\/house\.png\?token=/);
    const token = new URL(data.signedUrl).searchParams.get('token');
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    assert.equal(claims.url, `${priv}/photos/house.png`);
    assert.equal(claims.transformations, 'height:120,width:120,resize:contain,quality:60');

    let { res, body } = await get(data.signedUrl, { Accept: 'image/webp' });
    assert.equal(res.status, 200, body.toString());
    assert.deepEqual(imageInfo(body), { format: 'webp', width: 120, height: 80 });
    assert.ok(res.headers.get('expires'), 'a signed render answers with the token expiry');

    // The query cannot change what the token allows.
    ({ res, body } = await get(`${data.signedUrl}&width=600`, { Accept: 'image/png' }));
    assert.deepEqual(imageInfo(body), { format: 'png', width: 120, height: 80 });

    // A token for another object is refused.
    const other = data.signedUrl.replace('photos/house.png', 'photos/other.png');
    ({ res, body } = await get(other));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(body).code, 'InvalidSignature');

    // Without a transform the signed URL is the plain download.
    const plain = await service.storage.from(priv).createSignedUrl('photos/house.png', 60);
    assert.match(plain.data.signedUrl, /\/storage\/v1\/object\/sign\//);
  });

  test('download with a transform goes through /render/image/authenticated', async () => {
    const { data, error } = await service.storage.from(priv).download('photos/house.png', { transform: { width: 90, format: 'origin' } });
    assert.equal(error, null);
    const body = Buffer.from(await data.arrayBuffer());
    assert.deepEqual(imageInfo(body), { format: 'png', width: 90, height: 60 });

    // anon cannot read the private object (RLS), transformed or not.
    const denied = await anon.storage.from(priv).download('photos/house.png', { transform: { width: 90 } });
    assert.ok(denied.error);
    assert.equal(denied.data, null);
  });

  test('bad options get the validation error Supabase Storage answers', async () => {
    const base = `${stack.url}/storage/v1/render/image/public/${pub}/photos/house.png`;
    const cases = [
      ['width=abc', 'querystring/width must be integer'],
      ['height=-3', 'querystring/height must be >= 0'],
      ['quality=5', 'querystring/quality must be >= 20'],
      ['quality=101', 'querystring/quality must be <= 100'],
      ['resize=stretch', 'querystring/resize must be equal to one of the allowed values'],
      ['format=png', 'querystring/format must be equal to one of the allowed values'],
    ];
    for (const [q, message] of cases) {
      const { res, body } = await get(`${base}?${q}`);
      assert.equal(res.status, 400, q);
      const err = JSON.parse(body);
      assert.equal(err.statusCode, '400', q);
      assert.equal(err.message, message, q);
    }
    const { error } = await service.storage.from(priv).createSignedUrl('photos/house.png', 60, { transform: { quality: 5 } });
    assert.equal(error?.message, 'body/transform/quality must be >= 20');
  });

  test('a non-image, a missing object and a private bucket are refused', async () => {
    let { res, body } = await get(anon.storage.from(pub).getPublicUrl('notes.txt', { transform: { width: 50 } }).data.publicUrl);
    assert.equal(res.status, 400);
    let err = JSON.parse(body);
    assert.equal(err.statusCode, '422');
    assert.equal(err.code, 'InvalidRequest');

    ({ res, body } = await get(anon.storage.from(pub).getPublicUrl('photos/none.png', { transform: { width: 50 } }).data.publicUrl));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(body).code, 'NoSuchKey');

    ({ res, body } = await get(anon.storage.from(priv).getPublicUrl('photos/house.png', { transform: { width: 50 } }).data.publicUrl));
    assert.equal(res.status, 400);
    err = JSON.parse(body);
    assert.equal(err.code, 'NoSuchBucket');
  });
});
