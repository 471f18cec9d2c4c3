import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite, test } from 'uvu';
import * as assert from 'uvu/assert';
import { LAG_COUNT_LIMIT, collectProjectorLag, createSiteMetrics, projectorLag } from '../../src/metrics/siteMetrics';
import { MetricsRegistry } from '../../src/metrics/registry';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { createEventStoreDbEventStore } from '../../src/adapters/eventstoredb/eventStore';
import { manualClock } from '../../src/ports/clock';
import type { EventStore, NewEvent } from '../../src/ports/eventStore';
import { startFakeEventStoreDb } from '../support/esdb/server';

const countOf = (text: string, route: string) =>
  Number(
    new RegExp(
      `palimpsest_http_request_duration_seconds_count\\{method="GET",route="${route.replace(/[{}]/g, '\\$&')}",status="200"\\} (\\d+)`,
    ).exec(text)?.[1] ?? 0,
  );

test('request routes: every item path is counted under its route, however many items were asked', async () => {
  const metrics = createSiteMetrics();
  for (let id = 1; id <= 1200; id++) metrics.observeRequest('GET', `/core/v2/posts/${id}`, 200, 0.001);
  metrics.observeRequest('GET', '/core/v2/posts', 200, 0.001);
  metrics.observeRequest('GET', '/core/v2/posts/7/revisions/12', 200, 0.001);
  const text = await metrics.registry.render();
  assert.is(countOf(text, '/core/v2/posts/{id}'), 1200);
  assert.is(countOf(text, '/core/v2/posts'), 1);
  assert.is(countOf(text, '/core/v2/posts/{id}/revisions/{id}'), 1);
  assert.is(countOf(text, 'other'), 0);
});

test('request routes: distinct labels are bounded; the ones beyond share "other", the known ones stay', async () => {
  const metrics = createSiteMetrics();
  metrics.observeRequest('GET', '/core/v2/posts/1', 200, 0.001);
  for (let k = 0; k < 700; k++) metrics.observeRequest('GET', `/scan-${k}`, 200, 0.001);
  metrics.observeRequest('GET', '/core/v2/posts/2', 200, 0.001);
  const text = await metrics.registry.render();
  assert.is(countOf(text, '/core/v2/posts/{id}'), 2);
  assert.is(countOf(text, '/scan-0'), 1);
  assert.is(countOf(text, '/scan-498'), 1);
  assert.is(countOf(text, '/scan-499'), 0);
  assert.is(countOf(text, 'other'), 201);
});

test.run();

// --- projector lag, on every event store: measured in the store's own positions ---

interface LagContext {
  store: EventStore;
  cleanup(): Promise<void>;
}

const minute = (n: number) => `2024-05-01T12:${String(n).padStart(2, '0')}:00.000Z`;
const decidedAt = (type: string, at: string): NewEvent => ({
  type,
  data: {},
  metadata: { userId: null, requestId: 'r', at },
});

function lagSuite(name: string, open: () => Promise<LagContext>) {
  const lag = suite<LagContext>(`projector lag: ${name}`, {} as LagContext);
  lag.before.each(async (context) => {
    Object.assign(context, await open());
  });
  lag.after.each(async ({ cleanup }) => {
    await cleanup();
  });

  lag(
    'events after the applied position, and the age of the first of them, from any applied position',
    async ({ store }) => {
      for (let i = 0; i < 5; i++)
        await store.appendToStream(`s-${i}`, [decidedAt(`E${i}`, minute(i))], { expectedRevision: 'no_stream' });
      const log = await store.readAll();
      const clock = manualClock(Date.parse(minute(30)));
      for (let applied = 0; applied < log.length; applied++) {
        const position = applied === 0 ? 0 : log[applied - 1]!.position;
        const measured = await projectorLag({ store, clock, applied: async () => position });
        assert.equal(
          measured,
          {
            head: log[4]!.position,
            applied: position,
            events: 5 - applied,
            seconds: (30 - applied) * 60,
            ahead: false,
          },
          `applied ${applied} events`,
        );
      }
      assert.equal(await projectorLag({ store, clock, applied: async () => log[4]!.position }), {
        head: log[4]!.position,
        applied: log[4]!.position,
        events: 0,
        seconds: 0,
        ahead: false,
      });
    },
  );

  lag('an applied position past the head is ahead of the store, with no lag', async ({ store }) => {
    await store.appendToStream('s-1', [decidedAt('E', minute(1))], { expectedRevision: 'no_stream' });
    const head = await store.headPosition();
    const measured = await projectorLag({
      store,
      clock: manualClock(Date.parse(minute(2))),
      applied: async () => head + 10_000,
    });
    assert.equal(measured, { head, applied: head + 10_000, events: 0, seconds: 0, ahead: true });
  });

  lag(`events are counted up to ${LAG_COUNT_LIMIT}; the gauges show the lag at each scrape`, async ({ store }) => {
    const many = Array.from({ length: LAG_COUNT_LIMIT + 5 }, (_, i) => decidedAt(`E${i}`, minute(1)));
    await store.appendToStream('bulk', many, { expectedRevision: 'no_stream' });
    const registry = new MetricsRegistry();
    let applied = 0;
    collectProjectorLag(registry, { store, clock: manualClock(Date.parse(minute(3))), applied: async () => applied });
    let text = await registry.render();
    assert.match(text, new RegExp(`palimpsest_projector_lag_events ${LAG_COUNT_LIMIT}\n`));
    assert.match(text, /palimpsest_projector_lag_seconds 120\n/);
    const log = await store.readAll({ direction: 'backwards', maxCount: 4 });
    applied = log[3]!.position;
    text = await registry.render();
    assert.match(text, /palimpsest_projector_lag_events 3\n/);
    applied = log[0]!.position;
    text = await registry.render();
    assert.match(text, /palimpsest_projector_lag_events 0\n/);
    assert.match(text, /palimpsest_projector_lag_seconds 0\n/);
  });

  lag.run();
}

lagSuite('memory', async () => ({ store: createMemoryEventStore(), cleanup: async () => {} }));

lagSuite('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-lag-'));
  const store = openSqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  return {
    store,
    async cleanup() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

lagSuite('EventStoreDB (test server)', async () => {
  const server = await startFakeEventStoreDb();
  const store = createEventStoreDbEventStore({ connectionString: server.connectionString });
  return {
    store,
    async cleanup() {
      await store.close();
      await server.close();
    },
  };
});

const esdbOnly = suite('projector lag: EventStoreDB positions');

esdbOnly(
  "an applied position inside a record (not one of the log's) is ahead, not an error and not a lag of 0",
  async () => {
    const server = await startFakeEventStoreDb();
    const store = createEventStoreDbEventStore({ connectionString: server.connectionString });
    try {
      for (let i = 0; i < 3; i++)
        await store.appendToStream(`s-${i}`, [decidedAt(`E${i}`, minute(i))], { expectedRevision: 'no_stream' });
      const [first] = await store.readAll();
      const measured = await projectorLag({
        store,
        clock: manualClock(Date.parse(minute(9))),
        applied: async () => first!.position + 1,
      });
      assert.is(measured.ahead, true);
      assert.is(measured.events, 0);
    } finally {
      await store.close();
      await server.close();
    }
  },
);

esdbOnly.run();
