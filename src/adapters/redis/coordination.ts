/**
 * How the processes sharing a Redis read model agree on who projects and how far it got:
 * - the projector lease: one key holding its owner, with an expiry the holder keeps renewing; each new holder
 *   gets the next fencing token, which the read model's COMMIT checks (src/readModel/redis/lua/commit.lua), so a
 *   holder that stalled past its expiry cannot commit over its successor;
 * - the applied position: the lowest log position every projection has applied, raised (never lowered) by the
 *   fenced holder after each commit and published on a channel. API nodes wait on it for read-your-writes: the
 *   channel wakes them at once, and a poll while anyone waits covers a lost message or a reconnect. A read that
 *   fails (Redis unreachable, or not answering in time) ends every wait with its error at once: nobody can apply
 *   positions meanwhile.
 *
 *   <prefix>projector:lease    owner id, with PX expiry
 *   <prefix>projector:fence    the newest fencing token
 *   <prefix>projector:applied  the applied position (also the channel name)
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AppliedProgress, Lease } from '../../ports/coordination';

const ACQUIRE = String.raw`
local leaseKey, fenceKey, owner, ttl = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local holder = redis.call('GET', leaseKey)
if holder == owner then
  redis.call('PEXPIRE', leaseKey, ttl)
  return tonumber(redis.call('GET', fenceKey))
end
if holder then return -1 end
local fence = redis.call('INCR', fenceKey)
redis.call('SET', leaseKey, owner, 'PX', ttl)
return fence
`;

const RELEASE = String.raw`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

const PUBLISH_APPLIED = String.raw`
local fenceKey, appliedKey, fence, position = KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2])
if redis.call('GET', fenceKey) ~= fence then return 0 end
if position > tonumber(redis.call('GET', appliedKey) or '0') then
  redis.call('SET', appliedKey, position)
  redis.call('PUBLISH', appliedKey, position)
end
return 1
`;
/** Sent by its digest (EVALSHA): the script's text is not sent, nor hashed by Redis, after every commit. */
const publishSha = createHash('sha1').update(PUBLISH_APPLIED).digest('hex');

export function createRedisLease(options: { redis: Redis; prefix: string; owner: string; ttlMs: number }): Lease {
  const { redis, prefix, owner, ttlMs } = options;
  const leaseKey = `${prefix}projector:lease`;
  const fenceKey = `${prefix}projector:fence`;
  return {
    ttlMs,
    owner,
    async acquire() {
      const fence = Number(await redis.eval(ACQUIRE, 2, leaseKey, fenceKey, owner, String(ttlMs)));
      return fence > 0 ? fence : null;
    },
    async release() {
      await redis.eval(RELEASE, 1, leaseKey, owner);
    },
    async holder() {
      return redis.get(leaseKey);
    },
  };
}

export function createRedisAppliedProgress(options: {
  redis: Redis;
  subscriber?: Redis;
  prefix: string;
  pollMs?: number;
}): AppliedProgress {
  const { redis, subscriber, prefix } = options;
  const pollMs = options.pollMs ?? 250;
  const fenceKey = `${prefix}projector:fence`;
  const appliedKey = `${prefix}projector:applied`;
  let known = 0;
  let waiters: {
    position: number;
    resolve(reached: boolean): void;
    reject(error: unknown): void;
    timer: NodeJS.Timeout;
  }[] = [];
  let poller: NodeJS.Timeout | null = null;

  const observe = (position: number) => {
    if (!(position > known)) return;
    known = position;
    waiters = waiters.filter((waiter) => {
      if (waiter.position > known) return true;
      clearTimeout(waiter.timer);
      waiter.resolve(true);
      return false;
    });
    if (waiters.length === 0) stopPolling();
  };
  const read = async () => {
    observe(Number((await redis.get(appliedKey)) ?? 0));
    return known;
  };
  function stopPolling() {
    if (poller) clearInterval(poller);
    poller = null;
  }
  /** A poll failed (Redis unreachable): nobody can apply positions meanwhile, so every waiter is told at once. */
  const failWaiters = (error: unknown) => {
    const failed = waiters;
    waiters = [];
    stopPolling();
    for (const waiter of failed) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  };
  const onMessage = (channel: string, message: string) => {
    if (channel === appliedKey) observe(Number(message));
  };
  // After a reconnect messages may have been missed: read the key again.
  const onReady = () => void read().catch(() => undefined);
  if (subscriber) {
    subscriber.on('message', onMessage);
    subscriber.on('ready', onReady);
    subscriber.subscribe(appliedKey).catch(() => undefined);
  }

  return {
    async publish(position, fence) {
      // The caller's commits up to `position` have landed (their fence was checked as they did): this process's
      // waiters may read them now, a round trip before the others hear of it.
      observe(position);
      const accepted = Number(
        await redis
          .evalsha(publishSha, 2, fenceKey, appliedKey, String(fence), String(position))
          .catch((error: unknown) => {
            if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
            return redis.eval(PUBLISH_APPLIED, 2, fenceKey, appliedKey, String(fence), String(position));
          }),
      );
      return accepted === 1;
    },
    applied: read,
    async current() {
      return Number((await redis.get(appliedKey)) ?? 0);
    },
    async waitFor(position, timeoutMs) {
      if (position <= known) return true;
      // Redis unreachable: nobody can apply the position meanwhile, so the caller is told at once, not after the wait.
      await read();
      // `known` as it is now, not as the read returned it: a publish may have raised it in between, and a waiter
      // registered at or below `known` would be released by no later notice (observe only acts on a rise).
      if (position <= known) return true;
      return new Promise<boolean>((resolve, reject) => {
        const waiter = {
          position,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters = waiters.filter((w) => w !== waiter);
            if (waiters.length === 0) stopPolling();
            resolve(false);
          }, timeoutMs),
        };
        waiters.push(waiter);
        poller ??= setInterval(() => void read().catch(failWaiters), pollMs);
      });
    },
    async close() {
      stopPolling();
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.resolve(false);
      }
      waiters = [];
      if (subscriber) {
        subscriber.off('message', onMessage).off('ready', onReady);
        // Only on a live connection (see the read model's close).
        if (subscriber.status === 'ready') await subscriber.unsubscribe(appliedKey).catch(() => undefined);
      }
    },
  };
}
