/**
 * The site's metrics: request durations by route, append latency, projector lag (events and seconds) and rebuild
 * progress. Created by createSite and hung off the site; /metrics renders them (src/health/endpoints.ts).
 */
import { PositionNotInLogError } from '../ports/eventStore';
import type { EventStore, RecordedEvent } from '../ports/eventStore';
import type { Clock } from '../ports/clock';
import type { RebuildProgress } from '../projection/projectorOptions';
import type { Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from './registry';

/** Distinct route labels kept; paths beyond them (scanners, typos) share one label. */
const MAX_ROUTE_LABELS = 500;
const NUMERIC_SEGMENT = /\/\d+(?=\/|$)/g;
const NUMERIC_SEGMENT_START = /\/\d/;

export interface SiteMetrics {
  registry: MetricsRegistry;
  /** Records one HTTP request. `path` is the request path; numeric segments become `{id}`. */
  observeRequest(method: string, path: string, status: number, seconds: number): void;
  appendDuration: Histogram;
  rebuildProgress(progress: RebuildProgress): void;
  projectorActive: Gauge;
}

export function createSiteMetrics(): SiteMetrics {
  const registry = new MetricsRegistry();
  const requests = registry.histogram(
    'palimpsest_http_request_duration_seconds',
    'HTTP request durations by method, route and status.',
    ['method', 'route', 'status'],
  );
  const appendDuration = registry.histogram(
    'palimpsest_event_store_append_duration_seconds',
    'Time an append to the event store takes.',
  );
  const rebuildApplied = registry.gauge(
    'palimpsest_projection_rebuild_applied_events',
    'Events a running or last projection rebuild has applied.',
    ['projection'],
  );
  const rebuildHead = registry.gauge(
    'palimpsest_projection_rebuild_head_position',
    'Log head the rebuild is replaying up to.',
    ['projection'],
  );
  const projectorActive = registry.gauge(
    'palimpsest_projector_active',
    '1 while this process holds the projector lease (or runs the embedded projector).',
  );

  // The labels given out so far (bounded); a path is not kept: every item has its own.
  const labels = new Set<string>();
  // The labelled series given out, kept so a request observes without prom-client's label lookup.
  const series = new Map<string, Histogram.Internal<'method' | 'route' | 'status'>>();
  const routeOf = (path: string): string => {
    const label = NUMERIC_SEGMENT_START.test(path) ? path.replace(NUMERIC_SEGMENT, '/{id}') : path;
    if (labels.has(label)) return label;
    if (labels.size >= MAX_ROUTE_LABELS) return 'other';
    labels.add(label);
    return label;
  };

  return {
    registry,
    observeRequest(method, path, status, seconds) {
      const route = routeOf(path);
      const key = `${method} ${status} ${route}`;
      let s = series.get(key);
      if (!s) {
        s = requests.labels({
          method,
          route: series.size < MAX_ROUTE_LABELS * 4 ? route : 'other',
          status: String(status),
        });
        series.set(key, s);
      }
      s.observe(seconds);
    },
    appendDuration,
    rebuildProgress(progress) {
      rebuildApplied.set({ projection: progress.projection }, progress.applied);
      rebuildHead.set({ projection: progress.projection }, progress.head);
    },
    projectorActive,
  };
}

/**
 * Unapplied events counted at most: EventStoreDB has no count of what follows a position (its positions are byte
 * offsets), so counting reads the events; past this many the gauge and /readyz say "at least" this many.
 */
export const LAG_COUNT_LIMIT = 1_000;

/** The lag gauges, read at each scrape: how far the applied position trails the log head, in events and seconds. */
export function collectProjectorLag(
  registry: MetricsRegistry,
  source: { store: EventStore; clock: Clock; applied(): Promise<number> },
): void {
  const events = registry.gauge(
    'palimpsest_projector_lag_events',
    `Events in the log that the read model has not applied yet (counted up to ${LAG_COUNT_LIMIT}).`,
  );
  const seconds = registry.gauge(
    'palimpsest_projector_lag_seconds',
    'Age of the oldest event the read model has not applied yet (0 when caught up).',
  );
  registry.collect(async () => {
    const lag = await projectorLag(source);
    events.set(lag.events);
    seconds.set(lag.seconds);
  });
}

export interface ProjectorLag {
  /** The log's last position. */
  head: number;
  /** The position the read model has applied. */
  applied: number;
  /** Events after it, counted up to LAG_COUNT_LIMIT. */
  events: number;
  /** Age of the first of them (0 when caught up), by the clock against the time the event was decided at. */
  seconds: number;
  /**
   * The applied position is not one of this log's: past its head, or (EventStoreDB) where no event starts. The read
   * model is ahead of the store (restored from an older backup?) or from another log; the lag is then 0.
   */
  ahead: boolean;
}

/**
 * How far the applied position trails the log, measured in the store's own positions: what follows the applied
 * position is read through the port (never `applied + 1`, which names no event on EventStoreDB).
 */
export async function projectorLag(source: {
  store: EventStore;
  clock: Clock;
  applied(): Promise<number>;
}): Promise<ProjectorLag> {
  const [head, applied] = await Promise.all([source.store.headPosition(), source.applied()]);
  if (applied >= head) return { head, applied, events: 0, seconds: 0, ahead: applied > head };
  let unapplied: RecordedEvent[];
  try {
    unapplied = await source.store.readAll({ after: applied, maxCount: LAG_COUNT_LIMIT });
  } catch (error) {
    if (error instanceof PositionNotInLogError) return { head, applied, events: 0, seconds: 0, ahead: true };
    throw error;
  }
  const oldest = unapplied[0];
  const decided = oldest ? Date.parse(oldest.metadata.at) : NaN;
  const seconds = Number.isFinite(decided) ? Math.max(0, (source.clock.now() - decided) / 1000) : 0;
  return { head, applied, events: unapplied.length, seconds, ahead: false };
}

/** The store with its appends timed. */
export function timedStore(store: EventStore, histogram: Histogram): EventStore {
  const series = histogram;
  return {
    appendToStream: async (streamId, events, options) => {
      const started = process.hrtime.bigint();
      try {
        return await store.appendToStream(streamId, events, options);
      } finally {
        series.observe(Number(process.hrtime.bigint() - started) / 1e9);
      }
    },
    readStream: (streamId, options) => store.readStream(streamId, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
}
