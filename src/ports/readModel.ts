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
  /**
   * Partition fields: set fields of few values (a status, a type) for which the adapter also keeps every sort key
   * (and `id`) ordered per value, so a plan filtering on one value of such a field (and perhaps a range on its
   * order key) pages by rank, in O(log n + page) however deep the page. Optional and only a hint: results are the
   * same with or without it, and a value some document did not declare as a partition is served as if none had.
   */
  partitions?: readonly string[];
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
   * Within a rank, by `tieBreak`. An empty phrase matches nothing; with no (non-empty) terms the term ranks are
   * skipped; documents matching no rule come last.
   */
  | {
      kind: 'relevance';
      phrase: string;
      terms: readonly string[];
      columns: { title: string; excerpt: string; content: string };
      tieBreak: { field: string; direction: Direction };
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
  /**
   * `doc`'s JSON exactly as JSON.stringify(doc) gives it, when the caller has made it already (a bulk rebuild keeps
   * it): the adapter stores it as it is instead of serialising `doc` again.
   */
  json?: string;
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
  /**
   * The committer's fencing token (its projector lease, src/projection/service.ts). A read model shared by several
   * processes refuses the commit with StaleCommitError unless no newer token has been issued. Absent: no check.
   */
  fence?: number;
  /**
   * Where the commit's own checkpoint must stand for it to be applied: refused with StaleCommitError('checkpoint'),
   * writing nothing, unless the checkpoint named in `checkpoint` is now at this position (null: unless there is
   * none). For a write decided on a value read earlier, which a reset since must win over. Absent: no check.
   */
  expectedPosition?: number | null;
  /**
   * The generation of the projection's documents the commit writes to (see GenerationalReadModel). Absent: the
   * live one, whichever it is. A generation that is neither live nor staged is refused with StaleCommitError.
   */
  generation?: number;
  /**
   * Set by a rebuild filling a staged generation, which nobody reads until it is promoted: many writes, mostly
   * creating documents. The adapter may then apply them in several steps rather than atomically (the checkpoint
   * still moves last) and take a faster path; the documents, indexes and query results are the same.
   */
  bulk?: boolean;
  /**
   * Commits of other projections applied together with this one, all or nothing, in one round trip (a batch of the
   * log committed by every projection at once). Only for read models whose `commitsAlongside` is true, and not with
   * `bulk`. Rejects, writing nothing, if any of them would be refused (StaleCommitError) or is invalid; the caller
   * then commits them one by one to learn which.
   */
  alongside?: readonly Commit[];
}

/**
 * A commit from a projector that lost its lease, into a generation that was replaced, or finding its checkpoint
 * moved (`expectedPosition`): nothing was written.
 */
export class StaleCommitError extends Error {
  override readonly name = 'StaleCommitError';
  constructor(
    readonly reason: 'fence' | 'generation' | 'checkpoint',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Rebuilds without downtime (the Redis read model): a projection's documents are written into a new, staged
 * generation while readers keep reading the live one; `promote` then switches readers and the checkpoint to it in
 * one atomic step, and the old generation is deleted afterwards.
 */
export interface GenerationalReadModel {
  /** The generation the projection's documents are read from and live commits go to (0 before any rebuild). */
  liveGeneration(name: string): Promise<number>;
  /** Documents of a given generation (the projector folds a staged generation onto its own documents). */
  getManyIn(generation: number, collection: string, ids: readonly DocId[]): Promise<(Doc | null)[]>;
  /** Opens a new, empty generation for the projection, replacing any staged one; commits naming it are staged. */
  stageGeneration(name: string, collections: readonly string[]): Promise<number>;
  /** The checkpoint of a staged generation, or null when it is not (or no longer) staged. */
  stagedCheckpoint(name: string, generation: number): Promise<Checkpoint | null>;
  /**
   * Makes the staged generation live, atomically with its checkpoint, if it has applied at least as much of the log
   * as the live one (otherwise returns 'behind' and changes nothing). Returns the retired generation on success.
   */
  promote(name: string, generation: number, collections: readonly string[]): Promise<{ retired: number } | 'behind'>;
  /**
   * Deletes retired generations' documents, each of its collections (once no reader can still be using them), together:
   * an adapter may find them all in one pass. Refuses, deleting nothing, when one of them is live.
   */
  dropGenerations(retired: readonly { collections: readonly string[]; generation: number }[]): Promise<void>;
  /**
   * The build of a staged generation stopped short (it failed): the adapter stops vouching for it, so what it wrote
   * can be swept (on Redis, `palimpsest projections sweep`). A rebuild that dies with its process says nothing; its
   * generation is taken for abandoned once its build lease lapses.
   */
  abandonGeneration?(name: string, generation: number): Promise<void>;
}

export interface ReadModel {
  get(collection: string, id: DocId): Promise<Doc | null>;
  /**
   * What `get` would give, at once, when the adapter has it at hand without waiting (in process; a kept document);
   * undefined when it would have to wait for it. Optional: without it every read waits for `get`.
   */
  peek?(collection: string, id: DocId): Doc | null | undefined;
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
  /** True on read models that take `Commit.alongside`; others are sent one commit per projection. */
  readonly commitsAlongside?: boolean;
  /** Present on read models that can rebuild a projection while still serving the old documents. */
  generations?: GenerationalReadModel;
  /**
   * A hint that the collections are about to be filled from the log by many commits, with nobody reading them
   * until `endBulkLoad` (an embedded start-up replaying the log before it serves, a rebuild): an adapter may
   * defer index upkeep of collections that are empty now and build the indexes once at the end. A query in between
   * must still answer correctly (the memory read model then builds them first).
   */
  beginBulkLoad?(collections: readonly string[]): void;
  /** Ends every bulk load begun: indexes are complete again. */
  endBulkLoad?(): void;
  /**
   * Said by a caller that keeps a document it read and caches what it derives from it by its identity (the
   * presentation cache): while the caller holds it and it does not change, reads give back that same object. A read
   * model that hands out one object per version for other reasons may leave it out.
   */
  keepIdentity?(doc: Doc): void;
  close(): Promise<void>;
}
