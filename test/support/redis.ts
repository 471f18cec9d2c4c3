/** A Redis read model under a key prefix of its own, for tests against the real server; cleanup removes every key. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisReadModel } from '../../src/adapters/redis/readModel';
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
      // Index keys carry binary handles: scanned as strings they would come back mangled and never be deleted.
      let cursor = '0';
      do {
        const [next, keys] = await admin.scanBuffer(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = String(next);
        if (keys.length > 0) await admin.del(...keys);
      } while (cursor !== '0');
      await admin.quit();
      if (redis.status !== 'end') await redis.quit().catch(() => undefined);
    },
  };
}
