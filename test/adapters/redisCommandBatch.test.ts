/**
 * The commands a bulk rebuild encodes itself (src/readModel/redis/resp.ts): every SADD of a single member goes inside
 * one call of ADD_ONE (lua/addOne.lua) rather than as a command of its own, and reaches Redis exactly as the other commands do, also
 * when the script is not in Redis's cache; batches sharing a pool of buffers write into them only once answered.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BufferPool, CommandBatch } from '../../src/readModel/redis/resp';
import { ADD_ONE_SCRIPT } from '../../src/readModel/redis/scripts';
import { deleteKeysUnder, REDIS_URL } from '../support/redis';

const test = suite('redis command batch');

const ADD_ONE = ADD_ONE_SCRIPT.source;

const script = (source: string) => ({ source, sha: createHash('sha1').update(source).digest('hex') });

/** A batch of one-member and many-member SADDs, an HSET and a ZADD under `prefix`. */
function fill(batch: CommandBatch, prefix: string): void {
  for (let i = 1; i <= 5; i++) batch.command(`one${i}`, 'SADD', `${prefix}one:${i}`).integer(i);
  const many = batch.command('many', 'SADD', `${prefix}many`);
  for (let i = 1; i <= 4; i++) many.integer(i * 10);
  // Binary members, as the ord() encodings of the index are.
  batch
    .command('binary', 'SADD', [Buffer.from(prefix), Buffer.from([0x3a, 0x00, 0xff])])
    .piece(Buffer.from([0x02, 0x00, 0x0d, 0x0a]));
  batch.command('hash', 'HSET', `${prefix}hash`).piece('a').piece('1').piece('b').piece('2');
  batch.command('zset', 'ZADD', `${prefix}zset`).piece('0').piece('x').piece('0').piece('y');
}

async function expectWritten(redis: Redis, prefix: string): Promise<void> {
  for (let i = 1; i <= 5; i++)
    assert.equal(await redis.smembers(`${prefix}one:${i}`), [String(i)], `one-member set ${i}`);
  assert.equal((await redis.smembers(`${prefix}many`)).sort(), ['10', '20', '30', '40']);
  const binaryKey = Buffer.concat([Buffer.from(prefix), Buffer.from([0x3a, 0x00, 0xff])]);
  assert.equal(await redis.smembersBuffer(binaryKey as unknown as string), [Buffer.from([0x02, 0x00, 0x0d, 0x0a])]);
  assert.equal(await redis.hgetall(`${prefix}hash`), { a: '1', b: '2' });
  assert.equal(await redis.zrange(`${prefix}zset`, 0, -1), ['x', 'y']);
}

test('one-member SADDs go through the script and write what the commands would', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `test:${randomBytes(6).toString('hex')}:batch:`;
  const calls: string[] = [];
  const sendCommand = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: { name: string }, stream?: unknown) => {
    calls.push(command.name);
    return sendCommand(command as never, stream as never);
  }) as typeof redis.sendCommand;
  try {
    await redis.script('LOAD', ADD_ONE);
    calls.length = 0;
    const batch = new CommandBatch();
    fill(batch, prefix);
    await batch.send(redis, script(ADD_ONE));
    // The five one-member sets and the binary one in one script call; the rest as commands of their own.
    assert.equal(calls.sort(), ['HSET', 'SADD', 'ZADD', 'evalsha']);
    await expectWritten(redis, prefix);
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

test('a script not in the cache is sent with its source', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `test:${randomBytes(6).toString('hex')}:batch:`;
  try {
    // A source no one has loaded: EVALSHA answers NOSCRIPT.
    const unloaded = script(`${ADD_ONE}\n-- ${prefix}`);
    assert.is(((await redis.script('EXISTS', unloaded.sha)) as number[])[0], 0);
    const batch = new CommandBatch();
    fill(batch, prefix);
    await batch.send(redis, unloaded);
    await expectWritten(redis, prefix);
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

test('an error inside the script rejects the send', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `test:${randomBytes(6).toString('hex')}:batch:`;
  try {
    await redis.set(`${prefix}one:3`, 'a string, not a set');
    const batch = new CommandBatch();
    fill(batch, prefix);
    let failure: unknown = null;
    await batch.send(redis, script(ADD_ONE)).catch((error: unknown) => (failure = error));
    assert.match(String(failure), /WRONGTYPE/);
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

test('a buffer pool keeps buffers of at least its minimum and hands out the smallest that fits', () => {
  const pool = new BufferPool(4096);
  const [small, middle, large] = [Buffer.alloc(1000), Buffer.alloc(8192), Buffer.alloc(65536)];
  for (const buffer of [large, small, middle]) pool.give(buffer);
  assert.ok(pool.take(5000) === middle);
  assert.ok(pool.take(5000) === large);
  // Nothing kept fits (the small one was not kept): a new buffer of the size asked.
  const fresh = pool.take(5000);
  assert.ok(fresh !== small && fresh.length === 5000);
  assert.is(pool.take(100).length, 100);
});

test('batches sharing a pool: buffers go back once Redis answered, and batches in flight never share one', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `test:${randomBytes(6).toString('hex')}:pool:`;
  try {
    const pool = new BufferPool(4096);
    /** A SADD of 3,000 members (about 20 KB), an HSET of long values, and the small commands of fill(). */
    const fillLarge = (batch: CommandBatch, at: string, base: number) => {
      fill(batch, at);
      const set = batch.command('large', 'SADD', `${at}large`, 8192);
      for (let i = 0; i < 3000; i++) set.integer(base + i);
      const hash = batch.command('texts', 'HSET', `${at}texts`, 8192);
      for (let i = 0; i < 50; i++) hash.integer(i).piece(`${at}${'x'.repeat(400)}${base + i}`);
    };
    const check = async (at: string, base: number) => {
      await expectWritten(redis, at);
      assert.equal(
        (await redis.smembers(`${at}large`)).map(Number).sort((a, b) => a - b),
        Array.from({ length: 3000 }, (_, i) => base + i),
      );
      const texts = await redis.hgetall(`${at}texts`);
      for (let i = 0; i < 50; i++) assert.is(texts[i], `${at}${'x'.repeat(400)}${base + i}`);
    };
    // Two batches in flight at once, then a third once they were answered.
    const first = new CommandBatch(pool);
    fillLarge(first, `${prefix}1:`, 0);
    const sending = first.send(redis, script(ADD_ONE));
    const second = new CommandBatch(pool);
    fillLarge(second, `${prefix}2:`, 100_000);
    await Promise.all([sending, second.send(redis, script(ADD_ONE))]);
    const third = new CommandBatch(pool);
    fillLarge(third, `${prefix}3:`, 200_000);
    await third.send(redis, script(ADD_ONE));
    await check(`${prefix}1:`, 0);
    await check(`${prefix}2:`, 100_000);
    await check(`${prefix}3:`, 200_000);
    // The answered batches' buffers were kept: one larger than asked comes back.
    assert.ok(pool.take(4096).length > 4096);
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

test.run();
