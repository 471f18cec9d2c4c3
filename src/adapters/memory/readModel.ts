/**
 * The in-memory read model: the embedded default that serves production traffic on one machine.
 *
 * Indexes, per collection:
 * - `rows`: id → Row (the frozen document plus its normalised index entry). A Row object lives as long as its
 *   document, and is updated in place, so every index can hold Rows and a walk never looks anything up.
 * - `sets`: set field → value → Set<Row>.
 * - `orders`: sort key → OrderIndex, a chunked sorted array of (key, row) ordered by (key, id); `byId` is the
 *   same for ids. Chunks keep inserts and deletes cheap (a splice of at most ~1k entries), lookups are binary
 *   searches, and a walk can start at a bound and go either way.
 * - `partitionOrders`: per partition field (IndexEntry.partitions) and value, the same order indexes over that
 *   value's rows only, so a one-value filter on such a field pages by rank (`byPartition`).
 *
 * A query compiles its filters into nodes that can test a row, estimate the size of a candidate superset they
 * can list (set sizes, range counts), and sometimes count their matches exactly (one set's size, an
 * intersection of sets, a range count). The total comes from that count when there is one, otherwise from
 * listing the smallest candidate superset and testing it. The page then comes either from walking the order
 * index from the right end, testing rows until offset + limit matches were seen, or from sorting the matches,
 * whichever the estimates say is cheaper. So `status = publish` ordered by date, limit 10, costs a set size plus
 * a walk of about 10 / (share of published rows) entries: O(log n + offset + limit) for a given mix.
 *
 * Documents are stored as frozen JSON copies: freezing once per write is cheaper than copying on every read
 * (for a ~2 KB post, a JSON copy or structuredClone costs microseconds per read, a frozen object nothing).
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
  IndexEntry,
  Order,
  QueryPlan,
  QueryResult,
  ReadModel,
  Scalar,
} from '../../ports/readModel';

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
  /** The document's JSON (absent for a delete, and when prepared with a `DocCopier`, which never serialises). */
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

function entries(value: unknown, what: string): [string, unknown][] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) invalid(`index ${what} must be an object`);
  // undefined / null mean absent, as JSON would have it.
  return Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
}

function prepareEntry(index: unknown): PreparedEntry {
  if (index === undefined || index === null) return { sort: NO_FIELDS, sets: NO_FIELDS, text: NO_FIELDS, partitions: [] };
  if (!isRecord(index)) invalid('index entry must be an object');
  const sort: unknown[] = [];
  const sets: unknown[] = [];
  const text: unknown[] = [];
  const partitions: string[] = [];
  // Object.entries gives each field once, so pushing builds a map without repeated names.
  for (const [field, value] of entries(index.sort, 'sort')) {
    if (field === 'id') invalid('`id` is implicitly a sort key and must not be declared');
    if (!isScalar(value)) invalid(`sort key ${JSON.stringify(field)} must be a finite number or a string`);
    sort.push(field, norm(value));
  }
  for (const [field, value] of entries(index.sets, 'sets')) {
    if (field === 'id') invalid('`id` is implicitly a set field and must not be declared');
    const list = Array.isArray(value) ? value : [value];
    const distinct: Scalar[] = [];
    for (const v of list) {
      if (!isScalar(v)) invalid(`set field ${JSON.stringify(field)} holds a value that is not a finite number or a string`);
      const n = norm(v);
      if (!distinct.includes(n)) distinct.push(n);
    }
    // Exactly sized (see FieldMap): most set fields hold one value.
    sets.push(field, distinct.length === 1 ? [distinct[0]!] : distinct.slice());
  }
  for (const [column, value] of entries(index.text, 'text')) {
    if (typeof value !== 'string') invalid(`text column ${JSON.stringify(column)} must be a string`);
    text.push(column, value);
  }
  if (index.partitions !== undefined && index.partitions !== null) {
    if (!Array.isArray(index.partitions)) invalid('index partitions must be a list of set field names');
    for (const field of index.partitions as unknown[]) {
      if (typeof field !== 'string') invalid('index partitions must be a list of set field names');
      if (field === 'id') invalid('`id` cannot be a partition field');
      if (!partitions.includes(field)) partitions.push(field);
    }
  }
  // The maps are made last: FieldMap copies its array.
  return { sort: new FieldMap(sort), sets: new FieldMap(sets), text: new FieldMap(text), partitions: partitions.length === 0 ? [] : partitions.slice() };
}

/** Thrown inside `DocCopier.copy` when a value needs JSON's own rules (toJSON, class instances, cycles, depth). */
const NEEDS_JSON = Symbol('needs JSON');

/**
 * Makes the frozen JSON copies the memory read model stores, without serialising: plain objects, arrays and
 * primitives are copied as JSON would (undefined and functions dropped from objects and null in arrays,
 * non-finite numbers as null) and frozen as they are made. A subtree that is the very object the document's
 * stored version holds at the same place is frozen and JSON-clean already, so it is shared instead of copied: a
 * projection's `{ ...doc, title }` copies one level. (Marking its copies instead, in a WeakSet or a hidden
 * property, cost the garbage collector or memory at a hundred thousand documents.)
 * Anything else (Dates and other toJSON, class instances, `__proto__` keys, very deep or cyclic values) takes
 * the JSON round trip, so the result always equals `JSON.parse(JSON.stringify(value))`.
 */
export class DocCopier {
  /** `storedOf` gives the stored version of a document (frozen, made by this copier or adopted), if any. */
  constructor(readonly storedOf?: (collection: string, id: Scalar) => unknown) {}

  /**
   * Freezes a value fresh from JSON.parse in place, to be stored as it is: it is JSON-clean already, and nobody
   * else holds it.
   */
  adopt(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    // Loops rather than Object.values: loading a site adopts millions of objects, and each array is garbage.
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) this.adopt(value[i]);
    } else {
      for (const key in value) this.adopt((value as Record<string, unknown>)[key]);
    }
    Object.freeze(value);
    return value;
  }

  /**
   * The frozen JSON copy of `value`. Where `value` holds, at some path, the very object `stored` (the document's
   * stored version) holds at that path, that object is shared: it is frozen and JSON-clean already.
   */
  copy(value: unknown, stored?: unknown): unknown {
    try {
      return this.plain(value, 0, stored);
    } catch (error) {
      if (error !== NEEDS_JSON) throw error;
    }
    const json = JSON.stringify(value);
    return json === undefined ? undefined : this.plain(JSON.parse(json), 0, undefined);
  }

  /** The copy, or undefined where JSON leaves a property out. */
  private plain(value: unknown, depth: number, stored: unknown): unknown {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        // -0 as 0, as JSON has it.
        return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      case 'object': {
        if (value === null) return null;
        if (value === stored) return value;
        if (depth > 64) throw NEEDS_JSON;
        const under = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : undefined;
        let out: unknown[] | Record<string, unknown>;
        if (Array.isArray(value)) {
          const list: unknown[] = new Array(value.length);
          const storedList = Array.isArray(under) ? under : undefined;
          for (let i = 0; i < value.length; i++) list[i] = this.plain(value[i], depth + 1, storedList?.[i]) ?? null;
          out = list;
        } else {
          const proto: unknown = Object.getPrototypeOf(value);
          if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NEEDS_JSON;
          const record: Record<string, unknown> = {};
          for (const key of Object.keys(value)) {
            if (key === '__proto__') throw NEEDS_JSON;
            const inner = this.plain((value as Record<string, unknown>)[key], depth + 1, under !== undefined && !Array.isArray(under) && Object.hasOwn(under, key) ? under[key] : undefined);
            if (inner !== undefined) record[key] = inner;
          }
          out = record;
        }
        Object.freeze(out);
        return out;
      }
      default:
        // bigint: JSON refuses it, with its own message.
        throw NEEDS_JSON;
    }
  }
}

/**
 * Validates a whole commit before anything is applied; throws a TypeError naming the first problem. Documents are
 * copied through JSON (and their JSON kept), or with `copier` (frozen copies, no JSON).
 */
export function prepareCommit(commit: Commit, copier?: DocCopier): PreparedCommit {
  if (!isRecord(commit) || !Array.isArray(commit.writes) || !isRecord(commit.checkpoint)) {
    invalid('a commit needs writes and a checkpoint');
  }
  const { name, position, version } = commit.checkpoint;
  if (typeof name !== 'string' || name === '') invalid('checkpoint name must be a non-empty string');
  if (!Number.isSafeInteger(position) || position < 0) invalid('checkpoint position must be a non-negative integer');
  if (!Number.isSafeInteger(version)) invalid('checkpoint version must be an integer');
  const writes = commit.writes.map((write, n): PreparedWrite => {
    if (!isRecord(write)) invalid(`write ${n} is not an object`);
    const { collection, doc } = write;
    if (typeof collection !== 'string' || collection === '') invalid(`write ${n}: collection must be a non-empty string`);
    if (!isScalar(write.id)) invalid(`write ${n}: id must be a finite number or a string`);
    const id = norm(write.id);
    if (doc === null) return { collection, id, doc: null, entry: prepareEntry(undefined) };
    if (!isRecord(doc)) invalid(`write ${n}: doc must be an object or null`);
    let json: string | undefined;
    let copy: unknown;
    try {
      if (copier) copy = copier.copy(doc, copier.storedOf?.(collection, id));
      else {
        json = JSON.stringify(doc);
        copy = typeof json === 'string' ? JSON.parse(json) : undefined;
      }
    } catch (error) {
      invalid(`write ${n}: doc cannot be serialised (${(error as Error).message})`);
    }
    if (!isRecord(copy)) invalid(`write ${n}: doc does not serialise to a JSON object`);
    if (copy.id !== id) invalid(`write ${n}: doc.id ${JSON.stringify(copy.id)} is not the write's id ${JSON.stringify(id)}`);
    return { collection, id, json, doc: copy as Doc, entry: prepareEntry(write.index) };
  });
  return { writes, name, checkpoint: { position, version } };
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
      return checkValues(filter.values, `${filter.kind} filter`);
    case 'range':
      if (typeof filter.field !== 'string') invalid('range filter needs a field');
      for (const bound of [filter.gt, filter.gte, filter.lt, filter.lte]) {
        if (bound !== undefined && !isScalar(bound)) invalid('range bounds must be finite numbers or strings');
      }
      return;
    case 'text':
      checkStrings(filter.fields, 'text filter fields');
      checkStrings(filter.includes, 'text filter includes');
      return checkStrings(filter.excludes, 'text filter excludes');
    case 'or':
    case 'and':
      if (!Array.isArray(filter.filters)) invalid(`${filter.kind} filter needs filters`);
      return filter.filters.forEach(checkFilter);
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
      return checkDirection(order.direction);
    case 'list':
      if (typeof order.field !== 'string') invalid('list order needs a field');
      return checkValues(order.values, 'list order');
    case 'relevance':
      if (typeof order.phrase !== 'string') invalid('relevance order needs a phrase');
      checkStrings(order.terms, 'relevance terms');
      if (!isRecord(order.columns)) invalid('relevance order needs columns');
      checkStrings([order.columns.title, order.columns.excerpt, order.columns.content], 'relevance columns');
      if (!isRecord(order.then) || typeof order.then.field !== 'string') invalid('relevance order needs `then`');
      return checkDirection(order.then.direction);
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

interface Row {
  readonly id: Scalar;
  doc: Doc;
  sort: ReadonlyMap<string, Scalar>;
  sets: ReadonlyMap<string, Scalar[]>;
  /**
   * Text columns as `textMatcher` reads them: an ASCII column as it is (the document's own string, no copy), any
   * other lowercased once per write.
   */
  text: ReadonlyMap<string, string>;
  /** The partition fields its entry declared. */
  partitions: string[];
}

interface Entry {
  key: Scalar;
  row: Row;
}

function compareEntries(a: Entry, b: Entry): number {
  return compareScalars(a.key, b.key) || compareScalars(a.row.id, b.row.id);
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

  /** An index of `entries`, which it sorts (a bulk build: one sort instead of an insert each). */
  static of(entries: Entry[]): OrderIndex {
    entries.sort(compareEntries);
    const index = new OrderIndex();
    for (let i = 0; i < entries.length; i += CHUNK) {
      const part = entries.slice(i, i + CHUNK);
      index.chunks.push({ keys: part.map((e) => e.key), rows: part.map((e) => e.row) });
    }
    index.size = entries.length;
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
    if (chunk.keys.length > 2 * CHUNK) this.chunks.splice(ci + 1, 0, { keys: chunk.keys.splice(CHUNK), rows: chunk.rows.splice(CHUNK) });
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

/**
 * Whether a stored text column (Row.text) contains a search term (lowercased), as `lowercased column includes
 * term`. ASCII columns are stored as they are, others lowercased (most sites' text is ASCII, and a lowercased copy
 * of every post body was a fifth of the memory read model's heap). A non-ASCII term cannot occur in a lowercased
 * ASCII column, and occurs in a lowercased one exactly where `includes` finds it. An ASCII term with letters is
 * matched by a case-insensitive RegExp: without the `u` flag it folds ASCII letters only (no non-ASCII character
 * folds to an ASCII one), so in an ASCII column it matches where the lowercased column contains the term, and in a
 * lowercased column (whose ASCII letters are all lowercase) exactly where `includes` does.
 */
export function textMatcher(term: string): (text: string) => boolean {
  if (ASCII.test(term) && ASCII_LETTER.test(term)) {
    const pattern = new RegExp(term.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'), 'i');
    return (text) => pattern.test(text);
  }
  // No letters (case cannot matter) or not ASCII (see above).
  return (text) => text.includes(term);
}

/** What decides a row's places in the partition orders. */
interface PartitionView {
  sort: ReadonlyMap<string, Scalar>;
  sets: ReadonlyMap<string, Scalar[]>;
  partitions: string[];
}

function samePartitioning(a: PartitionView, b: PartitionView): boolean {
  if (a.partitions.length !== b.partitions.length || a.partitions.some((f, i) => f !== b.partitions[i])) return false;
  if (a.sort.size !== b.sort.size) return false;
  for (const [key, k] of a.sort) if (b.sort.get(key) !== k) return false;
  for (const field of a.partitions) {
    const x = a.sets.get(field) ?? [];
    const y = b.sets.get(field) ?? [];
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
  }
  return true;
}

class Collection {
  readonly rows = new Map<Scalar, Row>();
  byId = new OrderIndex();
  readonly orders = new Map<string, OrderIndex>();
  readonly sets = new Map<string, Map<Scalar, Set<Row>>>();
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

  put(id: Scalar, doc: Doc, entry: PreparedEntry): void {
    this.textMatches.clear();
    const lowered: unknown[] = [];
    for (const [column, value] of entry.text) lowered.push(column, ASCII.test(value) ? value : value.toLowerCase());
    const text = new FieldMap<string>(lowered);
    let row = this.rows.get(id);
    if (this.deferred) {
      if (row === undefined) this.rows.set(id, { id, doc, sort: entry.sort, sets: entry.sets, text, partitions: entry.partitions });
      else Object.assign(row, { doc, sort: entry.sort, sets: entry.sets, text, partitions: entry.partitions });
      return;
    }
    if (row === undefined) {
      row = { id, doc, sort: NO_FIELDS, sets: NO_FIELDS, text, partitions: [] };
      this.rows.set(id, row);
      this.byId.insert({ key: id, row });
    }
    row.doc = doc;
    row.text = text;
    const before: PartitionView = { sort: row.sort, sets: row.sets, partitions: row.partitions };
    for (const [field, key] of row.sort) {
      const next = entry.sort.get(field);
      if (next !== key) this.orders.get(field)!.remove({ key, row });
      if (next === undefined) this.dropEmptyOrder(field);
    }
    for (const [field, key] of entry.sort) {
      if (row.sort.get(field) === key) continue;
      let index = this.orders.get(field);
      if (index === undefined) this.orders.set(field, (index = new OrderIndex()));
      index.insert({ key, row });
    }
    row.sort = entry.sort;
    for (const [field, values] of row.sets) {
      const next = entry.sets.get(field);
      for (const value of values) if (next === undefined || !next.includes(value)) this.leaveSet(field, value, row);
    }
    for (const [field, values] of entry.sets) {
      const previous = row.sets.get(field);
      for (const value of values) if (previous === undefined || !previous.includes(value)) this.joinSet(field, value, row);
    }
    row.sets = entry.sets;
    this.repartition(row, before, { sort: entry.sort, sets: entry.sets, partitions: entry.partitions });
  }

  delete(id: Scalar): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.textMatches.clear();
    if (this.deferred) {
      this.rows.delete(id);
      return;
    }
    this.repartition(row, { sort: row.sort, sets: row.sets, partitions: row.partitions }, { sort: NO_FIELDS, sets: NO_FIELDS, partitions: [] });
    for (const [field, key] of row.sort) {
      this.orders.get(field)!.remove({ key, row });
      this.dropEmptyOrder(field);
    }
    for (const [field, values] of row.sets) for (const value of values) this.leaveSet(field, value, row);
    this.byId.remove({ key: id, row });
    this.rows.delete(id);
  }

  /** Builds every index of a bulk load from the rows (see `deferred`); the indexes must be empty. */
  indexAll(): void {
    if (!this.deferred) return;
    this.deferred = false;
    const byId: Entry[] = [];
    const orders = new Map<string, Entry[]>();
    const partitions = new Map<string, Map<Scalar, Map<string, Entry[]>>>();
    const push = (into: Map<string, Entry[]>, field: string, entry: Entry) => {
      const list = into.get(field);
      if (list === undefined) into.set(field, [entry]);
      else list.push(entry);
    };
    for (const row of this.rows.values()) {
      byId.push({ key: row.id, row });
      for (const [field, key] of row.sort) push(orders, field, { key, row });
      for (const [field, values] of row.sets) for (const value of values) this.joinSet(field, value, row);
      for (const field of row.partitions) {
        for (const value of row.sets.get(field) ?? []) {
          let byValue = partitions.get(field);
          if (byValue === undefined) partitions.set(field, (byValue = new Map()));
          let own = byValue.get(value);
          if (own === undefined) byValue.set(value, (own = new Map()));
          push(own, 'id', { key: row.id, row });
          for (const [key, k] of row.sort) push(own, key, { key: k, row });
        }
      }
    }
    this.byId = OrderIndex.of(byId);
    for (const [field, entries] of orders) this.orders.set(field, OrderIndex.of(entries));
    for (const [field, byValue] of partitions) {
      const indexed = new Map<Scalar, Map<string, OrderIndex>>();
      for (const [value, own] of byValue) indexed.set(value, new Map([...own].map(([key, entries]) => [key, OrderIndex.of(entries)])));
      this.partitionOrders.set(field, indexed);
    }
  }

  // --- partitions (IndexEntry.partitions) ---

  /** Per partition field and value, the value's rows ordered by each sort key, and by id under `id`. */
  readonly partitionOrders = new Map<string, Map<Scalar, Map<string, OrderIndex>>>();

  /** The orders of one partition value, if any row declared it. */
  partition(field: string, value: Scalar): Map<string, OrderIndex> | undefined {
    return this.partitionOrders.get(field)?.get(value);
  }

  /** Moves a row between partition orders when its partitions, their values or its sort keys changed. */
  private repartition(row: Row, before: PartitionView, after: PartitionView): void {
    const left = before.partitions;
    row.partitions = after.partitions;
    if (left.length === 0 && after.partitions.length === 0) return;
    if (samePartitioning(before, after)) return;
    for (const field of left) {
      for (const value of before.sets.get(field) ?? []) {
        const byValue = this.partitionOrders.get(field)!;
        const orders = byValue.get(value)!;
        orders.get('id')!.remove({ key: row.id, row });
        for (const [key, k] of before.sort) orders.get(key)!.remove({ key: k, row });
        for (const [key, index] of orders) if (index.size === 0) orders.delete(key);
        if (orders.size === 0) byValue.delete(value);
        if (byValue.size === 0) this.partitionOrders.delete(field);
      }
    }
    for (const field of after.partitions) {
      for (const value of after.sets.get(field) ?? []) {
        let byValue = this.partitionOrders.get(field);
        if (byValue === undefined) this.partitionOrders.set(field, (byValue = new Map()));
        let orders = byValue.get(value);
        if (orders === undefined) byValue.set(value, (orders = new Map()));
        const add = (key: string, k: Scalar) => {
          let index = orders!.get(key);
          if (index === undefined) orders!.set(key, (index = new OrderIndex()));
          index.insert({ key: k, row });
        };
        add('id', row.id);
        for (const [key, k] of after.sort) add(key, k);
      }
    }
  }

  private dropEmptyOrder(field: string): void {
    if (this.orders.get(field)?.size === 0) this.orders.delete(field);
  }

  private joinSet(field: string, value: Scalar, row: Row): void {
    let byValue = this.sets.get(field);
    if (byValue === undefined) this.sets.set(field, (byValue = new Map()));
    let set = byValue.get(value);
    if (set === undefined) byValue.set(value, (set = new Set()));
    set.add(row);
  }

  private leaveSet(field: string, value: Scalar, row: Row): void {
    const byValue = this.sets.get(field)!;
    const set = byValue.get(value)!;
    set.delete(row);
    if (set.size === 0) byValue.delete(value);
    if (byValue.size === 0) this.sets.delete(field);
  }
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
  sets?: Set<Row>[];
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

function intersectionCount(sets: Set<Row>[]): number {
  if (sets.length === 0) return -1;
  const sorted = [...sets].sort((a, b) => a.size - b.size);
  const [smallest, ...rest] = sorted;
  if (rest.length === 0) return smallest!.size;
  let n = 0;
  for (const row of smallest!) if (rest.every((s) => s.has(row))) n++;
  return n;
}

function unionCount(sets: Set<Row>[]): number {
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

function sortKeyOf(row: Row, field: string): Scalar | undefined {
  return field === 'id' ? row.id : row.sort.get(field);
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
        const byValue = this.c.sets.get(filter.field);
        const sets = values.map((v) => byValue?.get(v));
        if (sets.some((s) => s === undefined)) return FALSE;
        const present = sets as Set<Row>[];
        const field = filter.field;
        return {
          test: (row) => {
            const own = row.sets.get(field);
            return own !== undefined && values.every((v) => own.includes(v));
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
        const index = field === 'id' ? this.c.byId : this.c.orders.get(field);
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
            index.each('asc', bounds, 0, (e) => (rows.push(e.row), false));
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
        // documents. One scan of the lowercased columns finds the matches, kept until the next write.
        const included = includes.map(textMatcher);
        const excluded = excludes.map(textMatcher);
        const matchesText = (row: Row): boolean => {
          const texts = fields.map((f) => row.text.get(f) ?? '');
          return included.every((has) => texts.some(has)) && !excluded.some((has) => texts.some(has));
        };
        const key = JSON.stringify([fields, includes, excludes]);
        const cache = this.c.textMatches;
        let found = cache.get(key);
        if (found === undefined) {
          found = new Set();
          for (const row of this.c.rows.values()) if (matchesText(row)) found.add(row);
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
    const byValue = this.c.sets.get(field);
    const sets = values.map((v) => byValue?.get(v)).filter((s): s is Set<Row> => s !== undefined);
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
    const index = field === 'id' ? this.c.byId : this.c.orders.get(field);
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
        const missing = rows.filter((r) => !r.sort.has(field)).sort((a, b) => sign * compareScalars(a.id, b.id));
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
          order.field === 'id' ? [this.c.rows.get(value)] : [...(this.c.sets.get(order.field)?.get(value) ?? [])];
        const bucket = listed.filter((r): r is Row => r !== undefined && matched.has(r) && !placed.has(r));
        bucket.forEach((r) => placed.add(r));
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
      const t = row.text.get(title) ?? '';
      let rank = 5;
      if (phrase !== '' && hasPhrase(t)) rank = 0;
      else if (terms.length > 0 && terms.every((has) => has(t))) rank = 1;
      else if (terms.some((has) => has(t))) rank = 2;
      else if (phrase !== '' && hasPhrase(row.text.get(excerpt) ?? '')) rank = 3;
      else if (phrase !== '' && hasPhrase(row.text.get(content) ?? '')) rank = 4;
      ranks[rank]!.push(row);
    }
    for (const rows of ranks) segment(rows, order.then.field, order.then.direction);
    return { rows: out, total };
  }

  /**
   * A partition-shaped plan paged by rank in the partition's order: null when some row holding the value did not
   * declare the field a partition, or when the page reaches rows without the order key (the general path serves
   * those).
   */
  private byPartition(shape: PartitionShape, offset: number, take: number): { rows: Row[]; total: number } | null {
    const orders = this.c.partition(shape.field, shape.value);
    const size = orders?.get('id')?.size ?? 0;
    if (size !== (this.c.sets.get(shape.field)?.get(shape.value)?.size ?? 0)) return null;
    const index = orders?.get(shape.order);
    const keyed = index?.size ?? 0;
    const total = shape.bounds === undefined ? size : (index?.count(shape.bounds) ?? 0);
    if (shape.bounds === undefined && keyed < size && offset + take > keyed) return null;
    const rows: Row[] = [];
    if (index === undefined || take === 0 || offset >= total) return { rows, total };
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
    const index = field === 'id' ? this.c.byId : this.c.orders.get(field);
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
      this.c.byId.each(direction, undefined, 0, (e) => {
        if (e.row.sort.has(field) || !node.test(e.row)) return false;
        if (seen++ >= offset) out.push(e.row);
        return out.length >= take || seen >= total;
      });
    }
    return { rows: out, total };
  }
}

// ---------------------------------------------------------------------------------------------------------

/** One stored document, as a snapshot keeps it (its index entry is the projection's to compute again). */
export interface SnapshotRow {
  collection: string;
  id: Scalar;
  doc: Doc;
}

/** The memory read model, plus what a snapshot of it needs (src/adapters/memory/snapshot.ts). */
export interface MemoryReadModel extends ReadModel {
  /** Every checkpoint and stored row, for writing a snapshot. */
  dump(): { checkpoints: [string, Checkpoint][]; rows: Iterable<SnapshotRow> };
  /**
   * Loads a snapshot's checkpoints and rows (documents parsed from JSON, so JSON-clean) into this read model,
   * which must be empty, indexing each document with `index` (the projection's). Throws, leaving the read model
   * empty, on an invalid entry.
   */
  load(checkpoints: [string, Checkpoint][], rows: Iterable<SnapshotRow>, index: (doc: Doc, collection: string) => IndexEntry | undefined): void;
}

export function createMemoryReadModel(): MemoryReadModel {
  const collections = new Map<string, Collection>();
  const checkpoints = new Map<string, Checkpoint>();
  // Stored documents are its frozen copies, so unchanged parts of a document are shared between its versions.
  const copier = new DocCopier((collection, id) => lookup(collection, id));

  const lookup = (collection: string, id: DocId): Doc | null => {
    if (!isScalar(id)) return null;
    return collections.get(collection)?.rows.get(norm(id))?.doc ?? null;
  };

  return {
    async get(collection, id) {
      return lookup(collection, id);
    },

    async getMany(collection, ids) {
      return ids.map((id) => lookup(collection, id));
    },

    async query(collection, plan): Promise<QueryResult> {
      checkPlan(plan);
      const c = collections.get(collection);
      if (c === undefined) return { items: [], total: 0 };
      c.indexAll();
      const { rows, total } = new Query(c).run(plan);
      return { items: rows.map((r) => r.doc), total };
    },

    async commit(commit) {
      // Everything that can fail happens in prepareCommit; applying below cannot throw, so it is all or nothing.
      const prepared = prepareCommit(commit, copier);
      for (const write of prepared.writes) {
        let c = collections.get(write.collection);
        if (write.doc === null) {
          c?.delete(write.id);
          continue;
        }
        if (c === undefined) collections.set(write.collection, (c = new Collection()));
        c.put(write.id, write.doc, write.entry);
      }
      checkpoints.set(prepared.name, prepared.checkpoint);
    },

    async checkpoint(name) {
      const cp = checkpoints.get(name);
      return cp === undefined ? null : { ...cp };
    },

    async reset(name, names) {
      checkpoints.delete(name);
      for (const collection of names) collections.delete(collection);
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

    dump() {
      function* rows(): Iterable<SnapshotRow> {
        for (const [collection, c] of collections) {
          for (const row of c.rows.values()) {
            yield { collection, id: row.id, doc: row.doc };
          }
        }
      }
      return { checkpoints: [...checkpoints].map(([name, cp]) => [name, { ...cp }]), rows: rows() };
    },

    load(loadedCheckpoints, rows, index) {
      if (collections.size > 0 || checkpoints.size > 0) throw new Error('read model: a snapshot loads into an empty read model only');
      try {
        for (const row of rows) {
          if (!isScalar(row.id) || !isRecord(row.doc) || row.doc.id !== row.id) invalid('a snapshot row needs a scalar id and its document');
          let c = collections.get(row.collection);
          if (c === undefined) {
            collections.set(row.collection, (c = new Collection()));
            c.deferred = true;
          }
          const doc = copier.adopt(row.doc) as Doc;
          c.put(norm(row.id), doc, prepareEntry(index(doc, row.collection)));
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
