/**
 * Change notices from the shared Redis read model (src/adapters/redis/changeNotices.ts), on the real server: an
 * applied position published by a projector is told once; a generation switch is told again after a round trip on
 * the command connection (by then the read model adapter has reloaded which generation it reads); after stopping,
 * nothing is told.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { watchRedisChanges } from '../../src/adapters/redis/changeNotices';
import { REDIS_URL } from '../support/redis';

const test = suite('redis change notices');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, done: () => boolean, boundMs = 10_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${boundMs} ms`);
    await sleep(10);
  }
}

test('applied positions and generation switches are told; nothing after stopping', async () => {
  const prefix = `test:notices:${randomUUID()}:`;
  const redis = new Redis(REDIS_URL);
  const subscriber = new Redis(REDIS_URL);
  const publisher = new Redis(REDIS_URL);
  try {
    let told = 0;
    const stop = watchRedisChanges({ redis, subscriber, prefix }, () => (told += 1));
    // The subscription is in place once a publish reaches a subscriber (connecting is itself told: it may follow a gap).
    for (;;) {
      if ((await publisher.publish(`${prefix}projector:applied`, '1')) > 0) break;
      await sleep(10);
    }
    await until('the first applied position', () => told >= 1);
    await sleep(50);
    const afterApplied = told;

    await publisher.publish(`${prefix}projector:applied`, '2');
    await until('the second applied position', () => told === afterApplied + 1);

    await publisher.publish(`${prefix}gen:switched`, 'content');
    await until('the switch, told twice', () => told === afterApplied + 3);

    // Another site's notices are not ours.
    await publisher.publish(`other:${prefix}projector:applied`, '3');
    stop();
    await publisher.publish(`${prefix}projector:applied`, '4');
    await sleep(100);
    assert.is(told, afterApplied + 3);
  } finally {
    await Promise.all([redis.quit(), subscriber.quit(), publisher.quit()]);
  }
});

test.run();
