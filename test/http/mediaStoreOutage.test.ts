/**
 * The S3 store out of reach (s3rver stopped): every media request that needs it answers 503 with Retry-After, never
 * 500, and records nothing; what does not need it (the API's reads) goes on; once the store is back, nothing was
 * lost and the refused requests succeed when sent again. Writes that fail part-way remove what they wrote.
 */
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createS3BlobStore } from '../../src/adapters/s3/blobStore';
import { createMemoryBlobStore } from '../../src/adapters/memory/blobStore';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import type { BlobStore } from '../../src/ports/blobStore';
import { DependencyUnavailableError } from '../../src/ports/unavailable';
import type { EventStore } from '../../src/ports/eventStore';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { startTestS3 } from '../support/s3';
import type { TestS3 } from '../support/s3';

const test = suite<{ s3?: TestS3; t?: TestSite; admin?: TestUser }>('media while the S3 store is down');

const jpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 90, g: 40, b: 160 } } })
    .jpeg()
    .toBuffer();

const upload = (t: TestSite, as: TestUser, data: Buffer, filename: string, type = 'image/jpeg') =>
  t.request('POST', '/core/v2/media', {
    as,
    raw: { data, type },
    headers: { 'content-disposition': `attachment; filename=${filename}` },
  });

const attachmentEvents = async (store: EventStore) =>
  (await store.readAll()).filter((event) => event.type.startsWith('Attachment')).length;

const assertUnavailable = (response: TestResponse | Response, what: string) => {
  assert.is(
    response.status,
    503,
    `${what}: ${'text' in response && typeof response.text === 'string' ? response.text : ''}`,
  );
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter > 0,
    `${what}: Retry-After ${response.headers.get('retry-after')}`,
  );
};

test.before(async (state) => {
  state.s3 = await startTestS3();
  state.t = await startTestSite({
    blobs: createS3BlobStore({ client: state.s3.client(), bucket: state.s3.bucket, prefix: 'site/' }),
  });
  state.admin = await state.t.createUser('admin', 'administrator');
});
test.after(async (state) => {
  await state.t?.close();
  await state.s3?.close();
});

test('uploads, files, sub-sizes, edits and deletes answer 503 with Retry-After; reads of the API go on; nothing is lost', async ({
  s3,
  t,
  admin,
}) => {
  const before = await upload(t!, admin!, await jpeg(500, 400), 'before.jpg');
  assert.is(before.status, 201, before.text);
  const item = before.body;
  const fileUrl = `${t!.url}${new URL(item.source_url).pathname}`;
  const events = await attachmentEvents(t!.site.store);

  await s3!.stop();
  const image = await jpeg(320, 240);
  assertUnavailable(await upload(t!, admin!, image, 'during.jpg'), 'raw upload');
  const refused = await upload(t!, admin!, Buffer.from('text'), 'during.txt', 'text/plain');
  assertUnavailable(refused, 'text upload');
  assert.equal(refused.body, {
    code: 'rest_service_unavailable',
    message: "The site's media store is unavailable. Please try again shortly.",
    data: { status: 503, dependency: 'media store' },
  });
  const form = new FormData();
  form.set('file', new Blob([image], { type: 'image/jpeg' }), 'multipart.jpg');
  const multipart = await fetch(`${t!.url}/core/v2/media`, {
    method: 'POST',
    headers: { authorization: admin!.auth },
    body: form,
  });
  assertUnavailable(multipart, 'multipart upload');
  await multipart.arrayBuffer();

  for (const method of ['GET', 'HEAD']) {
    const served = await fetch(fileUrl, { method });
    assertUnavailable(served, `${method} of a file`);
    await served.arrayBuffer();
  }
  const subsizes = await t!.request('POST', `/core/v2/media/${item.id}/post-process`, {
    as: admin,
    body: { action: 'create-image-subsizes' },
  });
  assertUnavailable(subsizes, 'post-process');
  const edit = await t!.request('POST', `/core/v2/media/${item.id}/edit`, {
    as: admin,
    body: { src: item.source_url, modifiers: [{ type: 'rotate', args: { angle: 90 } }] },
  });
  assertUnavailable(edit, 'edit');
  const removal = await t!.request('DELETE', `/core/v2/media/${item.id}?force=true`, { as: admin });
  assertUnavailable(removal, 'delete');

  // The API's own reads need no file.
  const read = await t!.request('GET', `/core/v2/media/${item.id}`, { as: admin });
  assert.is(read.status, 200);
  const list = await t!.request('GET', '/core/v2/media', { as: admin });
  assert.equal(
    list.body.map((entry: { id: number }) => entry.id),
    [item.id],
  );
  assert.is(await attachmentEvents(t!.site.store), events, 'nothing was recorded during the outage');

  await s3!.start();
  const served = await fetch(fileUrl);
  assert.is(served.status, 200);
  assert.is(served.headers.get('content-length'), String(item.media_details.filesize));
  await served.arrayBuffer();
  const again = await upload(t!, admin!, image, 'during.jpg');
  assert.is(again.status, 201, again.text);
  assert.is(
    again.body.media_details.file,
    '2024/05/during.jpg',
    'the refused upload left no file behind to take its name',
  );
  const deleted = await t!.request('DELETE', `/core/v2/media/${item.id}?force=true`, { as: admin });
  assert.is(deleted.status, 200, deleted.text);
  assert.is((await fetch(fileUrl)).status, 404);
});

test.run();

// --- writes failing part-way ------------------------------------------------------------------------------------

const partial = suite('media writes that fail part-way');

/** A blob store that fails as unavailable from the `failAt`-th write on. */
function failingFrom(failAt: number, blobs: BlobStore): BlobStore & { writes: number } {
  const store = {
    ...blobs,
    writes: 0,
    putNew: async (key: string, body: Parameters<BlobStore['putNew']>[1]) => {
      store.writes++;
      if (store.writes >= failAt)
        throw new DependencyUnavailableError('media store', 'the test store stopped answering');
      return blobs.putNew(key, body);
    },
  };
  return store;
}

const storedKeys = async (blobs: BlobStore) => {
  const keys: string[] = [];
  for await (const blob of blobs.list()) keys.push(blob.key);
  return keys;
};

partial(
  'a store that fails after the original was written: 503, and the files already written are removed',
  async () => {
    const memory = createMemoryBlobStore();
    // The original, then a sub-size, then the failure.
    const blobs = failingFrom(3, memory);
    const t = await startTestSite({ blobs });
    try {
      const admin = await t.createUser('admin', 'administrator');
      const response = await upload(t, admin, await jpeg(800, 600), 'half.jpg');
      assertUnavailable(response, 'upload');
      assert.ok(blobs.writes >= 3, 'the failure came after writes');
      assert.equal(await storedKeys(memory), []);
      assert.is(await attachmentEvents(t.site.store), 0);
    } finally {
      await t.close();
    }
  },
);

partial('an append that fails removes every file the upload wrote', async () => {
  const memory = createMemoryBlobStore();
  const store = createMemoryEventStore();
  const failing: EventStore = {
    ...store,
    appendToStream: (streamId, events, options) =>
      streamId.startsWith('attachment-')
        ? Promise.reject(new Error('the event store refused the append'))
        : store.appendToStream(streamId, events, options),
  };
  const t = await startTestSite({ blobs: memory, store: failing });
  const error = console.error;
  console.error = () => undefined;
  try {
    const admin = await t.createUser('admin', 'administrator');
    const response = await upload(t, admin, await jpeg(800, 600), 'unrecorded.jpg');
    assert.is(response.status, 500);
    assert.equal(await storedKeys(memory), []);
  } finally {
    console.error = error;
    await t.close();
  }
});

partial('sizes made by post-process are removed again when their update is not recorded', async () => {
  const memory = createMemoryBlobStore();
  const store = createMemoryEventStore();
  // Stored with no sizes: this site decodes no image that large.
  const small = await startTestSite({ blobs: memory, store, imageMaxPixels: 100 });
  const admin = await small.createUser('admin', 'administrator');
  const item = (await upload(small, admin, await jpeg(800, 600), 'no-sizes.jpg')).body;
  assert.equal(await storedKeys(memory), ['2024/05/no-sizes.jpg']);
  let failing = true;
  const failingStore: EventStore = {
    ...store,
    appendToStream: (streamId, events, options) =>
      failing && streamId.startsWith('attachment-')
        ? Promise.reject(new Error('the event store refused the append'))
        : store.appendToStream(streamId, events, options),
  };
  const t = await startTestSite({ blobs: memory, store: failingStore });
  const error = console.error;
  console.error = () => undefined;
  try {
    const refused = await t.request('POST', `/core/v2/media/${item.id}/post-process`, {
      as: admin,
      body: { action: 'create-image-subsizes' },
    });
    assert.is(refused.status, 500);
    assert.equal(await storedKeys(memory), ['2024/05/no-sizes.jpg']);
    failing = false;
    const made = await t.request('POST', `/core/v2/media/${item.id}/post-process`, {
      as: admin,
      body: { action: 'create-image-subsizes' },
    });
    assert.is(made.status, 200, made.text);
    assert.ok((await storedKeys(memory)).length > 1, 'the sizes are stored once recorded');
  } finally {
    console.error = error;
    await t.close();
    await small.close();
  }
});

partial.run();
