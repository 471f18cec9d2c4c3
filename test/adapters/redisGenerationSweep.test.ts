/**
 * Sweeping orphaned generations on the real Redis (src/readModel/redis/sweep.ts): a staged generation whose builder died
 * (no build lease) is un-staged and its keys deleted, a retired generation nobody dropped goes once its grace is over
 * (generation 0's keys included), and the live generations and a build under way (its lease held) keep every key.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { buildLeaseKey } from '../../src/readModel/redis/keys';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { sweepGenerations } from '../../src/readModel/redis/sweep';
import { generationOfKey } from '../../src/readModel/redis/generationKeys';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { StaleCommitError } from '../../src/ports/readModel';
import type { Commit } from '../../src/ports/readModel';
import { Projector } from '../../src/projection/runner';
import { defineProjection } from '../../src/projection/projection';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';

interface Context {
  redis: Redis;
  prefix: string;
  /** Other connections a test opens, closed after it whatever happened (an open one would keep the run alive). */
  others: Redis[];
}

const test = suite<Context>('redis: sweeping orphaned generations', {} as Context);

test.before.each(async (context) => {
  context.redis = new Redis(REDIS_URL);
  context.prefix = `test:sweep:${randomUUID()}:`;
  context.others = [];
});

test.after.each(async ({ redis, prefix, others }) => {
  for (const other of others) other.disconnect();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

/** Documents 1..count of a collection (indexed, so each generation holds several kinds of keys), with the checkpoint. */
const commitOf = (collection: string, count: number, position: number, generation?: number): Commit => ({
  writes: Array.from({ length: count }, (_, i) => ({
    collection,
    id: i + 1,
    doc: { id: i + 1, title: `${collection} ${i + 1} at ${position}` },
    index: {
      sort: { title: `${collection} ${i + 1}` },
      sets: { kind: [collection] },
      text: { title: `${collection} words ${i + 1}` },
    },
  })),
  checkpoint: { name: collection, position, version: 1 },
  ...(generation === undefined ? {} : { generation }),
});

/** Every key under the prefix, as `generation collection` → its keys (hex), for comparing before and after. */
async function keysByGeneration(redis: Redis, prefix: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const own = Buffer.from(prefix);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next.toString();
    for (const key of keys) {
      const parsed = generationOfKey(key, own);
      if (parsed === null) continue;
      const label = `${parsed.generation} ${parsed.collection}`;
      out.set(label, [...(out.get(label) ?? []), key.toString('hex')].sort());
    }
  } while (cursor !== '0');
  return out;
}

test('collection keys are told apart by generation; other keys are not collection keys', () => {
  const prefix = Buffer.from('p:');
  assert.equal(generationOfKey(Buffer.from('p:c:post:d'), prefix), { generation: 0, collection: 'post' });
  assert.equal(generationOfKey(Buffer.from('p:g12:c:menu%3Aitem:z:title'), prefix), {
    generation: 12,
    collection: 'menu%3Aitem',
  });
  for (const other of [
    'p:gen:live',
    'p:gen:seq',
    'p:checkpoints',
    'p:g:c:x:d',
    'p:g012:c:x:d',
    'p:g3:x:d',
    'p:c:nocolon',
    'q:c:post:d',
    'p:',
  ]) {
    assert.is(generationOfKey(Buffer.from(other), prefix), null, other);
  }
});

test('an abandoned build and retired generations are swept; live generations and a build under way keep every key', async ({
  redis,
  prefix,
  others,
}) => {
  const readModel = createRedisReadModel({ redis, prefix });
  const generations = readModel.generations!;
  // notes: rebuilt twice, neither retired generation dropped (the process died within the grace, say).
  await readModel.commit(commitOf('notes', 5, 10));
  const notes1 = await generations.stageGeneration('notes', ['notes']);
  await readModel.commit(commitOf('notes', 5, 10, notes1));
  assert.equal(await generations.promote('notes', notes1, ['notes']), { retired: 0 });
  const notes2 = await generations.stageGeneration('notes', ['notes']);
  await readModel.commit(commitOf('notes', 5, 10, notes2));
  assert.equal(await generations.promote('notes', notes2, ['notes']), { retired: notes1 });
  // tasks: live in generation 0; a rebuild by another process, which died part-way (its lease lapsed).
  await readModel.commit(commitOf('tasks', 4, 10));
  const otherConnection = new Redis(REDIS_URL);
  others.push(otherConnection);
  const dying = createRedisReadModel({ redis: otherConnection, prefix });
  const abandoned = await dying.generations!.stageGeneration('tasks', ['tasks']);
  await dying.commit({ ...commitOf('tasks', 4, 6, abandoned), bulk: true });
  await dying.close();
  assert.is(
    await redis.exists(buildLeaseKey(Buffer.from(prefix), abandoned) as unknown as string),
    1,
    'the lease outlives its builder for a while',
  );
  await redis.del(buildLeaseKey(Buffer.from(prefix), abandoned) as unknown as string);
  // logs: live in generation 0, and a rebuild under way in this process.
  await readModel.commit(commitOf('logs', 3, 10));
  const building = await generations.stageGeneration('logs', ['logs']);
  await readModel.commit({ ...commitOf('logs', 3, 8, building), bulk: true });

  const before = await keysByGeneration(redis, prefix);
  for (const label of [
    '0 notes',
    `${notes1} notes`,
    `${notes2} notes`,
    '0 tasks',
    `${abandoned} tasks`,
    '0 logs',
    `${building} logs`,
  ]) {
    assert.ok((before.get(label)?.length ?? 0) > 3, `${label} has keys`);
  }

  // A dry run reports and deletes nothing.
  const dry = await sweepGenerations({ redis, prefix, dryRun: true });
  assert.equal(dry.unstaged, [{ projection: 'tasks', generation: abandoned }]);
  assert.equal(dry.generations, [abandoned]);
  assert.is(dry.keys, before.get(`${abandoned} tasks`)!.length);
  assert.equal(await keysByGeneration(redis, prefix), before);
  assert.ok(await generations.stagedCheckpoint('tasks', abandoned), 'still staged after a dry run');

  // Within their grace, retired generations stay (readers may not have heard of the switch yet).
  const first = await sweepGenerations({ redis, prefix });
  assert.equal(first, {
    unstaged: [{ projection: 'tasks', generation: abandoned }],
    generations: [abandoned],
    keys: before.get(`${abandoned} tasks`)!.length,
  });
  const afterFirst = await keysByGeneration(redis, prefix);
  assert.is(afterFirst.get(`${abandoned} tasks`), undefined);
  assert.equal(afterFirst, new Map([...before].filter(([label]) => label !== `${abandoned} tasks`)));
  assert.is(await generations.stagedCheckpoint('tasks', abandoned), null, 'un-staged');
  try {
    await dying.commit({ ...commitOf('tasks', 1, 7, abandoned), bulk: true });
    assert.unreachable('the abandoned builder committed into its un-staged generation');
  } catch (error) {
    assert.instance(error, StaleCommitError);
  }
  assert.is(
    (await keysByGeneration(redis, prefix)).get(`${abandoned} tasks`),
    undefined,
    'what its refused commit wrote was deleted',
  );

  // Past the grace, the retired generations go: notes' generation 0 and first rebuild.
  const second = await sweepGenerations({ redis, prefix, retiredGraceMs: 0 });
  assert.equal(second, {
    unstaged: [],
    generations: [0, notes1],
    keys: before.get('0 notes')!.length + before.get(`${notes1} notes`)!.length,
  });
  const afterSecond = await keysByGeneration(redis, prefix);
  assert.equal([...afterSecond.keys()].sort(), [`${building} logs`, `${notes2} notes`, '0 logs', '0 tasks'].sort());
  for (const [label, keys] of afterSecond) assert.equal(keys, before.get(label), `${label} kept every key`);
  assert.is(await redis.hlen(`${prefix}gen:retired`), 0, 'the retirements are done with');
  assert.equal(
    await sweepGenerations({ redis, prefix, retiredGraceMs: 0 }),
    { unstaged: [], generations: [], keys: 0 },
    'nothing left',
  );

  // Everything live still reads, and the build under way finishes.
  assert.equal(await readModel.get('notes', 5), { id: 5, title: 'notes 5 at 10' });
  assert.is(
    (
      await readModel.query('tasks', {
        filters: [{ kind: 'text', fields: ['title'], includes: ['words'], excludes: [] }],
        order: { kind: 'field', field: 'title', direction: 'asc' },
        offset: 0,
        limit: null,
      })
    ).total,
    4,
  );
  await readModel.commit({ ...commitOf('logs', 3, 10, building), bulk: true });
  assert.equal(await generations.promote('logs', building, ['logs']), { retired: 0 });
  assert.equal(await readModel.get('logs', 3), { id: 3, title: 'logs 3 at 10' });
  assert.is(
    await redis.exists(buildLeaseKey(Buffer.from(prefix), building) as unknown as string),
    0,
    'a promoted build gives its lease up',
  );
  await readModel.close();
});

test('a generation numbered past the counter the sweep read is kept: staged meanwhile, by a build it could not see', async ({
  redis,
  prefix,
}) => {
  const readModel = createRedisReadModel({ redis, prefix });
  const staged = await readModel.generations!.stageGeneration('notes', ['notes']);
  await readModel.commit({ ...commitOf('notes', 2, 4, staged), bulk: true });
  // What a build numbered after the plan has written (keys of generation staged + 1, which is not staged yet).
  await redis.hset(`${prefix}g${staged + 1}:c:notes:d`, 'x', '{}');
  const before = await keysByGeneration(redis, prefix);
  assert.equal(await sweepGenerations({ redis, prefix }), { unstaged: [], generations: [], keys: 0 });
  assert.equal(await keysByGeneration(redis, prefix), before);
  // Once the counter has passed it and nobody stages it, it is an orphan.
  await redis.incr(`${prefix}gen:seq`);
  assert.equal(await sweepGenerations({ redis, prefix }), { unstaged: [], generations: [staged + 1], keys: 1 });
  await readModel.close();
});

test('a rebuild that fails gives up its build lease, so its generation is swept', async ({ redis, prefix }) => {
  const store = createMemoryEventStore();
  const readModel = createRedisReadModel({ redis, prefix });
  const fragile = defineProjection({
    name: 'fragile',
    version: 1,
    collections: ['fragile'],
    handles: ['Noted'],
    locate: (event) => ({ collection: 'fragile', id: (event.data as { id: number }).id }),
    evolve: (_doc, event) => {
      if ((event.data as { id: number }).id === 3) throw new Error('cannot fold this one');
      return { id: (event.data as { id: number }).id };
    },
  });
  const noted = (id: number) => ({
    type: 'Noted',
    data: { id },
    metadata: { userId: null, requestId: 'r', at: '2024-05-01T12:00:00.000Z' },
  });
  await store.appendToStream('n-1', [noted(1), noted(2)], { expectedRevision: 'no_stream' });
  await store.appendToStream('n-3', [noted(3)], { expectedRevision: 'no_stream' });
  const rebuilder = new Projector({ store, readModel, projections: [fragile], bulkFlushDocs: 1, maxBatchSize: 1 });
  let failure: unknown = null;
  await rebuilder.rebuild('fragile').catch((error: unknown) => (failure = error));
  assert.instance(failure, Error);
  const generation = Number(await redis.hget(`${prefix}gen:staged`, 'fragile'));
  assert.ok(generation > 0, 'left staged');
  assert.is(
    await redis.exists(buildLeaseKey(Buffer.from(prefix), generation) as unknown as string),
    0,
    'without its lease',
  );
  const report = await sweepGenerations({ redis, prefix });
  assert.equal(report.unstaged, [{ projection: 'fragile', generation }]);
  assert.equal((await keysByGeneration(redis, prefix)).size, 0, 'nothing of it is left');
  await rebuilder.stop();
  await readModel.close();
});

test.run();
