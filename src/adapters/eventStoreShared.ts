/**
 * What the in-process event-store adapters share: the expected-revision rule, EventStoreDB-style idempotent
 * retries, and the catch-up subscription loop.
 */
import type {
  AppendResult,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
  SubscribeToAllOptions,
  Subscription,
} from '../ports/eventStore';

/** `currentRevision` is the stream's last revision, or -1 when the stream does not exist. */
export function satisfiesExpectedRevision(expected: ExpectedRevision, currentRevision: number): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return currentRevision === -1;
    case 'stream_exists':
      return currentRevision >= 0;
    default:
      return expected === currentRevision;
  }
}

/**
 * The inclusive start of a read of `$all` on a store whose positions are consecutive integers (1, 2, ...): its
 * `fromPosition`, or the position after its exclusive `after`; undefined for the log's own end (start forwards, end
 * backwards). Rejects options that contradict each other.
 */
export function startOfRead(
  direction: 'forwards' | 'backwards',
  fromPosition: number | undefined,
  after: number | undefined,
): number | undefined {
  if (after === undefined) return fromPosition;
  if (direction !== 'forwards') throw new RangeError('readAll: `after` reads forwards only');
  if (fromPosition !== undefined) throw new RangeError('readAll: give `fromPosition` or `after`, not both');
  if (!Number.isSafeInteger(after) || after < 0)
    throw new RangeError(`readAll: \`after\` is a non-negative integer; got ${after}`);
  return after + 1;
}

export function assertAppendable(events: NewEvent[]): void {
  // An empty append has no last event to report a revision or position for.
  if (events.length === 0) throw new RangeError('appendToStream needs at least one event');
}

/**
 * Idempotency as in EventStoreDB: when every event carries an id and the stream already holds events with exactly
 * those ids right after the expected revision, this is a retry of an append that succeeded, and it gets that
 * append's result instead of a conflict. Only `no_stream` and numeric expectations say where the retried events
 * would have landed, so `any` and `stream_exists` appends are never recognised as retries (they append again).
 */
export function resultOfRetriedAppend(
  expected: ExpectedRevision,
  events: NewEvent[],
  eventsAfterRevision: (revision: number, count: number) => Array<{ id: string; revision: number; position: number }>,
): AppendResult | undefined {
  if (expected !== 'no_stream' && typeof expected !== 'number') return undefined;
  if (events.some((event) => event.id === undefined)) return undefined;
  const existing = eventsAfterRevision(expected === 'no_stream' ? -1 : expected, events.length);
  if (existing.length !== events.length || existing.some((recorded, i) => recorded.id !== events[i]!.id))
    return undefined;
  const last = existing[existing.length - 1]!;
  return { nextExpectedRevision: last.revision, position: last.position };
}

export interface LogReader {
  /**
   * Up to `maxCount` events after the exclusive `position`, in log order; with `types`, it may leave out events of
   * other types among them except the last (SubscribeToAllOptions.types).
   */
  readAfter(position: number, maxCount: number, types?: readonly string[]): RecordedEvent[];
  headPosition(): number;
}

export interface CatchUpSubscription extends Subscription {
  /** New events may exist: read now instead of waiting for the next poll. */
  notify(): void;
}

/**
 * Delivers the log after `options.after` in batches, one batch at a time, then keeps delivering as it grows.
 * It reads again at once when notified and, with `pollIntervalMs`, at least that often (for writers it cannot
 * hear, such as other processes). Each read starts after the last delivered position, so nothing is skipped or
 * repeated as long as positions are committed in increasing order. A failure stops it and goes to `onError`;
 * without an `onError` it is rethrown as an uncaught exception, because a projection that silently stops is worse.
 * Do not await `close()` inside `onEvents`: close waits for that very batch.
 */
export function startCatchUpSubscription(
  log: LogReader,
  options: SubscribeToAllOptions,
  { pollIntervalMs, onClosed }: { pollIntervalMs?: number; onClosed(): void },
): CatchUpSubscription {
  const maxBatchSize = options.maxBatchSize ?? 500;
  if (!(maxBatchSize >= 1)) throw new RangeError('maxBatchSize must be at least 1');
  let checkpoint = options.after ?? 0;
  let closed = false;
  let notified = false;
  let wakeUp: (() => void) | undefined;

  const nextWakeUp = () =>
    new Promise<void>((resolve) => {
      const timer = pollIntervalMs === undefined ? undefined : setTimeout(wake, pollIntervalMs);
      function wake() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = wake;
    });

  // "Caught up" means everything that existed at subscription time was delivered.
  const headAtStart = log.headPosition();

  async function deliver() {
    // Never call back before subscribeToAll has returned the subscription.
    await Promise.resolve();
    let caughtUp = false;
    while (!closed) {
      notified = false;
      const batch = log.readAfter(checkpoint, maxBatchSize, options.types);
      if (batch.length > 0) {
        await options.onEvents(batch);
        checkpoint = batch[batch.length - 1]!.position;
      }
      if (!caughtUp && checkpoint >= headAtStart && !closed) {
        caughtUp = true;
        options.onCaughtUp?.();
      }
      // A batch may be short because events were left out (types), so the head says whether more is there.
      if (!notified && !closed && (batch.length === 0 || checkpoint >= log.headPosition())) await nextWakeUp();
    }
  }

  const finished = deliver()
    .catch((error: unknown) => {
      closed = true;
      if (options.onError) options.onError(error);
      else
        queueMicrotask(() => {
          throw error;
        });
    })
    .finally(onClosed);

  return {
    notify() {
      notified = true;
      wakeUp?.();
    },
    async close() {
      closed = true;
      wakeUp?.();
      await finished;
    },
  };
}
