/**
 * The EventStoreDB adapter's bounds, through the real `@eventstore/db-client`, against the test node behind a proxy
 * that stops forwarding (a node that hangs: the connection stays open and nothing answers) and against a port where
 * nothing listens. Every call fails with DependencyUnavailableError instead of waiting for the client's keep-alive;
 * an append's says its outcome is unknown, and rightly: the append held back goes through once the node answers.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEventStoreDbEventStore } from '../../src/adapters/eventstoredb/eventStore';
import type { EventStore, NewEvent } from '../../src/ports/eventStore';
import { DependencyUnavailableError } from '../../src/ports/unavailable';
import { startFakeEventStoreDb } from '../support/esdb/server';
import type { FakeEventStoreDb } from '../support/esdb/server';
import { startStallingProxy } from '../support/stallingProxy';
import type { StallingProxy } from '../support/stallingProxy';
import { freePort } from '../support/processes';

interface Context {
  server: FakeEventStoreDb;
  proxy: StallingProxy;
  store: EventStore;
}

const test = suite<Context>('EventStoreDB adapter: bounded calls', {} as Context);

const TIMEOUT_MS = 500;

test.before.each(async (context) => {
  context.server = await startFakeEventStoreDb();
  context.proxy = await startStallingProxy(context.server.port);
  context.store = createEventStoreDbEventStore({
    connectionString: `esdb://127.0.0.1:${context.proxy.port}?tls=false`,
    timeoutMs: TIMEOUT_MS,
  });
});

test.after.each(async ({ server, proxy, store }) => {
  proxy.resume();
  await store.close();
  await proxy.close();
  await server.close();
});

const event = (n: number): NewEvent => ({
  type: 'Noted',
  data: { n },
  metadata: { userId: null, requestId: `r-${n}`, at: '2024-05-01T12:00:00.000Z' },
});

/** The call's failure, which must come (the test's own bound is far above the adapter's). */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  const bound = new Promise((_, reject) =>
    setTimeout(() => reject(new Error('the call did not fail within 20 s')), 20_000),
  );
  return Promise.race([call.then(() => assert.unreachable('the call succeeded')), bound]).catch(
    (error: unknown) => error,
  );
}

test('with the node hanging, an append fails as an outage whose outcome is unknown, and is written once it answers', async ({
  server,
  proxy,
  store,
}) => {
  await store.appendToStream('notes-1', [event(1)], { expectedRevision: 'no_stream' });
  proxy.stall();
  const error = await failureOf(store.appendToStream('notes-1', [event(2)], { expectedRevision: 0 }));
  assert.instance(error, DependencyUnavailableError);
  assert.is((error as DependencyUnavailableError).dependency, 'event store');
  assert.is((error as DependencyUnavailableError).outcomeUnknown, true);
  assert.match((error as Error).message, new RegExp(`within ${TIMEOUT_MS} ms`));
  proxy.resume();
  // The append that had no answer reaches the node after all: "unknown" was the truth.
  const notes = () => server.log.events.filter((e) => e.streamId === 'notes-1').length;
  for (let i = 0; i < 200 && notes() < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.is(notes(), 2);
  assert.equal(
    (await store.readStream('notes-1')).map((e) => (e.data as { n: number }).n),
    [1, 2],
  );
});

test('with the node hanging, reads and the head fail as outages that wrote nothing', async ({ proxy, store }) => {
  await store.appendToStream('notes-1', [event(1)], { expectedRevision: 'no_stream' });
  proxy.stall();
  for (const [what, call] of [
    ['readStream', store.readStream('notes-1')],
    ['readAll', store.readAll({ maxCount: 10 })],
    ['readAll backwards', store.readAll({ direction: 'backwards', fromPosition: 1, maxCount: 10 })],
    ['headPosition', store.headPosition()],
  ] as const) {
    const error = await failureOf(call);
    assert.instance(error, DependencyUnavailableError, what);
    assert.is((error as DependencyUnavailableError).outcomeUnknown, false, what);
  }
  proxy.resume();
  assert.is((await store.readStream('notes-1')).length, 1, 'reads answer again');
});

test('closing with the node hanging ends within the bound', async ({ proxy, store }) => {
  const received: number[] = [];
  store.subscribeToAll({ onEvents: (events) => void received.push(...events.map((e) => e.position)) });
  await store.appendToStream('notes-1', [event(1)], { expectedRevision: 'no_stream' });
  for (let i = 0; i < 200 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  proxy.stall();
  const closed = await Promise.race([
    store.close().then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('still closing'), 20_000)),
  ]);
  assert.is(closed, 'closed');
});

test('a node nobody listens for fails appends as an outage', async () => {
  const store = createEventStoreDbEventStore({
    connectionString: `esdb://127.0.0.1:${await freePort()}?tls=false`,
    timeoutMs: TIMEOUT_MS,
    appendRetries: 1,
  });
  try {
    const error = await failureOf(store.appendToStream('notes-1', [event(1)], { expectedRevision: 'no_stream' }));
    assert.instance(error, DependencyUnavailableError);
    assert.is((error as DependencyUnavailableError).dependency, 'event store');
  } finally {
    await store.close();
  }
});

test.run();
