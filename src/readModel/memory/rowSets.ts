/** Rows by id (RowsById) and the members of a set index's value (one Row, a Set, or RowBits). */
import type { Scalar } from '../../ports/readModel';
import { Row } from './row';

/** Rows as queries read a set index's members. */
export interface RowSet {
  has(row: Row): boolean;
  readonly size: number;
  [Symbol.iterator](): Iterator<Row>;
}

/**
 * The members of a large set (a status most rows share) as one bit per row slot (Row.slot): 100,000 rows cost
 * 12.5 KB instead of a hash-set entry (some 24 bytes) each. Rows are those of one collection only.
 */
export class RowBits implements RowSet {
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
export type Members = Row | Set<Row> | RowBits;

/** A Set of members becomes RowBits at this share of the collection's slots, and back below a quarter of it. */
export const BITS_SHARE = 1 / 128;
export const BITS_MIN = 64;

export function membersAsSet(members: Members | undefined): RowSet | undefined {
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
export class RowsById {
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
