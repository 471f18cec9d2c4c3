/**
 * Uploaded files served through the app at the site's own URLs, from the local file store and from S3 (s3rver on a
 * loopback port) alike: validators (ETag, Last-Modified), conditional GETs (304), one byte range (206, 416, If-Range),
 * HEAD, and a large file streamed from the store. An upload reaches the store as the file the edge streamed it to.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createFileBlobStore } from '../../src/adapters/files/blobStore';
import { createS3BlobStore } from '../../src/adapters/s3/blobStore';
import type { BlobBody, BlobStore } from '../../src/ports/blobStore';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { startTestS3 } from '../support/s3';

interface Store {
  blobs: BlobStore;
  close(): Promise<void>;
}

/** Every body the store was given, to see how uploads reach it. */
function recording(blobs: BlobStore, bodies: BlobBody[]): BlobStore {
  return {
    ...blobs,
    putNew: (key, body) => {
      bodies.push(body);
      return blobs.putNew(key, body);
    },
  };
}

function servingSuite(name: string, open: () => Promise<Store>): void {
  const test = suite<{ store?: Store; t?: TestSite; admin?: TestUser; bodies: BlobBody[] }>(
    `uploads served from ${name}`,
    { bodies: [] },
  );

  test.before(async (state) => {
    state.store = await open();
    state.t = await startTestSite({ blobs: recording(state.store.blobs, state.bodies) });
    state.admin = await state.t.createUser('admin', 'administrator');
  });
  test.after(async (state) => {
    await state.t?.close();
    await state.store?.close();
  });

  const uploadText = async (t: TestSite, admin: TestUser, data: Buffer, filename: string) => {
    const response = await t.request('POST', '/core/v2/media', {
      as: admin,
      raw: { data, type: 'text/plain' },
      headers: { 'content-disposition': `attachment; filename=${filename}` },
    });
    assert.is(response.status, 201, response.text);
    return new URL(response.body.source_url as string).pathname;
  };

  test('a file is served whole with its validators; HEAD gives the same headers and no body', async ({
    t,
    admin,
    bodies,
  }) => {
    const data = Buffer.from('0123456789abcdefghij');
    const before = bodies.length;
    const file = await uploadText(t!, admin!, data, 'served.txt');
    // The edge streamed the upload to disk; the store was handed that file, not its bytes.
    assert.ok(
      bodies.slice(before).every((body) => !Buffer.isBuffer(body)),
      'an upload reached the store in memory',
    );
    const response = await fetch(`${t!.url}${file}`);
    assert.is(response.status, 200);
    assert.is(await response.text(), data.toString());
    assert.is(response.headers.get('content-type'), 'text/plain');
    assert.is(response.headers.get('content-length'), String(data.length));
    assert.is(response.headers.get('accept-ranges'), 'bytes');
    assert.is(response.headers.get('x-content-type-options'), 'nosniff');
    const etag = response.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    const lastModified = response.headers.get('last-modified')!;
    assert.ok(Math.abs(Date.parse(lastModified) - Date.now()) < 60_000, lastModified);

    const head = await fetch(`${t!.url}${file}`, { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(head.headers.get('content-length'), String(data.length));
    assert.is(head.headers.get('etag'), etag);
    assert.is(head.headers.get('last-modified'), lastModified);
    assert.is(await head.text(), '');
  });

  test('conditional GETs: If-None-Match decides when sent, else If-Modified-Since', async ({ t, admin }) => {
    const file = await uploadText(t!, admin!, Buffer.from('conditional'), 'conditional.txt');
    const first = await fetch(`${t!.url}${file}`);
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    await first.arrayBuffer();
    const get = (headers: Record<string, string>, method = 'GET') => fetch(`${t!.url}${file}`, { method, headers });

    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await get({ 'if-none-match': inm });
      assert.is(response.status, 304, inm);
      assert.is(response.headers.get('etag'), etag);
      assert.is(await response.text(), '');
    }
    assert.is((await get({ 'if-none-match': etag }, 'HEAD')).status, 304);
    const changed = await get({ 'if-none-match': '"not-this-one"' });
    assert.is(changed.status, 200);
    assert.is(await changed.text(), 'conditional');
    // If-None-Match that does not match wins over a date that would.
    assert.is((await get({ 'if-none-match': '"not-this-one"', 'if-modified-since': lastModified })).status, 200);
    assert.is((await get({ 'if-modified-since': lastModified })).status, 304);
    assert.is((await get({ 'if-modified-since': new Date(Date.now() + 3_600_000).toUTCString() })).status, 304);
    const older = await get({ 'if-modified-since': new Date(Date.parse(lastModified) - 1000).toUTCString() });
    assert.is(older.status, 200);
    assert.is((await get({ 'if-modified-since': 'not a date' })).status, 200);
  });

  test('one byte range: 206 with Content-Range; past the end 416; several or malformed ranges get the whole file', async ({
    t,
    admin,
  }) => {
    const data = Buffer.from('0123456789abcdefghij');
    const file = await uploadText(t!, admin!, data, 'ranges.txt');
    const ranged = async (range: string) => {
      const response = await fetch(`${t!.url}${file}`, { headers: { range } });
      return {
        status: response.status,
        body: await response.text(),
        range: response.headers.get('content-range'),
        length: response.headers.get('content-length'),
      };
    };
    assert.equal(await ranged('bytes=0-4'), { status: 206, body: '01234', range: 'bytes 0-4/20', length: '5' });
    assert.equal(await ranged('bytes=15-'), { status: 206, body: 'fghij', range: 'bytes 15-19/20', length: '5' });
    assert.equal(await ranged('bytes=-3'), { status: 206, body: 'hij', range: 'bytes 17-19/20', length: '3' });
    assert.equal(await ranged('bytes=18-1000'), { status: 206, body: 'ij', range: 'bytes 18-19/20', length: '2' });
    assert.equal(await ranged('bytes=-100'), {
      status: 206,
      body: data.toString(),
      range: 'bytes 0-19/20',
      length: '20',
    });
    for (const unsatisfiable of ['bytes=20-', 'bytes=25-30', 'bytes=-0', 'bytes=99999999999999999999-']) {
      const response = await ranged(unsatisfiable);
      assert.is(response.status, 416, unsatisfiable);
      assert.is(response.range, 'bytes */20');
    }
    for (const whole of ['bytes=0-1,4-5', 'bytes=5-2', 'bytes=-', 'items=0-4', 'bytes=a-b', '']) {
      const response = await ranged(whole);
      assert.equal([response.status, response.body, response.range], [200, data.toString(), null], whole);
    }
    const head = await fetch(`${t!.url}${file}`, { method: 'HEAD', headers: { range: 'bytes=0-4' } });
    assert.equal([head.status, head.headers.get('content-length')], [200, '20']);
  });

  test('If-Range: the range while the file is the one named, the whole file otherwise', async ({ t, admin }) => {
    const file = await uploadText(t!, admin!, Buffer.from('0123456789'), 'if-range.txt');
    const first = await fetch(`${t!.url}${file}`, { method: 'HEAD' });
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    const get = async (ifRange: string) => {
      const response = await fetch(`${t!.url}${file}`, { headers: { range: 'bytes=2-3', 'if-range': ifRange } });
      return [response.status, await response.text()];
    };
    assert.equal(await get(etag), [206, '23']);
    assert.equal(await get(lastModified), [206, '23']);
    assert.equal(await get('"an-older-one"'), [200, '0123456789']);
    // A weak validator never matches If-Range.
    assert.equal(await get(`W/${etag}`), [200, '0123456789']);
    assert.equal(await get(new Date(Date.parse(lastModified) - 1000).toUTCString()), [200, '0123456789']);
  });

  test('an image and its sizes are served; a large file is streamed whole and in ranges', async ({ t, admin }) => {
    const sharp = (await import('sharp')).default;
    const png = await sharp({ create: { width: 400, height: 320, channels: 3, background: { r: 10, g: 120, b: 200 } } })
      .png()
      .toBuffer();
    const response = await t!.request('POST', '/core/v2/media', {
      as: admin,
      raw: { data: png, type: 'image/png' },
      headers: { 'content-disposition': 'attachment; filename=served.png' },
    });
    assert.is(response.status, 201, response.text);
    const details = response.body.media_details;
    const original = await fetch(`${t!.url}${new URL(response.body.source_url).pathname}`);
    assert.ok(Buffer.from(await original.arrayBuffer()).equals(png));
    for (const size of ['medium', 'thumbnail']) {
      const served = await fetch(`${t!.url}${new URL(details.sizes[size].source_url).pathname}`);
      assert.is(served.status, 200, size);
      const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
      assert.equal([meta.width, meta.height], [details.sizes[size].width, details.sizes[size].height], size);
    }

    const large = randomBytes(6 * 1024 * 1024 + 7);
    const file = await uploadText(t!, admin!, large, 'large.txt');
    const whole = await fetch(`${t!.url}${file}`);
    assert.is(whole.headers.get('content-length'), String(large.length));
    assert.ok(Buffer.from(await whole.arrayBuffer()).equals(large));
    const tail = await fetch(`${t!.url}${file}`, { headers: { range: `bytes=${large.length - 100}-` } });
    assert.is(tail.status, 206);
    assert.ok(Buffer.from(await tail.arrayBuffer()).equals(large.subarray(large.length - 100)));
  });

  test('unknown files and unsafe paths are 404, never read', async ({ t }) => {
    for (const p of [
      '/wp-content/uploads/2024/05/nothing.txt',
      '/wp-content/uploads/..%2F..%2Fetc%2Fpasswd',
      '/wp-content/uploads/.hidden',
      '/wp-content/uploads/%ZZ',
    ]) {
      const response = await fetch(`${t!.url}${p}`, { headers: { range: 'bytes=0-1', 'if-none-match': '*' } });
      assert.is(response.status, 404, p);
    }
  });

  test.run();
}

servingSuite('local files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-serving-'));
  return {
    blobs: createFileBlobStore(path.join(dir, 'uploads')),
    close: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});

servingSuite('S3', async () => {
  const s3 = await startTestS3();
  return {
    blobs: createS3BlobStore({ client: s3.client(), bucket: s3.bucket, prefix: 'site/' }),
    close: () => s3.close(),
  };
});
