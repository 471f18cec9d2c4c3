/**
 * The EventStoreDB adapter, through the real `@eventstore/db-client`:
 * - the shared contract on a fresh test server (test/support/esdb) per test, in every run;
 * - the contract again with a namespace, each test on a server already holding other namespaces' and the node's own
 *   events (what a shared real database looks like);
 * - the contract on a real server when EVENTSTORE_URL is set, each test in a namespace of its own;
 * - what the contract does not reach: deterministic ids and retried appends, the Append fallback for old nodes,
 *   dropped subscriptions and node restarts, checkpoints through JSON, namespaces, the node's own events;
 * - the test server's own protocol behaviour (filters, checkpoints, positions), checked through the client directly.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  eventTypeFilter,
  jsonEvent,
  streamNameFilter,
  type Position,
} from '@eventstore/db-client';
import { createEventStoreDbEventStore, type EventStoreDbOptions } from '../../src/adapters/eventstoredb/eventStore';
import { eventIdsFor, nameBasedUuid } from '../../src/adapters/eventstoredb/ids';
import { PositionMappingError, toEsdbPosition, toPortPosition } from '../../src/adapters/eventstoredb/positions';
import {
  PositionNotInLogError,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../src/ports/eventStore';
import { eventStoreContract } from '../contracts/eventStore.contract';
import { startFakeEventStoreDb, type FakeEventStoreDb } from '../support/esdb/server';

/** Short pauses keep failure tests quick; the production defaults are 100 ms doubling to 5 s. */
const quickResubscribe: Pick<EventStoreDbOptions, 'resubscribeDelayMs'> = {
  resubscribeDelayMs: { first: 20, longest: 200 },
};

eventStoreContract('EventStoreDB adapter on the test server', async () => {
  const server = await startFakeEventStoreDb();
  const store = createEventStoreDbEventStore({ connectionString: server.connectionString, ...quickResubscribe });
  return {
    store,
    async cleanup() {
      await store.close();
      await server.close();
    },
  };
});

/** Another tenant's events and the node's own, written before the test's: none of them may show. */
async function writeForeignEvents(server: FakeEventStoreDb) {
  const neighbour = createEventStoreDbEventStore({
    connectionString: server.connectionString,
    namespace: 'neighbour-',
  });
  const bare = createEventStoreDbEventStore({ connectionString: server.connectionString });
  try {
    for (let i = 0; i < 3; i++) {
      await neighbour.appendToStream('post-1', [{ type: 'Created', data: { i }, metadata: foreignMetadata }], {
        expectedRevision: 'any',
      });
      await bare.appendToStream(`post-${i}`, [{ type: 'Created', data: { i }, metadata: foreignMetadata }], {
        expectedRevision: 'any',
      });
      server.appendSystemEvent();
    }
  } finally {
    await Promise.all([neighbour.close(), bare.close()]);
  }
}
const foreignMetadata: EventMetadata = { userId: 1, requestId: 'foreign', at: '2024-01-01T00:00:00.000Z' };

eventStoreContract('EventStoreDB adapter in a namespace, among other tenants and system events', async () => {
  const server = await startFakeEventStoreDb();
  await writeForeignEvents(server);
  const store = createEventStoreDbEventStore({
    connectionString: server.connectionString,
    namespace: 'site-a-',
    ...quickResubscribe,
  });
  return {
    store,
    async cleanup() {
      await store.close();
      await server.close();
    },
  };
});

const realServer = process.env.EVENTSTORE_URL;
if (realServer) {
  // Each test gets a namespace of its own, so it starts empty on a database that keeps everything.
  const run = `palimpsest-contract-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  let testNumber = 0;
  console.log(`EventStoreDB contract: running against the real server in EVENTSTORE_URL, streams prefixed "${run}-"`);
  eventStoreContract(`EventStoreDB adapter on the real server (EVENTSTORE_URL)`, async () => {
    const store = createEventStoreDbEventStore({ connectionString: realServer, namespace: `${run}-${++testNumber}-` });
    return { store, cleanup: () => store.close() };
  });
} else {
  console.log(
    'EventStoreDB contract: no real server configured (set EVENTSTORE_URL to also run the contract against one)',
  );
}

// --- helpers for the adapter's own tests ---

const metadata: EventMetadata = { userId: 7, requestId: 'req-1', at: '2024-05-01T12:00:00.000Z' };
const event = (type: string, data: unknown = {}, overrides: Partial<NewEvent> = {}): NewEvent => ({
  type,
  data,
  metadata,
  ...overrides,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function rejection(attempt: Promise<unknown>): Promise<unknown> {
  try {
    await attempt;
  } catch (error) {
    return error;
  }
  return assert.unreachable('expected a rejection');
}

/** Subscribes and records what the subscription reports, drops included. */
function record(store: EventStore, after?: number, maxBatchSize?: number) {
  const seen = { events: [] as RecordedEvent[], caughtUp: 0, errors: [] as unknown[] };
  const subscription = store.subscribeToAll({
    after,
    maxBatchSize,
    onEvents: (events) => {
      seen.events.push(...events);
    },
    onCaughtUp: () => {
      seen.caughtUp += 1;
    },
    onError: (error) => seen.errors.push(error),
  });
  return { seen, subscription };
}

interface Context {
  server: FakeEventStoreDb;
  stores: EventStore[];
  drops: Array<{ error: unknown; attempt: number; at: number }>;
  open(options?: Partial<EventStoreDbOptions>): EventStore;
}

function adapterSuite(name: string, serverOptions: Parameters<typeof startFakeEventStoreDb>[0] = {}) {
  const test = suite<Context>(name, {} as Context);
  test.before.each(async (context) => {
    context.server = await startFakeEventStoreDb(serverOptions);
    context.stores = [];
    context.drops = [];
    context.open = (options = {}) => {
      const store = createEventStoreDbEventStore({
        connectionString: context.server.connectionString,
        ...quickResubscribe,
        onSubscriptionDropped: (error, attempt) => context.drops.push({ error, attempt, at: Date.now() }),
        ...options,
      });
      context.stores.push(store);
      return store;
    };
  });
  test.after.each(async ({ server, stores }) => {
    await Promise.all(stores.map((store) => store.close()));
    await server.close();
  });
  return test;
}

// --- ids ---

const ids = suite('EventStoreDB adapter: event ids');

ids('name-based ids are RFC 9562 version 5 UUIDs', () => {
  // The RFC's own example: the DNS namespace and "www.example.com".
  assert.is(
    nameBasedUuid('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com'),
    '2ed6657d-e927-568b-95e1-2665a8aea6a2',
  );
});

ids('an append that names its slot gets the same ids every time, and different ones for anything that differs', () => {
  const batch = [event('Created', { title: 'a' }), event('Titled', { title: 'b' })];
  const first = eventIdsFor('post-1', 'no_stream', batch);
  assert.equal(
    eventIdsFor(
      'post-1',
      'no_stream',
      batch.map((e) => ({ ...e, data: JSON.parse(JSON.stringify(e.data)) })),
    ),
    first,
  );
  assert.ok(first.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)));
  assert.is.not(first[0], first[1]);
  const variants = [
    eventIdsFor('post-2', 'no_stream', batch),
    eventIdsFor('post-1', 0, batch),
    eventIdsFor(
      'post-1',
      'no_stream',
      batch.map((e) => ({ ...e, metadata: { ...metadata, requestId: 'req-2' } })),
    ),
    eventIdsFor('post-1', 'no_stream', [batch[0]!]),
    eventIdsFor('post-1', 'no_stream', [{ ...batch[0]!, type: 'Drafted' }, batch[1]!]),
    eventIdsFor('post-1', 'no_stream', [{ ...batch[0]!, data: { title: 'c' } }, batch[1]!]),
  ];
  for (const variant of variants) assert.is.not(variant[0], first[0]);
});

ids('any and stream_exists appends get random ids; given ids are kept; ids that are not UUIDs are refused', () => {
  const batch = [event('Edited')];
  assert.is.not(eventIdsFor('post-1', 'any', batch)[0], eventIdsFor('post-1', 'any', batch)[0]);
  assert.is.not(eventIdsFor('post-1', 'stream_exists', batch)[0], eventIdsFor('post-1', 'stream_exists', batch)[0]);
  const given = randomUUID().toUpperCase();
  assert.equal(eventIdsFor('post-1', 3, [event('Edited', {}, { id: given })]), [given.toLowerCase()]);
  assert.throws(
    () => eventIdsFor('post-1', 3, [event('Edited', {}, { id: 'evt-1' })]),
    (error: unknown) => error instanceof RangeError,
  );
});

ids.run();

// --- positions ---

const positions = suite('EventStoreDB adapter: positions');

positions('the port position is the commit position, and comes back as the same pair', () => {
  assert.is(toPortPosition({ commit: 1_310n, prepare: 1_310n }), 1_310);
  assert.equal(toEsdbPosition(1_310), { commit: 1_310n, prepare: 1_310n });
  const large = 2n ** 52n + 17n;
  assert.equal(toEsdbPosition(toPortPosition({ commit: large, prepare: large })), { commit: large, prepare: large });
});

positions('positions that have no exact single-number form are refused, not rounded or guessed', () => {
  const refused = (position: Parameters<typeof toPortPosition>[0]) =>
    assert.throws(
      () => toPortPosition(position),
      (error: unknown) => error instanceof PositionMappingError,
    );
  refused({ commit: 2n ** 53n, prepare: 2n ** 53n });
  refused({ commit: 5_000n, prepare: 4_800n });
  refused(undefined);
  assert.throws(
    () => toEsdbPosition(-1),
    (error: unknown) => error instanceof RangeError,
  );
  assert.throws(
    () => toEsdbPosition(1.5),
    (error: unknown) => error instanceof RangeError,
  );
});

positions.run();

const logPositions = adapterSuite('EventStoreDB adapter: reading from positions that are not counts');

logPositions(
  'what follows a position is read from that position with the event there left out, never from position + 1',
  async ({ open }) => {
    const store = open();
    for (let i = 0; i < 4; i++)
      await store.appendToStream(`post-${i}`, [event(`E${i}`)], { expectedRevision: 'no_stream' });
    const all = await store.readAll();
    assert.ok(all[1]!.position - all[0]!.position > 1, 'positions are byte offsets, with gaps');
    assert.equal(
      (await store.readAll({ after: all[0]!.position, maxCount: 1 })).map((e) => e.type),
      ['E1'],
    );
    assert.equal(
      (await store.readAll({ after: all[3]!.position })).map((e) => e.type),
      [],
    );
  },
);

logPositions(
  'a position inside a record is PositionNotInLogError, for every kind of read and for a subscription',
  async ({ open }) => {
    const store = open();
    for (let i = 0; i < 3; i++)
      await store.appendToStream(`post-${i}`, [event(`E${i}`)], { expectedRevision: 'no_stream' });
    const [first] = await store.readAll();
    const inside = first!.position + 1;
    for (const options of [
      { after: inside },
      { fromPosition: inside },
      { fromPosition: inside, direction: 'backwards' as const },
    ]) {
      const failure = await rejection(store.readAll(options));
      assert.instance(failure, PositionNotInLogError, JSON.stringify(options));
      assert.is((failure as PositionNotInLogError).position, inside);
    }
    const { seen, subscription } = record(store, inside);
    await eventually(() => seen.errors.length > 0, 'the subscription to fail');
    assert.instance(seen.errors[0], PositionNotInLogError, 'not resubscribed for ever');
    assert.is(seen.events.length, 0);
    await subscription.close();
  },
);

logPositions.run();

// --- appends ---

const appends = adapterSuite('EventStoreDB adapter: appends, retries and the old append call');

appends('an append whose acknowledgement is lost is sent again and written once', async ({ server, open }) => {
  const store = open();
  server.loseAcknowledgements(1);
  const created = await store.appendToStream('post-1', [event('Created'), event('Titled')], {
    expectedRevision: 'no_stream',
  });
  server.loseAcknowledgements(1);
  const published = await store.appendToStream('post-1', [event('Published')], {
    expectedRevision: created.nextExpectedRevision,
  });
  const stream = await store.readStream('post-1');
  assert.equal(
    stream.map((e) => e.type),
    ['Created', 'Titled', 'Published'],
  );
  assert.equal(created, { nextExpectedRevision: 1, position: stream[1]!.position });
  assert.equal(published, { nextExpectedRevision: 2, position: stream[2]!.position });
  assert.is(
    server.calls.get('BatchAppend')! >= 2,
    true,
    'the lost acknowledgement broke the call, and the retry opened another',
  );
});

appends(
  'an append to no slot (any) is not sent again after a lost acknowledgement: it could write twice',
  async ({ server, open }) => {
    const store = open();
    server.loseAcknowledgements(1);
    await rejection(store.appendToStream('post-1', [event('Edited')], { expectedRevision: 'any' }));
    assert.equal(
      (await store.readStream('post-1')).map((e) => e.type),
      ['Edited'],
      'written once, by the only attempt',
    );
  },
);

appends('the same command sent twice is one write; the same events from another request conflict', async ({ open }) => {
  const store = open();
  const command = [event('Created', { title: 'Hello' })];
  const first = await store.appendToStream('post-1', command, { expectedRevision: 'no_stream' });
  assert.equal(await store.appendToStream('post-1', command, { expectedRevision: 'no_stream' }), first);
  const otherRequest = [event('Created', { title: 'Hello' }, { metadata: { ...metadata, requestId: 'req-2' } })];
  const conflict = await rejection(store.appendToStream('post-1', otherRequest, { expectedRevision: 'no_stream' }));
  assert.instance(conflict, WrongExpectedRevisionError);
  assert.equal((conflict as WrongExpectedRevisionError).actual, 0);
  assert.is((await store.readStream('post-1')).length, 1);
});

appends('an id that is not a UUID is refused before anything is sent', async ({ server, open }) => {
  const store = open();
  const failure = await rejection(
    store.appendToStream('post-1', [event('Created', {}, { id: 'post-1-created' })], { expectedRevision: 'no_stream' }),
  );
  assert.instance(failure, RangeError);
  assert.is(server.calls.get('BatchAppend') ?? 0, 0);
});

appends.run();

const oldNode = adapterSuite('EventStoreDB adapter: a node without ServerFeatures (the Append call)', {
  withoutServerFeatures: true,
});

oldNode('appends, conflicts, retries and reads work through Streams.Append', async ({ server, open }) => {
  const store = open();
  const created = await store.appendToStream('post-1', [event('Created', {}, { id: randomUUID() })], {
    expectedRevision: 'no_stream',
  });
  assert.is(created.nextExpectedRevision, 0);
  const conflict = await rejection(
    store.appendToStream('post-1', [event('Titled')], { expectedRevision: 'no_stream' }),
  );
  assert.instance(conflict, WrongExpectedRevisionError);
  assert.equal(
    [(conflict as WrongExpectedRevisionError).expected, (conflict as WrongExpectedRevisionError).actual],
    ['no_stream', 0],
  );
  const absent = await rejection(store.appendToStream('post-2', [event('Titled')], { expectedRevision: 3 }));
  assert.equal((absent as WrongExpectedRevisionError).actual, 'no_stream');
  server.loseAcknowledgements(1);
  const titled = await store.appendToStream('post-1', [event('Titled')], { expectedRevision: 0 });
  const stream = await store.readStream('post-1');
  assert.equal(titled, { nextExpectedRevision: 1, position: stream[1]!.position });
  assert.equal(
    stream.map((e) => e.type),
    ['Created', 'Titled'],
  );
  assert.is(server.calls.get('BatchAppend') ?? 0, 0);
  assert.ok(server.calls.get('Append')! >= 4);
});

oldNode.run();

// --- subscriptions ---

const subscriptions = adapterSuite('EventStoreDB adapter: subscriptions through drops, restarts and system events');

subscriptions(
  'a dropped subscription resubscribes after the last event it delivered',
  async ({ server, open, drops }) => {
    const store = open();
    await store.appendToStream('post-1', [event('A'), event('B'), event('C')], { expectedRevision: 'no_stream' });
    const { seen } = record(store);
    await eventually(() => seen.caughtUp === 1 && seen.events.length === 3, 'the first three events');
    assert.is(server.dropSubscriptions(), 1);
    await store.appendToStream('post-1', [event('D'), event('E')], { expectedRevision: 2 });
    await eventually(() => seen.events.length >= 5, 'the events after the drop');
    await sleep(100);
    assert.equal(seen.events, await store.readAll(), 'every event once, in order');
    assert.is(seen.caughtUp, 1, 'caught up is reported once, not again after resubscribing');
    assert.equal(seen.errors, []);
    assert.is(drops.length, 1);
    assert.is(drops[0]!.attempt, 1);
    assert.is(server.openSubscriptionCount(), 1, 'one live subscription again');
  },
);

subscriptions('a drop in the middle of catching up loses and repeats nothing', async ({ server, open }) => {
  const store = open();
  for (let i = 0; i < 120; i++)
    await store.appendToStream(`post-${i % 7}`, [event(`E${i}`)], { expectedRevision: 'any' });
  const delivered: RecordedEvent[] = [];
  const subscription = store.subscribeToAll({
    maxBatchSize: 10,
    async onEvents(events) {
      delivered.push(...events);
      await sleep(2);
    },
  });
  try {
    await eventually(() => delivered.length >= 30, '30 events');
    server.dropSubscriptions();
    await eventually(() => delivered.length >= 120, 'all 120 events');
    await sleep(100);
    assert.equal(
      delivered.map((e) => e.position),
      (await store.readAll()).map((e) => e.position),
    );
  } finally {
    await subscription.close();
  }
});

subscriptions(
  'across a node restart the subscription retries with growing pauses, then carries on',
  async ({ server, open, drops }) => {
    const store = open();
    await store.appendToStream('post-1', [event('BeforeRestart')], { expectedRevision: 'no_stream' });
    const { seen } = record(store);
    await eventually(() => seen.events.length === 1, 'the first event');
    await server.stop();
    await eventually(() => drops.length >= 3, 'three failed attempts');
    const attempts = drops.map((drop) => drop.attempt);
    assert.equal(attempts.slice(0, 3), [1, 2, 3], 'each failure without progress counts up');
    const pauses = drops.slice(1).map((drop, i) => drop.at - drops[i]!.at);
    assert.ok(pauses[1]! >= pauses[0]! - 5, `pauses grow: ${pauses.join(', ')} ms`);
    await rejection(store.appendToStream('post-1', [event('WhileDown')], { expectedRevision: 'any' }));
    await server.start();
    await eventually(() => server.openSubscriptionCount() === 1, 'the subscription to come back', 20_000);
    await store.appendToStream('post-1', [event('AfterRestart')], { expectedRevision: 0 });
    await eventually(() => seen.events.length === 2, 'the event after the restart', 20_000);
    assert.equal(
      seen.events.map((e) => e.type),
      ['BeforeRestart', 'AfterRestart'],
    );
    assert.equal(seen.errors, []);
  },
);

subscriptions('close ends a subscription that is waiting to resubscribe', async ({ server, open }) => {
  const store = open({ resubscribeDelayMs: { first: 10_000, longest: 10_000 } });
  const { subscription } = record(store);
  await eventually(() => server.openSubscriptionCount() === 1, 'the subscription');
  server.dropSubscriptions();
  await sleep(50);
  const started = Date.now();
  await subscription.close();
  assert.ok(Date.now() - started < 1_000, 'close did not wait out the pause');
  assert.is(server.openSubscriptionCount(), 0);
});

subscriptions(
  'a checkpoint kept as JSON resumes, through a new connection, right after the last handled event',
  async ({ open }) => {
    const first = open();
    for (const type of ['A', 'B', 'C', 'D', 'E'])
      await first.appendToStream('post-1', [event(type)], { expectedRevision: 'any' });
    let stored = '';
    const handled: string[] = [];
    let died = false;
    first.subscribeToAll({
      maxBatchSize: 1,
      onEvents([handledEvent]) {
        if (handled.length === 3) throw new Error('the process dies before handling a fourth event');
        handled.push(handledEvent!.type);
        stored = JSON.stringify({ checkpoint: handledEvent!.position });
      },
      onError: () => {
        died = true;
      },
    });
    await eventually(() => died, 'the first subscriber to stop');
    assert.equal(handled, ['A', 'B', 'C']);
    const { checkpoint } = JSON.parse(stored) as { checkpoint: number };
    const second = open();
    const { seen } = record(second, checkpoint);
    await eventually(() => seen.caughtUp === 1, 'caught up');
    assert.equal(
      seen.events.map((e) => e.type),
      ['D', 'E'],
    );
    await second.appendToStream('post-1', [event('F')], { expectedRevision: 4 });
    await eventually(() => seen.events.length === 3, 'the live event');
    assert.equal(
      seen.events.map((e) => e.type),
      ['D', 'E', 'F'],
    );
  },
);

subscriptions(
  "the node's own events never show: not in reads, not in the head, not in subscriptions",
  async ({ server, open }) => {
    const store = open();
    const { seen } = record(store);
    await eventually(() => seen.caughtUp === 1, 'caught up');
    await store.appendToStream('post-1', [event('A')], { expectedRevision: 'no_stream' });
    for (let i = 0; i < 70; i++) server.appendSystemEvent(); // more than two checkpoint windows of nothing to deliver
    await store.appendToStream('post-1', [event('B')], { expectedRevision: 0 });
    server.appendSystemEvent('$projections-$all', '$ProjectionUpdated');
    await eventually(() => seen.events.length === 2, 'both events');
    await sleep(100);
    const shown = await store.readAll();
    assert.equal(seen.events, shown);
    assert.equal(
      shown.map((e) => e.type),
      ['A', 'B'],
    );
    assert.equal(
      (await store.readAll({ direction: 'backwards' })).map((e) => e.type),
      ['B', 'A'],
    );
    assert.is(await store.headPosition(), shown[1]!.position, 'the trailing system event is not the head');
    assert.ok(server.log.events.filter((e) => e.type.startsWith('$')).length > 70, 'the node did write them');
  },
);

subscriptions.run();

// --- namespaces, paging, discovery ---

const tenancy = adapterSuite('EventStoreDB adapter: namespaces, paging past hidden events, discovery');

tenancy('stores in different namespaces share a database without seeing each other', async ({ server, open }) => {
  const siteA = open({ namespace: 'site-a-' });
  const siteB = open({ namespace: 'site-b-' });
  const a = record(siteA);
  const b = record(siteB);
  await siteA.appendToStream('post-1', [event('ACreated')], { expectedRevision: 'no_stream' });
  await siteB.appendToStream('post-1', [event('BCreated')], { expectedRevision: 'no_stream' });
  await siteB.appendToStream('post-1', [event('BTitled')], { expectedRevision: 0 });
  await eventually(() => a.seen.events.length === 1 && b.seen.events.length === 2, 'each store its own events');
  await sleep(100);
  assert.equal(
    a.seen.events.map((e) => [e.streamId, e.type]),
    [['post-1', 'ACreated']],
  );
  assert.equal(
    (await siteA.readStream('post-1')).map((e) => e.type),
    ['ACreated'],
  );
  assert.equal(
    (await siteB.readAll()).map((e) => [e.streamId, e.type]),
    [
      ['post-1', 'BCreated'],
      ['post-1', 'BTitled'],
    ],
  );
  assert.is(await siteA.headPosition(), a.seen.events[0]!.position);
  assert.equal(
    server.log.events.filter((e) => !e.type.startsWith('$')).map((e) => e.streamId),
    ['site-a-post-1', 'site-b-post-1', 'site-b-post-1'],
  );
});

tenancy('reads page past hundreds of hidden events in both directions', async ({ server, open }) => {
  const site = open({ namespace: 'site-a-' });
  const neighbour = open({ namespace: 'site-b-' });
  const own: number[] = [];
  for (let round = 0; round < 3; round++) {
    own.push((await site.appendToStream('post-1', [event(`Own${round}`)], { expectedRevision: 'any' })).position);
    for (let i = 0; i < 150; i++) server.appendSystemEvent();
    for (let i = 0; i < 150; i++)
      await neighbour.appendToStream(`post-${i}`, [event('Noise')], { expectedRevision: 'any' });
  }
  const types = async (options: Parameters<EventStore['readAll']>[0]) =>
    (await site.readAll(options)).map((e) => e.type);
  assert.equal(await types(undefined), ['Own0', 'Own1', 'Own2']);
  assert.equal(await types({ maxCount: 2 }), ['Own0', 'Own1']);
  assert.equal(await types({ fromPosition: own[1] }), ['Own1', 'Own2']);
  assert.equal(await types({ direction: 'backwards' }), ['Own2', 'Own1', 'Own0']);
  assert.equal(await types({ direction: 'backwards', fromPosition: own[1], maxCount: 5 }), ['Own1', 'Own0']);
  assert.equal(await types({ direction: 'backwards', maxCount: 1 }), ['Own2']);
  assert.is(await site.headPosition(), own[2]);
  const { seen } = record(site);
  await eventually(() => seen.caughtUp === 1, 'caught up');
  assert.equal(
    seen.events.map((e) => e.type),
    ['Own0', 'Own1', 'Own2'],
  );
});

tenancy('a connection string that discovers the node through gossip works too', async ({ server, open }) => {
  const store = open({ connectionString: server.discoveryConnectionString });
  await store.appendToStream('post-1', [event('Created')], { expectedRevision: 'no_stream' });
  assert.equal(
    (await store.readStream('post-1')).map((e) => e.type),
    ['Created'],
  );
  assert.ok(server.calls.get('Gossip.Read')! >= 1);
});

tenancy.run();

// --- the test server itself, through the client ---

const protocol = suite<{ server: FakeEventStoreDb; client: EventStoreDBClient }>(
  'Test EventStoreDB server: the protocol as the client sees it',
  {} as never,
);
protocol.before.each(async (context) => {
  context.server = await startFakeEventStoreDb();
  context.client = EventStoreDBClient.connectionString(context.server.connectionString);
});
protocol.after.each(async ({ server, client }) => {
  await client.dispose();
  await server.close();
});

protocol(
  'subscription filters on event type prefixes or stream name patterns, with checkpoints per window',
  async ({ client }) => {
    for (let i = 0; i < 70; i++) {
      await client.appendToStream(i % 10 === 0 ? 'keep-1' : `skip-${i}`, [
        jsonEvent({ type: i % 10 === 0 ? 'KeepMe' : 'Other', data: { i } }),
      ]);
    }
    /** The `i` of every event delivered until the node says it is caught up. */
    const follow = async (options: Parameters<typeof client.subscribeToAll>[0]) => {
      const seen: number[] = [];
      const subscription = client.subscribeToAll({ fromPosition: START, ...options });
      let caughtUp = false;
      subscription.on('caughtUp', () => {
        caughtUp = true;
      });
      subscription.on('data', ({ event: recorded }) => seen.push((recorded!.data as { i: number }).i));
      await eventually(() => caughtUp, 'caught up');
      await subscription.unsubscribe();
      return seen;
    };
    const checkpoints: Position[] = [];
    const byType = await follow({
      filter: eventTypeFilter({
        prefixes: ['Keep'],
        checkpointInterval: 1,
        checkpointReached: (_s, position) => {
          checkpoints.push(position);
        },
      }),
    });
    assert.equal(byType, [0, 10, 20, 30, 40, 50, 60]);
    // 72 events considered (the node's own two first): a checkpoint after 32 and after 64, and one on going live.
    assert.is(checkpoints.length, 3);
    assert.ok(checkpoints.every((c, i) => i === 0 || c.commit > checkpoints[i - 1]!.commit));
    assert.equal(await follow({ filter: streamNameFilter({ regex: '^keep-' }) }), [0, 10, 20, 30, 40, 50, 60]);
    assert.is((await follow({})).length, 72, "without a filter the node's own two events come too");
  },
);

protocol(
  '$all reads: forward from an event includes it, backward from it excludes it, inside a record is refused',
  async ({ client }) => {
    await client.appendToStream('post-1', [
      jsonEvent({ type: 'A', data: {} }),
      jsonEvent({ type: 'B', data: {} }),
      jsonEvent({ type: 'C', data: {} }),
    ]);
    const read = async (options: Parameters<typeof client.readAll>[0]) => {
      const types: string[] = [];
      for await (const resolved of client.readAll(options)) types.push(resolved.event!.type);
      return types;
    };
    const all: Position[] = [];
    for await (const resolved of client.readAll({ fromPosition: START }))
      if (!resolved.event!.type.startsWith('$')) all.push(resolved.event!.position);
    assert.equal(await read({ direction: FORWARDS, fromPosition: all[1]!, maxCount: 5 }), ['B', 'C']);
    assert.equal(await read({ direction: BACKWARDS, fromPosition: all[1]!, maxCount: 1 }), ['A']);
    assert.equal(await read({ direction: BACKWARDS, fromPosition: END, maxCount: 2 }), ['C', 'B']);
    assert.ok(all[1]!.commit - all[0]!.commit > 1n, 'positions have gaps');
    await rejection(
      read({ direction: FORWARDS, fromPosition: { commit: all[0]!.commit + 1n, prepare: all[0]!.commit + 1n } }),
    );
    assert.equal(
      await read({ direction: FORWARDS, fromPosition: { commit: all[2]!.commit + 1n, prepare: all[2]!.commit + 1n } }),
      [],
    );
  },
);

protocol.run();
