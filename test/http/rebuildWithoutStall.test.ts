/**
 * Writes do not wait for a projection that is being rebuilt. While one projection is refolded from the whole log (its
 * version changed at start on Redis, or a rebuild in place in memory), the others are applied as usual and a write
 * waits only for them: a post created meanwhile is answered at once, and correctly. The rebuilt projection catches up
 * with those writes once it is switched in; nothing is lost.
 *
 * The rebuild's own subscription (the only one that names no event types) is held at its first batch until the test
 * releases it, or until a safety release long after any prompt answer: a write that waits for the rebuild answers
 * only after that release, which the test sees.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';
import { holdRebuild, until } from '../support/rebuildGate';
import type { RebuildGate } from '../support/rebuildGate';
import { createRedisReadModel } from '../../src/adapters/redis/readModel';
import { createMemoryReadModel } from '../../src/adapters/memory/readModel';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import type { EventStore } from '../../src/ports/eventStore';
import type { ReadModel } from '../../src/ports/readModel';
import type { Projection } from '../../src/projection/projection';
import builtIn from '../../projections/index';
import content from '../../projections/content';
import wordCount from '../../projections/examples/publishedWordCount';

const test = suite('writes while a projection rebuilds');

const example = wordCount as unknown as Projection;
const bumped: Projection = { ...example, version: example.version + 1 };
const totalsUrl = '/projections/v1/published-word-count?per_page=100';
/** Long after any prompt answer; a write that waited for the rebuild answers only after it. */
const SAFETY_RELEASE_MS = 8_000;

/** Writes three published posts through a first site, which it then closes: the log and read model a restart finds. */
async function seed(store: EventStore, readModel: ReadModel): Promise<{ admin: TestUser; words: Record<string, number>; posts: number[]; menu: number }> {
  const first = await startTestSite({ store: { ...store, close: async () => {} }, readModel, projections: [...builtIn, example] });
  try {
    const admin = await first.createUser('admin', 'administrator');
    const posts: number[] = [];
    for (const content of ['one two three', 'four five', 'six']) {
      const created = await first.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Counted', content, status: 'publish' } });
      assert.is(created.status, 201);
      posts.push(created.body.id);
    }
    // A revision to restore that is not the current state: the second post retitled twice.
    for (const title of ['Recounted', 'Counted again']) {
      assert.is((await first.request('POST', `/core/v2/posts/${posts[1]}`, { as: admin, body: { title } })).status, 200);
    }
    const menu = await first.request('POST', '/core/v2/menus', { as: admin, body: { name: 'Main' } });
    assert.is(menu.status, 201);
    return { admin, words: await totals(first, admin), posts, menu: menu.body.id };
  } finally {
    await first.close();
  }
}

async function totals(t: TestSite, admin: TestUser): Promise<Record<string, number>> {
  const { status, body } = await t.request('GET', totalsUrl, { as: admin });
  assert.is(status, 200);
  return Object.fromEntries(body.map((doc: { id: string; words: number }) => [doc.id, doc.words]));
}

/** Creates a post while the rebuild is held: answered before the release, with the post as written. */
async function createWhileHeld(t: TestSite, admin: TestUser, gate: RebuildGate): Promise<number> {
  const created = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Written during the rebuild', content: 'seven eight nine ten', status: 'publish' } });
  assert.not.ok(gate.state.released, 'answered while the rebuild was still held (it did not wait for the rebuild)');
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.is(created.body.title.raw, 'Written during the rebuild');
  const read = await t.request('GET', `/core/v2/posts/${created.body.id}`);
  assert.is(read.status, 200);
  assert.is(read.body.title.rendered, 'Written during the rebuild');
  return created.body.id;
}

/**
 * A site on Redis over a seeded SQLite log, started with `projections` while the rebuild they cause is held at its
 * first batch; `body` runs while it is held (it may release it), and everything is torn down afterwards.
 */
async function whileRebuildingOnRedis(
  projections: Projection[],
  body: (fixture: { t: TestSite; seeded: Awaited<ReturnType<typeof seed>>; gate: RebuildGate; admin: Redis; prefix: string }) => Promise<void>,
): Promise<void> {
  const prefix = `test:rebuild-stall:${randomUUID()}:`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-rebuild-stall-'));
  const admin = new Redis(REDIS_URL);
  const connections = [admin, new Redis(REDIS_URL), new Redis(REDIS_URL)];
  const store = openSqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  let t: TestSite | null = null;
  const gate = holdRebuild(store, { safetyReleaseMs: SAFETY_RELEASE_MS });
  try {
    const seeded = await seed(store, createRedisReadModel({ redis: connections[1]!, prefix }));
    t = await startTestSite({
      store: gate.store,
      readModel: createRedisReadModel({ redis: connections[2]!, prefix }),
      projections,
      serveWhileStarting: true,
      readYourWritesTimeoutMs: 60_000,
    });
    await until(() => gate.state.held, 'the rebuild began', 20_000);
    await body({ t, seeded, gate, admin, prefix });
  } finally {
    gate.release();
    await t?.projectorStarted.catch(() => undefined);
    await t?.close();
    await store.close();
    await deleteKeysUnder(admin, prefix);
    for (const connection of connections) connection.disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('Redis: a projection whose version changed rebuilds at start; posts are created and read meanwhile', async () => {
  await whileRebuildingOnRedis([...builtIn, bumped], async ({ t, seeded, gate, admin, prefix }) => {
      await createWhileHeld(t, seeded.admin, gate);
      // The rebuilding projection answers from its old generation meanwhile: as it was, without the new post.
      assert.equal(await totals(t, seeded.admin), seeded.words);
      assert.is(Number(await admin.hget(`${prefix}gen:live`, 'published-word-count')), 0, 'not switched yet');

      gate.release();
      await t.projectorStarted;
      assert.is(Number(await admin.hget(`${prefix}gen:live`, 'published-word-count')), 1, 'the rebuilt generation is live');
      const [total] = Object.entries(seeded.words);
      assert.equal(await totals(t, seeded.admin), { [total![0]]: total![1] + 4 }, 'and it holds the post written during the rebuild');
      // Writes wait for every projection again, the rebuilt one included.
      const later = await t.request('POST', '/core/v2/posts', { as: seeded.admin, body: { title: 'After', content: 'eleven', status: 'publish' } });
      assert.is(later.status, 201);
      assert.equal(await totals(t, seeded.admin), { [total![0]]: total![1] + 5 });
  });
});

test('Redis: the content projection itself rebuilds at start; a post created or updated meanwhile is answered as written', async () => {
  const withContent = (projection: Projection) => builtIn.map((p) => (p.name === projection.name ? projection : p));
  await whileRebuildingOnRedis([...withContent({ ...(content as unknown as Projection), version: content.version + 1 }), example], async ({ t, seeded, gate }) => {
      const created = await t.request('POST', '/core/v2/posts', { as: seeded.admin, body: { title: 'Written during the rebuild', content: 'body', status: 'publish' } });
      assert.not.ok(gate.state.released, 'answered while the rebuild was still held');
      assert.is(created.status, 201, JSON.stringify(created.body));
      assert.is(created.body.title.raw, 'Written during the rebuild');
      const [old] = seeded.posts;
      const updated = await t.request('POST', `/core/v2/posts/${old}`, { as: seeded.admin, body: { title: 'Retitled during the rebuild' } });
      assert.not.ok(gate.state.released, 'answered while the rebuild was still held');
      assert.is(updated.status, 200, JSON.stringify(updated.body));
      assert.is(updated.body.title.raw, 'Retitled during the rebuild');
      // Reads of posts answer from the generation from before the rebuild until it is switched in.
      assert.is((await t.request('GET', `/core/v2/posts/${created.body.id}`)).status, 404);
      assert.is((await t.request('GET', `/core/v2/posts/${old}`)).body.title.rendered, 'Counted');

      gate.release();
      await t.projectorStarted;
      // Once switched in, the same items read back exactly as the writes answered them.
      const readBack = await t.request('GET', `/core/v2/posts/${created.body.id}?context=edit`, { as: seeded.admin });
      assert.equal(readBack.body, created.body);
      assert.equal((await t.request('GET', `/core/v2/posts/${old}?context=edit`, { as: seeded.admin })).body, updated.body);
  });
});

test('Redis: users, terms, menus and menu items rebuild at start; what is created or updated meanwhile is answered as written', async () => {
  const rebuilt = new Set(['users', 'terms', 'menus', 'menu-items']);
  await whileRebuildingOnRedis([...builtIn.map((p) => (rebuilt.has(p.name) ? { ...p, version: p.version + 1 } : p)), example], async ({ t, seeded, gate }) => {
      const as = seeded.admin;
      const writes: { url: string; answer: any }[] = [];
      const write = async (method: string, url: string, body: Record<string, unknown>, status: number, readUrl: (answer: any) => string) => {
        const response = await t!.request(method, url, { as, body });
        assert.not.ok(gate.state.released, `${method} ${url}: answered while the rebuild was still held`);
        assert.is(response.status, status, `${method} ${url}: ${JSON.stringify(response.body)}`);
        writes.push({ url: readUrl(response.body), answer: response.body });
        return response.body;
      };
      const user = await write('POST', '/core/v2/users', { username: 'grace', email: 'grace@example.test', password: 'hopper-1906' }, 201, (b) => `/core/v2/users/${b.id}?context=edit`);
      assert.is(user.username, 'grace');
      const category = await write('POST', '/core/v2/categories', { name: 'Written meanwhile' }, 201, (b) => `/core/v2/categories/${b.id}?context=edit`);
      assert.is(category.name, 'Written meanwhile');
      // An update of an item from before the rebuild (one created meanwhile cannot be found to update until the switch).
      const renamed = await write('POST', `/core/v2/menus/${seeded.menu}`, { name: 'Renamed meanwhile' }, 200, (b) => `/core/v2/menus/${b.id}?context=edit`);
      assert.is(renamed.name, 'Renamed meanwhile');
      const menu = await write('POST', '/core/v2/menus', { name: 'Footer' }, 201, (b) => `/core/v2/menus/${b.id}?context=edit`);
      assert.is(menu.name, 'Footer');
      const item = await write('POST', '/core/v2/menu-items', { title: 'Elsewhere', url: 'https://example.com/a', menus: seeded.menu }, 201, (b) => `/core/v2/menu-items/${b.id}?context=edit`);
      assert.is(item.title.raw, 'Elsewhere');

      gate.release();
      await t.projectorStarted;
      // Once switched in, every item reads back exactly as its write answered.
      for (const { url, answer } of writes) assert.equal((await t.request('GET', url, { as })).body, answer, url);
  });
});

test('Redis: content and revisions rebuild at start; an autosave and a restore made meanwhile are answered as written', async () => {
  const rebuilt = new Set(['content', 'revisions']);
  await whileRebuildingOnRedis([...builtIn.map((p) => (rebuilt.has(p.name) ? { ...p, version: p.version + 1 } : p)), example], async ({ t, seeded, gate }) => {
    const as = seeded.admin;
    const post = seeded.posts[1]!;
    const revisions = await t.request('GET', `/core/v2/posts/${post}/revisions?context=edit`, { as });
    assert.is(revisions.status, 200);
    const revision = revisions.body.find((entry: { title: { raw: string } }) => entry.title.raw === 'Recounted');
    assert.ok(revision, 'the seeded revision');
    const autosave = await t.request('POST', `/core/v2/posts/${post}/autosaves`, { as, body: { title: 'Autosaved meanwhile', content: 'draft words' } });
    assert.not.ok(gate.state.released, 'answered while the rebuild was still held');
    assert.is(autosave.status, 200, JSON.stringify(autosave.body));
    assert.is(autosave.body.parent, post);
    assert.is(autosave.body.title.raw, 'Autosaved meanwhile');
    const edited = await t.request('POST', `/core/v2/posts/${post}`, { as, body: { title: 'Edited meanwhile' } });
    assert.is(edited.body.title.raw, 'Edited meanwhile');
    const restored = await t.request('POST', `/core/v2/posts/${post}/revisions/${revision.id}/restore`, { as });
    assert.not.ok(gate.state.released, 'answered while the rebuild was still held');
    assert.is(restored.status, 200, JSON.stringify(restored.body));
    assert.is(restored.body.title.raw, 'Recounted', 'the restored title, not the one from before the rebuild');

    gate.release();
    await t.projectorStarted;
    // Once switched in, both read back as answered.
    const autosaves = await t.request('GET', `/core/v2/posts/${post}/autosaves?context=edit`, { as });
    assert.equal(autosaves.body[0], autosave.body);
    // (The restore's answer carries no action links, as before this test: compared without links.)
    const withoutLinks = ({ _links, ...fields }: Record<string, unknown>) => fields;
    assert.equal(withoutLinks((await t.request('GET', `/core/v2/posts/${post}?context=edit`, { as })).body), withoutLinks(restored.body));
  });
});

test('memory: a projection rebuilt in place; posts are created and read meanwhile', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-rebuild-stall-'));
  const store = openSqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const readModel = createMemoryReadModel();
  const gate = holdRebuild(store, { safetyReleaseMs: SAFETY_RELEASE_MS });
  let t: TestSite | null = null;
  try {
    const seeded = await seed(store, readModel);
    t = await startTestSite({ store: gate.store, readModel, projections: [...builtIn, example], readYourWritesTimeoutMs: 60_000 });
    const rebuilt = t.site.projector.rebuild(example.name);
    await until(() => gate.state.held, 'the rebuild began', 20_000);
    await createWhileHeld(t, seeded.admin, gate);
    gate.release();
    await rebuilt;
    const [total] = Object.entries(seeded.words);
    assert.equal(await totals(t, seeded.admin), { [total![0]]: total![1] + 4 }, 'the rebuilt projection holds the post written during the rebuild');
  } finally {
    gate.release();
    await t?.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
