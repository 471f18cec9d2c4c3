/**
 * Event ids for EventStoreDB, which accepts only UUIDs and uses them to recognise a retried append.
 *
 * When the caller gives no id, an append that names where its events go (`no_stream` or a revision) gets
 * deterministic ids: a name-based (version 5) UUID of everything that identifies the append and the event. The same
 * command retried after a lost acknowledgement produces the same ids at the same place, so the node acknowledges it
 * again instead of writing it twice. What goes into the name, and why:
 * - the stream and the expected revision: the slot the events are meant for;
 * - the batch size and the index in the batch: the node checks ids one by one from the expected revision on, so
 *   without the size a shorter later batch (say the first event of the one already written) would pass as a retry;
 * - the request id: two requests writing the same events to the same slot are different writes (one must conflict);
 * - the type and the data: a different decision in the same request (after re-reading) is a different write.
 * `any` and `stream_exists` appends name no slot, and the node would take an id it has seen anywhere in the stream as
 * a retry, so their events get random ids: they are never treated as retries, as the port says.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ExpectedRevision, NewEvent } from '../../ports/eventStore';

/** The namespace every derived event id is hashed under (a random UUID chosen once for this purpose). */
const EVENT_ID_NAMESPACE = 'b7d1f4a2-6c3e-4f1b-9a5d-2e8c0f7b4d19';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID_PATTERN.test(value);

/** A version 5 UUID (RFC 9562): SHA-1 of the namespace's bytes and the name, with the version and variant bits set. */
export function nameBasedUuid(namespace: string, name: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id each event of an append is written with: the caller's, a derived one, or a random one (see above). */
export function eventIdsFor(streamName: string, expectedRevision: ExpectedRevision, events: NewEvent[]): string[] {
  return events.map((event, index) => {
    if (event.id !== undefined) {
      if (!isUuid(event.id)) throw new RangeError(`EventStoreDB event ids must be UUIDs; got "${event.id}"`);
      return event.id.toLowerCase();
    }
    if (expectedRevision === 'any' || expectedRevision === 'stream_exists') return randomUUID();
    const name = JSON.stringify([
      streamName,
      expectedRevision,
      events.length,
      index,
      event.metadata.requestId,
      event.type,
      event.data,
    ]);
    return nameBasedUuid(EVENT_ID_NAMESPACE, name);
  });
}

/** Whether a failed append may be sent again as is: the node recognises every one of its events as a retry. */
export function isRetrySafe(expectedRevision: ExpectedRevision): boolean {
  return expectedRevision !== 'any' && expectedRevision !== 'stream_exists';
}
