/**
 * The site: every dependency the routes and operations need, assembled once by the composition root
 * (main.ts, the CLI, or a test) from the ports' adapters. No module-level singletons: whoever needs the
 * site is handed it.
 */
import { randomUUID } from 'node:crypto';
import { RequestTracker } from './core/requestsInFlight';
import type { RequestsInFlight } from './core/requestsInFlight';
import type { Clock } from './ports/clock';
import type { EventMetadata, EventStore } from './ports/eventStore';
import type { ReadModel } from './ports/readModel';
import type { BlobStore } from './ports/blobStore';
import type { HttpFetcher } from './ports/httpFetcher';
import type { Mailer } from './ports/mailer';
import type { Accounts } from './access/accounts';
import { FIRST_INSTANCE } from './instances/instance';
import type { InstanceProfile } from './instances/instance';
import type { Actor } from './access/capabilities';
import type { ApiDialect } from './http/dialect';
import { CommandHandler } from './core/commandHandler';
import { IdSequence } from './core/ids';
import { NameClaims } from './core/claims';
import { Projector } from './projection/runner';
import { ProjectorService } from './projection/service';
import { PerVersion, ReadModelVersion } from './projection/readModelVersion';
import { cacheDocuments } from './projection/documentCache';
import { CacheBudget } from './caches/budget';
import { CacheMeter } from './metrics/cacheMeter';
import { boundTimezoneOffsets, timezoneOffsetsHeld } from './text/dates';
import { boundRenderedText, renderedTextHeld } from './text/render';
import type { AppliedProgress, Lease } from './ports/coordination';
import type { Projection } from './projection/projection';
import { collectProjectorLag, createSiteMetrics, timedStore } from './metrics/siteMetrics';
import type { SiteMetrics } from './metrics/siteMetrics';
import builtInProjections from '../projections/index';
import type { BodyLimits } from './http/requestBodies';
import { countingKeyedAppends, keyedMetadata } from './resources/idempotency/context';
import { ReadModelWatch } from './health/readModelWatch';
import { judgeReadModel } from './projection/epoch';
import type { BlockPatternLibrary } from './resources/blockPatterns/library';
import { logLine, logger } from './logger';
import { WebhookDeliverer } from './webhooks/deliverer';
import { DEFAULT_WEBHOOK_SETTINGS } from './webhooks/settings';
import type { WebhookSettings } from './webhooks/settings';

export interface SiteSettings {
  siteUrl: string;
  name: string;
  description: string;
  timezone: string;
  /** Key for application-password hashes. */
  authSecret: string;
  idBlockSize: number;
  readYourWritesTimeoutMs: number;
  /** /readyz fails while the read model trails the log by more than this (seconds; default 30). */
  readyMaxLagSeconds?: number;
  /** How often the read model is judged against the event store (its epoch: src/projection/epoch.ts), in ms (default 1,000). */
  readinessCheckMs?: number;
  /**
   * Which of the interface's sites this is, as what it adds to the base site (src/instances/): the second adds the
   * contact-form namespace and the `ext-disabled` status. Default: the first, which adds nothing.
   */
  instance?: InstanceProfile;
  /**
   * What every read-side cache may keep (src/caches/budget.ts: CACHE_MEMORY_MB, CACHES_OFF). Default: the default
   * budget of the read-model engine (Redis with coordination, in memory without).
   */
  caches?: CacheBudget;
  /** Which API root the site advertises: `core` (`{siteUrl}/`, the default) or `wordpress` (`{siteUrl}/wp-json/`). */
  apiDialect?: ApiDialect;
  /** Origins whose pages may read answers (CORS); null or absent: any origin, as WordPress. */
  corsAllowedOrigins?: readonly string[] | null;
  /** Proxies whose `X-Forwarded-For` is believed (src/http/clientAddress.ts); default none. */
  trustedProxies?: readonly string[];
  /** Limits on request bodies (src/http/requestBodies.ts); each left out takes its default. */
  bodyLimits?: Partial<BodyLimits>;
  /** Where request bodies too large for memory (uploads) are streamed to, private to the owner (default: under the OS's temporary directory). */
  bodyDir?: string;
  /** Most pixels of an image decoded to make sub-sizes or edits (default 8192 × 8192); larger ones are stored as they came. */
  imageMaxPixels?: number;
  /** Most events the projector folds per batch (default 1,000; the in-memory read model replays faster in smaller ones). */
  projectorBatchSize?: number;
  /** Seconds between two comments of a writer without moderate_comments (default 15, as WordPress); 0: no flood check. */
  commentFloodSeconds?: number;
  /** How long an Idempotency-Key is kept after the request that claimed it (IDEMPOTENCY_KEY_TTL_SECONDS; default 24 h). */
  idempotencyTtlMs?: number;
  /** The block patterns and categories offered to the block editor (BLOCK_PATTERNS_DIR; default none). */
  blockPatterns?: BlockPatternLibrary;
  /** Milliseconds between heartbeat comments on an audit stream (AUDIT_STREAM_HEARTBEAT_SECONDS; default 15 s). */
  auditStreamHeartbeatMs?: number;
  /** Most audit streams one user may hold open in this process (AUDIT_STREAMS_PER_USER; default 4). */
  auditStreamsPerUser?: number;
  /** Most audit streams open in this process (AUDIT_STREAMS_MAX; default 100). */
  auditStreamsTotal?: number;
  /** Webhook deliveries (docs/webhooks.md); each left out takes its default. */
  webhooks?: Partial<WebhookSettings>;
}

/**
 * How processes sharing a read model coordinate (Redis): one projector at a time through the lease, and the
 * applied position every process can wait on. Absent: this process alone projects (the embedded default).
 */
export interface Coordination {
  lease: Lease;
  progress: AppliedProgress;
  /**
   * Calls `onChange` whenever another process may have changed the shared read model, as soon as this process hears
   * of it (src/adapters/redis/changeNotices.ts); returns how to stop. The site also polls `progress` for a lost notice.
   */
  watchChanges?(onChange: () => void): () => void;
  close(): Promise<void>;
}

/**
 * What other slices do when a content item changes, after its own event (at `after`): its comments are hidden,
 * restored or deleted with it, and a top-level page just published joins the auto-add menus. The composition root
 * hands in src/resources/contentReactions.ts, so the content slice does not depend on the comments and menus slices
 * (which depend on it). Each gives the last log position it wrote (0 when none).
 */
export interface ContentReactions {
  pagePublished(site: Site, pageId: number, actor: Actor, requestId: string): Promise<number>;
  trashed(site: Site, postId: number, after: number, actor: Actor, requestId: string): Promise<number>;
  restored(site: Site, postId: number, after: number, actor: Actor, requestId: string): Promise<number>;
  deleted(site: Site, postId: number, after: number, actor: Actor, requestId: string): Promise<number>;
}

const DEFAULT_READINESS_CHECK_MS = 1_000;

/** How often a process sharing its read model reads the applied position, in case a change notice was lost. */
const APPLIED_POLL_MS = 250;

export interface Site {
  settings: SiteSettings;
  /** `{siteUrl}/`: every route path is appended to it. */
  apiRoot: string;
  /** What this instance adds to the base site: `settings.instance`, or the first instance's nothing. */
  instance: InstanceProfile;
  clock: Clock;
  store: EventStore;
  readModel: ReadModel;
  /** Uploaded files (media), by key `YYYY/MM/name`. */
  blobs: BlobStore;
  /** Outgoing HTTP (oEmbed's proxy asking other sites), to public addresses and the allowed hosts only. */
  http: HttpFetcher;
  /** Outgoing mail (contact-form feedback); the production adapter only logs. */
  mailer: Mailer;
  /** The users slice's accounts, as authentication needs them (src/access/accounts.ts). */
  accounts: Accounts;
  /** What other slices do when a content item changes (ContentReactions). */
  contentReactions: ContentReactions;
  commands: CommandHandler;
  ids: { content: IdSequence; users: IdSequence };
  claims: NameClaims;
  /** The projections and their runner; it applies events only in a process that runs the projector. */
  projector: Projector;
  metrics: SiteMetrics;
  /** The read-side caches' budget, and their sizes on /metrics (src/caches/). */
  caches: CacheMeter;
  /**
   * Moves on whenever anything a read may see may have changed: this process's commits, changes other processes
   * publish, and writes this process settles (src/projection/readModelVersion.ts). The response cache keys on it.
   */
  readModelVersion: ReadModelVersion;
  /**
   * Runs the projector in this process: at once on the embedded default; with coordination, whenever this process
   * holds the lease (standby otherwise). Resolves once caught up, or once on standby. With `deliverWebhooks` (the
   * server and the projector command; not the CLI's other commands, which run beside a server) webhook deliveries
   * run beside it, in the same terms.
   */
  startProjector(options?: { deliverWebhooks?: boolean }): Promise<void>;
  /** The lowest log position every projection has applied, as every process sees it. */
  appliedPosition(): Promise<number>;
  /**
   * The same, as the read model holds it now (the shared value read afresh, never a high-water mark this process
   * remembers): what readiness and the lag measure.
   */
  appliedNow(): Promise<number>;
  /** Whether the read model may be served: its epoch judged against the store (src/health/readModelWatch.ts). */
  readModelWatch: ReadModelWatch;
  /**
   * Waits until the read model has applied everything the event store holds now (read-your-writes up to its head,
   * also for what other processes appended, such as the CLI): false when it did not within `timeoutMs`.
   */
  catchUp(timeoutMs: number): Promise<boolean>;
  /**
   * Whether the projection has applied less of the log than the applied position, which leaves out only projections
   * being rebuilt: its documents are then from before the rebuild (src/projection/written.ts, readCurrent). Known per
   * read-model version, so it costs a look at the applied position and the checkpoint once per change.
   */
  projectionBehind(name: string): Promise<boolean>;
  /** Metadata for an event appended on behalf of `userId` while serving `requestId`. */
  metadata(userId: number | null, requestId: string): EventMetadata;
  /**
   * Waits until the read model reflects `position`, so a write's answer can be read back at once: for at most
   * `readYourWritesTimeoutMs` counted from the start of the request that appended it (see `requests`), or from now
   * for a position no request in progress appended. Fails with DependencyUnavailableError when the shared read
   * model cannot be reached (the write has happened; it is not visible yet).
   */
  settle(position: number): Promise<void>;
  /** The requests in progress that may write, as the HTTP edge announces them (see RequestsInFlight). */
  requests: RequestsInFlight;
  close(): Promise<void>;
}

export interface SiteAdapters {
  store: EventStore;
  readModel: ReadModel;
  clock: Clock;
  /** Where uploads live, closed with the site. */
  blobs: BlobStore;
  /** Outgoing HTTP (in production the outbound client, src/adapters/http/outboundClient.ts). */
  http: HttpFetcher;
  /** Outgoing mail (in production a logging adapter that sends nothing). */
  mailer: Mailer;
  /** The accounts sign-ins are judged by: the users slice's (src/resources/users/accounts.ts). */
  accounts: Accounts;
  /** What other slices do when a content item changes: src/resources/contentReactions.ts. */
  contentReactions: ContentReactions;
  /** Outgoing HTTP of webhook deliveries (in production createWebhookHttp, src/webhooks/settings.ts). */
  webhookHttp: HttpFetcher;
  projections?: readonly Projection[];
  coordination?: Coordination;
}

export function createSite(settings: SiteSettings, adapters: SiteAdapters): Site {
  const { readModel, clock, coordination } = adapters;
  const metrics = createSiteMetrics();
  const readModelVersion = new ReadModelVersion();
  const caches = new CacheMeter(
    settings.caches ?? CacheBudget.defaults(coordination ? 'redis' : 'memory'),
    metrics.registry,
  );
  watchProcessCaches(caches);
  const requests = new RequestTracker(clock);
  // Appends of a request with an Idempotency-Key are counted for it (src/resources/idempotency/context.ts).
  const store = requests.follow(countingKeyedAppends(timedStore(adapters.store, metrics.appendDuration)));
  const metadata = (userId: number | null, requestId: string): EventMetadata => {
    const at = new Date(clock.now()).toISOString();
    // Events appended while serving a request with an Idempotency-Key carry the key.
    const keyed = keyedMetadata(userId, requestId);
    return keyed === null ? { userId, requestId, at } : { userId, requestId, at, ...keyed };
  };
  const system = () => metadata(null, `system-${randomUUID()}`);
  const { blobs } = adapters;
  const checkMs = settings.readinessCheckMs ?? DEFAULT_READINESS_CHECK_MS;
  // Judged on the adapter itself: a document cache in front of it would answer from before a wipe.
  const readModelWatch = new ReadModelWatch(() => judgeReadModel(store, readModel), checkMs);
  const projector = new Projector({
    store,
    // Every change the projector makes moves the version on.
    readModel: readModelVersion.track(readModel),
    projections: adapters.projections ?? builtInProjections,
    maxBatchSize: settings.projectorBatchSize,
    log: logLine,
    onRebuildProgress: metrics.rebuildProgress,
    epoch: {
      checkMs,
      readModel,
      now: () => clock.now(),
      onRecorded: async () => {
        await readModelWatch.refresh();
      },
    },
  });
  const commands = new CommandHandler(store, { cacheSize: caches.budget.entries('commandStates') });
  caches.watch('commandStates', () => commands.held());
  // Webhooks are delivered by the process that runs the projector (with Redis, the lease holder's), one at a time.
  const webhooks = { ...DEFAULT_WEBHOOK_SETTINGS, ...settings.webhooks };
  const deliverer = new WebhookDeliverer({
    store,
    clock,
    http: adapters.webhookHttp,
    commands,
    metadata: () => metadata(null, `webhooks-${randomUUID()}`),
    backoff: webhooks.backoff,
    deadLetterAfterMs: webhooks.deadLetterAfterMs,
    timeoutMs: webhooks.timeoutMs,
    pollMs: webhooks.pollMs,
    random: webhooks.random,
    log: logLine,
  });
  let delivering = false;
  const alongside = { start: () => (delivering ? deliverer.start() : undefined), stop: () => deliverer.stop() };
  const service = coordination
    ? new ProjectorService({
        projector,
        lease: coordination.lease,
        progress: coordination.progress,
        alongside,
        log: logLine,
      })
    : null;
  let projecting = false;
  const appliedPosition = async () => (coordination ? coordination.progress.applied() : projector.appliedPosition);
  const appliedNow = async () => (coordination ? coordination.progress.current() : projector.appliedPosition);
  const waitForApplied = (position: number, timeoutMs: number) =>
    // With coordination the projector may run in another process: wait on the shared applied position.
    coordination ? coordination.progress.waitFor(position, timeoutMs) : projector.waitFor(position, timeoutMs);
  metrics.registry.collect(() => {
    metrics.projectorActive.set(service ? (service.state === 'active' ? 1 : 0) : projecting ? 1 : 0);
  });
  collectProjectorLag(metrics.registry, { store, clock, applied: appliedNow });
  const stopWatching = watchOtherProcesses(coordination, readModelVersion);
  const projectionBehind = knownPerVersion(readModelVersion, async (name: string) => {
    // The applied position first: a projection that is not being rebuilt has committed at least that far by then.
    const applied = await appliedPosition();
    const checkpoint = await readModel.checkpoint(name);
    return (checkpoint?.position ?? 0) < applied;
  });
  // A read model in another process (Redis): documents read by id are kept while the version stands, so repeated
  // reads cost no round trip. In process, reading is already that cheap.
  let servedReadModel = readModel;
  if (coordination) {
    const documents = cacheDocuments(readModel, readModelVersion, caches.budget.entries('documents'));
    caches.watch('documents', documents.held);
    servedReadModel = documents.readModel;
  }
  return {
    settings,
    apiRoot: `${settings.siteUrl}/`,
    instance: settings.instance ?? FIRST_INSTANCE,
    clock,
    store,
    readModel: servedReadModel,
    blobs,
    http: adapters.http,
    mailer: adapters.mailer,
    accounts: adapters.accounts,
    contentReactions: adapters.contentReactions,
    commands,
    ids: {
      content: new IdSequence(store, 'content', settings.idBlockSize, system),
      // Users are created rarely and from two processes (server and CLI): no block, no gaps.
      users: new IdSequence(store, 'users', 1, system),
    },
    claims: new NameClaims(store),
    projector,
    metrics,
    caches,
    readModelVersion,
    async startProjector(options = {}) {
      projecting = true;
      delivering = options.deliverWebhooks === true;
      if (service) await service.start();
      else {
        await projector.start();
        alongside.start();
      }
    },
    appliedPosition,
    appliedNow,
    readModelWatch,
    async catchUp(timeoutMs) {
      const head = await store.headPosition();
      return head <= 0 || waitForApplied(head, timeoutMs);
    },
    projectionBehind,
    metadata,
    requests,
    async settle(position) {
      if (position <= 0) return;
      // What is left of the bound once the request got here (its appends took their time too); at least one look.
      const started = requests.settling(position);
      const budget = Math.max(
        0,
        settings.readYourWritesTimeoutMs - (started === undefined ? 0 : clock.now() - started),
      );
      const reached = await waitForApplied(position, budget);
      if (!reached)
        logger.warn(
          `read model did not reach position ${position} within READ_YOUR_WRITES_TIMEOUT_MS (${settings.readYourWritesTimeoutMs} ms) of the request's start`,
        );
      // Before the write answers: no cached answer from before it is served to anyone after it (read-your-writes).
      readModelVersion.changed();
    },
    async close() {
      stopWatching();
      readModelWatch.close();
      if (service) await service.stop();
      else {
        await deliverer.stop();
        await projector.stop();
      }
      await readModel.close();
      // After the read model: the coordination owns the connections the read model used.
      await coordination?.close();
      await store.close();
      await blobs.close?.();
    },
  };
}

/**
 * With a read model shared by several processes: the version moves on at every change notice from the others, and
 * whenever a poll finds the applied position moved (a notice lost, or a process without notices). Returns how to stop.
 */
function watchOtherProcesses(coordination: Coordination | undefined, version: ReadModelVersion): () => void {
  if (!coordination) return () => undefined;
  const stopNotices = coordination.watchChanges?.(() => version.changed());
  let lastApplied: number | null = null;
  let polling = false;
  const read = (): Promise<void> =>
    coordination.progress.applied().then((applied) => {
      if (applied !== lastApplied) version.changed();
      lastApplied = applied;
    });
  // Where the applied position stands is read at once, with the version reading as changing meanwhile, so nothing is
  // kept before it is known; otherwise the first poll found it "moved" and dropped what the caches kept until then.
  polling = true;
  version
    .during(read)
    .catch(() => undefined)
    .finally(() => (polling = false));
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    read()
      .catch(() => undefined)
      .finally(() => (polling = false));
  }, APPLIED_POLL_MS);
  poll.unref();
  return () => {
    clearInterval(poll);
    stopNotices?.();
  };
}

/** `compute` memoised per read-model version (PerVersion). */
function knownPerVersion<T>(
  version: ReadModelVersion,
  compute: (key: string) => Promise<T>,
): (key: string) => Promise<T> {
  const memo = new PerVersion<T>(version);
  return async (key) => {
    const kept = memo.kept();
    if (kept?.has(key)) return kept.get(key)!;
    const at = version.current();
    const value = await compute(key);
    if (memo.keepable(at)) memo.kept()!.set(key, value);
    return value;
  };
}

/**
 * The process-wide caches (rendered texts, time-zone offsets) take the bounds of the last site made: one per process
 * outside tests, whose sites share the default budget.
 */
function watchProcessCaches(caches: CacheMeter): void {
  boundTimezoneOffsets(caches.budget.entries('timezoneOffsets'));
  boundRenderedText(caches.budget.entries('renderedText'));
  caches.watch('timezoneOffsets', timezoneOffsetsHeld);
  caches.watch('renderedText', renderedTextHeld);
}
