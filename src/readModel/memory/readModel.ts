/**
 * The in-memory read model: the embedded default that serves production traffic on one machine.
 *
 * Indexes, per collection:
 * - `rows`: id → Row (where its document's bytes are, and its index values against a shared Layout). A Row object
 *   lives as long as its document, and is updated in place, so every index can hold Rows and a walk never looks
 *   anything up.
 * - `sets`: set field → value → its rows (one Row, a Set, or a bit per row slot for values many rows hold).
 * - `orders`: sort key (or `id`) → OrderIndex, a chunked sorted array of (key, row) ordered by (key, id). Chunks
 *   keep inserts and deletes cheap (a splice of at most ~1k entries), lookups are binary searches, and a walk can
 *   start at a bound and go either way. Each is made at the first plan that needs it, then kept up to date.
 * - `partitionOrders`: per partition field (IndexEntry.partitions) and value, the same order indexes over that
 *   value's rows only, so a one-value filter on such a field pages by rank (`byPartition`); each is made at the
 *   first plan that pages by it and kept up to date from then on.
 *
 * A query compiles its filters into nodes that can test a row, estimate the size of a candidate superset they
 * can list (set sizes, range counts), and sometimes count their matches exactly (one set's size, an
 * intersection of sets, a range count). The total comes from that count when there is one, otherwise from
 * listing the smallest candidate superset and testing it. The page then comes either from walking the order
 * index from the right end, testing rows until offset + limit matches were seen, or from sorting the matches,
 * whichever the estimates say is cheaper. So `status = publish` ordered by date, limit 10, costs a set size plus
 * a walk of about 10 / (share of published rows) entries: O(log n + offset + limit) for a given mix.
 *
 * Documents are stored serialised, outside the V8 heap: their JSON and text columns are records in per-collection
 * arenas (./arena.ts), and a text column holding exactly the document's field of the same name stands for it. A
 * read parses the JSON into a frozen document (a ~2 KB post in a few microseconds); some recently read ones are kept,
 * and a row holds a weak reference to a parsed document a caller keeps (ReadModel.keepIdentity), so that document
 * keeps its identity while the caller holds it (the presentation cache keys what it derives on it) and a write gives
 * the next version a new one. Only those: V8's scavenger treats a weak reference's target as strong, so a weak
 * reference to every parsed document had every first read of a post copied twice and promoted to the old generation.
 * As live objects, a site's documents were most of a gigabyte of heap at 100,000 posts (docs/performance.md).
 *
 * The engine's parts, in this folder: rows and layouts (row.ts, layouts.ts), the byte arenas (arena.ts), rows by id
 * and set members (rowSets.ts), order indexes (orderIndex.ts), a collection holding them (collection.ts), text search
 * (textSearch.ts), query execution (query.ts), commit preparation (prepare.ts) and the snapshot (snapshot.ts). Plan and
 * commit validation are shared with the Redis engine (src/readModel/plan.ts, commit.ts), so both engines accept and
 * reject exactly the same commits and plans.
 */
import type { Checkpoint, Doc, DocId, QueryResult, ReadModel } from '../../ports/readModel';
import { AdmissionWindow } from '../../core/admissionWindow';
import { checkPlan, invalid, isScalar, norm } from '../plan';
import { Collection } from './collection';
import { Layouts, checkDefinition, checkValuesFit, definitionOf } from './layouts';
import type { LayoutDefinition, StoredRow } from './layouts';
import { EntryReader, checkExpectedPosition, prepareStoredCommit } from './prepare';
import { Query } from './query';
import { NO_VALUES } from './row';
import type { Layout, Row } from './row';
import { deepFreeze } from '../../core/deepFreeze';
import { CacheBudget } from '../../caches/budget';
import type { CacheSize } from '../../caches/budget';

/** The memory read model, plus what a snapshot of it needs (./snapshot.ts). */
export interface MemoryReadModel extends ReadModel {
  /**
   * Every checkpoint and stored row, for writing a snapshot: each row's layout, values and bytes as they are kept
   * (views into the read model's memory: read them before the next write). Rows of one layout share one layout
   * object.
   */
  dump(): { checkpoints: [string, Checkpoint][]; rows: Iterable<StoredRow> };
  /**
   * Loads a snapshot's checkpoints and stored rows into this read model, which must be empty, copying their bytes.
   * Throws, leaving the read model empty, on an invalid row.
   */
  load(checkpoints: [string, Checkpoint][], rows: Iterable<StoredRow>): void;
  /** The parsed documents kept now (MemoryReadModelOptions.parsedDocsKept). */
  parsedDocumentsHeld(): CacheSize;
  /** The text-search matches kept now, over the collections (MemoryReadModelOptions.textMatchesKept). */
  textMatchesHeld(): CacheSize;
}

export interface MemoryReadModelOptions {
  /**
   * Parsed documents kept by recent use (besides those callers keep, ReadModel.keepIdentity): reading one of them
   * again costs no parse. Once that many are kept, a document joins them only when read again among the last twice
   * as many it did not keep.
   */
  parsedDocsKept?: number;
  /** Text-search matches kept per collection, until its next write (textSearch.ts); 0 keeps none. */
  textMatchesKept?: number;
}

export function createMemoryReadModel(options: MemoryReadModelOptions = {}): MemoryReadModel {
  const collections = new Map<string, Collection>();
  const checkpoints = new Map<string, Checkpoint>();
  const layouts = new Layouts();
  const entryReader = new EntryReader();
  // By default the default cache budget's bounds (src/caches/budget.ts); the composition root gives the site's.
  const defaults = CacheBudget.defaults('memory');
  const kept = Math.max(0, options.parsedDocsKept ?? defaults.entries('parsedDocuments'));
  const textMatchesKept = Math.max(0, options.textMatchesKept ?? defaults.entries('textMatches'));
  // Recently read documents, least recently used first. Once full, a document joins only on a second read among
  // the last 2 × kept it did not keep (by row slot): on a site much larger than it read at random, keeping every
  // first read only pushed another document out, and each was promoted to the old generation first.
  const recent = new Map<Row, Doc>();
  const readOnce = new AdmissionWindow(2 * kept);
  // Each parsed document's row and the row's version it was made of, for keepIdentity. An entry dies with its
  // document, young, unlike a weak reference's target.
  const parsedFrom = new WeakMap<Doc, { row: Row; version: number }>();
  let versions = 0;

  const forget = (row: Row) => {
    recent.delete(row);
    row.held = ++versions;
  };

  const docOf = (c: Collection, row: Row): Doc => {
    let doc = recent.get(row);
    if (doc !== undefined) {
      recent.delete(row);
      recent.set(row, doc);
      return doc;
    }
    const held = row.held;
    doc = typeof held === 'number' ? undefined : held.deref();
    if (doc === undefined) {
      const parsed = JSON.parse(c.json(row)) as Record<string, unknown>;
      const { textNames, elided, anyElided } = row.layout;
      if (anyElided) for (let i = 0; i < textNames.length; i++) if (elided[i]) parsed[textNames[i]!] = c.textAt(row, i);
      deepFreeze(parsed);
      doc = parsed as Doc;
      let version: number;
      if (typeof held === 'number') version = held;
      else row.held = version = ++versions;
      parsedFrom.set(doc, { row, version });
    }
    if (kept > 0 && (recent.size < kept || readOnce.admits(row.slot))) {
      if (recent.size >= kept) recent.delete(recent.keys().next().value!);
      recent.set(row, doc);
    }
    return doc;
  };

  const keepIdentity = (doc: Doc) => {
    const from = parsedFrom.get(doc);
    // Not of this read model, or kept already, or changed since it was parsed: nothing to keep.
    if (from === undefined || from.row.held !== from.version) return;
    from.row.held = new WeakRef(doc);
  };

  const lookup = (collection: string, id: DocId): Doc | null => {
    if (!isScalar(id)) return null;
    const c = collections.get(collection);
    const row = c?.rows.get(norm(id));
    return row === undefined ? null : docOf(c!, row);
  };

  const drop = (collection: string) => {
    const c = collections.get(collection);
    if (c === undefined) return;
    for (const row of c.rows.values()) forget(row);
    collections.delete(collection);
  };

  return {
    parsedDocumentsHeld: () => ({ entries: recent.size }),
    textMatchesHeld() {
      let entries = 0;
      for (const c of collections.values()) entries += c.textMatches.size;
      return { entries, instances: collections.size };
    },
    async get(collection, id) {
      return lookup(collection, id);
    },

    peek: lookup,

    async getMany(collection, ids) {
      return ids.map((id) => lookup(collection, id));
    },

    async query(collection, plan): Promise<QueryResult> {
      checkPlan(plan);
      const c = collections.get(collection);
      if (c === undefined) return { items: [], total: 0 };
      c.indexAll();
      const { rows, total } = new Query(c).run(plan);
      return { items: rows.map((r) => docOf(c, r)), total };
    },

    async commit(commit) {
      // Everything that can fail happens in prepareStoredCommit; applying below cannot throw, so it is all or nothing.
      const prepared = prepareStoredCommit(commit, layouts, entryReader);
      if (commit.expectedPosition !== undefined)
        checkExpectedPosition(commit.expectedPosition, checkpoints.get(prepared.name), prepared.name);
      for (const write of prepared.writes) {
        let c = collections.get(write.collection);
        if (write.json === null) {
          c?.delete(write.id, forget);
          continue;
        }
        if (c === undefined) collections.set(write.collection, (c = new Collection(textMatchesKept)));
        c.put(write, forget);
      }
      checkpoints.set(prepared.name, prepared.checkpoint);
    },

    async checkpoint(name) {
      const cp = checkpoints.get(name);
      return cp === undefined ? null : { ...cp };
    },

    async reset(name, names) {
      checkpoints.delete(name);
      for (const collection of names) drop(collection);
    },

    beginBulkLoad(names) {
      for (const collection of names) {
        let c = collections.get(collection);
        if (c === undefined) collections.set(collection, (c = new Collection(textMatchesKept)));
        // Only an empty collection: its indexes are then built from nothing.
        if (c.rows.size === 0) c.deferred = true;
      }
    },

    endBulkLoad() {
      for (const c of collections.values()) c.indexAll();
    },

    async close() {},

    keepIdentity,

    dump() {
      function* rows(): Iterable<StoredRow> {
        // One definition object per layout, so a writer can number them by identity.
        const definitions = new Map<Layout, LayoutDefinition>();
        for (const [collection, c] of collections) {
          for (const row of c.rows.values()) {
            const { doc, text, looseText } = c.bytesOf(row);
            let layout = definitions.get(row.layout);
            if (layout === undefined) definitions.set(row.layout, (layout = definitionOf(row.layout)));
            yield { collection, id: row.id, layout, values: row.values, doc, text, looseText };
          }
        }
      }
      return { checkpoints: [...checkpoints].map(([name, cp]) => [name, { ...cp }]), rows: rows() };
    },

    load(loadedCheckpoints, rows) {
      if (collections.size > 0 || checkpoints.size > 0)
        throw new Error('read model: a snapshot loads into an empty read model only');
      // A snapshot hands out one definition object per layout.
      const known = new Map<LayoutDefinition, Layout>();
      try {
        for (const row of rows) {
          if (typeof row.collection !== 'string' || row.collection === '' || !isScalar(row.id))
            invalid('a stored row needs a collection and a scalar id');
          let layout = known.get(row.layout);
          if (layout === undefined) {
            checkDefinition(row.layout, row.values);
            known.set(row.layout, (layout = layouts.ofDefinition(row.layout)));
          } else checkValuesFit(layout, row.values);
          const { doc, text, looseText } = row;
          // The stored JSON of an object; its text record at least as long as its header.
          if (!(doc instanceof Uint8Array) || doc.length < 2 || doc[0] !== 0x7b || doc[doc.length - 1] !== 0x7d)
            invalid('a stored row has no document');
          if (text !== null && (!(text instanceof Uint8Array) || text.length < 4 * row.layout.text.length))
            invalid("a stored row's text is cut short");
          if (looseText !== null && (!Array.isArray(looseText) || !looseText.every((t) => typeof t === 'string')))
            invalid("a stored row's text is not sound");
          let c = collections.get(row.collection);
          if (c === undefined) {
            collections.set(row.collection, (c = new Collection(textMatchesKept)));
            c.deferred = true;
          }
          const values = row.values.map(norm);
          // A set value equal to one of the row's sort keys (a slug is both) shares its string, as it did when
          // the projection made both from one field.
          const sorts = row.layout.sort.length;
          for (let i = sorts; i < values.length; i++) {
            const v = values[i];
            if (typeof v !== 'string') continue;
            for (let j = 0; j < sorts; j++) if (values[j] === v) values[i] = values[j]!;
          }
          c.putStored(norm(row.id), layout, values.length === 0 ? NO_VALUES : values, doc, text, looseText);
        }
        for (const c of collections.values()) c.indexAll();
      } catch (error) {
        collections.clear();
        throw error;
      }
      for (const [name, cp] of loadedCheckpoints) checkpoints.set(name, { position: cp.position, version: cp.version });
    },
  };
}
