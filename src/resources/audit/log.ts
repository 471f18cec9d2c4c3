/**
 * The audit log: the global event log read page by page with filters. The event store has no secondary
 * indexes, so a page is found by scanning from a cursor (a global position) in chunks until enough events
 * match; no total is counted, since that would mean scanning the whole log on every request.
 */
import type { EventStore, RecordedEvent } from '../../ports/eventStore';

export interface AuditFilter {
  /** Acting users; 0 stands for the system (a null userId). */
  users?: readonly number[];
  types?: readonly string[];
  /** Stream-name prefix, e.g. `content-` or `user-3`. */
  streamPrefix?: string;
  requestId?: string;
  /** Exclusive bounds on `metadata.at`, epoch ms (compared to the second, as item dates are). */
  after?: number;
  before?: number;
}

export interface AuditPageRequest {
  filter: AuditFilter;
  order: 'asc' | 'desc';
  /** Exclusive cursor: newest first continues below it, oldest first above it. Absent: from the end (desc) or start (asc). */
  cursor?: number;
  perPage: number;
}

export interface AuditPage {
  events: RecordedEvent[];
  /** The cursor of the next page, or null when no further event matches. */
  next: number | null;
}

export interface AuditEntry {
  id: string;
  position: number;
  stream: string;
  revision: number;
  type: string;
  time: string;
  user: number | null;
  request_id: string;
  data: unknown;
}

const SCAN_CHUNK = 500;
const secondOf = (iso: string) => Math.floor(Date.parse(iso) / 1000) * 1000;

export function matches(event: RecordedEvent, filter: AuditFilter): boolean {
  if (filter.users && filter.users.length > 0 && !filter.users.includes(event.metadata.userId ?? 0)) return false;
  if (filter.types && filter.types.length > 0 && !filter.types.includes(event.type)) return false;
  if (filter.streamPrefix !== undefined && !event.streamId.startsWith(filter.streamPrefix)) return false;
  if (filter.requestId !== undefined && event.metadata.requestId !== filter.requestId) return false;
  if (filter.after !== undefined || filter.before !== undefined) {
    const at = secondOf(event.metadata.at);
    if (filter.after !== undefined && !(at > filter.after)) return false;
    if (filter.before !== undefined && !(at < filter.before)) return false;
  }
  return true;
}

/** One page of matching events, plus the cursor of the next (found by looking one match further). */
export async function readAuditPage(store: EventStore, request: AuditPageRequest): Promise<AuditPage> {
  const { order, perPage, filter } = request;
  const found: RecordedEvent[] = [];
  const backwards = order === 'desc';
  // Where the next chunk starts: exclusive of `bound` (a cursor, or the last event read). Positions are only compared,
  // never computed (EventStoreDB's are byte offsets: `p - 1` names no event), so a backward read starts at `bound`
  // itself, inclusive, and that event is left out.
  let bound: number | undefined = request.cursor;
  while (found.length <= perPage) {
    if (backwards && bound !== undefined && bound <= 1) break;
    const chunk = backwards
      ? await store.readAll({
          direction: 'backwards',
          fromPosition: bound,
          maxCount: SCAN_CHUNK + (bound === undefined ? 0 : 1),
        })
      : await store.readAll({ after: bound ?? 0, maxCount: SCAN_CHUNK });
    const fresh = backwards && bound !== undefined ? chunk.filter((e) => e.position < bound!) : chunk;
    for (const event of fresh) {
      if (matches(event, filter)) found.push(event);
      if (found.length > perPage) break;
    }
    if (fresh.length < SCAN_CHUNK) break;
    bound = fresh[fresh.length - 1]!.position;
  }
  const events = found.slice(0, perPage);
  return { events, next: found.length > perPage ? events[events.length - 1]!.position : null };
}

/** Keys whose values are secrets (or hashes of them): never shown, whatever event they come in. */
const SECRET_KEY = /(hash|secret|token)$/i;
export const REDACTED = '[redacted]';

/** A copy of `value` with every secret-named field's value replaced (null stays null: "none set" is no secret). */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, SECRET_KEY.test(key) && v !== null ? REDACTED : redact(v)]),
  );
}

export function auditEntry(event: RecordedEvent): AuditEntry {
  return {
    id: event.id,
    position: event.position,
    stream: event.streamId,
    revision: event.revision,
    type: event.type,
    time: event.metadata.at,
    user: event.metadata.userId ?? null,
    request_id: event.metadata.requestId,
    data: redact(event.data),
  };
}
