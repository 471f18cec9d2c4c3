/**
 * Writes do not wait for a projection that is being rebuilt. While one projection is refolded from the whole log (its
 * version changed at start on Redis, or a rebuild in place in memory), the others are applied as usual and a write
 * waits only for them: a post created meanwhile is answered at once, and correctly. The rebuilt projection catches up
 * with those writes once it is switched in; nothing is lost.
 *
 * The rebuild's own subscription (the only one from the start of the log) is held at its first batch until the test
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
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
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
async function seed(
  store: EventStore,
  readModel: ReadModel,
): Promise<{ admin: TestUser; words: Record<string, number>; posts: number[]; menu: number }> {
  const first = await startTestSite({
    store: { ...store, close: async () => {} },
    readModel,
    projections: [...builtIn, example],
  });
  try {
    const admin = await first.createUser('admin', 'administrator');
    const posts: number[] = [];
    for (const content of ['one two three', 'four five', 'six']) {
      const created = await first.request('POST', '/core/v2/posts', {
        as: admin,
        body: { title: 'Counted', content, status: 'publish' },
      });
      assert.is(created.status, 201);
      posts.push(created.body.id);
    }
    // A revision to restore that is not the current state: the second post retitled twice.
    for (const title of ['Recounted', 'Counted again']) {
      assert.is(
        (await first.request('POST', `/core/v2/posts/${posts[1]}`, { as: admin, body: { title } })).status,
        200,
      );
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
  const created = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Written during the rebuild', content: 'seven eight nine ten', status: 'publish' },
  });
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
  body: (fixture: {
    t: TestSite;
    seeded: Awaited<ReturnType<typeof seed>>;
    gate: RebuildGate;
    admin: Redis;
    prefix: string;
  }) => Promise<void>,
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
    assert.is(
      Number(await admin.hget(`${prefix}gen:live`, 'published-word-count')),
      1,
      'the rebuilt generation is live',
    );
    const [total] = Object.entries(seeded.words);
    assert.equal(
      await totals(t, seeded.admin),
      { [total![0]]: total![1] + 4 },
      'and it holds the post written during the rebuild',
    );
    // Writes wait for every projection again, the rebuilt one included.
    const later = await t.request('POST', '/core/v2/posts', {
      as: seeded.admin,
      body: { title: 'After', content: 'eleven', status: 'publish' },
    });
    assert.is(later.status, 201);
    assert.equal(await totals(t, seeded.admin), { [total![0]]: total![1] + 5 });
  });
});

test('Redis: the content and media projections rebuild at start; posts and media created or updated meanwhile are answered as written, and read, updated and deleted by id', async () => {
  const rebuilt = new Set([content.name, 'media']);
  await whileRebuildingOnRedis(
    [...builtIn.map((p) => (rebuilt.has(p.name) ? { ...p, version: p.version + 1 } : p)), example],
    async ({ t, seeded, gate }) => {
      const created = await t.request('POST', '/core/v2/posts', {
        as: seeded.admin,
        body: { title: 'Written during the rebuild', content: 'body', status: 'publish' },
      });
      assert.not.ok(gate.state.released, 'answered while the rebuild was still held');
      assert.is(created.status, 201, JSON.stringify(created.body));
      assert.is(created.body.title.raw, 'Written during the rebuild');
      const [old] = seeded.posts;
      const updated = await t.request('POST', `/core/v2/posts/${old}`, {
        as: seeded.admin,
        body: { title: 'Retitled during the rebuild' },
      });
      assert.not.ok(gate.state.released, 'answered while the rebuild was still held');
      assert.is(updated.status, 200, JSON.stringify(updated.body));
      assert.is(updated.body.title.raw, 'Retitled during the rebuild');
      // The item routes find them as the log has them (folded from their streams), not as the old generation does.
      const as = seeded.admin;
      const createdRead = await t.request('GET', `/core/v2/posts/${created.body.id}?context=edit`, { as });
      assert.equal([createdRead.status, createdRead.body], [200, created.body]);
      assert.is(
        (await t.request('GET', `/core/v2/posts/${created.body.id}`)).body.title.rendered,
        'Written during the rebuild',
        'anonymously too',
      );
      assert.equal((await t.request('GET', `/core/v2/posts/${old}?context=edit`, { as })).body, updated.body);
      const page = await t.request('POST', '/core/v2/pages', {
        as,
        body: { title: 'A page written meanwhile', status: 'publish' },
      });
      assert.is(page.status, 201);
      const pageUpdated = await t.request('POST', `/core/v2/pages/${page.body.id}`, {
        as,
        body: { title: 'Its new title' },
      });
      assert.equal([pageUpdated.status, pageUpdated.body.title.raw], [200, 'Its new title']);
      const trashed = await t.request('DELETE', `/core/v2/pages/${page.body.id}`, { as });
      assert.equal([trashed.status, trashed.body.status], [200, 'trash']);
      const deleted = await t.request('DELETE', `/core/v2/pages/${page.body.id}?force=true`, { as });
      assert.equal(
        [deleted.status, deleted.body.deleted, deleted.body.previous.title.raw],
        [200, true, 'Its new title'],
      );
      assert.is((await t.request('GET', `/core/v2/pages/${page.body.id}`, { as })).status, 404, 'deleted for good');
      const upload = await t.request('POST', '/core/v2/media', {
        as,
        raw: { data: 'notes', type: 'text/plain' },
        headers: { 'Content-Disposition': 'attachment; filename=notes.txt' },
      });
      assert.is(upload.status, 201, JSON.stringify(upload.body));
      const captioned = await t.request('POST', `/core/v2/media/${upload.body.id}`, {
        as,
        body: { caption: 'Captioned meanwhile' },
      });
      assert.equal([captioned.status, captioned.body.caption.raw], [200, 'Captioned meanwhile']);
      assert.equal(
        (await t.request('GET', `/core/v2/media/${upload.body.id}?context=edit`, { as })).body,
        captioned.body,
      );
      assert.not.ok(gate.state.released, 'all of it while the rebuild was still held');

      gate.release();
      await t.projectorStarted;
      // Once switched in, the same items read back exactly as the writes answered them.
      const readBack = await t.request('GET', `/core/v2/posts/${created.body.id}?context=edit`, { as: seeded.admin });
      assert.equal(readBack.body, created.body);
      assert.equal(
        (await t.request('GET', `/core/v2/posts/${old}?context=edit`, { as: seeded.admin })).body,
        updated.body,
      );
      assert.equal(
        (await t.request('GET', `/core/v2/media/${upload.body.id}?context=edit`, { as })).body,
        captioned.body,
      );
      assert.is((await t.request('GET', `/core/v2/pages/${page.body.id}`, { as })).status, 404);
    },
  );
});

test('Redis: users, terms, menus and menu items rebuild at start; what is created or updated meanwhile is answered as written', async () => {
  const rebuilt = new Set(['users', 'terms', 'menus', 'menu-items']);
  await whileRebuildingOnRedis(
    [...builtIn.map((p) => (rebuilt.has(p.name) ? { ...p, version: p.version + 1 } : p)), example],
    async ({ t, seeded, gate }) => {
      const as = seeded.admin;
      /** Each item's read URL and the answer of its latest write. */
      const answers = new Map<string, any>();
      const write = async (
        method: string,
        url: string,
        body: Record<string, unknown>,
        status: number,
        readUrl: (answer: any) => string,
      ) => {
        const response = await t!.request(method, url, { as, body });
        assert.not.ok(gate.state.released, `${method} ${url}: answered while the rebuild was still held`);
        assert.is(response.status, status, `${method} ${url}: ${JSON.stringify(response.body)}`);
        answers.set(readUrl(response.body), response.body);
        return response.body;
      };
      const user = await write(
        'POST',
        '/core/v2/users',
        { username: 'grace', email: 'grace@example.test', password: 'hopper-1906' },
        201,
        (b) => `/core/v2/users/${b.id}?context=edit`,
      );
      assert.is(user.username, 'grace');
      const category = await write(
        'POST',
        '/core/v2/categories',
        { name: 'Written meanwhile' },
        201,
        (b) => `/core/v2/categories/${b.id}?context=edit`,
      );
      assert.is(category.name, 'Written meanwhile');
      // An update of an item from before the rebuild.
      const renamed = await write(
        'POST',
        `/core/v2/menus/${seeded.menu}`,
        { name: 'Renamed meanwhile' },
        200,
        (b) => `/core/v2/menus/${b.id}?context=edit`,
      );
      assert.is(renamed.name, 'Renamed meanwhile');
      const menu = await write(
        'POST',
        '/core/v2/menus',
        { name: 'Footer' },
        201,
        (b) => `/core/v2/menus/${b.id}?context=edit`,
      );
      assert.is(menu.name, 'Footer');
      const item = await write(
        'POST',
        '/core/v2/menu-items',
        { title: 'Elsewhere', url: 'https://example.com/a', menus: seeded.menu },
        201,
        (b) => `/core/v2/menu-items/${b.id}?context=edit`,
      );
      assert.is(item.title.raw, 'Elsewhere');
      // What was created meanwhile is read, updated and deleted by id as the log has it, before the switch.
      for (const [url, answer] of answers)
        assert.equal((await t.request('GET', url, { as })).body, answer, `${url} before the switch`);
      await write(
        'POST',
        `/core/v2/users/${user.id}`,
        { name: 'Grace Hopper' },
        200,
        (b) => `/core/v2/users/${b.id}?context=edit`,
      );
      await write(
        'POST',
        `/core/v2/menus/${menu.id}`,
        { name: 'Footer renamed' },
        200,
        (b) => `/core/v2/menus/${b.id}?context=edit`,
      );
      await write(
        'POST',
        `/core/v2/menu-items/${item.id}`,
        { title: 'Elsewhere retitled' },
        200,
        (b) => `/core/v2/menu-items/${b.id}?context=edit`,
      );
      const categoryUrl = `/core/v2/categories/${category.id}?context=edit`;
      const gone = await write('DELETE', `/core/v2/categories/${category.id}?force=true`, {}, 200, () => categoryUrl);
      assert.is(gone.previous.name, 'Written meanwhile');
      answers.delete(categoryUrl);
      assert.is((await t.request('GET', categoryUrl, { as })).status, 404, 'the category deleted meanwhile');

      gate.release();
      await t.projectorStarted;
      // Once switched in, every item reads back exactly as its latest write answered.
      for (const [url, answer] of answers) assert.equal((await t.request('GET', url, { as })).body, answer, url);
      assert.is((await t.request('GET', categoryUrl, { as })).status, 404);
    },
  );
});

test('Redis: while users rebuild at start, a sign-in is judged by the account as the log has it, never by stale documents', async () => {
  const users = new Set(['users']);
  await whileRebuildingOnRedis(
    [...builtIn.map((p) => (users.has(p.name) ? { ...p, version: p.version + 1 } : p)), example],
    async ({ t, seeded, gate }) => {
      const basic = (login: string, password: string) => ({
        authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
      });
      // A password made meanwhile opens the account, although the old documents do not have it; revoked, it does not.
      const made = await t.request('POST', '/core/v2/users/me/application-passwords', {
        as: seeded.admin,
        body: { name: 'meanwhile' },
      });
      assert.is(made.status, 201, made.text);
      assert.is(
        (await t.request('GET', '/core/v2/users/me', { headers: basic('admin', made.body.password) })).status,
        200,
      );
      assert.is(
        (await t.request('DELETE', `/core/v2/users/me/application-passwords/${made.body.uuid}`, { as: seeded.admin }))
          .status,
        200,
      );
      const revoked = await t.request('GET', '/core/v2/users/me', { headers: basic('admin', made.body.password) });
      assert.is(revoked.status, 401);
      assert.is(revoked.body.code, 'incorrect_password');
      // An account created meanwhile is not in the old documents: its sign-ins are not judged (nor counted) until the switch.
      const grace = await t.request('POST', '/core/v2/users', {
        as: seeded.admin,
        body: { username: 'grace', email: 'grace@example.test', password: 'hopper-1906', roles: ['editor'] },
      });
      assert.is(grace.status, 201, grace.text);
      for (let i = 0; i < 12; i++) {
        const unjudged = await t.request('GET', '/core/v2/users/me', { headers: basic('grace', `guess-${i}`) });
        assert.is(unjudged.status, 503, unjudged.text);
        assert.is(unjudged.body.code, 'rest_sign_in_unavailable');
        assert.is(unjudged.headers.get('retry-after'), '5');
      }
      assert.not.ok(gate.state.released, 'all of it while the rebuild was held');
      gate.release();
      await t.projectorStarted;
      // More guesses than the throttle allows were made, but none was judged: this one is, and is refused as wrong.
      const judged = await t.request('GET', '/core/v2/users/me', { headers: basic('grace', 'guess-after') });
      assert.is(judged.status, 401, judged.text);
      assert.is(judged.body.code, 'incorrect_password');
    },
  );
});

test('Redis: content and revisions rebuild at start; an autosave and a restore made meanwhile are answered as written', async () => {
  const rebuilt = new Set(['content', 'revisions']);
  await whileRebuildingOnRedis(
    [...builtIn.map((p) => (rebuilt.has(p.name) ? { ...p, version: p.version + 1 } : p)), example],
    async ({ t, seeded, gate }) => {
      const as = seeded.admin;
      const post = seeded.posts[1]!;
      const revisions = await t.request('GET', `/core/v2/posts/${post}/revisions?context=edit`, { as });
      assert.is(revisions.status, 200);
      const revision = revisions.body.find((entry: { title: { raw: string } }) => entry.title.raw === 'Recounted');
      assert.ok(revision, 'the seeded revision');
      const autosave = await t.request('POST', `/core/v2/posts/${post}/autosaves`, {
        as,
        body: { title: 'Autosaved meanwhile', content: 'draft words' },
      });
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
      assert.equal((await t.request('GET', `/core/v2/posts/${post}?context=edit`, { as })).body, restored.body);
    },
  );
});

test('memory: a projection rebuilt in place; posts are created and read meanwhile', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-rebuild-stall-'));
  const store = openSqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const readModel = createMemoryReadModel();
  const gate = holdRebuild(store, { safetyReleaseMs: SAFETY_RELEASE_MS });
  let t: TestSite | null = null;
  try {
    const seeded = await seed(store, readModel);
    t = await startTestSite({
      store: gate.store,
      readModel,
      projections: [...builtIn, example],
      readYourWritesTimeoutMs: 60_000,
    });
    const rebuilt = t.site.projector.rebuild(example.name);
    await until(() => gate.state.held, 'the rebuild began', 20_000);
    await createWhileHeld(t, seeded.admin, gate);
    gate.release();
    await rebuilt;
    const [total] = Object.entries(seeded.words);
    assert.equal(
      await totals(t, seeded.admin),
      { [total![0]]: total![1] + 4 },
      'the rebuilt projection holds the post written during the rebuild',
    );
  } finally {
    gate.release();
    await t?.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('memory: the content projection rebuilt in place; its items are read and updated by id meanwhile, folded from their streams', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-rebuild-stall-'));
  const store = openSqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const readModel = createMemoryReadModel();
  const gate = holdRebuild(store, { safetyReleaseMs: SAFETY_RELEASE_MS });
  let t: TestSite | null = null;
  try {
    const seeded = await seed(store, readModel);
    t = await startTestSite({
      store: gate.store,
      readModel,
      projections: [...builtIn, example],
      readYourWritesTimeoutMs: 60_000,
    });
    const as = seeded.admin;
    const [post] = seeded.posts;
    const before = await t.request('GET', `/core/v2/posts/${post}?context=edit`, { as });
    const rebuilt = t.site.projector.rebuild(content.name);
    await until(() => gate.state.held, 'the rebuild began', 20_000);
    // The rebuild emptied the content collections; the item route folds the post from its stream.
    assert.equal(
      (await t.request('GET', `/core/v2/posts?include=${post}`, { as })).body,
      [],
      'the list is being rebuilt',
    );
    const read = await t.request('GET', `/core/v2/posts/${post}?context=edit`, { as });
    assert.equal([read.status, read.body], [200, before.body]);
    const updated = await t.request('POST', `/core/v2/posts/${post}`, {
      as,
      body: { title: 'Retitled during the rebuild' },
    });
    assert.equal([updated.status, updated.body.title.raw], [200, 'Retitled during the rebuild']);
    assert.equal((await t.request('GET', `/core/v2/posts/${post}?context=edit`, { as })).body, updated.body);
    assert.not.ok(gate.state.released, 'all of it while the rebuild was still held');
    gate.release();
    await rebuilt;
    assert.equal((await t.request('GET', `/core/v2/posts/${post}?context=edit`, { as })).body, updated.body);
  } finally {
    gate.release();
    await t?.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
