/** An order index: rows sorted by one sort key (or `id`), in chunks, walked from a bound either way. */
import type { Direction, Scalar } from '../../ports/readModel';
import { aboveLo, belowHi, compareScalars } from '../plan';
import type { Bounds } from '../plan';
import type { Row } from './row';

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
export class OrderIndex {
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
    for (let i = 0; i < n; i += CHUNK)
      index.chunks.push({ keys: orderedKeys.slice(i, i + CHUNK), rows: orderedRows.slice(i, i + CHUNK) });
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
