/**
 * Opens a site from configuration: picks the adapters (embedded SQLite + in-memory by default; EventStoreDB when
 * EVENTSTORE_URL is set; Redis when REDIS_URL is set), the auth secret, and assembles the Site. Shared by the server and the CLI.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config';
import { createSite } from './site';
import type { Coordination, Site } from './site';
import type { EventStore } from './ports/eventStore';
import type { ReadModel } from './ports/readModel';
import { systemClock } from './ports/clock';
import { openSqliteEventStore } from './adapters/sqlite/eventStore';
import { createMemoryReadModel } from './readModel/memory/readModel';
import type { MemoryReadModel } from './readModel/memory/readModel';
import { loadSnapshot, writeSnapshot } from './readModel/memory/snapshot';
import { createFileBlobStore } from './adapters/files/blobStore';
import { createOutboundHttp } from './adapters/http/outboundClient';
import { DEFAULT_WEBHOOK_SETTINGS, createWebhookHttp } from './webhooks/settings';
import { createLoggingMailer } from './adapters/mail/loggingMailer';
import type { BlobStore } from './ports/blobStore';
import { preparePrivateDir, tightenIfPresent } from './adapters/files/privateFiles';
import type { Projection } from './projection/projection';
import { BUILT_IN_PROJECTIONS_DIR, loadProjections } from './projection/loader';
import { loadBlockPatterns } from './resources/blockPatterns/load';
import { userAccounts } from './resources/users/accounts';
import { contentReactions } from './resources/contentReactions';
import { instanceNamed } from './instances/index';
import builtInProjections from '../projections/index';
import type { RedisConnections, RedisTimeouts } from './adapters/redis/connections';
import type { Counter } from 'prom-client';
import { logger } from './logger';
import { CacheBudget } from './caches/budget';
import type { CacheName } from './caches/budget';
import type { CacheSize } from './caches/budget';

/** What the event store tells the site about itself (a dropped subscription), before the site's metrics exist. */
export interface StoreEvents {
  onSubscriptionDropped?(error: unknown, attempt: number): void;
}

export async function openEventStore(config: Config, events: StoreEvents = {}): Promise<EventStore> {
  if (config.eventStoreUrl) {
    // Loaded only when configured: the embedded default needs no gRPC stack.
    const { createEventStoreDbEventStore } = await import('./adapters/eventstoredb/eventStore');
    return createEventStoreDbEventStore({
      connectionString: config.eventStoreUrl,
      timeoutMs: config.eventStoreTimeoutMs,
      onSubscriptionDropped: (error, attempt) => {
        logger.warn(
          `event store: the subscription to the log dropped (${error instanceof Error ? error.message : String(error)}); resubscribing (attempt ${attempt})`,
        );
        events.onSubscriptionDropped?.(error, attempt);
      },
    });
  }
  preparePrivateDir(config.dataDir);
  return openSqliteEventStore({
    file: path.join(config.dataDir, 'events.sqlite'),
    busyTimeoutMs: config.eventStoreTimeoutMs,
  });
}

/** Where uploads are kept: a directory (DATA_DIR/uploads by default), or an S3 bucket (BLOB_STORE). */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  const settings = config.blobStore;
  if (settings.kind === 'file') return createFileBlobStore(settings.root);
  // Loaded only when configured: the embedded default needs no AWS SDK.
  const { createS3BlobStore, createS3Client } = await import('./adapters/s3/blobStore');
  return createS3BlobStore({ client: createS3Client(settings), bucket: settings.bucket, prefix: settings.prefix });
}

/** The read model, and with Redis the coordination of the processes sharing it (projector lease, applied position). */
export async function openReadModel(
  config: Config,
  { caches = cacheBudget(config), onRedisState }: { caches?: CacheBudget; onRedisState?: (up: boolean) => void } = {},
): Promise<{
  readModel: ReadModel;
  memory?: MemoryReadModel;
  coordination?: Coordination;
  connections?: RedisConnections;
  /** What the read model's own caches hold, for the site's gauges. */
  cacheSizes: Partial<Record<CacheName, () => CacheSize>>;
}> {
  if (!config.redisUrl) {
    const memory = createMemoryReadModel({
      parsedDocsKept: caches.entries('parsedDocuments'),
      textMatchesKept: caches.entries('textMatches'),
    });
    return {
      readModel: memory,
      memory,
      cacheSizes: { parsedDocuments: memory.parsedDocumentsHeld, textMatches: memory.textMatchesHeld },
    };
  }
  const [
    { createRedisReadModel },
    { createRedisLease, createRedisAppliedProgress },
    { watchRedisChanges },
    { openRedisConnections, unavailableOnOutage },
  ] = await Promise.all([
    import('./readModel/redis/readModel'),
    import('./adapters/redis/coordination'),
    import('./adapters/redis/changeNotices'),
    import('./adapters/redis/connections'),
  ]);
  // Commands, the API's reads (auto-pipelined), and subscriptions, each on a connection of its own, every command
  // bounded (src/adapters/redis/connections.ts).
  const connections = openRedisConnections(
    config.redisUrl,
    redisTimeouts(config),
    (line) => logger.warn(line),
    onRedisState,
  );
  const { redis, reader, subscriber } = connections;
  const prefix = config.redisPrefix;
  // An outage fails a call with DependencyUnavailableError, which the HTTP edge answers with 503.
  const redisReadModel = createRedisReadModel({
    redis,
    subscriber,
    reader,
    prefix,
    parsedDocsKept: caches.entries('parsedDocuments'),
  });
  const readModel = unavailableOnOutage(redisReadModel);
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const progress = unavailableOnOutage(createRedisAppliedProgress({ redis, subscriber, prefix }));
  const coordination: Coordination = {
    lease: unavailableOnOutage(createRedisLease({ redis, prefix, owner, ttlMs: config.projectorLeaseMs })),
    progress,
    watchChanges: (onChange) => watchRedisChanges({ redis, subscriber, prefix }, onChange),
    async close() {
      await progress.close();
      await connections.close(config.redisCommandTimeoutMs);
    },
  };
  return { readModel, coordination, connections, cacheSizes: { parsedDocuments: redisReadModel.parsedDocumentsHeld } };
}

/** The caches' budget configured (CACHE_MEMORY_MB, CACHES_OFF), for the read-model engine configured. */
export const cacheBudget = (config: Config): CacheBudget =>
  new CacheBudget({
    engine: config.redisUrl ? 'redis' : 'memory',
    totalMiB: config.caches.totalMiB ?? undefined,
    off: config.caches.off,
  });

export const redisTimeouts = (config: Config): RedisTimeouts => ({
  commandTimeoutMs: config.redisCommandTimeoutMs,
  connectTimeoutMs: config.redisConnectTimeoutMs,
});

/** The key application-password hashes are made with: AUTH_SECRET, or one generated once and kept in DATA_DIR. */
export function authSecret(config: Config): string {
  if (config.authSecret) return config.authSecret;
  const file = path.join(config.dataDir, 'auth-secret');
  preparePrivateDir(config.dataDir);
  try {
    const kept = fs.readFileSync(file, 'utf8').trim();
    tightenIfPresent(file);
    return kept;
  } catch {
    const secret = randomBytes(32).toString('hex');
    try {
      // `wx`: if another process created it first, use theirs.
      fs.writeFileSync(file, `${secret}\n`, { flag: 'wx', mode: 0o600 });
      return secret;
    } catch {
      return fs.readFileSync(file, 'utf8').trim();
    }
  }
}

/** The built-in projections followed by the custom ones found in `projections/` and PROJECTIONS_DIR. */
export async function siteProjections(config: Config): Promise<Projection[]> {
  const custom = await loadProjections([BUILT_IN_PROJECTIONS_DIR, config.projectionsDir], builtInProjections);
  return [...builtInProjections, ...custom];
}

/** Events per projector batch with the in-memory read model. */
const MEMORY_PROJECTOR_BATCH = 250;

export async function openSite(config: Config): Promise<Site> {
  logger.level = config.logLevel;
  // Read before anything is opened: a library that does not load stops the start.
  const blockPatterns = config.blockPatternsDir === null ? undefined : await loadBlockPatterns(config.blockPatternsDir);
  const projections = await siteProjections(config);
  // Told to the site's metrics once they exist (the connections are made first).
  let drops: Counter | null = null;
  let redisUp = false;
  const caches = cacheBudget(config);
  const [store, { readModel, memory, coordination, connections, cacheSizes }, blobs] = await Promise.all([
    openEventStore(config, { onSubscriptionDropped: () => drops?.inc() }),
    openReadModel(config, { caches, onRedisState: (up) => (redisUp = up) }),
    openBlobStore(config),
  ]);
  const snapshotFile = path.join(config.dataDir, 'read-model.snapshot');
  if (memory) {
    const started = Date.now();
    const outcome = await loadSnapshot(snapshotFile, memory, store, projections);
    if (outcome.loaded) {
      const rebuilt = outcome.rebuilt.length > 0 ? `; rebuilding ${outcome.rebuilt.join(', ')} from the log` : '';
      logger.info(
        `read model snapshot loaded: ${outcome.rows} documents at log position ${outcome.position} in ${Date.now() - started} ms${rebuilt}`,
      );
    } else if (outcome.reason !== 'no snapshot')
      logger.warn(`read model snapshot ignored (${outcome.reason}): replaying the log`);
  }
  const site = createSite(
    {
      siteUrl: config.siteUrl,
      name: config.siteName,
      description: config.siteDescription,
      timezone: config.timezone,
      authSecret: authSecret(config),
      idBlockSize: config.idBlockSize,
      readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
      readyMaxLagSeconds: config.readyMaxLagSeconds,
      readinessCheckMs: config.readinessCheckMs,
      instance: instanceNamed(config.instance),
      caches,
      apiDialect: config.apiDialect,
      corsAllowedOrigins: config.corsAllowedOrigins,
      trustedProxies: config.trustedProxies,
      bodyLimits: config.bodyLimits,
      // Beside the uploads, so an upload's temporary file is as private as DATA_DIR.
      bodyDir: path.join(config.dataDir, 'tmp'),
      imageMaxPixels: config.imageMaxPixels,
      commentFloodSeconds: config.commentFloodSeconds,
      idempotencyTtlMs: config.idempotencyTtlMs,
      blockPatterns,
      auditStreamHeartbeatMs: config.auditStreams.heartbeatMs,
      auditStreamsPerUser: config.auditStreams.perUser,
      auditStreamsTotal: config.auditStreams.total,
      webhooks: { allowedHosts: config.webhooks.allowedHosts, deadLetterAfterMs: config.webhooks.deadLetterAfterMs },
      // In memory, a batch's events are what a young-generation GC finds alive and copies: a start-up replay in
      // batches of 250 spent about a tenth less CPU than in batches of 1,000 (docs/performance.md). Redis keeps
      // the default: every batch is a round trip.
      projectorBatchSize: memory ? MEMORY_PROJECTOR_BATCH : undefined,
    },
    {
      store,
      readModel,
      clock: systemClock,
      projections,
      coordination,
      blobs,
      http: createOutboundHttp({ allowedHosts: config.outboundAllowedHosts }),
      // Sends nothing: one line per message in the log (docs/second-instance.md, Mail).
      mailer: createLoggingMailer((line) => logger.info(line)),
      accounts: userAccounts,
      contentReactions,
      webhookHttp: createWebhookHttp({ ...DEFAULT_WEBHOOK_SETTINGS, allowedHosts: config.webhooks.allowedHosts }),
    },
  );
  for (const [name, size] of Object.entries(cacheSizes)) site.caches.watch(name as CacheName, size);
  const { registry } = site.metrics;
  drops = registry.counter(
    'palimpsest_event_store_subscription_drops_total',
    'Subscriptions to the event log that dropped and were made again.',
  );
  drops.inc(0);
  if (connections) {
    const connected = registry.gauge(
      'palimpsest_redis_connected',
      '1 while every connection of this process to Redis is ready.',
    );
    registry.collect(() => connected.set(redisUp ? 1 : 0));
  }
  const opened = memory ? withSnapshotOnClose(site, memory, snapshotFile) : site;
  return connections ? withRedisCutOff(opened, connections, config.redisCommandTimeoutMs) : opened;
}

/**
 * A site whose close cuts the Redis connections once `afterMs` have passed: whatever the close still waits for on
 * them (a SUBSCRIBE's undoing, a command to a server that does not answer) then fails at once, so a stop with Redis
 * unreachable ends in about that time.
 */
function withRedisCutOff(site: Site, connections: RedisConnections, afterMs: number): Site {
  const { close } = site;
  site.close = async () => {
    const cut = setTimeout(() => connections.disconnect(), afterMs);
    try {
      await close.call(site);
    } finally {
      clearTimeout(cut);
    }
  };
  return site;
}

/**
 * A site whose in-memory read model is written to a snapshot when it closes, if this process ran the projector
 * (a CLI command that only appended would otherwise write back the older snapshot it loaded).
 */
function withSnapshotOnClose(site: Site, memory: MemoryReadModel, file: string): Site {
  let projecting = false;
  const { startProjector, close } = site;
  site.startProjector = (options) => {
    projecting = true;
    return startProjector.call(site, options);
  };
  site.close = async () => {
    if (projecting) {
      await site.projector.stop();
      try {
        await writeSnapshot(file, memory, site.store, site.projector.projections);
      } catch (error) {
        logger.error({ err: error }, 'read model snapshot not written');
      }
    }
    await close.call(site);
  };
  return site;
}
