// Storage through the gateway with the official supabase-js client, run
// twice: on the local-disk backend and on a real S3 server (MinIO, built
// from the Go module proxy and started here). Callers: anon, two users
// (alice, bob), an admin user and service_role; RLS on storage.objects
// decides what each may do.
//
// The S3 pass hands devstack per-service overrides (harness/minio.mjs
// s3StackEnv: KEJANEST_STORAGE_STORAGE_BACKEND=s3, …) and checks that the
// objects really land in MinIO's data directory.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { startStack } from '../harness/stack.mjs';
import { s3StackEnv, startMinio } from '../harness/minio.mjs';

// A 16×16 JPEG carrying an APP1 Exif segment with GPS text in it.
const EXIF_JPEG = Buffer.from(
  '/9j/4QA4RXhpZgAATU0AKgAAAAhHUFNMYXRpdHVkZT0tMS4yOTIxO0dQU0xvbmdpdHVkZT0zNi44MjE5/9sAhAAGBAUGBQQGBgUGBwcGCAoQCgoJCQoUDg8MEBcUGBgXFBYWGh0lHxobIxwWFiAsICMmJykqKRkfLTAtKDAlKCkoAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAQABADASIAAhEBAxEB/8QBogAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoLEAACAQMDAgQDBQUEBAAAAX0BAgMABBEFEiExQQYTUWEHInEUMoGRoQgjQrHBFVLR8CQzYnKCCQoWFxgZGiUmJygpKjQ1Njc4OTpDREVGR0hJSlNUVVZXWFlaY2RlZmdoaWpzdHV2d3h5eoOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4eLj5OXm5+jp6vHy8/T19vf4+foBAAMBAQEBAQEBAQEAAAAAAAABAgMEBQYHCAkKCxEAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDyrSfDv3fk/Suz0nw7935P0rsdJ8O/d+T9K7PSfDv3fk/Stcdnm+ocK8R/Dqf/2Q==',
  'base64',
);

/** A PNG of w×h RGB pixels; declared overrides the IHDR size (absurd images). */
function png(w, h, declared = { w, h }) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(declared.w, 0);
  ihdr.writeUInt32BE(declared.h, 4);
  ihdr[8] = 8; ihdr[9] = 2; // 8-bit RGB
  const rows = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) { row[1 + x * 3] = x * 40; row[2 + x * 3] = y * 40; row[3 + x * 3] = 200; }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('tEXt', Buffer.from('Comment\0secret location', 'latin1')),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An HTTP request whose path is sent exactly as given (fetch would resolve %2E%2E). */
function rawRequest(method, url, headers, body) {
  const u = new URL(url.replace(/\/object\/.*$/, ''));
  const path = url.slice(u.origin.length);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** An HS256 user token signed with the stack's secret. */
function mint(secret, sub, extra = {}) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'HS256', typ: 'JWT' });
  const body = b64url({ sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600, ...extra });
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Asserts a supabase-js storage error: its statusCode (from the body) and code. */
function assertError(error, statusCode, code, message) {
  assert.ok(error, `expected a ${statusCode} ${code} error`);
  assert.equal(error.statusCode, statusCode, `statusCode of ${JSON.stringify(error)}`);
  if (code) assert.equal(error.code, code, `code of ${JSON.stringify(error)}`);
  if (message) assert.match(error.message, message instanceof RegExp ? message : new RegExp(message));
}

/** Asserts a raw storage response: HTTP 400 (or 500) with the envelope. */
async function assertEnvelope(res, statusCode, code) {
  assert.equal(res.status, Number(statusCode) >= 500 ? Number(statusCode) : 400);
  const body = await res.json();
  assert.equal(body.statusCode, statusCode);
  assert.equal(body.code, code);
  assert.equal(typeof body.message, 'string');
  assert.equal(typeof body.error, 'string');
  return body;
}

/** The [width, height] in a PNG's IHDR. */
const pngSize = (bytes) => [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];

/** The exact body of Supabase Storage's RLS refusal (ERRORS.AccessDenied). */
const RLS_DENIED = {
  statusCode: '403', code: 'AccessDenied', error: 'Unauthorized', message: 'new row violates row-level security policy',
};

const backends = ['file', 's3'];

for (const backend of backends) {
  describe(`storage on the ${backend} backend`, () => {
    let stack, minio, fixtureDir;
    let anon, service, alice, bob, admin, broken;
    const aliceId = randomUUID();
    const bobId = randomUUID();
    const adminId = randomUUID();
    // The admin's token carries a session that passed /admin/login's access
    // code: admin reads ask for it (migration 0043), as on the app.
    const adminSession = randomUUID();
    const docs = `docs-${backend}`;
    const other = `other-${backend}`;

    before(async () => {
      fixtureDir = mkdtempSync(join(tmpdir(), 'kejanest-storage-test-'));
      const fixture = join(fixtureDir, 'users.sql');
      writeFileSync(fixture, `
        insert into auth.users (id, email) values
          ('${aliceId}', 'alice@example.test'), ('${bobId}', 'bob@example.test'), ('${adminId}', 'admin@example.test');
        insert into public.user_roles (user_id, role) values ('${adminId}', 'admin')
          on conflict (user_id) do update set role = 'admin';
        insert into auth.sessions (id, user_id, created_at, updated_at, aal) values ('${adminSession}', '${adminId}', now(), now(), 'aal1');
        insert into app_private.admin_sessions (session_id, user_id) values ('${adminSession}', '${adminId}');
      `);
      const env = {};
      if (backend === 's3') {
        minio = await startMinio();
        Object.assign(env, s3StackEnv(minio));
      }
      stack = await startStack({ env, sql: [fixture] });
      const userClient = (sub) => stack.client(stack.anonKey, {
        global: { headers: { Authorization: `Bearer ${token(sub)}` } },
      });
      anon = stack.client();
      service = stack.client(stack.serviceRoleKey);
      alice = userClient(aliceId);
      bob = userClient(bobId);
      admin = userClient(adminId);
      broken = stack.client(stack.anonKey, { global: { headers: { Authorization: 'Bearer not.a.jwt' } } });
    });

    after(async () => {
      await stack?.stop();
      await minio?.stop();
      if (fixtureDir) rmSync(fixtureDir, { recursive: true, force: true });
    });

    const storageUrl = () => `${stack.url}/storage/v1`;
    /** The headers supabase-js sends for a signed-in user, for raw fetches. */
    const userHeaders = (sub) => ({ apikey: stack.anonKey, Authorization: `Bearer ${token(sub)}` });
    /** A user's token; the admin's carries its verified session. */
    function token(sub) {
      return mint(stack.jwtSecret, sub, sub === adminId ? { session_id: adminSession } : {});
    }

    describe('buckets', () => {
      test('service_role creates, reads, updates and lists buckets', async () => {
        let { data, error } = await service.storage.createBucket(docs, { public: false });
        assert.equal(error, null);
        assert.deepEqual(data, { name: docs });
        ({ error } = await service.storage.createBucket(other, { public: true, fileSizeLimit: '1MB' }));
        assert.equal(error, null);

        ({ data, error } = await service.storage.getBucket(other));
        assert.equal(error, null);
        assert.equal(data.id, other);
        assert.equal(data.public, true);
        assert.equal(data.file_size_limit, 1_000_000); // Supabase's units are decimal

        ({ data, error } = await service.storage.updateBucket(other, { public: true, fileSizeLimit: 64, allowedMimeTypes: ['text/*'] }));
        assert.equal(error, null);
        assert.deepEqual(data, { message: 'Successfully updated' });
        ({ data } = await service.storage.getBucket(other));
        assert.equal(data.file_size_limit, 64);
        assert.deepEqual(data.allowed_mime_types, ['text/*']);

        ({ data, error } = await service.storage.listBuckets());
        assert.equal(error, null);
        const ids = data.map((b) => b.id);
        for (const id of ['avatars', 'images', 'kyc', docs, other]) assert.ok(ids.includes(id), `${id} listed`);
        const avatars = data.find((b) => b.id === 'avatars');
        assert.equal(avatars.public, true);
        assert.equal(avatars.file_size_limit, 2 * 1024 * 1024);
        assert.deepEqual(avatars.allowed_mime_types, ['image/jpeg', 'image/png', 'image/gif']);
        assert.equal(data.find((b) => b.id === 'kyc').public, false);
      });

      test('a taken bucket id is a 409 BucketAlreadyExists', async () => {
        const { error } = await service.storage.createBucket(docs);
        assertError(error, '409', 'BucketAlreadyExists', 'The resource already exists');
      });

      test('users and anon may not create buckets, and see none (no bucket policies)', async () => {
        for (const client of [alice, anon]) {
          const { error } = await client.storage.createBucket(`nope-${randomUUID().slice(0, 8)}`);
          assertError(error, '403', 'AccessDenied', 'row-level security');
        }
        const { data, error } = await alice.storage.listBuckets();
        assert.equal(error, null);
        assert.deepEqual(data, []);
        const missing = await alice.storage.getBucket('avatars');
        assertError(missing.error, '404', 'NoSuchBucket', 'Bucket not found');
      });

      test('invalid bucket names and a bad JWT are refused', async () => {
        let { error } = await service.storage.createBucket('a/b');
        assertError(error, '400', 'InvalidBucketName', 'Bucket name invalid');
        ({ error } = await broken.storage.listBuckets());
        assertError(error, '403', 'AccessDenied'); // Supabase: ERRORS.AccessDenied(jose's message)
      });
    });

    describe('uploads', () => {
      test('service_role uploads raw and multipart bodies; the wire answer is {Id, Key}', async () => {
        const raw = await service.storage.from(docs).upload('notes/raw.txt', 'hello raw world', { contentType: 'text/plain' });
        assert.equal(raw.error, null);
        assert.equal(raw.data.path, 'notes/raw.txt');
        assert.equal(raw.data.fullPath, `${docs}/notes/raw.txt`);
        assert.match(raw.data.id, /^[0-9a-f-]{36}$/);

        const blob = new Blob(['hello multipart'], { type: 'text/markdown' });
        const mp = await service.storage.from(docs).upload('notes/form.md', blob, { cacheControl: '120', metadata: { tag: 'x' } });
        assert.equal(mp.error, null);
        const info = await service.storage.from(docs).info('notes/form.md');
        assert.equal(info.error, null);
        assert.equal(info.data.size, 15);
        assert.equal(info.data.contentType, 'text/markdown');
        assert.equal(info.data.cacheControl, 'max-age=120');
        assert.deepEqual(info.data.metadata, { tag: 'x' });
        assert.match(info.data.etag, /^"[0-9a-f]{32}"$/);
      });

      test('without x-upsert an existing name is a 409; with it (and with update) it is overwritten', async () => {
        let { error } = await service.storage.from(docs).upload('notes/raw.txt', 'again');
        assertError(error, '409', 'KeyAlreadyExists', 'The resource already exists');
        ({ error } = await service.storage.from(docs).upload('notes/raw.txt', 'second version', { upsert: true }));
        assert.equal(error, null);
        let { data } = await service.storage.from(docs).download('notes/raw.txt');
        assert.equal(await data.text(), 'second version');
        ({ error } = await service.storage.from(docs).update('notes/raw.txt', 'third version'));
        assert.equal(error, null);
        ({ data } = await service.storage.from(docs).download('notes/raw.txt'));
        assert.equal(await data.text(), 'third version');
      });

      test('size limits: the bucket limit and 413 semantics', async () => {
        let { error } = await service.storage.from(other).upload('small.txt', 'x'.repeat(64), { contentType: 'text/plain' });
        assert.equal(error, null);
        ({ error } = await service.storage.from(other).upload('big.txt', 'x'.repeat(65), { contentType: 'text/plain' }));
        assertError(error, '413', 'EntityTooLarge', 'The object exceeded the maximum allowed size');
        ({ error } = await service.storage.from(other).upload('big.txt', new Blob(['y'.repeat(100)], { type: 'text/plain' })));
        assertError(error, '413', 'EntityTooLarge', 'The object exceeded the maximum allowed size');
        const gone = await service.storage.from(other).info('big.txt');
        assertError(gone.error, '404', 'NoSuchKey');
      });

      test('MIME rules: the allowed list (wildcards) and the sniffed bytes', async () => {
        let { error } = await service.storage.from(other).upload('x.json', '{}', { contentType: 'application/json' });
        assertError(error, '415', 'InvalidMimeType', 'mime type application/json is not supported');
        ({ error } = await service.storage.from('images').upload('fake.png', new Blob(['not a png at all'], { type: 'image/png' })));
        assertError(error, '415', 'InvalidMimeType', 'mime type image/png is not supported');
      });

      test('object names are validated (traversal, empty segments, characters)', async () => {
        // supabase-js (and URL parsing) would normalise these away; send them raw.
        for (const name of ['a/%2E%2E/b.txt', 'a/..%2Fb.txt', 'a//b.txt', 'tab%09here.txt', '%7Bcurly%7D.txt', 'a/%2e%2e%2f%2e%2e%2fetc']) {
          const res = await rawRequest('POST', `${storageUrl()}/object/${docs}/${name}`,
            { Authorization: `Bearer ${stack.serviceRoleKey}`, 'Content-Type': 'text/plain' }, 'x');
          assert.equal(res.status, 400, name);
          const body = JSON.parse(res.body);
          assert.equal(body.statusCode, '400', name);
          assert.equal(body.code, 'InvalidKey', name);
          assert.match(body.message, /^Invalid key: /, name);
        }
        const { error } = await service.storage.from(docs).upload('ok/(name) with spaces & more!.txt', 'x');
        assert.equal(error, null);
      });

      test('a missing bucket is a 404 NoSuchBucket', async () => {
        const { error } = await service.storage.from('no-such-bucket').upload('a.txt', 'x');
        assertError(error, '404', 'NoSuchBucket', 'Bucket not found');
      });

      test('large uploads stream through the gateway intact', async () => {
        const big = Buffer.alloc(5 * 1024 * 1024 + 123);
        for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
        const { error } = await service.storage.from(docs).upload('big/blob.bin', new Blob([big], { type: 'application/octet-stream' }));
        assert.equal(error, null);
        const { data } = await service.storage.from(docs).download('big/blob.bin');
        assert.ok(Buffer.from(await data.arrayBuffer()).equals(big));
      });

      if (backend === 's3') {
        test('the bytes are in MinIO', () => {
          const dir = join(minio.dataDir, minio.bucket, docs);
          assert.ok(existsSync(dir), `${dir} exists (did devstack pass the KEJANEST_STORAGE_* overrides to storage?)`);
          assert.ok(readdirSync(join(dir, 'notes')).includes('raw.txt'));
        });
      }
    });

    describe('avatars (app flow)', () => {
      const avatar = () => new File([png(4, 4)], 'me.png', { type: 'image/png' });

      test('a user uploads their own avatar with upsert, twice', async () => {
        for (let i = 0; i < 2; i++) {
          const { data, error } = await alice.storage.from('avatars').upload(aliceId, avatar(), { upsert: true, contentType: 'image/png' });
          assert.equal(error, null);
          assert.equal(data.fullPath, `avatars/${aliceId}`);
        }
      });

      test("another user cannot write it; anon cannot upload", async () => {
        let { error } = await bob.storage.from('avatars').upload(aliceId, avatar(), { upsert: true });
        assertError(error, '403', 'AccessDenied', 'new row violates row-level security policy');
        ({ error } = await bob.storage.from('avatars').upload(aliceId, avatar()));
        assertError(error, '403', 'AccessDenied', 'new row violates row-level security policy');
        ({ error } = await anon.storage.from('avatars').upload(randomUUID(), avatar()));
        assertError(error, '403', 'AccessDenied');
      });

      test('avatars: 2 MB and JPG/PNG/GIF only', async () => {
        const huge = Buffer.concat([png(4, 4), Buffer.alloc(2 * 1024 * 1024)]);
        let { error } = await alice.storage.from('avatars').upload(aliceId, new File([huge], 'big.png', { type: 'image/png' }), { upsert: true });
        assertError(error, '413', 'EntityTooLarge', 'The object exceeded the maximum allowed size');
        ({ error } = await alice.storage.from('avatars').upload(aliceId, new File(['hi'], 'a.txt', { type: 'text/plain' }), { upsert: true }));
        assertError(error, '415', 'InvalidMimeType', 'mime type text/plain is not supported');
      });

      test('the public URL answers a header-less GET and the HEAD cache-buster check', async () => {
        const { data } = anon.storage.from('avatars').getPublicUrl(aliceId);
        assert.equal(data.publicUrl, `${stack.url}/storage/v1/object/public/avatars/${aliceId}`);
        const get = await fetch(data.publicUrl);
        assert.equal(get.status, 200);
        assert.equal(get.headers.get('content-type'), 'image/png');
        const bytes = Buffer.from(await get.arrayBuffer());
        assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
        assert.ok(!bytes.includes(Buffer.from('secret location')), 'PNG text chunks are stripped');

        const head = await fetch(`${data.publicUrl}?t=${Date.now()}`, { method: 'HEAD', headers: { Origin: 'http://app.example.test' } });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('content-type'), 'image/png');
        assert.equal(Number(head.headers.get('content-length')), bytes.length);
        assert.match(head.headers.get('etag'), /^"[0-9a-f]{32}"$/);
        assert.ok(head.headers.get('access-control-allow-origin'));

        const missing = await fetch(`${stack.url}/storage/v1/object/public/avatars/${bobId}?t=${Date.now()}`, { method: 'HEAD' });
        assert.equal(missing.status, 400);
      });
    });

    describe('images and photos', () => {
      test('uploaded JPEG photos lose their EXIF (location) data', async () => {
        const path = `${aliceId}/photo.jpg`;
        const { error } = await alice.storage.from('images').upload(path, new File([EXIF_JPEG], 'photo.jpg', { type: 'image/jpeg' }));
        assert.equal(error, null);
        const res = await fetch(anon.storage.from('images').getPublicUrl(path).data.publicUrl);
        assert.equal(res.status, 200);
        const bytes = Buffer.from(await res.arrayBuffer());
        assert.equal(bytes[0], 0xff);
        assert.equal(bytes[1], 0xd8);
        assert.ok(EXIF_JPEG.includes(Buffer.from('GPSLatitude')), 'the fixture carries GPS text');
        assert.ok(!bytes.includes(Buffer.from('Exif')), 'no Exif segment');
        assert.ok(!bytes.includes(Buffer.from('GPSLatitude')), 'no GPS data');
      });

      test('info() and exists() on the public images bucket, for anon, another user and the owner', async () => {
        const path = `${aliceId}/photo.jpg`;
        const stored = Buffer.from(await (await fetch(anon.storage.from('images').getPublicUrl(path).data.publicUrl)).arrayBuffer());
        let first;
        for (const [who, client] of [['anon', anon], ['bob', bob], ['alice', alice]]) {
          const { data, error } = await client.storage.from('images').info(path);
          assert.equal(error, null, who);
          assert.match(data.id, /^[0-9a-f-]{36}$/, who);
          assert.equal(data.name, path, who);
          assert.equal(data.bucketId, 'images', who);
          assert.equal(data.size, stored.length, `${who}: size of the stored (re-encoded) bytes`);
          assert.equal(data.contentType, 'image/jpeg', who);
          assert.equal(data.cacheControl, 'max-age=3600', who);
          assert.match(data.etag, /^"[0-9a-f]{32}"$/, who);
          assert.equal(typeof data.version, 'string', who);
          assert.deepEqual(data.metadata, {}, who); // Supabase: user metadata or {}
          assert.ok(Date.parse(data.lastModified) && Date.parse(data.createdAt), who);
          first ??= data;
          assert.deepEqual(data, first, `${who} sees what anon sees`);

          const yes = await client.storage.from('images').exists(path);
          assert.deepEqual(yes, { data: true, error: null }, who);
          const no = await client.storage.from('images').exists(`${aliceId}/no-such-photo.jpg`);
          assert.equal(no.data, false, who);
          assertError(no.error, '404', 'NoSuchKey', '^Object not found$');
          assert.equal(no.error.status, 400, `${who}: HTTP status of the refusal`);
        }
        // The public info route answers the same object with no headers at all.
        const res = await fetch(`${storageUrl()}/object/info/public/images/${path}`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type'), /^application\/json/);
        const pub = await res.json();
        assert.deepEqual(
          { id: pub.id, name: pub.name, bucketId: pub.bucket_id, size: pub.size, contentType: pub.content_type, cacheControl: pub.cache_control, etag: pub.etag, version: pub.version, metadata: pub.metadata },
          { id: first.id, name: path, bucketId: 'images', size: stored.length, contentType: 'image/jpeg', cacheControl: 'max-age=3600', etag: first.etag, version: first.version, metadata: {} },
        );
      });

      test('absurd declared dimensions are refused before decoding', async () => {
        const bomb = png(1, 1, { w: 100000, h: 100000 });
        const { error } = await alice.storage.from('images').upload(`${aliceId}/bomb.png`, new File([bomb], 'bomb.png', { type: 'image/png' }));
        assertError(error, '422', 'InvalidRequest', /exceed/);
      });

      test('owners change their images; others cannot; anon can read', async () => {
        let { data, error } = await bob.storage.from('images').remove([`${aliceId}/photo.jpg`]);
        assert.equal(error, null);
        assert.deepEqual(data, []);
        ({ error } = await bob.storage.from('images').move(`${aliceId}/photo.jpg`, `${bobId}/stolen.jpg`));
        assertError(error, '404', 'NoSuchKey');
        ({ data, error } = await anon.storage.from('images').list(aliceId));
        assert.equal(error, null);
        assert.deepEqual(data.map((e) => e.name), ['photo.jpg']);
        ({ error } = await alice.storage.from('images').move(`${aliceId}/photo.jpg`, `${aliceId}/renamed.jpg`));
        assert.equal(error, null);
        ({ data } = await anon.storage.from('images').list(aliceId));
        assert.deepEqual(data.map((e) => e.name), ['renamed.jpg']);
      });

      test('update() (PUT) as the owner replaces the object in place; other users and anon are refused by RLS', async () => {
        const path = `${aliceId}/cover.png`;
        const url = anon.storage.from('images').getPublicUrl(path).data.publicUrl;
        const size = async () => pngSize(Buffer.from(await (await fetch(`${url}?t=${Date.now()}`)).arrayBuffer()));
        const created = await alice.storage.from('images').upload(path, new File([png(2, 2)], 'c.png', { type: 'image/png' }));
        assert.equal(created.error, null);

        // Multipart (a File) and a raw body, as storage-js sends each.
        let { data, error } = await alice.storage.from('images').update(path, new File([png(5, 3)], 'c.png', { type: 'image/png' }));
        assert.equal(error, null);
        assert.deepEqual(data, { path, id: created.data.id, fullPath: `images/${path}` }, 'same object, same id');
        assert.deepEqual(await size(), [5, 3]);
        ({ data, error } = await alice.storage.from('images').update(path, png(4, 4), { contentType: 'image/png' }));
        assert.equal(error, null);
        assert.equal(data.id, created.data.id);
        assert.deepEqual(await size(), [4, 4]);
        const before = (await anon.storage.from('images').info(path)).data;

        for (const [who, client] of [['bob', bob], ['anon', anon]]) {
          for (const body of [new File([png(7, 7)], 'x.png', { type: 'image/png' }), png(7, 7)]) {
            ({ data, error } = await client.storage.from('images').update(path, body, { contentType: 'image/png' }));
            assert.equal(data, null, who);
            assertError(error, '403', 'AccessDenied', `^${RLS_DENIED.message}$`);
            assert.equal(error.status, 400, `${who}: HTTP status of the refusal`);
          }
        }
        // The wire answer, exactly.
        const res = await fetch(`${storageUrl()}/object/images/${path}`, {
          method: 'PUT', headers: { ...userHeaders(bobId), 'content-type': 'image/png' }, body: png(7, 7),
        });
        assert.equal(res.status, 400);
        assert.deepEqual(await res.json(), RLS_DENIED);
        // Bob may not update Alice's avatar either (avatars: name = auth.uid()).
        ({ error } = await bob.storage.from('avatars').update(aliceId, new File([png(4, 4)], 'a.png', { type: 'image/png' })));
        assertError(error, '403', 'AccessDenied', `^${RLS_DENIED.message}$`);

        assert.deepEqual(await size(), [4, 4], 'the refused updates changed nothing');
        assert.deepEqual((await anon.storage.from('images').info(path)).data, before);
      });
    });

    describe('kyc (private)', () => {
      const doc = () => new File([png(2, 2)], 'id.png', { type: 'image/png' });

      test('the owner uploads into their folder only', async () => {
        let { error } = await alice.storage.from('kyc').upload(`${aliceId}/id-front.png`, doc());
        assert.equal(error, null);
        ({ error } = await alice.storage.from('kyc').upload(`${bobId}/id-front.png`, doc()));
        assertError(error, '403', 'AccessDenied');
      });

      test('the owner and admins read; other users and anon do not', async () => {
        for (const [who, client] of [['alice', alice], ['admin', admin]]) {
          const { data, error } = await client.storage.from('kyc').download(`${aliceId}/id-front.png`);
          assert.equal(error, null, who);
          assert.ok(data.size > 0, who);
        }
        for (const [who, client] of [['bob', bob], ['anon', anon]]) {
          const { error } = await client.storage.from('kyc').download(`${aliceId}/id-front.png`);
          assert.ok(error, `${who} is refused`);
          const info = await client.storage.from('kyc').info(`${aliceId}/id-front.png`);
          assertError(info.error, '404', 'NoSuchKey', 'Object not found');
          const list = await client.storage.from('kyc').list(aliceId);
          assert.deepEqual(list.data, [], who);
          const sign = await client.storage.from('kyc').createSignedUrl(`${aliceId}/id-front.png`, 60);
          assertError(sign.error, '404', 'NoSuchKey');
        }
        const pub = await fetch(`${storageUrl()}/object/public/kyc/${aliceId}/id-front.png`);
        await assertEnvelope(pub, '404', 'NoSuchBucket');
        const admins = await admin.storage.from('kyc').list(aliceId);
        assert.deepEqual(admins.data.map((e) => e.name), ['id-front.png']);
      });

      test('exists() is true for the owner and false for others', async () => {
        assert.equal((await alice.storage.from('kyc').exists(`${aliceId}/id-front.png`)).data, true);
        assert.equal((await bob.storage.from('kyc').exists(`${aliceId}/id-front.png`)).data, false);
      });

      test('HEAD /object/authenticated: the headers for readers, an empty 400 for users RLS denies', async () => {
        const path = `${aliceId}/id-front.png`;
        const { data: info } = await alice.storage.from('kyc').info(path);
        const bytes = Buffer.from(await (await alice.storage.from('kyc').download(path)).data.arrayBuffer());
        assert.equal(info.size, bytes.length);
        for (const route of ['authenticated/kyc', 'kyc']) {
          for (const [who, sub] of [['alice', aliceId], ['admin', adminId]]) {
            const res = await fetch(`${storageUrl()}/object/${route}/${path}`, { method: 'HEAD', headers: userHeaders(sub) });
            assert.equal(res.status, 200, `${who} ${route}`);
            assert.equal(res.headers.get('content-type'), 'image/png', `${who} ${route}`);
            assert.equal(res.headers.get('content-length'), String(bytes.length), `${who} ${route}`);
            assert.equal(res.headers.get('etag'), info.etag, `${who} ${route}`);
            assert.equal(res.headers.get('cache-control'), 'max-age=3600', `${who} ${route}`);
            assert.equal(res.headers.get('accept-ranges'), 'bytes', `${who} ${route}`);
            assert.equal(new Date(res.headers.get('last-modified')).toUTCString(), res.headers.get('last-modified'), `${who} ${route}`);
            assert.equal(await res.text(), '', `${who} ${route}: no body`);
          }
          for (const [who, headers] of [['bob', userHeaders(bobId)], ['anon', { apikey: stack.anonKey }]]) {
            const res = await fetch(`${storageUrl()}/object/${route}/${path}`, { method: 'HEAD', headers });
            assert.equal(res.status, 400, `${who} ${route}`);
            assert.equal(res.headers.get('etag'), null, `${who} ${route}: nothing about the object`);
            assert.equal(await res.text(), '', `${who} ${route}: no body on HEAD`);
            // The GET beside it carries the envelope the HEAD leaves out.
            const get = await fetch(`${storageUrl()}/object/${route}/${path}`, { headers });
            const err = await assertEnvelope(get, '404', 'NoSuchKey');
            assert.equal(err.message, 'Object not found');
          }
        }
        const missing = await fetch(`${storageUrl()}/object/authenticated/kyc/${aliceId}/nothing.png`, { method: 'HEAD', headers: userHeaders(aliceId) });
        assert.equal(missing.status, 400);
      });

      test('info() as the owner; exists() is false for a missing object and throws for a missing bucket', async () => {
        const path = `${aliceId}/id-front.png`;
        const { data, error } = await alice.storage.from('kyc').info(path);
        assert.equal(error, null);
        assert.equal(data.name, path);
        assert.equal(data.bucketId, 'kyc');
        assert.equal(data.contentType, 'image/png');
        assert.equal(data.cacheControl, 'max-age=3600');
        assert.deepEqual(data.metadata, {});
        assert.ok(data.size > 0);
        const admins = await admin.storage.from('kyc').info(path);
        assert.deepEqual(admins.data, data);
        const no = await alice.storage.from('kyc').exists(`${aliceId}/id-back.png`);
        assert.equal(no.data, false);
        assertError(no.error, '404', 'NoSuchKey', '^Object not found$');
        // A missing bucket is not a missing object: info() answers
        // NoSuchBucket, and exists() throws it rather than answering false.
        const gone = await alice.storage.from('no-such-bucket').info('a.png');
        assertError(gone.error, '404', 'NoSuchBucket', '^Bucket not found$');
        await assert.rejects(alice.storage.from('no-such-bucket').exists('a.png'), (e) => e.code === 'NoSuchBucket' && e.statusCode === '404');
      });

      test("another user's update() (PUT) of a private object is refused by RLS and changes nothing", async () => {
        const path = `${aliceId}/id-front.png`;
        const before = (await alice.storage.from('kyc').info(path)).data;
        for (const body of [new File([png(6, 6)], 'x.png', { type: 'image/png' }), png(6, 6)]) {
          const { data, error } = await bob.storage.from('kyc').update(path, body, { contentType: 'image/png' });
          assert.equal(data, null);
          assertError(error, '403', 'AccessDenied', `^${RLS_DENIED.message}$`);
        }
        assert.deepEqual((await alice.storage.from('kyc').info(path)).data, before);
        const { data } = await alice.storage.from('kyc').download(path);
        assert.deepEqual(pngSize(Buffer.from(await data.arrayBuffer())), [2, 2]);
      });
    });

    describe('downloads', () => {
      const body = 'abcdefghijklmnopqrstuvwxyz';
      before(async () => {
        const { error } = await service.storage.from(other).upload('alphabet.txt', body, { contentType: 'text/plain' });
        assert.equal(error, null);
      });
      const url = () => `${storageUrl()}/object/public/${other}/alphabet.txt`;

      test('public GET with no headers: type, length, ETag, Last-Modified, Cache-Control', async () => {
        const res = await fetch(url());
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/plain');
        assert.equal(res.headers.get('content-length'), '26');
        assert.equal(res.headers.get('cache-control'), 'max-age=3600');
        assert.ok(Date.parse(res.headers.get('last-modified')));
        assert.match(res.headers.get('etag'), /^"[0-9a-f]{32}"$/);
        assert.equal(await res.text(), body);
      });

      test('Range requests', async () => {
        let res = await fetch(url(), { headers: { Range: 'bytes=2-5' } });
        assert.equal(res.status, 206);
        assert.equal(res.headers.get('content-range'), 'bytes 2-5/26');
        assert.equal(await res.text(), 'cdef');
        res = await fetch(url(), { headers: { Range: 'bytes=-3' } });
        assert.equal(res.status, 206);
        assert.equal(await res.text(), 'xyz');
        res = await fetch(url(), { headers: { Range: 'bytes=20-' } });
        assert.equal(await res.text(), 'uvwxyz');
        res = await fetch(url(), { headers: { Range: 'bytes=99-' } });
        await assertEnvelope(res, '400', 'InvalidRange');
      });

      test('If-None-Match answers 304; ?download sets an attachment', async () => {
        const etag = (await fetch(url(), { method: 'HEAD' })).headers.get('etag');
        let res = await fetch(url(), { headers: { 'If-None-Match': etag } });
        assert.equal(res.status, 304);
        res = await fetch(`${url()}?download`);
        assert.equal(res.headers.get('content-disposition'), 'attachment; filename="alphabet.txt"');
        res = await fetch(`${url()}?download=letters.txt`);
        assert.equal(res.headers.get('content-disposition'), 'attachment; filename="letters.txt"');
      });

      test('/object/info/public needs no headers; private buckets, missing buckets and objects are refused', async () => {
        const head = await fetch(url(), { method: 'HEAD' });
        let res = await fetch(`${storageUrl()}/object/info/public/${other}/alphabet.txt`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type'), /^application\/json/);
        const info = await res.json();
        assert.match(info.id, /^[0-9a-f-]{36}$/);
        assert.equal(typeof info.version, 'string');
        assert.ok(Date.parse(info.last_modified) && Date.parse(info.created_at));
        assert.deepEqual(
          { name: info.name, bucket_id: info.bucket_id, size: info.size, content_type: info.content_type, cache_control: info.cache_control, etag: info.etag, metadata: info.metadata },
          { name: 'alphabet.txt', bucket_id: other, size: 26, content_type: 'text/plain', cache_control: 'max-age=3600', etag: head.headers.get('etag'), metadata: {} },
        );
        const served = await service.storage.from(other).info('alphabet.txt');
        assert.equal(served.data.id, info.id);

        res = await fetch(`${storageUrl()}/object/info/public/${other}/no-such.txt`);
        assert.equal((await assertEnvelope(res, '404', 'NoSuchKey')).message, 'Object not found');
        for (const target of [`kyc/${aliceId}/id-front.png`, `${docs}/notes/form.md`, 'no-such-bucket/a.txt']) {
          res = await fetch(`${storageUrl()}/object/info/public/${target}`);
          assert.equal((await assertEnvelope(res, '404', 'NoSuchBucket')).message, 'Bucket not found', target);
        }
        // Even the owner's token does not open a private bucket's public route.
        res = await fetch(`${storageUrl()}/object/info/public/kyc/${aliceId}/id-front.png`, { headers: userHeaders(aliceId) });
        await assertEnvelope(res, '404', 'NoSuchBucket');
        // Like the public download, the public info route ignores a bad token.
        res = await fetch(`${storageUrl()}/object/info/public/${other}/alphabet.txt`, { headers: { Authorization: 'Bearer not.a.jwt' } });
        assert.equal(res.status, 200);
        assert.equal((await res.json()).id, info.id);
      });

      test('authenticated and plain routes run as the caller', async () => {
        let res = await fetch(`${storageUrl()}/object/authenticated/${docs}/notes/form.md`, { headers: { Authorization: `Bearer ${stack.serviceRoleKey}` } });
        assert.equal(res.status, 200);
        assert.equal(await res.text(), 'hello multipart');
        res = await fetch(`${storageUrl()}/object/authenticated/${docs}/notes/form.md`, { headers: { apikey: stack.anonKey } });
        await assertEnvelope(res, '404', 'NoSuchKey');
        const { error } = await alice.storage.from(docs).download('notes/form.md');
        assertError(error, '404', 'NoSuchKey');
      });
    });

    describe('signed URLs', () => {
      test('a signed download URL works without auth, for that object only', async () => {
        const { data, error } = await service.storage.from(docs).createSignedUrl('notes/form.md', 60);
        assert.equal(error, null);
        assert.match(data.signedUrl, new RegExp(`/storage/v1/object/sign/${docs}/notes/form.md\\?token=`));
        let res = await fetch(data.signedUrl);
        assert.equal(res.status, 200);
        assert.equal(await res.text(), 'hello multipart');
        const token = new URL(data.signedUrl).searchParams.get('token');
        res = await fetch(`${storageUrl()}/object/sign/${docs}/notes/raw.txt?token=${token}`);
        await assertEnvelope(res, '400', 'InvalidSignature');
      });

      test('signed URLs expire', async () => {
        const { data } = await service.storage.from(docs).createSignedUrl('notes/form.md', 1);
        await new Promise((r) => setTimeout(r, 2100));
        const res = await fetch(data.signedUrl);
        const err = await assertEnvelope(res, '400', 'InvalidJWT');
        assert.equal(err.message, 'jwt expired');
      });

      test('batch signing answers per path', async () => {
        const { data, error } = await service.storage.from(docs).createSignedUrls(['notes/form.md', 'notes/missing.md'], 60);
        assert.equal(error, null);
        assert.equal(data.length, 2);
        assert.equal(data[0].error, null);
        assert.equal((await fetch(data[0].signedUrl)).status, 200);
        assert.equal(data[1].signedUrl, null);
        assert.ok(data[1].error);
      });

      test('a signed upload URL uploads once', async () => {
        const path = `${aliceId}/selfie.png`;
        const { data, error } = await alice.storage.from('kyc').createSignedUploadUrl(path);
        assert.equal(error, null);
        assert.ok(data.token);
        const up = await anon.storage.from('kyc').uploadToSignedUrl(path, data.token, new File([png(3, 3)], 's.png', { type: 'image/png' }));
        assert.equal(up.error, null);
        assert.equal(up.data.fullPath, `kyc/${path}`);
        const again = await anon.storage.from('kyc').uploadToSignedUrl(path, data.token, new File([png(3, 3)], 's.png', { type: 'image/png' }));
        assertError(again.error, '400', 'InvalidJWT', 'already been used');
        const owned = await alice.storage.from('kyc').info(path);
        assert.equal(owned.error, null);
        const denied = await bob.storage.from('kyc').createSignedUploadUrl(path);
        assertError(denied.error, '403', 'AccessDenied');
      });
    });

    describe('listing', () => {
      before(async () => {
        for (const n of ['p/a.txt', 'p/b.txt', 'p/c.txt', 'p/d.txt', 'p/e.txt', 'p/sub/x.txt', 'p/sub/y.txt', 'q/z.txt']) {
          const { error } = await service.storage.from(docs).upload(n, n, { contentType: 'text/plain' });
          assert.equal(error, null);
        }
      });

      test('v1: one level, folders with null id, limit/offset, sortBy, search', async () => {
        let { data, error } = await service.storage.from(docs).list('p', { limit: 3, offset: 0, sortBy: { column: 'name', order: 'asc' } });
        assert.equal(error, null);
        assert.deepEqual(data.map((e) => e.name), ['a.txt', 'b.txt', 'c.txt']);
        assert.equal(data[0].metadata.size, 7);
        ({ data } = await service.storage.from(docs).list('p', { limit: 3, offset: 3 }));
        assert.deepEqual(data.map((e) => e.name), ['d.txt', 'e.txt', 'sub']);
        const folder = data.find((e) => e.name === 'sub');
        assert.equal(folder.id, null);
        assert.equal(folder.metadata, null);
        ({ data } = await service.storage.from(docs).list('p', { sortBy: { column: 'name', order: 'desc' }, limit: 2 }));
        assert.deepEqual(data.map((e) => e.name), ['sub', 'e.txt']);
        ({ data } = await service.storage.from(docs).list('p', { search: 'd' }));
        assert.deepEqual(data.map((e) => e.name), ['d.txt']);
        ({ data } = await service.storage.from(docs).list());
        for (const n of ['big', 'notes', 'p', 'q']) assert.ok(data.some((e) => e.name === n), n);
      });

      test('v2: cursor pagination and delimiter folders', async () => {
        let { data, error } = await service.storage.from(docs).listV2({ prefix: 'p/', limit: 4 });
        assert.equal(error, null);
        assert.equal(data.hasNext, true);
        assert.deepEqual(data.objects.map((o) => o.key), ['p/a.txt', 'p/b.txt', 'p/c.txt', 'p/d.txt']);
        ({ data } = await service.storage.from(docs).listV2({ prefix: 'p/', limit: 4, cursor: data.nextCursor }));
        assert.equal(data.hasNext, false);
        assert.deepEqual(data.objects.map((o) => o.key), ['p/e.txt', 'p/sub/x.txt', 'p/sub/y.txt']);
        ({ data } = await service.storage.from(docs).listV2({ prefix: 'p/', with_delimiter: true }));
        assert.deepEqual(data.folders.map((f) => f.key), ['p/sub/']);
        assert.deepEqual(data.objects.map((o) => o.key), ['p/a.txt', 'p/b.txt', 'p/c.txt', 'p/d.txt', 'p/e.txt']);
      });
    });

    describe('move, copy, delete', () => {
      test('move within and across buckets', async () => {
        let { data, error } = await service.storage.from(docs).move('q/z.txt', 'q/moved.txt');
        assert.equal(error, null);
        assert.equal(data.message, 'Successfully moved');
        assertError((await service.storage.from(docs).info('q/z.txt')).error, '404', 'NoSuchKey');
        ({ data } = await service.storage.from(docs).download('q/moved.txt'));
        assert.equal(await data.text(), 'q/z.txt');
        ({ error } = await service.storage.from(docs).move('q/moved.txt', 'p/a.txt'));
        assertError(error, '409', 'KeyAlreadyExists');
        ({ error } = await service.storage.from(docs).move('q/moved.txt', 'q-elsewhere.txt', { destinationBucket: other }));
        assert.equal(error, null);
        ({ data } = await service.storage.from(other).download('q-elsewhere.txt'));
        assert.equal(await data.text(), 'q/z.txt');
      });

      test('copy within and across buckets', async () => {
        let { data, error } = await service.storage.from(docs).copy('p/a.txt', 'copies/a.txt');
        assert.equal(error, null);
        assert.equal(data.path, `${docs}/copies/a.txt`);
        ({ error } = await service.storage.from(docs).copy('p/b.txt', 'b-copy.txt', { destinationBucket: other }));
        assert.equal(error, null);
        ({ data } = await service.storage.from(other).download('b-copy.txt'));
        assert.equal(await data.text(), 'p/b.txt');
        ({ error } = await service.storage.from(docs).copy('p/b.txt', 'copies/a.txt'));
        assertError(error, '409', 'KeyAlreadyExists');
        ({ error } = await bob.storage.from('images').copy(`${aliceId}/renamed.jpg`, `${bobId}/mine.jpg`));
        assert.equal(error, null, 'bob may copy a public image into his folder');
        ({ error } = await bob.storage.from('kyc').copy(`${aliceId}/id-front.png`, `${bobId}/id-front.png`));
        assertError(error, '404', 'NoSuchKey');
      });

      test('delete many returns what was deleted', async () => {
        let { data, error } = await service.storage.from(docs).remove(['copies/a.txt', 'p/e.txt', 'never/there.txt']);
        assert.equal(error, null);
        assert.deepEqual(data.map((o) => o.name).sort(), ['copies/a.txt', 'p/e.txt']);
        ({ data } = await service.storage.from(docs).remove(['copies/a.txt']));
        assert.deepEqual(data, []);
        assertError((await service.storage.from(docs).download('p/e.txt')).error, '404', 'NoSuchKey');
      });
    });

    describe('emptying and deleting buckets', () => {
      test('a non-empty bucket cannot be deleted; emptied, it can', async () => {
        let { error } = await service.storage.deleteBucket(other);
        assertError(error, '409', 'ResourceNotEmpty', 'The bucket you tried to delete is not empty');
        let data;
        ({ data, error } = await alice.storage.emptyBucket(other));
        assertError(error, '404', 'NoSuchBucket');
        ({ data, error } = await service.storage.emptyBucket(other));
        assert.equal(error, null);
        assert.match(data.message, /^Empty bucket has been queued/);
        ({ data, error } = await service.storage.deleteBucket(other));
        assert.equal(error, null);
        assert.deepEqual(data, { message: 'Successfully deleted' });
        ({ error } = await service.storage.getBucket(other));
        assertError(error, '404', 'NoSuchBucket');
      });
    });
  });
}
