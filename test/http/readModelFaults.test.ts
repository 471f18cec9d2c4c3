/**
 * The read model's faults, on the production shape: an API node (`serve --no-projector`) and projectors sharing a
 * Redis read model under the lease, on EventStoreDB (the real client against the test server) or SQLite.
 * - Redis flushed under a running site: the lease holder rebuilds it on its own, and the site serves it whole again;
 * - Redis flushed while no projector runs: /readyz says so, and the API answers 503 (not empty lists, not 401s for
 *   valid credentials) until a projector has rebuilt it;
 * - the event store restored from an older backup (and written to since): nothing is served or overwritten;
 * - a read model built from another log: likewise, until an operator clears it, which the projector then rebuilds.
 * Every wait is bounded; each test uses its own Redis prefix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { startFakeEventStoreDb } from '../support/esdb/server';
import type { FakeEventStoreDb } from '../support/esdb/server';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';
import { createEventStoreDbEventStore } from '../../src/adapters/eventstoredb/eventStore';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { openReadModel } from '../../src/bootstrap';
import { loadConfig } from '../../src/config';
import type { EventStore } from '../../src/ports/eventStore';

const test = suite('read model faults');

/** Polls `condition` every 20 ms; fails after `limitMs`, which only a broken behaviour reaches. */
async function until(condition: () => Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A node sharing the Redis read model under `prefix`: a projector (under the lease) or an API node. */
async function node(store: EventStore, prefix: string, role: 'projector' | 'api'): Promise<TestSite> {
  const { readModel, coordination } = await openReadModel(
    loadConfig({ REDIS_URL, REDIS_PREFIX: prefix, PROJECTOR_LEASE_MS: '300' }),
  );
  return startTestSite({ store, readModel, coordination, apiOnly: role === 'api', readinessCheckMs: 50 });
}

async function publishPosts(t: TestSite, admin: TestUser, count: number, title = 'Post'): Promise<void> {
  for (let i = 0; i < count; i++) {
    const created = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: `${title} ${i}`, status: 'publish' },
    });
    assert.is(created.status, 201, created.text);
  }
}

/** Whether the node serves the whole site again: ready, every post listed, the admin's credentials accepted. */
const servesWhole = (t: TestSite, admin: TestUser, posts: number) => async () => {
  if ((await t.request('GET', '/readyz')).status !== 200) return false;
  const listed = await t.request('GET', '/core/v2/posts');
  return (
    listed.status === 200 &&
    listed.body.length === posts &&
    (await t.request('GET', '/core/v2/users/me', { as: admin })).status === 200
  );
};

interface Shared {
  prefix: string;
  admin: Redis;
  server: FakeEventStoreDb;
  sites: TestSite[];
}

async function shared(): Promise<Shared> {
  return {
    prefix: `test:read-model-faults:${randomUUID()}:`,
    admin: new Redis(REDIS_URL),
    server: await startFakeEventStoreDb(),
    sites: [],
  };
}

async function cleanup({ prefix, admin, server, sites }: Shared): Promise<void> {
  for (const site of sites) await site.close().catch(() => undefined);
  await deleteKeysUnder(admin, prefix);
  admin.disconnect();
  await server.close();
}

const esdb = (s: Shared) =>
  createEventStoreDbEventStore({
    connectionString: s.server.connectionString,
    resubscribeDelayMs: { first: 20, longest: 200 },
  });

test('Redis flushed under a running site (two projectors, two API nodes): the lease holder rebuilds it, and it is served whole again', async () => {
  const s = await shared();
  try {
    for (let i = 0; i < 2; i++) s.sites.push(await node(esdb(s), s.prefix, 'projector'));
    const apis = [await node(esdb(s), s.prefix, 'api'), await node(esdb(s), s.prefix, 'api')];
    s.sites.push(...apis);
    const admin = await apis[0]!.createUser('admin', 'administrator');
    await publishPosts(apis[1]!, admin, 3);
    for (const api of apis) await until(servesWhole(api, admin, 3), 'each API node serves the site');
    await deleteKeysUnder(s.admin, s.prefix);
    await until(async () => (await s.admin.exists(`${s.prefix}checkpoints`)) === 1, 'a projector writing again');
    for (const api of apis) {
      await until(servesWhole(api, admin, 3), 'each API node serves the rebuilt site whole');
      assert.is((await api.request('GET', '/readyz')).body.checks.readModel.state, 'trusted');
    }
    // The gauge is read at each scrape.
    const scraped = await Promise.all(s.sites.map((site) => site.site.metrics.registry.render()));
    const active = scraped.filter((text) => /^palimpsest_projector_active 1$/m.test(text));
    assert.is(active.length, 1, 'one projector holds the lease');
  } finally {
    await cleanup(s);
  }
});

test('Redis flushed while no projector runs: not ready, 503 with Retry-After (no empty lists, no 401), until a projector rebuilds it', async () => {
  const s = await shared();
  try {
    const first = await node(esdb(s), s.prefix, 'projector');
    const api = await node(esdb(s), s.prefix, 'api');
    s.sites.push(api);
    const admin = await api.createUser('admin', 'administrator');
    await publishPosts(api, admin, 2);
    await first.close();
    await deleteKeysUnder(s.admin, s.prefix);
    await api.site.readModelWatch.refresh();

    const ready = await api.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.is(ready.body.checks.readModel.state, 'unbuilt');
    assert.match(ready.body.checks.readModel.error, /no epoch/);
    assert.is(ready.body.checks.projector.applied, 0, 'the applied position is read afresh, not remembered');
    for (const [path, as] of [
      ['/core/v2/posts', null],
      ['/core/v2/users/me', admin],
    ] as const) {
      const refused = await api.request('GET', path, { as });
      assert.is(refused.status, 503, `${path}: ${refused.text}`);
      assert.is(refused.headers.get('retry-after'), '5');
      assert.is(refused.body.code, 'rest_read_model_unavailable');
    }

    const second = await node(esdb(s), s.prefix, 'projector');
    s.sites.push(second);
    await until(servesWhole(api, admin, 2), 'the API node serves the rebuilt site whole');
  } finally {
    await cleanup(s);
  }
});

test('EventStoreDB restored from an older backup, then written to: not served, and the read model is not overwritten', async () => {
  const s = await shared();
  try {
    const projector = await node(esdb(s), s.prefix, 'projector');
    s.sites.push(projector);
    const api = await node(esdb(s), s.prefix, 'api');
    s.sites.push(api);
    const admin = await api.createUser('admin', 'administrator');
    await publishPosts(api, admin, 2, 'Kept');
    const backup = s.server.log.events.length;
    await publishPosts(api, admin, 2, 'Lost');
    await until(servesWhole(api, admin, 4), 'the API node serves the site');
    await until(
      async () =>
        (await api.request('GET', '/readyz')).body.checks.readModel.epoch?.position ===
        (await api.site.store.headPosition()),
      'the epoch at the head',
    );

    await s.server.restoreBackup(backup);
    await until(
      async () => (await api.request('GET', '/readyz')).body.checks.readModel.state === 'ahead',
      'the API node judging the read model ahead of the store',
    );
    const ready = await api.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.match(ready.body.checks.readModel.error, /older backup/);
    const refused = await api.request('GET', '/core/v2/posts');
    assert.is(refused.status, 503);
    assert.is(refused.headers.get('retry-after'), '30');
    await until(async () => projector.site.projector.refusal !== null, 'the projector stopping');

    // Written to since: new events land where the lost ones were; the event there is not the one applied.
    const writer = esdb(s);
    try {
      const lostAt = (await api.request('GET', '/readyz')).body.checks.readModel.epoch.position as number;
      while ((await writer.headPosition()) < lostAt) {
        await writer.appendToStream(
          `other-${randomUUID()}`,
          [
            {
              type: 'Nothing',
              data: { pad: 'x'.repeat(200) },
              metadata: { userId: null, requestId: 'w', at: new Date(0).toISOString() },
            },
          ],
          { expectedRevision: 'no_stream' },
        );
      }
    } finally {
      await writer.close();
    }
    await api.site.readModelWatch.refresh();
    assert.is((await api.request('GET', '/readyz')).body.checks.readModel.state, 'ahead');
    assert.is((await api.request('GET', '/core/v2/posts')).status, 503);
    const kept = await createRedisReadModel({ redis: s.admin, prefix: s.prefix }).query('post', {
      filters: [],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: null,
    });
    assert.is(kept.total, 4, 'the read model still holds what the lost events made');
  } finally {
    await cleanup(s);
  }
});

test('SQLite restored from an older backup (positions are counts there), then written to past the read model: not served', async () => {
  const s = await shared();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-faults-'));
  const file = path.join(dir, 'events.sqlite');
  try {
    const first = await node(openSqliteEventStore({ file }), s.prefix, 'projector');
    const admin = await first.createUser('admin', 'administrator');
    await publishPosts(first, admin, 2, 'Kept');
    await new Database(file).backup(path.join(dir, 'backup.sqlite'));
    await publishPosts(first, admin, 2, 'Lost');
    await until(
      async () =>
        (await first.request('GET', '/readyz')).body.checks.readModel.epoch?.position ===
        (await first.site.store.headPosition()),
      'the epoch at the head',
    );
    const applied = (await first.request('GET', '/readyz')).body.checks.readModel.epoch.position as number;
    await first.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    fs.renameSync(path.join(dir, 'backup.sqlite'), file);

    const restored = openSqliteEventStore({ file });
    // Written to since, past the position the read model applied.
    while ((await restored.headPosition()) <= applied) {
      await restored.appendToStream(
        `other-${randomUUID()}`,
        [{ type: 'Nothing', data: {}, metadata: { userId: null, requestId: 'w', at: new Date(0).toISOString() } }],
        { expectedRevision: 'no_stream' },
      );
    }
    const second = await node(restored, s.prefix, 'projector');
    s.sites.push(second);
    assert.ok(second.site.projector.refusal !== null, 'the projector applies nothing');
    const ready = await second.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.is(ready.body.checks.readModel.state, 'ahead');
    assert.match(ready.body.checks.readModel.error, new RegExp(`applied at position ${applied}`));
    assert.is((await second.request('GET', '/core/v2/posts')).status, 503);
  } finally {
    await cleanup(s);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a read model built from another log: not served nor overwritten; once an operator clears it, the projector rebuilds it', async () => {
  const s = await shared();
  try {
    const first = await node(createMemoryEventStore(), s.prefix, 'projector');
    const admin = await first.createUser('admin', 'administrator');
    await publishPosts(first, admin, 3, 'First log');
    // Built from that log once its epoch names it (recorded within a readiness check of the writes).
    await until(
      async () => (await first.request('GET', '/readyz')).body.checks.readModel.epoch?.log != null,
      'the epoch names the first log',
    );
    await first.close();

    const other = createMemoryEventStore();
    await other.appendToStream(
      'elsewhere',
      [{ type: 'Nothing', data: {}, metadata: { userId: null, requestId: 'w', at: new Date(0).toISOString() } }],
      { expectedRevision: 'no_stream' },
    );
    const second = await node(other, s.prefix, 'projector');
    s.sites.push(second);
    const ready = await second.request('GET', '/readyz');
    assert.match(
      second.site.projector.refusal ?? '',
      /another log/,
      `refusal ${second.site.projector.refusal}; /readyz ${ready.text}`,
    );
    assert.is(ready.status, 503);
    assert.is(ready.body.checks.readModel.state, 'foreign');
    assert.is((await second.request('GET', '/core/v2/posts')).status, 503);

    await deleteKeysUnder(s.admin, s.prefix);
    await until(
      async () => (await second.request('GET', '/readyz')).status === 200,
      'the cleared read model rebuilt from this log',
    );
    const listed = await second.request('GET', '/core/v2/posts');
    assert.is(listed.status, 200);
    assert.is(listed.body.length, 0, 'this log has no posts');
  } finally {
    await cleanup(s);
  }
});

test.run();
