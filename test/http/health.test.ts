/**
 * /healthz, /readyz and /metrics through the real app, on every event store (memory, SQLite, EventStoreDB through its
 * real client against the test server) and both read models (in process, Redis): the lag in events and seconds, and
 * the read model's epoch (removed under a stopped and under a running projector).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { createEventStoreDbEventStore } from '../../src/adapters/eventstoredb/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { EventStore } from '../../src/ports/eventStore';
import type { ReadModel } from '../../src/ports/readModel';
import { EPOCH_CHECKPOINT, EPOCH_COLLECTION } from '../../src/projection/epoch';
import { startFakeEventStoreDb } from '../support/esdb/server';
import { testRedisReadModel } from '../support/redis';

interface Adapters {
  store: EventStore;
  readModel: ReadModel;
  /** After the site (which closes the store and the read model) is closed. */
  cleanup(): Promise<void>;
}

interface Context {
  t: TestSite;
  adapters: Adapters;
  /** Projections cleared by the read model (the spy around it). */
  resets: string[];
}

const old = (type: string) => ({
  type,
  data: {},
  metadata: { userId: null, requestId: 'r', at: '2000-01-01T00:00:00.000Z' },
});

/** Polls `condition` every 20 ms; fails after `limitMs`, which only a broken behaviour reaches, saying `state()`. */
async function until(
  condition: () => Promise<boolean>,
  what: string,
  limitMs = 15_000,
  state?: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      assert.unreachable(`timed out waiting until ${what}${state ? ` (${await state()})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The read model, with the projections it is told to forget recorded. */
function spied(readModel: ReadModel, resets: string[]): ReadModel {
  return new Proxy(readModel, {
    get(target, property, receiver) {
      if (property === 'reset') {
        return (name: string, collections: readonly string[]) => {
          resets.push(name);
          return target.reset(name, collections);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function publishPosts(t: TestSite, admin: TestUser, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const created = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: `Post ${i}`, status: 'publish' },
    });
    assert.is(created.status, 201, created.text);
  }
}

function healthSuite(name: string, open: () => Promise<Adapters>) {
  const test = suite<Context>(`health and metrics: ${name}`, {} as Context);

  test.before.each(async (context) => {
    context.adapters = await open();
    context.resets = [];
    context.t = await startTestSite({
      store: context.adapters.store,
      readModel: spied(context.adapters.readModel, context.resets),
      readinessCheckMs: 50,
    });
  });
  test.after.each(async ({ t, adapters }) => {
    await t.close();
    await adapters.cleanup();
  });

  test('/healthz answers while the process lives', async ({ t }) => {
    const response = await t.request('GET', '/healthz');
    assert.is(response.status, 200);
    assert.equal(response.body, { status: 'ok' });
  });

  test('/readyz checks the event store, the read model and its epoch, and the projector lag', async ({
    t,
    adapters,
  }) => {
    await t.createUser('admin', 'administrator');
    // Recorded when the projector started (the log was empty), then again as the applied position moves.
    let response = await t.request('GET', '/readyz');
    await until(
      async () => (response = await t.request('GET', '/readyz')).body.checks.readModel.epoch?.log != null,
      'the epoch names the log',
    );
    assert.is(response.status, 200, response.text);
    assert.is(response.body.status, 'ready');
    assert.equal(Object.keys(response.body.checks).sort(), ['eventStore', 'projector', 'readModel']);
    const [first] = await adapters.store.readAll({ maxCount: 1 });
    const head = await adapters.store.headPosition();
    assert.is(response.body.checks.eventStore.head, head);
    assert.is(response.body.checks.readModel.state, 'trusted');
    assert.is(response.body.checks.readModel.epoch.log, first!.id, 'the epoch names the log by its first event');
    assert.equal(
      {
        applied: response.body.checks.projector.applied,
        lagEvents: response.body.checks.projector.lagEvents,
        lagSeconds: response.body.checks.projector.lagSeconds,
      },
      { applied: head, lagEvents: 0, lagSeconds: 0 },
    );
  });

  test("/readyz and the lag gauges report unapplied events, counted in the store's positions", async ({
    t,
    adapters,
  }) => {
    await t.createUser('admin', 'administrator');
    await t.site.projector.stop();
    for (let i = 0; i < 3; i++)
      await adapters.store.appendToStream(`unprojected-${i}`, [old('Nothing')], { expectedRevision: 'no_stream' });
    const response = await t.request('GET', '/readyz');
    assert.is(response.status, 503);
    assert.is(response.body.checks.readModel.ok, true, "the read model is this log's: only behind");
    assert.is(response.body.checks.projector.ok, false);
    assert.is(response.body.checks.projector.lagEvents, 3);
    assert.ok(response.body.checks.projector.lagSeconds > 30);
    assert.match(response.body.checks.projector.error, /behind the log \(bound 30 s\)/);
    const metrics = await t.request('GET', '/metrics');
    assert.match(metrics.text, /palimpsest_projector_lag_events 3\n/);
    const seconds = Number(/^palimpsest_projector_lag_seconds (\S+)$/m.exec(metrics.text)?.[1]);
    assert.ok(seconds > 30 * 24 * 3600, `the lag is the age of the oldest unapplied event: ${seconds}`);
  });

  test('/metrics has request durations by route, append latency and projector lag', async ({ t }) => {
    const admin = await t.createUser('admin', 'administrator');
    const created = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title: 'Measured', status: 'publish' },
    });
    assert.is(created.status, 201);
    await t.request('GET', `/core/v2/posts/${created.body.id}`);
    const response = await t.request('GET', '/metrics');
    assert.is(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(
      response.text,
      /palimpsest_http_request_duration_seconds_count\{method="GET",route="\/core\/v2\/posts\/\{id\}",status="200"\} 1\n/,
    );
    assert.match(
      response.text,
      /palimpsest_http_request_duration_seconds_count\{method="POST",route="\/core\/v2\/posts",status="201"\} 1\n/,
    );
    assert.match(response.text, /palimpsest_event_store_append_duration_seconds_count [1-9]\d*\n/);
    assert.match(response.text, /palimpsest_projector_lag_events 0\n/);
    assert.match(response.text, /palimpsest_projector_lag_seconds 0\n/);
  });

  test('a read model without its epoch is not served (503, Retry-After) until the projector has rebuilt it from the log', async ({
    t,
    resets,
  }) => {
    const admin = await t.createUser('admin', 'administrator');
    await publishPosts(t, admin, 3);
    await t.site.projector.stop();
    await t.site.readModel.reset(EPOCH_CHECKPOINT, [EPOCH_COLLECTION]);
    await t.site.readModelWatch.refresh();
    const ready = await t.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.equal(
      { ok: ready.body.checks.readModel.ok, state: ready.body.checks.readModel.state },
      { ok: false, state: 'unbuilt' },
    );
    assert.match(ready.body.checks.readModel.error, /holds no epoch/);
    for (const request of [
      () => t.request('GET', '/core/v2/posts'),
      () => t.request('GET', '/core/v2/users/me', { as: admin }),
    ]) {
      const refused = await request();
      assert.is(refused.status, 503, refused.text);
      assert.is(refused.body.code, 'rest_read_model_unavailable');
      assert.is(refused.headers.get('retry-after'), '5');
    }
    resets.length = 0;
    await t.site.projector.start();
    assert.ok(
      resets.includes('content') && resets.includes('users'),
      `the projections were cleared first: ${resets.join(', ')}`,
    );
    assert.is((await t.request('GET', '/readyz')).status, 200);
    const listed = await t.request('GET', '/core/v2/posts');
    assert.is(listed.status, 200);
    assert.is(listed.body.length, 3);
    assert.is((await t.request('GET', '/core/v2/users/me', { as: admin })).status, 200);
  });

  test('an epoch removed under the running projector: it clears and rebuilds the read model on its own', async ({
    t,
    resets,
  }) => {
    const admin = await t.createUser('admin', 'administrator');
    await publishPosts(t, admin, 2);
    resets.length = 0;
    await t.site.readModel.reset(EPOCH_CHECKPOINT, [EPOCH_COLLECTION]);
    // What the projector was looking at, should it not notice.
    const seen = async () =>
      `epoch ${JSON.stringify(await t.site.readModel.checkpoint(EPOCH_CHECKPOINT))}, readyz ${(await t.request('GET', '/readyz')).text}`;
    await until(async () => resets.includes('content'), 'the projector cleared the projections', 15_000, seen);
    await until(async () => (await t.request('GET', '/readyz')).status === 200, 'ready again');
    const listed = await t.request('GET', '/core/v2/posts');
    assert.is(listed.status, 200);
    assert.is(listed.body.length, 2);
  });

  test.run();
}

healthSuite('memory event store, in-process read model', async () => ({
  store: createMemoryEventStore(),
  readModel: createMemoryReadModel(),
  cleanup: async () => {},
}));

healthSuite('SQLite event store, in-process read model', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-health-'));
  return {
    store: openSqliteEventStore({ file: path.join(dir, 'events.sqlite') }),
    readModel: createMemoryReadModel(),
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});

healthSuite('EventStoreDB (real client, test server), in-process read model', async () => {
  const server = await startFakeEventStoreDb();
  return {
    store: createEventStoreDbEventStore({ connectionString: server.connectionString }),
    readModel: createMemoryReadModel(),
    cleanup: () => server.close(),
  };
});

healthSuite('EventStoreDB (real client, test server), Redis read model', async () => {
  const server = await startFakeEventStoreDb();
  const redis = testRedisReadModel();
  return {
    store: createEventStoreDbEventStore({ connectionString: server.connectionString }),
    readModel: redis.readModel,
    async cleanup() {
      await redis.cleanup();
      await server.close();
    },
  };
});
