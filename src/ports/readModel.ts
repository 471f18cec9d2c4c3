/**
 * The read-model port: documents by id, the secondary indexes a projection declares for them, list queries
 * over those indexes, and per-projection checkpoints that move in the same atomic commit as the documents.
 *
 * Adapters: in-memory (the embedded default) and Redis. Both must give identical results for every plan;
 * the contract suite in test/contracts/readModel.contract.ts is the definition of "identical".
 */

/**
 * Numbers must be finite. `1` and `'1'` are different values. Where numbers and strings meet in one sort key
 * (or among ids) numbers sort before strings, so every key has one total order.
 */
export type DocId = number | string;
export type Scalar = number | string;

/** Stored as a JSON copy (a doc that JSON cannot represent fails its commit); read results are read-only. */
export interface Doc {
  id: DocId;
  [field: string]: unknown;
}

/**
 * How a document is found by list queries. Computed by the projection (pure) and stored beside the document;
 * the adapter keeps whatever structures it needs (sorted sets, set indexes, trigrams) in step with it.
 * `id` is always implicitly a sort key and a set field; it must not be declared.
 */
export interface IndexEntry {
  /** Sort keys. Numbers sort numerically; strings sort by UTF-16 code units (normalise case in the projection).
   * In all three records an undefined or null value means the key is absent. */
  sort?: Record<string, number | string>;
  /** Set fields: a document "has" each listed value (a scalar counts as a one-value list). */
  sets?: Record<string, Scalar | readonly Scalar[]>;
  /** Searchable text columns, matched case-insensitively by `text` filters and `relevance` order. */
  text?: Record<string, string>;
}

/** Filters; a plan's top-level list is a conjunction. */
export type Filter =
  /** The document has at least one of `values` in `field` (no values: matches nothing). */
  | { kind: 'any'; field: string; values: readonly Scalar[] }
  /** The document has every one of `values` (no values: matches everything). */
  | { kind: 'all'; field: string; values: readonly Scalar[] }
  /** The document has none of `values` (no values: matches everything). */
  | { kind: 'none'; field: string; values: readonly Scalar[] }
  /** Bounds on a sort key; absent bounds are open. A document without that key never matches. */
  | { kind: 'range'; field: string; gt?: Scalar; gte?: Scalar; lt?: Scalar; lte?: Scalar }
  /**
   * Substring search, case-insensitive: every `includes` term occurs in at least one of `fields`, and no
   * `excludes` term occurs in any of them. Empty terms are ignored; a missing column reads as ''.
   */
  | { kind: 'text'; fields: readonly string[]; includes: readonly string[]; excludes: readonly string[] }
  /** No filters: matches nothing. */
  | { kind: 'or'; filters: readonly Filter[] }
  /** No filters: matches everything. */
  | { kind: 'and'; filters: readonly Filter[] };

export type Direction = 'asc' | 'desc';

/** Ordering of the matches. Ties are always broken by id, in the same direction as the order. */
export type Order =
  /** By a sort key (or `id`). Documents without the key sort after all others in either direction. */
  | { kind: 'field'; field: string; direction: Direction }
  /** By the position of the document's `field` value in `values` (WordPress's include / include_slugs
   * orders); documents whose value is not listed come last, by id ascending. `field` is a set field (or `id`);
   * a document with several values takes the first listed one; equal positions go by id ascending. */
  | { kind: 'list'; field: string; values: readonly Scalar[] }
  /**
   * WordPress's search relevance, best first: the whole `phrase` in the title; then every one of `terms` in the
   * title; then any of `terms` in the title; then the phrase in the excerpt; then the phrase in the content.
   * Within a rank, by `then`. An empty phrase matches nothing; with no (non-empty) terms the term ranks are
   * skipped; documents matching no rule come last.
   */
  | {
      kind: 'relevance';
      phrase: string;
      terms: readonly string[];
      columns: { title: string; excerpt: string; content: string };
      then: { field: string; direction: Direction };
    };

export interface QueryPlan {
  filters: readonly Filter[];
  order: Order;
  /** A non-negative integer, as is a non-null limit. */
  offset: number;
  /** null returns every match from `offset` on. */
  limit: number | null;
}

export interface QueryResult {
  /** The requested page of documents, in order. */
  items: Doc[];
  /** Every match, ignoring offset and limit. */
  total: number;
}

/** One document change: `doc: null` deletes it (and its index entry). */
export interface DocWrite {
  collection: string;
  id: DocId;
  doc: Doc | null;
  index?: IndexEntry;
}

export interface Checkpoint {
  /** Global log position of the last event applied. */
  position: number;
  /** The projection version that wrote the documents; a different version means rebuild. */
  version: number;
}

export interface Commit {
  writes: readonly DocWrite[];
  checkpoint: { name: string } & Checkpoint;
}

export interface ReadModel {
  get(collection: string, id: DocId): Promise<Doc | null>;
  getMany(collection: string, ids: readonly DocId[]): Promise<(Doc | null)[]>;
  query(collection: string, plan: QueryPlan): Promise<QueryResult>;
  /**
   * Applies the writes (in order) and moves the checkpoint atomically: all or nothing. Rejects, changing
   * nothing, when any write is invalid: a doc whose id is not the write's, a doc JSON cannot represent, an
   * index entry declaring `id` or holding a non-finite number.
   */
  commit(commit: Commit): Promise<void>;
  checkpoint(name: string): Promise<Checkpoint | null>;
  /** Forgets the collections and the named checkpoint, for a rebuild. */
  reset(name: string, collections: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
