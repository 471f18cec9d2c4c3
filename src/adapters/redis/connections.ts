/**
 * The Redis connections of a process, with bounded waits, and what an outage of Redis looks like to the rest.
 *
 * - Every command on the command connections fails after `commandTimeoutMs` (ioredis `commandTimeout`), also one
 *   queued while the connection is down, and a connection that stops answering is dropped and made again
 *   (`socketTimeout`), so a Redis that hangs (paused, a network that drops packets) costs a request that long, not
 *   for ever. A command already sent when its connection drops is not sent again (its outcome is unknown, and its
 *   caller was told it failed); commands queued while down are sent once connected, unless they timed out first.
 * - The subscriber connection has no command timeout (a SUBSCRIBE that timed out would leave a channel unsubscribed
 *   after the reconnect); closing never waits for it beyond the deadline (`close`).
 * - Connection errors are handled, never left to ioredis's "Unhandled error event", and logged once per change of
 *   state: when Redis becomes unreachable, and when every connection is back.
 * - `isRedisOutage` tells a connection error or a timeout from a fault of the command; `unavailableOnOutage` turns
 *   the former into DependencyUnavailableError on an adapter's methods.
 */
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { DependencyUnavailableError } from '../../ports/unavailable';
import type { Dependency } from '../../ports/unavailable';

export interface RedisTimeouts {
  /** Longest a command may take (REDIS_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs: number;
  /** Longest a connection attempt may take (REDIS_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
}

/** Reconnection attempts after which commands queued while disconnected fail, without waiting out their timeout. */
const MAX_RETRIES_PER_REQUEST = 2;
/** The longest pause between reconnection attempts. */
const LONGEST_RECONNECT_PAUSE_MS = 2_000;

/**
 * ioredis options for one kind of connection: `command` (commands, bounded), or `subscriber` (subscriptions only:
 * no command timeout, queued subscriptions wait for the connection).
 */
export function redisOptions(
  kind: 'command' | 'subscriber',
  timeouts: RedisTimeouts,
  extra: RedisOptions = {},
): RedisOptions {
  const common: RedisOptions = {
    lazyConnect: false,
    connectTimeout: timeouts.connectTimeoutMs,
    // A connection whose peer went away without a word is found by TCP keep-alive.
    keepAlive: 10_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, LONGEST_RECONNECT_PAUSE_MS),
    // A closing connection that the server does not let go of is destroyed after this.
    disconnectTimeout: Math.min(timeouts.commandTimeoutMs, 500),
  };
  if (kind === 'subscriber') return { ...common, maxRetriesPerRequest: null, ...extra };
  return {
    ...common,
    commandTimeout: timeouts.commandTimeoutMs,
    // Commands outstanding and no byte back for this long: the connection is dropped and made again.
    socketTimeout: timeouts.commandTimeoutMs,
    maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
    autoResendUnfulfilledCommands: false,
    ...extra,
  };
}

/** Node's network errors that mean the server cannot be reached (or the connection to it was lost). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
/** Redis's own answers that mean "not now" rather than "wrong command". */
const BUSY_REPLIES = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;
/** ioredis's messages for a command that got no answer: timed out, or its connection closed or unusable. */
const CONNECTION_MESSAGES =
  /^(Command timed out|Connection is closed|Stream isn't writeable|Ready check failed|Socket timeout|Command aborted due to connection close|Reached the max retries per request limit)/;

/** Whether `error` says Redis could not be reached or did not answer in time (as opposed to refusing the command). */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'AbortError') return true;
  return CONNECTION_MESSAGES.test(error.message) || (error.name === 'ReplyError' && BUSY_REPLIES.test(error.message));
}

/** An outage of Redis as the typed error the HTTP edge answers 503 for. */
export function redisUnavailable(error: unknown, dependency: Dependency = 'read model'): DependencyUnavailableError {
  const detail = error instanceof Error ? error.message : String(error);
  return new DependencyUnavailableError(dependency, `Redis did not answer: ${detail}`, { cause: error });
}

const rethrowOutage = (error: unknown): never => {
  throw isRedisOutage(error) ? redisUnavailable(error) : error;
};

/**
 * The adapter with every method that returns a promise failing with DependencyUnavailableError where it failed for
 * an outage of Redis; other failures, and methods that answer at once, are as they were. Nested objects of methods
 * (a read model's `generations`) are wrapped alike.
 */
export function unavailableOnOutage<T extends object>(target: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(target))) {
    const value = descriptor.value as unknown;
    if (typeof value === 'function') {
      wrapped[key] = (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          return rethrowOutage(error);
        }
        return result instanceof Promise ? result.catch(rethrowOutage) : result;
      };
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      wrapped[key] = unavailableOnOutage(value);
    } else {
      Object.defineProperty(wrapped, key, descriptor);
    }
  }
  return wrapped as T;
}

export interface RedisConnections {
  /** Commands: commits, the lease, the applied position. */
  redis: Redis;
  /** The API's reads, auto-pipelined. */
  reader: Redis;
  /** Subscriptions only. */
  subscriber: Redis;
  /** True while every connection is ready. */
  readonly up: boolean;
  /** Quits every connection, giving up and disconnecting once `deadlineMs` have passed. */
  close(deadlineMs: number): Promise<void>;
  /** Disconnects every connection at once: whatever waits on one of them fails. */
  disconnect(): void;
}

/**
 * Opens the command, reader and subscriber connections to `url`. `log` is told, once each, when Redis becomes
 * unreachable and when it is back; `onState` is told every change (metrics).
 */
export function openRedisConnections(
  url: string,
  timeouts: RedisTimeouts,
  log: (line: string) => void,
  onState?: (up: boolean) => void,
): RedisConnections {
  const redis = new Redis(url, redisOptions('command', timeouts));
  // Reads issued in the same turn of the event loop (concurrent requests, an _embed's lookups) go out in one write.
  const reader = new Redis(url, redisOptions('command', timeouts, { enableAutoPipelining: true }));
  const subscriber = new Redis(url, redisOptions('subscriber', timeouts));
  const clients = [redis, reader, subscriber];
  const ready = new Set<Redis>();
  let closing = false;
  // Unknown until the first connection is made or fails: the first failure is reported, a start that connects is not.
  let state: 'unknown' | 'up' | 'down' = 'unknown';
  let downSince = 0;
  const target = describeRedisUrl(url);
  const markDown = (reason: string) => {
    if (closing || state === 'down') return;
    state = 'down';
    downSince = Date.now();
    log(`redis: ${target} unreachable (${reason}); requests that need it answer 503 until it is back`);
    onState?.(false);
  };
  const markUp = () => {
    if (closing || ready.size < clients.length || state === 'up') return;
    if (state === 'down')
      log(`redis: ${target} reachable again after ${((Date.now() - downSince) / 1000).toFixed(1)} s`);
    state = 'up';
    onState?.(true);
  };
  for (const client of clients) {
    client.on('error', (error: Error) => {
      ready.delete(client);
      markDown(error.message || (error as { code?: string }).code || String(error));
    });
    client.on('close', () => {
      if (!ready.delete(client)) return;
      markDown('connection closed');
    });
    client.on('ready', () => {
      ready.add(client);
      markUp();
    });
  }
  const disconnect = () => {
    closing = true;
    for (const client of clients) client.disconnect();
  };
  return {
    redis,
    reader,
    subscriber,
    get up() {
      return state === 'up';
    },
    async close(deadlineMs) {
      closing = true;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      });
      const quits = Promise.all(
        clients.map((client) => (client.status === 'end' ? undefined : client.quit().catch(() => undefined))),
      );
      await Promise.race([quits, late]);
      clearTimeout(timer);
      // Whatever did not quit in time (a server that does not answer, a connection still being made) is cut.
      for (const client of clients) if (client.status !== 'end') client.disconnect();
    },
    disconnect,
  };
}

/** The URL without its password, for logs. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return 'redis';
  }
}
