/**
 * The keyed request being served, for what it appends: every event a request with an `Idempotency-Key` appends
 * carries the key and its scope in its metadata (`idempotencyKey`, `idempotencyScope`; site.metadata adds them), and
 * the appends of its resources' events are counted, so that a request that failed after appending is told from one
 * that changed nothing. Held in an AsyncLocalStorage scope around the request's handling (guard.ts), which the
 * operations' appends run within, so no operation needs to pass the key along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { WrongExpectedRevisionError } from '../../ports/eventStore';
import type { EventStore, NewEvent } from '../../ports/eventStore';
import { RESOURCE_EVENT_TYPES } from './keys';

export interface KeyedRequest {
  key: string;
  scope: string;
  /** The caller and the request id: only events appended for them carry the key (not the system's, made meanwhile). */
  userId: number;
  requestId: string;
  /** Appends of resource events carrying this key that succeeded. */
  appended: number;
  /** An append of such events failed in a way that leaves unknown whether it landed (not a revision conflict). */
  uncertain: boolean;
}

const keyed = new AsyncLocalStorage<KeyedRequest>();
const RESOURCE_TYPES: ReadonlySet<string> = new Set(RESOURCE_EVENT_TYPES);

/** Runs `serve` as the keyed request `request`: what it appends carries the key. */
export function servingKeyed<T>(request: KeyedRequest, serve: () => T): T {
  return keyed.run(request, serve);
}

/**
 * The metadata fields of the keyed request being served, for an event appended on behalf of `userId` while serving
 * `requestId`: null outside a keyed request, and for what the system appends meanwhile (a default category made on
 * first need, an id block).
 */
export function keyedMetadata(userId: number | null, requestId: string): { idempotencyKey: string; idempotencyScope: string } | null {
  const request = keyed.getStore();
  if (request === undefined || request.userId !== userId || request.requestId !== requestId) return null;
  return { idempotencyKey: request.key, idempotencyScope: request.scope };
}

/** The store, counting the keyed request's appends of resource events (see KeyedRequest). */
export function countingKeyedAppends(store: EventStore): EventStore {
  const counted = (events: NewEvent[]) => {
    const request = keyed.getStore();
    if (request === undefined) return null;
    return events.some((event) => RESOURCE_TYPES.has(event.type) && event.metadata.idempotencyScope === request.scope) ? request : null;
  };
  return {
    ...store,
    async appendToStream(streamId, events, options) {
      const request = counted(events);
      try {
        const result = await store.appendToStream(streamId, events, options);
        if (request) request.appended += 1;
        return result;
      } catch (error) {
        if (request && !(error instanceof WrongExpectedRevisionError)) request.uncertain = true;
        throw error;
      }
    },
    readStream: (streamId, options) => store.readStream(streamId, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
}
