/**
 * The event-store port on EventStoreDB, through its gRPC client (`@eventstore/db-client`).
 *
 * The port was modelled on EventStoreDB, so most of this is a mapping at the edge:
 * - revisions are bigints in the client and numbers here; expected revisions map to `NO_STREAM`, `STREAM_EXISTS`,
 *   `ANY` or a bigint, and the client's WrongExpectedVersionError becomes our WrongExpectedRevisionError;
 * - positions: see ./positions.ts (the commit position, as a number);
 * - event ids: see ./ids.ts (deterministic per command where the append names its slot);
 * - the port's `$all` is the log without the node's own events (types starting with `$`), and, with a namespace,
 *   without streams outside it. Reads filter on this side because the client reads `$all` unfiltered; the
 *   subscription asks the node to filter;
 * - the subscription is the client's catch-up subscription to `$all`, resubscribed after a drop from the last
 *   position it handled, with a growing pause between attempts;
 * - every other call is bounded by `timeoutMs` on this side (the client's own deadlines are enforced by the node,
 *   which a node that hangs never does): past it, or when the node cannot be reached, the call fails with
 *   DependencyUnavailableError, an append's saying its outcome is unknown.
 *
 * docs/eventstoredb.md says what only a real server can prove.
 */
import {
  ANY,
  BACKWARDS,
  CancelledError,
  DeadlineExceededError,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type JSONType,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { status } from '@grpc/grpc-js';
import {
  PositionNotInLogError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from '../../ports/eventStore';
import { DependencyUnavailableError, withDeadline } from '../../ports/unavailable';
import { assertAppendable } from '../eventStoreShared';
import { eventIdsFor, isRetrySafe } from './ids';
import { PositionMappingError, toEsdbPosition, toPortPosition } from './positions';

export interface EventStoreDbOptions {
  /** For example `esdb://127.0.0.1:2113?tls=false` (EVENTSTORE_URL). */
  connectionString: string;
  /**
   * A prefix for every stream this store writes and the only streams it reads, so that several stores (sites, test
   * runs) can share one database. Empty by default: the whole database.
   */
  namespace?: string;
  /** Pauses between resubscription attempts: the first, doubling up to the longest. */
  resubscribeDelayMs?: { first: number; longest: number };
  /** How often an append that failed in transit (unavailable node, deadline) is sent again, when that is safe. */
  appendRetries?: number;
  /** Told about each dropped subscription before it is resubscribed (logs, metrics). */
  onSubscriptionDropped?(error: unknown, attempt: number): void;
  /**
   * Longest a call may take, an append with its retries included (EVENT_STORE_TIMEOUT_MS); default 5 s. Catch-up
   * subscriptions are not bounded: they are resubscribed after a drop.
   */
  timeoutMs?: number;
}

/** Events per `$all` page when reads have to skip what this store does not show. */
const PAGE_SIZE = 256;

/** A subscriber's handler failed: the subscription stops, it is not resubscribed. */
class HandlerFailure {
  constructor(readonly cause: unknown) {}
}

type ClientRecordedEvent = NonNullable<AllStreamResolvedEvent['event']> | NonNullable<ResolvedEvent['event']>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A read the call's deadline cancels. */
interface Cancellable {
  cancel(): Promise<void>;
}

/** The reads a call opened, cancelled when the call's deadline passes. */
type Opened = Set<Cancellable>;

async function collect<T>(read: AsyncIterable<T> & Cancellable, opened: Opened): Promise<T[]> {
  opened.add(read);
  const items: T[] = [];
  for await (const item of read) items.push(item);
  opened.delete(read);
  return items;
}

function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0)
        throw new RangeError(`An expected revision is a non-negative integer; got ${expected}`);
      return BigInt(expected);
  }
}

/** gRPC's status codes for a call that never reached the node or got no answer from it (the client does not always wrap them). */
const GRPC_TRANSIENT_CODES = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);

/** What the node answers a read of `$all` from a position inside a record: OUT_OF_RANGE, "Invalid position". */
const isInvalidPosition = (error: unknown) => (error as { code?: unknown } | null)?.code === status.OUT_OF_RANGE;

const isTransient = (error: unknown) =>
  error instanceof UnavailableError ||
  error instanceof DeadlineExceededError ||
  error instanceof CancelledError ||
  (error instanceof Error && GRPC_TRANSIENT_CODES.has((error as Error & { code?: unknown }).code as status));

const DEFAULT_TIMEOUT_MS = 5_000;

export function createEventStoreDbEventStore(options: EventStoreDbOptions): EventStore {
  const client = EventStoreDBClient.connectionString(options.connectionString);
  const namespace = options.namespace ?? '';
  const { first: firstDelayMs, longest: longestDelayMs } = options.resubscribeDelayMs ?? { first: 100, longest: 5_000 };
  const appendRetries = options.appendRetries ?? 3;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error('The event store is closed');
  };
  /**
   * Runs one call of the port within `timeoutMs`: past it the reads it opened are cancelled and it fails with
   * DependencyUnavailableError, as it does when the node cannot be reached. `append`: an append, whose outcome is then
   * unknown (it may have been written).
   */
  async function bounded<T>(what: string, work: (opened: Opened) => Promise<T>, append = false): Promise<T> {
    const opened: Opened = new Set();
    const timedOut = () => {
      for (const read of opened) read.cancel().catch(() => undefined);
      return new DependencyUnavailableError(
        'event store',
        `EventStoreDB did not answer ${what} within ${timeoutMs} ms`,
        { outcomeUnknown: append },
      );
    };
    try {
      return await withDeadline(work(opened), timeoutMs, timedOut);
    } catch (error) {
      if (!isTransient(error)) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new DependencyUnavailableError('event store', `EventStoreDB unavailable (${what}): ${detail}`, {
        cause: error,
        outcomeUnknown: append,
      });
    }
  }

  const streamNameOf = (streamId: string) => namespace + streamId;
  /** What this store shows: no node events, nothing outside the namespace. */
  const isShown = (event: ClientRecordedEvent) => !event.type.startsWith('$') && event.streamId.startsWith(namespace);

  function toRecorded(event: ClientRecordedEvent): RecordedEvent {
    return {
      id: event.id,
      streamId: event.streamId.slice(namespace.length),
      revision: Number(event.revision),
      position: toPortPosition(event.position),
      type: event.type,
      data: event.data,
      metadata: event.metadata as EventMetadata,
    };
  }

  async function appendOnce(streamName: string, events: NewEvent[], ids: string[], expectedRevision: ExpectedRevision) {
    const proposed = events.map((event, i) =>
      jsonEvent({ id: ids[i]!, type: event.type, data: event.data as JSONType, metadata: event.metadata }),
    );
    return client.appendToStream(streamName, proposed, {
      expectedRevision: toClientExpectedRevision(expectedRevision),
    });
  }

  /** The position of the event at `revision`, for the node's answer to a retry, which may carry none. */
  async function positionAt(streamName: string, revision: number, opened: Opened): Promise<number> {
    const [resolved] = await collect(
      client.readStream(streamName, { direction: FORWARDS, fromRevision: BigInt(revision), maxCount: 1 }),
      opened,
    );
    if (!resolved?.event) throw new Error(`"${streamName}" has no event at revision ${revision}`);
    return toPortPosition(resolved.event.position);
  }

  /** A page of `$all`; a start inside a record (the node's OUT_OF_RANGE "Invalid position") is PositionNotInLogError. */
  async function readAllPage(
    direction: 'forwards' | 'backwards',
    fromPosition: ReadPosition,
    maxCount: number,
    opened: Opened,
  ): Promise<AllStreamResolvedEvent[]> {
    try {
      return await collect(
        client.readAll({ direction: direction === 'forwards' ? FORWARDS : BACKWARDS, fromPosition, maxCount }),
        opened,
      );
    } catch (error) {
      if (isInvalidPosition(error) && typeof fromPosition === 'object')
        throw new PositionNotInLogError(toPortPosition(fromPosition), 'the node answered "Invalid position"');
      throw error;
    }
  }

  /**
   * Up to `maxCount` shown events of `$all`, with continuation across pages of hidden ones. `skipThrough` leaves out
   * the events at or before it (a forward read from an exclusive position starts with the event there).
   */
  async function readShown(
    direction: 'forwards' | 'backwards',
    from: ReadPosition,
    maxCount: number,
    into: RecordedEvent[],
    opened: Opened,
    skipThrough?: number,
  ) {
    let next = from;
    // The first page asks for just what is wanted; only pages after hidden events need to be full.
    let pageSize = Math.min(PAGE_SIZE, maxCount - into.length + (skipThrough === undefined ? 0 : 1));
    while (into.length < maxCount) {
      const page = await readAllPage(direction, next, pageSize, opened);
      for (const { event } of page) {
        if (!event) continue;
        if (skipThrough !== undefined && toPortPosition(event.position) <= skipThrough) continue;
        if (isShown(event)) into.push(toRecorded(event));
        if (into.length >= maxCount) return;
      }
      const last = page[page.length - 1]?.event?.position;
      if (page.length < pageSize || last === undefined) return;
      // Backwards, a read from an event's position starts just before that event, so nothing repeats.
      next = last;
      if (direction === 'forwards') skipThrough = toPortPosition(last);
      pageSize = PAGE_SIZE;
    }
  }

  function subscribe(subscriber: SubscribeToAllOptions): Subscription {
    const maxBatchSize = subscriber.maxBatchSize ?? 500;
    if (!(maxBatchSize >= 1)) throw new RangeError('maxBatchSize must be at least 1');
    if (subscriber.after !== undefined) toEsdbPosition(subscriber.after);
    /** Exclusive: the position of the last event handled (delivered, or not shown), where a resubscription starts. */
    let resumeAfter = subscriber.after ?? 0;
    let stopped = false;
    let caughtUpReported = false;
    let wake: (() => void) | undefined;
    const serverFilter = namespace ? streamNameFilter({ prefixes: [namespace] }) : excludeSystemEvents();

    /** Waits until woken (new data, a drop, close) or `ms` passes. */
    const pause = (ms?: number) =>
      new Promise<void>((resolve) => {
        const timer = ms === undefined ? undefined : setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });

    /** One catch-up subscription, followed until it drops (throws or ends) or the subscriber closes it. */
    async function follow(): Promise<void> {
      const live = client.subscribeToAll(
        { fromPosition: resumeAfter > 0 ? toEsdbPosition(resumeAfter) : START, filter: serverFilter },
        { highWaterMark: maxBatchSize },
      );
      let taken = 0;
      /** How many items had arrived when the node said "caught up": delivering that many means caught up. */
      let caughtUpAfter: number | undefined;
      let failure: unknown;
      let ended = false;
      const signal = () => wake?.();
      live.on('caughtUp', () => {
        caughtUpAfter ??= taken + live.readableLength;
        signal();
      });
      live.on('readable', signal);
      live.on('error', (error) => {
        failure ??= error;
        signal();
      });
      live.on('end', () => {
        ended = true;
        signal();
      });
      try {
        while (!stopped) {
          if (failure !== undefined) throw failure;
          const batch: RecordedEvent[] = [];
          let lastPosition: number | undefined;
          let item: AllStreamResolvedEvent | null = null;
          while (batch.length < maxBatchSize && (item = live.read() as AllStreamResolvedEvent | null) !== null) {
            taken += 1;
            const event = item.event;
            if (!event) continue;
            const position = toPortPosition(event.position);
            if (position <= resumeAfter) continue;
            lastPosition = position;
            if (isShown(event)) batch.push(toRecorded(event));
          }
          if (batch.length > 0) {
            try {
              await subscriber.onEvents(batch);
            } catch (error) {
              throw new HandlerFailure(error);
            }
          }
          if (lastPosition !== undefined) resumeAfter = lastPosition;
          if (!caughtUpReported && caughtUpAfter !== undefined && taken >= caughtUpAfter && !stopped) {
            caughtUpReported = true;
            subscriber.onCaughtUp?.();
          }
          // Wait only when this pass read the buffer empty without awaiting anything since: a 'readable' signal that
          // came while the handler ran is gone, so after a delivery the buffer is read again first.
          if (item === null && batch.length === 0 && !stopped) {
            if (ended) return;
            await pause();
          }
        }
      } finally {
        live.removeAllListeners('readable').removeAllListeners('caughtUp');
        await live.unsubscribe();
      }
    }

    async function run() {
      // Never call back before subscribeToAll has returned the subscription.
      await Promise.resolve();
      let attempt = 0;
      while (!stopped) {
        const startedAt = Date.now();
        const before = resumeAfter;
        let drop: unknown = new Error('the subscription to $all ended');
        try {
          await follow();
        } catch (error) {
          if (error instanceof HandlerFailure) throw error.cause;
          if (error instanceof PositionMappingError) throw error;
          // The checkpoint is not one of this log's positions: resubscribing would be refused for ever.
          if (isInvalidPosition(error))
            throw new PositionNotInLogError(resumeAfter, 'the node refused to subscribe from it');
          drop = error;
        }
        if (stopped) return;
        // Progress, or a long healthy run, means the node is fine again: start the pauses over.
        const recovered = resumeAfter > before || Date.now() - startedAt > longestDelayMs;
        attempt = recovered ? 1 : attempt + 1;
        options.onSubscriptionDropped?.(drop, attempt);
        if (stopped) return;
        await pause(Math.min(firstDelayMs * 2 ** (attempt - 1), longestDelayMs));
      }
    }

    const finished = run()
      .catch((error: unknown) => {
        stopped = true;
        if (subscriber.onError) subscriber.onError(error);
        // A projection that silently stops is worse than a crash.
        else
          queueMicrotask(() => {
            throw error;
          });
      })
      .finally(() => subscriptions.delete(subscription));

    const subscription: Subscription = {
      async close() {
        stopped = true;
        wake?.();
        await finished;
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  return {
    async appendToStream(streamId, events, { expectedRevision }): Promise<AppendResult> {
      assertOpen();
      assertAppendable(events);
      const streamName = streamNameOf(streamId);
      const ids = eventIdsFor(streamName, expectedRevision, events);
      const retries = isRetrySafe(expectedRevision) ? appendRetries : 0;
      // Retries fit in the call's bound: none is sent once the caller has been told the outcome is unknown.
      const until = Date.now() + timeoutMs;
      return bounded(
        `an append to "${streamId}"`,
        async (opened) => {
          for (let attempt = 0; ; attempt++) {
            try {
              const result = await appendOnce(streamName, events, ids, expectedRevision);
              const nextExpectedRevision = Number(result.nextExpectedRevision);
              // The node acknowledges a recognised retry without a position; the original events have one.
              const position = result.position
                ? toPortPosition(result.position)
                : await positionAt(streamName, nextExpectedRevision, opened);
              return { nextExpectedRevision, position };
            } catch (error) {
              if (error instanceof WrongExpectedVersionError) {
                const actual = error.actualVersion === NO_STREAM ? 'no_stream' : Number(error.actualVersion);
                throw new WrongExpectedRevisionError(streamId, expectedRevision, actual);
              }
              const pause = firstDelayMs * 2 ** attempt;
              if (attempt >= retries || !isTransient(error) || Date.now() + pause >= until) throw error;
              await sleep(pause);
            }
          }
        },
        true,
      );
    },

    async readStream(streamId, { direction = 'forwards', fromRevision, maxCount = Infinity } = {}) {
      assertOpen();
      if (fromRevision !== undefined && (!Number.isSafeInteger(fromRevision) || fromRevision < 0)) {
        throw new RangeError(`fromRevision is a non-negative integer; got ${fromRevision}`);
      }
      if (maxCount <= 0) return [];
      return bounded(`a read of "${streamId}"`, async (opened) => {
        const read = client.readStream(streamNameOf(streamId), {
          direction: direction === 'forwards' ? FORWARDS : BACKWARDS,
          fromRevision: fromRevision === undefined ? (direction === 'forwards' ? START : END) : BigInt(fromRevision),
          maxCount: Number.isFinite(maxCount) ? maxCount : Number.MAX_SAFE_INTEGER,
        });
        opened.add(read);
        try {
          const events: RecordedEvent[] = [];
          for await (const { event } of read) if (event) events.push(toRecorded(event));
          return events;
        } catch (error) {
          if (error instanceof StreamNotFoundError) return [];
          throw error;
        } finally {
          opened.delete(read);
        }
      });
    },

    async readAll({ direction = 'forwards', fromPosition, after, maxCount = Infinity } = {}) {
      assertOpen();
      if (after !== undefined) {
        if (direction !== 'forwards') throw new RangeError('readAll: `after` reads forwards only');
        if (fromPosition !== undefined) throw new RangeError('readAll: give `fromPosition` or `after`, not both');
      }
      if (maxCount <= 0) return [];
      // Checked before the call: a bad position is the caller's fault, not an outage.
      const from = fromPosition === undefined ? undefined : toEsdbPosition(fromPosition);
      const exclusive = after === undefined || after === 0 ? undefined : toEsdbPosition(after);
      return bounded('a read of $all', async (opened) => {
        const events: RecordedEvent[] = [];
        if (after !== undefined) {
          // The read starts with the event at `after` (the checkpoint's own), which is skipped.
          await readShown(
            'forwards',
            exclusive ?? START,
            maxCount,
            events,
            opened,
            exclusive === undefined ? undefined : after,
          );
          return events;
        }
        if (direction === 'forwards') {
          await readShown('forwards', from ?? START, maxCount, events, opened);
          return events;
        }
        if (from === undefined) {
          await readShown('backwards', END, maxCount, events, opened);
          return events;
        }
        // The port's start is inclusive, but a backward read from a position starts just before the event there;
        // so that event is read forwards, and an empty answer means the position is past the last event.
        const [atPosition] = await readAllPage('forwards', from, 1, opened);
        if (!atPosition?.event) {
          await readShown('backwards', END, maxCount, events, opened);
          return events;
        }
        if (toPortPosition(atPosition.event.position) === fromPosition && isShown(atPosition.event))
          events.push(toRecorded(atPosition.event));
        await readShown('backwards', from, maxCount, events, opened);
        return events;
      });
    },

    subscribeToAll(subscriber) {
      assertOpen();
      return subscribe(subscriber);
    },

    async headPosition() {
      assertOpen();
      return bounded('a read of the head of $all', async (opened) => {
        const last: RecordedEvent[] = [];
        await readShown('backwards', END, 1, last, opened);
        return last[0]?.position ?? 0;
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      // A node that does not answer holds neither the subscriptions' ends nor the disposal beyond the bound.
      const closing = (async () => {
        await Promise.all([...subscriptions].map((subscription) => subscription.close()));
        await client.dispose();
      })();
      await withDeadline(
        closing,
        timeoutMs,
        () => new DependencyUnavailableError('event store', 'EventStoreDB did not let go of the connection in time'),
      ).catch(() => undefined);
    },
  };
}
