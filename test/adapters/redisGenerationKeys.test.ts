/**
 * Generations' keys on the real Redis: deleting them (src/readModel/redis/generationKeys.ts: exactly the keys asked for
 * go, and deletions waiting at once share one walk of the keyspace, counted as SCANs starting at cursor 0), and a new
 * generation staged without a walk, under a number nobody has used even when the counter was lost.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { GenerationKeyDeleter } from '../../src/readModel/redis/generationKeys';
import { globEscape } from '../../src/readModel/redis/keys';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { REDIS_URL, deleteKeysUnder } from '../support/redis';

interface Context {
  redis: Redis;
  prefix: string;
  /** SCAN calls made from cursor 0: one per walk of the keyspace. */
  walks: number;
  /** Held open, each walk's first SCAN waits for it (set by a test). */
  gate: Promise<void> | null;
  /** Made to fail, the next walk's first SCAN rejects. */
  failNextWalk: boolean;
}

const test = suite<Context>(
  'redis generation keys: deletion in shared walks, new generations without one',
  {} as Context,
);

test.before.each(async (context) => {
  context.redis = new Redis(REDIS_URL);
  context.prefix = `test:genkeys:${randomUUID()}:`;
  context.walks = 0;
  context.gate = null;
  context.failNextWalk = false;
  const scan = context.redis.scanBuffer.bind(context.redis) as (...args: unknown[]) => Promise<[Buffer, Buffer[]]>;
  (context.redis as unknown as { scanBuffer: (...args: unknown[]) => Promise<[Buffer, Buffer[]]> }).scanBuffer = async (
    ...args: unknown[]
  ) => {
    if (String(args[0]) === '0') {
      context.walks++;
      if (context.gate) await context.gate;
      if (context.failNextWalk) {
        context.failNextWalk = false;
        throw new Error('scan failed');
      }
    }
    return scan(...args);
  };
});

test.after.each(async ({ redis, prefix }) => {
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

/** Generation 0 of `post`, `page` and `user`, generation 3 of `post` and `page`, generation 4 of `user`, and other keys. */
async function seed(redis: Redis, prefix: string): Promise<void> {
  const keys = [
    'c:post:d',
    'c:post:z:date',
    'c:page:d',
    'c:user:d',
    'g3:c:post:d',
    'g3:c:post:s:status:x',
    'g3:c:page:d',
    'g4:c:user:d',
    'c:postscript:d',
    'gen:live',
    'checkpoints',
  ];
  for (const key of keys) await redis.set(`${prefix}${key}`, '1');
}

async function remaining(redis: Redis, prefix: string): Promise<string[]> {
  return (await redis.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
}

const deleterFor = ({ redis, prefix }: Context, count = 1000) =>
  new GenerationKeyDeleter(redis, Buffer.from(prefix), globEscape(Buffer.from(prefix)), count);

test('exactly the keys of the collections in the generations asked for are deleted', async (context) => {
  const { redis, prefix } = context;
  await seed(redis, prefix);
  const deleter = deleterFor(context, 2);
  await deleter.delete([
    { collection: 'post', generation: 0 },
    { collection: 'page', generation: 3 },
  ]);
  assert.equal(await remaining(redis, prefix), [
    'c:page:d',
    'c:postscript:d',
    'c:user:d',
    'checkpoints',
    'g3:c:post:d',
    'g3:c:post:s:status:x',
    'g4:c:user:d',
    'gen:live',
  ]);
  await deleter.delete([{ collection: 'user', generation: 4 }]);
  assert.equal(await remaining(redis, prefix), [
    'c:page:d',
    'c:postscript:d',
    'c:user:d',
    'checkpoints',
    'g3:c:post:d',
    'g3:c:post:s:status:x',
    'gen:live',
  ]);
  await deleter.delete([]);
  assert.is(context.walks, 2, 'one walk per deletion, none for nothing to delete');
});

test('deletions asked for in one turn share one walk', async (context) => {
  const { redis, prefix } = context;
  await seed(redis, prefix);
  const deleter = deleterFor(context);
  await Promise.all([
    deleter.delete([
      { collection: 'post', generation: 3 },
      { collection: 'page', generation: 3 },
    ]),
    deleter.delete([{ collection: 'user', generation: 4 }]),
    deleter.delete([{ collection: 'user', generation: 0 }]),
  ]);
  assert.is(context.walks, 1);
  assert.equal(await remaining(redis, prefix), [
    'c:page:d',
    'c:post:d',
    'c:post:z:date',
    'c:postscript:d',
    'checkpoints',
    'gen:live',
  ]);
});

test('deletions asked for during a walk wait for the next one, which they share', async (context) => {
  const { redis, prefix } = context;
  await seed(redis, prefix);
  const deleter = deleterFor(context);
  let open!: () => void;
  context.gate = new Promise((resolve) => (open = resolve));
  const first = deleter.delete([{ collection: 'post', generation: 0 }]);
  // The first walk has started and is held at its first SCAN.
  while (context.walks === 0) await new Promise((resolve) => setImmediate(resolve));
  const later = [
    deleter.delete([{ collection: 'page', generation: 0 }]),
    deleter.delete([{ collection: 'user', generation: 4 }]),
  ];
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(context.walks, 1, 'nothing else walks while the first is under way');
  context.gate = null;
  open();
  await Promise.all([first, ...later]);
  assert.is(context.walks, 2);
  assert.equal(await remaining(redis, prefix), [
    'c:postscript:d',
    'c:user:d',
    'checkpoints',
    'g3:c:page:d',
    'g3:c:post:d',
    'g3:c:post:s:status:x',
    'gen:live',
  ]);
});

test('a walk that fails rejects only its own deletions; the next walk still runs', async (context) => {
  const { redis, prefix } = context;
  await seed(redis, prefix);
  const deleter = deleterFor(context);
  context.failNextWalk = true;
  try {
    await deleter.delete([{ collection: 'post', generation: 0 }]);
    assert.unreachable('the failed walk resolved');
  } catch (error) {
    assert.match((error as Error).message, 'scan failed');
  }
  await deleter.delete([{ collection: 'page', generation: 0 }]);
  assert.equal(await remaining(redis, prefix), [
    'c:post:d',
    'c:post:z:date',
    'c:postscript:d',
    'c:user:d',
    'checkpoints',
    'g3:c:page:d',
    'g3:c:post:d',
    'g3:c:post:s:status:x',
    'g4:c:user:d',
    'gen:live',
  ]);
});

test('a new generation is staged without walking the keyspace; replacing an abandoned build walks once', async (context) => {
  const { redis, prefix } = context;
  const readModel = createRedisReadModel({ redis, prefix });
  const generations = readModel.generations!;
  const first = await generations.stageGeneration('notes', ['notes', 'tags']);
  assert.is(context.walks, 0);
  await redis.set(`${prefix}g${first}:c:notes:d`, '1');
  await redis.set(`${prefix}g${first}:c:tags:d`, '1');
  // Staged again (its builder died): the abandoned build's keys go, in one walk for both collections.
  const second = await generations.stageGeneration('notes', ['notes', 'tags']);
  assert.ok(second > first);
  assert.is(context.walks, 1);
  assert.equal(await remaining(redis, prefix), [`gen:building:${second}`, 'gen:seq', 'gen:staged']);
  await readModel.close();
});

test('retired generations dropped together take one walk; one of them live refuses them all, deleting nothing', async (context) => {
  const { redis, prefix } = context;
  const readModel = createRedisReadModel({ redis, prefix });
  const generations = readModel.generations!;
  const commitInto = (collection: string, generation: number) =>
    readModel.commit({
      checkpoint: { name: collection, position: 1, version: 1 },
      writes: [{ collection, id: 1, doc: { id: 1 } }],
      generation,
    });
  await commitInto('notes', 0);
  await commitInto('tags', 0);
  const rebuilt: Record<string, number> = {};
  for (const name of ['notes', 'tags']) {
    rebuilt[name] = await generations.stageGeneration(name, [name]);
    await commitInto(name, rebuilt[name]!);
    assert.equal(await generations.promote(name, rebuilt[name]!, [name]), { retired: 0 });
  }
  context.walks = 0;
  try {
    await generations.dropGenerations([
      { collections: ['notes'], generation: 0 },
      { collections: ['tags'], generation: rebuilt.tags! },
    ]);
    assert.unreachable('a live generation was dropped');
  } catch (error) {
    assert.match((error as Error).message, `generation ${rebuilt.tags} of tags is live`);
  }
  assert.is(context.walks, 0);
  assert.ok((await redis.keys(`${prefix}c:notes:*`)).length > 0, 'nothing deleted');
  await generations.dropGenerations([
    { collections: ['notes'], generation: 0 },
    { collections: ['tags'], generation: 0 },
  ]);
  assert.is(context.walks, 1);
  assert.equal(await redis.keys(`${prefix}c:*`), []);
  assert.equal(await readModel.get('tags', 1), { id: 1 }, 'the live generations are untouched');
  assert.equal(await redis.hkeys(`${prefix}gen:retired`), [], 'their retirements are done with');
  await readModel.close();
});

test('a lost generation counter does not hand out a recorded generation again', async (context) => {
  const { redis, prefix } = context;
  const readModel = createRedisReadModel({ redis, prefix });
  const generations = readModel.generations!;
  const notes = await generations.stageGeneration('notes', ['notes']);
  await readModel.commit({
    checkpoint: { name: 'notes', position: 1, version: 1 },
    writes: [{ collection: 'notes', id: 1, doc: { id: 1 } }],
    generation: notes,
  });
  assert.equal(await generations.promote('notes', notes, ['notes']), { retired: 0 });
  const tags = await generations.stageGeneration('tags', ['tags']);
  await redis.del(`${prefix}gen:seq`);
  const next = await generations.stageGeneration('others', ['others']);
  assert.ok(next > Math.max(notes, tags), `${next} is past the live ${notes} and the staged ${tags}`);
  assert.is(Number(await redis.get(`${prefix}gen:seq`)), next, 'the counter is put past them');
  assert.is(await generations.stageGeneration('more', ['more']), next + 1);
  // A retired generation counts too (one that outlived the counter's key: a rebuild retired it, its deletion waits).
  await redis.hset(`${prefix}gen:retired`, '40', String(Date.now()));
  await redis.del(`${prefix}gen:seq`);
  assert.is(await generations.stageGeneration('last', ['last']), 41);
  await readModel.close();
});

test.run();
