/**
 * The behaviour every BlobStore adapter must have. An adapter's test file calls `blobStoreContract` with a
 * factory that gives a new, empty store for each test, and a cleanup that disposes of it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BlobStore } from '../../src/ports/blobStore';
import { isSafeBlobKey } from '../../src/ports/blobStore';

interface Context {
  blobs: BlobStore;
  cleanup(): Promise<void>;
}

export function blobStoreContract(name: string, open: () => Promise<Context>): void {
  const test = suite<{ ctx?: Context }>(`BlobStore contract: ${name}`);
  test.before.each(async (state) => {
    state.ctx = await open();
  });
  test.after.each(async (state) => {
    await state.ctx?.cleanup();
  });

  test('a new blob is stored and read back byte for byte', async ({ ctx }) => {
    const data = Buffer.from([0, 1, 2, 255, 10, 13]);
    assert.is(await ctx!.blobs.putNew('2024/05/a.bin', data), true);
    assert.ok((await ctx!.blobs.get('2024/05/a.bin'))!.equals(data));
    assert.is(await ctx!.blobs.has('2024/05/a.bin'), true);
  });

  test('putNew never overwrites: the first writer keeps the name', async ({ ctx }) => {
    assert.is(await ctx!.blobs.putNew('x/name.txt', Buffer.from('first')), true);
    assert.is(await ctx!.blobs.putNew('x/name.txt', Buffer.from('second')), false);
    assert.is((await ctx!.blobs.get('x/name.txt'))!.toString(), 'first');
  });

  test('concurrent writers of one name: exactly one wins', async ({ ctx }) => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => ctx!.blobs.putNew('race/file.txt', Buffer.from(String(i)))));
    assert.is(results.filter(Boolean).length, 1);
  });

  test('a missing blob is null, and deleting it is harmless', async ({ ctx }) => {
    assert.is(await ctx!.blobs.get('none/here.jpg'), null);
    assert.is(await ctx!.blobs.has('none/here.jpg'), false);
    await ctx!.blobs.delete('none/here.jpg');
  });

  test('delete removes a blob and frees its name', async ({ ctx }) => {
    await ctx!.blobs.putNew('d/e.txt', Buffer.from('one'));
    await ctx!.blobs.delete('d/e.txt');
    assert.is(await ctx!.blobs.get('d/e.txt'), null);
    assert.is(await ctx!.blobs.putNew('d/e.txt', Buffer.from('two')), true);
  });

  test('a key that could leave the store is refused on write and never found on read', async ({ ctx }) => {
    for (const key of ['../escape.txt', '2024/../../etc/passwd', '/etc/passwd', 'a//b', 'a/./b', '.hidden', 'a\\b', 'a/b\u0000c', '']) {
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
    }
  });

  test.run();
}
