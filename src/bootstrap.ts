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
import { createMemoryReadModel } from './adapters/memory/readModel';
import type { MemoryReadModel } from './adapters/memory/readModel';
import { loadSnapshot, writeSnapshot } from './adapters/memory/snapshot';
import { createFileBlobStore } from './adapters/files/blobStore';
import { preparePrivateDir, tightenIfPresent } from './adapters/files/privateFiles';
import type { Projection } from './projection/projection';
import { BUILT_IN_PROJECTIONS_DIR, loadProjections } from './projection/loader';
import { loadBlockPatterns } from './resources/blockPatterns/load';
import builtInProjections from '../projections/index';

export async function openEventStore(config: Config): Promise<EventStore> {
  if (config.eventStoreUrl) {
    // Loaded only when configured: the embedded default needs no gRPC stack.
    const { createEventStoreDbEventStore } = await import('./adapters/eventstoredb/eventStore');
    return createEventStoreDbEventStore({ connectionString: config.eventStoreUrl });
  }
  preparePrivateDir(config.dataDir);
  return openSqliteEventStore({ file: path.join(config.dataDir, 'events.sqlite') });
}

/** The read model, and with Redis the coordination of the processes sharing it (projector lease, applied position). */
export async function openReadModel(config: Config): Promise<{ readModel: ReadModel; memory?: MemoryReadModel; coordination?: Coordination }> {
  if (!config.redisUrl) {
    const memory = createMemoryReadModel();
    return { readModel: memory, memory };
  }
  const [{ default: Redis }, { createRedisReadModel }, { createRedisLease, createRedisAppliedProgress }, { watchRedisChanges }] = await Promise.all([
    import('ioredis'),
    import('./adapters/redis/readModel'),
    import('./adapters/redis/coordination'),
    import('./adapters/redis/changeNotices'),
  ]);
  const redis = new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  // The API's reads on a connection of their own, auto-pipelined: reads issued in the same turn of the event loop
  // (concurrent requests, an _embed's lookups) go out in one socket write instead of one write each.
  const reader = new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3, enableAutoPipelining: true });
  // Subscriptions need a connection of their own.
  const subscriber = new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: null });
  const prefix = config.redisPrefix;
  const readModel = createRedisReadModel({ redis, subscriber, reader, prefix });
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const progress = createRedisAppliedProgress({ redis, subscriber, prefix });
  const coordination: Coordination = {
    lease: createRedisLease({ redis, prefix, owner, ttlMs: config.projectorLeaseMs }),
    progress,
    watchChanges: (onChange) => watchRedisChanges({ redis, subscriber, prefix }, onChange),
    async close() {
      await progress.close();
      await Promise.all([redis.quit(), subscriber.quit(), reader.quit()].map((quit) => quit.catch(() => undefined)));
    },
  };
  return { readModel, coordination };
}

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
  // Read before anything is opened: a library that does not load stops the start.
  const blockPatterns = config.blockPatternsDir === null ? undefined : await loadBlockPatterns(config.blockPatternsDir);
  const projections = await siteProjections(config);
  const [store, { readModel, memory, coordination }] = await Promise.all([openEventStore(config), openReadModel(config)]);
  const snapshotFile = path.join(config.dataDir, 'read-model.snapshot');
  if (memory) {
    const started = Date.now();
    const outcome = await loadSnapshot(snapshotFile, memory, store, projections);
    if (outcome.loaded) {
      const rebuilt = outcome.rebuilt.length > 0 ? `; rebuilding ${outcome.rebuilt.join(', ')} from the log` : '';
      console.error(`read model snapshot loaded: ${outcome.rows} documents at log position ${outcome.position} in ${Date.now() - started} ms${rebuilt}`);
    } else if (outcome.reason !== 'no snapshot') console.error(`read model snapshot ignored (${outcome.reason}): replaying the log`);
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
      instance: config.instance,
      responseCacheEntries: config.responseCacheEntries,
      responseCacheBytes: config.responseCacheBytes,
      outboundAllowedHosts: config.outboundAllowedHosts,
      apiDialect: config.apiDialect,
      corsAllowedOrigins: config.corsAllowedOrigins,
      trustedProxies: config.trustedProxies,
      bodyLimits: config.bodyLimits,
      // Beside the uploads, so an upload's temporary file is as private as DATA_DIR.
      bodyDir: path.join(config.dataDir, 'tmp'),
      imageMaxPixels: config.imageMaxPixels,
      blockPatterns,
      // In memory, a batch's events are what a young-generation GC finds alive and copies: a start-up replay in
      // batches of 250 spent about a tenth less CPU than in batches of 1,000 (docs/performance.md). Redis keeps
      // the default: every batch is a round trip.
      projectorBatchSize: memory ? MEMORY_PROJECTOR_BATCH : undefined,
    },
    { store, readModel, clock: systemClock, projections, coordination, blobs: createFileBlobStore(path.join(config.dataDir, 'uploads')) },
  );
  return memory ? withSnapshotOnClose(site, memory, snapshotFile) : site;
}

/**
 * A site whose in-memory read model is written to a snapshot when it closes, if this process ran the projector
 * (a CLI command that only appended would otherwise write back the older snapshot it loaded).
 */
function withSnapshotOnClose(site: Site, memory: MemoryReadModel, file: string): Site {
  let projecting = false;
  const { startProjector, close } = site;
  site.startProjector = () => {
    projecting = true;
    return startProjector.call(site);
  };
  site.close = async () => {
    if (projecting) {
      await site.projector.stop();
      try {
        await writeSnapshot(file, memory, site.store, site.projector.projections);
      } catch (error) {
        console.error('read model snapshot not written', error);
      }
    }
    await close.call(site);
  };
  return site;
}
