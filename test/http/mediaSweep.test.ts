/**
 * The orphan sweep (`palimpsest media sweep`): files no attachment in the log names are removed once older than the
 * grace period: one left by a process that died before its event, those of an attachment whose files could not be
 * removed when it was deleted. Named files and young ones stay.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createFileBlobStore } from '../../src/adapters/files/blobStore';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import type { BlobStore } from '../../src/ports/blobStore';
import { DependencyUnavailableError } from '../../src/ports/unavailable';
import { sweepOrphanedFiles } from '../../src/resources/media/sweep';
import { main } from '../../src/cli/index';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('media sweep');
const HOUR = 3_600_000;

const upload = async (t: TestSite, as: TestUser, data: Buffer, filename: string, type = 'image/png') => {
  const response = await t.request('POST', '/core/v2/media', {
    as,
    raw: { data, type },
    headers: { 'content-disposition': `attachment; filename=${filename}` },
  });
  assert.is(response.status, 201, response.text);
  return response.body;
};

const keysOf = async (blobs: BlobStore) => {
  const keys: string[] = [];
  for await (const blob of blobs.list()) keys.push(blob.key);
  return keys.sort();
};

/** The keys of an attachment's files as its answer shows them. */
const filesOf = (item: any): string[] => {
  const folder = item.media_details.file
    ? item.media_details.file.slice(0, item.media_details.file.lastIndexOf('/') + 1)
    : '';
  // `full` among the sizes is the original itself.
  return [
    ...new Set([
      new URL(item.source_url).pathname.replace('/wp-content/uploads/', ''),
      ...Object.values(item.media_details.sizes ?? {}).map((size: any) => `${folder}${size.file}`),
    ]),
  ];
};

test('orphans older than the grace are removed; named and young files stay; a dry run removes nothing', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-sweep-'));
  const files = createFileBlobStore(path.join(dir, 'uploads'));
  // Removals fail while `failing` is set, as in an outage after the delete was recorded.
  let failing = false;
  const blobs: BlobStore = {
    ...files,
    delete: (key) =>
      failing
        ? Promise.reject(new DependencyUnavailableError('media store', 'the store went away'))
        : files.delete(key),
  };
  const t = await startTestSite({ blobs });
  const error = console.error;
  try {
    const admin = await t.createUser('admin', 'administrator');
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .png()
      .toBuffer();
    const kept = await upload(t, admin, png, 'kept.png');
    const gone = await upload(t, admin, png, 'gone.png');
    console.error = () => undefined;
    failing = true;
    const deleted = await t.request('DELETE', `/core/v2/media/${gone.id}?force=true`, { as: admin });
    failing = false;
    console.error = error;
    assert.is(deleted.status, 200, deleted.text);
    // A process died between writing this file and appending its event.
    assert.is(await files.putNew('2024/05/died-mid-upload.png', png), true);

    const keptFiles = filesOf(kept).sort();
    const orphans = [...filesOf(gone), '2024/05/died-mid-upload.png'].sort();
    assert.equal(await keysOf(files), [...keptFiles, ...orphans].sort(), 'the deleted attachment left its files');

    const young = await sweepOrphanedFiles(t.site, { olderThanMs: HOUR, now: Date.now() });
    assert.equal(young, {
      listed: keptFiles.length + orphans.length,
      named: keptFiles.length,
      young: orphans.length,
      orphans: [],
    });
    const dryRun = await sweepOrphanedFiles(t.site, { olderThanMs: HOUR, now: Date.now() + 2 * HOUR, dryRun: true });
    assert.equal(dryRun.orphans, orphans);
    assert.equal(await keysOf(files), [...keptFiles, ...orphans].sort(), 'a dry run removes nothing');

    const swept = await sweepOrphanedFiles(t.site, { olderThanMs: HOUR, now: Date.now() + 2 * HOUR });
    assert.equal(swept, { listed: keptFiles.length + orphans.length, named: keptFiles.length, young: 0, orphans });
    assert.equal(await keysOf(files), keptFiles);
    const served = await fetch(`${t.url}${new URL(kept.source_url).pathname}`);
    assert.is(served.status, 200);
    await served.arrayBuffer();
  } finally {
    console.error = error;
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('files an attachment gained later (sizes made by post-process) are named too', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-sweep-'));
  const files = createFileBlobStore(path.join(dir, 'uploads'));
  const events = path.join(dir, 'events.sqlite');
  try {
    // Stored with no sizes: the site then decoded no image that large.
    const small = await startTestSite({
      store: openSqliteEventStore({ file: events }),
      blobs: files,
      imageMaxPixels: 100,
    });
    const admin = await small.createUser('admin', 'administrator');
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .png()
      .toBuffer();
    const item = await upload(small, admin, png, 'later.png');
    assert.is(item.media_details.sizes.thumbnail, undefined);
    await small.close();
    const t = await startTestSite({ store: openSqliteEventStore({ file: events }), blobs: files });
    try {
      const processed = await t.request('POST', `/core/v2/media/${item.id}/post-process`, {
        as: admin,
        body: { action: 'create-image-subsizes' },
      });
      assert.is(processed.status, 200, processed.text);
      assert.ok(Object.keys(processed.body.media_details.sizes).length > 1, 'post-process made sizes');
      const swept = await sweepOrphanedFiles(t.site, { olderThanMs: 0, now: Date.now() + HOUR });
      assert.equal(swept.orphans, []);
      assert.equal(swept.named, (await keysOf(files)).length);
      assert.is(swept.named, filesOf(processed.body).length);
    } finally {
      await t.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('palimpsest media sweep works on the configured stores, and reports what it did', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-sweep-cli-'));
  const env = { ...process.env };
  const log = console.log;
  const error = console.error;
  try {
    const store = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
    const files = createFileBlobStore(path.join(dataDir, 'uploads'));
    const t = await startTestSite({ store, blobs: files });
    const admin = await t.createUser('admin', 'administrator');
    const kept = await upload(t, admin, Buffer.from('kept'), 'kept.txt', 'text/plain');
    await t.close();
    await files.putNew('2024/05/orphan.txt', Buffer.from('orphan'));

    for (const name of ['REDIS_URL', 'EVENTSTORE_URL', 'BLOB_STORE']) delete process.env[name];
    process.env.DATA_DIR = dataDir;
    const printed: string[] = [];
    const complaints: string[] = [];
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
    console.error = (...args: unknown[]) => void complaints.push(args.join(' '));
    assert.is(await main(['media', 'sweep', '--dry-run', '--older-than', '0']), 0);
    assert.match(
      complaints[0]!,
      new RegExp(`^palimpsest: site .*; DATA_DIR ${dataDir};`),
      'which site it sweeps, on stderr',
    );
    assert.equal(printed, [
      'would remove 2024/05/orphan.txt',
      '2 stored files: 1 named by attachments, 0 unnamed but younger than 0 s (kept), 1 orphan to remove',
    ]);
    assert.is(await files.has('2024/05/orphan.txt'), true);
    printed.length = 0;
    // The default grace keeps a file written a moment ago.
    assert.is(await main(['media', 'sweep']), 0);
    assert.equal(printed, [
      '2 stored files: 1 named by attachments, 1 unnamed but younger than 3600 s (kept), 0 orphans removed',
    ]);
    printed.length = 0;
    assert.is(await main(['media', 'sweep', '--older-than', '0']), 0);
    assert.equal(printed[0], 'removed 2024/05/orphan.txt');
    assert.equal(await keysOf(files), [new URL(kept.source_url).pathname.replace('/wp-content/uploads/', '')]);

    complaints.length = 0;
    assert.is(await main(['media', 'sweep', '--older-than', 'an hour']), 2);
    assert.match(
      complaints.join('\n'),
      /^palimpsest media sweep: --older-than must be a whole number of seconds, got "an hour"\nusage: palimpsest media sweep \[--dry-run\] \[--older-than SECONDS\]$/,
    );
    assert.is(await main(['media', 'sweep', '--everything']), 2);
  } finally {
    console.log = log;
    console.error = error;
    for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
    Object.assign(process.env, env);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
