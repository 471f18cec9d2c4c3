/**
 * Concurrent writers: ids and slugs stay unique without a read-model lookup, no update is lost, and the live
 * read model equals one rebuilt from the log. Run on the in-memory store and on the SQLite file store.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { Projector } from '../../src/projection/runner';
import builtInProjections from '../../projections/index';
import type { EventStore } from '../../src/ports/eventStore';
import type { ReadModel } from '../../src/ports/readModel';
import { testRedisReadModel } from '../support/redis';

interface Backend {
  store: EventStore;
  readModel?: ReadModel;
  cleanup(): void | Promise<void>;
}

const stores: [string, () => Backend][] = [
  ['memory store', () => ({ store: createMemoryEventStore(), cleanup() {} })],
  [
    'memory store, Redis read model',
    () => {
      const redis = testRedisReadModel();
      return { store: createMemoryEventStore(), readModel: redis.readModel, cleanup: redis.cleanup };
    },
  ],
  [
    'sqlite store',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-concurrency-'));
      return {
        store: openSqliteEventStore({ file: path.join(dir, 'events.sqlite') }),
        cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
];

/** Every document of every built-in collection, read back by listing with no filters. */
async function snapshot(readModel: ReadModel): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const projection of builtInProjections) {
    for (const collection of projection.collections) {
      const { items } = await readModel.query(collection, {
        filters: [],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: null,
      });
      out[collection] = items;
    }
  }
  return out;
}

for (const [name, open] of stores) {
  const test = suite(`concurrent writes (${name})`);
  let t: TestSite;
  let admin: TestUser;
  let cleanup: () => void | Promise<void>;

  test.before.each(async () => {
    const opened = open();
    cleanup = opened.cleanup;
    t = await startTestSite({ store: opened.store, readModel: opened.readModel });
    admin = await t.createUser('admin', 'administrator');
  });
  test.after.each(async () => {
    // Cleanup first: it needs the Redis client that closing the site quits.
    await cleanup();
    await t.close();
  });

  test('20 concurrent creates with one title get 20 distinct ids and the slugs title … title-20', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Same Title', status: 'publish' } }),
      ),
    );
    for (const response of responses) assert.is(response.status, 201, JSON.stringify(response.body));
    const ids = responses.map((r) => r.body.id as number);
    assert.is(new Set(ids).size, 20);
    const slugs = responses.map((r) => r.body.slug as string).sort();
    const expected = ['same-title', ...Array.from({ length: 19 }, (_, i) => `same-title-${i + 2}`)].sort();
    assert.equal(slugs, expected);
    // Every created post is listed at once (read-your-writes), each with its own slug.
    const list = await t.request('GET', '/core/v2/posts?per_page=100&orderby=slug&order=asc');
    assert.is(list.headers.get('x-wp-total'), '20');
  });

  test('20 concurrent updates of one post: 20 events appended, none lost, read model equal to a rebuild', async () => {
    const created = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Start', status: 'publish' },
    });
    const id = created.body.id as number;
    const updates = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.request('PATCH', `/core/v2/posts/${id}`, {
          as: admin,
          body: { content: `version ${i}`, excerpt: `excerpt ${i}` },
        }),
      ),
    );
    for (const response of updates) assert.is(response.status, 200, JSON.stringify(response.body));

    const stream = await t.site.store.readStream(`content-${id}`);
    assert.is(stream.filter((e) => e.type === 'PostUpdated').length, 20);
    // Each update changed the content, so each made a revision (the first one always does).
    assert.is(stream.filter((e) => e.type === 'PostRevised').length, 20);
    const lastContent = stream.filter((e) => e.type === 'PostUpdated').at(-1)!.data as {
      changes: { content?: string };
    };
    const current = await t.request('GET', `/core/v2/posts/${id}?context=edit`, { as: admin });
    assert.is(current.body.content.raw, lastContent.changes.content);
    assert.is(current.body._links['version-history'][0].count, 20);

    const rebuilt = createMemoryReadModel();
    const projector = new Projector({ store: t.site.store, readModel: rebuilt, projections: builtInProjections });
    await projector.start();
    await projector.stop();
    assert.equal(await snapshot(rebuilt), await snapshot(t.site.readModel));
  });

  test.run();
}
