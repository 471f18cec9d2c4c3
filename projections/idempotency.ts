/**
 * Idempotency keys (src/resources/idempotency/guard.ts): one document per key of a user (its scope), with the
 * request that claimed it, what became of it, and the resources its events changed. The events of a keyed request
 * carry the key's scope in their metadata (`idempotencyScope`), so an answer lost with its process can be made again
 * from the resources it names, on any node. The answers themselves stay in the log (`IdempotentResponseRecorded`):
 * a document holds no body, a hundred bytes or so per key.
 */
import { defineProjection } from '../src/projection/projection';
import type { Doc } from '../src/ports/readModel';
import {
  IDEMPOTENCY_COLLECTION,
  IDEMPOTENCY_EVENT_TYPES,
  RESOURCE_EVENT_TYPES,
  resourcePathOf,
} from '../src/resources/idempotency/keys';
import type { IdempotencyKeyClaimed, IdempotentResponseRecorded } from '../src/resources/idempotency/keys';

export interface IdempotencyKeyDoc extends Doc {
  id: string;
  userId: number;
  key: string;
  method: string;
  path: string;
  /** The stream revision of the claim the rest describes (a key claimed again after it expired starts over). */
  claim: number;
  claimedAt: string;
  requestId: string;
  /** The recorded answer's status; null until there is one. */
  status: number | null;
  recovered: boolean;
  /** How the request ended without an answer to keep: released (it changed nothing) or appended. */
  ended: 'released' | 'appended' | null;
  /** The first resource events of the request (at most RESOURCES_KEPT), and the route of what each changed. */
  resources: { type: string; streamId: string; position: number; path: string | null }[];
}

const RESOURCES_KEPT = 20;
const OWN_TYPES: ReadonlySet<string> = new Set(IDEMPOTENCY_EVENT_TYPES);

export default defineProjection<IdempotencyKeyDoc>({
  name: 'idempotency',
  version: 1,
  collections: [IDEMPOTENCY_COLLECTION],
  handles: [...IDEMPOTENCY_EVENT_TYPES, ...RESOURCE_EVENT_TYPES],
  locate(event) {
    if (OWN_TYPES.has(event.type))
      return { collection: IDEMPOTENCY_COLLECTION, id: (event.data as { scope: string }).scope };
    const scope = event.metadata.idempotencyScope;
    return typeof scope === 'string' ? { collection: IDEMPOTENCY_COLLECTION, id: scope } : null;
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'IdempotencyKeyClaimed': {
        const data = event.data as IdempotencyKeyClaimed;
        return {
          id: data.scope,
          userId: data.userId,
          key: data.key,
          method: data.method,
          path: data.path,
          claim: event.revision,
          claimedAt: event.metadata.at,
          requestId: event.metadata.requestId,
          status: null,
          recovered: false,
          ended: null,
          resources: [],
        };
      }
      case 'IdempotentResponseRecorded': {
        if (doc === null) return null;
        const data = event.data as IdempotentResponseRecorded;
        return { ...doc, status: data.status, recovered: data.recovered === true };
      }
      case 'IdempotencyKeyReleased':
        return doc === null ? null : { ...doc, ended: 'released' };
      case 'IdempotentRequestEnded':
        return doc === null ? null : { ...doc, ended: 'appended' };
      default: {
        // A resource event of the request that holds the claim (not of an earlier one that lost it).
        if (doc === null || doc.requestId !== event.metadata.requestId || doc.resources.length >= RESOURCES_KEPT)
          return doc;
        const resource = {
          type: event.type,
          streamId: event.streamId,
          position: event.position,
          path: resourcePathOf(event),
        };
        return { ...doc, resources: [...doc.resources, resource] };
      }
    }
  },
});
