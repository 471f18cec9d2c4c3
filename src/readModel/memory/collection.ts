/** One collection of the memory engine: its rows, their bytes in arenas, and its indexes. */
import type { Scalar } from '../../ports/readModel';
import { Arena } from './arena';
import { OrderIndex } from './orderIndex';
import {
  EMPTY_LAYOUT,
  NO_VALUES,
  Row,
  hasValueIn,
  samePartitioning,
  setEntries,
  sortEntries,
  sortKeyIn,
  sortKeyOf,
  valuesIn,
} from './row';
import type { Layout, PartitionView } from './row';
import { BITS_MIN, BITS_SHARE, RowBits, RowsById, membersAsSet } from './rowSets';
import type { Members, RowSet } from './rowSets';

/** A write ready to apply: validated, serialised, its index entry laid out. */
export interface StoredWrite {
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
/** Value arrays of at most this many values are shared between rows (Collection.sharedValues)... */
const SHARED_VALUES_MAX = 8;
/** ...while there are at most this many different ones. */
const SHARED_VALUES_KEPT = 4096;

/** The collection's rows, their bytes and their indexes. */
export class Collection {
  /** Rows by slot (RowBits, RowsById), with the slots deleted rows left free. */
  readonly slots: (Row | undefined)[] = [];
  readonly rows = new RowsById(this.slots);
  private readonly freeSlots: number[] = [];
  /**
   * The rows' bytes, each record owned by its row's slot. A dead record's slot may hold a later row by then: that
   * row's record is elsewhere (a location names one record), so it is not taken for the owner.
   */
  readonly docs = new Arena({
    isLive: (slot, at) => this.slots[slot]?.doc === at,
    moved: (slot, _from, to) => (this.slots[slot]!.doc = to),
  });
  readonly texts = new Arena({
    isLive: (slot, at) => this.slots[slot]?.text === at,
    moved: (slot, _from, to) => (this.slots[slot]!.text = to),
  });
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

  /** `textMatchesKept`: the most text matches kept (the cache budget's `textMatches`; 0 keeps none). */
  constructor(readonly textMatchesKept: number) {}
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
  putStored(
    id: Scalar,
    layout: Layout,
    values: Scalar[],
    doc: Uint8Array,
    text: Uint8Array | null,
    looseText: string[] | null,
  ): void {
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
      for (let j = old.setStarts[i]!; j < old.setEnds[i]!; j++)
        if (!hasValueIn(after, old.setNames[i]!, before.values[j]!))
          this.leaveSet(old.setNames[i]!, before.values[j]!, row);
    }
    row.layout = layout;
    row.values = values;
    for (let i = 0; i < layout.setNames.length; i++) {
      for (let j = layout.setStarts[i]!; j < layout.setEnds[i]!; j++)
        if (!hasValueIn(before, layout.setNames[i]!, values[j]!)) this.joinSet(layout.setNames[i]!, values[j]!, row);
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
        for (let j = setStarts[i]!; j < setEnds[i]!; j++)
          this.join((seen.sets[i] ??= this.valuesOf(setNames[i]!)), values[j]!, row);
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
      if (members instanceof Set && members.size >= BITS_MIN && members.size >= this.slots.length * BITS_SHARE)
        byValue.set(value, new RowBits(this.slots, members));
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
      else if (members instanceof RowBits && members.size < this.slots.length * (BITS_SHARE / 4))
        byValue.set(value, new Set(members));
    }
    if (byValue.size === 0) this.sets.delete(field);
  }

  /** The rows holding a set value (a new Set for a single row: callers only read it). */
  members(field: string, value: Scalar): RowSet | undefined {
    return membersAsSet(this.sets.get(field)?.get(value));
  }
}
