/**
 * The keyed requests being served, for what they append: every event a request with an `Idempotency-Key` appends
 * carries the key and its scope in its metadata (`idempotencyKey`, `idempotencyScope`; site.metadata adds them), and
 * the appends of its resources' events are counted, so that a request that failed after appending is told from one
 * that changed nothing.
 *
 * The operations make their events' metadata from the caller and the request id (site.metadata), so a keyed request is
 * known by its request id while it is served: no operation passes the key along, and nothing tracks asynchronous
 * context (an AsyncLocalStorage would slow every promise of the process once used). Two keyed requests served at
 * once never share a request id (uniqueRequestId; a client may send the same X-Request-Id twice); batch sub-requests
 * share their batch's, one after the other. What the request starts that outlives it carries no key.
 */
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

const serving = new Map<string, KeyedRequest>();
const RESOURCE_TYPES: ReadonlySet<string> = new Set(RESOURCE_EVENT_TYPES);

/** `requestId`, or one made from it that no keyed request being served has. */
export function uniqueRequestId(requestId: string): string {
  if (!serving.has(requestId)) return requestId;
  for (let n = 2; ; n++) if (!serving.has(`${requestId}#${n}`)) return `${requestId}#${n}`;
}

/** Serves the keyed request: what is appended for its caller and request id meanwhile carries its key. */
export async function servingKeyed<T>(request: KeyedRequest, serve: () => T | Promise<T>): Promise<T> {
  serving.set(request.requestId, request);
  try {
    return await serve();
  } finally {
    if (serving.get(request.requestId) === request) serving.delete(request.requestId);
  }
}

/**
 * The metadata fields for an event appended on behalf of `userId` while serving `requestId`: the key's, when that is
 * a keyed request being served by that caller; null otherwise (also for what the system appends meanwhile: a default
 * category made on first need, an id block).
 */
export function keyedMetadata(
  userId: number | null,
  requestId: string,
): { idempotencyKey: string; idempotencyScope: string } | null {
  if (serving.size === 0) return null;
  const request = serving.get(requestId);
  if (request === undefined || request.userId !== userId) return null;
  return { idempotencyKey: request.key, idempotencyScope: request.scope };
}

/** The store, counting the keyed requests' appends of resource events (see KeyedRequest). */
export function countingKeyedAppends(store: EventStore): EventStore {
  const counted = (events: NewEvent[]): KeyedRequest | null => {
    if (serving.size === 0) return null;
    for (const event of events) {
      if (!RESOURCE_TYPES.has(event.type)) continue;
      const request = serving.get(event.metadata.requestId);
      if (request !== undefined && event.metadata.idempotencyScope === request.scope) return request;
    }
    return null;
  };
  return {
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
