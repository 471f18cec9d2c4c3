/**
 * A stored document's row and the layout naming its index values: what every other part of the memory engine
 * holds and reads (src/readModel/memory/readModel.ts describes the whole).
 */
import type { Doc, Scalar } from '../../ports/readModel';

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
export class Row {
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

export const NO_VALUES: Scalar[] = [];
export const NO_NAMES: string[] = [];
export const EMPTY_LAYOUT: Layout = {
  key: '',
  sortNames: NO_NAMES,
  setNames: NO_NAMES,
  setStarts: [],
  setEnds: [],
  textNames: NO_NAMES,
  elided: [],
  anyElided: false,
  partitions: NO_NAMES,
};

export function sortKeyOf(row: Row, field: string): Scalar | undefined {
  if (field === 'id') return row.id;
  const names = row.layout.sortNames;
  for (let i = 0; i < names.length; i++) if (names[i] === field) return row.values[i];
  return undefined;
}

export function hasSortKey(row: Row, field: string): boolean {
  return row.layout.sortNames.includes(field);
}

export function hasSetValue(row: Row, field: string, value: Scalar): boolean {
  const { setNames, setStarts, setEnds } = row.layout;
  for (let i = 0; i < setNames.length; i++) {
    if (setNames[i] !== field) continue;
    for (let j = setStarts[i]!; j < setEnds[i]!; j++) if (row.values[j] === value) return true;
    return false;
  }
  return false;
}

export function* sortEntries(row: Row): Generator<[string, Scalar]> {
  const names = row.layout.sortNames;
  for (let i = 0; i < names.length; i++) yield [names[i]!, row.values[i]!];
}

export function* setEntries(row: Row): Generator<[string, Scalar]> {
  const { setNames, setStarts, setEnds } = row.layout;
  for (let i = 0; i < setNames.length; i++)
    for (let j = setStarts[i]!; j < setEnds[i]!; j++) yield [setNames[i]!, row.values[j]!];
}
/** What decides a row's places in the partition orders. */
export interface PartitionView {
  layout: Layout;
  values: Scalar[];
}

export function samePartitioning(a: PartitionView, b: PartitionView): boolean {
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
export function sortKeyIn(view: PartitionView, id: Scalar, key: string): Scalar | undefined {
  if (key === 'id') return id;
  const i = view.layout.sortNames.indexOf(key);
  return i < 0 ? undefined : view.values[i];
}

export function hasValueIn(view: PartitionView, field: string, value: Scalar): boolean {
  const { setNames, setStarts, setEnds } = view.layout;
  const i = setNames.indexOf(field);
  if (i < 0) return false;
  for (let j = setStarts[i]!; j < setEnds[i]!; j++) if (view.values[j] === value) return true;
  return false;
}

export function valuesIn(view: PartitionView, field: string): Scalar[] {
  const { setNames, setStarts, setEnds } = view.layout;
  const i = setNames.indexOf(field);
  return i < 0 ? NO_VALUES : view.values.slice(setStarts[i], setEnds[i]);
}
