/**
 * Layouts interned per read model (every row declaring the same index names shares one), and the layout
 * definitions and stored rows a snapshot writes and loads.
 */
import type { Scalar } from '../../ports/readModel';
import { invalid, isRecord, isScalar } from '../plan';
import type { Layout } from './row';
import type { EntryReader } from './prepare';

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
/** Interns layouts: every row declaring the same names (and as many values per set field) shares one. */
export class Layouts {
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
    sort: readonly string[],
    sortCount: number,
    sets: readonly string[],
    counts: readonly number[],
    setCount: number,
    text: readonly string[],
    elided: readonly boolean[],
    textCount: number,
    partitions: readonly string[],
    partitionCount: number,
  ): Layout {
    for (const layout of this.recent) {
      if (
        sameNames(layout.sortNames, sort, sortCount) &&
        sameNames(layout.setNames, sets, setCount) &&
        sameNames(layout.textNames, text, textCount) &&
        sameNames(layout.elided, elided, textCount) &&
        sameNames(layout.partitions, partitions, partitionCount) &&
        sameCounts(layout, counts)
      )
        return layout;
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
    return this.of(
      d.sort,
      d.sort.length,
      d.sets,
      d.counts,
      d.sets.length,
      d.text,
      d.elided,
      d.text.length,
      d.partitions,
      d.partitions.length,
    );
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
  for (let i = 0; i < layout.setNames.length; i++)
    if (layout.setEnds[i]! - layout.setStarts[i]! !== counts[i]) return false;
  return true;
}

export function definitionOf(layout: Layout): LayoutDefinition {
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
export function checkDefinition(d: LayoutDefinition, values: unknown): void {
  const names = (list: unknown) => Array.isArray(list) && list.every((x) => typeof x === 'string');
  if (!isRecord(d) || !names(d.sort) || !names(d.sets) || !names(d.text) || !names(d.partitions))
    invalid('a stored row has no sound layout');
  if (
    !Array.isArray(d.counts) ||
    d.counts.length !== d.sets.length ||
    !d.counts.every((c) => Number.isSafeInteger(c) && c >= 0)
  )
    invalid('a stored row has no sound layout');
  if (!Array.isArray(d.elided) || d.elided.length !== d.text.length || !d.elided.every((e) => typeof e === 'boolean'))
    invalid('a stored row has no sound layout');
  const total = d.sort.length + d.counts.reduce((a, b) => a + b, 0);
  if (!Array.isArray(values) || values.length !== total || !values.every(isScalar))
    invalid("a stored row's values do not fit its layout");
}

/** Checks a stored row's values against a layout already checked. */
export function checkValuesFit(layout: Layout, values: unknown): void {
  const total = layout.setEnds.length > 0 ? layout.setEnds[layout.setEnds.length - 1]! : layout.sortNames.length;
  if (!Array.isArray(values) || values.length !== total || !values.every(isScalar))
    invalid("a stored row's values do not fit its layout");
}
