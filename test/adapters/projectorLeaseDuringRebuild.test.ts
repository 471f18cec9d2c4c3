/**
 * A projector that starts with a projection whose version changed rebuilds it into a staged generation. On the real
 * Redis: the lease holder keeps renewing its lease while that rebuild runs, however long it takes, so a standby does
 * not take over and start the same rebuild (before, each replaced the other's staged generation, for ever); once the
 * rebuild is switched in, the holder applies the log as usual. Meanwhile it applies the other projections and publishes
 * their position, which writes wait on.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { createRedisAppliedProgress, createRedisLease } from '../../src/adapters/redis/coordination';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { Projector } from '../../src/projection/runner';
import { ProjectorService } from '../../src/projection/service';
import type { Lease } from '../../src/ports/coordination';
import { defineProjection } from '../../src/projection/projection';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';
import { holdRebuild, until } from '../support/rebuildGate';

const test = suite('projector lease during a start-up rebuild');

const notes = (version: number) =>
  defineProjection({
    name: 'notes',
    version,
    collections: ['notes'],
    handles: ['Noted'],
    locate: (event) => ({ collection: 'notes', id: (event.data as { id: number }).id }),
    evolve: (_doc, event) => ({ id: (event.data as { id: number }).id, version }),
  });
const noted = (id: number) => ({
  type: 'Noted',
  data: { id },
  metadata: { userId: null, requestId: 'r', at: '2024-05-01T12:00:00.000Z' },
});

/** Resolves with `promise`; fails after `limitMs`, which only a broken behaviour reaches. */
async function within<T>(promise: Promise<T>, what: string, limitMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`never: ${what}`)), limitMs)),
  );
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('the holder renews its lease while it rebuilds; the standby stays on standby; the rebuild is switched in', async () => {
  const prefix = `test:lease-rebuild:${randomUUID()}:`;
  const connections = [new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL)];
  const [redis, first, second] = connections as [Redis, Redis, Redis];
  const services: ProjectorService[] = [];
  let release = () => {};
  try {
    const store = createMemoryEventStore();
    for (let id = 1; id <= 3; id++)
      await store.appendToStream(`n-${id}`, [noted(id)], { expectedRevision: 'no_stream' });
    const v1 = new Projector({ store, readModel: createRedisReadModel({ redis, prefix }), projections: [notes(1)] });
    await v1.start();
    await v1.stop();

    // The rebuild's own subscription (from the start of the log) is held at its first batch until released.
    const gate = holdRebuild(store);
    release = gate.release;
    const gated = gate.store;
    const renewals = { first: 0, second: 0 };
    const serviceOn = (connection: Redis, owner: 'first' | 'second') => {
      // Renewed every 400 ms: a loaded machine's stalls of a few hundred milliseconds do not let it lapse.
      const lease = createRedisLease({ redis: connection, prefix, owner, ttlMs: 1200 });
      const acquire = () => {
        renewals[owner]++;
        return lease.acquire();
      };
      const counted: Lease = { ...lease, acquire };
      const projector = new Projector({
        store: gated,
        readModel: createRedisReadModel({ redis: connection, prefix }),
        projections: [notes(2)],
        retireGraceMs: 0,
      });
      const service = new ProjectorService({
        projector,
        lease: counted,
        progress: createRedisAppliedProgress({ redis: connection, prefix }),
      });
      services.push(service);
      return service;
    };
    const holder = serviceOn(first, 'first');
    const holderStarted = holder.start();
    await until(() => gate.state.held, 'the rebuild began');
    const standby = serviceOn(second, 'second');
    await standby.start();
    // Three lease lifetimes pass while the rebuild is held.
    const from = renewals.first;
    await until(() => renewals.first >= from + 9 && renewals.second >= 9, 'nine renewals by each during the rebuild');
    assert.is(await redis.get(`${prefix}projector:lease`), 'first', 'the holder kept its lease');
    assert.is(holder.state, 'active');
    assert.is(standby.state, 'standby');
    // The start is over for the service once there is nothing but the rebuild to wait for (nothing else here).
    await within(holderStarted, "the holder's start ended while the rebuild was held");
    release();
    await until(
      async () => Number(await redis.hget(`${prefix}gen:live`, 'notes')) === 1,
      'the rebuilt generation is live',
    );
    assert.equal(await createRedisReadModel({ redis, prefix }).get('notes', 3), { id: 3, version: 2 });
    // Then it applies the log as usual.
    const { position } = await store.appendToStream('n-4', [noted(4)], { expectedRevision: 'no_stream' });
    const progress = createRedisAppliedProgress({ redis, prefix });
    assert.ok(await progress.waitFor(position, 10_000), 'the new event was applied');
    await progress.close();
    assert.equal(await createRedisReadModel({ redis, prefix }).get('notes', 4), { id: 4, version: 2 });
  } finally {
    release();
    for (const service of services) await service.stop();
    await deleteKeysUnder(redis, prefix);
    for (const connection of connections) connection.disconnect();
  }
});

test('while the holder rebuilds one projection, it applies the others and publishes their position: writes need not wait', async () => {
  const prefix = `test:lease-rebuild:${randomUUID()}:`;
  const redis = new Redis(REDIS_URL);
  let release = () => {};
  let service: ProjectorService | null = null;
  const progress = createRedisAppliedProgress({ redis, prefix });
  try {
    const store = createMemoryEventStore();
    const tags = defineProjection({
      name: 'tags',
      version: 1,
      collections: ['tags'],
      handles: ['Noted'],
      locate: (event) => ({ collection: 'tags', id: (event.data as { id: number }).id }),
      evolve: (_doc, event) => ({ id: (event.data as { id: number }).id, tagged: true }),
    });
    for (let id = 1; id <= 3; id++)
      await store.appendToStream(`n-${id}`, [noted(id)], { expectedRevision: 'no_stream' });
    const v1 = new Projector({
      store,
      readModel: createRedisReadModel({ redis, prefix }),
      projections: [notes(1), tags],
    });
    await v1.start();
    await v1.stop();

    const gate = holdRebuild(store);
    release = gate.release;
    const gated = gate.store;
    const readModel = createRedisReadModel({ redis, prefix });
    const projector = new Projector({ store: gated, readModel, projections: [notes(2), tags], retireGraceMs: 0 });
    service = new ProjectorService({
      projector,
      lease: createRedisLease({ redis, prefix, owner: 'holder', ttlMs: 1_000 }),
      progress,
    });
    const started = service.start();
    await until(() => gate.state.held, 'the rebuild began');
    // The service's start is over once the other projections have caught up: a process serving the API beside its
    // projector listens from then on.
    await within(started, 'the start ended while the rebuild was held');
    assert.equal(projector.rebuilding, ['notes']);
    const { position } = await store.appendToStream('n-4', [noted(4)], { expectedRevision: 'no_stream' });
    assert.ok(
      await progress.waitFor(position, 10_000),
      'the published position passed the new event while the rebuild is held',
    );
    assert.equal(projector.rebuilding, ['notes'], 'still rebuilding');
    assert.equal(await readModel.get('tags', 4), { id: 4, tagged: true }, 'the other projection applied it');
    assert.equal(
      await readModel.get('notes', 3),
      { id: 3, version: 1 },
      'the rebuilding one still answers from its old generation',
    );
    assert.is(await readModel.get('notes', 4), null);
    release();
    await until(() => projector.rebuilding.length === 0, 'the rebuild joined the others');
    assert.equal(
      await readModel.get('notes', 4),
      { id: 4, version: 2 },
      'switched in, with the event written during the rebuild',
    );
    const next = await store.appendToStream('n-5', [noted(5)], { expectedRevision: 'no_stream' });
    assert.ok(await progress.waitFor(next.position, 10_000));
    assert.equal(await readModel.get('notes', 5), { id: 5, version: 2 });
  } finally {
    release();
    await service?.stop();
    await progress.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
});

test('a holder whose lease term ends during a rebuild ends that rebuild: the next term applies the others at once', async () => {
  const prefix = `test:lease-rebuild:${randomUUID()}:`;
  const redis = new Redis(REDIS_URL);
  let release = () => {};
  let service: ProjectorService | null = null;
  const progress = createRedisAppliedProgress({ redis, prefix });
  try {
    const store = createMemoryEventStore();
    const tags = defineProjection({
      name: 'tags',
      version: 1,
      collections: ['tags'],
      handles: ['Noted'],
      locate: (event) => ({ collection: 'tags', id: (event.data as { id: number }).id }),
      evolve: (_doc, event) => ({ id: (event.data as { id: number }).id, tagged: true }),
    });
    for (let id = 1; id <= 3; id++)
      await store.appendToStream(`n-${id}`, [noted(id)], { expectedRevision: 'no_stream' });
    const v1 = new Projector({
      store,
      readModel: createRedisReadModel({ redis, prefix }),
      projections: [notes(1), tags],
    });
    await v1.start();
    await v1.stop();

    // Every rebuild pass (the first term's, and the next term's) is held at its first batch until released.
    const gate = holdRebuild(store);
    release = gate.release;
    const readModel = createRedisReadModel({ redis, prefix });
    const projector = new Projector({ store: gate.store, readModel, projections: [notes(2), tags], retireGraceMs: 0 });
    service = new ProjectorService({
      projector,
      lease: createRedisLease({ redis, prefix, owner: 'holder', ttlMs: 300 }),
      progress,
    });
    await within(service.start(), 'the start ended while the rebuild was held');
    const fence = service.currentFence;
    // The lease expires under the holder (a process stalled past its lifetime): its next renewal takes a new term,
    // which stops the projector and starts it again.
    await redis.del(`${prefix}projector:lease`);
    await until(() => service!.currentFence !== null && service!.currentFence !== fence, 'a new lease term');
    const { position } = await store.appendToStream('n-4', [noted(4)], { expectedRevision: 'no_stream' });
    assert.ok(
      await progress.waitFor(position, 10_000),
      'the new term published the position of the new event while the rebuild is held',
    );
    assert.equal(await readModel.get('tags', 4), { id: 4, tagged: true });
    assert.equal(await readModel.get('notes', 3), { id: 3, version: 1 }, 'the old documents still answer');
    release();
    await until(async () => (await readModel.get('notes', 4)) !== null, 'the rebuild of the new term switched in');
    assert.equal(await readModel.get('notes', 4), { id: 4, version: 2 });
    assert.equal(await readModel.checkpoint('notes').then((checkpoint) => checkpoint?.version), 2);
  } finally {
    release();
    await service?.stop();
    await progress.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
});

test.run();
