/**
 * Two API nodes sharing one event store (one SQLite file, a connection each, as two processes) and one S3 store
 * (s3rver on a loopback port), each with its own read model: a file uploaded through one node is served by the
 * other at the same URL, a name contested by both goes to one of them, and after both restart every file is still
 * served by both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { createS3BlobStore } from '../../src/adapters/s3/blobStore';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { startTestS3 } from '../support/s3';
import type { TestS3 } from '../support/s3';

const SITE_URL = 'https://cms.example.test';
const test = suite('media shared by two API nodes through S3');

let dir: string;
let s3: TestS3;
let nodes: TestSite[] = [];

const startNode = async (): Promise<TestSite> => {
  const node = await startTestSite({
    siteUrl: SITE_URL,
    store: openSqliteEventStore({ file: path.join(dir, 'events.sqlite') }),
    blobs: createS3BlobStore({ client: s3.client(), bucket: s3.bucket, prefix: 'site/' }),
  });
  nodes.push(node);
  return node;
};

const caughtUp = async (node: TestSite) => {
  assert.ok(
    await node.site.projector.waitFor(await node.site.store.headPosition(), 30_000),
    'the node caught up with the log',
  );
};

/** The bytes a node serves at a file's public URL, or its status. */
const served = async (node: TestSite, url: string): Promise<Buffer | number> => {
  const response = await fetch(`${node.url}${new URL(url).pathname}`);
  if (response.status !== 200) return response.status;
  return Buffer.from(await response.arrayBuffer());
};

const upload = (node: TestSite, as: TestUser, data: Buffer, filename: string, type: string) =>
  node.request('POST', '/core/v2/media', {
    as,
    raw: { data, type },
    headers: { 'content-disposition': `attachment; filename=${filename}` },
  });

/** The public URLs of an attachment's files: the original and every size. */
const urlsOf = (item: any): string[] => [
  item.source_url,
  ...Object.values(item.media_details.sizes as Record<string, { source_url: string }>).map((size) => size.source_url),
];

test.before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-shared-media-'));
  s3 = await startTestS3();
});
test.after(async () => {
  for (const node of nodes) await node.close().catch(() => undefined);
  await s3.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an image uploaded through one node is served by the other, and by both after they restart', async () => {
  let [first, second] = [await startNode(), await startNode()];
  const admin = await first.createUser('admin', 'administrator');
  await caughtUp(second);

  const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 30, g: 160, b: 90 } } })
    .jpeg()
    .toBuffer();
  const created = await upload(first, admin, jpeg, 'shared.jpg', 'image/jpeg');
  assert.is(created.status, 201, created.text);
  const item = created.body;
  assert.is(item.source_url, `${SITE_URL}/wp-content/uploads/2024/05/shared.jpg`);
  const urls = urlsOf(item);
  assert.ok(urls.length >= 3, 'the original and its sizes');

  const original = await served(second, item.source_url);
  assert.ok(
    Buffer.isBuffer(original) && original.equals(jpeg),
    `the other node answered ${Buffer.isBuffer(original) ? 'other bytes' : original}`,
  );
  for (const url of urls) {
    const fromFirst = await served(first, url);
    const fromSecond = await served(second, url);
    assert.ok(Buffer.isBuffer(fromSecond), `${url}: ${fromSecond}`);
    assert.ok((fromSecond as Buffer).equals(fromFirst as Buffer), url);
  }
  const thumbnail = await sharp(
    (await served(second, item.media_details.sizes.thumbnail.source_url)) as Buffer,
  ).metadata();
  assert.equal([thumbnail.width, thumbnail.height], [150, 150]);
  await caughtUp(second);
  const read = await second.request('GET', `/core/v2/media/${item.id}?context=edit`, { as: admin });
  assert.equal(read.body.media_details, item.media_details);

  // Both nodes stop (their files, events and read models with them) and start again.
  await Promise.all([first.close(), second.close()]);
  nodes = [];
  [first, second] = [await startNode(), await startNode()];
  for (const node of [first, second]) {
    for (const url of urls) assert.ok(Buffer.isBuffer(await served(node, url)), `${url} after the restart`);
    assert.ok(((await served(node, item.source_url)) as Buffer).equals(jpeg));
    const listed = await node.request('GET', '/core/v2/media', { as: admin });
    assert.equal(
      listed.body.map((entry: { id: number }) => entry.id),
      [item.id],
    );
  }

  // A delete through one node removes the files for both.
  const deleted = await second.request('DELETE', `/core/v2/media/${item.id}?force=true`, { as: admin });
  assert.is(deleted.status, 200, deleted.text);
  for (const url of urls) assert.is(await served(first, url), 404, url);
});

test('one file name uploaded through both nodes at once goes to one of them; each file is served as uploaded', async () => {
  const [first, second] = nodes;
  const admin = await first!.createUser('editor', 'editor');
  await caughtUp(second!);
  const bodies = Array.from({ length: 6 }, (_, i) => Buffer.from(`upload number ${i}\n`));
  const responses = await Promise.all(
    bodies.map((body, i) => upload(i % 2 ? second! : first!, admin, body, 'contested.txt', 'text/plain')),
  );
  for (const response of responses) assert.is(response.status, 201, response.text);
  const files = responses.map((response) =>
    new URL(response.body.source_url as string).pathname.replace('/wp-content/uploads/', ''),
  );
  assert.is(new Set(files).size, files.length, `distinct files: ${files.join(', ')}`);
  assert.ok(files.includes('2024/05/contested.txt'), files.join(', '));
  for (const [i, response] of responses.entries()) {
    // Served by the node that did not take the upload.
    const bytes = await served(i % 2 ? first! : second!, response.body.source_url);
    assert.ok(
      Buffer.isBuffer(bytes) && bytes.equals(bodies[i]!),
      `${files[i]}: ${Buffer.isBuffer(bytes) ? bytes.toString() : bytes}`,
    );
  }
});

test.run();
