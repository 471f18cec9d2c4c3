/**
 * Replay: the state of the site at an earlier point, built by folding a prefix of the log through the
 * projections into a fresh read model. The live read model is never touched. A point in time is turned into
 * a position first (the last event that had happened by then), so the state is always one the site was in.
 */
import type { EventStore, RecordedEvent, SubscribeToAllOptions, Subscription } from '../ports/eventStore';
import type { Doc, ReadModel } from '../ports/readModel';
import type { Projection } from './projection';
import { Projector } from './runner';
import type { RebuildProgress } from './projectorOptions';

export type ReplayPoint = { position: number } | { time: number };

export interface Cutoff {
  /** The last position included (0: nothing). */
  position: number;
  /** `metadata.at` of that event, or null when nothing is included. */
  time: string | null;
}

const SCAN_CHUNK = 1000;

/** Whether an event had happened by `ms`, to the second (as item dates and `as_of` count it). */
const happenedBy = (event: RecordedEvent, ms: number) => Math.floor(Date.parse(event.metadata.at) / 1000) * 1000 <= ms;

/** The last event a replay to `point` includes. */
export async function cutoffOf(store: EventStore, point: ReplayPoint): Promise<Cutoff> {
  let cutoff: Cutoff = { position: 0, time: null };
  let after = 0;
  for (;;) {
    const chunk = await store.readAll({ after, maxCount: SCAN_CHUNK });
    for (const event of chunk) {
      const included = 'position' in point ? event.position <= point.position : happenedBy(event, point.time);
      if (included) cutoff = { position: event.position, time: event.metadata.at };
      // Positions only grow; times may not (clocks of several writers), so a time scan reads the whole log.
      else if ('position' in point) return cutoff;
    }
    if (chunk.length < SCAN_CHUNK) return cutoff;
    after = chunk[chunk.length - 1]!.position;
  }
}

/** A read-only view of the log up to and including `last`: what the store held at that point. */
export function logPrefix(store: EventStore, last: number): EventStore {
  const readOnly = () => Promise.reject(new Error('a replay is read-only'));
  return {
    appendToStream: readOnly,
    async readStream(streamId, options) {
      return (await store.readStream(streamId, options)).filter((e) => e.position <= last);
    },
    async readAll(options) {
      if (options?.direction === 'backwards') {
        // Backwards from the prefix's end at most: a position past it may name no event of the log.
        const from = options.fromPosition === undefined || options.fromPosition > last ? last : options.fromPosition;
        return store.readAll({ ...options, fromPosition: from });
      }
      return (await store.readAll(options)).filter((e) => e.position <= last);
    },
    subscribeToAll(options: SubscribeToAllOptions): Subscription {
      let closed = false;
      const batch = options.maxBatchSize ?? SCAN_CHUNK;
      const run = async () => {
        let after = options.after ?? 0;
        while (!closed) {
          const read = await store.readAll({ after, maxCount: batch });
          const events = read.filter((e) => e.position <= last);
          if (events.length > 0) await options.onEvents(events);
          if (events.length < batch) break;
          after = events[events.length - 1]!.position;
        }
        if (!closed) options.onCaughtUp?.();
      };
      run().catch((error) => options.onError?.(error));
      return {
        async close() {
          closed = true;
        },
      };
    },
    async headPosition() {
      return Math.min(last, await store.headPosition());
    },
    // The view does not own the store.
    async close() {},
  };
}

export interface ReplayResult {
  cutoff: Cutoff;
  /** Every document of every projection, per collection, by id. */
  collections: Record<string, Doc[]>;
  readModel: ReadModel;
}

/** Folds the log up to `point` through `projections`, in one pass over it, reporting the progress of each. */
export async function replayLog(options: {
  store: EventStore;
  projections: readonly Projection[];
  point: ReplayPoint;
  /** An empty read model to fold into, chosen by the caller (the live one stays untouched). */
  readModel: ReadModel;
  onProgress?: (progress: RebuildProgress) => void;
}): Promise<ReplayResult> {
  const cutoff = await cutoffOf(options.store, options.point);
  const { readModel } = options;
  const projector = new Projector({
    store: logPrefix(options.store, cutoff.position),
    readModel,
    projections: options.projections,
  });
  try {
    await projector.rebuildAll(
      options.projections.map((projection) => projection.name),
      options.onProgress,
    );
  } finally {
    await projector.stop();
  }
  return { cutoff, collections: await dumpCollections(readModel, options.projections), readModel };
}

/** Every document of the projections' collections, ordered by id. */
export async function dumpCollections(
  readModel: ReadModel,
  projections: readonly Projection[],
): Promise<Record<string, Doc[]>> {
  const collections: Record<string, Doc[]> = {};
  for (const projection of projections) {
    for (const collection of projection.collections) {
      const { items } = await readModel.query(collection, {
        filters: [],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: null,
      });
      collections[collection] = items;
    }
  }
  return collections;
}
