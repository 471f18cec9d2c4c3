/**
 * Coordination on the real Redis: the projector lease and its fencing token (a stale holder's commit is refused
 * inside the commit script), the shared applied position, and generations (a rebuild stays invisible until the
 * atomic switch, a replaced generation's commits are refused, its keys are deleted afterwards).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { createRedisAppliedProgress, createRedisLease } from '../../src/adapters/redis/coordination';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { StaleCommitError } from '../../src/ports/readModel';
import type { ReadModel } from '../../src/ports/readModel';
import { Projector } from '../../src/projection/runner';
import { defineProjection } from '../../src/projection/projection';
import { REDIS_URL, deleteKeysUnder, refuseNextEvalsha } from '../support/redis';

interface Context {
  redis: Redis;
  prefix: string;
}

const test = suite<Context>('redis coordination: lease, fencing, applied position, generations', {} as Context);

test.before.each(async (context) => {
  context.redis = new Redis(REDIS_URL);
  context.prefix = `test:coordination:${randomUUID()}:`;
});

test.after.each(async ({ redis, prefix }) => {
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

const notes = defineProjection({
  name: 'notes',
  version: 1,
  collections: ['notes'],
  handles: ['Noted'],
  locate: (event) => ({ collection: 'notes', id: (event.data as { id: number }).id }),
  evolve: (doc, event) => ({
    id: (event.data as { id: number }).id,
    text: (event.data as { text: string }).text,
    times: ((doc?.times as number) ?? 0) + 1,
  }),
  index: (doc) => ({ sort: { times: doc.times as number } }),
});

const note = (id: number, text: string) => ({
  type: 'Noted',
  data: { id, text },
  metadata: { userId: null, requestId: 'r', at: '2024-05-01T12:00:00.000Z' },
});

const commitOf = (text: string, position: number, extra: { fence?: number; generation?: number } = {}) => ({
  writes: [{ collection: 'notes', id: 1, doc: { id: 1, text } }],
  checkpoint: { name: 'notes', position, version: 1 },
  ...extra,
});

test("one holder at a time; a takeover gets a newer token and the old holder's commits are refused", async ({
  redis,
  prefix,
}) => {
  const readModel = createRedisReadModel({ redis, prefix });
  const first = createRedisLease({ redis, prefix, owner: 'first', ttlMs: 60_000 });
  const second = createRedisLease({ redis, prefix, owner: 'second', ttlMs: 60_000 });
  const fence1 = await first.acquire();
  assert.is(fence1, 1);
  assert.is(await first.acquire(), 1, 'renewing keeps the token');
  assert.is(await second.acquire(), null, 'held by another');
  await readModel.commit(commitOf('from the first', 1, { fence: fence1! }));

  // The first holder stalls past its expiry (here: its key disappears as an expiry would remove it).
  await redis.del(`${prefix}projector:lease`);
  const fence2 = await second.acquire();
  assert.is(fence2, 2);
  assert.is(await first.acquire(), null, 'the stalled holder cannot take it back');
  try {
    await readModel.commit(commitOf('late write from the first', 2, { fence: fence1! }));
    assert.unreachable('the stale commit was accepted');
  } catch (error) {
    assert.instance(error, StaleCommitError);
    assert.is((error as StaleCommitError).reason, 'fence');
  }
  assert.equal(
    await readModel.get('notes', 1),
    { id: 1, text: 'from the first' },
    'nothing of the refused commit was written',
  );
  assert.equal(await readModel.checkpoint('notes'), { position: 1, version: 1 });
  await readModel.commit(commitOf('from the second', 2, { fence: fence2! }));
  assert.equal(await readModel.get('notes', 1), { id: 1, text: 'from the second' });
  await second.release();
  assert.is(await second.holder(), null);
});

test('a running projector whose lease was taken over stops at its next commit', async ({ redis, prefix }) => {
  const store = createMemoryEventStore();
  const readModel = createRedisReadModel({ redis, prefix });
  const old = new Projector({ store, readModel, projections: [notes] });
  const current = new Projector({ store, readModel, projections: [notes] });
  let fenced: StaleCommitError | null = null;
  await old.start({ fence: 1, onFenced: (error) => (fenced = error) });
  await redis.set(`${prefix}projector:fence`, '2');
  await current.start({ fence: 2 });
  const { position } = await store.appendToStream('note-1', [note(1, 'hello')], { expectedRevision: 'no_stream' });
  assert.ok(await current.waitFor(position, 30_000));
  for (let i = 0; i < 600 && !fenced; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(fenced, 'the old projector was told it was fenced off');
  assert.is((await readModel.get('notes', 1))?.times, 1, 'the event was applied once');
  await Promise.all([old.stop(), current.stop()]);
});

test('a projector fenced off with several projections stops without counting the refused commits as failures', async ({
  redis,
  prefix,
}) => {
  const store = createMemoryEventStore();
  const readModel = createRedisReadModel({ redis, prefix });
  // Several projections fed by one subscription: their commits go together, and one at a time once that is refused.
  const tagged = (name: string) =>
    defineProjection({
      ...notes,
      name,
      collections: [name],
      locate: (event) => ({ collection: name, id: (event.data as { id: number }).id }),
    });
  const projections = [tagged('notes-a'), tagged('notes-b'), tagged('notes-c')];
  const old = new Projector({ store, readModel, projections, log: () => undefined });
  let fenced: StaleCommitError | null = null;
  await old.start({ fence: 1, onFenced: (error) => (fenced = error) });
  await redis.set(`${prefix}projector:fence`, '2');
  await store.appendToStream('note-1', [note(1, 'hello')], { expectedRevision: 'no_stream' });
  for (let i = 0; i < 600 && !fenced; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(fenced, 'the old projector was told it was fenced off');
  await old.stop();
  // A projector back on standby is healthy (/readyz reads these): none of its projections stopped on an error.
  assert.equal(old.failures, []);
  for (const projection of projections)
    assert.is(await readModel.checkpoint(projection.name), null, `${projection.name}: nothing committed`);
});

test('the applied position only rises, only for the newest token, and wakes waiters', async ({ redis, prefix }) => {
  const subscriber = new Redis(REDIS_URL);
  const progress = createRedisAppliedProgress({ redis, subscriber, prefix, pollMs: 50 });
  try {
    await redis.set(`${prefix}projector:fence`, '3');
    const waiting = progress.waitFor(5, 30_000);
    assert.is(await progress.publish(5, 2), false, 'an older token is refused');
    assert.is(await progress.publish(5, 3), true);
    assert.is(await waiting, true);
    await progress.publish(4, 3);
    assert.is(await progress.applied(), 5, 'never lowered');
    assert.is(await progress.waitFor(6, 1), false, 'a position not reached times out');
  } finally {
    await progress.close();
    await subscriber.quit();
  }
});

test("the publishing process's own waiters are released without waiting for the shared position", async ({
  redis,
  prefix,
}) => {
  // No subscriber and a poll far beyond the test: only the publish itself can release the waiter.
  const progress = createRedisAppliedProgress({ redis, prefix, pollMs: 3_600_000 });
  const other = createRedisAppliedProgress({ redis, prefix, pollMs: 3_600_000 });
  try {
    await redis.set(`${prefix}projector:fence`, '3');
    const waiting = progress.waitFor(7, 30_000);
    // A projector whose term ended after its commit landed: the shared position is not raised, yet the documents
    // up to 7 are in the read model, so this process may read them.
    assert.is(await progress.publish(7, 2), false);
    assert.is(await waiting, true);
    assert.is(await redis.get(`${prefix}projector:applied`), null, 'the refused publish raised nothing shared');
    assert.is(await other.waitFor(7, 1), false, 'other processes wait for the shared position');
    assert.is(await progress.publish(7, 3), true);
    assert.is(await other.waitFor(7, 30_000), true);
    // The script is sent by its digest; a server that lost it gets its text.
    const refused = refuseNextEvalsha(redis);
    assert.is(await progress.publish(8, 3), true);
    assert.is(refused(), 1);
    assert.is(await redis.get(`${prefix}projector:applied`), '8');
  } finally {
    await Promise.all([progress.close(), other.close()]);
  }
});

test('a wait is not lost when the position is reached between its read of the shared value and its registration', async ({
  redis,
  prefix,
}) => {
  const progress = createRedisAppliedProgress({ redis, prefix, pollMs: 20 });
  const get = redis.get.bind(redis);
  try {
    await redis.set(`${prefix}projector:fence`, '3');
    // The wait's read of the shared value is answered when the test says; right after it, the publish lands.
    let answer!: () => void;
    redis.get = (() =>
      new Promise<string | null>((resolve) => (answer = () => resolve('0')))) as unknown as typeof redis.get;
    const waiting = progress.waitFor(7, 3_000);
    await new Promise((resolve) => setImmediate(resolve));
    redis.get = get;
    answer();
    queueMicrotask(() => void progress.publish(7, 3));
    // Nothing is published after it (every writer waits), so only the wait's own check can see 7.
    assert.is(await waiting, true, 'released, not timed out');
  } finally {
    redis.get = get;
    await progress.close();
  }
});

test('a staged generation is invisible until promoted, promotion waits for it to catch up, the old one is refused and dropped', async ({
  redis,
  prefix,
}) => {
  const readModel: ReadModel = createRedisReadModel({ redis, prefix });
  const generations = readModel.generations!;
  await readModel.commit(commitOf('old', 5));
  assert.is(await generations.liveGeneration('notes'), 0);
  const staged = await generations.stageGeneration('notes', ['notes']);
  await readModel.commit(commitOf('new', 3, { generation: staged }));
  assert.equal(await readModel.get('notes', 1), { id: 1, text: 'old' }, 'readers still see the live generation');
  assert.equal(await readModel.checkpoint('notes'), { position: 5, version: 1 });
  assert.equal(await generations.stagedCheckpoint('notes', staged), { position: 3, version: 1 });
  assert.is(
    await generations.promote('notes', staged, ['notes']),
    'behind',
    'not before it has caught up with the live one',
  );
  await readModel.commit(commitOf('new', 6, { generation: staged }));
  assert.equal(await generations.promote('notes', staged, ['notes']), { retired: 0 });
  assert.equal(await readModel.get('notes', 1), { id: 1, text: 'new' });
  assert.equal(await readModel.checkpoint('notes'), { position: 6, version: 1 });
  assert.is(
    (
      await readModel.query('notes', {
        filters: [],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: null,
      })
    ).total,
    1,
  );
  try {
    await readModel.commit(commitOf('stale', 7, { generation: 0 }));
    assert.unreachable('a commit into the replaced generation was accepted');
  } catch (error) {
    assert.instance(error, StaleCommitError);
    assert.is((error as StaleCommitError).reason, 'generation');
  }
  // Another process reading the same keys learns of the switch through the channel.
  const subscriber = new Redis(REDIS_URL);
  const other = createRedisReadModel({ redis, subscriber, prefix });
  assert.equal(await other.get('notes', 1), { id: 1, text: 'new' });
  await generations.dropGenerations([{ collections: ['notes'], generation: 0 }]);
  assert.equal(await redis.keys(`${prefix}c:notes:*`), [], 'the retired generation is gone');
  await other.close();
  await subscriber.quit();
});

test('a projector rebuild on Redis swaps generations under a live projector, which carries on in the new one', async ({
  redis,
  prefix,
}) => {
  const store = createMemoryEventStore();
  const readModel = createRedisReadModel({ redis, prefix });
  await store.appendToStream('note-1', [note(1, 'a'), note(1, 'b')], { expectedRevision: 'no_stream' });
  const live = new Projector({ store, readModel, projections: [notes], retireGraceMs: 0 });
  await live.start();
  assert.is((await readModel.get('notes', 1))?.times, 2);
  const rebuilder = new Projector({ store, readModel, projections: [notes], retireGraceMs: 0 });
  const progress = await rebuilder.rebuild('notes');
  assert.is(progress.applied, 2);
  assert.is(await readModel.generations!.liveGeneration('notes'), 1);
  assert.is((await readModel.get('notes', 1))?.times, 2, 'the rebuilt documents equal the old ones');
  const { position } = await store.appendToStream('note-1', [note(1, 'c')], { expectedRevision: 1 });
  for (let i = 0; i < 600 && (await readModel.checkpoint('notes'))!.position < position; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(
    await readModel.get('notes', 1),
    { id: 1, text: 'c', times: 3 },
    'the live projector moved to the new generation',
  );
  await Promise.all([live.stop(), rebuilder.stop()]);
});

test('rebuilding several projections waits for one grace: the old generations are deleted together after the last switch, before the rebuild answers', async ({
  redis,
  prefix,
}) => {
  const store = createMemoryEventStore();
  await store.appendToStream('note-1', [note(1, 'a'), note(1, 'b')], { expectedRevision: 'no_stream' });
  const others = defineProjection({
    ...notes,
    name: 'others',
    collections: ['others'],
    locate: (event) => ({ collection: 'others', id: (event.data as { id: number }).id }),
  });
  const base = createRedisReadModel({ redis, prefix });
  const events: string[] = [];
  const GRACE_MS = 300;
  let switchedOthersAt = 0;
  const dropsAt: number[] = [];
  const generations = {
    ...base.generations!,
    // The second build is slower to start than the grace: a deletion made after each switch's own grace would come
    // while it builds.
    stageGeneration: async (name: string, collections: readonly string[]) => {
      if (name === 'others') await new Promise((resolve) => setTimeout(resolve, 2 * GRACE_MS));
      return base.generations!.stageGeneration(name, collections);
    },
    dropGenerations: async (retired: readonly { collections: readonly string[]; generation: number }[]) => {
      events.push(
        `dropped ${retired.map(({ collections, generation }) => `${collections.join()} ${generation}`).join(' and ')}`,
      );
      dropsAt.push(performance.now());
      await base.generations!.dropGenerations(retired);
    },
  };
  const readModel: ReadModel = { ...base, generations };
  const live = new Projector({ store, readModel, projections: [notes, others] });
  await live.start();
  await live.stop();
  const rebuilder = new Projector({ store, readModel, projections: [notes, others], retireGraceMs: GRACE_MS });
  const building = new Set<string>();
  const results = await rebuilder.rebuildAll(
    ['notes', 'others'],
    (progress) => {
      if (!building.has(progress.projection)) events.push(`building ${progress.projection}`);
      building.add(progress.projection);
    },
    (progress) => {
      events.push(`switched ${progress.projection}`);
      if (progress.projection === 'others') switchedOthersAt = performance.now();
    },
  );
  // Built together in one pass over the log, switched in one after the other, then both old generations deleted, asked
  // for together once the grace after the last switch was over, both before the rebuild answered.
  assert.equal(events, [
    'building notes',
    'building others',
    'switched notes',
    'switched others',
    'dropped notes 0 and others 0',
  ]);
  assert.ok(
    dropsAt[0]! - switchedOthersAt >= GRACE_MS - 5,
    `deleted ${dropsAt[0]! - switchedOthersAt} ms after the last switch`,
  );
  assert.equal(await redis.keys(`${prefix}c:*`), [], 'generation 0 of both is gone');
  assert.equal(
    results.map((result) => [result.projection, result.applied]),
    [
      ['notes', 2],
      ['others', 2],
    ],
  );
  assert.ok(
    (await generations.liveGeneration('notes')) > 0 && (await generations.liveGeneration('others')) > 0,
    'both switched to new generations',
  );
  assert.is((await readModel.get('others', 1))?.times, 2);
  await rebuilder.stop();
});

test('a projector stopped within the grace after a start-up rebuild leaves the retired generation to the sweep; one running deletes it', async ({
  redis,
  prefix,
}) => {
  const store = createMemoryEventStore();
  await store.appendToStream('note-1', [note(1, 'a')], { expectedRevision: 'no_stream' });
  const base = createRedisReadModel({ redis, prefix });
  const dropped: number[] = [];
  const generations = {
    ...base.generations!,
    dropGenerations: async (retired: readonly { collections: readonly string[]; generation: number }[]) => {
      dropped.push(...retired.map(({ generation }) => generation));
      await base.generations!.dropGenerations(retired);
    },
  };
  const readModel: ReadModel = { ...base, generations };
  const first = new Projector({ store, readModel, projections: [notes] });
  await first.start();
  await first.stop();
  // A start with a new version of the projection rebuilds it into a new generation, switches, and retires the old one.
  const startNewVersion = async (version: number) => {
    const projector = new Projector({ store, readModel, projections: [{ ...notes, version }], retireGraceMs: 150 });
    const live = await generations.liveGeneration('notes');
    await projector.start();
    for (let i = 0; i < 200 && (await generations.liveGeneration('notes')) === live; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.is.not(await generations.liveGeneration('notes'), live, 'switched');
    return projector;
  };
  const stoppedAtOnce = await startNewVersion(notes.version + 1);
  await stoppedAtOnce.stop();
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(dropped, [], 'stopped within the grace: nothing deleted after the stop');
  assert.ok(await redis.hexists(`${prefix}gen:retired`, '0'), 'generation 0 is recorded as retired, for the sweep');
  const running = await startNewVersion(notes.version + 2);
  await new Promise((resolve) => setTimeout(resolve, 400));
  await running.stop();
  assert.equal(dropped, [1], 'running past the grace: the generation it retired is deleted');
});

test.run();
