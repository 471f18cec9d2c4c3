import type { RecordedEvent } from '../ports/eventStore';
import type { Doc, DocId, IndexEntry } from '../ports/readModel';

/** A document of the projection's own read model. */
export interface DocTarget {
  collection: string;
  id: DocId;
}

/** The projection's own documents as they were just before the event (only those the event changes). */
export type ReadOwn = (collection: string, id: DocId) => Doc | null;

/** What `evolve` is told about the document it folds, for projections that change several per event. */
export interface EvolveContext extends DocTarget {
  read: ReadOwn;
}

/**
 * A projection: a pure fold of events into read-model documents. The runner feeds it the global log, keeps
 * its checkpoint, and rebuilds it from the log whenever `version` changes. Modules in `projections/` (and in
 * PROJECTIONS_DIR) default-export one of these.
 */
export interface Projection<D extends Doc = Doc> {
  /** Unique, stable name; also the checkpoint's name. */
  name: string;
  /** Bump it whenever `evolve` or `index` change meaning: the read model is then rebuilt from the log. */
  version: number;
  /** Every collection the projection writes, so a rebuild can clear them. */
  collections: readonly string[];
  /** The event types it handles; others only move its checkpoint. */
  handles: readonly string[];
  /** The document an event changes, or null to skip it. */
  locate(event: RecordedEvent): DocTarget | null;
  /**
   * Optional: further documents the event changes, which depend on the projection's own state rather than on
   * the event alone (an aggregate keyed by a field the event does not carry). `read` gives the located
   * document as it was before the event. Every returned document is then folded with the same event.
   */
  related?(event: RecordedEvent, read: ReadOwn): readonly DocTarget[];
  /**
   * The next state of the document; null deletes it. Must not mutate `doc`. `context` names the document
   * being folded and reads the event's other documents (located and related) as they were before it.
   */
  evolve(doc: D | null, event: RecordedEvent, context?: EvolveContext): D | null;
  /** How list queries find the document. */
  index?(doc: D, collection: string): IndexEntry;
}

export const defineProjection = <D extends Doc>(projection: Projection<D>): Projection<D> => projection;
