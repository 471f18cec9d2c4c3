/**
 * Query strings, urlencoded forms and multipart field names read the way PHP (and so WordPress) reads them:
 * `a[]=1&a[]=2` is a list, `a[terms][]=3&a[operator]=AND` an object, a repeated plain key keeps its last value, `.`
 * and ` ` in a base name become `_`, an unclosed `[` is part of the name (`a[b=1` is `a_b`).
 *
 * PHP's limits apply: past `max_input_vars` (1000) the rest is ignored, and a variable nested deeper than
 * `max_input_nesting_level` (64) is dropped together with everything already under its base name, as PHP does.
 *
 * No input can reach a prototype: the names `__proto__`, `constructor` and `prototype` are dropped at every level
 * (WordPress has no argument of those names), the tree is built in Maps, and the record returned has no prototype.
 * Nested objects are ordinary objects (code stringifies PHP arrays like any other value, and String() of a
 * prototype-less object throws); they never hold one of the dropped names. The walk is a loop: no depth of
 * brackets reaches the stack.
 */

export const MAX_INPUT_VARS = 1000;
export const MAX_INPUT_NESTING_LEVEL = 64;

/** Keys through which an assignment (here or in any later walk over these keys) could reach a prototype. */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isUnsafeKey(key: string): boolean {
  return UNSAFE_KEYS.has(key);
}

/** A PHP array: ordered keys, and the index `[]` appends at. */
class PhpArray {
  readonly entries = new Map<string, Value>();
  private next = 0;
  private hasIntKey = false;

  set(key: string, value: Value): void {
    this.entries.set(key, value);
    if (PHP_INT_KEY.test(key)) {
      const n = Number(key);
      if (!this.hasIntKey || n + 1 > this.next) this.next = n + 1;
      this.hasIntKey = true;
    }
  }

  append(value: Value): void {
    this.set(String(this.next), value);
  }
}
type Value = string | PhpArray;

/** A key PHP stores as an integer (canonical decimal, no leading zero, no "-0"). */
const PHP_INT_KEY = /^(0|-?[1-9]\d{0,17})$/;

export function parseQuery(query: string): Record<string, unknown> {
  const root = new PhpArray();
  if (query === '') return toRecord(root);
  let count = 0;
  for (const part of query.split('&')) {
    if (part === '') continue;
    if (++count > MAX_INPUT_VARS) break;
    const eq = part.indexOf('=');
    register(root, decode(eq === -1 ? part : part.slice(0, eq)), eq === -1 ? '' : decode(part.slice(eq + 1)));
  }
  return toRecord(root);
}

/** Named text fields (a multipart form's), read as PHP reads their names. */
export function parseFields(fields: Iterable<readonly [string, string]>): Record<string, unknown> {
  const root = new PhpArray();
  let count = 0;
  for (const [name, value] of fields) {
    if (++count > MAX_INPUT_VARS) break;
    register(root, name, value);
  }
  return toRecord(root);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** php_register_variable_ex: one `name=value` into the tree. */
function register(root: PhpArray, rawName: string, value: string): void {
  const name = rawName.replace(/^ +/, '');
  const open = name.indexOf('[');
  let base = (open === -1 ? name : name.slice(0, open)).replace(/[ .]/g, '_');
  if (base === '') return;
  if (open === -1) {
    if (!isUnsafeKey(base)) root.set(base, value);
    return;
  }
  // Each bracket pair, in order; `null` appends.
  const keys: (string | null)[] = [];
  let at = open;
  for (;;) {
    if (keys.length + 1 > MAX_INPUT_NESTING_LEVEL) {
      root.entries.delete(base);
      return;
    }
    const start = at + 1;
    const close = name.indexOf(']', name[start] === ' ' ? start + 1 : start);
    if (name[start] === ']' || (name[start] === ' ' && name[start + 1] === ']')) {
      keys.push(null);
      at = name.indexOf(']', start);
    } else if (close === -1) {
      // Not an index: the first unclosed `[` is part of the base name (its rest mangled); a later one ends the name.
      if (keys.length === 0) {
        base = `${base}_${name.slice(start).replace(/[ .[]/g, '_')}`;
        if (!isUnsafeKey(base)) root.set(base, value);
        return;
      }
      break;
    } else {
      keys.push(name.slice(start, close));
      at = close;
    }
    if (name[at + 1] !== '[') break;
    at += 1;
  }
  if (isUnsafeKey(base) || keys.some((key) => key !== null && isUnsafeKey(key))) return;
  let container = root;
  let pending: string | null = base;
  for (const key of keys) {
    let next = pending === null ? undefined : container.entries.get(pending);
    if (!(next instanceof PhpArray)) {
      next = new PhpArray();
      if (pending === null) container.append(next);
      else container.set(pending, next);
    }
    container = next;
    pending = key;
  }
  if (pending === null) container.append(value);
  else container.set(pending, value);
}

/** The top level as a record without a prototype; below it, lists and ordinary objects. */
function toRecord(root: PhpArray): Record<string, unknown> {
  const record: Record<string, unknown> = Object.create(null);
  for (const [key, value] of root.entries) record[key] = toValue(value);
  return record;
}

/** PHP arrays whose keys are 0..n-1, in order, are lists (`e[0]=a&e[1]=b`). Bounded by the nesting limit. */
function toValue(value: Value): unknown {
  if (typeof value === 'string') return value;
  let i = 0;
  let isList = value.entries.size > 0;
  for (const key of value.entries.keys()) if (key !== String(i++)) isList = false;
  if (isList) return [...value.entries.values()].map(toValue);
  const object: Record<string, unknown> = {};
  for (const [key, inner] of value.entries) object[key] = toValue(inner);
  return object;
}
