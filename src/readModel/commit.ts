/**
 * Commit validation shared by both read-model engines, so they accept and reject exactly the same commits with the
 * same messages: the commit's shape and checkpoint (`checkCommit`), each write (`checkWrite`), and the whole commit
 * prepared with its index entries as maps (`prepareCommit`, which the Redis engine stores from; the memory engine
 * lays out entries itself, src/readModel/memory/prepare.ts).
 */
import type { Checkpoint, Commit, Doc, Scalar } from '../ports/readModel';
import { invalid, isRecord, isScalar, norm } from './plan';

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
    for (let i = 0; i < this.pairs.length; i += 2)
      visit.call(thisArg, this.pairs[i + 1] as V, this.pairs[i] as string, this);
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
  if (index === undefined || index === null)
    return { sort: NO_FIELDS, sets: NO_FIELDS, text: NO_FIELDS, partitions: [] };
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
      if (!isScalar(value))
        invalid(`set field ${JSON.stringify(field)} holds a value that is not a finite number or a string`);
      sets.push(field, [norm(value)]);
      continue;
    }
    const distinct: Scalar[] = [];
    for (const v of value) {
      if (!isScalar(v))
        invalid(`set field ${JSON.stringify(field)} holds a value that is not a finite number or a string`);
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
  return {
    sort: new FieldMap(sort),
    sets: new FieldMap(sets),
    text: new FieldMap(text),
    partitions: partitions.length === 0 ? [] : partitions.slice(),
  };
}

/** Validates a commit's shape and checkpoint; throws a TypeError naming the first problem. */
export function checkCommit(commit: Commit): { name: string; checkpoint: Checkpoint } {
  if (!isRecord(commit) || !Array.isArray(commit.writes) || !isRecord(commit.checkpoint)) {
    invalid('a commit needs writes and a checkpoint');
  }
  const { name, position, version } = commit.checkpoint;
  if (typeof name !== 'string' || name === '') invalid('checkpoint name must be a non-empty string');
  if (!Number.isSafeInteger(position) || position < 0) invalid('checkpoint position must be a non-negative integer');
  if (!Number.isSafeInteger(version)) invalid('checkpoint version must be an integer');
  const expected = commit.expectedPosition;
  if (expected !== undefined && expected !== null && !(Number.isSafeInteger(expected) && expected >= 0))
    invalid('expectedPosition must be null or a non-negative integer');
  return { name, checkpoint: { position, version } };
}

/** Validates one write's collection, id and document shape (not yet its serialisation). */
export function checkWrite(
  write: unknown,
  n: number,
): { collection: string; id: Scalar; doc: Record<string, unknown> | null; json?: string } {
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
      copy =
        typeof json !== 'string'
          ? undefined
          : copies
            ? JSON.parse(json)
            : json.charCodeAt(0) === 0x7b
              ? doc
              : undefined;
    } catch (error) {
      invalid(`write ${n}: doc cannot be serialised (${(error as Error).message})`);
    }
    if (!isRecord(copy)) invalid(`write ${n}: doc does not serialise to a JSON object`);
    if (copy.id !== id)
      invalid(`write ${n}: doc.id ${JSON.stringify(copy.id)} is not the write's id ${JSON.stringify(id)}`);
    return { collection, id, json, doc: copy as Doc, entry: prepareEntry(write.index) };
  });
  return { writes, name, checkpoint };
}
