/**
 * DATA_DIR is the owner's only: the directory when it is created, and every file palimpsest keeps in it (the
 * SQLite log and its -wal and -shm, the auth secret, uploads and their folders, upload temporary files), also when
 * the directory already exists with looser modes and old files in it were left 0644.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/config';
import { authSecret, openEventStore } from '../../src/bootstrap';
import { createFileBlobStore } from '../../src/adapters/files/blobStore';
import { bodyToFile } from '../../src/http/requestBodies';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';

const test = suite('DATA_DIR modes');
const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
let scratch: string;
const oldUmask = process.umask(0o022);

test.before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-modes-'));
});
test.after(() => {
  process.umask(oldUmask);
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('a new DATA_DIR and everything in it are for the owner only', async () => {
  const dataDir = path.join(scratch, 'fresh', 'data');
  const config = loadConfig({ DATA_DIR: dataDir }, scratch);
  const store = await openEventStore(config);
  await store.appendToStream(
    'probe-1',
    [{ type: 'probed', data: {}, metadata: {} }] as never,
    { expectedRevision: 'any' } as never,
  );
  authSecret(config);
  const blobs = createFileBlobStore(path.join(dataDir, 'uploads'));
  await blobs.putNew('2024/05/a.png', Buffer.from('x'));
  const raw = await bodyToFile(
    Readable.from([Buffer.from('body')]) as unknown as IncomingMessage,
    1024,
    path.join(dataDir, 'tmp'),
  );
  assert.is(modeOf(dataDir), '700');
  for (const file of [
    'events.sqlite',
    'events.sqlite-wal',
    'events.sqlite-shm',
    'auth-secret',
    'uploads/2024/05/a.png',
  ]) {
    assert.is(modeOf(path.join(dataDir, file)), '600', file);
  }
  for (const dir of ['uploads', 'uploads/2024', 'uploads/2024/05', 'tmp'])
    assert.is(modeOf(path.join(dataDir, dir)), '700', dir);
  assert.is(modeOf(raw.filepath), '600');
  await store.close();
});

test('an existing loose DATA_DIR keeps its mode; the files kept in it are tightened', async () => {
  const dataDir = path.join(scratch, 'existing');
  fs.mkdirSync(dataDir, { mode: 0o755 });
  fs.chmodSync(dataDir, 0o755);
  fs.writeFileSync(path.join(dataDir, 'auth-secret'), 'kept-secret\n', { mode: 0o644 });
  fs.chmodSync(path.join(dataDir, 'auth-secret'), 0o644);
  const first = await openEventStore(loadConfig({ DATA_DIR: dataDir }, scratch));
  await first.close();
  fs.chmodSync(path.join(dataDir, 'events.sqlite'), 0o644);
  const config = loadConfig({ DATA_DIR: dataDir }, scratch);
  const store = await openEventStore(config);
  assert.is(authSecret(config), 'kept-secret');
  assert.is(modeOf(dataDir), '755');
  assert.is(modeOf(path.join(dataDir, 'events.sqlite')), '600');
  assert.is(modeOf(path.join(dataDir, 'auth-secret')), '600');
  await store.close();
});

test.run();
