/** An attachment's file work refuses in domain terms: a type not taken, no free name, an image that cannot be edited. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryBlobStore } from '../../src/adapters/memory/blobStore';
import { DomainError } from '../../src/core/errors';
import { applyModifiers, fileTypeNotAllowed, storeUnique } from '../../src/resources/media/files';
import { loadSharp } from '../../src/resources/media/sharp';

const test = suite('media files: refusals');

const MAX_PIXELS = 10_000_000;

/** The refusal a promise rejects with, its fields as the REST edge reads them. */
async function refusalOf(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, DomainError);
    return { ...(error as unknown as Record<string, unknown>), code: (error as DomainError).code };
  }
  return assert.unreachable('expected a refusal') as never;
}

async function pngOf(width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 10, b: 10 } } })
    .png()
    .toBuffer();
}

test('a file type not taken carries the way it was uploaded', () => {
  const byForm = fileTypeNotAllowed(true);
  assert.equal(
    [byForm.code, byForm.subject, byForm.fields, byForm.rule],
    ['invalid_value', 'attachment', ['file'], 'unsupportedType'],
  );
  assert.equal(byForm.details, { upload: 'form' });
  assert.equal(fileTypeNotAllowed(false).details, { upload: 'body' });
});

test('given every name in the folder taken, storing a file refuses: an attachment file of that name exists', async () => {
  const taken = { ...createMemoryBlobStore(), putNew: async () => false };
  const refusal = await refusalOf(storeUnique(taken, '2026/01', 'photo.jpg', Buffer.from('x')));
  assert.equal(
    [refusal.code, refusal.subject, refusal.by, refusal.details],
    ['already_exists', 'attachmentFile', 'name', { value: 'photo.jpg' }],
  );
});

test('given a free name, the file is stored under it, the next one under a numbered name', async () => {
  const blobs = createMemoryBlobStore();
  assert.is(await storeUnique(blobs, '2026/01', 'photo.jpg', Buffer.from('a')), '2026/01/photo.jpg');
  assert.is(await storeUnique(blobs, '2026/01', 'photo.jpg', Buffer.from('b')), '2026/01/photo-1.jpg');
});

test('given bytes that are no image, editing refuses: the image cannot be loaded', async () => {
  const refusal = await refusalOf(applyModifiers(Buffer.from('not an image'), 'image/png', [], MAX_PIXELS));
  assert.equal([refusal.code, refusal.subject, refusal.step], ['cannot_process', 'attachment', 'load']);
});

test('given an image over the pixel limit, editing refuses as for one that cannot be loaded', async () => {
  const refusal = await refusalOf(applyModifiers(await pngOf(40, 40), 'image/png', [], 100));
  assert.equal([refusal.code, refusal.step], ['cannot_process', 'load']);
});

test('given a crop outside the image, editing refuses: the crop cannot be made', async () => {
  const outside = { type: 'crop' as const, args: { left: 100, top: 0, width: 50, height: 50 } };
  const refusal = await refusalOf(applyModifiers(await pngOf(40, 20), 'image/png', [outside], MAX_PIXELS));
  assert.equal([refusal.code, refusal.subject, refusal.step], ['cannot_process', 'attachment', 'crop']);
  const inside = { type: 'crop' as const, args: { left: 0, top: 0, width: 50, height: 50 } };
  const cropped = await (await loadSharp())(
    await applyModifiers(await pngOf(40, 20), 'image/png', [inside], MAX_PIXELS),
  ).metadata();
  assert.equal([cropped.width, cropped.height], [20, 10]);
});

test.run();
