/**
 * The Redis read model's parsed documents (src/readModel/redis/readModel.ts): the same stored JSON gives back the same
 * frozen object while kept; once as many are kept as allowed, a document new to them is kept only when read again
 * within the admission window, so a first read does not push a kept one out.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import { deleteKeysUnder, REDIS_URL } from '../support/redis';
import { CacheBudget } from '../../src/caches/budget';

const test = suite('redis read model: parsed documents kept');

test('kept documents keep their identity; once full, a document is kept on its second read and pushes out the oldest', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `test:${randomBytes(6).toString('hex')}:parsed:`;
  try {
    const readModel = createRedisReadModel({ redis, prefix, parsedDocsKept: 2 });
    const writes = [1, 2, 3].map((id) => ({ collection: 'posts', id, doc: { id, title: `post ${id}` }, index: {} }));
    await readModel.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
    const get = (id: number) => readModel.get('posts', id);
    const one = await get(1);
    const two = await get(2);
    assert.is(await get(1), one);
    assert.is(await get(2), two);
    assert.ok(Object.isFrozen(one));
    // Full: the first read of 3 is not kept, so 1 and 2 keep their identity.
    const threeFirst = await get(3);
    assert.equal(threeFirst, { id: 3, title: 'post 3' });
    assert.is(await get(1), one);
    assert.is(await get(2), two);
    // Its second read is kept, and pushes out the least recently used (1).
    const threeSecond = await get(3);
    assert.is.not(threeSecond, threeFirst);
    assert.is(await get(3), threeSecond);
    assert.is(await get(2), two);
    const oneAgain = await get(1);
    assert.is.not(oneAgain, one);
    assert.equal(oneAgain, one);
    assert.is(readModel.parsedDocumentsHeld().entries, 2);
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

test('the bound comes from the cache budget; a bound of 0 keeps no document', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `test:${randomBytes(6).toString('hex')}:parsed:`;
  try {
    const budget = new CacheBudget({ engine: 'redis', totalMiB: 2 });
    const bound = budget.entries('parsedDocuments');
    const kept = createRedisReadModel({ redis, prefix, parsedDocsKept: bound });
    const writes = Array.from({ length: bound + 20 }, (_, i) => ({
      collection: 'posts',
      id: i + 1,
      doc: { id: i + 1 },
      index: {},
    }));
    await kept.commit({ writes, checkpoint: { name: 'p', position: 1, version: 1 } });
    const ids = writes.map(({ id }) => id);
    for (let round = 0; round < 2; round++) await kept.getMany('posts', ids);
    assert.is(kept.parsedDocumentsHeld().entries, bound);

    const none = createRedisReadModel({ redis, prefix, parsedDocsKept: 0 });
    const first = await none.get('posts', 1);
    assert.is.not(await none.get('posts', 1), first);
    assert.is(none.parsedDocumentsHeld().entries, 0);
  } finally {
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
  }
});

test.run();
