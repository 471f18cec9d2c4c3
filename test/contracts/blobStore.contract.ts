/**
 * The behaviour every BlobStore adapter must have. An adapter's test file calls `blobStoreContract` with a
 * factory that gives a new, empty store for each test, and a cleanup that disposes of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BlobStore } from '../../src/ports/blobStore';
import { isSafeBlobKey } from '../../src/ports/blobStore';

interface Context {
  blobs: BlobStore;
  cleanup(): Promise<void>;
}

const bytesOf = async (stream: Readable | null): Promise<Buffer | null> => {
  if (!stream) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

const listed = async (blobs: BlobStore) => {
  const found: { key: string; size: number }[] = [];
  for await (const blob of blobs.list()) found.push({ key: blob.key, size: blob.size });
  return found.sort((a, b) => a.key.localeCompare(b.key));
};

export function blobStoreContract(name: string, open: () => Promise<Context>): void {
  const test = suite<{ ctx?: Context; dir?: string }>(`BlobStore contract: ${name}`);
  test.before.each(async (state) => {
    state.ctx = await open();
    state.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-blob-sources-'));
  });
  test.after.each(async (state) => {
    await state.ctx?.cleanup();
    if (state.dir) fs.rmSync(state.dir, { recursive: true, force: true });
  });
  /** A file on disk with these bytes, as an upload the HTTP edge streamed. */
  const fileOf = (dir: string, data: Buffer) => {
    const file = path.join(dir, `source-${randomBytes(4).toString('hex')}`);
    fs.writeFileSync(file, data);
    return { path: file, size: data.length };
  };

  test('a new blob is stored and read back byte for byte', async ({ ctx }) => {
    const data = Buffer.from([0, 1, 2, 255, 10, 13]);
    assert.is(await ctx!.blobs.putNew('2024/05/a.bin', data), true);
    assert.ok((await ctx!.blobs.get('2024/05/a.bin'))!.equals(data));
    assert.is(await ctx!.blobs.has('2024/05/a.bin'), true);
  });

  test('a file on disk is streamed in and read back byte for byte', async ({ ctx, dir }) => {
    // Over 5 MiB: an S3 store sends it in parts.
    const data = randomBytes(5 * 1024 * 1024 + 12_345);
    assert.is(await ctx!.blobs.putNew('2024/05/big.bin', fileOf(dir!, data)), true);
    assert.ok((await ctx!.blobs.get('2024/05/big.bin'))!.equals(data));
    assert.is((await ctx!.blobs.stat('2024/05/big.bin'))!.size, data.length);
  });

  test('putNew never overwrites: the first writer keeps the name', async ({ ctx, dir }) => {
    assert.is(await ctx!.blobs.putNew('x/name.txt', Buffer.from('first')), true);
    assert.is(await ctx!.blobs.putNew('x/name.txt', Buffer.from('second')), false);
    assert.is(await ctx!.blobs.putNew('x/name.txt', fileOf(dir!, Buffer.from('third'))), false);
    assert.is((await ctx!.blobs.get('x/name.txt'))!.toString(), 'first');
  });

  test('concurrent writers of one name: exactly one wins, and its bytes are stored', async ({ ctx, dir }) => {
    const bodies = Array.from({ length: 8 }, (_, i) =>
      i % 2 ? Buffer.from(`writer ${i}`) : fileOf(dir!, Buffer.from(`writer ${i}`)),
    );
    const results = await Promise.all(bodies.map((body) => ctx!.blobs.putNew('race/file.txt', body)));
    assert.is(results.filter(Boolean).length, 1);
    assert.is((await ctx!.blobs.get('race/file.txt'))!.toString(), `writer ${results.indexOf(true)}`);
  });

  test('a missing blob is null, and deleting it is harmless', async ({ ctx }) => {
    assert.is(await ctx!.blobs.get('none/here.jpg'), null);
    assert.is(await ctx!.blobs.has('none/here.jpg'), false);
    assert.is(await ctx!.blobs.stat('none/here.jpg'), null);
    assert.is(await ctx!.blobs.read('none/here.jpg'), null);
    await ctx!.blobs.delete('none/here.jpg');
  });

  test('delete removes a blob and frees its name', async ({ ctx }) => {
    await ctx!.blobs.putNew('d/e.txt', Buffer.from('one'));
    await ctx!.blobs.delete('d/e.txt');
    assert.is(await ctx!.blobs.get('d/e.txt'), null);
    assert.is(await ctx!.blobs.putNew('d/e.txt', Buffer.from('two')), true);
  });

  test('stat gives the size, a quoted validator and the time of writing', async ({ ctx }) => {
    const before = Date.now();
    await ctx!.blobs.putNew('s/t.txt', Buffer.from('twelve bytes'));
    const info = (await ctx!.blobs.stat('s/t.txt'))!;
    assert.is(info.size, 12);
    assert.match(info.etag, /^"[^"]+"$/);
    // Stores keep seconds only; allow for that and for a clock a little apart.
    assert.ok(Math.abs(info.lastModified.getTime() - before) < 60_000, info.lastModified.toISOString());
    assert.equal(await ctx!.blobs.stat('s/t.txt'), info, 'the same blob has the same validator');
  });

  test('read streams the whole blob, or an inclusive range of it', async ({ ctx }) => {
    const data = Buffer.from('0123456789abcdef');
    await ctx!.blobs.putNew('r/s.bin', data);
    assert.ok((await bytesOf(await ctx!.blobs.read('r/s.bin')))!.equals(data));
    assert.is((await bytesOf(await ctx!.blobs.read('r/s.bin', { range: { start: 3, end: 7 } })))!.toString(), '34567');
    assert.is((await bytesOf(await ctx!.blobs.read('r/s.bin', { range: { start: 15, end: 15 } })))!.toString(), 'f');
  });

  test('read with the validator of an earlier blob of the name finds nothing', async ({ ctx }) => {
    await ctx!.blobs.putNew('v/w.txt', Buffer.from('the first one'));
    const first = (await ctx!.blobs.stat('v/w.txt'))!;
    assert.is((await bytesOf(await ctx!.blobs.read('v/w.txt', { etag: first.etag })))!.toString(), 'the first one');
    await ctx!.blobs.delete('v/w.txt');
    await ctx!.blobs.putNew('v/w.txt', Buffer.from('another, longer one'));
    const second = (await ctx!.blobs.stat('v/w.txt'))!;
    assert.is.not(second.etag, first.etag);
    assert.is(await ctx!.blobs.read('v/w.txt', { etag: first.etag }), null);
  });

  test('list gives every blob with its size, in any folder', async ({ ctx }) => {
    assert.equal(await listed(ctx!.blobs), []);
    await ctx!.blobs.putNew('2024/05/a.jpg', Buffer.from('aa'));
    await ctx!.blobs.putNew('2024/06/b.jpg', Buffer.from('bbb'));
    await ctx!.blobs.putNew('c.txt', Buffer.from('c'));
    assert.equal(await listed(ctx!.blobs), [
      { key: '2024/05/a.jpg', size: 2 },
      { key: '2024/06/b.jpg', size: 3 },
      { key: 'c.txt', size: 1 },
    ]);
    await ctx!.blobs.delete('2024/06/b.jpg');
    assert.equal(
      (await listed(ctx!.blobs)).map((blob) => blob.key),
      ['2024/05/a.jpg', 'c.txt'],
    );
  });

  test('a key that could leave the store is refused on write and never found on read', async ({ ctx }) => {
    for (const key of [
      '../escape.txt',
      '2024/../../etc/passwd',
      '/etc/passwd',
      'a//b',
      'a/./b',
      '.hidden',
      'a\\b',
      'a/b\u0000c',
      '',
    ]) {
      assert.is(isSafeBlobKey(key), false, key);
      let refused = false;
      try {
        await ctx!.blobs.putNew(key, Buffer.from('x'));
      } catch {
        refused = true;
      }
      assert.ok(refused, `putNew accepted ${JSON.stringify(key)}`);
      assert.is(await ctx!.blobs.get(key), null);
      assert.is(await ctx!.blobs.has(key), false);
      assert.is(await ctx!.blobs.stat(key), null);
      assert.is(await ctx!.blobs.read(key), null);
    }
  });

  test.run();
}
