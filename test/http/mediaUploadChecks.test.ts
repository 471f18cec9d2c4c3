/**
 * What an upload is checked for before anything is stored, with what WordPress 6.1 answers (measured on the
 * reference): a file that is not the image its name says is refused, one of another image type is renamed to it;
 * an image whose pixels cannot be decoded (a truncated PNG, one over the pixel limit) is stored with its header's
 * dimensions and no sub-sizes; a 2,000-character name is shortened; an image smaller than every size has
 * `sizes: {}`. The uploads folder is listed after each: no file is left that no attachment owns.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createFileBlobStore } from '../../src/adapters/files/blobStore';

const test = suite('media upload checks');
let t: TestSite;
let admin: TestUser;
let root: string;

const upload = (data: Buffer, filename: string, type = 'image/png') =>
  t.request('POST', '/core/v2/media', {
    raw: { data, type },
    as: admin,
    headers: { 'content-disposition': `attachment; filename=${filename}` },
  });

/** Every file under the uploads folder, relative to it. */
function stored(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(path.relative(root, full));
    }
  };
  if (fs.existsSync(root)) walk(root);
  return files.sort();
}

/** A PNG whose header claims `width` × `height`, with one short row of pixel data (what a truncated upload looks like). */
function claimedPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (data: Buffer) => {
    let c = 0xffffffff;
    for (const byte of data) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(width * 3 + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test.before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-uploads-'));
  t = await startTestSite({ blobs: createFileBlobStore(root) });
  admin = await t.createUser('admin', 'administrator');
});
test.after(async () => {
  await t.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('a file that is not an image is refused as WordPress refuses its type, and nothing is stored', async () => {
  const raw = await upload(Buffer.from('not a png'), 'f.png');
  assert.is(raw.status, 400);
  assert.equal(raw.body, {
    code: 'rest_upload_sideload_error',
    message: 'Sorry, you are not allowed to upload this file type.',
    data: { status: 400 },
  });
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('not a png')], { type: 'image/png' }), 'f.png');
  const multipart = await fetch(`${t.url}/core/v2/media`, {
    method: 'POST',
    body: form,
    headers: { authorization: admin.auth },
  });
  assert.is(multipart.status, 400);
  assert.is(((await multipart.json()) as { code: string }).code, 'rest_upload_unknown_error');
  assert.equal(stored(), []);
});

test('an image of another type than its name says is stored under its real type, as WordPress renames it', async () => {
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 1, g: 2, b: 3 } } })
    .png()
    .toBuffer();
  const response = await upload(png, 'disguised.jpg', 'image/jpeg');
  assert.is(response.status, 201);
  assert.is(response.body.mime_type, 'image/png');
  assert.is(response.body.media_details.file, '2024/05/disguised.png');
  await t.request('DELETE', `/core/v2/media/${response.body.id}?force=true`, { as: admin });
  assert.equal(stored(), []);
});

test('a truncated PNG claiming 16000x16000 is stored with its header dimensions and no sub-sizes, and can be deleted', async () => {
  const response = await upload(claimedPng(16000, 16000), 'truncated.png');
  assert.is(response.status, 201, response.text);
  const details = response.body.media_details;
  assert.equal([details.width, details.height, details.sizes], [16000, 16000, {}]);
  assert.equal(response.body.missing_image_sizes.sort(), [
    '1536x1536',
    '2048x2048',
    'large',
    'medium',
    'medium_large',
    'thumbnail',
  ]);
  assert.equal(stored(), ['2024/05/truncated.png']);
  // Asked again, the sizes still cannot be made: the item comes back as it was.
  const again = await t.request('POST', `/core/v2/media/${response.body.id}/post-process`, {
    as: admin,
    body: { action: 'create-image-subsizes' },
  });
  assert.is(again.status, 200);
  assert.equal(again.body.media_details.sizes, {});
  assert.is((await t.request('DELETE', `/core/v2/media/${response.body.id}?force=true`, { as: admin })).status, 200);
  assert.equal(stored(), []);
});

test('a 30000x30000 PNG keeps its dimensions; editing it answers as WordPress does for an image it cannot load', async () => {
  const response = await upload(claimedPng(30000, 30000), 'huge.png');
  assert.is(response.status, 201, response.text);
  assert.equal(
    [response.body.media_details.width, response.body.media_details.height, response.body.media_details.sizes],
    [30000, 30000, {}],
  );
  const edit = await t.request('POST', `/core/v2/media/${response.body.id}/edit`, {
    as: admin,
    body: { src: response.body.source_url, modifiers: [{ type: 'rotate', args: { angle: 90 } }] },
  });
  assert.is(edit.status, 400);
  assert.equal(edit.body, {
    code: 'rest_unknown_image_file_type',
    message: 'Unable to edit this image.',
    data: { status: 400 },
  });
  await t.request('DELETE', `/core/v2/media/${response.body.id}?force=true`, { as: admin });
  assert.equal(stored(), []);
});

test('an image over the pixel limit is not decoded: stored with no sub-sizes', async () => {
  const limited = await startTestSite({ imageMaxPixels: 100 * 100 });
  try {
    const user = await limited.createUser('admin', 'administrator');
    const jpeg = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 9, g: 9, b: 9 } } })
      .jpeg()
      .toBuffer();
    const response = await limited.request('POST', '/core/v2/media', {
      raw: { data: jpeg, type: 'image/jpeg' },
      as: user,
      headers: { 'content-disposition': 'attachment; filename=wide.jpg' },
    });
    assert.is(response.status, 201);
    assert.equal([response.body.media_details.width, response.body.media_details.sizes], [400, {}]);
  } finally {
    await limited.close();
  }
});

test('a 2,000-character file name is shortened, never a 500', async () => {
  const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: { r: 1, g: 2, b: 3 } } })
    .png()
    .toBuffer();
  const response = await upload(png, `${'a'.repeat(2000)}.png`);
  assert.is(response.status, 201, response.text);
  const file = path.basename(response.body.media_details.file);
  assert.is(file, `${'a'.repeat(180)}.png`);
  assert.ok(response.body.slug.length <= 200);
  // A second one of the same name gets the usual suffix, still within the file system's 255 bytes.
  const second = await upload(png, `${'a'.repeat(2000)}.png`);
  assert.is(path.basename(second.body.media_details.file), `${'a'.repeat(180)}-1.png`);
  for (const id of [response.body.id, second.body.id])
    await t.request('DELETE', `/core/v2/media/${id}?force=true`, { as: admin });
  assert.equal(stored(), []);
});

test('an image smaller than every size has sizes {} (no `full`), as WordPress shows it', async () => {
  const tiny = await sharp({ create: { width: 10, height: 10, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .png()
    .toBuffer();
  const response = await upload(tiny, 'tiny.png');
  assert.is(response.status, 201);
  assert.equal(response.body.media_details.sizes, {});
  assert.equal([response.body.media_details.width, response.body.media_details.height], [10, 10]);
  const read = await t.request('GET', `/core/v2/media/${response.body.id}`);
  assert.equal(read.body.media_details.sizes, {});
  await t.request('DELETE', `/core/v2/media/${response.body.id}?force=true`, { as: admin });
});

test.run();
