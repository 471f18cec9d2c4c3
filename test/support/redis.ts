/** A Redis read model under a key prefix of its own, for tests against the real server; cleanup removes every key. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisReadModel } from '../../src/readModel/redis/readModel';
import type { ReadModel } from '../../src/ports/readModel';

export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

export function testRedisReadModel(): { readModel: ReadModel; cleanup(): Promise<void> } {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `test:${randomUUID()}:`;
  const readModel = createRedisReadModel({ redis, prefix });
  return {
    readModel,
    async cleanup() {
      const admin = new Redis(REDIS_URL);
      await deleteKeysUnder(admin, prefix);
      await admin.quit();
      if (redis.status !== 'end') await redis.quit().catch(() => undefined);
    },
  };
}

/**
 * Deletes every key that starts with `prefix`. Scanned as buffers: index keys carry binary handles, which a string
 * scan would hand back mangled, so they could never be deleted by name.
 */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = String(next);
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/**
 * Makes `redis`'s next EVALSHA answer NOSCRIPT, as a server whose script cache was flushed would, for this client
 * only (a real SCRIPT FLUSH would disturb other users of the shared server). Returns how many were refused so far.
 */
export function refuseNextEvalsha(redis: Redis): () => number {
  const original = redis.evalsha.bind(redis);
  let refused = 0;
  redis.evalsha = (async () => {
    refused++;
    redis.evalsha = original;
    throw new Error('NOSCRIPT No matching script. Please use EVAL.');
  }) as typeof redis.evalsha;
  return () => refused;
}
