/**
 * Commit preparation for the memory engine: a commit validated as `prepareCommit` validates it (src/readModel/
 * commit.ts: the same checks, the same messages), its documents serialised and its index entries laid out against
 * the interned layouts, before anything is applied.
 */
import { types } from 'node:util';
import type { Checkpoint, Commit, Scalar } from '../../ports/readModel';
import { StaleCommitError } from '../../ports/readModel';
import { checkCommit, checkWrite } from '../commit';
import { invalid, isRecord, isScalar, norm } from '../plan';
import type { StoredWrite } from './collection';
import type { Layouts } from './layouts';
import { EMPTY_LAYOUT, NO_NAMES, NO_VALUES } from './row';
import { LONE_SURROGATE } from './textSearch';

/** A plain object that JSON.stringify writes field by field (no toJSON, no class). */
function isPlainRecord(value: Record<string, unknown>): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof value.toJSON !== 'function';
}

/** Refuses a commit whose checkpoint no longer stands where it expects (Commit.expectedPosition). */
export function checkExpectedPosition(expected: number | null, found: Checkpoint | undefined, name: string): void {
  const position = found === undefined ? null : found.position;
  if (position !== expected)
    throw new StaleCommitError(
      'checkpoint',
      `checkpoint ${name} is at ${position ?? 'none'}, not ${expected ?? 'none'}`,
    );
}

/**
 * Validates a commit and serialises its documents, as `prepareCommit` does (the same checks, the same messages),
 * laying out each index entry against the interned layouts and choosing which text columns stand for a field.
 */
export function prepareStoredCommit(
  commit: Commit,
  layouts: Layouts,
  entry: EntryReader,
): { writes: StoredWrite[]; name: string; checkpoint: Checkpoint } {
  const { name, checkpoint } = checkCommit(commit);
  const writes = commit.writes.map((write, n): StoredWrite => {
    const { collection, id, doc } = checkWrite(write, n);
    if (doc === null)
      return {
        collection,
        id,
        json: null,
        jsonBytes: 0,
        layout: EMPTY_LAYOUT,
        values: NO_VALUES,
        texts: NO_NAMES,
        textBytes: [],
        loose: false,
      };
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
    if (norm(plain.id as Scalar) !== id)
      invalid(`write ${n}: doc.id ${JSON.stringify(plain.id)} is not the write's id ${JSON.stringify(id)}`);
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
      const stands =
        stored === value && column !== '__proto__' && Object.hasOwn(plain, column) && plain[column] === value;
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
    return {
      collection,
      id,
      json: json!,
      jsonBytes: Buffer.byteLength(json!, 'utf8'),
      layout,
      values: entry.takeValues(),
      texts,
      textBytes,
      loose,
    };
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
function jsonWithPlaceholders(
  doc: Record<string, unknown>,
  textNames: readonly string[],
  elided: readonly boolean[],
): string {
  if (types.isProxy(doc)) return JSON.stringify(withPlaceholders(doc, textNames, elided));
  for (let i = 0; i < elided.length; i++) {
    if (!elided[i]) continue;
    const property = Object.getOwnPropertyDescriptor(doc, textNames[i]!);
    if (property === undefined || property.writable !== true)
      return JSON.stringify(withPlaceholders(doc, textNames, elided));
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
function withPlaceholders(
  doc: Record<string, unknown>,
  textNames: readonly string[],
  elided: readonly boolean[],
): Record<string, unknown> {
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
export class EntryReader {
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
    if (!isScalar(v))
      invalid(`set field ${JSON.stringify(field)} holds a value that is not a finite number or a string`);
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
