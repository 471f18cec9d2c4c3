/**
 * An item's past, from its own stream: what each event changed (folded with the decider's `evolveContent`,
 * the same fold the write side trusts), and the item as it stood at a given moment (folded with the content
 * projection's `evolve`, the same fold that builds the live document). Pure: the events come in.
 */
import type { RecordedEvent } from '../../ports/eventStore';
import { evolveContent, initialContentState } from '../content/decider';
import type { ContentState } from '../content/decider';
import type { ContentEvent, PostFields } from '../content/events';
import content from '../../../projections/content';
import type { ContentDoc } from '../../../projections/content';

export interface FieldChange {
  from: unknown;
  to: unknown;
}

export interface HistoryEntry {
  /** 0-based index of the event in the item's stream. */
  revision: number;
  /** Position in the global log (the audit log's key). */
  position: number;
  type: string;
  /** `metadata.at`: when the command was decided, ISO 8601 UTC. */
  time: string;
  /** The acting user; null for the system. */
  user: number | null;
  request_id: string;
  /** The item's stored fields the event changed. */
  diff: Record<string, FieldChange>;
  /** The revision a `PostRevised` made. */
  revision_id?: number;
  /** The autosave a `PostAutosaved` wrote or an `AutosaveDiscarded` dropped. */
  autosave_id?: number;
}

function fieldDiff(before: PostFields | null, after: PostFields | null): Record<string, FieldChange> {
  const diff: Record<string, FieldChange> = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]) as Set<keyof PostFields>;
  for (const key of keys) {
    const from = before?.[key] ?? null;
    const to = after?.[key] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) diff[key] = { from, to };
  }
  return diff;
}

/** Every event of the stream with the fields it changed, oldest first. */
export function historyOf(events: readonly RecordedEvent[]): HistoryEntry[] {
  let state: ContentState = initialContentState();
  return events.map((event) => {
    const before = state.exists ? state.post : null;
    state = evolveContent(state, event as unknown as ContentEvent);
    const after = state.exists ? state.post : null;
    const entry: HistoryEntry = {
      revision: event.revision,
      position: event.position,
      type: event.type,
      time: event.metadata.at,
      user: event.metadata.userId ?? null,
      request_id: event.metadata.requestId,
      diff: fieldDiff(before, after),
    };
    const data = event.data as { revisionId?: number; autosaveId?: number };
    if (event.type === 'PostRevised') entry.revision_id = data.revisionId;
    if (event.type === 'PostAutosaved' || event.type === 'AutosaveDiscarded') entry.autosave_id = data.autosaveId;
    return entry;
  });
}

/**
 * Whether the event had happened by `asOfMs`. Item dates are kept to the second, so an event counts from the
 * start of the second it happened in: `as_of` equal to an item's `modified` shows that modification.
 */
export const happenedBy = (event: RecordedEvent, asOfMs: number): boolean =>
  Math.floor(Date.parse(event.metadata.at) / 1000) * 1000 <= asOfMs;

/**
 * The item's read-model document as it was at `asOfMs`: the stream folded up to its last event that had
 * happened by then (a prefix of the stream, so always a state that existed even if clocks disagreed);
 * null before the item existed (or once deleted).
 */
export function documentAsOf(events: readonly RecordedEvent[], asOfMs: number): ContentDoc | null {
  let last = -1;
  events.forEach((event, i) => {
    if (happenedBy(event, asOfMs)) last = i;
  });
  let doc: ContentDoc | null = null;
  for (const event of events.slice(0, last + 1)) {
    if ((content.handles as readonly string[]).includes(event.type)) doc = content.evolve(doc, event);
  }
  return doc;
}
