/**
 * The read model's epoch: which log it was built from, and a position of that log it had applied, with the id of
 * the event there. The projector records it once it has caught up (and again as the applied position moves); every
 * process compares it with the event store to tell whether the read model can be served:
 *
 * - no epoch while the log holds events: the read model is empty, was wiped (a flushed or restarted Redis without
 *   persistence), or was never finished; the projector rebuilds it from the log and records one when caught up;
 * - an epoch naming another log (the log's identity is the id of its first event): it was built from another
 *   event store;
 * - an epoch whose event is not at its position in the log, or a position past the log's head: the event store is
 *   behind the read model (restored from an older backup, perhaps written to since).
 *
 * The epoch is a document of its own collection, committed like any other (with the projector's fencing token), so
 * whatever wipes the read model wipes it too, and a stale projector cannot record one.
 */
import type { EventStore } from '../ports/eventStore';
import { PositionNotInLogError } from '../ports/eventStore';
import type { Commit, ReadModel } from '../ports/readModel';

export const EPOCH_COLLECTION = '$epoch';
/** The checkpoint the epoch's commits move (no projection has this name: projection names are plain words). */
export const EPOCH_CHECKPOINT = '$epoch';
const EPOCH_ID = 'epoch';
const EPOCH_VERSION = 1;

export interface Epoch {
  /** The identity of the log the read model was built from: the id of its first event (null: it was empty). */
  log: string | null;
  /** A position the read model had applied when the epoch was recorded (0: none), and the id of the event there. */
  position: number;
  event: string | null;
  /** When it was recorded (ISO 8601). */
  at: string;
}

/** The read model's epoch; 'damaged' when the document is not one; null when there is none. */
export async function readEpoch(readModel: ReadModel): Promise<Epoch | 'damaged' | null> {
  const doc = await readModel.get(EPOCH_COLLECTION, EPOCH_ID);
  if (doc === null) return null;
  const { log, position, event, at } = doc as Record<string, unknown>;
  const sound =
    (log === null || typeof log === 'string') &&
    Number.isSafeInteger(position) &&
    (position as number) >= 0 &&
    (event === null || typeof event === 'string') &&
    ((position as number) === 0) === (event === null) &&
    typeof at === 'string';
  return sound
    ? { log: log as string | null, position: position as number, event: event as string | null, at: at as string }
    : 'damaged';
}

/** Whether a read epoch is the one given (null: none). */
export function sameEpoch(found: Epoch | 'damaged' | null, epoch: Epoch | null): boolean {
  if (found === null || epoch === null) return found === epoch;
  return (
    found !== 'damaged' &&
    found.log === epoch.log &&
    found.position === epoch.position &&
    found.event === epoch.event &&
    found.at === epoch.at
  );
}

/** The commit that records `epoch` (fenced like the projector's other commits). */
export function epochCommit(epoch: Epoch, fence?: number): Commit {
  return {
    writes: [{ collection: EPOCH_COLLECTION, id: EPOCH_ID, doc: { id: EPOCH_ID, ...epoch } }],
    checkpoint: { name: EPOCH_CHECKPOINT, position: epoch.position, version: EPOCH_VERSION },
    fence,
  };
}

/**
 * How long a store's identity is taken as known. Reading the first event of a store in a namespace of a shared
 * EventStoreDB pages past every other tenant's events before it, so it is not read at every judgement; a store
 * replaced meanwhile is found by its epoch's event check at once (as `ahead`), and named `foreign` after this long.
 */
const IDENTITY_KEPT_MS = 60_000;
const identities = new WeakMap<EventStore, { id: string; until: number }>();

/** The log's identity: the id of its first event, or null while it is empty. */
export async function logIdentity(store: EventStore): Promise<string | null> {
  const kept = identities.get(store);
  if (kept && kept.until > Date.now()) return kept.id;
  const [first] = await store.readAll({ maxCount: 1 });
  if (first) identities.set(store, { id: first.id, until: Date.now() + IDENTITY_KEPT_MS });
  else identities.delete(store);
  return first?.id ?? null;
}

/** The epoch of a read model that has applied the log up to `position`, as the store has it now. */
export async function epochAt(store: EventStore, position: number, now: number): Promise<Epoch> {
  const [log, at] = await Promise.all([
    logIdentity(store),
    position > 0 ? store.readAll({ fromPosition: position, maxCount: 1 }) : Promise.resolve([]),
  ]);
  const event = at[0];
  if (position > 0 && (!event || event.position !== position))
    throw new PositionNotInLogError(position, 'no event there to record an epoch at');
  return { log, position: event ? position : 0, event: event?.id ?? null, at: new Date(now).toISOString() };
}

/**
 * What the read model is, judged against the store:
 * - `trusted`: built from this log (or nothing to build: empty log, no epoch);
 * - `unbuilt`: no epoch (or a damaged one) while the log holds events: empty, wiped or unfinished; rebuilt by the
 *   projector;
 * - `foreign`: built from another log;
 * - `ahead`: the store is behind it (the epoch's position is past the head, or the event there is another one).
 * The last two are left for an operator to settle: the projector will not overwrite them.
 */
export type ReadModelVerdict =
  | { state: 'trusted'; epoch: Epoch | null; head: number }
  | { state: 'unbuilt' | 'foreign' | 'ahead'; reason: string; epoch: Epoch | null; head: number };

export type RefusedState = 'foreign' | 'ahead';

export const isRefused = (verdict: ReadModelVerdict): verdict is ReadModelVerdict & { state: RefusedState } =>
  verdict.state === 'foreign' || verdict.state === 'ahead';

export async function judgeReadModel(store: EventStore, readModel: ReadModel): Promise<ReadModelVerdict> {
  const [found, log, head] = await Promise.all([readEpoch(readModel), logIdentity(store), store.headPosition()]);
  const epoch = found === 'damaged' ? null : found;
  if (found === 'damaged')
    return {
      state: 'unbuilt',
      reason: "the read model's epoch is damaged: the read model is rebuilt from the log",
      epoch,
      head,
    };
  if (epoch === null) {
    if (log === null) return { state: 'trusted', epoch: null, head };
    return {
      state: 'unbuilt',
      reason:
        'the read model holds no epoch (it is empty, was wiped, or was never built to the end): it is rebuilt from the log',
      epoch,
      head,
    };
  }
  if (epoch.log !== null && log === null) {
    return {
      state: 'ahead',
      reason: `the event store is empty, but the read model was built from a log whose first event is ${epoch.log}`,
      epoch,
      head,
    };
  }
  if (epoch.log !== null && epoch.log !== log) {
    return {
      state: 'foreign',
      reason: `the read model was built from another log (first event ${epoch.log}; this event store's first event is ${log})`,
      epoch,
      head,
    };
  }
  if (epoch.position > 0) {
    if (epoch.position > head) {
      return {
        state: 'ahead',
        reason: `the read model has applied position ${epoch.position}, past the event store's head ${head}: the store is behind it (restored from an older backup?)`,
        epoch,
        head,
      };
    }
    let there: string | null = null;
    try {
      const [event] = await store.readAll({ fromPosition: epoch.position, maxCount: 1 });
      there = event?.position === epoch.position ? event.id : null;
    } catch (error) {
      if (!(error instanceof PositionNotInLogError)) throw error;
    }
    if (there !== epoch.event) {
      return {
        state: 'ahead',
        reason: `the event store does not hold the event ${String(epoch.event)} the read model applied at position ${epoch.position} (${there === null ? 'no event starts there' : `event ${there} is there`}): the store was restored from an older backup, and perhaps written to since`,
        epoch,
        head,
      };
    }
  }
  return { state: 'trusted', epoch, head };
}
