/** PHP's and WordPress's type tests and conversions, as the argument checks read loosely typed input. */
import type { JsonSchema, SchemaType } from './schema';

const PHP_WS = ' \\t\\n\\r\\v\\f';
const NUMERIC = new RegExp(`^[${PHP_WS}]*[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?[${PHP_WS}]*$`);

export function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** WordPress's rest_is_array: a list, a PHP array with numeric keys, or a scalar read as a comma/space list. */
export function isArrayLike(value: unknown): boolean {
  if (isScalar(value)) return true;
  if (Array.isArray(value)) return true;
  return isPlainObject(value) && Object.keys(value).every(isPhpIntKey);
}

/** PHP's is_numeric (PHP 8: surrounding whitespace allowed, no hex, no INF). */
export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && NUMERIC.test(value);
}

/** WordPress's rest_is_integer: numeric and whole ("5.0" is, "1.5" is not). */
export function isIntegerLike(value: unknown): boolean {
  if (!isNumeric(value)) return false;
  const n = Number(value);
  return Math.round(n) === n;
}

/** WordPress's rest_is_boolean. */
export function isBooleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') return ['false', 'true', '0', '1'].includes(value.toLowerCase());
  return value === 0 || value === 1;
}

export function toBoolean(value: unknown): boolean {
  if (typeof value === 'string') return !['false', '0', ''].includes(value.toLowerCase());
  return Boolean(value);
}

/** WordPress's rest_is_object: a map, a PHP array (so also a list), or "". */
export function isObjectLike(value: unknown): boolean {
  return value === '' || (value !== null && typeof value === 'object');
}

export function objectEntries(value: unknown): [string, unknown][] {
  if (value === '' || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.map((v, i) => [String(i), v]);
  return Object.entries(value);
}

/** A key PHP would store as an integer ("0", "12", "-3"; not "01"). */
function isPhpIntKey(key: string): boolean {
  return /^(0|-?[1-9]\d*)$/.test(key);
}

/** WordPress's wp_parse_list: splits on commas and whitespace, dropping empty parts. */
function parseList(text: string): string[] {
  return text.split(/[\s,]+/).filter((part) => part !== '');
}

export function toList(value: unknown): unknown[] {
  if (isScalar(value)) return parseList(phpString(value));
  if (Array.isArray(value)) return [...value];
  if (isPlainObject(value)) return Object.values(value);
  return [];
}

export function bestType(value: unknown, types: readonly SchemaType[]): SchemaType | '' {
  // "" could be an empty array or object, but a string is the better reading.
  if (value === '' && types.includes('string')) return 'string';
  for (const type of types) {
    const fits =
      (type === 'array' && isArrayLike(value)) ||
      (type === 'object' && isObjectLike(value)) ||
      (type === 'integer' && isIntegerLike(value)) ||
      (type === 'number' && isNumeric(value)) ||
      (type === 'boolean' && isBooleanLike(value)) ||
      (type === 'string' && typeof value === 'string') ||
      (type === 'null' && value === null);
    if (fits) return type;
  }
  return '';
}

export function patternSchema(key: string, schema: JsonSchema): JsonSchema | undefined {
  if (!schema.patternProperties) return undefined;
  for (const [pattern, sub] of Object.entries(schema.patternProperties)) if (patternMatches(pattern, key)) return sub;
  return undefined;
}

const patterns = new Map<string, RegExp | null>();
/** WordPress matches schema patterns unanchored, in Unicode mode; a pattern that does not compile matches nothing. */
export function patternMatches(pattern: string, value: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    patterns.set(pattern, re);
  }
  return re?.test(value) === true;
}

export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** JSON-schema equality: lists by position, objects whatever their key order. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ea = objectEntries(a);
    const eb = new Map(objectEntries(b));
    return ea.length === eb.size && ea.every(([k, v]) => eb.has(k) && valuesEqual(v, eb.get(k)));
  }
  return a === b;
}

function stableKey(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  const entries = objectEntries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableKey(v)}`).join(',')}}`;
}

export function allUnique(list: unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of list) {
    const key = stableKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/** A scalar as PHP prints it: true is "1", false is "", floats with 14 significant digits. */
export function phpString(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? '1' : '';
  if (typeof value === 'number') {
    if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
    return String(Number(value.toPrecision(14)));
  }
  return value;
}

/** 2^63: PHP's integers are below it (and at or above its negation). */
export const PHP_INT_LIMIT = 2 ** 63;

/**
 * PHP's `(int)` of a numeric value, as WordPress sanitizes an integer argument. A numeric string that overflows to
 * infinity (`"1e400"`) is 0; one beyond PHP's integers but finite (`"99999999999999999999"`, `"1e308"`) is held at
 * PHP_INT_MAX (or PHP_INT_MIN), which as a JS number is ±2^63 (see phpIntegerText). A JSON number is kept as it is
 * (only an infinite one is 0): Infinity would reach the read model.
 */
export function phpIntegerCast(value: string | number): number {
  const n = Number(value);
  if (!Number.isFinite(n)) return 0;
  if (typeof value === 'string' && Math.abs(n) >= PHP_INT_LIMIT) return Math.sign(n) * PHP_INT_LIMIT;
  return n;
}
