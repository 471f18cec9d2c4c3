import { types } from 'node:util';
import type { RecordedEvent } from '../ports/eventStore';
import type { Doc, DocId, IndexEntry } from '../ports/readModel';

/** A document of the projection's own read model. */
export interface DocTarget {
  collection: string;
  id: DocId;
}

/** The projection's own documents as they were just before the event (only those the event changes). */
export type ReadOwn = (collection: string, id: DocId) => Doc | null;

/** What `evolve` is told about the document it folds, for projections that change several per event. */
export interface EvolveContext extends DocTarget {
  read: ReadOwn;
}

/**
 * A projection: a pure fold of events into read-model documents. The runner feeds it the global log, keeps
 * its checkpoint, and rebuilds it from the log whenever `version` changes. Modules in `projections/` (and in
 * PROJECTIONS_DIR) default-export one of these.
 */
export interface Projection<D extends Doc = Doc> {
  /** Unique, stable name; also the checkpoint's name. */
  name: string;
  /** Bump it whenever `evolve` or `index` change meaning: the read model is then rebuilt from the log. */
  version: number;
  /** Every collection the projection writes, so a rebuild can clear them. */
  collections: readonly string[];
  /** The event types it handles; others only move its checkpoint. */
  handles: readonly string[];
  /** The document an event changes, or null to skip it. */
  locate(event: RecordedEvent): DocTarget | null;
  /**
   * Optional: further documents the event changes, which depend on the projection's own state rather than on
   * the event alone (an aggregate keyed by a field the event does not carry). `read` gives the located
   * document as it was before the event. Every returned document is then folded with the same event.
   */
  related?(event: RecordedEvent, read: ReadOwn): readonly DocTarget[];
  /**
   * The next state of the document; null deletes it. Must not mutate `doc`. `context` names the document
   * being folded and reads the event's other documents (located and related) as they were before it.
   */
  evolve(doc: D | null, event: RecordedEvent, context?: EvolveContext): D | null;
  /** How list queries find the document. */
  index?(doc: D, collection: string): IndexEntry;
}

/**
 * `{ ...base, ...fields }`, made by Object.assign onto a fresh object instead: V8 gives an object spread its own
 * copy of the source's hidden class, so every field added after the spread makes new hidden classes for that one
 * object (some 25 µs for a post made from its event's fields, most of a replay's fold), where Object.assign follows
 * the shared transitions. An own `__proto__` key (of either), which Object.assign would take for the prototype, keeps
 * the spread.
 */
export function withFields<B extends object, F extends object>(base: B, fields: F): Spread<B, F> {
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(fields, '__proto__')) return { ...base, ...fields } as Spread<B, F>;
  const copy = manyFields(base) ? copierFor(base, fields) : null;
  return (copy ? copy(base, fields) : Object.assign({}, base, fields)) as Spread<B, F>;
}

/**
 * Object.assign adds each field with a keyed store, and V8 turns an object given more than 16 fields that way into a
 * dictionary: a post's document (35 fields) then took ~3.5 µs to make, and serialising it and reading its index
 * fields twice as long as for an ordinary object. An object literal of the same fields is an ordinary object with a
 * shared hidden class, made in ~0.3 µs, so results of many fields come from a copier compiled for their shape (the
 * base's and the fields' own keys, in order) once that shape has been seen twice. The copier reads every value in
 * Object.assign's order (getters run as they would) and the literal lists the keys in the result's order (a key of
 * both keeps the base's place and takes the fields' value). A pure memo: results never depend on what it holds.
 */
type Copier = (base: object, fields: object) => object;
interface Shape {
  baseKeys: string[];
  fieldKeys: string[];
  seen: number;
  /** undefined until compiled; null when it could not be. */
  copy: Copier | null | undefined;
}
const shapes: Shape[] = [];
const SHAPES_KEPT = 8;
/** Up to this many fields, V8 keeps Object.assign's result an ordinary object: no copier needed. */
const FEW_FIELDS = 12;
/** Longer shapes are left to Object.assign (the copier's source grows with them). */
const MOST_FIELDS = 256;

function manyFields(base: object): boolean {
  let n = 0;
  for (const _ in base) if (++n > FEW_FIELDS) return true;
  return false;
}

/** True when `object`'s enumerable keys (for-in's) are exactly `keys` in order. */
function hasKeys(object: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in object) if (keys[i++] !== key) return false;
  return i === keys.length;
}

/**
 * An object whose for-in lists exactly the own string keys Object.assign copies, and nothing else it copies: no
 * proxy, no own symbols, nothing enumerable inherited.
 */
function copiesAsListed(object: object): boolean {
  if (types.isProxy(object) || Object.getOwnPropertySymbols(object).length > 0) return false;
  const proto: unknown = Object.getPrototypeOf(object);
  if (proto !== null) for (const _ in proto as object) return false;
  return true;
}

function copierFor(base: object, fields: object): Copier | null {
  if (!copiesAsListed(base) || !copiesAsListed(fields)) return null;
  for (let s = 0; s < shapes.length; s++) {
    const shape = shapes[s]!;
    if (!hasKeys(base, shape.baseKeys) || !hasKeys(fields, shape.fieldKeys)) continue;
    if (s > 0) {
      shapes.splice(s, 1);
      shapes.unshift(shape);
    }
    if (shape.copy === undefined && ++shape.seen >= 2) shape.copy = compileCopier(shape.baseKeys, shape.fieldKeys);
    return shape.copy ?? null;
  }
  const baseKeys = Object.keys(base);
  const fieldKeys = Object.keys(fields);
  // A __proto__ key (a literal would set the prototype, as Object.assign does for the fields' one) or too many
  // keys: not a shape to copy.
  if (baseKeys.length + fieldKeys.length > MOST_FIELDS || fieldKeys.includes('__proto__')) return null;
  shapes.unshift({ baseKeys, fieldKeys, seen: 1, copy: undefined });
  if (shapes.length > SHAPES_KEPT) shapes.pop();
  return null;
}

function compileCopier(baseKeys: readonly string[], fieldKeys: readonly string[]): Copier | null {
  const reads: string[] = [];
  // Insertion order is the result's order; a key of both keeps its first place and takes the later value.
  const values = new Map<string, string>();
  baseKeys.forEach((key, i) => {
    reads.push(`b${i} = base[${JSON.stringify(key)}]`);
    values.set(key, `b${i}`);
  });
  fieldKeys.forEach((key, i) => {
    reads.push(`f${i} = fields[${JSON.stringify(key)}]`);
    values.set(key, `f${i}`);
  });
  const literal = [...values].map(([key, value]) => `${JSON.stringify(key)}: ${value}`).join(', ');
  try {
    return new Function('base', 'fields', `const ${reads.join(', ')};\nreturn { ${literal} };`) as Copier;
  } catch {
    // Code generation disallowed (--disallow-code-generation-from-strings): Object.assign it is.
    return null;
  }
}

/** The type of `{ ...B, ...F }`. */
type Spread<B, F> = { [K in keyof B | keyof F]: K extends keyof F ? F[K] : K extends keyof B ? B[K] : never };

export const defineProjection = <D extends Doc>(projection: Projection<D>): Projection<D> => projection;
