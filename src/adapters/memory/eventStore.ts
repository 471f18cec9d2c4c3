/**
 * An in-memory event store for tests: the same contract as the durable adapters, nothing persisted.
 * Data and metadata are copied through JSON on the way in and out, as a real store serializes them, so code under
 * test cannot pass by sharing (or mutating) objects held by the store.
 */
import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../../ports/eventStore';
import {
  assertAppendable,
  resultOfRetriedAppend,
  satisfiesExpectedRevision,
  startCatchUpSubscription,
  startOfRead,
  type CatchUpSubscription,
} from '../eventStoreShared';

const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? null)) as T;
const copyOf = (event: RecordedEvent): RecordedEvent => ({
  ...event,
  data: jsonCopy(event.data),
  metadata: jsonCopy(event.metadata),
});

export function createMemoryEventStore(): EventStore {
  /** The global log: the event at position p sits at index p - 1. */
  const log: RecordedEvent[] = [];
  const streams = new Map<string, RecordedEvent[]>();
  const subscriptions = new Set<CatchUpSubscription>();
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error('The event store is closed');
  };

  return {
    // No await inside: each append runs to completion before any other, which is what makes it atomic.
    async appendToStream(streamId, events, { expectedRevision }) {
      assertOpen();
      assertAppendable(events);
      const stream = streams.get(streamId) ?? [];
      if (!satisfiesExpectedRevision(expectedRevision, stream.length - 1)) {
        const retried = resultOfRetriedAppend(expectedRevision, events, (revision, count) =>
          stream.slice(revision + 1, revision + 1 + count),
        );
        if (retried) return retried;
        throw new WrongExpectedRevisionError(
          streamId,
          expectedRevision,
          stream.length === 0 ? 'no_stream' : stream.length - 1,
        );
      }
      for (const event of events) {
        const recorded: RecordedEvent = {
          id: event.id ?? randomUUID(),
          streamId,
          revision: stream.length,
          position: log.length + 1,
          type: event.type,
          data: jsonCopy(event.data),
          metadata: jsonCopy(event.metadata),
        };
        stream.push(recorded);
        log.push(recorded);
      }
      streams.set(streamId, stream);
      for (const subscription of subscriptions) subscription.notify();
      return { nextExpectedRevision: stream.length - 1, position: log.length };
    },

    async readStream(streamId, { direction = 'forwards', fromRevision, maxCount = Infinity } = {}) {
      assertOpen();
      const stream = streams.get(streamId) ?? [];
      const selected =
        direction === 'forwards'
          ? stream.slice(Math.max(fromRevision ?? 0, 0))
          : stream.slice(0, (fromRevision ?? Infinity) + 1).reverse();
      return selected.slice(0, maxCount).map(copyOf);
    },

    async readAll({ direction = 'forwards', fromPosition, after, maxCount = Infinity } = {}) {
      assertOpen();
      const start = startOfRead(direction, fromPosition, after);
      const selected =
        direction === 'forwards'
          ? log.slice(start === undefined ? 0 : Math.max(start - 1, 0))
          : log.slice(0, start ?? Infinity).reverse();
      return selected.slice(0, maxCount).map(copyOf);
    },

    subscribeToAll(options) {
      assertOpen();
      const subscription = startCatchUpSubscription(
        {
          readAfter: (position, maxCount) => log.slice(position, position + maxCount).map(copyOf),
          headPosition: () => log.length,
        },
        options,
        { onClosed: () => subscriptions.delete(subscription) },
      );
      subscriptions.add(subscription);
      return subscription;
    },

    async headPosition() {
      assertOpen();
      return log.length;
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((subscription) => subscription.close()));
    },
  };
}
