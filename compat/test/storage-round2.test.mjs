// Storage, round 2, through the gateway with supabase-js and raw fetches:
// info() and HEAD info, bucket timestamps and size strings, copy metadata,
// /version and /status, Supabase's error bodies for bad tokens, and a
// resumable (TUS 1.0.0) upload whose connection drops mid-chunk and which
// resumes from the offset the server reports.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { startStack } from '../harness/stack.mjs';

const b64url = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
function mint(secret, sub, extra = {}) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'HS256', typ: 'JWT' });
  const body = b64url({ sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600, ...extra });
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}
const b64 = (s) => Buffer.from(s).toString('base64');

describe('storage round 2', () => {
  let stack, service, serviceHeaders;
  const bucket = `r2-${randomUUID().slice(0, 8)}`;

  before(async () => {
    stack = await startStack();
    service = stack.client(stack.serviceRoleKey);
    serviceHeaders = { apikey: stack.serviceRoleKey, Authorization: `Bearer ${stack.serviceRoleKey}` };
    const { error } = await service.storage.createBucket(bucket, { public: false, fileSizeLimit: '20mb' });
    assert.equal(error, null);
  });
  after(async () => {
    await stack?.stop();
  });
  const storageUrl = () => `${stack.url}/storage/v1`;

  test('bucket size strings are decimal and timestamps print milliseconds', async () => {
    const { data, error } = await service.storage.getBucket(bucket);
    assert.equal(error, null);
    assert.equal(data.file_size_limit, 20_000_000);
    assert.match(data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(data.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    for (const [size, want] of [['30mb', 30_000_000], ['100kb', 100_000], ['1.5MB', 1_500_000]]) {
      const { error: e } = await service.storage.updateBucket(bucket, { public: false, fileSizeLimit: size });
      assert.equal(e, null, size);
      const { data: b } = await service.storage.getBucket(bucket);
      assert.equal(b.file_size_limit, want, size);
    }
    for (const size of ['20 mb', '2tb', '77']) {
      const res = await fetch(`${storageUrl()}/bucket/${bucket}`, {
        method: 'PUT', headers: { ...serviceHeaders, 'Content-Type': 'application/json' }, body: JSON.stringify({ public: false, file_size_limit: size }),
      });
      const body = await res.json();
      assert.equal(res.status, 400, size);
      assert.equal(body.code, 'InvalidRequest', size);
      assert.match(body.message, /Invalid file size format/, size);
    }
    await service.storage.updateBucket(bucket, { public: false, fileSizeLimit: '20mb' });
  });

  test('info() answers metadata {} and HEAD info answers without a body', async () => {
    const { error } = await service.storage.from(bucket).upload('info/plain.txt', 'hello', { contentType: 'text/plain' });
    assert.equal(error, null);
    const { data, error: e } = await service.storage.from(bucket).info('info/plain.txt');
    assert.equal(e, null);
    assert.deepEqual(data.metadata, {});
    assert.equal(data.size, 5);
    const head = await fetch(`${storageUrl()}/object/info/${bucket}/info/plain.txt`, { method: 'HEAD', headers: serviceHeaders });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const { data: exists } = await service.storage.from(bucket).exists('info/plain.txt');
    assert.equal(exists, true);
  });

  test('copy carries metadata, or overrides it with copyMetadata false', async () => {
    const from = service.storage.from(bucket);
    let { error } = await from.upload('copy/src.txt', 'copy me', { contentType: 'text/plain', cacheControl: '60', metadata: { owner: 'wanjiru' } });
    assert.equal(error, null);
    ({ error } = await from.copy('copy/src.txt', 'copy/kept.txt'));
    assert.equal(error, null);
    let { data } = await from.info('copy/kept.txt');
    assert.deepEqual(data.metadata, { owner: 'wanjiru' });
    assert.equal(data.cacheControl, 'max-age=60');
    ({ error } = await from.copy('copy/src.txt', 'copy/new.txt', { copyMetadata: false, metadata: { cacheControl: 'max-age=30' } }));
    assert.equal(error, null);
    ({ data } = await from.info('copy/new.txt'));
    assert.deepEqual(data.metadata, {}); // user metadata is not copied
    assert.equal(data.cacheControl, 'max-age=30');
    assert.equal(data.contentType, 'text/plain'); // unspecified fields keep the source's
    ({ error } = await from.move('copy/kept.txt', 'copy/moved.txt'));
    assert.equal(error, null);
    ({ data } = await from.info('copy/moved.txt'));
    assert.deepEqual(data.metadata, { owner: 'wanjiru' });
  });

  test('/version and /status', async () => {
    const v = await fetch(`${storageUrl()}/version`);
    assert.equal(v.status, 200);
    assert.ok((await v.text()).length > 0);
    const s = await fetch(`${storageUrl()}/status`);
    assert.equal(s.status, 200);
  });

  test('a malformed, forged or expired token gets AccessDenied as Supabase answers it', async () => {
    const cases = [
      ['not.a.jwt', 'Invalid Compact JWS'],
      [mint('x'.repeat(40), randomUUID()), 'signature verification failed'],
      [mint(stack.jwtSecret, randomUUID(), { exp: Math.floor(Date.now() / 1000) - 60 }), '"exp" claim timestamp check failed'],
    ];
    for (const [token, message] of cases) {
      const res = await fetch(`${storageUrl()}/bucket`, { headers: { apikey: stack.anonKey, Authorization: `Bearer ${token}` } });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { statusCode: '403', code: 'AccessDenied', error: 'Unauthorized', message });
    }
  });

  test('listV2 pages through each sortBy, both orders, flat and with folders', async () => {
    const from = service.storage.from(bucket);
    // Uploaded in this order, so created_at runs c, a, sub/x, b, d; then a
    // is rewritten, so updated_at runs c, sub/x, b, d, a.
    for (const name of ['c.txt', 'a.txt', 'sub/x.txt', 'b.txt', 'd.txt']) {
      const { error } = await from.upload(`sorted/${name}`, name, { contentType: 'text/plain' });
      assert.equal(error, null, name);
      await new Promise((r) => setTimeout(r, 5));
    }
    const { error: ue } = await from.update('sorted/a.txt', 'rewritten', { contentType: 'text/plain' });
    assert.equal(ue, null);

    // limit 1 with folders: folders and objects come in separate arrays, so
    // one item a page keeps their interleaving visible.
    const walk = async (opts, limit) => {
      const keys = [];
      let cursor;
      for (let page = 0; page < 20; page++) {
        const { data, error } = await from.listV2({ prefix: 'sorted/', limit, cursor, ...opts });
        assert.equal(error, null);
        keys.push(...data.folders.map((f) => f.key), ...data.objects.map((o) => o.key));
        if (!data.hasNext) return keys;
        assert.equal(typeof data.nextCursor, 'string');
        cursor = data.nextCursor;
      }
      assert.fail('paging did not end');
    };
    const p = (names) => names.map((n) => `sorted/${n}`);
    const cases = [
      ['name', false, p(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'sub/x.txt'])],
      ['created_at', false, p(['c.txt', 'a.txt', 'sub/x.txt', 'b.txt', 'd.txt'])],
      ['updated_at', false, p(['c.txt', 'sub/x.txt', 'b.txt', 'd.txt', 'a.txt'])],
      ['name', true, p(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'sub/'])],
      // A folder sorts by the earliest created_at below it.
      ['created_at', true, p(['c.txt', 'a.txt', 'sub/', 'b.txt', 'd.txt'])],
      ['updated_at', true, p(['c.txt', 'sub/', 'b.txt', 'd.txt', 'a.txt'])],
    ];
    for (const [column, delimiter, asc] of cases) {
      for (const order of ['asc', 'desc']) {
        const want = order === 'asc' ? asc : [...asc].reverse();
        for (const limit of delimiter ? [1] : [1, 2, 3]) {
          const got = await walk({ sortBy: { column, order }, with_delimiter: delimiter }, limit);
          assert.deepEqual(got, want, `${column} ${order} delimiter=${delimiter} limit=${limit}`);
        }
      }
    }

    // The cursor carries its sort: a next request asking for another one
    // still continues the walk it came from, as Supabase does.
    const first = await from.listV2({ prefix: 'sorted/', limit: 2, sortBy: { column: 'created_at', order: 'desc' } });
    assert.deepEqual(first.data.objects.map((o) => o.key), p(['d.txt', 'b.txt']));
    const next = await from.listV2({ prefix: 'sorted/', limit: 2, cursor: first.data.nextCursor, sortBy: { column: 'name', order: 'asc' } });
    assert.deepEqual(next.data.objects.map((o) => o.key), p(['sub/x.txt', 'a.txt']));

    const bad = await from.listV2({ sortBy: { column: 'size' } });
    assert.equal(bad.error?.message, 'body/sortBy/column must be equal to one of the allowed values');
    const badCursor = await from.listV2({ cursor: 'sorted/a.txt' });
    assert.equal(badCursor.error?.message, 'Invalid continuation token');
  });

  describe('resumable uploads (TUS)', () => {
    const userId = randomUUID();
    let userHeaders;
    before(async () => {
      userHeaders = { apikey: stack.anonKey, Authorization: `Bearer ${mint(stack.jwtSecret, userId)}` };
    });
    const tus = (h = {}) => ({ 'Tus-Resumable': '1.0.0', ...h });
    const metadata = (name, extra = '') =>
      `bucketName ${b64(bucket)},objectName ${b64(name)},contentType ${b64('application/octet-stream')},cacheControl ${b64('3600')}${extra}`;

    test('OPTIONS advertises the protocol', async () => {
      const res = await fetch(`${storageUrl()}/upload/resumable`, { method: 'OPTIONS' });
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('tus-version'), '1.0.0');
      assert.match(res.headers.get('tus-extension'), /creation/);
    });

    test('RLS decides who may create an upload', async () => {
      // No policy lets a user write this bucket.
      const res = await fetch(`${storageUrl()}/upload/resumable`, {
        method: 'POST', headers: { ...userHeaders, ...tus({ 'Upload-Length': '3', 'Upload-Metadata': metadata('denied.bin') }) },
      });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).code, 'AccessDenied');
    });

    test('a chunk cut by a dropped connection resumes from the server offset', async () => {
      const data = randomBytes(3 * 1024 * 1024 + 11);
      const create = await fetch(`${storageUrl()}/upload/resumable`, {
        method: 'POST',
        headers: { ...serviceHeaders, ...tus({ 'Upload-Length': String(data.length), 'Upload-Metadata': metadata('big/photo.bin', `,metadata ${b64('{"room":"2"}')}`) }) },
      });
      assert.equal(create.status, 201, await create.text());
      const location = create.headers.get('location');
      assert.ok(location.startsWith(`${stack.url}/storage/v1/upload/resumable/`), location);

      // Send the whole chunk's length but only 1 MiB of it, then drop.
      const sent = 1024 * 1024;
      await new Promise((resolve) => {
        const u = new URL(location);
        const req = request({
          host: u.hostname, port: u.port, path: u.pathname, method: 'PATCH',
          headers: { ...serviceHeaders, ...tus({ 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'Content-Length': String(data.length) }) },
        });
        req.on('error', () => resolve());
        req.on('response', () => resolve());
        req.write(data.subarray(0, sent), () => setTimeout(() => { req.destroy(); resolve(); }, 500));
      });

      // The server keeps what arrived: poll until its offset settles.
      let offset = -1;
      for (let i = 0; i < 50; i++) {
        const head = await fetch(location, { method: 'HEAD', headers: { ...serviceHeaders, ...tus() } });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('upload-length'), String(data.length));
        const now = Number(head.headers.get('upload-offset'));
        if (now > 0 && now === offset) break;
        offset = now;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(offset > 0 && offset <= sent, `offset ${offset} after sending ${sent}`);

      // A stale offset is refused; the rest from the server's offset finishes.
      const stale = await fetch(location, {
        method: 'PATCH', headers: { ...serviceHeaders, ...tus({ 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }) }, body: data,
      });
      assert.equal(stale.status, 409);
      const rest = await fetch(location, {
        method: 'PATCH',
        headers: { ...serviceHeaders, ...tus({ 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }) },
        body: data.subarray(offset),
      });
      assert.equal(rest.status, 204, await rest.text());
      assert.equal(rest.headers.get('upload-offset'), String(data.length));

      const { data: blob, error } = await service.storage.from(bucket).download('big/photo.bin');
      assert.equal(error, null);
      assert.ok(Buffer.from(await blob.arrayBuffer()).equals(data), 'the object is the uploaded bytes');
      const { data: info } = await service.storage.from(bucket).info('big/photo.bin');
      assert.deepEqual(info.metadata, { room: '2' });

      const gone = await fetch(location, { method: 'HEAD', headers: { ...serviceHeaders, ...tus() } });
      assert.equal(gone.status, 404);
    });

    test('x-upsert, termination and the bucket size limit', async () => {
      const big = await fetch(`${storageUrl()}/upload/resumable`, {
        method: 'POST', headers: { ...serviceHeaders, ...tus({ 'Upload-Length': String(20_000_001), 'Upload-Metadata': metadata('too/big.bin') }) },
      });
      assert.equal(big.status, 413);
      const dup = await fetch(`${storageUrl()}/upload/resumable`, {
        method: 'POST', headers: { ...serviceHeaders, ...tus({ 'Upload-Length': '1', 'Upload-Metadata': metadata('big/photo.bin') }) },
      });
      assert.equal(dup.status, 409);
      const up = await fetch(`${storageUrl()}/upload/resumable`, {
        method: 'POST', headers: { ...serviceHeaders, ...tus({ 'Upload-Length': '1', 'Upload-Metadata': metadata('big/photo.bin'), 'x-upsert': 'true' }) },
      });
      assert.equal(up.status, 201);
      const del = await fetch(up.headers.get('location'), { method: 'DELETE', headers: { ...serviceHeaders, ...tus() } });
      assert.equal(del.status, 204);
    });
  });
});
