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
 * The validation and plan helpers at the top are shared with the Redis adapter, so both adapters accept and
 * reject exactly the same commits and plans.
 */
import type {
  Checkpoint,
  Commit,
  Direction,
  Doc,
  DocId,
  Filter,
  Order,
  QueryPlan,
  QueryResult,
  ReadModel,
  Scalar,
} from '../../ports/readModel';
import { StaleCommitError } from '../../ports/readModel';
import { types } from 'node:util';
import { Arena } from './arena';
import { AdmissionWindow } from '../../core/admissionWindow';

// ---------------------------------------------------------------------------------------------------------
// Shared rules

/** The total order of scalars: numbers numerically, before strings by UTF-16 code units. */
export function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'number') {
    if (typeof b !== 'number') return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** -0 and 0 are one value (JSON cannot tell them apart either). */
function norm(value: Scalar): Scalar {
  return value === 0 ? 0 : value;
}

function invalid(message: string): never {
  throw new TypeError(`read model: ${message}`);
}

/**
 * A small read-only map of field → value, for index entries. A row keeps three of these (sort keys, set values,
 * text columns), with under a dozen fields each, for as long as it lives: a Map costs some 400 bytes of hash
 * table, this one array of alternating names and values. Lookups scan it, which at this size is as fast.
 */
export class FieldMap<V> implements ReadonlyMap<string, V> {
  private readonly pairs: unknown[];

  constructor(pairs: unknown[] = []) {
    // A copy is exactly as long as it needs to be; an array grown by push keeps room for a dozen more.
    this.pairs = pairs.slice();
  }

  static of<V>(entries: Iterable<readonly [string, V]>): FieldMap<V> {
    const pairs: unknown[] = [];
    for (const [name, value] of entries) pairs.push(name, value);
    return new FieldMap<V>(pairs);
  }

  get size(): number {
    return this.pairs.length >> 1;
  }

  get(name: string): V | undefined {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) return pairs[i + 1] as V;
    return undefined;
  }

  has(name: string): boolean {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) return true;
    return false;
  }

  forEach(visit: (value: V, name: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.pairs.length; i += 2) visit.call(thisArg, this.pairs[i + 1] as V, this.pairs[i] as string, this);
  }

  *entries(): MapIterator<[string, V]> {
    for (let i = 0; i < this.pairs.length; i += 2) yield [this.pairs[i] as string, this.pairs[i + 1] as V];
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.pairs.length; i += 2) yield this.pairs[i] as string;
  }

  *values(): MapIterator<V> {
    for (let i = 1; i < this.pairs.length; i += 2) yield this.pairs[i] as V;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}

const NO_FIELDS = new FieldMap<never>();

export interface PreparedEntry {
  sort: ReadonlyMap<string, Scalar>;
  sets: ReadonlyMap<string, Scalar[]>;
  text: ReadonlyMap<string, string>;
  /** Partition fields, distinct, in declaration order. */
  partitions: string[];
}

export interface PreparedWrite {
  collection: string;
  id: Scalar;
  /** The document's JSON (absent for a delete). */
  json?: string;
  /** null deletes. */
  doc: Doc | null;
  entry: PreparedEntry;
}

export interface PreparedCommit {
  writes: PreparedWrite[];
  name: string;
  checkpoint: Checkpoint;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The own enumerable field names of an index part, in Object.entries's order (undefined / null: none). A field
 * holding undefined or null is absent, as JSON would have it: the caller skips it.
 */
function fieldsOf(value: unknown, what: string): string[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) invalid(`index ${what} must be an object`);
  return Object.keys(value);
}

/** Checks an index entry's `partitions` and adds each field to `partitions` once. */
function addPartitions(declared: unknown, partitions: string[]): void {
  if (declared === undefined || declared === null) return;
  if (!Array.isArray(declared)) invalid('index partitions must be a list of set field names');
  for (const field of declared as unknown[]) {
    if (typeof field !== 'string') invalid('index partitions must be a list of set field names');
    if (field === 'id') invalid('`id` cannot be a partition field');
    if (!partitions.includes(field)) partitions.push(field);
  }
}

function prepareEntry(index: unknown): PreparedEntry {
  if (index === undefined || index === null) return { sort: NO_FIELDS, sets: NO_FIELDS, text: NO_FIELDS, partitions: [] };
  if (!isRecord(index)) invalid('index entry must be an object');
  const sort: unknown[] = [];
  const sets: unknown[] = [];
  const text: unknown[] = [];
  const partitions: string[] = [];
  // Fields as Object.entries gives them (each once, so pushing builds a map without repeated names), without a pair
  // array per field: a rebuild prepares every document's entry in one commit.
  for (const field of fieldsOf(index.sort, 'sort')) {
    const value = (index.sort as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    if (field === 'id') invalid('`id` is implicitly a sort key and must not be declared');
    if (!isScalar(value)) invalid(`sort key ${JSON.stringify(field)} must be a finite number or a string`);
    sort.push(field, norm(value));
  }
  for (const field of fieldsOf(index.sets, 'sets')) {
    const value = (index.sets as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    if (field === 'id') invalid('`id` is implicitly a set field and must not be declared');
    if (!Array.isArray(value)) {
      if (!isScalar(value)) invalid(`set field ${JSON.stringify(field)} holds a value that is not a finite number or a string`);
      sets.push(field, [norm(value)]);
      continue;
    }
    const distinct: Scalar[] = [];
    for (const v of value) {
      if (!isScalar(v)) invalid(`set field ${JSON.stringify(field)} holds a value that is not a finite number or a string`);
      const n = norm(v);
      if (!distinct.includes(n)) distinct.push(n);
    }
    // Exactly sized (see FieldMap): most set fields hold one value.
    sets.push(field, distinct.length === 1 ? [distinct[0]!] : distinct.slice());
  }
  for (const column of fieldsOf(index.text, 'text')) {
    const value = (index.text as Record<string, unknown>)[column];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') invalid(`text column ${JSON.stringify(column)} must be a string`);
    text.push(column, value);
  }
  addPartitions(index.partitions, partitions);
  // The maps are made last: FieldMap copies its array.
  return { sort: new FieldMap(sort), sets: new FieldMap(sets), text: new FieldMap(text), partitions: partitions.length === 0 ? [] : partitions.slice() };
}

/** Validates a commit's shape and checkpoint; throws a TypeError naming the first problem. */
function checkCommit(commit: Commit): { name: string; checkpoint: Checkpoint } {
  if (!isRecord(commit) || !Array.isArray(commit.writes) || !isRecord(commit.checkpoint)) {
    invalid('a commit needs writes and a checkpoint');
  }
  const { name, position, version } = commit.checkpoint;
  if (typeof name !== 'string' || name === '') invalid('checkpoint name must be a non-empty string');
  if (!Number.isSafeInteger(position) || position < 0) invalid('checkpoint position must be a non-negative integer');
  if (!Number.isSafeInteger(version)) invalid('checkpoint version must be an integer');
  const expected = commit.expectedPosition;
  if (expected !== undefined && expected !== null && !(Number.isSafeInteger(expected) && expected >= 0)) invalid('expectedPosition must be null or a non-negative integer');
  return { name, checkpoint: { position, version } };
}

/** Validates one write's collection, id and document shape (not yet its serialisation). */
function checkWrite(write: unknown, n: number): { collection: string; id: Scalar; doc: Record<string, unknown> | null; json?: string } {
  if (!isRecord(write)) invalid(`write ${n} is not an object`);
  const { collection, doc, json } = write;
  if (json !== undefined && typeof json !== 'string') invalid(`write ${n}: json must be a string`);
  if (typeof collection !== 'string' || collection === '') invalid(`write ${n}: collection must be a non-empty string`);
  if (!isScalar(write.id)) invalid(`write ${n}: id must be a finite number or a string`);
  const id = norm(write.id);
  if (doc === null) return { collection, id, doc: null };
  if (!isRecord(doc)) invalid(`write ${n}: doc must be an object or null`);
  return { collection, id, doc, json };
}

/**
 * Validates a whole commit before anything is applied; throws a TypeError naming the first problem. Documents are
 * copied through JSON (and their JSON kept). With `copies` false (a read model that keeps only the JSON) they are
 * serialised but not parsed back, and `doc` is the caller's.
 */
export function prepareCommit(commit: Commit, copies = true): PreparedCommit {
  const { name, checkpoint } = checkCommit(commit);
  const writes = commit.writes.map((write, n): PreparedWrite => {
    const { collection, id, doc, json: given } = checkWrite(write, n);
    if (doc === null) return { collection, id, doc: null, entry: prepareEntry(undefined) };
    let json: string | undefined;
    let copy: unknown;
    try {
      json = given ?? JSON.stringify(doc);
      copy = typeof json !== 'string' ? undefined : copies ? JSON.parse(json) : json.charCodeAt(0) === 0x7b ? doc : undefined;
    } catch (error) {
      invalid(`write ${n}: doc cannot be serialised (${(error as Error).message})`);
    }
    if (!isRecord(copy)) invalid(`write ${n}: doc does not serialise to a JSON object`);
    if (copy.id !== id) invalid(`write ${n}: doc.id ${JSON.stringify(copy.id)} is not the write's id ${JSON.stringify(id)}`);
    return { collection, id, json, doc: copy as Doc, entry: prepareEntry(write.index) };
  });
  return { writes, name, checkpoint };
}

function checkValues(values: unknown, where: string): void {
  if (!Array.isArray(values) || !values.every(isScalar)) invalid(`${where}: values must be finite numbers or strings`);
}

function checkStrings(values: unknown, where: string): void {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) invalid(`${where} must be strings`);
}

function checkFilter(filter: Filter): void {
  if (!isRecord(filter)) invalid('a filter must be an object');
  switch (filter.kind) {
    case 'any':
    case 'all':
    case 'none':
      if (typeof filter.field !== 'string') invalid(`${filter.kind} filter needs a field`);
      checkValues(filter.values, `${filter.kind} filter`);
      return;
    case 'range':
      if (typeof filter.field !== 'string') invalid('range filter needs a field');
      for (const bound of [filter.gt, filter.gte, filter.lt, filter.lte]) {
        if (bound !== undefined && !isScalar(bound)) invalid('range bounds must be finite numbers or strings');
      }
      return;
    case 'text':
      checkStrings(filter.fields, 'text filter fields');
      checkStrings(filter.includes, 'text filter includes');
      checkStrings(filter.excludes, 'text filter excludes');
      return;
    case 'or':
    case 'and':
      if (!Array.isArray(filter.filters)) invalid(`${filter.kind} filter needs filters`);
      filter.filters.forEach(checkFilter);
      return;
    default:
      invalid(`unknown filter kind ${JSON.stringify((filter as { kind: unknown }).kind)}`);
  }
}

function checkDirection(direction: unknown): void {
  if (direction !== 'asc' && direction !== 'desc') invalid('direction must be asc or desc');
}

/** Validates a plan; both adapters call it first, so they reject the same plans. */
export function checkPlan(plan: QueryPlan): void {
  if (!isRecord(plan) || !Array.isArray(plan.filters)) invalid('a plan needs filters');
  if (!Number.isSafeInteger(plan.offset) || plan.offset < 0) invalid('offset must be a non-negative integer');
  if (plan.limit !== null && (!Number.isSafeInteger(plan.limit) || plan.limit < 0)) {
    invalid('limit must be null or a non-negative integer');
  }
  plan.filters.forEach(checkFilter);
  const order: Order = plan.order;
  if (!isRecord(order)) invalid('a plan needs an order');
  switch (order.kind) {
    case 'field':
      if (typeof order.field !== 'string') invalid('field order needs a field');
      checkDirection(order.direction);
      return;
    case 'list':
      if (typeof order.field !== 'string') invalid('list order needs a field');
      checkValues(order.values, 'list order');
      return;
    case 'relevance':
      if (typeof order.phrase !== 'string') invalid('relevance order needs a phrase');
      checkStrings(order.terms, 'relevance terms');
      if (!isRecord(order.columns)) invalid('relevance order needs columns');
      checkStrings([order.columns.title, order.columns.excerpt, order.columns.content], 'relevance columns');
      if (!isRecord(order.tieBreak) || typeof order.tieBreak.field !== 'string') invalid('relevance order needs `tieBreak`');
      checkDirection(order.tieBreak.direction);
      return;
    default:
      invalid(`unknown order kind ${JSON.stringify((order as { kind: unknown }).kind)}`);
  }
}

/** A range filter's bounds, the tighter of gt/gte and of lt/lte. */
export interface Bounds {
  lo?: Scalar;
  loIncl: boolean;
  hi?: Scalar;
  hiIncl: boolean;
}

export function rangeBounds(filter: Extract<Filter, { kind: 'range' }>): Bounds {
  const bounds: Bounds = { loIncl: true, hiIncl: true };
  if (filter.gte !== undefined) bounds.lo = norm(filter.gte);
  if (filter.gt !== undefined && (bounds.lo === undefined || compareScalars(filter.gt, bounds.lo) >= 0)) {
    bounds.lo = norm(filter.gt);
    bounds.loIncl = false;
  }
  if (filter.lte !== undefined) bounds.hi = norm(filter.lte);
  if (filter.lt !== undefined && (bounds.hi === undefined || compareScalars(filter.lt, bounds.hi) <= 0)) {
    bounds.hi = norm(filter.lt);
    bounds.hiIncl = false;
  }
  return bounds;
}

export function aboveLo(key: Scalar, b: Bounds): boolean {
  if (b.lo === undefined) return true;
  const c = compareScalars(key, b.lo);
  return c > 0 || (c === 0 && b.loIncl);
}

export function belowHi(key: Scalar, b: Bounds): boolean {
  if (b.hi === undefined) return true;
  const c = compareScalars(key, b.hi);
  return c < 0 || (c === 0 && b.hiIncl);
}

/** Search terms as matched: lowercased, empty ones dropped, duplicates dropped. */
export function searchTerms(terms: readonly string[]): string[] {
  return [...new Set(terms.filter((t) => t !== '').map((t) => t.toLowerCase()))];
}

export function distinctValues(values: readonly Scalar[]): Scalar[] {
  return [...new Set(values.map(norm))];
}

/** A plan both adapters can page by rank within one partition (see IndexEntry.partitions). */
export interface PartitionShape {
  field: string;
  value: Scalar;
  /** The order's sort key, or `id`. */
  order: string;
  direction: Direction;
  /** A range filter on the order key itself (never on `id`). */
  bounds?: Bounds;
}

/**
 * The partition shape of a plan: ordered by a field, filtered by exactly one value of one set field (`any` with
 * one distinct value) and at most a range on the order key, nested `and`s flattened. Anything else: null.
 */
export function partitionShape(plan: QueryPlan): PartitionShape | null {
  const order = plan.order;
  if (order.kind !== 'field') return null;
  const flat: Filter[] = [];
  const flatten = (filters: readonly Filter[]) => {
    for (const f of filters) {
      if (f.kind === 'and') flatten(f.filters);
      else flat.push(f);
    }
  };
  flatten(plan.filters);
  let part: { field: string; value: Scalar } | undefined;
  let range: Extract<Filter, { kind: 'range' }> | undefined;
  for (const f of flat) {
    if (f.kind === 'any' && f.field !== 'id' && part === undefined) {
      const values = distinctValues(f.values);
      if (values.length !== 1) return null;
      part = { field: f.field, value: values[0]! };
    } else if (f.kind === 'range' && f.field === order.field && order.field !== 'id' && range === undefined) {
      range = f;
    } else return null;
  }
  if (part === undefined) return null;
  const shape: PartitionShape = { ...part, order: order.field, direction: order.direction };
  if (range !== undefined) shape.bounds = rangeBounds(range);
  return shape;
}


// ---------------------------------------------------------------------------------------------------------
// Storage

/**
 * The names of a row's index fields, shared by every row declaring the same ones (interned per read model): a
 * row keeps only its values, in one array, instead of three maps of its own.
 */
export interface Layout {
  readonly key: string;
  /** Sort keys; the row's values start with theirs, in this order. */
  readonly sortNames: readonly string[];
  /** Set fields; their values follow the sort keys', field after field: [setStarts[i], setEnds[i]). */
  readonly setNames: readonly string[];
  readonly setStarts: readonly number[];
  readonly setEnds: readonly number[];
  /** Text columns, kept in the text arena (see Row.text). */
  readonly textNames: readonly string[];
  /**
   * Per text column: the document's own field of the same name holds exactly this text, so the stored JSON holds a
   * placeholder there and parsing puts the text back (a post's body is kept once, not twice).
   */
  readonly elided: readonly boolean[];
  readonly anyElided: boolean;
  /** Partition fields, distinct, in declaration order. */
  readonly partitions: readonly string[];
}

/** One stored document. A Row lives as long as its document and is updated in place, so indexes hold Rows. */
class Row {
  /** Its place in the collection's slot table (RowBits); a deleted row's slot is given to a later one. */
  slot = -1;
  layout: Layout = EMPTY_LAYOUT;
  /** Sort key values then set values (see Layout). */
  values: Scalar[] = NO_VALUES;
  /**
   * The document's JSON in the collection's doc arena (its location; the arena knows its length: two fields less
   * on each of 300,000 rows at 100,000 posts); -1 once deleted.
   */
  doc = -1;
  /**
   * Its text columns in the collection's text arena (location): a header of one u32 byte length per column, then
   * each column as UTF-8, as `textMatcher` reads it (an ASCII column as it is, any other lowercased). -1: none, or
   * kept as strings in `Collection.looseText` (a column that UTF-8 cannot hold: a lone surrogate).
   */
  text = -1;
  /**
   * The parsed document a caller keeps (ReadModel.keepIdentity), while it is alive; otherwise the number of the
   * version parsed documents were last made of, which a write moves on (so a document parsed before it is not kept).
   */
  held: WeakRef<Doc> | number = 0;

  constructor(readonly id: Scalar) {}
}

const NO_VALUES: Scalar[] = [];
const NO_NAMES: string[] = [];
const EMPTY_LAYOUT: Layout = { key: '', sortNames: NO_NAMES, setNames: NO_NAMES, setStarts: [], setEnds: [], textNames: NO_NAMES, elided: [], anyElided: false, partitions: NO_NAMES };

function sortKeyOf(row: Row, field: string): Scalar | undefined {
  if (field === 'id') return row.id;
  const names = row.layout.sortNames;
  for (let i = 0; i < names.length; i++) if (names[i] === field) return row.values[i];
  return undefined;
}

function hasSortKey(row: Row, field: string): boolean {
  return row.layout.sortNames.includes(field);
}

function hasSetValue(row: Row, field: string, value: Scalar): boolean {
  const { setNames, setStarts, setEnds } = row.layout;
  for (let i = 0; i < setNames.length; i++) {
    if (setNames[i] !== field) continue;
    for (let j = setStarts[i]!; j < setEnds[i]!; j++) if (row.values[j] === value) return true;
    return false;
  }
  return false;
}

function* sortEntries(row: Row): Generator<[string, Scalar]> {
  const names = row.layout.sortNames;
  for (let i = 0; i < names.length; i++) yield [names[i]!, row.values[i]!];
}

function* setEntries(row: Row): Generator<[string, Scalar]> {
  const { setNames, setStarts, setEnds } = row.layout;
  for (let i = 0; i < setNames.length; i++) for (let j = setStarts[i]!; j < setEnds[i]!; j++) yield [setNames[i]!, row.values[j]!];
}

interface Entry {
  key: Scalar;
  row: Row;
}

const CHUNK = 512;

/**
 * A run of entries: keys and rows in two arrays rather than an object per entry (16 entries per post, each an
 * object with a boxed number for a date key, were ~0.5 KB of every post's memory).
 */
interface Chunk {
  keys: Scalar[];
  rows: Row[];
}

/** Entries ordered by (key, id) in sorted chunks of CHUNK..2*CHUNK entries. */
class OrderIndex {
  private chunks: Chunk[] = [];
  size = 0;

  /**
   * An index of the entries (keys[i], rows[i]), which it sorts (a bulk build: one sort instead of an insert each).
   * Sorts positions rather than an object per entry: a start-up replay or snapshot load at 100,000 posts made 800,000
   * of them, all alive until the sort ended, so the collector copied them into the old generation first.
   */
  static of(keys: Scalar[], rows: Row[]): OrderIndex {
    const n = keys.length;
    // Often in order already (ids, and dates of a site written in date order): one pass finds it.
    let sorted = true;
    for (let i = 1; i < n; i++) {
      if ((compareScalars(keys[i - 1]!, keys[i]!) || compareScalars(rows[i - 1]!.id, rows[i]!.id)) > 0) {
        sorted = false;
        break;
      }
    }
    let orderedKeys = keys;
    let orderedRows = rows;
    if (!sorted) {
      const order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((a, b) => compareScalars(keys[a]!, keys[b]!) || compareScalars(rows[a]!.id, rows[b]!.id));
      orderedKeys = [];
      orderedRows = [];
      for (let i = 0; i < n; i++) {
        orderedKeys.push(keys[order[i]!]!);
        orderedRows.push(rows[order[i]!]!);
      }
    }
    const index = new OrderIndex();
    // Slices: each chunk exactly sized.
    for (let i = 0; i < n; i += CHUNK) index.chunks.push({ keys: orderedKeys.slice(i, i + CHUNK), rows: orderedRows.slice(i, i + CHUNK) });
    index.size = n;
    return index;
  }

  /** The first position at or after which `pred` holds (pred: false then true along the order). */
  private firstWhere(pred: (key: Scalar, row: Row) => boolean): [number, number] {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = chunks[mid]!;
      const last = chunk.keys.length - 1;
      if (pred(chunk.keys[last]!, chunk.rows[last]!)) hi = mid;
      else lo = mid + 1;
    }
    if (lo === chunks.length) return [lo, 0];
    const chunk = chunks[lo]!;
    let a = 0;
    let b = chunk.keys.length - 1;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (pred(chunk.keys[mid]!, chunk.rows[mid]!)) b = mid;
      else a = mid + 1;
    }
    return [lo, a];
  }

  private rankOf([ci, i]: [number, number]): number {
    let rank = i;
    for (let c = 0; c < ci; c++) rank += this.chunks[c]!.keys.length;
    return rank;
  }

  /** The first position at or after the entry's place in the order. */
  private placeOf(entry: Entry): [number, number] {
    return this.firstWhere((key, row) => (compareScalars(key, entry.key) || compareScalars(row.id, entry.row.id)) >= 0);
  }

  insert(entry: Entry): void {
    if (this.chunks.length === 0) {
      this.chunks.push({ keys: [entry.key], rows: [entry.row] });
      this.size = 1;
      return;
    }
    let [ci, i] = this.placeOf(entry);
    if (ci === this.chunks.length) {
      ci -= 1;
      i = this.chunks[ci]!.keys.length;
    }
    const chunk = this.chunks[ci]!;
    chunk.keys.splice(i, 0, entry.key);
    chunk.rows.splice(i, 0, entry.row);
    this.size++;
    if (chunk.keys.length > 2 * CHUNK) {
      // Both halves copied: the array that grew to 2 * CHUNK entries keeps its capacity (~2.3 * CHUNK slots) when
      // cut, which after seeding 100,000 posts in date order was ~20 MB of empty slots.
      const { keys, rows } = chunk;
      chunk.keys = keys.slice(0, CHUNK);
      chunk.rows = rows.slice(0, CHUNK);
      this.chunks.splice(ci + 1, 0, { keys: keys.slice(CHUNK), rows: rows.slice(CHUNK) });
    }
  }

  remove(entry: Entry): void {
    const [ci, i] = this.placeOf(entry);
    const chunk = this.chunks[ci];
    if (chunk === undefined || chunk.rows[i] !== entry.row) return;
    chunk.keys.splice(i, 1);
    chunk.rows.splice(i, 1);
    this.size--;
    if (chunk.keys.length === 0) this.chunks.splice(ci, 1);
  }

  /** How many entries have keys within the bounds. */
  count(b: Bounds): number {
    const start = b.lo === undefined ? 0 : this.rankOf(this.firstWhere((key) => aboveLo(key, b)));
    const end = b.hi === undefined ? this.size : this.rankOf(this.firstWhere((key) => !belowHi(key, b)));
    return Math.max(0, end - start);
  }

  /**
   * Visits the entries within `b` in the direction, after skipping `skip` of them, until `visit` returns true.
   * The entry handed to `visit` is one object reused along the walk: read it, do not keep it.
   */
  each(direction: Direction, b: Bounds | undefined, skip: number, visit: (e: Entry) => boolean): void {
    const chunks = this.chunks;
    const e = { key: 0 as Scalar, row: undefined as unknown as Row };
    if (direction === 'asc') {
      let [ci, i] = b?.lo === undefined ? [0, 0] : this.firstWhere((key) => aboveLo(key, b));
      while (skip > 0 && ci < chunks.length) {
        const room = chunks[ci]!.keys.length - i;
        if (skip < room) {
          i += skip;
          skip = 0;
        } else {
          skip -= room;
          ci++;
          i = 0;
        }
      }
      for (; ci < chunks.length; ci++, i = 0) {
        const { keys, rows } = chunks[ci]!;
        for (; i < keys.length; i++) {
          e.key = keys[i]!;
          e.row = rows[i]!;
          if (b !== undefined && !belowHi(e.key, b)) return;
          if (visit(e)) return;
        }
      }
    } else {
      let ci: number;
      let i: number;
      if (b?.hi === undefined) {
        ci = chunks.length - 1;
        i = ci >= 0 ? chunks[ci]!.keys.length - 1 : -1;
      } else {
        [ci, i] = this.firstWhere((key) => !belowHi(key, b));
        i -= 1;
        if (i < 0) {
          ci -= 1;
          i = ci >= 0 ? chunks[ci]!.keys.length - 1 : -1;
        }
      }
      while (skip > 0 && ci >= 0) {
        if (skip <= i) {
          i -= skip;
          skip = 0;
        } else {
          skip -= i + 1;
          ci--;
          i = ci >= 0 ? chunks[ci]!.keys.length - 1 : -1;
        }
      }
      for (; ci >= 0; ci--, i = ci >= 0 ? chunks[ci]!.keys.length - 1 : -1) {
        const { keys, rows } = chunks[ci]!;
        for (; i >= 0; i--) {
          e.key = keys[i]!;
          e.row = rows[i]!;
          if (b !== undefined && !aboveLo(e.key, b)) return;
          if (visit(e)) return;
        }
      }
    }
  }
}

const TEXT_MATCHES_KEPT = 32;

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_LETTER = /[a-z]/;
/** A lone surrogate: UTF-8 cannot hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether a stored text column contains a search term (lowercased), as `lowercased column includes term`. ASCII
 * columns are stored as they are, others lowercased (most sites' text is ASCII, and an ASCII column kept as it is
 * can stand for the document's own field: see Layout.elided). A non-ASCII term cannot occur in a lowercased ASCII
 * column, and occurs in a lowercased one exactly where `includes` finds it. An ASCII term with letters is matched
 * by a case-insensitive RegExp: without the `u` flag it folds ASCII letters only (no non-ASCII character folds to
 * an ASCII one), so in an ASCII column it matches where the lowercased column contains the term, and in a
 * lowercased column (whose ASCII letters are all lowercase) exactly where `includes` does.
 */
export function textMatcher(term: string): (text: string) => boolean {
  if (ASCII.test(term) && ASCII_LETTER.test(term)) {
    const pattern = new RegExp(escapeRegExp(term), 'i');
    return (text) => pattern.test(text);
  }
  // No letters (case cannot matter) or not ASCII (see above).
  return (text) => text.includes(term);
}

function escapeRegExp(term: string): string {
  return term.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** What decides a row's places in the partition orders. */
interface PartitionView {
  layout: Layout;
  values: Scalar[];
}

function samePartitioning(a: PartitionView, b: PartitionView): boolean {
  const pa = a.layout.partitions;
  const pb = b.layout.partitions;
  if (pa.length !== pb.length || pa.some((f, i) => f !== pb[i])) return false;
  const sa = a.layout.sortNames;
  const sb = b.layout.sortNames;
  if (sa.length !== sb.length) return false;
  for (let i = 0; i < sa.length; i++) {
    const j = sb.indexOf(sa[i]!);
    if (j < 0 || b.values[j] !== a.values[i]) return false;
  }
  for (const field of pa) {
    const x = valuesIn(a, field);
    const y = valuesIn(b, field);
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
  }
  return true;
}

/** A row's sort key (or id) as a view of its layout and values gives it. */
function sortKeyIn(view: PartitionView, id: Scalar, key: string): Scalar | undefined {
  if (key === 'id') return id;
  const i = view.layout.sortNames.indexOf(key);
  return i < 0 ? undefined : view.values[i];
}

function hasValueIn(view: PartitionView, field: string, value: Scalar): boolean {
  const { setNames, setStarts, setEnds } = view.layout;
  const i = setNames.indexOf(field);
  if (i < 0) return false;
  for (let j = setStarts[i]!; j < setEnds[i]!; j++) if (view.values[j] === value) return true;
  return false;
}

function valuesIn(view: PartitionView, field: string): Scalar[] {
  const { setNames, setStarts, setEnds } = view.layout;
  const i = setNames.indexOf(field);
  return i < 0 ? NO_VALUES : view.values.slice(setStarts[i], setEnds[i]);
}

/** Rows as queries read a set index's members. */
interface RowSet {
  has(row: Row): boolean;
  readonly size: number;
  [Symbol.iterator](): Iterator<Row>;
}

/**
 * The members of a large set (a status most rows share) as one bit per row slot (Row.slot): 100,000 rows cost
 * 12.5 KB instead of a hash-set entry (some 24 bytes) each. Rows are those of one collection only.
 */
class RowBits implements RowSet {
  private words: Uint32Array;
  size = 0;

  constructor(
    private readonly slots: readonly (Row | undefined)[],
    members: Iterable<Row>,
  ) {
    this.words = new Uint32Array(((slots.length + 31) >>> 5) + 1);
    for (const row of members) this.add(row);
  }

  has(row: Row): boolean {
    const word = row.slot >>> 5;
    return word < this.words.length && (this.words[word]! & (1 << (row.slot & 31))) !== 0;
  }

  add(row: Row): void {
    const word = row.slot >>> 5;
    if (word >= this.words.length) {
      const grown = new Uint32Array(Math.max(word + 1, this.words.length * 2));
      grown.set(this.words);
      this.words = grown;
    }
    const bit = 1 << (row.slot & 31);
    if ((this.words[word]! & bit) === 0) {
      this.words[word]! |= bit;
      this.size++;
    }
  }

  delete(row: Row): void {
    const word = row.slot >>> 5;
    const bit = 1 << (row.slot & 31);
    if (word < this.words.length && (this.words[word]! & bit) !== 0) {
      this.words[word]! &= ~bit;
      this.size--;
    }
  }

  *[Symbol.iterator](): Iterator<Row> {
    const { words, slots } = this;
    for (let w = 0; w < words.length; w++) {
      let bits = words[w]!;
      while (bits !== 0) {
        const low = bits & -bits;
        yield slots[(w << 5) + 31 - Math.clz32(low)]!;
        bits ^= low;
      }
    }
  }
}

/**
 * A set index's members: the one Row when only one row holds the value (a slug: one per post), a Set for a few,
 * RowBits for many (when a hash-set entry each would cost more than a bit for every row of the collection).
 */
type Members = Row | Set<Row> | RowBits;

/** A Set of members becomes RowBits at this share of the collection's slots, and back below a quarter of it. */
const BITS_SHARE = 1 / 128;
const BITS_MIN = 64;

function membersAsSet(members: Members | undefined): RowSet | undefined {
  return members === undefined ? undefined : members instanceof Row ? new Set([members]) : members;
}

/**
 * The collection's rows by id: a hash table of row slots (+1; 0 is an empty bucket) in an Int32Array, probed
 * linearly, a row found by its slot (Collection.slots). At 100,000 posts each of the three collections' `Map`s of
 * id → row was a 3.5 MB hash table on the V8 heap; this is 1 MB each, outside it. Rows are listed in slot order.
 *
 * Beside each bucket, a byte of its id's hash (the top 8 bits, which no table index uses): a probe compares it before
 * reading the row's id, so a bucket holding another id is passed over without touching its row. A lookup that finds
 * nothing (every document a start-up replay creates is looked for first) read a row or two at random places of the
 * heap, each a cache miss: 7% of a 100,000-post replay.
 */
class RowsById {
  private table = new Int32Array(16);
  private tags = new Uint8Array(16);
  size = 0;

  constructor(private readonly slots: readonly (Row | undefined)[]) {}

  get(id: Scalar): Row | undefined {
    const { table, tags, slots } = this;
    const mask = table.length - 1;
    const h = hashOf(id);
    const tag = h >>> 24;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = table[i]!;
      if (entry === 0) return undefined;
      if (tags[i] !== tag) continue;
      const row = slots[entry - 1]!;
      if (row.id === id) return row;
    }
  }

  /** Adds a row whose id is not in the table yet, once it holds its slot. */
  add(row: Row): void {
    if ((this.size + 1) * 2 > this.table.length) this.grow(row);
    this.place(row.slot + 1, hashOf(row.id));
    this.size++;
  }

  /** Removes a row of the table, while it still holds its slot. */
  delete(row: Row): void {
    const { table, tags, slots } = this;
    const mask = table.length - 1;
    let i = hashOf(row.id) & mask;
    while (table[i] !== row.slot + 1) i = (i + 1) & mask;
    // Backward shift: the entries after the gap that could sit in it move into it, so no probe ever stops early.
    for (;;) {
      table[i] = 0;
      let j = i;
      for (;;) {
        j = (j + 1) & mask;
        const entry = table[j]!;
        if (entry === 0) {
          this.size--;
          if (this.size * 8 < table.length && table.length > 16) this.resize(table.length / 2);
          return;
        }
        const home = hashOf(slots[entry - 1]!.id) & mask;
        // The entry stays when its home is cyclically within (i, j].
        if (i <= j ? i < home && home <= j : i < home || home <= j) continue;
        table[i] = entry;
        tags[i] = tags[j]!;
        i = j;
        break;
      }
    }
  }

  *values(): Generator<Row> {
    for (const row of this.slots) if (row !== undefined) yield row;
  }

  private place(entry: number, hash: number): void {
    const { table, tags } = this;
    const mask = table.length - 1;
    let i = hash & mask;
    while (table[i] !== 0) i = (i + 1) & mask;
    table[i] = entry;
    tags[i] = hash >>> 24;
  }

  /**
   * Doubles the table. Every row holding a slot but `adding` has an entry (a row leaves the table only on its way out
   * of its slot), so the rows are placed in slot order: read in the order they were made, mostly next to each other in
   * the heap, where the table's order reads them at random (the table doubles 14 times on the way to 100,000 rows).
   */
  private grow(adding: Row): void {
    const length = this.table.length * 2;
    this.table = new Int32Array(length);
    this.tags = new Uint8Array(length);
    for (const row of this.slots) if (row !== undefined && row !== adding) this.place(row.slot + 1, hashOf(row.id));
  }

  /** Rehashes the entries (not the slots: a row being deleted still holds its slot). */
  private resize(length: number): void {
    const old = this.table;
    this.table = new Int32Array(length);
    this.tags = new Uint8Array(length);
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.place(old[i]!, hashOf(this.slots[old[i]! - 1]!.id));
  }
}

/** A well-mixed 32-bit hash of an id: integers as they are, other numbers and strings by their characters. */
function hashOf(id: Scalar): number {
  let h: number;
  if (typeof id === 'number' && (id | 0) === id) h = id;
  else {
    const text = typeof id === 'number' ? String(id) : id;
    h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A write ready to apply: validated, serialised, its index entry laid out. */
interface StoredWrite {
  collection: string;
  id: Scalar;
  /** null deletes. */
  json: string | null;
  jsonBytes: number;
  layout: Layout;
  values: Scalar[];
  /** Text columns as stored (see Row.text), in layout order. */
  texts: string[];
  textBytes: number[];
  /** Some column holds a lone surrogate: kept as strings. */
  loose: boolean;
}

/** One stored row as a snapshot keeps it: its layout, values and the bytes of its document and text. */
export interface StoredRow {
  collection: string;
  id: Scalar;
  layout: LayoutDefinition;
  values: Scalar[];
  /** The document's stored JSON (with placeholders where Layout.elided). */
  doc: Uint8Array;
  /** Its text record (see Row.text), or null. */
  text: Uint8Array | null;
  /** Text columns kept as strings (see Row.text), or null. */
  looseText: string[] | null;
}

/** What names a layout: the field names and, per set field, how many values it holds. */
export interface LayoutDefinition {
  sort: string[];
  sets: string[];
  counts: number[];
  text: string[];
  elided: boolean[];
  partitions: string[];
}

/** Value arrays of at most this many values are shared between rows (Collection.sharedValues)... */
const SHARED_VALUES_MAX = 8;
/** ...while there are at most this many different ones. */
const SHARED_VALUES_KEPT = 4096;

/** The collection's rows, their bytes and their indexes. */
class Collection {
  /** Rows by slot (RowBits, RowsById), with the slots deleted rows left free. */
  readonly slots: (Row | undefined)[] = [];
  readonly rows = new RowsById(this.slots);
  private readonly freeSlots: number[] = [];
  /**
   * The rows' bytes, each record owned by its row's slot. A dead record's slot may hold a later row by then: that
   * row's record is elsewhere (a location names one record), so it is not taken for the owner.
   */
  readonly docs = new Arena({ isLive: (slot, at) => this.slots[slot]?.doc === at, moved: (slot, _from, to) => (this.slots[slot]!.doc = to) });
  readonly texts = new Arena({ isLive: (slot, at) => this.slots[slot]?.text === at, moved: (slot, _from, to) => (this.slots[slot]!.text = to) });
  /** Text columns of rows whose text UTF-8 cannot hold (see Row.text). */
  readonly looseText = new Map<Row, string[]>();
  /**
   * Order indexes made so far, by sort key (`id` for the ids): each is made at the first plan that needs it (a
   * range, a page by that key) and kept up to date from then on. A site pages and filters by one or two keys:
   * at 100,000 posts, every key of every row (seven per post, ids of all three collections) kept up front was
   * ~1.1 million entries, ~13 MB of heap for orders no request ever used, and an insert each on every write.
   */
  private readonly orders = new Map<string, OrderIndex>();
  /** Per sort key, how many rows have it (an order exists for a key while this is above 0). */
  private readonly sortKeyRows = new Map<string, number>();
  readonly sets = new Map<string, Map<Scalar, Members>>();
  /**
   * The rows matching a text filter (by its columns and terms), found by one scan and kept until the next
   * write to the collection: a search asked again (the same words, another page, another order) is then a
   * set lookup. A few recent searches only; a write empties them all, so none is ever stale.
   */
  readonly textMatches = new Map<string, Set<Row>>();
  /**
   * Bulk loading (ReadModel.beginBulkLoad, a snapshot load): rows are kept up to date but the indexes are not;
   * `indexAll` builds them once, sorting each order instead of inserting into it row by row. Any query builds
   * them first, so results never depend on it.
   */
  deferred = false;

  /**
   * Short value arrays (`SHARED_VALUES_MAX`) held by several rows, as one array: rows are updated by replacing
   * theirs, never in place. A post's term-membership row holds its categories and tags, one of a few dozen
   * combinations on most sites: at 100,000 posts, 100,000 arrays of ~64 bytes. Emptied when it holds
   * SHARED_VALUES_KEPT (ids and other values every row has its own of come and go).
   */
  private readonly sharedValues = new Map<string, Scalar[]>();

  private shared(values: Scalar[]): Scalar[] {
    if (values.length === 0 || values.length > SHARED_VALUES_MAX) return values;
    // Length-prefixed strings: no value can be mistaken for a separator or a number.
    let key = '';
    for (const v of values) key += typeof v === 'number' ? `n${v};` : `s${v.length}:${v}`;
    const known = this.sharedValues.get(key);
    if (known !== undefined) return known;
    if (this.sharedValues.size >= SHARED_VALUES_KEPT) this.sharedValues.clear();
    this.sharedValues.set(key, values);
    return values;
  }

  /** A write changes what text filters match. Map.clear makes a new table even when empty: a replay writes 300,000 rows. */
  private forgetTextMatches(): void {
    if (this.textMatches.size > 0) this.textMatches.clear();
  }

  /** Stores the row's bytes, then moves it in the indexes from its old entry to the new one. */
  put(write: StoredWrite, forget: (row: Row) => void): void {
    this.forgetTextMatches();
    let row = this.rows.get(write.id);
    const fresh = row === undefined;
    if (row === undefined) {
      row = this.newRow(write.id);
      this.rows.add(row);
    } else forget(row);
    this.storeBytes(row, write);
    this.reindex(row, fresh, write.layout, this.shared(write.values));
  }

  /** Puts a row loaded from a snapshot (bytes copied as they are); the collection is deferred. */
  putStored(id: Scalar, layout: Layout, values: Scalar[], doc: Uint8Array, text: Uint8Array | null, looseText: string[] | null): void {
    let row = this.rows.get(id);
    if (row === undefined) this.rows.add((row = this.newRow(id)));
    else this.freeBytes(row);
    row.doc = this.docs.writeBytes(doc, row.slot);
    if (text !== null) row.text = this.texts.writeBytes(text, row.slot);
    else if (looseText !== null) this.looseText.set(row, looseText);
    row.layout = layout;
    row.values = this.shared(values);
  }

  private newRow(id: Scalar): Row {
    const row = new Row(id);
    row.slot = this.freeSlots.pop() ?? this.slots.length;
    this.slots[row.slot] = row;
    return row;
  }

  private storeBytes(row: Row, write: StoredWrite): void {
    this.freeBytes(row);
    row.doc = this.docs.writeString(write.json!, write.jsonBytes, row.slot);
    const k = write.texts.length;
    if (k === 0) return;
    if (write.loose) {
      this.looseText.set(row, write.texts);
      return;
    }
    let total = 4 * k;
    for (const n of write.textBytes) total += n;
    const { bytes, offset, location } = this.texts.reserve(total, row.slot);
    let at = offset + 4 * k;
    for (let i = 0; i < k; i++) {
      bytes.writeUInt32LE(write.textBytes[i]!, offset + 4 * i);
      if (write.textBytes[i]! > 0) bytes.write(write.texts[i]!, at, write.textBytes[i]!, 'utf8');
      at += write.textBytes[i]!;
    }
    row.text = location;
  }

  private freeBytes(row: Row): void {
    if (row.doc >= 0) {
      const at = row.doc;
      row.doc = -1;
      this.docs.release(at);
    }
    if (row.text >= 0) {
      const at = row.text;
      row.text = -1;
      this.texts.release(at);
    }
    this.looseText.delete(row);
  }

  /** The stored JSON of a row. */
  json(row: Row): string {
    return this.docs.readString(row.doc, this.docs.lengthOf(row.doc));
  }

  /** A text column as stored (see Row.text): '' when the row has none. */
  textOf(row: Row, column: string): string {
    const i = row.layout.textNames.indexOf(column);
    if (i < 0) return '';
    return this.textAt(row, i);
  }

  textAt(row: Row, i: number): string {
    const loose = this.looseText.get(row);
    if (loose !== undefined) return loose[i] ?? '';
    if (row.text < 0) return '';
    const { bytes, offset } = this.texts.at(row.text);
    let start = offset + 4 * row.layout.textNames.length;
    for (let c = 0; c < i; c++) start += bytes.readUInt32LE(offset + 4 * c);
    return bytes.toString('utf8', start, start + bytes.readUInt32LE(offset + 4 * i));
  }

  /** The stored bytes of a row, for a snapshot (views, valid until the next write). */
  bytesOf(row: Row): { doc: Uint8Array; text: Uint8Array | null; looseText: string[] | null } {
    return {
      doc: this.docs.view(row.doc, this.docs.lengthOf(row.doc)),
      text: row.text >= 0 ? this.texts.view(row.text, this.texts.lengthOf(row.text)) : null,
      looseText: this.looseText.get(row) ?? null,
    };
  }

  delete(id: Scalar, forget: (row: Row) => void): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.forgetTextMatches();
    forget(row);
    this.freeBytes(row);
    this.rows.delete(row);
    // Its slot is free once it has left every set (below, or never joined one while deferred).
    const freeSlot = () => {
      this.slots[row.slot] = undefined;
      this.freeSlots.push(row.slot);
    };
    if (this.deferred) {
      freeSlot();
      return;
    }
    this.repartition(row, { layout: row.layout, values: row.values }, { layout: EMPTY_LAYOUT, values: NO_VALUES });
    for (const [field, key] of sortEntries(row)) {
      this.orders.get(field)?.remove({ key, row });
      this.countSortKey(field, -1);
    }
    for (const [field, value] of setEntries(row)) this.leaveSet(field, value, row);
    this.orders.get('id')?.remove({ key: id, row });
    freeSlot();
  }

  /** Moves the row's index entries from its current layout and values to the new ones. */
  private reindex(row: Row, fresh: boolean, layout: Layout, values: Scalar[]): void {
    if (this.deferred) {
      row.layout = layout;
      row.values = values;
      return;
    }
    if (fresh) this.orders.get('id')?.insert({ key: row.id, row });
    const before: PartitionView = { layout: row.layout, values: row.values };
    const after: PartitionView = { layout, values };
    // Plain loops, no closures: this runs for every write.
    const oldSorts = before.layout.sortNames;
    for (let i = 0; i < oldSorts.length; i++) {
      const field = oldSorts[i]!;
      const key = before.values[i]!;
      const k = sortKeyIn(after, row.id, field);
      if (k !== key) this.orders.get(field)?.remove({ key, row });
      if (k === undefined) this.countSortKey(field, -1);
    }
    for (let i = 0; i < layout.sortNames.length; i++) {
      const field = layout.sortNames[i]!;
      const key = values[i]!;
      const was = sortKeyIn(before, row.id, field);
      if (was === key) continue;
      if (was === undefined) this.countSortKey(field, 1);
      this.orders.get(field)?.insert({ key, row });
    }
    const old = before.layout;
    for (let i = 0; i < old.setNames.length; i++) {
      for (let j = old.setStarts[i]!; j < old.setEnds[i]!; j++) if (!hasValueIn(after, old.setNames[i]!, before.values[j]!)) this.leaveSet(old.setNames[i]!, before.values[j]!, row);
    }
    row.layout = layout;
    row.values = values;
    for (let i = 0; i < layout.setNames.length; i++) {
      for (let j = layout.setStarts[i]!; j < layout.setEnds[i]!; j++) if (!hasValueIn(before, layout.setNames[i]!, values[j]!)) this.joinSet(layout.setNames[i]!, values[j]!, row);
    }
    this.repartition(row, before, after);
  }

  /**
   * Builds every index of a bulk load from the rows (see `deferred`); the indexes must be empty. Rows of one layout
   * share its names, so each set field's values are looked up once per layout (not once per value) and sort keys are
   * counted per layout: a start-up replay indexes 300,000 rows here.
   */
  indexAll(): void {
    if (!this.deferred) return;
    this.deferred = false;
    const layouts = new Map<Layout, { rows: number; sets: (Map<Scalar, Members> | undefined)[] }>();
    for (const row of this.rows.values()) {
      const { setNames, setStarts, setEnds, partitions: declared } = row.layout;
      let seen = layouts.get(row.layout);
      if (seen === undefined) layouts.set(row.layout, (seen = { rows: 0, sets: [] }));
      seen.rows++;
      const values = row.values;
      for (let i = 0; i < setNames.length; i++) {
        for (let j = setStarts[i]!; j < setEnds[i]!; j++) this.join((seen.sets[i] ??= this.valuesOf(setNames[i]!)), values[j]!, row);
      }
      for (const field of declared) {
        const i = setNames.indexOf(field);
        if (i >= 0) for (let j = setStarts[i]!; j < setEnds[i]!; j++) this.countPartition(field, values[j]!, 1);
      }
    }
    for (const [layout, { rows }] of layouts) for (const field of layout.sortNames) this.countSortKey(field, rows);
  }

  /**
   * The rows with sort key `field` (or every row, for `id`) ordered by it, made now if no plan needed it before
   * (see `orders`); undefined when no row has the key.
   */
  order(field: string): OrderIndex | undefined {
    let index = this.orders.get(field);
    if (index !== undefined) return index;
    const keys: Scalar[] = [];
    const rows: Row[] = [];
    if (field === 'id') {
      for (const row of this.rows.values()) {
        keys.push(row.id);
        rows.push(row);
      }
    } else {
      if (!this.sortKeyRows.has(field)) return undefined;
      for (const row of this.rows.values()) {
        const key = sortKeyOf(row, field);
        if (key === undefined) continue;
        keys.push(key);
        rows.push(row);
      }
    }
    this.orders.set(field, (index = OrderIndex.of(keys, rows)));
    return index;
  }

  private countSortKey(field: string, by: number): void {
    const n = (this.sortKeyRows.get(field) ?? 0) + by;
    if (n > 0) {
      this.sortKeyRows.set(field, n);
      return;
    }
    this.sortKeyRows.delete(field);
    this.orders.delete(field);
  }

  // --- partitions (IndexEntry.partitions) ---

  /** Per partition field and value, how many rows hold the value and declared the field a partition. */
  private readonly partitionSizes = new Map<string, Map<Scalar, number>>();
  /**
   * Per partition field and value, that value's rows (as counted above) ordered by a sort key (or `id`): each made
   * at the first plan that pages by it, then kept up to date. Most sites page deep by one or two orders only; one
   * per sort key for every value (16 entries per post) would cost far more memory.
   */
  private readonly partitionOrders = new Map<string, Map<Scalar, Map<string, OrderIndex>>>();

  partitionSize(field: string, value: Scalar): number {
    return this.partitionSizes.get(field)?.get(value) ?? 0;
  }

  /** The partition's rows ordered by `key`, made now if no plan asked for it before. */
  partitionOrder(field: string, value: Scalar, key: string): OrderIndex {
    let byValue = this.partitionOrders.get(field);
    if (byValue === undefined) this.partitionOrders.set(field, (byValue = new Map()));
    let orders = byValue.get(value);
    if (orders === undefined) byValue.set(value, (orders = new Map()));
    let index = orders.get(key);
    if (index === undefined) {
      const keys: Scalar[] = [];
      const rows: Row[] = [];
      for (const row of this.members(field, value) ?? []) {
        if (!row.layout.partitions.includes(field)) continue;
        const k = sortKeyOf(row, key);
        if (k === undefined) continue;
        keys.push(k);
        rows.push(row);
      }
      orders.set(key, (index = OrderIndex.of(keys, rows)));
    }
    return index;
  }

  private countPartition(field: string, value: Scalar, by: number): void {
    let byValue = this.partitionSizes.get(field);
    if (byValue === undefined) this.partitionSizes.set(field, (byValue = new Map()));
    const n = (byValue.get(value) ?? 0) + by;
    if (n > 0) {
      byValue.set(value, n);
      return;
    }
    byValue.delete(value);
    if (byValue.size === 0) this.partitionSizes.delete(field);
    const orders = this.partitionOrders.get(field);
    orders?.delete(value);
    if (orders?.size === 0) this.partitionOrders.delete(field);
  }

  /** Moves a row between partitions (and the orders made of them) when its partitions, their values or its sort keys changed. */
  private repartition(row: Row, before: PartitionView, after: PartitionView): void {
    if (before.layout.partitions.length === 0 && after.layout.partitions.length === 0) return;
    if (samePartitioning(before, after)) return;
    for (const field of before.layout.partitions) {
      for (const value of valuesIn(before, field)) {
        for (const [key, index] of this.partitionOrders.get(field)?.get(value) ?? []) {
          const k = sortKeyIn(before, row.id, key);
          if (k !== undefined) index.remove({ key: k, row });
        }
        this.countPartition(field, value, -1);
      }
    }
    for (const field of after.layout.partitions) {
      for (const value of valuesIn(after, field)) {
        this.countPartition(field, value, 1);
        for (const [key, index] of this.partitionOrders.get(field)?.get(value) ?? []) {
          const k = sortKeyIn(after, row.id, key);
          if (k !== undefined) index.insert({ key: k, row });
        }
      }
    }
  }

  private joinSet(field: string, value: Scalar, row: Row): void {
    this.join(this.valuesOf(field), value, row);
  }

  /** The members of each value of a set field (made when the field's first value joins). */
  private valuesOf(field: string): Map<Scalar, Members> {
    let byValue = this.sets.get(field);
    if (byValue === undefined) this.sets.set(field, (byValue = new Map()));
    return byValue;
  }

  private join(byValue: Map<Scalar, Members>, value: Scalar, row: Row): void {
    const members = byValue.get(value);
    if (members === undefined) byValue.set(value, row);
    else if (members instanceof Row) {
      if (members !== row) byValue.set(value, new Set([members, row]));
    } else {
      members.add(row);
      if (members instanceof Set && members.size >= BITS_MIN && members.size >= this.slots.length * BITS_SHARE) byValue.set(value, new RowBits(this.slots, members));
    }
  }

  private leaveSet(field: string, value: Scalar, row: Row): void {
    const byValue = this.sets.get(field)!;
    const members = byValue.get(value)!;
    if (members instanceof Row) {
      if (members === row) byValue.delete(value);
    } else {
      members.delete(row);
      if (members.size === 1) byValue.set(value, members[Symbol.iterator]().next().value!);
      else if (members instanceof RowBits && members.size < this.slots.length * (BITS_SHARE / 4)) byValue.set(value, new Set(members));
    }
    if (byValue.size === 0) this.sets.delete(field);
  }

  /** The rows holding a set value (a new Set for a single row: callers only read it). */
  members(field: string, value: Scalar): RowSet | undefined {
    return membersAsSet(this.sets.get(field)?.get(value));
  }

  /**
   * Per term (a search term, lowercased), the rows with it in one of `columns`: one pass over the text arena's
   * chunks, each hit mapped back to its record (a cursor moving forward with the hits) and column. An ASCII term
   * with letters is found by a case-insensitive RegExp over the bytes read as Latin-1 (an ASCII term matches ASCII
   * bytes only, so this finds exactly what `textMatcher` finds in the decoded column); any other well-formed term
   * by its UTF-8 bytes (UTF-8 is self-synchronising, so a byte match is a character match); a term with a lone
   * surrogate by decoding every column. Rows with loose text are tested as strings.
   */
  rowsWithTerms(terms: readonly string[], columns: readonly string[]): Set<Row>[] {
    const wanted = new Set(columns);
    const found = terms.map(() => new Set<Row>());
    const scanned: number[] = [];
    terms.forEach((term, t) => {
      if (!LONE_SURROGATE.test(term)) {
        scanned.push(t);
        return;
      }
      const has = textMatcher(term);
      for (const row of this.rows.values()) if (columns.some((c) => has(this.textOf(row, c)))) found[t]!.add(row);
    });
    if (scanned.length > 0) {
      const patterns = scanned.map((t) => {
        const term = terms[t]!;
        return ASCII.test(term) && ASCII_LETTER.test(term) ? new RegExp(escapeRegExp(term), 'gi') : Buffer.from(term, 'utf8');
      });
      const lengths = scanned.map((t) => Buffer.byteLength(terms[t]!, 'utf8'));
      for (const chunk of this.texts.chunksForScan()) {
        const { bytes, used, starts, lengths: sizes, owners } = chunk;
        for (let k = 0; k < scanned.length; k++) {
          const pattern = patterns[k]!;
          const into = found[scanned[k]!]!;
          const termLength = lengths[k]!;
          const find = pattern instanceof RegExp ? caselessFinder(bytes, used, pattern, termLength) : (from: number) => bytes.indexOf(pattern, from);
          let record = 0;
          let p = find(0);
          while (p >= 0 && p + termLength <= used) {
            // The record holding p: the cursor only moves forward, as hits do.
            while (record + 1 < starts.length && starts[record + 1]! <= p) record++;
            let next = p + 1;
            const start = starts[record]!;
            if (!chunk.isLive(record)) next = start + sizes[record]!;
            else if (start <= p) {
              const row = this.slots[owners[record]!]!;
              const names = row.layout.textNames;
              let at = start + 4 * names.length;
              if (p < at) next = at;
              else {
                for (let i = 0; i < names.length; i++) {
                  const end = at + bytes.readUInt32LE(start + 4 * i);
                  if (p < end) {
                    if (p + termLength <= end && wanted.has(names[i]!)) {
                      into.add(row);
                      // Found in this row: on to the next record.
                      next = start + sizes[record]!;
                    }
                    break;
                  }
                  at = end;
                }
              }
            }
            if (next >= used) break;
            p = find(next);
          }
        }
      }
    }
    if (this.looseText.size > 0) {
      terms.forEach((term, t) => {
        const has = textMatcher(term);
        for (const [row, texts] of this.looseText) if (row.layout.textNames.some((c, i) => wanted.has(c) && has(texts[i] ?? ''))) found[t]!.add(row);
      });
    }
    return found;
  }
}

/** Bytes of a chunk read as one Latin-1 string at a time by a caseless search (see caselessFinder). */
export const SCAN_WINDOW = 64 * 1024;

/**
 * Finds a caseless ASCII term (`pattern`, global) in a chunk's bytes read as Latin-1, a window at a time. Reading a
 * whole 8 MB chunk as one string made Node copy it into memory from malloc (an external string, above ~1 MB), and
 * glibc kept those blocks after they were freed: one search over 100,000 posts grew the process by ~100 MB for
 * good. Windows overlap by the term's length less one byte, so a match is always whole in the window it starts in.
 */
export function caselessFinder(bytes: Buffer, used: number, pattern: RegExp, termLength: number): (from: number) => number {
  let windowStart = -1;
  let text = '';
  return (from) => {
    while (from < used) {
      if (windowStart < 0 || from < windowStart || from >= windowStart + SCAN_WINDOW) {
        windowStart = from;
        text = bytes.toString('latin1', from, Math.min(used, from + SCAN_WINDOW + termLength - 1));
      }
      pattern.lastIndex = from - windowStart;
      const match = pattern.exec(text);
      if (match !== null && match.index < SCAN_WINDOW) return windowStart + match.index;
      from = windowStart + SCAN_WINDOW;
    }
    return -1;
  };
}

// ---------------------------------------------------------------------------------------------------------
// Queries

interface Node {
  test(row: Row): boolean;
  /** Relative cost of `test`; conjunctions test cheap children first. */
  cost: number;
  /** Size of a candidate superset `candidates()` can list cheaply; undefined: only a scan would do. */
  estimate(): number | undefined;
  candidates(): Iterable<Row>;
  /** The exact number of matches when it is cheap to know. */
  count(): number | undefined;
  /** Sets whose intersection is exactly this node's matches, for counting conjunctions. */
  sets?: RowSet[];
  /** Set when this node is exactly a range on a sort key, so an order walk can start at its bound. */
  range?: { field: string; bounds: Bounds };
}

const TRUE: Node = {
  test: () => true,
  cost: 0,
  estimate: () => undefined,
  candidates: () => [],
  count: () => undefined,
};

const FALSE: Node = {
  test: () => false,
  cost: 0,
  estimate: () => 0,
  candidates: () => [],
  count: () => 0,
  sets: [],
};

function intersectionCount(sets: RowSet[]): number {
  if (sets.length === 0) return -1;
  const sorted = [...sets].sort((a, b) => a.size - b.size);
  const [smallest, ...rest] = sorted;
  if (rest.length === 0) return smallest!.size;
  let n = 0;
  for (const row of smallest!) if (rest.every((s) => s.has(row))) n++;
  return n;
}

function unionCount(sets: RowSet[]): number {
  // Count the largest set whole, then only the members of smaller sets not seen in a larger one.
  const sorted = [...sets].sort((a, b) => b.size - a.size);
  let n = 0;
  sorted.forEach((set, i) => {
    if (i === 0) n += set.size;
    else for (const row of set) if (!sorted.slice(0, i).some((s) => s.has(row))) n++;
  });
  return n;
}

function union(sets: Iterable<Iterable<Row>>): Set<Row> {
  const out = new Set<Row>();
  for (const set of sets) for (const row of set) out.add(row);
  return out;
}

class Query {
  constructor(private readonly c: Collection) {}

  compile(filter: Filter): Node {
    switch (filter.kind) {
      case 'any':
        return this.anyOf(filter.field, distinctValues(filter.values));
      case 'all': {
        const values = distinctValues(filter.values);
        if (values.length === 0) return TRUE;
        if (filter.field === 'id') return values.length === 1 ? this.anyOf('id', values) : FALSE;
        const sets = values.map((v) => this.c.members(filter.field, v));
        if (sets.some((s) => s === undefined)) return FALSE;
        const present = sets as RowSet[];
        const field = filter.field;
        return {
          test: (row) => {
            return values.every((v) => hasSetValue(row, field, v));
          },
          cost: values.length,
          estimate: () => Math.min(...present.map((s) => s.size)),
          candidates: () => present.reduce((a, b) => (b.size < a.size ? b : a)),
          count: () => intersectionCount(present),
          sets: present,
        };
      }
      case 'none': {
        const values = distinctValues(filter.values);
        if (values.length === 0) return TRUE;
        const any = this.anyOf(filter.field, values);
        const size = this.c.rows.size;
        return {
          test: (row) => !any.test(row),
          cost: any.cost,
          estimate: () => undefined,
          candidates: () => [],
          count: () => {
            const n = any.count();
            return n === undefined ? undefined : size - n;
          },
        };
      }
      case 'range': {
        const field = filter.field;
        const index = this.c.order(field);
        if (index === undefined) return FALSE;
        const bounds = rangeBounds(filter);
        return {
          test: (row) => {
            const key = sortKeyOf(row, field);
            return key !== undefined && aboveLo(key, bounds) && belowHi(key, bounds);
          },
          cost: 2,
          estimate: () => index.count(bounds),
          candidates: () => {
            const rows: Row[] = [];
            index.each('asc', bounds, 0, (e) => {
              rows.push(e.row);
              return false;
            });
            return rows;
          },
          count: () => index.count(bounds),
          range: { field, bounds },
        };
      }
      case 'text': {
        const includes = searchTerms(filter.includes);
        const excludes = searchTerms(filter.excludes);
        if (includes.length === 0 && excludes.length === 0) return TRUE;
        if (includes.length > 0 && filter.fields.length === 0) return FALSE;
        const fields = [...filter.fields];
        // No trigram index here: trigram sets of whole post bodies would cost far more memory than the
        // documents. One scan of the text arena per term finds the matches, kept until the next write.
        const key = JSON.stringify([fields, includes, excludes]);
        const cache = this.c.textMatches;
        let found = cache.get(key);
        if (found === undefined) {
          // One scan for every term, included or excluded.
          const withTerms = this.c.rowsWithTerms([...includes, ...excludes], fields);
          let rows: Set<Row> | undefined;
          includes.forEach((_, i) => {
            const withTerm = withTerms[i]!;
            if (rows === undefined) rows = withTerm;
            else for (const row of rows) if (!withTerm.has(row)) rows.delete(row);
          });
          found = rows ?? new Set(this.c.rows.values());
          for (let i = includes.length; i < withTerms.length; i++) for (const row of withTerms[i]!) found.delete(row);
          if (cache.size >= TEXT_MATCHES_KEPT) cache.delete(cache.keys().next().value!);
          cache.set(key, found);
        }
        const set = found;
        return {
          test: (row) => set.has(row),
          cost: 1,
          estimate: () => set.size,
          candidates: () => set,
          count: () => set.size,
          sets: [set],
        };
      }
      case 'or':
        return this.or(filter.filters.map((f) => this.compile(f)));
      case 'and':
        return this.and(filter.filters.map((f) => this.compile(f)));
    }
  }

  private anyOf(field: string, values: Scalar[]): Node {
    if (values.length === 0) return FALSE;
    if (field === 'id') {
      const rows = this.c.rows;
      const wanted = new Set(values);
      const present = () => values.map((v) => rows.get(v)).filter((r): r is Row => r !== undefined);
      return {
        test: (row) => wanted.has(row.id),
        cost: 1,
        estimate: () => values.length,
        candidates: present,
        count: () => present().length,
      };
    }
    const sets = values.map((v) => this.c.members(field, v)).filter((s): s is RowSet => s !== undefined);
    if (sets.length === 0) return FALSE;
    if (sets.length === 1) {
      const set = sets[0]!;
      return {
        test: (row) => set.has(row),
        cost: 1,
        estimate: () => set.size,
        candidates: () => set,
        count: () => set.size,
        sets: [set],
      };
    }
    return {
      test: (row) => sets.some((s) => s.has(row)),
      cost: sets.length,
      estimate: () => sets.reduce((n, s) => n + s.size, 0),
      candidates: () => union(sets),
      count: () => unionCount(sets),
    };
  }

  private or(children: Node[]): Node {
    const live = children.filter((n) => n !== FALSE);
    if (live.length === 0) return FALSE;
    if (live.length === 1) return live[0]!;
    if (live.includes(TRUE)) return TRUE;
    live.sort((a, b) => a.cost - b.cost);
    return {
      test: (row) => live.some((n) => n.test(row)),
      cost: live.reduce((n, c) => n + c.cost, 0),
      estimate: () => {
        let total = 0;
        for (const n of live) {
          const e = n.estimate();
          if (e === undefined) return undefined;
          total += e;
        }
        return total;
      },
      candidates: () => union(live.map((n) => n.candidates())),
      count: () => undefined,
    };
  }

  and(children: Node[]): Node {
    const live = children.filter((n) => n !== TRUE);
    if (live.length === 0) return TRUE;
    if (live.length === 1) return live[0]!;
    if (live.includes(FALSE)) return FALSE;
    live.sort((a, b) => a.cost - b.cost);
    const best = (): Node | undefined => {
      let chosen: Node | undefined;
      let size = Infinity;
      for (const n of live) {
        const e = n.estimate();
        if (e !== undefined && e < size) [chosen, size] = [n, e];
      }
      return chosen;
    };
    const sets = live.every((n) => n.sets !== undefined) ? live.flatMap((n) => n.sets!) : undefined;
    const node: Node = {
      test: (row) => live.every((n) => n.test(row)),
      cost: live.reduce((n, c) => n + c.cost, 0),
      estimate: () => best()?.estimate(),
      candidates: () => best()!.candidates(),
      count: () => (sets === undefined ? undefined : intersectionCount(sets)),
    };
    if (sets !== undefined) node.sets = sets;
    return node;
  }

  /** Every matching row, from the smallest candidate superset (or a scan when there is none). */
  matches(node: Node): Row[] {
    const source = node.estimate() === undefined ? this.c.rows.values() : node.candidates();
    const out: Row[] = [];
    for (const row of source) if (node.test(row)) out.push(row);
    return out;
  }

  /** `rows` ordered by a sort key: walk its index when the rows are dense in it, otherwise sort them. */
  orderRows(rows: Row[], field: string, direction: Direction, offset: number, take: number): Row[] {
    const m = rows.length;
    if (m === 0 || take === 0 || offset >= m) return [];
    const index = this.c.order(field);
    const walkCost = index === undefined ? Infinity : (Math.min(offset + take, m) * index.size) / m;
    if (walkCost < m * Math.log2(m + 1)) {
      const wanted = new Set(rows);
      const out: Row[] = [];
      let seen = 0;
      index!.each(direction, undefined, 0, (e) => {
        if (!wanted.has(e.row)) return false;
        if (seen++ >= offset) out.push(e.row);
        return out.length >= take;
      });
      if (out.length < take && field !== 'id') {
        const sign = direction === 'asc' ? 1 : -1;
        const missing = rows.filter((r) => !hasSortKey(r, field)).sort((a, b) => sign * compareScalars(a.id, b.id));
        out.push(...missing.slice(Math.max(0, offset - seen), Math.max(0, offset - seen) + take - out.length));
      }
      return out;
    }
    const sign = direction === 'asc' ? 1 : -1;
    const sorted = [...rows].sort((a, b) => {
      const ka = sortKeyOf(a, field);
      const kb = sortKeyOf(b, field);
      if (ka === undefined || kb === undefined) {
        if (ka !== kb) return ka === undefined ? 1 : -1;
      } else {
        const c = compareScalars(ka, kb);
        if (c !== 0) return sign * c;
      }
      return sign * compareScalars(a.id, b.id);
    });
    return sorted.slice(offset, offset + take);
  }

  run(plan: QueryPlan): { rows: Row[]; total: number } {
    const take = plan.limit ?? Infinity;
    const { offset } = plan;
    const shape = partitionShape(plan);
    const paged = shape === null ? null : this.byPartition(shape, offset, take);
    if (paged !== null) return paged;
    const node = this.and(plan.filters.map((f) => this.compile(f)));
    const order = plan.order;
    if (order.kind === 'field') return this.byField(node, order.field, order.direction, offset, take);
    const matches = this.matches(node);
    const total = matches.length;
    const out: Row[] = [];
    // Each segment of the order gets its share of the page: its own offset and what is still to take.
    let consumed = 0;
    const segment = (rows: Row[], field: string, direction: Direction) => {
      if (out.length < take && consumed + rows.length > offset) {
        out.push(...this.orderRows(rows, field, direction, Math.max(0, offset - consumed), take - out.length));
      }
      consumed += rows.length;
    };
    if (order.kind === 'list') {
      const matched = new Set(matches);
      const placed = new Set<Row>();
      for (const value of distinctValues(order.values)) {
        if (out.length >= take) break;
        const listed =
          order.field === 'id' ? [this.c.rows.get(value)] : [...(this.c.members(order.field, value) ?? [])];
        const bucket = listed.filter((r): r is Row => r !== undefined && matched.has(r) && !placed.has(r));
        for (const r of bucket) placed.add(r);
        segment(bucket, 'id', 'asc');
      }
      if (out.length < take) segment(placed.size === 0 ? matches : matches.filter((r) => !placed.has(r)), 'id', 'asc');
      return { rows: out, total };
    }
    const phrase = order.phrase.toLowerCase();
    const hasPhrase = textMatcher(phrase);
    const terms = searchTerms(order.terms).map(textMatcher);
    const { title, excerpt, content } = order.columns;
    const ranks: Row[][] = [[], [], [], [], [], []];
    for (const row of matches) {
      const t = this.c.textOf(row, title);
      let rank = 5;
      if (phrase !== '' && hasPhrase(t)) rank = 0;
      else if (terms.length > 0 && terms.every((has) => has(t))) rank = 1;
      else if (terms.some((has) => has(t))) rank = 2;
      else if (phrase !== '' && hasPhrase(this.c.textOf(row, excerpt))) rank = 3;
      else if (phrase !== '' && hasPhrase(this.c.textOf(row, content))) rank = 4;
      ranks[rank]!.push(row);
    }
    for (const rows of ranks) segment(rows, order.tieBreak.field, order.tieBreak.direction);
    return { rows: out, total };
  }

  /**
   * A partition-shaped plan paged by rank in the partition's order: null when some row holding the value did not
   * declare the field a partition, or when the page reaches rows without the order key (the general path serves
   * those).
   */
  private byPartition(shape: PartitionShape, offset: number, take: number): { rows: Row[]; total: number } | null {
    const size = this.c.partitionSize(shape.field, shape.value);
    if (size === 0 || size !== (this.c.members(shape.field, shape.value)?.size ?? 0)) return size === 0 && !this.c.members(shape.field, shape.value) ? { rows: [], total: 0 } : null;
    const index = this.c.partitionOrder(shape.field, shape.value, shape.order);
    const keyed = index.size;
    const total = shape.bounds === undefined ? size : index.count(shape.bounds);
    if (shape.bounds === undefined && keyed < size && offset + take > keyed) return null;
    const rows: Row[] = [];
    if (take === 0 || offset >= total) return { rows, total };
    index.each(shape.direction, shape.bounds, offset, (e) => {
      rows.push(e.row);
      return rows.length >= take;
    });
    return { rows, total };
  }

  private byField(node: Node, field: string, direction: Direction, offset: number, take: number) {
    const counted = node === TRUE ? this.c.rows.size : node.count();
    if (counted === undefined) {
      const matches = this.matches(node);
      return { rows: this.orderRows(matches, field, direction, offset, take), total: matches.length };
    }
    const total = counted;
    if (total === 0 || take === 0 || offset >= total) return { rows: [], total };
    const n = this.c.rows.size;
    const walkCost = (Math.min(offset + take, total) * n) / total;
    const estimate = node.estimate();
    if (estimate !== undefined && estimate * Math.log2(estimate + 2) < walkCost) {
      return { rows: this.orderRows(this.matches(node), field, direction, offset, take), total };
    }
    // Walk the order index from the requested end, testing rows; stop when the page is full or every match
    // has been seen. A range on the order key itself bounds the walk, and with no other filter every entry
    // inside the bounds matches, so the offset can be skipped without testing.
    const index = this.c.order(field);
    const bounds = node.range?.field === field ? node.range.bounds : undefined;
    const exact = node === TRUE || bounds !== undefined;
    const out: Row[] = [];
    let seen = exact ? Math.min(offset, index?.size ?? 0) : 0;
    index?.each(direction, bounds, exact ? offset : 0, (e) => {
      if (!exact && !node.test(e.row)) return false;
      if (seen++ >= offset) out.push(e.row);
      return out.length >= take || seen >= total;
    });
    if (out.length < take && seen < total && field !== 'id') {
      // Rows without the key come last, by id in the same direction.
      this.c.order('id')!.each(direction, undefined, 0, (e) => {
        if (hasSortKey(e.row, field) || !node.test(e.row)) return false;
        if (seen++ >= offset) out.push(e.row);
        return out.length >= take || seen >= total;
      });
    }
    return { rows: out, total };
  }
}


// ---------------------------------------------------------------------------------------------------------

/** The memory read model, plus what a snapshot of it needs (src/adapters/memory/snapshot.ts). */
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
}

export interface MemoryReadModelOptions {
  /**
   * Parsed documents kept by recent use (besides those callers keep, ReadModel.keepIdentity): reading one of them
   * again costs no parse. Once that many are kept, a document joins them only when read again among the last twice
   * as many it did not keep.
   */
  parsedDocsKept?: number;
}

/** The default of MemoryReadModelOptions.parsedDocsKept. */
export const PARSED_DOCS_KEPT = 2_000;

/** Freezes a value fresh from JSON.parse, throughout. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  // Loops rather than Object.values: loading a site freezes millions of objects, and each array is garbage.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  Object.freeze(value);
}

/** A plain object that JSON.stringify writes field by field (no toJSON, no class). */
function isPlainRecord(value: Record<string, unknown>): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof value.toJSON !== 'function';
}

/**
 * Validates a commit and serialises its documents, as `prepareCommit` does (the same checks, the same messages),
 * laying out each index entry against the interned layouts and choosing which text columns stand for a field.
 */
/** Refuses a commit whose checkpoint no longer stands where it expects (Commit.expectedPosition). */
function checkExpectedPosition(expected: number | null, found: Checkpoint | undefined, name: string): void {
  const position = found === undefined ? null : found.position;
  if (position !== expected) throw new StaleCommitError('checkpoint', `checkpoint ${name} is at ${position ?? 'none'}, not ${expected ?? 'none'}`);
}

function prepareStoredCommit(commit: Commit, layouts: Layouts, entry: EntryReader): { writes: StoredWrite[]; name: string; checkpoint: Checkpoint } {
  const { name, checkpoint } = checkCommit(commit);
  const writes = commit.writes.map((write, n): StoredWrite => {
    const { collection, id, doc } = checkWrite(write, n);
    if (doc === null) return { collection, id, json: null, jsonBytes: 0, layout: EMPTY_LAYOUT, values: NO_VALUES, texts: NO_NAMES, textBytes: [], loose: false };
    let plain = doc;
    if (!isPlainRecord(doc) || !isScalar(doc.id)) {
      // toJSON, class instances, an id that is not a scalar as it is: what JSON makes of it is what is stored.
      let copy: unknown;
      try {
        const json = JSON.stringify(doc);
        copy = typeof json === 'string' ? JSON.parse(json) : undefined;
      } catch (error) {
        invalid(`write ${n}: doc cannot be serialised (${(error as Error).message})`);
      }
      if (!isRecord(copy)) invalid(`write ${n}: doc does not serialise to a JSON object`);
      plain = copy;
    }
    if (norm(plain.id as Scalar) !== id) invalid(`write ${n}: doc.id ${JSON.stringify(plain.id)} is not the write's id ${JSON.stringify(id)}`);
    entry.read(write.index);
    // Text columns as stored; a column holding exactly the document's field of the same name stands for it.
    const textNames = entry.text;
    const k = entry.textCount;
    const texts: string[] = k === 0 ? NO_NAMES : new Array<string>(k);
    const textBytes: number[] = new Array<number>(k);
    const elided: boolean[] = new Array<boolean>(k);
    let loose = false;
    let anyStands = false;
    for (let i = 0; i < k; i++) {
      const column = textNames[i]!;
      const value = entry.textValues[i]!;
      // Every UTF-16 unit above 0x7f takes at least two UTF-8 bytes: as many bytes as units means ASCII.
      const byteLength = Buffer.byteLength(value, 'utf8');
      const ascii = byteLength === value.length;
      const stored = ascii ? value : value.toLowerCase();
      if (!ascii && LONE_SURROGATE.test(stored)) loose = true;
      texts[i] = stored;
      textBytes[i] = ascii ? byteLength : Buffer.byteLength(stored, 'utf8');
      const stands = stored === value && column !== '__proto__' && Object.hasOwn(plain, column) && plain[column] === value;
      elided[i] = stands;
      if (stands) anyStands = true;
    }
    // Kept as strings (Collection.looseText): nothing stands for a field.
    if (loose) elided.fill(false);
    let json: string | undefined;
    try {
      json = anyStands && !loose ? jsonWithPlaceholders(plain, textNames, elided) : JSON.stringify(plain);
    } catch (error) {
      invalid(`write ${n}: doc cannot be serialised (${(error as Error).message})`);
    }
    const layout = layouts.ofEntry(entry, elided);
    return { collection, id, json: json!, jsonBytes: Buffer.byteLength(json!, 'utf8'), layout, values: entry.takeValues(), texts, textBytes, loose };
  });
  return { writes, name, checkpoint };
}

/**
 * The JSON of `doc` with 0 for each field a text column stands for (`elided[i]`: the column `textNames[i]`; the names
 * may run on past `elided`, unused). When those fields are plain writable data properties of an ordinary object, they
 * are set to 0 for the serialisation and put back after it (a start-up replay serialises 100,000 posts: copying each
 * one's ~35 fields cost about as much as serialising it); otherwise (frozen, a getter or setter, a proxy) a copy is
 * serialised.
 */
function jsonWithPlaceholders(doc: Record<string, unknown>, textNames: readonly string[], elided: readonly boolean[]): string {
  if (types.isProxy(doc)) return JSON.stringify(withPlaceholders(doc, textNames, elided));
  for (let i = 0; i < elided.length; i++) {
    if (!elided[i]) continue;
    const property = Object.getOwnPropertyDescriptor(doc, textNames[i]!);
    if (property === undefined || property.writable !== true) return JSON.stringify(withPlaceholders(doc, textNames, elided));
  }
  const values: unknown[] = new Array<unknown>(elided.length);
  for (let i = 0; i < elided.length; i++) {
    if (!elided[i]) continue;
    values[i] = doc[textNames[i]!];
    doc[textNames[i]!] = 0;
  }
  try {
    return JSON.stringify(doc);
  } finally {
    for (let i = 0; i < elided.length; i++) if (elided[i]) doc[textNames[i]!] = values[i];
  }
}

/**
 * A copy of `doc` with 0 for each field a text column stands for. Built field by field: a spread copy whose fields
 * then change from strings to numbers makes V8 generalise the copy's hidden class, which took longer than
 * serialising the document. An own `__proto__` key, which an assignment would take for the prototype, keeps the spread.
 */
function withPlaceholders(doc: Record<string, unknown>, textNames: readonly string[], elided: readonly boolean[]): Record<string, unknown> {
  const isElided = (key: string) => {
    for (let i = 0; i < elided.length; i++) if (elided[i] && textNames[i] === key) return true;
    return false;
  };
  if (Object.hasOwn(doc, '__proto__')) {
    const copy = { ...doc };
    for (let i = 0; i < elided.length; i++) if (elided[i]) copy[textNames[i]!] = 0;
    return copy;
  }
  const copy: Record<string, unknown> = {};
  // Own fields only, as a spread copies them (for-in in the same order).
  for (const key in doc) if (Object.hasOwn(doc, key)) copy[key] = isElided(key) ? 0 : doc[key];
  return copy;
}

function entryRecord(value: unknown, what: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) invalid(`index ${what} must be an object`);
  return value;
}

/**
 * An index entry as names and values: `prepareEntry`'s checks and messages, without maps. The names are read into
 * arrays kept from entry to entry, each used up to its count (a start-up replay lays out 300,000 entries: seven
 * arrays made for each were a sixth of what it allocated); the layout they name is interned (Layouts) and only the
 * values, exactly sized, are copied out for the row. One entry at a time: read, then used, before the next read.
 */
class EntryReader {
  readonly sort: string[] = [];
  sortCount = 0;
  readonly sets: string[] = [];
  /** Per set field, how many distinct values it holds. */
  readonly counts: number[] = [];
  setCount = 0;
  readonly text: string[] = [];
  readonly textValues: string[] = [];
  textCount = 0;
  readonly partitions: string[] = [];
  partitionCount = 0;
  /** Sort key values, then each set field's values. */
  private readonly values: Scalar[] = [];
  private valueCount = 0;

  read(index: unknown): void {
    this.sortCount = this.setCount = this.textCount = this.partitionCount = this.valueCount = 0;
    if (index === undefined || index === null) return;
    if (!isRecord(index)) invalid('index entry must be an object');
    const sortRecord = entryRecord(index.sort, 'sort');
    const setRecord = entryRecord(index.sets, 'sets');
    const textRecord = entryRecord(index.text, 'text');
    // undefined / null mean absent, as JSON would have it.
    if (sortRecord) {
      for (const field in sortRecord) {
        if (!Object.hasOwn(sortRecord, field)) continue;
        const value = sortRecord[field];
        if (value === undefined || value === null) continue;
        if (field === 'id') invalid('`id` is implicitly a sort key and must not be declared');
        if (!isScalar(value)) invalid(`sort key ${JSON.stringify(field)} must be a finite number or a string`);
        this.sort[this.sortCount++] = field;
        this.values[this.valueCount++] = norm(value);
      }
    }
    if (setRecord) {
      for (const field in setRecord) {
        if (!Object.hasOwn(setRecord, field)) continue;
        const value = setRecord[field];
        if (value === undefined || value === null) continue;
        if (field === 'id') invalid('`id` is implicitly a set field and must not be declared');
        const start = this.valueCount;
        if (Array.isArray(value)) for (const v of value as unknown[]) this.addSetValue(field, v, start);
        else this.addSetValue(field, value, start);
        this.sets[this.setCount] = field;
        this.counts[this.setCount++] = this.valueCount - start;
      }
    }
    if (textRecord) {
      for (const column in textRecord) {
        if (!Object.hasOwn(textRecord, column)) continue;
        const value = textRecord[column];
        if (value === undefined || value === null) continue;
        if (typeof value !== 'string') invalid(`text column ${JSON.stringify(column)} must be a string`);
        this.text[this.textCount] = column;
        this.textValues[this.textCount++] = value;
      }
    }
    this.readPartitions(index.partitions);
  }

  /** The values read, for the row: a fresh array exactly sized (a row keeps it for as long as it lives). */
  takeValues(): Scalar[] {
    return this.valueCount === 0 ? NO_VALUES : this.values.slice(0, this.valueCount);
  }

  private addSetValue(field: string, v: unknown, start: number): void {
    if (!isScalar(v)) invalid(`set field ${JSON.stringify(field)} holds a value that is not a finite number or a string`);
    const x = norm(v);
    for (let j = start; j < this.valueCount; j++) if (this.values[j] === x) return;
    this.values[this.valueCount++] = x;
  }

  /** `addPartitions`' checks: each field once, in declaration order. */
  private readPartitions(declared: unknown): void {
    if (declared === undefined || declared === null) return;
    if (!Array.isArray(declared)) invalid('index partitions must be a list of set field names');
    for (const field of declared as unknown[]) {
      if (typeof field !== 'string') invalid('index partitions must be a list of set field names');
      if (field === 'id') invalid('`id` cannot be a partition field');
      let seen = false;
      for (let i = 0; i < this.partitionCount; i++) if (this.partitions[i] === field) seen = true;
      if (!seen) this.partitions[this.partitionCount++] = field;
    }
  }
}

/** Interns layouts: every row declaring the same names (and as many values per set field) shares one. */
class Layouts {
  private readonly byKey = new Map<string, Layout>();
  /** The layouts used last: consecutive writes mostly repeat one of a few, found without building a key. */
  private readonly recent: Layout[] = [];

  /** The layout of the entry `reader` holds, its text columns standing for fields as `elided` says. */
  ofEntry(reader: EntryReader, elided: readonly boolean[]): Layout {
    const { sort, sortCount, sets, counts, setCount, text, textCount, partitions, partitionCount } = reader;
    return this.of(sort, sortCount, sets, counts, setCount, text, elided, textCount, partitions, partitionCount);
  }

  /** The layout of the first `*Count` names of each list. */
  private of(
    sort: readonly string[], sortCount: number,
    sets: readonly string[], counts: readonly number[], setCount: number,
    text: readonly string[], elided: readonly boolean[], textCount: number,
    partitions: readonly string[], partitionCount: number,
  ): Layout {
    for (const layout of this.recent) {
      if (
        sameNames(layout.sortNames, sort, sortCount) && sameNames(layout.setNames, sets, setCount) && sameNames(layout.textNames, text, textCount) &&
        sameNames(layout.elided, elided, textCount) && sameNames(layout.partitions, partitions, partitionCount) && sameCounts(layout, counts)
      ) return layout;
    }
    let key = '';
    // Length-prefixed names: no name can be mistaken for a separator.
    for (let i = 0; i < sortCount; i++) key += `${sort[i]!.length}:${sort[i]}`;
    key += '|';
    for (let i = 0; i < setCount; i++) key += `${sets[i]!.length}:${sets[i]}=${counts[i]}`;
    key += '|';
    for (let i = 0; i < textCount; i++) key += `${text[i]!.length}:${text[i]}${elided[i] ? '+' : '-'}`;
    key += '|';
    for (let i = 0; i < partitionCount; i++) key += `${partitions[i]!.length}:${partitions[i]}`;
    let layout = this.byKey.get(key);
    if (layout === undefined) {
      const setStarts: number[] = [];
      const setEnds: number[] = [];
      let at = sortCount;
      for (let i = 0; i < setCount; i++) {
        setStarts.push(at);
        at += counts[i]!;
        setEnds.push(at);
      }
      const textElided = elided.slice(0, textCount);
      layout = {
        key,
        sortNames: sort.slice(0, sortCount),
        setNames: sets.slice(0, setCount),
        setStarts,
        setEnds,
        textNames: text.slice(0, textCount),
        elided: textElided,
        anyElided: textElided.includes(true),
        partitions: partitions.slice(0, partitionCount),
      };
      this.byKey.set(key, layout);
    }
    this.recent.unshift(layout);
    if (this.recent.length > 8) this.recent.pop();
    return layout;
  }

  ofDefinition(d: LayoutDefinition): Layout {
    return this.of(d.sort, d.sort.length, d.sets, d.counts, d.sets.length, d.text, d.elided, d.text.length, d.partitions, d.partitions.length);
  }
}

/** Whether `a` is the first `n` items of `b`. */
function sameNames(a: readonly unknown[], b: readonly unknown[], n: number): boolean {
  if (a.length !== n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether each of the layout's set fields holds as many values as `counts` says (the names matched already). */
function sameCounts(layout: Layout, counts: readonly number[]): boolean {
  for (let i = 0; i < layout.setNames.length; i++) if (layout.setEnds[i]! - layout.setStarts[i]! !== counts[i]) return false;
  return true;
}

function definitionOf(layout: Layout): LayoutDefinition {
  return {
    sort: [...layout.sortNames],
    sets: [...layout.setNames],
    counts: layout.setNames.map((_, i) => layout.setEnds[i]! - layout.setStarts[i]!),
    text: [...layout.textNames],
    elided: [...layout.elided],
    partitions: [...layout.partitions],
  };
}

/** Checks a layout definition read from a snapshot. */
function checkDefinition(d: LayoutDefinition, values: unknown): void {
  const names = (list: unknown) => Array.isArray(list) && list.every((x) => typeof x === 'string');
  if (!isRecord(d) || !names(d.sort) || !names(d.sets) || !names(d.text) || !names(d.partitions)) invalid('a stored row has no sound layout');
  if (!Array.isArray(d.counts) || d.counts.length !== d.sets.length || !d.counts.every((c) => Number.isSafeInteger(c) && c >= 0)) invalid('a stored row has no sound layout');
  if (!Array.isArray(d.elided) || d.elided.length !== d.text.length || !d.elided.every((e) => typeof e === 'boolean')) invalid('a stored row has no sound layout');
  const total = d.sort.length + d.counts.reduce((a, b) => a + b, 0);
  if (!Array.isArray(values) || values.length !== total || !values.every(isScalar)) invalid('a stored row\'s values do not fit its layout');
}

/** Checks a stored row's values against a layout already checked. */
function checkValuesFit(layout: Layout, values: unknown): void {
  const total = layout.setEnds.length > 0 ? layout.setEnds[layout.setEnds.length - 1]! : layout.sortNames.length;
  if (!Array.isArray(values) || values.length !== total || !values.every(isScalar)) invalid('a stored row\'s values do not fit its layout');
}

export function createMemoryReadModel(options: MemoryReadModelOptions = {}): MemoryReadModel {
  const collections = new Map<string, Collection>();
  const checkpoints = new Map<string, Checkpoint>();
  const layouts = new Layouts();
  const entryReader = new EntryReader();
  const kept = Math.max(0, options.parsedDocsKept ?? PARSED_DOCS_KEPT);
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
      if (commit.expectedPosition !== undefined) checkExpectedPosition(commit.expectedPosition, checkpoints.get(prepared.name), prepared.name);
      for (const write of prepared.writes) {
        let c = collections.get(write.collection);
        if (write.json === null) {
          c?.delete(write.id, forget);
          continue;
        }
        if (c === undefined) collections.set(write.collection, (c = new Collection()));
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
        if (c === undefined) collections.set(collection, (c = new Collection()));
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
      if (collections.size > 0 || checkpoints.size > 0) throw new Error('read model: a snapshot loads into an empty read model only');
      // A snapshot hands out one definition object per layout.
      const known = new Map<LayoutDefinition, Layout>();
      try {
        for (const row of rows) {
          if (typeof row.collection !== 'string' || row.collection === '' || !isScalar(row.id)) invalid('a stored row needs a collection and a scalar id');
          let layout = known.get(row.layout);
          if (layout === undefined) {
            checkDefinition(row.layout, row.values);
            known.set(row.layout, (layout = layouts.ofDefinition(row.layout)));
          } else checkValuesFit(layout, row.values);
          const { doc, text, looseText } = row;
          // The stored JSON of an object; its text record at least as long as its header.
          if (!(doc instanceof Uint8Array) || doc.length < 2 || doc[0] !== 0x7b || doc[doc.length - 1] !== 0x7d) invalid('a stored row has no document');
          if (text !== null && (!(text instanceof Uint8Array) || text.length < 4 * row.layout.text.length)) invalid('a stored row\'s text is cut short');
          if (looseText !== null && (!Array.isArray(looseText) || !looseText.every((t) => typeof t === 'string'))) invalid('a stored row\'s text is not sound');
          let c = collections.get(row.collection);
          if (c === undefined) {
            collections.set(row.collection, (c = new Collection()));
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
