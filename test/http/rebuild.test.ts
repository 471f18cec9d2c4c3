/**
 * The proof that the log is the source of truth: every read model rebuilt from it (in a fresh read model, in
 * place, or through another site) equals the live one, revisions, autosaves and custom projections included;
 * and replaying a prefix of the log gives the site as it was at that point (`palimpsest replay`), and
 * `palimpsest projections rebuild NAME` refolds a projection into Redis with a progress bar.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startTestSite } from '../support/testSite';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import type { TestSite, TestUser } from '../support/testSite';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { Projector } from '../../src/projection/runner';
import type { Projection } from '../../src/projection/projection';
import type { EventStore } from '../../src/ports/eventStore';
import { dumpCollections, replayLog } from '../../src/projection/replay';
import { main, progressLine, replayPoint } from '../../src/cli/index';
import builtIn from '../../projections/index';
import wordCount from '../../projections/examples/publishedWordCount';

const test = suite('rebuilding read models from the log');
/** The shared store, for a second site whose close must not close it under the first. */
const borrowed = (shared: EventStore): EventStore => ({ ...shared, close: async () => {} });
const projections: Projection[] = [...builtIn, wordCount as unknown as Projection];
const SITE_URL = 'http://palimpsest.test';
const store = createMemoryEventStore();
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let author: TestUser;
const posts: { id: number; base: string }[] = [];
/** The live read model's documents at a point in the middle of the workload. */
let midway: { position: number; time: number; collections: Awaited<ReturnType<typeof dumpCollections>> };

async function ok(method: string, url: string, as: TestUser, body?: Record<string, unknown>) {
  t.clock.advance(30_000);
  const response = await t.request(method, url, { as, body });
  assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

test.before(async () => {
  t = await startTestSite({ store, projections, siteUrl: SITE_URL });
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  author = await t.createUser('author', 'author');
  // A workload touching every event type the revisions, content and example projections handle.
  for (const [i, as] of [admin, editor, author, author].entries()) {
    const created = await ok('POST', '/core/v2/posts', as, {
      title: `Post ${i}`,
      content: `words of post ${i}`,
      status: i === 3 ? 'draft' : 'publish',
    });
    posts.push({ id: created.id, base: '/core/v2/posts' });
  }
  const page = await ok('POST', '/core/v2/pages', editor, {
    title: 'A page',
    content: 'page words',
    status: 'publish',
  });
  posts.push({ id: page.id, base: '/core/v2/pages' });
  for (const { id, base } of posts) {
    await ok('POST', `${base}/${id}`, admin, { content: `revised ${id}` });
    await ok('POST', `${base}/${id}`, admin, { title: `Retitled ${id}` });
  }
  midway = {
    position: await store.headPosition(),
    time: t.clock.now(),
    collections: await dumpCollections(t.site.readModel, projections),
  };
  t.clock.advance(60_000);
  const [first, second, third, draft, pageItem] = posts as [
    (typeof posts)[0],
    (typeof posts)[0],
    (typeof posts)[0],
    (typeof posts)[0],
    (typeof posts)[0],
  ];
  await ok('POST', `${first.base}/${first.id}/autosaves`, editor, { title: 'Autosaved', content: 'unsaved' });
  await ok('POST', `${first.base}/${first.id}/autosaves`, admin, { title: 'Autosaved', content: 'unsaved again' });
  await ok('POST', `${second.base}/${second.id}/autosaves`, admin, { content: 'admin autosave' });
  const discarded = await t.request('POST', `${second.base}/${second.id}/autosaves`, {
    as: admin,
    body: { title: `Retitled ${second.id}`, content: `revised ${second.id}`, excerpt: '' },
  });
  assert.is(discarded.body.code, 'rest_autosave_no_changes');
  await ok('POST', `${pageItem.base}/${pageItem.id}/autosaves`, admin, { content: 'page autosave' });
  await ok('POST', `${draft.base}/${draft.id}/autosaves`, author, { title: 'Own draft', content: 'saved in place' });
  const revisions = await ok('GET', `${first.base}/${first.id}/revisions`, admin);
  await ok('POST', `${first.base}/${first.id}/revisions/${revisions[revisions.length - 1].id}/restore`, admin);
  await ok('POST', `${third.base}/${third.id}`, author, { status: 'draft' });
  await ok('DELETE', `${second.base}/${second.id}`, admin);
  await ok('POST', `${draft.base}/${draft.id}`, author, { status: 'publish' });
  const gone = await ok('POST', '/core/v2/posts', editor, {
    title: 'Short-lived',
    content: 'soon deleted',
    status: 'publish',
  });
  await ok('POST', `/core/v2/posts/${gone.id}`, editor, { content: 'edited before deletion' });
  await ok('DELETE', `/core/v2/posts/${gone.id}?force=true`, admin);
});
test.after(async () => t.close());

test('a fresh read model folded from the log equals the live one, document for document', async () => {
  const live = await dumpCollections(t.site.readModel, projections);
  assert.ok(
    live.revisions!.some((doc: any) => doc.revisions.length > 0 && doc.autosaves.length > 0),
    'the workload left revisions and autosaves',
  );
  assert.ok(live['published-word-count']!.length > 0, 'and custom-projection documents');
  const readModel = createMemoryReadModel();
  const projector = new Projector({ store, readModel, projections, maxBatchSize: 3 });
  await projector.start();
  await projector.stop();
  assert.equal(await dumpCollections(readModel, projections), live);
  for (const projection of projections) {
    assert.equal(
      await readModel.checkpoint(projection.name),
      await t.site.readModel.checkpoint(projection.name),
      projection.name,
    );
  }
});

test('a start-up replay of the same log from SQLite (batches naming their event types) equals the live read model', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-replay-'));
  const sqlite = openSqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  try {
    for (const event of await store.readAll()) {
      const { id, type, data, metadata } = event;
      await sqlite.appendToStream(event.streamId, [{ id, type, data, metadata }], {
        expectedRevision: event.revision === 0 ? 'no_stream' : event.revision - 1,
      });
    }
    assert.is(await sqlite.headPosition(), await store.headPosition());
    const types = new Set((await store.readAll()).map((event) => event.type));
    assert.ok(
      [...types].some((type) => !projections.some((projection) => projection.handles.includes(type))),
      'the log holds events no projection folds (left out of the batches)',
    );
    for (const maxBatchSize of [1, 7, 250]) {
      const readModel = createMemoryReadModel();
      const projector = new Projector({ store: sqlite, readModel, projections, maxBatchSize });
      await projector.start();
      await projector.stop();
      assert.equal(
        await dumpCollections(readModel, projections),
        await dumpCollections(t.site.readModel, projections),
        `batches of ${maxBatchSize}`,
      );
      for (const projection of projections) {
        assert.equal(
          await readModel.checkpoint(projection.name),
          await t.site.readModel.checkpoint(projection.name),
          `${projection.name}, batches of ${maxBatchSize}`,
        );
      }
    }
  } finally {
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('rebuilding every projection in place changes nothing', async () => {
  const before = await dumpCollections(t.site.readModel, projections);
  for (const projection of projections) {
    const result = await t.site.projector.rebuild(projection.name);
    assert.is(result.applied, await store.headPosition(), `${projection.name} replayed the whole log`);
  }
  assert.equal(await dumpCollections(t.site.readModel, projections), before);
});

test('a second site folding the same log serves identical revision lists, autosaves and projection documents', async () => {
  const second = await startTestSite({ store: borrowed(store), projections, siteUrl: SITE_URL });
  try {
    const same = async (url: string) => {
      const [a, b] = await Promise.all([
        t.request('GET', url, { as: admin }),
        second.request('GET', url, { as: admin }),
      ]);
      assert.is(b.status, a.status, url);
      assert.equal(b.body, a.body, url);
      assert.is(b.headers.get('x-wp-total'), a.headers.get('x-wp-total'), url);
    };
    for (const { id, base } of posts) {
      await same(`${base}/${id}/revisions?context=edit`);
      await same(`${base}/${id}/autosaves?context=edit`);
      await same(`${base}/${id}?context=edit`);
    }
    await same('/projections/v1/published-word-count?per_page=100');
    await same('/projections/v1/published-word-count?collection=published-word-count-posts&per_page=100');
  } finally {
    await second.close();
  }
});

test('replay to a position or a time gives the site as it was then, leaving the live read model alone', async () => {
  const before = await dumpCollections(t.site.readModel, projections);
  const byPosition = await replayLog({
    store,
    projections,
    point: { position: midway.position },
    readModel: createMemoryReadModel(),
  });
  assert.is(byPosition.cutoff.position, midway.position);
  assert.equal(byPosition.collections, midway.collections);
  const byTime = await replayLog({
    store,
    projections,
    point: { time: midway.time },
    readModel: createMemoryReadModel(),
  });
  assert.is(byTime.cutoff.position, midway.position);
  assert.is(byTime.cutoff.time, new Date(midway.time).toISOString());
  assert.equal(byTime.collections, midway.collections);
  const nothing = await replayLog({
    store,
    projections,
    point: { time: Date.parse('2000-01-01T00:00:00Z') },
    readModel: createMemoryReadModel(),
  });
  assert.equal(nothing.cutoff, { position: 0, time: null });
  assert.ok(Object.values(nothing.collections).every((docs) => docs.length === 0));
  const everything = await replayLog({
    store,
    projections,
    point: { position: 1e9 },
    readModel: createMemoryReadModel(),
  });
  assert.equal(everything.collections, before);
  assert.equal(await dumpCollections(t.site.readModel, projections), before, 'live read model untouched');
});

test('replay reports progress per projection', async () => {
  const seen = new Map<string, number>();
  await replayLog({
    store,
    projections,
    point: { position: midway.position },
    readModel: createMemoryReadModel(),
    onProgress: (p) => seen.set(p.projection, p.applied),
  });
  assert.equal(
    [...seen.keys()],
    projections.map((p) => p.name),
  );
  assert.ok([...seen.values()].every((applied) => applied === midway.position));
  assert.is(
    progressLine({ projection: 'content', applied: 50, head: 100, eventsPerSecond: 1234 }, 10),
    'content [#####.....] 50% 50 events, 1234 events/s',
  );
});

test('--until takes a log position or a date-time in the site time zone', () => {
  assert.equal(replayPoint('42', 'UTC'), { position: 42 });
  assert.equal(replayPoint('2024-05-01T12:00:00Z', 'UTC'), { time: Date.parse('2024-05-01T12:00:00Z') });
  assert.equal(replayPoint('2024-05-01T14:00:00', 'Europe/Berlin'), { time: Date.parse('2024-05-01T12:00:00Z') });
  assert.throws(() => replayPoint('yesterday', 'UTC'), /--until/);
});

test('--until takes a date alone: midnight at its start in the site time zone; impossible dates are refused', () => {
  assert.equal(replayPoint('2020-01-01', 'UTC'), { time: Date.parse('2020-01-01T00:00:00Z') });
  assert.equal(replayPoint('2020-07-01', 'Europe/Berlin'), { time: Date.parse('2020-06-30T22:00:00Z') });
  assert.equal(replayPoint('2024-02-29', 'UTC'), { time: Date.parse('2024-02-29T00:00:00Z') });
  for (const bad of ['2023-02-29', '2020-13-01', '2020-00-10', '2020-1-1', '20200101x'])
    assert.throws(() => replayPoint(bad, 'UTC'), /--until/, bad);
});

test('palimpsest replay --until … --out FILE exports the state as JSON, with progress on stderr', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-replay-'));
  const env = { ...process.env };
  const writes: string[] = [];
  const stderrWrite = process.stderr.write.bind(process.stderr);
  const log = console.log;
  try {
    const sqlite = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
    const site = await startTestSite({ store: sqlite });
    const user = await site.createUser('cli-admin', 'administrator');
    const early = await site.request('POST', '/core/v2/posts', {
      as: user,
      body: { title: 'Early', content: 'x', status: 'publish' },
    });
    const cut = await sqlite.headPosition();
    site.clock.advance(60_000);
    await site.request('POST', `/core/v2/posts/${early.body.id}`, { as: user, body: { title: 'Later' } });
    await site.close();

    process.env.DATA_DIR = dataDir;
    delete process.env.REDIS_URL;
    process.env.PROJECTIONS_DIR = path.resolve('projections/examples');
    const out = path.join(dataDir, 'state.json');
    const printed: string[] = [];
    process.stderr.write = ((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
    const code = await main(['replay', '--until', String(cut), '--out', out]);
    process.stderr.write = stderrWrite;
    console.log = log;
    assert.is(code, 0, writes.join(''));
    const state = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.is(state.until.position, cut);
    assert.equal(
      state.collections.post.map((p: any) => p.title),
      ['Early'],
    );
    assert.equal(state.collections.revisions[0].revisions, []);
    const users = state.collections.user;
    assert.is(users[0].login, 'cli-admin');
    assert.ok(!JSON.stringify(users).includes('$'), 'no hash in the export');
    assert.ok(users[0].application_passwords.length > 0);
    assert.ok(users[0].application_passwords.every((p: any) => p.passwordHash === '[redacted]'));
    assert.equal(
      state.collections['published-word-count'].map((d: any) => [d.author, d.words]),
      [[user.id, 1]],
      'custom projections from PROJECTIONS_DIR too',
    );
    assert.match(printed.join('\n'), new RegExp(`state at position ${cut} .* written to`));
    const progress = writes.join('');
    // One pass for every projection: one line, redrawn in place.
    assert.match(progress, new RegExp(`${projections.length} projections \\[#+\\] 100% ${cut} events, \\d+ events/s`));

    const error = console.error;
    const complaints: string[] = [];
    console.error = (...args: unknown[]) => void complaints.push(args.join(' '));
    const missing = await main(['replay']).finally(() => (console.error = error));
    assert.is(missing, 2, 'a usage error');
    assert.is(complaints.length, 1);
    assert.match(complaints[0]!, /^palimpsest replay: --until is required\nusage: palimpsest replay --until /);
  } finally {
    process.stderr.write = stderrWrite;
    console.log = log;
    for (const key of ['DATA_DIR', 'REDIS_URL', 'PROJECTIONS_DIR']) {
      if (env[key] === undefined) delete process.env[key];
      else process.env[key] = env[key];
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('palimpsest projections rebuild NAME refolds that read model in Redis, with a progress bar and events/s', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-rebuild-'));
  const env = { ...process.env };
  const prefix = `test:${randomUUID()}:`;
  const stderrWrite = process.stderr.write.bind(process.stderr);
  const log = console.log;
  const progress: string[] = [];
  const printed: string[] = [];
  const capture = () => {
    process.stderr.write = ((chunk: string | Uint8Array) => {
      progress.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
  };
  const release = () => {
    process.stderr.write = stderrWrite;
    console.log = log;
  };
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  try {
    const sqlite = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
    const site = await startTestSite({ store: sqlite });
    const user = await site.createUser('cli-editor', 'editor');
    const created = await site.request('POST', '/core/v2/posts', {
      as: user,
      body: { title: 'Rebuilt', content: 'x', status: 'publish' },
    });
    await site.request('POST', `/core/v2/posts/${created.body.id}`, { as: user, body: { title: 'Rebuilt twice' } });
    const head = await sqlite.headPosition();
    await site.close();

    Object.assign(process.env, {
      DATA_DIR: dataDir,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      PROJECTIONS_DIR: path.resolve('projections/examples'),
    });
    // One projection by name (each rebuild waits a grace period before dropping the old generation, so
    // the test names one rather than all).
    capture();
    const code = await main(['projections', 'rebuild', 'revisions']);
    release();
    assert.is(code, 0, progress.join(''));
    assert.match(progress.join(''), new RegExp(`\\rrevisions \\[#{30}\\] 100% ${head} events, \\d+ events/s`));
    assert.equal(
      printed
        .filter((line) => / events replayed at /.test(line))
        .map((line) => line.replace(/\d+ events\/s$/, 'N events/s')),
      [`revisions: ${head} events replayed at N events/s`],
    );
    // The documents are in Redis under the prefix, with the projection's checkpoint; nothing else was built.
    const readModel = createRedisReadModel({ redis, prefix });
    const doc = (await readModel.get('revisions', created.body.id)) as { revisions: { title: string }[] } | null;
    assert.equal(
      doc?.revisions.map((r) => r.title),
      ['Rebuilt twice'],
    );
    assert.is((await readModel.checkpoint('revisions'))?.position, head);
    assert.is(await readModel.checkpoint('content'), null);
  } finally {
    release();
    for (const key of ['DATA_DIR', 'REDIS_URL', 'REDIS_PREFIX', 'PROJECTIONS_DIR']) {
      if (env[key] === undefined) delete process.env[key];
      else process.env[key] = env[key];
    }
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
