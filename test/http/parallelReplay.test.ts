/**
 * A start-up replay on two threads (src/projection/parallelReplay.ts) gives the read model an in-thread replay
 * gives: every document and checkpoint, on a log with updates, trash, deletes, revisions, autosaves, term changes
 * and a custom projection with related documents, and on an empty log. A worker that cannot start leaves its
 * projections to the projector (the same result); a fold that fails in the worker fails the start, without a hang.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/adapters/memory/readModel';
import type { MemoryReadModel } from '../../src/adapters/memory/readModel';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { Projector } from '../../src/projection/runner';
import { replayInParallel } from '../../src/projection/parallelReplay';
import type { Projection } from '../../src/projection/projection';
import type { EventStore } from '../../src/ports/eventStore';
import { dumpCollections } from '../../src/projection/replay';
import builtIn from '../../projections/index';
import wordCount from '../../projections/examples/publishedWordCount';

const test = suite('start-up replay on two threads');
const EXAMPLES_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../projections/examples');
const projections: Projection[] = [...builtIn, wordCount as unknown as Projection];
const memoryStore = createMemoryEventStore();
let t: TestSite;
let dir: string;
let sqliteFile: string;
let sqlite: EventStore;

async function ok(method: string, url: string, as: TestUser, body?: Record<string, unknown>) {
  t.clock.advance(30_000);
  const response = await t.request(method, url, { as, body });
  assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The in-thread start-up replay: the projector alone, in batches of 250 as the server's. */
async function inThread(store: EventStore, list: readonly Projection[]): Promise<MemoryReadModel> {
  const readModel = createMemoryReadModel();
  const projector = new Projector({ store, readModel, projections: list, maxBatchSize: 250 });
  await projector.start();
  await projector.stop();
  return readModel;
}

/** The two-thread replay, then the projector's start, as the server does it. */
async function onTwoThreads(store: EventStore, file: string, list: readonly Projection[], projectionsDir = EXAMPLES_DIR) {
  const readModel = createMemoryReadModel();
  const outcome = await replayInParallel({ store, sqliteFile: file, readModel, projections: list, projectionsDir, maxBatchSize: 250, minEvents: 0, log: process.env.DEBUG_REPLAY ? console.error : undefined });
  const projector = new Projector({ store, readModel, projections: list, maxBatchSize: 250 });
  await projector.start();
  await projector.stop();
  return { readModel, outcome };
}

async function assertSame(actual: MemoryReadModel, expected: MemoryReadModel, list: readonly Projection[]) {
  assert.equal(await dumpCollections(actual, list), await dumpCollections(expected, list));
  for (const projection of list) assert.equal(await actual.checkpoint(projection.name), await expected.checkpoint(projection.name), projection.name);
}

test.before(async () => {
  t = await startTestSite({ store: memoryStore, projections });
  const admin = await t.createUser('admin', 'administrator');
  const author = await t.createUser('author', 'author');
  const news = await ok('POST', '/core/v2/categories', admin, { name: 'News' });
  const sport = await ok('POST', '/core/v2/categories', admin, { name: 'Sport' });
  const tag = await ok('POST', '/core/v2/tags', admin, { name: 'Zephyr' });
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) {
    const post = await ok('POST', '/core/v2/posts', i % 2 ? author : admin, {
      title: `Post ${i} — naïve`,
      content: `<p>words of post ${i}</p>`,
      status: i % 5 === 4 ? 'draft' : 'publish',
      categories: [i % 3 ? news.id : sport.id],
      tags: i % 4 ? [] : [tag.id],
    });
    ids.push(post.id);
  }
  const page = await ok('POST', '/core/v2/pages', admin, { title: 'A page', content: 'page words', status: 'publish' });
  await ok('POST', `/core/v2/pages/${page.id}`, admin, { content: 'page words, revised' });
  for (const id of ids.slice(0, 6)) await ok('POST', `/core/v2/posts/${id}`, admin, { title: `Retitled ${id}`, categories: [news.id, sport.id] });
  await ok('POST', `/core/v2/posts/${ids[0]}/autosaves`, admin, { content: 'unsaved' });
  await ok('POST', `/core/v2/posts/${ids[1]}`, admin, { status: 'draft' });
  await ok('DELETE', `/core/v2/posts/${ids[2]}`, admin);
  await ok('DELETE', `/core/v2/posts/${ids[3]}?force=true`, admin);
  await ok('POST', `/core/v2/categories/${sport.id}`, admin, { name: 'Sports', description: 'games' });
  await ok('DELETE', `/core/v2/tags/${tag.id}?force=true`, admin);
  await ok('POST', `/core/v2/posts/${ids[4]}`, admin, { status: 'publish' });

  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-parallel-replay-'));
  sqliteFile = path.join(dir, 'events.sqlite');
  sqlite = openSqliteEventStore({ file: sqliteFile });
  for (const event of await memoryStore.readAll()) {
    const { id, type, data, metadata } = event;
    await sqlite.appendToStream(event.streamId, [{ id, type, data, metadata }], { expectedRevision: event.revision === 0 ? 'no_stream' : event.revision - 1 });
  }
});
test.after(async () => {
  await t.close();
  await sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the worker folds every projection but the first, and the read model equals an in-thread replay and the live one', async () => {
  const expected = await inThread(sqlite, projections);
  const { readModel, outcome } = await onTwoThreads(sqlite, sqliteFile, projections);
  assert.equal('inWorker' in outcome && outcome.inWorker, projections.slice(1).map((p) => p.name));
  await assertSame(readModel, expected, projections);
  assert.equal(await dumpCollections(readModel, projections), await dumpCollections(t.site.readModel, projections));
  // Queries through the indexes, in this thread's collection and in adopted ones.
  const byDate = { kind: 'field', field: 'date', direction: 'desc' } as const;
  const search = (model: MemoryReadModel) => model.query('post', { filters: [{ kind: 'text', fields: ['title'], includes: ['naïve'], excludes: [] }], order: byDate, offset: 0, limit: null });
  assert.equal(await search(readModel), await search(expected));
  assert.ok((await search(readModel)).total > 0);
  const published = (model: MemoryReadModel) =>
    model.query('term_membership', { filters: [{ kind: 'any', field: 'published_category', values: [1, 2, 3, 4, 5] }], order: { kind: 'field', field: 'id', direction: 'asc' }, offset: 0, limit: null });
  assert.equal(await published(readModel), await published(expected));
  assert.ok((await published(readModel)).total > 0);
});

test('projections already loaded (a snapshot) stay in this thread; one left to replay needs no worker', async () => {
  const readModel = createMemoryReadModel();
  const [first, ...rest] = projections as [Projection, ...Projection[]];
  const projector = new Projector({ store: sqlite, readModel, projections: rest, maxBatchSize: 250 });
  await projector.start();
  await projector.stop();
  const outcome = await replayInParallel({ store: sqlite, sqliteFile, readModel, projections, projectionsDir: EXAMPLES_DIR, minEvents: 0 });
  assert.equal(outcome, { skipped: 'fewer than two projections to replay' });
  await new Projector({ store: sqlite, readModel, projections: [first], maxBatchSize: 250 }).start();
  await assertSame(readModel, await inThread(sqlite, projections), projections);
});

test('an empty log gives an empty read model without checkpoints, as in one thread', async () => {
  const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-parallel-replay-empty-'));
  const file = path.join(emptyDir, 'events.sqlite');
  const empty = openSqliteEventStore({ file });
  try {
    const { readModel, outcome } = await onTwoThreads(empty, file, projections);
    assert.ok('inWorker' in outcome);
    await assertSame(readModel, await inThread(empty, projections), projections);
    assert.is(await readModel.checkpoint('terms'), null);
  } finally {
    await empty.close();
    fs.rmSync(emptyDir, { recursive: true, force: true });
  }
});

test('a worker that cannot load its projections leaves them to this thread: the same read model', async () => {
  // A projection the worker cannot find by name (it exists only in this process).
  const inline: Projection = { ...(wordCount as unknown as Projection), name: 'word-count-inline', collections: ['word-count-inline'] };
  const list = [...projections, inline];
  const { readModel, outcome } = await onTwoThreads(sqlite, sqliteFile, list);
  assert.equal(outcome, { skipped: 'the worker could not start' });
  await assertSame(readModel, await inThread(sqlite, list), list);
  // A log the worker cannot open is the same.
  const missing = await onTwoThreads(sqlite, path.join(dir, 'no-such-file.sqlite'), projections);
  assert.equal(missing.outcome, { skipped: 'the worker could not start' });
  await assertSame(missing.readModel, await inThread(sqlite, projections), projections);
});

test('a fold that throws in the worker fails the replay (no hang), naming the error', async () => {
  const customDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-parallel-replay-custom-'));
  const file = path.join(customDir, 'failing.mjs');
  fs.writeFileSync(
    file,
    `export default {
      name: 'failing', version: 1, collections: ['failing'], handles: ['PostCreated'],
      locate: (event) => ({ collection: 'failing', id: event.data.id }),
      evolve: () => { throw new Error('this fold fails on purpose'); },
    };\n`,
  );
  try {
    const failing = ((await import(file)) as { default: Projection }).default;
    const list = [...builtIn, failing];
    const readModel = createMemoryReadModel();
    const error = await replayInParallel({ store: sqlite, sqliteFile, readModel, projections: list, projectionsDir: customDir, minEvents: 0 }).then(
      () => null,
      (failure: Error) => failure,
    );
    assert.ok(error, 'the replay failed');
    assert.match(error!.message, /this fold fails on purpose/);
  } finally {
    fs.rmSync(customDir, { recursive: true, force: true });
  }
});

test('adopt refuses a projection or collection this read model already holds, leaving it as it was', async () => {
  const worker = await inThread(sqlite, [builtIn[2]!]);
  const dump = () => {
    const { checkpoints, rows } = worker.dump();
    return { checkpoints, rows: [...rows] };
  };
  const here = await inThread(sqlite, [builtIn[2]!]);
  const before = await dumpCollections(here, [builtIn[2]!]);
  assert.throws(() => here.adopt(dump().checkpoints, dump().rows), /already has a checkpoint/);
  assert.throws(() => here.adopt([], dump().rows), /already holds documents/);
  assert.equal(await dumpCollections(here, [builtIn[2]!]), before);
  const fresh = createMemoryReadModel();
  fresh.adopt(dump().checkpoints, dump().rows);
  await assertSame(fresh, worker, [builtIn[2]!]);
});

test('a short log, or a log that is not SQLite, is replayed in this thread alone', async () => {
  const readModel = createMemoryReadModel();
  assert.equal(await replayInParallel({ store: sqlite, sqliteFile, readModel, projections, projectionsDir: EXAMPLES_DIR, minEvents: 1e9 }), { skipped: 'a short log' });
  assert.equal(await replayInParallel({ store: sqlite, sqliteFile: null, readModel, projections, projectionsDir: EXAMPLES_DIR, minEvents: 0 }), { skipped: 'not a SQLite log' });
  assert.equal(await readModel.checkpoint('content'), null);
});

test.run();
